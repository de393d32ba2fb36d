"""NumPy's array manipulation functions, each a call of the cluster's
function of the same name (Go's tensor/manip.go): rolls, repeats, pads,
triangles, diagonals, grids, insertion and deletion. Arguments are checked
and converted here only as far as JSON needs; NumPy's rules (and errors)
are the cluster's."""

import operator

import numpy as np

from ._core import Tensor, astensor, call, _dtype_name
from .._executable import ExecutableTuple


def _int_or_ints(x):
    if isinstance(x, (int, np.integer)):
        return operator.index(x)
    if isinstance(x, Tensor):
        raise NotImplementedError("phobos: integer arguments given as a tensor; pass a list or a NumPy array")
    a = np.asarray(x)
    if a.ndim == 0:
        return operator.index(a.item())
    if a.dtype.kind not in "iu" and a.size:
        raise TypeError(f"phobos: want integers, got an array of {a.dtype}")
    return [operator.index(v) for v in a.ravel().tolist()]


def _opt_axis(axis):
    return None if axis is None else operator.index(axis)


def _operand(x):
    """A Python scalar passes as itself (NumPy's weak scalar), the rest as a tensor."""
    if isinstance(x, (bool, int, float)) or (isinstance(x, np.generic) and np.ndim(x) == 0 and not isinstance(x, np.ndarray)):
        return x.item() if isinstance(x, np.generic) else x
    return astensor(x)


def roll(a, shift, axis=None):
    return call("roll", astensor(a), _int_or_ints(shift), None if axis is None else _int_or_ints(axis))


def repeat(a, repeats, axis=None):
    return call("repeat", astensor(a), _int_or_ints(repeats), axis=_opt_axis(axis))


def tile(A, reps):
    r = _int_or_ints(reps)
    return call("tile", astensor(A), [r] if isinstance(r, int) else r)


def swapaxes(a, axis1, axis2):
    return call("swapaxes", astensor(a), operator.index(axis1), operator.index(axis2))


def moveaxis(a, source, destination):
    s, d = _int_or_ints(source), _int_or_ints(destination)
    return call("moveaxis", astensor(a), [s] if isinstance(s, int) else s, [d] if isinstance(d, int) else d)


def rollaxis(a, axis, start=0):
    return call("rollaxis", astensor(a), operator.index(axis), operator.index(start))


def _each(fn, arys):
    res = [call(fn, astensor(a)) for a in arys]
    return res[0] if len(res) == 1 else ExecutableTuple(res)


def atleast_1d(*arys):
    return _each("atleast_1d", arys)


def atleast_2d(*arys):
    return _each("atleast_2d", arys)


def atleast_3d(*arys):
    return _each("atleast_3d", arys)


def hstack(tup):
    return call("hstack", [astensor(a) for a in tup])


def vstack(tup):
    return call("vstack", [astensor(a) for a in tup])


def dstack(tup):
    return call("dstack", [astensor(a) for a in tup])


def column_stack(tup):
    return call("column_stack", [astensor(a) for a in tup])


def append(arr, values, axis=None):
    return call("append", astensor(arr), astensor(values), axis=_opt_axis(axis))


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    kw = {}
    if prepend is not np._NoValue:
        kw["prepend"] = _operand(prepend)
    if append is not np._NoValue:
        kw["append"] = _operand(append)
    return call("diff", astensor(a), operator.index(n), operator.index(axis), **kw)


def ediff1d(ary, to_end=None, to_begin=None):
    return call("ediff1d", astensor(ary), to_end=None if to_end is None else astensor(to_end),
                to_begin=None if to_begin is None else astensor(to_begin))


def trapz(y, x=None, dx=1.0, axis=-1):
    return call("trapz", astensor(y), None if x is None else astensor(x), float(dx), operator.index(axis))


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pairs(v, name):
    a = np.asarray(v)
    if a.ndim > 2 or (a.ndim >= 1 and a.shape[-1] not in (1, 2)):
        raise ValueError(f"phobos: {name} {v!r}: want a number, a pair or one pair per axis")
    return a.tolist()


