"""Writes docs/numpy-coverage.md: every public function of NumPy's main
namespace, numpy.linalg, numpy.fft and numpy.random, as the installed NumPy
lists them, with what Phobos has for it.

    python3 python/tools/numpy_coverage.py > docs/numpy-coverage.md

A name is supported when phobos.tensor (or its linalg/fft/random module) has
it; every function there is a call of the cluster's registry (the client's
registry test checks that), so this is the registry's coverage as a NumPy
user meets it. The out-of-scope and partial notes below are kept by hand.
go test -run TestNumpyCoverage . fails when the file is stale."""

import inspect
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

import phobos.tensor as mt  # noqa: E402

# Out of scope, with the reason: what a distributed array engine does not
# reimplement (NumPy's own function serves, or the concept does not apply).
OUT = {}


def out(reason, *names):
    for n in names:
        OUT[n] = reason


out("file formats and text I/O beyond .npy and Zarr (use mt.from_npy, mt.to_npy, mt.from_zarr)",
    "load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt", "fromfile",
    "fromregex", "fromstring", "frombuffer", "recfromcsv", "recfromtxt", "fromiter", "from_dlpack")
out("printing and formatting", "array2string", "array_repr", "array_str", "base_repr", "binary_repr",
    "format_float_positional", "format_float_scientific", "set_printoptions", "get_printoptions",
    "printoptions", "set_string_function", "disp")
out("datetimes (Phobos has no datetime dtype)", "busday_count", "busday_offset", "is_busday",
    "datetime_as_string", "datetime_data", "isnat")
out("polynomials (numpy.polynomial's domain)", "poly", "polyadd", "polyder", "polydiv", "polyfit",
    "polyint", "polymul", "polysub", "polyval", "roots")
out("NumPy's interpreter, error-state and build configuration", "seterr", "geterr", "seterrcall",
    "geterrcall", "seterrobj", "geterrobj", "setbufsize", "getbufsize", "show_config", "show_runtime",
    "get_include", "info", "lookfor", "source", "who", "deprecate", "deprecate_with_doc", "safe_eval",
    "add_docstring", "add_newdoc", "add_newdoc_ufunc", "set_numeric_ops", "test", "get_array_wrap",
    "nested_iters")
out("memory layout and sharing of NumPy buffers (Phobos arrays are chunked and immutable)",
    "byte_bounds", "may_share_memory", "shares_memory", "isfortran", "require", "ascontiguousarray",
    "asfortranarray", "fastCopyAndTranspose", "packbits", "unpackbits")
out("dtype introspection (NumPy's functions work on Phobos dtypes as they are)", "can_cast",
    "promote_types", "result_type", "min_scalar_type", "obj2sctype", "sctype2char", "issctype",
    "issubsctype", "issubdtype", "issubclass_", "mintypecode", "common_type", "find_common_type",
    "maximum_sctype", "typename", "iterable", "isscalar")
out("complex sorting and tolerance tricks (sort refuses complex; take .real or abs first)", "real_if_close",
    "sort_complex")
out("Python callbacks per element or per slice", "frompyfunc", "piecewise", "apply_along_axis",
    "apply_over_axes", "fromfunction")
out("matrix class (deprecated in NumPy)", "asmatrix", "mat", "bmat")
out("strings", "compare_chararrays")

# Supported with limits: what is missing.
_INPLACE = "in place by rebinding the tensor handle: names bound to it see the change, views taken before do not"
PARTIAL = {
    "put": "mode='raise' only; " + _INPLACE,
    "place": _INPLACE,
    "putmask": _INPLACE,
    "fill_diagonal": _INPLACE,
    "copyto": _INPLACE,
    "put_along_axis": _INPLACE,
    "where": "where(condition) with one argument (nonzero) is missing",
    "linalg.norm": "keepdims goes through a composition; 'nuc' and ord ±2 need the matrix itself (no stacks)",
    "round": "decimals work; out= is refused (tensors are immutable)",
    "around": "decimals work; out= is refused (tensors are immutable)",
    "empty": "filled with zeros",
    "empty_like": "filled with zeros",
    "tensordot": "",
    "ravel": "order='C' only",
    "cross": "3-vectors only",
    "logspace": "axis=0 only",
    "linspace": "axis=0 only",
    "diff": "",
    "reshape": "order='C' only",
    "pad": "modes constant, edge, reflect, symmetric and wrap (not linear_ramp, the statistics, empty or a function)",
    "insert": "obj as a boolean mask is refused",
    "histogram": "bins='auto', 'fd' and 'stone' are missing; the other named rules execute their bin count first",
    "histogram_bin_edges": "bins='auto', 'fd' and 'stone' are missing; the other named rules execute their bin count first",
}

MODULES = [("", np, mt), ("linalg.", np.linalg, getattr(mt, "linalg", None)),
           ("fft.", np.fft, getattr(mt, "fft", None)), ("random.", np.random, getattr(mt, "random", None))]


def rows():
    out_rows = []
    for prefix, npmod, ptmod in MODULES:
        for name in sorted(dir(npmod)):
            if name.startswith("_"):
                continue
            obj = getattr(npmod, name)
            if not callable(obj) or inspect.ismodule(obj):
                continue
            full = prefix + name
            if inspect.isclass(obj) and not (prefix == "random." and name == "RandomState"):
                status, note = "out of scope", "a type or class, not a function"
            elif full in OUT or name in OUT and prefix == "":
                status, note = "out of scope", OUT.get(full, OUT.get(name))
            elif ptmod is not None and callable(getattr(ptmod, name, None)):
                if full in PARTIAL and PARTIAL[full]:
                    status, note = "partial", PARTIAL[full]
                else:
                    status, note = "supported", ""
            else:
                status, note = "not supported", ""
            where = ("mt." + full) if status in ("supported", "partial") else ""
            out_rows.append((full, where, status, note))
    return out_rows


def main():
    rs = rows()
    lines = ["# NumPy coverage", "",
             "Generated by `python3 python/tools/numpy_coverage.py` from NumPy " + np.__version__ +
             "'s public functions and the Python client's `phobos.tensor` (every function of which calls the",
             "cluster's registry, `GET /api/functions`); `go test -run TestNumpyCoverage .` fails when it is stale",
             "(`-update` rewrites it). Out-of-scope names are left out of the shares.", ""]
    lines += ["| namespace | functions | supported | partial | not supported | out of scope | supported share (in scope) |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for prefix, label in [("", "numpy"), ("linalg.", "numpy.linalg"), ("fft.", "numpy.fft"), ("random.", "numpy.random")]:
        sel = [r for r in rs if (r[0].startswith(prefix) if prefix else "." not in r[0])]
        c = {s: sum(1 for r in sel if r[2] == s) for s in ("supported", "partial", "not supported", "out of scope")}
        scope = c["supported"] + c["partial"] + c["not supported"]
        share = f"{100 * (c['supported'] + c['partial']) / scope:.0f}%" if scope else "-"
        lines.append(f"| `{label}` | {len(sel)} | {c['supported']} | {c['partial']} | {c['not supported']} | {c['out of scope']} | {share} |")
    lines += ["", "Supported share counts partial names as supported.", "",
              "| NumPy | Phobos | status | note |", "| --- | --- | --- | --- |"]
    for full, where, status, note in rs:
        lines.append(f"| `np.{full}` | {('`' + where + '`') if where else ''} | {status} | {note} |")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
