"""NumPy functions that are compositions of the cluster's functions: splitting,
tri, logspace, and a few products (the array manipulation functions are calls
now: _manip.py; the statistics: _stats.py). Each follows NumPy 1.24's definition, so the
results, dtypes and errors are NumPy's; nothing here computes on the client."""

import builtins
import operator

import numpy as np

from ._core import Tensor, astensor, from_numpy, _dtype_name
# Functions once composed here that are now calls of the cluster's own.
from ._manip import (  # noqa: F401
    diff, ediff1d, trapz, moveaxis, swapaxes, rollaxis, atleast_2d, atleast_3d, column_stack, dstack, append,
    tile, repeat, roll, rot90, array_split, tril, triu, diagonal, diag, diagflat, trace, meshgrid, indices,
)


def _mt():
    from .. import tensor
    return tensor


def _norm_axis(axis, ndim):
    from .._errors import AxisError
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


# aliases ---------------------------------------------------------------------


def copy(a, order="K"):
    """A tensor equal to a (tensors are immutable, so a itself)."""
    return astensor(a)


def asfarray(a, dtype=np.float64):
    a = astensor(a)
    dt = np.dtype(dtype)
    if dt.kind != "f":
        dt = np.dtype(np.float64)
    return a if a.dtype == dt else a.astype(dt)




# splitting -------------------------------------------------------------------------


def split(ary, indices_or_sections, axis=0):
    a = astensor(ary)
    if isinstance(indices_or_sections, (int, np.integer)):
        n = a.shape[_norm_axis(axis, a.ndim)]
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(a, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    a = astensor(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    a = astensor(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    a = astensor(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


# triangles and grids ---------------------------------------------------------------


def _tri_mask(N, M, k):
    mt = _mt()
    i = mt.arange(N).reshape(N, 1)
    j = mt.arange(M).reshape(1, M)
    return mt.greater_equal(i + operator.index(k), j)


def tri(N, M=None, k=0, dtype=float):
    M = N if M is None else M
    return _tri_mask(operator.index(N), operator.index(M), k).astype(_dtype_name(dtype))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    mt = _mt()
    if axis != 0:
        raise NotImplementedError("phobos: logspace(axis != 0)")
    y = mt.linspace(start, stop, num=num, endpoint=endpoint)
    r = mt.power(float(base), y)
    return r if dtype is None else r.astype(dtype)


def broadcast_arrays(*args, subok=False):
    mt = _mt()
    ts = [astensor(a) for a in args]
    shape = np.broadcast_shapes(*[t.shape for t in ts])
    return [t if t.shape == shape else mt.broadcast_to(t, shape) for t in ts]


broadcast_shapes = np.broadcast_shapes


# products and statistics ------------------------------------------------------------


def inner(a, b):
    return _mt().call("inner", astensor(a), astensor(b))


def vdot(a, b):
    return _mt().call("vdot", astensor(a), astensor(b))


def kron(a, b):
    mt = _mt()
    a, b = astensor(a), astensor(b)
    nd = builtins.max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    inter_a, inter_b, out = [], [], []
    for sa, sb in zip(a.shape, b.shape):
        inter_a += [sa, 1]
        inter_b += [1, sb]
        out.append(sa * sb)
    return mt.multiply(a.reshape(inter_a), b.reshape(inter_b)).reshape(out)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    mt = _mt()
    a, b = astensor(a), astensor(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        if a.shape[-1] in (2, 3) and b.shape[-1] in (2, 3):
            raise NotImplementedError("phobos: cross of 2-vectors")
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c = mt.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, axisc)


def sinc(x):
    mt = _mt()
    x = astensor(x)
    y = np.pi * mt.where(x == 0, 1.0e-20, x)
    return mt.sin(y) / y


def select(condlist, choicelist, default=0):
    mt = _mt()
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [astensor(c) for c in choicelist]
    rt = np.result_type(*[c.dtype for c in choices], np.asarray(default).dtype if not isinstance(default, Tensor) else default.dtype)
    result = mt.full((), default, dtype=rt.name) if not isinstance(default, Tensor) else default.astype(rt.name)
    for cond, choice in zip(reversed(condlist), reversed(choices)):
        cond = astensor(cond)
        if cond.dtype != np.bool_:
            raise TypeError(f"invalid entry in condlist: should be boolean ndarray")
        result = mt.where(cond, choice.astype(rt.name), result)
    return result


NAMES = [
    "copy", "asfarray", "diff", "ediff1d", "trapz", "moveaxis", "swapaxes", "rollaxis", "atleast_3d",
    "column_stack", "dstack", "append", "tile", "repeat", "roll", "rot90", "array_split", "split",
    "hsplit", "vsplit", "dsplit", "tri", "tril", "triu", "diagonal", "diag", "diagflat", "trace",
    "meshgrid", "indices", "logspace", "broadcast_arrays", "broadcast_shapes", "inner", "vdot", "kron",
    "cross", "sinc", "select",
]