def pad(array, pad_width, mode="constant", **kwargs):
    if callable(mode):
        raise NotImplementedError("phobos: pad with a function as mode")
    if mode not in _PAD_MODES:
        if mode in ("empty", "linear_ramp", "maximum", "mean", "median", "minimum"):
            raise NotImplementedError(f"phobos: pad mode {mode!r} (constant, edge, reflect, symmetric, wrap are supported)")
        raise ValueError(f"mode '{mode}' is not supported")
    cv = kwargs.pop("constant_values", None)
    if mode != "constant" and cv is not None:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {{'constant_values'}}")
    if kwargs:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {set(kwargs)}")
    w = np.asarray(pad_width)
    if w.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    return call("pad", astensor(array), _pairs(w, "pad_width"), mode,
                constant_values=None if cv is None else _pairs(cv, "constant_values"))


def tril(m, k=0):
    return call("tril", astensor(m), operator.index(k))


def triu(m, k=0):
    return call("triu", astensor(m), operator.index(k))


def diag(v, k=0):
    return call("diag", astensor(v), operator.index(k))


def diagflat(v, k=0):
    return call("diagflat", astensor(v), operator.index(k))


def diagonal(a, offset=0, axis1=0, axis2=1):
    return call("diagonal", astensor(a), operator.index(offset), operator.index(axis1), operator.index(axis2))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise NotImplementedError("phobos: trace(out=...): tensors are immutable; use the result")
    return call("trace", astensor(a), operator.index(offset), operator.index(axis1), operator.index(axis2),
                dtype=_dtype_name(dtype))


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [astensor(x) for x in xi]
    return ExecutableTuple(call("meshgrid", xs, indexing=indexing, sparse=bool(sparse), out=i) for i in range(len(xs)))


def indices(dimensions, dtype=int, sparse=False):
    dims = [operator.index(d) for d in dimensions]
    dt = _dtype_name(dtype)
    if sparse:
        return ExecutableTuple(call("indices", dims, dt, True, out=i) for i in range(len(dims)))
    return call("indices", dims, dt)


def _positions(obj, n_hint=None):
    """insert's and delete's obj as JSON: an integer, a list, or a slice."""
    if isinstance(obj, slice):
        return {"slice": [None if v is None else operator.index(v) for v in (obj.start, obj.stop, obj.step)]}
    if isinstance(obj, Tensor):
        raise NotImplementedError("phobos: positions given as a tensor; pass an integer, a slice, a list or a NumPy array")
    a = np.asarray(obj)
    if a.dtype == np.bool_:
        if n_hint is not None and a.shape != (n_hint,):
            raise ValueError(f"boolean array argument obj to delete must be one dimensional and match the axis length of {n_hint}")
        return np.flatnonzero(a).tolist()
    if a.ndim == 0:
        return operator.index(a.item())
    if a.size and a.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return [operator.index(v) for v in a.ravel().tolist()]


def insert(arr, obj, values, axis=None):
    a = astensor(arr)
    if isinstance(obj, np.ndarray) and obj.dtype == np.bool_:
        raise NotImplementedError("phobos: insert with a boolean obj")
    return call("insert", a, _positions(obj), _operand(values), axis=_opt_axis(axis))


def delete(arr, obj, axis=None):
    a = astensor(arr)
    n = None
    if isinstance(obj, np.ndarray) and obj.dtype == np.bool_:
        # a mask goes as the positions it selects, checked against the axis here
        n = a.size if axis is None else a.shape[operator.index(axis)]
    return call("delete", a, _positions(obj, n), axis=_opt_axis(axis))


def array_split(ary, indices_or_sections, axis=0):
    a = astensor(ary)
    if isinstance(indices_or_sections, (int, np.integer)):
        s = operator.index(indices_or_sections)
        if s <= 0:
            raise ValueError("number sections must be larger than 0.")
        n = s
        arg = s
    else:
        arg = [operator.index(i) for i in indices_or_sections]
        n = len(arg) + 1
    return ExecutableTuple(call("array_split", a, arg, operator.index(axis), out=i) for i in range(n))


def rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    return call("rot90", astensor(m), operator.index(k), [operator.index(x) for x in axes])


# Functions that were compositions in _compose and are now calls (it
# imports them), and the new ones.
NAMES = ["pad", "insert", "delete", "atleast_1d", "atleast_2d", "hstack", "vstack"]

REGISTRY = {n: n for n in (
    "roll", "repeat", "tile", "swapaxes", "moveaxis", "rollaxis", "hstack", "vstack", "dstack", "column_stack",
    "atleast_1d", "atleast_2d", "atleast_3d", "diff", "ediff1d", "trapz", "pad", "tril", "triu", "diag",
    "diagflat", "diagonal", "trace", "meshgrid", "indices", "append", "insert", "delete", "array_split", "rot90")}
