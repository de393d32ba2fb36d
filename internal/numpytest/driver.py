"""Phobos numpytest driver: evaluates every case of a manifest in this one
process and writes each case's results as .npy files.

Usage: python3 driver.py MANIFEST.json

The manifest is {"results": PATH, "outdir": DIR, "cases": [{"index": I,
"name": N, "expr": E, "inputs": {NAME: NPY_PATH}}]}. For each case the
expression is evaluated with `np` and the inputs bound; its value (an array,
a NumPy or Python scalar, or a tuple/list of those) is written to
DIR/I_J.npy for J = 0, 1, ... A failing case records the Python exception
message instead and the other cases go on. The JSON file PATH receives
{"results": [{"index": I, "ok": true, "n": COUNT} | {"index": I, "ok":
false, "error": MESSAGE}]} and is written last, by rename, so its presence
means the run completed.
"""

import builtins
import json
import keyword
import os
import sys
import traceback
import warnings

import numpy as np

SUPPORTED = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.float16, np.float32, np.float64,
                                   np.complex64, np.complex128)]


def normalise(v, j):
    """Turns one result into a native-endian C-order array of a Phobos dtype."""
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
    elif isinstance(v, bool):
        a = np.array(v, dtype=np.bool_)
    elif isinstance(v, int):
        if not -(2 ** 63) <= v < 2 ** 63:
            raise OverflowError("result %d: Python int %d does not fit int64" % (j, v))
        a = np.array(v, dtype=np.int64)
    elif isinstance(v, float):
        a = np.array(v, dtype=np.float64)
    elif isinstance(v, complex):
        a = np.array(v, dtype=np.complex128)
    else:
        raise TypeError("result %d is a Python %s, not an array or scalar" % (j, type(v).__name__))
    native = a.dtype.newbyteorder("=")
    if native not in SUPPORTED:
        raise TypeError(
            "result %d has dtype %s, which Phobos does not support "
            "(%s)" % (j, a.dtype, ", ".join(t.name for t in SUPPORTED)))
    return a.astype(native, order="C", copy=False)


def run_case(case, outdir):
    for name in case["inputs"]:
        if not name.isidentifier() or keyword.iskeyword(name) or name in ("np", "numpy"):
            raise NameError("input name %r is not usable as a Python variable" % name)
    env = {"np": np, "numpy": np, "__builtins__": builtins}
    for name, path in case["inputs"].items():
        env[name] = np.load(path, allow_pickle=False)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        value = eval(compile(case["expr"], "<case %s>" % case["name"], "eval"), env)
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    arrays = []
    for j, v in enumerate(values):
        if isinstance(v, (tuple, list)):
            raise TypeError("result %d is a nested %s; return a flat tuple or list" % (j, type(v).__name__))
        arrays.append(normalise(v, j))
    for j, a in enumerate(arrays):
        np.save(os.path.join(outdir, "%d_%d.npy" % (case["index"], j)), a)
    return len(arrays)


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    results = []
    for case in manifest["cases"]:
        try:
            n = run_case(case, manifest["outdir"])
            results.append({"index": case["index"], "ok": True, "n": n})
        except Exception as e:  # each case's failure is its own
            msg = "".join(traceback.format_exception_only(type(e), e)).strip()
            results.append({"index": case["index"], "ok": False, "error": msg})
    tmp = manifest["results"] + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"results": results}, f)
    os.replace(tmp, manifest["results"])


if __name__ == "__main__":
    main()
