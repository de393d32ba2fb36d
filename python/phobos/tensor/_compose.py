"""NumPy functions that are compositions of the cluster's functions: splitting,
tri, logspace, and a few products (the array manipulation functions are calls
now: _manip.py; the statistics: _stats.py). Each follows NumPy 1.24's definition, so the
results, dtypes and errors are NumPy's; nothing here computes on the client."""

import builtins
import math
import operator

import numpy as np

from ._core import Tensor, astensor, from_numpy, _dtype_name
from .._executable import ExecutableTuple
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
    """A tensor equal to a: a new handle, so that in-place syntax on the
    copy (c += 1, which rebinds c) leaves a as it is."""
    a = astensor(a)
    return _mt().astype(a, a.dtype, copy=True)


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
    return ExecutableTuple(t if t.shape == shape else mt.broadcast_to(t, shape) for t in ts)


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



# metadata, grids, windows, orders ---------------------------------------------------


def ndim(a):
    return astensor(a).ndim


def shape(a):
    return astensor(a).shape


def size(a, axis=None):
    a = astensor(a)
    return a.size if axis is None else a.shape[axis]


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """numpy.geomspace for real start and stop of one sign (NumPy makes
    complex numbers of mixed signs); the ends are exact, as NumPy sets them."""
    mt = _mt()
    if axis != 0:
        raise NotImplementedError("phobos: geomspace(axis != 0)")
    start, stop = float(start), float(stop)
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    if (start < 0) != (stop < 0):
        raise NotImplementedError("phobos: geomspace between numbers of different signs gives complex numbers")
    sign = -1.0 if start < 0 else 1.0
    r = mt.logspace(math.log10(sign * start), math.log10(sign * stop), num=num, endpoint=endpoint)
    if sign < 0:
        r = -r
    if num > 0:
        i = mt.arange(num)
        r = mt.where(i == 0, start, r)
        if endpoint and num > 1:
            r = mt.where(i == num - 1, stop, r)
    return r if dtype is None else r.astype(dtype)


def msort(a):
    return _mt().sort(a, axis=0)


def ix_(*args):
    """numpy.ix_ for integer sequences (boolean ones would need their
    nonzero's length first)."""
    out = []
    nd = len(args)
    for k, a in enumerate(args):
        a = astensor(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            raise NotImplementedError("phobos: ix_ of a boolean sequence; give its nonzero()[0] computed")
        out.append(a.reshape((1,) * k + (a.shape[0],) + (1,) * (nd - k - 1)))
    return ExecutableTuple(out)


def diag_indices(n, ndim=2):
    idx = _mt().arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    arr = astensor(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def vander(x, N=None, increasing=False):
    mt = _mt()
    x = astensor(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else operator.index(N)
    e = mt.arange(n) if increasing else mt.arange(n - 1, -1, -1)
    if x.dtype.kind in "iu":
        e = e.astype(x.dtype)
    return mt.power(x.reshape(x.shape[0], 1), e)


def _window(M):
    mt = _mt()
    M = operator.index(M)
    if M < 1:
        return None, mt.zeros(0)
    if M == 1:
        return None, mt.ones(1)
    return mt.arange(1 - M, M, 2).astype("float64"), M


def hanning(M):
    n, m = _window(M)
    if n is None:
        return m
    return 0.5 + 0.5 * _mt().cos(math.pi * n / (m - 1))


def hamming(M):
    n, m = _window(M)
    if n is None:
        return m
    return 0.54 + 0.46 * _mt().cos(math.pi * n / (m - 1))


def blackman(M):
    mt = _mt()
    n, m = _window(M)
    if n is None:
        return m
    return 0.42 + 0.5 * mt.cos(math.pi * n / (m - 1)) + 0.08 * mt.cos(2.0 * math.pi * n / (m - 1))


def bartlett(M):
    mt = _mt()
    n, m = _window(M)
    if n is None:
        return m
    return mt.where(n <= 0, 1 + n / (m - 1), 1 - n / (m - 1))


def lexsort(keys, axis=-1):
    """numpy.lexsort of 1-D keys (the last key sorts first), by stable
    argsorts from the first key to the last."""
    mt = _mt()
    keys = [astensor(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(k.ndim != 1 for k in keys) or axis not in (-1, 0):
        raise NotImplementedError("phobos: lexsort of keys other than 1-D")
    if len({k.shape for k in keys}) != 1:
        raise ValueError("all keys need to be the same shape")
    idx = mt.argsort(keys[0], kind="stable")
    for k in keys[1:]:
        idx = mt.take(idx, mt.argsort(mt.take(k, idx), kind="stable"))
    return idx


def trim_zeros(filt, trim="fb"):
    """numpy.trim_zeros of a 1-D tensor: its first and last nonzero
    positions are computed first (one execution), then it is sliced."""
    mt = _mt()
    filt = astensor(filt)
    if filt.ndim != 1:
        raise ValueError("trim_zeros takes a 1-D array")
    n = filt.shape[0]
    if n == 0:
        return filt
    nz = filt != 0
    first, last, anyv = mt.argmax(nz), n - 1 - mt.argmax(mt.flip(nz)), mt.any(nz)
    from ..session import get_default_session
    get_default_session().execute(first, last, anyv)
    if not bool(anyv.fetch()):
        return filt[0:0]
    lo = int(first.fetch()) if "f" in trim.lower() else 0
    hi = int(last.fetch()) + 1 if "b" in trim.lower() else n
    return filt[lo:hi]


def resize(a, new_shape):
    """numpy.resize: a's elements (flattened) repeated cyclically to fill
    new_shape."""
    mt = _mt()
    a = astensor(a)
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (int(new_shape),)
    new_shape = tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = math.prod(new_shape)
    if a.size == 0 or total == 0:
        return mt.zeros(new_shape, dtype=a.dtype)
    return mt.take(a.ravel(), mt.arange(total) % a.size).reshape(new_shape)

NAMES = [
    "copy", "asfarray", "diff", "ediff1d", "trapz", "moveaxis", "swapaxes", "rollaxis", "atleast_3d",
    "column_stack", "dstack", "append", "tile", "repeat", "roll", "rot90", "array_split", "split",
    "hsplit", "vsplit", "dsplit", "tri", "tril", "triu", "diagonal", "diag", "diagflat", "trace",
    "meshgrid", "indices", "logspace", "broadcast_arrays", "broadcast_shapes", "inner", "vdot", "kron",
    "cross", "sinc", "select", "ndim", "shape", "size", "geomspace", "msort", "ix_", "diag_indices",
    "diag_indices_from", "vander", "hanning", "hamming", "blackman", "bartlett", "lexsort", "trim_zeros",
    "resize",
]
