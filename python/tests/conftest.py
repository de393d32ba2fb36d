"""A real Phobos cluster for the tests: `phobos cluster`, built from this
checkout unless $PHOBOS_BIN names a binary, started once per test run."""

import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import phobos  # noqa: E402


def _binary(tmp):
    if os.environ.get("PHOBOS_BIN"):
        return os.environ["PHOBOS_BIN"]
    out = os.path.join(tmp, "phobos")
    subprocess.run(["go", "build", "-o", out, "./cmd/phobos"], cwd=HERE.parent.parent, check=True)
    return out


@pytest.fixture(scope="session", autouse=True)
def session():
    with tempfile.TemporaryDirectory(prefix="phobos-pytest-") as tmp:
        os.environ["PHOBOS_BIN"] = _binary(tmp)
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        s = phobos.new_session(workers=2, cluster_args=["--data-root", data])
        s.data_root = data
        try:
            yield s
        finally:
            s.close()


@pytest.fixture
def sess():
    """A cluster of the test's own (two workers, not the default session):
    for tests that count its stores' bytes or its chunk ops."""
    s = phobos.new_session(workers=2, default=False)
    try:
        yield s
    finally:
        s.close()


def pytest_terminal_summary(terminalreporter):
    """How many of Mars's examples (test_mars_examples.py) ran, each
    compared with NumPy; the line python/pytest_test.go reports."""
    def count(key):
        return sum(1 for r in terminalreporter.stats.get("passed", [])
                   if r.when == "call" and any(k == key for k, _ in r.user_properties))
    ran, unsupported = count("mars_example"), count("mars_example_unsupported")
    if ran or unsupported:
        terminalreporter.write_line(f"mars examples: {ran} run as written and compared with NumPy, "
                                    f"{unsupported} listed as unsupported")
