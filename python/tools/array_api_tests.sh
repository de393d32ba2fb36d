#!/bin/sh
# Runs the Python Array API conformance suite (data-apis/array-api-tests)
# against phobos.tensor on a local cluster, or against another namespace
# (numpy.array_api) with the same settings. The suite is not part of this
# repository: check it out beside it (docs/array-api.md says which commit).
#
#   python/tools/array_api_tests.sh SUITE NDINDEX [MODULE] [pytest args...]
#
# SUITE: a checkout of array-api-tests with its array-api spec submodule;
# NDINDEX: a directory holding the ndindex package (pure Python, 1.7);
# MODULE: phobos.tensor (default) or numpy.array_api. $PHOBOS_BIN names the
# phobos binary (else it is built from this checkout). Debian's hypothesis
# (6.67) knows only the 2021.12 strategies, so the suite runs at 2021.12,
# for both modules alike; 5 examples per test and a fixed seed. The suite's
# meta tests (they test its own helpers, not the module) are left out for
# both, so that the counts compare with docs/array-api.md's.
set -eu
suite=$(cd "$1" && pwd)
ndindex=$(cd "$2" && pwd)
module=${3:-phobos.tensor}
shift 2
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")/../.." && pwd)
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
if [ "$module" = phobos.tensor ] && [ -z "${PHOBOS_BIN:-}" ]; then
	(cd "$here" && go build -o "$shim/phobos" ./cmd/phobos)
	PHOBOS_BIN=$shim/phobos
	export PHOBOS_BIN
fi
# pytest-json-report and pytest-metadata are not in Debian: the suite's
# reporting.py needs their hook names and one fixture. The same plugin
# runs each phobos.tensor test within resolve_shapes() (see below).
mkdir "$shim/pytest_jsonreport"
: >"$shim/pytest_jsonreport/__init__.py"
cat >"$shim/jsonreport_shim.py" <<'PY'
import pytest


class _Specs:
    @pytest.hookspec
    def pytest_json_modifyreport(self, json_report):
        pass

    @pytest.hookspec
    def pytest_metadata(self, metadata):
        pass


def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(_Specs)


@pytest.fixture
def json_metadata():
    return {}


@pytest.fixture(autouse=True)
def _resolved_shapes():
    # The suite reads the shapes of unique_*, nonzero and x[mask] results
    # as numbers (ndindex, math.prod), where the standard lets a lazy
    # array say None: its tests run as eager code does on phobos.tensor,
    # within resolve_shapes(), which computes such a length when read.
    import os
    if os.environ.get("ARRAY_API_TESTS_MODULE") != "phobos.tensor":
        yield
        return
    import phobos.tensor as mt
    with mt.resolve_shapes():
        yield
PY
cd "$suite"
PYTHONPATH="$here/python:$ndindex:$shim" ARRAY_API_TESTS_MODULE=$module ARRAY_API_TESTS_VERSION=2021.12 \
	exec /usr/bin/python3 -m pytest array_api_tests -p jsonreport_shim -p no:cacheprovider -q -W ignore \
	--ignore=array_api_tests/meta --max-examples 5 --hypothesis-seed=0 "$@"
