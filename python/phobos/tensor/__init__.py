"""phobos.tensor: NumPy's and Mars's tensor API on a Phobos cluster.

    import phobos.tensor as mt
    a = mt.random.rand(100, chunk_size=100)
    b = mt.random.rand(100, chunk_size=100)
    c = (a + b).sum()
    print(c.execute())

Every function that takes chunks= (Dask's name) also takes chunk_size=
(Mars's), the same argument.

Every function here is a call of a function of the cluster's registry
(REGISTRY maps each of those to the name it has here)."""

import builtins
import operator

import numpy as np

from ._core import Tensor, call, from_numpy, astensor, _dtype_name, _chunks, _shape, _rebind, SUPPORTED_DTYPES
from ._core import operand as _operand
from ._core import takes_chunk_size as _chunk_size
from . import _compose
from . import _manip
from . import _quantile
from . import _stats
from . import _setops
from . import _arrayapi
from . import _mars
from . import _ops
from . import _duck
from ._compute import compute
from .. import session as _session
from .._executable import ExecutableTuple

newaxis = None
pi = np.pi
e = np.e
inf = np.inf
nan = np.nan
bool_ = np.bool_
int32 = np.int32
int64 = np.int64
int8 = np.int8
int16 = np.int16
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
float16 = np.float16
float32 = np.float32
float64 = np.float64
complex64 = np.complex64
complex128 = np.complex128

# The cluster's ufuncs (ndarray's op names), by arity.
UNARY_UFUNCS = (
    "negative", "absolute", "sign", "sqrt", "square", "exp", "log", "log1p", "sin", "cos", "tan",
    "tanh", "floor", "ceil", "round", "isnan", "isfinite", "logical_not", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "exp2", "expm1", "log2", "log10", "cbrt",
    "reciprocal", "rint", "trunc", "fix", "spacing", "signbit", "degrees", "radians", "deg2rad",
    "rad2deg", "fabs", "positive", "isinf", "isneginf", "isposinf", "nan_to_num", "invert", "conjugate",
)
BINARY_UFUNCS = (
    "add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power", "maximum",
    "minimum", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal",
    "logical_and", "logical_or", "logical_xor", "arctan2", "hypot", "logaddexp", "logaddexp2",
    "copysign", "nextafter", "ldexp", "fmod", "heaviside", "float_power", "fmax", "fmin", "gcd", "lcm",
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
)


def _unary(name):
    def f(x, out=None, **kw):
        if out is not None or kw:
            _no_out(name, out, kw)
        return call(name, _operand(x))
    f.__name__ = name
    f.__doc__ = f"numpy.{name}, elementwise and lazy."
    return f


def _binary(name):
    def f(x1, x2, out=None, **kw):
        if out is not None or kw:
            _no_out(name, out, kw)
        x1, x2 = _operand(x1), _operand(x2)
        if name != "ldexp":  # ldexp's exponent keeps its integer type
            x1, x2 = _arrayapi._promote_0d(x1, x2)
        return call(name, x1, x2)
    f.__name__ = name
    f.__doc__ = f"numpy.{name}, elementwise with broadcasting, lazy."
    return f


def _no_out(name, out, kw):
    if out is not None:
        raise NotImplementedError(f"phobos: {name}(out=...): tensors are immutable; use the result")
    kw.pop("dtype", None) if kw.get("dtype") is None else None
    kw.pop("casting", None) if kw.get("casting") in (None, "same_kind") else None
    kw.pop("where", None) if kw.get("where") is True else None
    kw.pop("subok", None)
    kw.pop("signature", None) if kw.get("signature") is None else None
    if kw:
        raise NotImplementedError(f"phobos: {name} does not take {sorted(kw)}")


g = globals()
# The functions the cluster's ops declare, generated from them (_ops.py).
for _n in _ops.NAMES:
    g[_n] = getattr(_ops, _n)
for _n in UNARY_UFUNCS + BINARY_UFUNCS:
    g[_n] = (_unary if _n in UNARY_UFUNCS else _binary)(_n)
abs = absolute  # noqa: A001, F821
divide = true_divide  # noqa: F821
mod = remainder  # noqa: F821
bitwise_not = invert  # noqa: F821
conj = conjugate  # noqa: F821


def real(val):
    """numpy.real: the real part (the values themselves for real dtypes)."""
    return call("real", _operand(val))


def imag(val):
    """numpy.imag: the imaginary part (zeros of the dtype for real dtypes)."""
    return call("imag", _operand(val))


def angle(z, deg=False):
    """numpy.angle: the argument of complex z, in radians or, with deg,
    degrees."""
    return call("angle", _operand(z), deg=builtins.bool(deg))


def iscomplexobj(x):
    """numpy.iscomplexobj: whether x's dtype is complex."""
    return np.dtype(getattr(x, "dtype", None) or np.asarray(x).dtype).kind == "c"


def isrealobj(x):
    """numpy.isrealobj: not iscomplexobj."""
    return not iscomplexobj(x)


def iscomplex(x):
    """numpy.iscomplex: true where the imaginary part is nonzero (false
    everywhere for real dtypes)."""
    return not_equal(imag(x), 0)  # noqa: F821


def isreal(x):
    """numpy.isreal: true where the imaginary part is zero."""
    return equal(imag(x), 0)  # noqa: F821
_nan_to_num = nan_to_num  # noqa: F821


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """numpy.nan_to_num with its defaults (NaN to 0, infinities to the
    dtype's extremes)."""
    if nan != 0.0 or posinf is not None or neginf is not None:
        raise NotImplementedError("phobos: nan_to_num with nan=, posinf= or neginf= other than the defaults")
    return _nan_to_num(x)


def frexp(x, out=None):
    """(mantissa, exponent) with x = mantissa * 2**exponent."""
    if out is not None:
        raise NotImplementedError("phobos: frexp(out=...): tensors are immutable; use the result")
    x = _operand(x)
    return ExecutableTuple((call("frexp", x, 0), call("frexp", x, 1)))


def modf(x, out=None):
    """(fractional part, integral part), both with x's sign."""
    if out is not None:
        raise NotImplementedError("phobos: modf(out=...): tensors are immutable; use the result")
    x = _operand(x)
    return ExecutableTuple((call("modf", x, 0), call("modf", x, 1)))


def divmod(x1, x2, out=None):  # noqa: A001
    """(x1 // x2, x1 % x2)."""
    if out is not None:
        raise NotImplementedError("phobos: divmod(out=...): tensors are immutable; use the result")
    return ExecutableTuple((floor_divide(x1, x2), remainder(x1, x2)))  # noqa: F821


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return call("isclose", _operand(a), _operand(b), float(rtol), float(atol), bool(equal_nan))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return call("allclose", _operand(a), _operand(b), float(rtol), float(atol), bool(equal_nan))


def array_equal(a1, a2, equal_nan=False):
    return call("array_equal", _operand(a1), _operand(a2), bool(equal_nan))


def array_equiv(a1, a2):
    return call("array_equiv", _operand(a1), _operand(a2))
round_ = round  # noqa: F821
around = round  # noqa: F821
del g, _n

# creation ---------------------------------------------------------------


@_chunk_size
def tensor(data, dtype=None, chunks=None):
    """A tensor of client data (a NumPy array, a list, a number)."""
    if isinstance(data, Tensor):
        t = data if dtype is None else data.astype(dtype)
        return t if chunks is None else t.rechunk(chunks)
    arr = np.asarray(data, dtype=None if dtype is None else np.dtype(_dtype_name(dtype)))
    return from_numpy(arr, chunks)


array = tensor


@_chunk_size
def asarray(data, dtype=None, chunks=None):
    return tensor(data, dtype, chunks)


def _creation(fn, shape, dtype, chunks, default="float64"):
    return call(fn, _shape(shape), dtype=_dtype_name(dtype) or default, chunks=_chunks(chunks))


@_chunk_size
def zeros(shape, dtype=None, chunks=None, order="C"):
    return _creation("zeros", shape, dtype, chunks)


@_chunk_size
def ones(shape, dtype=None, chunks=None, order="C"):
    return _creation("ones", shape, dtype, chunks)


@_chunk_size
def empty(shape, dtype=None, chunks=None, order="C"):
    """Like zeros (a lazy tensor has no garbage to show)."""
    return _creation("empty", shape, dtype, chunks)


@_chunk_size
def full(shape, fill_value, dtype=None, chunks=None, order="C"):
    if dtype is None and isinstance(fill_value, np.generic):
        dtype = fill_value.dtype  # NumPy keeps a NumPy scalar's type
    return call("full", _shape(shape), _operand(fill_value), dtype=_dtype_name(dtype), chunks=_chunks(chunks))


def _like(a, dtype):
    a = astensor(a)
    return a, _dtype_name(dtype) or a.dtype.name


@_chunk_size
def zeros_like(a, dtype=None, chunks=None, shape=None):
    a, dt = _like(a, dtype)
    return zeros(a.shape if shape is None else shape, dt, chunks)


@_chunk_size
def ones_like(a, dtype=None, chunks=None, shape=None):
    a, dt = _like(a, dtype)
    return ones(a.shape if shape is None else shape, dt, chunks)


@_chunk_size
def empty_like(a, dtype=None, chunks=None, shape=None):
    a, dt = _like(a, dtype)
    return empty(a.shape if shape is None else shape, dt, chunks)


@_chunk_size
def full_like(a, fill_value, dtype=None, chunks=None, shape=None):
    a, dt = _like(a, dtype)
    return full(a.shape if shape is None else shape, fill_value, dt, chunks)


@_chunk_size
def arange(start, stop=None, step=None, dtype=None, chunks=None):
    """numpy.arange: arange(stop), arange(start, stop[, step])."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    return call("arange", _operand(start), _operand(stop), _operand(step), dtype=_dtype_name(dtype), chunks=_chunks(chunks))


@_chunk_size
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, chunks=None):
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else np.nan
    last = stop if endpoint or num <= 1 else start + step * (num - 1)
    t = call("linspace", float(start), float(last), num, dtype=_dtype_name(dtype), chunks=_chunks(chunks))
    return ExecutableTuple((t, step)) if retstep else t


@_chunk_size
def eye(N, M=None, k=0, dtype=None, chunks=None):
    return call("eye", operator.index(N), None if M is None else operator.index(M), operator.index(k),
                dtype=_dtype_name(dtype) or "float64", chunks=_chunks(chunks))


@_chunk_size
def identity(n, dtype=None, chunks=None):
    return eye(n, dtype=dtype, chunks=chunks)


# elementwise beyond the ufuncs --------------------------------------------


def where(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return call("where", _operand(condition), _operand(x), _operand(y))


# selections whose length is known only once computed (shape None there) -------


def nonzero(a):
    """numpy.nonzero: a tuple of index tensors, one per axis."""
    a = astensor(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.")
    return ExecutableTuple(call("nonzero", a, out=i) for i in range(a.ndim))


def argwhere(a):
    return call("argwhere", astensor(a))


def flatnonzero(a):
    return call("flatnonzero", astensor(a))


def compress(condition, a, axis=None, out=None):
    if out is not None:
        raise NotImplementedError("phobos: compress(out=...): tensors are immutable; use the result")
    return call("compress", astensor(condition), astensor(a), axis=None if axis is None else operator.index(axis))


def extract(condition, arr):
    return call("extract", astensor(condition), astensor(arr))


def sort(a, axis=-1, kind=None, order=None):
    """numpy.sort (NaNs last; the order among equal values is not kept, as kind='quicksort')."""
    if order is not None:
        raise NotImplementedError("phobos: sort(order=...): tensors have no fields")
    a = astensor(a)
    if axis is None:
        return call("sort", ravel(a), axis=0)
    return call("sort", a, axis=operator.index(axis))


def searchsorted(a, v, side="left", sorter=None):
    if sorter is not None:
        raise NotImplementedError("phobos: searchsorted(sorter=...) is not supported; sort a first")
    return call("searchsorted", astensor(a), astensor(v), side=side)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """numpy.unique: the sorted distinct values (shape None until computed),
    and with the return_ flags NumPy's tuple (index, inverse and counts int64)."""
    if axis is not None or not equal_nan:
        raise NotImplementedError("phobos: unique with axis or equal_nan=False is not supported yet")
    ar = astensor(ar)
    flags = dict(return_index=bool(return_index), return_inverse=bool(return_inverse),
                 return_counts=bool(return_counts))
    n = 1 + len([f for f in flags.values() if f])
    if n == 1:
        return call("unique", ar)
    return ExecutableTuple(call("unique", ar, out=i, **flags) for i in range(n))


def isin(element, test_elements, assume_unique=False, invert=False):
    r = call("isin", astensor(element), astensor(test_elements))
    return logical_not(r) if invert else r  # noqa: F821


def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    return isin(ravel(astensor(ar1)), ar2, assume_unique, invert)


def topk(a, k, axis=-1, largest=True, sorted=True, order=None, return_index=False):  # noqa: A002
    """Mars's mt.topk: the k largest (smallest) along axis, best first; with
    return_index, (values, positions)."""
    if order is not None:
        raise NotImplementedError("phobos: topk(order=...): tensors have no fields")
    a = astensor(a)
    kw = dict(axis=operator.index(axis), largest=bool(largest))
    v = call("topk", a, operator.index(k), **kw)
    if return_index:
        return ExecutableTuple((v, call("topk", a, operator.index(k), return_index=True, **kw)))
    return v


def argtopk(a, k, axis=-1, largest=True, sorted=True, order=None):  # noqa: A002
    """Mars's mt.argtopk: the positions of topk's values along axis."""
    if order is not None:
        raise NotImplementedError("phobos: argtopk(order=...): tensors have no fields")
    return call("topk", astensor(a), operator.index(k), return_index=True, axis=operator.index(axis),
                largest=bool(largest))


def take(a, indices, axis=None, out=None, mode="raise"):
    """numpy.take (mode 'raise' only: an index out of range is an IndexError when computed)."""
    if out is not None:
        raise NotImplementedError("phobos: take(out=...): tensors are immutable; use the result")
    if mode != "raise":
        raise NotImplementedError(f"phobos: take(mode={mode!r}): only 'raise'")
    ind = indices if isinstance(indices, Tensor) else np.asarray(indices)
    if not isinstance(ind, Tensor) and ind.dtype.kind == "u":
        ind = ind.astype(np.int64)
    return call("take", astensor(a), astensor(ind), axis=None if axis is None else operator.index(axis))


def clip(a, a_min, a_max, out=None):
    if out is not None:
        raise NotImplementedError("phobos: clip(out=...): tensors are immutable; use the result")
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    if a_min is None:
        return minimum(a, a_max)  # noqa: F821
    if a_max is None:
        return maximum(a, a_min)  # noqa: F821
    return call("clip", _operand(a), _operand(a_min), _operand(a_max))


def _round(a, decimals=0, out=None):
    if out is not None:
        raise NotImplementedError("phobos: round(out=...): tensors are immutable; use the result")
    a = astensor(a)
    decimals = operator.index(decimals)
    if decimals == 0:
        return call("round", a)
    if a.dtype.kind in "iub":
        if decimals > 0:
            return a
        f = 10 ** (-decimals)
        return (call("round", a.astype("float64") / f) * f).astype(a.dtype)
    f = 10.0 ** decimals
    return call("round", a * f) / f


round = _round  # noqa: A001
round_ = around = _round


# reductions ---------------------------------------------------------------


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return [operator.index(a) for a in axis]
    return operator.index(axis)


def _reduction(fn, has_dtype=False, has_ddof=False):
    def f(a, axis=None, dtype=None, out=None, keepdims=False, ddof=0, **kw):
        if out is not None:
            raise NotImplementedError(f"phobos: {fn}(out=...): tensors are immutable; use the result")
        if kw.pop("where", True) is not True or kw.pop("initial", None) is not None:
            raise NotImplementedError(f"phobos: {fn} with where= or initial= is not supported")
        if kw:
            raise TypeError(f"{fn}() got unexpected keyword arguments {sorted(kw)}")
        k = {"axis": _axis(axis), "keepdims": bool(keepdims) or None}
        if has_dtype:
            k["dtype"] = _dtype_name(dtype)
        elif dtype is not None:
            raise TypeError(f"{fn}() got an unexpected keyword argument 'dtype'")
        if has_ddof and ddof:
            k["ddof"] = operator.index(ddof)
        return call(fn, astensor(a), **k)
    f.__name__ = fn
    return f


sum = _reduction("sum", has_dtype=True)  # noqa: A001
prod = _reduction("prod", has_dtype=True)
mean = _reduction("mean", has_dtype=True)
var = _reduction("var", has_dtype=True, has_ddof=True)
std = _reduction("std", has_dtype=True, has_ddof=True)
min = _reduction("min")  # noqa: A001
max = _reduction("max")  # noqa: A001
amin, amax = min, max
any = _reduction("any")  # noqa: A001
all = _reduction("all")  # noqa: A001


def count_nonzero(a, axis=None, keepdims=False):
    return call("count_nonzero", astensor(a), axis=_axis(axis), keepdims=bool(keepdims) or None)


def argmin(a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise NotImplementedError("phobos: argmin(out=...): tensors are immutable; use the result")
    return call("argmin", astensor(a), axis=None if axis is None else operator.index(axis), keepdims=bool(keepdims) or None)


def argmax(a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise NotImplementedError("phobos: argmax(out=...): tensors are immutable; use the result")
    return call("argmax", astensor(a), axis=None if axis is None else operator.index(axis), keepdims=bool(keepdims) or None)


def cumsum(a, axis=None, dtype=None, out=None):
    if out is not None:
        raise NotImplementedError("phobos: cumsum(out=...): tensors are immutable; use the result")
    return call("cumsum", astensor(a), axis=None if axis is None else operator.index(axis), dtype=_dtype_name(dtype))


def cumprod(a, axis=None, dtype=None, out=None):
    if out is not None:
        raise NotImplementedError("phobos: cumprod(out=...): tensors are immutable; use the result")
    return call("cumprod", astensor(a), axis=None if axis is None else operator.index(axis), dtype=_dtype_name(dtype))


# shapes -------------------------------------------------------------------


def reshape(a, newshape, order="C"):
    if order != "C":
        raise NotImplementedError(f"phobos: reshape(order={order!r}): only C order")
    return call("reshape", astensor(a), _shape(newshape))


def transpose(a, axes=None):
    return call("transpose", astensor(a), None if axes is None else _shape(axes))


def ravel(a, order="C"):
    if order != "C":
        raise NotImplementedError(f"phobos: ravel(order={order!r}): only C order")
    return call("ravel", astensor(a))


def squeeze(a, axis=None):
    return call("squeeze", astensor(a), _axis(axis))


def expand_dims(a, axis):
    return call("expand_dims", astensor(a), _axis(axis))


def flip(m, axis=None):
    return call("flip", astensor(m), _axis(axis))


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def broadcast_to(array, shape):
    return call("broadcast_to", astensor(array), _shape(shape))


def concatenate(arrays, axis=0):
    ts = [astensor(a) for a in arrays]
    if axis is None:
        return call("concatenate", [t.ravel() for t in ts], 0)
    return call("concatenate", ts, operator.index(axis))


def stack(arrays, axis=0):
    return call("stack", [astensor(a) for a in arrays], operator.index(axis))


@_chunk_size
def rechunk(a, chunks):
    return call("rechunk", astensor(a), _chunks(chunks))


def astype(x, dtype):
    return call("astype", astensor(x), _dtype_name(dtype))


# linear algebra -------------------------------------------------------------


def einsum(subscripts, *operands, out=None, optimize=False, **kw):
    """numpy.einsum, planned as tensordot, transpose and diagonal steps;
    '...' (xarray's dot and weighted reductions write it) is spelled out
    in letters of its own, the operands broadcast over it first."""
    if out is not None or kw:
        raise NotImplementedError("phobos: einsum with out= or dtype/order/casting arguments")
    ops = [astensor(o) for o in operands]
    subscripts = str(subscripts).replace(" ", "")
    if "..." in subscripts:
        subscripts, ops = _duck.einsum_ellipsis(subscripts, ops)
    return call("einsum", subscripts, *ops)


def matmul(x1, x2, out=None):
    if out is not None:
        raise NotImplementedError("phobos: matmul(out=...): tensors are immutable; use the result")
    return call("matmul", astensor(x1), astensor(x2))


def dot(a, b, out=None):
    if out is not None:
        raise NotImplementedError("phobos: dot(out=...): tensors are immutable; use the result")
    return call("dot", astensor(a), astensor(b))


def outer(a, b, out=None):
    return call("outer", astensor(a), astensor(b))


def tensordot(a, b, axes=2):
    if isinstance(axes, (int, np.integer)):
        ax = int(axes)
    else:
        ax = [_axis(x) for x in axes]
    return call("tensordot", astensor(a), astensor(b), ax)


# files on the workers ---------------------------------------------------------


@_chunk_size
def from_npy(path, chunks=None, dtype=None):
    """A .npy file the workers read chunk by chunk (under their --data-root;
    a worker reads its header now)."""
    return call("from_npy", str(path), chunks=_chunks(chunks), dtype=_dtype_name(dtype))


@_chunk_size
def from_zarr(path, chunks=None, dtype=None):
    """A Zarr array the workers read chunk by chunk (its stored chunks unless
    chunks says otherwise)."""
    return call("from_zarr", str(path), chunks=_chunks(chunks), dtype=_dtype_name(dtype))


def to_npy(a, path):
    """A tensor that, executed, writes a to path as .npy, chunk by chunk."""
    return call("to_npy", astensor(a), str(path))


@_chunk_size
def to_zarr(a, path, chunks=None, compressor=None, zarr_format=None):
    """A tensor that, executed, writes a to path as a Zarr array (format 2,
    or 3 with zarr_format=3)."""
    return call("to_zarr", astensor(a), str(path), chunks=_chunks(chunks), compressor=compressor,
                zarr_format=zarr_format)


fromnpy, fromzarr = from_npy, from_zarr


@_chunk_size
def tozarr(path, x, chunks=None, compressor=None, zarr_format=None):
    """Mars's argument order."""
    return to_zarr(x, path, chunks, compressor, zarr_format)


# Tensor methods and operators --------------------------------------------------


def _method(f):
    def m(self, *args, **kw):
        return f(self, *args, **kw)
    m.__name__ = f.__name__
    m.__doc__ = f.__doc__
    return m


def _shape_args(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return args[0]
    return args


def _t_reshape(self, *shape, order="C"):
    return reshape(self, _shape_args(shape), order)


def _t_transpose(self, *axes):
    axes = _shape_args(axes)
    return transpose(self, axes if axes else None)


def _t_astype(self, dtype, copy=True):
    name = _dtype_name(dtype)
    if name == self.dtype.name:
        return self
    return call("astype", self, name)


def _t_getitem(self, key):
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if isinstance(k, Tensor) and k.ndim == 0 and k.dtype == np.bool_:
        # x[m] for a 0-d boolean m adds an axis of length 1 or 0, as in
        # NumPy: the one-element selection of x with that axis added
        return call("getitem", expand_dims(self, 0), [reshape(k, (1,))])
    return call("getitem", self, _duck.chunk_index(self, _index_items(key)))


def _index_items(key):
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for k in key:
        if k is None:
            items.append(None)
        elif k is Ellipsis:
            items.append("...")
        elif isinstance(k, slice):
            items.append({"slice": [None if x is None else operator.index(x) for x in (k.start, k.stop, k.step)]})
        elif isinstance(k, (builtins.bool, np.bool_)):
            raise NotImplementedError("phobos: indexing with a boolean scalar is not supported")
        elif isinstance(k, (int, np.integer)):
            items.append(int(k))
        elif isinstance(k, (Tensor, list, np.ndarray)):
            m = k if isinstance(k, Tensor) else np.asarray(k)
            if m.dtype.kind not in "biu":
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            if m.dtype.kind == "u" and not isinstance(m, Tensor):
                m = m.astype(np.int64)
            items.append(astensor(m))
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                             "boolean arrays are valid indices")
    return items


def _value_arg(v):
    if isinstance(v, Tensor) or isinstance(v, (bool, int, float, complex, np.bool_, np.integer, np.floating,
                                               np.complexfloating)):
        return v
    return astensor(np.asarray(v))


def _t_setitem(self, key, value):
    """x[key] = value: x takes the new value (the cluster computes it as a
    new tensor); tensors built from x before keep the old one, as in NumPy."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (builtins.bool, np.bool_)) and \
            builtins.abs(int(value)) > 2 ** 53 and self.dtype.kind in "iu" and \
            np.iinfo(self.dtype).min <= int(value) <= np.iinfo(self.dtype).max:
        # an integer a float64 cannot hold (a uint64 past int64's range
        # travels as one) goes as a 0-d tensor of x's dtype
        value = from_numpy(np.asarray(int(value), dtype=self.dtype))
    _rebind(self, call("setitem", self, _index_items(key), _value_arg(value)))


def _inplace(op):
    def iop(self, other):
        r = op(self, other)
        if r.dtype != self.dtype:
            if not np.can_cast(r.dtype, self.dtype, "same_kind"):
                raise TypeError(f"Cannot cast ufunc output from dtype('{r.dtype}') to dtype('{self.dtype}') "
                                "with casting rule 'same_kind'")
            r = r.astype(self.dtype)
        return _rebind(self, r)
    return iop


def _mutable(a, name):
    if not isinstance(a, Tensor):
        raise TypeError(f"phobos: {name} changes its first argument in place, which must be a phobos tensor")
    return a


def put(a, ind, v, mode="raise"):
    """numpy.put: a (a tensor) takes v at the flat positions ind, in place."""
    if mode != "raise":
        raise NotImplementedError(f"phobos: put(mode={mode!r}): only 'raise'")
    _mutable(a, "put")
    ind = ind if isinstance(ind, Tensor) else np.asarray(ind)
    if not isinstance(ind, Tensor) and ind.dtype.kind == "u":
        ind = ind.astype(np.int64)
    _rebind(a, call("put", a, astensor(ind), _value_arg(v)))


def place(arr, mask, vals):
    """numpy.place: where mask is true, arr takes vals in turn, in place."""
    _rebind(_mutable(arr, "place"), call("place", arr, astensor(mask), _value_arg(vals)))


def putmask(a, mask, values):
    """numpy.putmask: where mask is true, a takes values at the same flat
    position (values repeated), in place."""
    _rebind(_mutable(a, "putmask"), call("putmask", a, astensor(mask), _value_arg(values)))


def fill_diagonal(a, val, wrap=False):
    """numpy.fill_diagonal, in place."""
    _rebind(_mutable(a, "fill_diagonal"), call("fill_diagonal", a, _value_arg(val), wrap=bool(wrap)))


def copyto(dst, src, casting="same_kind", where=True):
    """numpy.copyto: dst takes src (broadcast) where `where` is true, in place."""
    _mutable(dst, "copyto")
    sdt = src.dtype if isinstance(src, Tensor) else np.result_type(src)
    if not np.can_cast(sdt, dst.dtype, casting):
        raise TypeError(f"Cannot cast array data from dtype('{sdt}') to dtype('{dst.dtype}') "
                        f"according to the rule '{casting}'")
    new = astype(src, dst.dtype) if isinstance(src, Tensor) else astensor(np.asarray(src, dtype=dst.dtype))
    new = broadcast_to(new, dst.shape)
    if where is not True:
        new = globals()["where"](where, new, dst)
    _rebind(dst, new)


def choose(a, choices, out=None, mode="raise"):
    """numpy.choose: choices[a] at each position, all broadcast together."""
    if out is not None:
        raise NotImplementedError("phobos: choose(out=...): tensors are immutable; use the result")
    a = a if isinstance(a, Tensor) else np.asarray(a)
    return call("choose", astensor(a), [_value_arg(c) for c in choices], mode=mode)


def _along_axis_index(arr, indices, axis, name):
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return ravel(arr), (indices,)  # noqa: F821
    axis = operator.index(axis)
    if axis < -arr.ndim or axis >= arr.ndim:
        raise np.AxisError(axis, arr.ndim)
    axis %= arr.ndim
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    idx = []
    for d in range(arr.ndim):
        if d == axis:
            idx.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = arr.shape[d]
            idx.append(np.arange(arr.shape[d]).reshape(shape))
    return arr, tuple(idx)


def take_along_axis(arr, indices, axis):
    """numpy.take_along_axis, as integer arrays broadcast together."""
    arr = astensor(arr)
    indices = indices if isinstance(indices, Tensor) else np.asarray(indices)
    a, idx = _along_axis_index(arr, indices, axis, "take_along_axis")
    return a[idx]


def put_along_axis(arr, indices, values, axis):
    """numpy.put_along_axis, in place."""
    _mutable(arr, "put_along_axis")
    indices = indices if isinstance(indices, Tensor) else np.asarray(indices)
    if axis is None:
        flat = ravel(arr)  # noqa: F821
        flat[indices] = values
        _rebind(arr, reshape(flat, arr.shape))  # noqa: F821
        return
    _, idx = _along_axis_index(arr, indices, axis, "put_along_axis")
    arr[idx] = values


def _reflect(f):
    return lambda self, other: f(other, self)


def _t_invert(self):
    if self.dtype == np.bool_:
        return logical_not(self)  # noqa: F821
    return invert(self)  # noqa: F821


def _bitwise(logical, bitwise):
    lf, bf = globals()[logical], globals()[bitwise]

    def op(a, b):
        # NumPy's &, |, ^: logical on bools (the same values), bitwise on integers
        return lf(a, b) if _kind(a) == "b" and _kind(b) == "b" else bf(a, b)
    return op


def _kind(x):
    if isinstance(x, Tensor):
        return x.dtype.kind
    return np.asarray(x).dtype.kind


_and, _or, _xor = (_bitwise("logical_and", "bitwise_and"), _bitwise("logical_or", "bitwise_or"),
                   _bitwise("logical_xor", "bitwise_xor"))

_OPS = {
    "__add__": add, "__sub__": subtract, "__mul__": multiply, "__truediv__": true_divide,  # noqa: F821
    "__floordiv__": floor_divide, "__mod__": remainder, "__pow__": power, "__matmul__": matmul,  # noqa: F821
    "__lt__": less, "__le__": less_equal, "__gt__": greater, "__ge__": greater_equal,  # noqa: F821
    "__eq__": equal, "__ne__": not_equal, "__and__": _and, "__or__": _or, "__xor__": _xor,  # noqa: F821
    "__lshift__": left_shift, "__rshift__": right_shift,  # noqa: F821
}
for _name, _f in _OPS.items():
    setattr(Tensor, _name, (lambda f: lambda self, other: f(self, other))(_f))
    if _name not in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        setattr(Tensor, "__r" + _name[2:], _reflect(_f))
        setattr(Tensor, "__i" + _name[2:], _inplace(_f))
del _name, _f
Tensor.__neg__ = lambda self: negative(self)  # noqa: F821
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: absolute(self)  # noqa: F821
Tensor.__invert__ = _t_invert
Tensor.__getitem__ = _t_getitem
Tensor.__setitem__ = _t_setitem
Tensor.__round__ = lambda self, n=None: _round(self, n or 0)
Tensor.__divmod__ = lambda self, o: divmod(self, o)
Tensor.__rdivmod__ = lambda self, o: divmod(o, self)
Tensor.reshape = _t_reshape
Tensor.transpose = _t_transpose
Tensor.astype = _t_astype
Tensor.real = property(lambda self: real(self), doc="The real part (numpy's x.real).")
Tensor.imag = property(lambda self: imag(self), doc="The imaginary part (numpy's x.imag).")
Tensor.conj = lambda self: conjugate(self)  # noqa: F821
Tensor.conjugate = lambda self: conjugate(self)  # noqa: F821
for _f in (sum, prod, mean, var, std, min, max, any, all, argmin, argmax, cumsum, cumprod,
           ravel, squeeze, flip, clip, dot, rechunk, to_npy, to_zarr, _round, nonzero, take):
    setattr(Tensor, _f.__name__.lstrip("_"), _method(_f))
Tensor.flatten = _method(ravel)
Tensor.compress = lambda self, condition, axis=None, out=None: compress(condition, self, axis, out)
Tensor.ptp = _method(_stats.ptp)
Tensor.argsort = _method(_setops.argsort)
Tensor.argpartition = _method(_setops.argpartition)
Tensor.repeat = _method(_compose.repeat)
Tensor.swapaxes = _method(_compose.swapaxes)
Tensor.diagonal = _method(_compose.diagonal)
Tensor.trace = _method(_compose.trace)
Tensor.copy = _method(_compose.copy)
Tensor.round = _method(_round)
del _f

from ._userfunc import map_blocks, map_overlap, blockwise, vectorize  # noqa: E402
from ._gufunc import apply_gufunc  # noqa: E402
from ._store import from_array, store, StoreTask  # noqa: E402
from . import _userfunc  # noqa: E402
Tensor.map_blocks = lambda self, func, *args, **kwargs: map_blocks(func, self, *args, **kwargs)
Tensor.map_overlap = lambda self, func, depth, boundary=None, trim=True, **kwargs: map_overlap(
    func, self, depth=depth, boundary=boundary, trim=trim, **kwargs)
Tensor.map_chunk = _userfunc.map_chunk
Tensor.compute_chunk_sizes = _userfunc.compute_chunk_sizes
Tensor.store = lambda self, target, **kwargs: store([self], [target], **kwargs)

from . import random, linalg, fft  # noqa: E402

for _n in _compose.NAMES:
    globals()[_n] = getattr(_compose, _n)
for _n in _manip.NAMES:
    globals()[_n] = getattr(_manip, _n)
for _n in _quantile.NAMES:
    globals()[_n] = getattr(_quantile, _n)
for _n in _stats.NAMES:
    globals()[_n] = getattr(_stats, _n)
for _n in _setops.NAMES:
    globals()[_n] = getattr(_setops, _n)
for _n in _mars.NAMES:
    globals()[_n] = getattr(_mars, _n)
del _n
innerproduct = inner  # noqa: F821 (Mars's name)
product, cumproduct, alltrue, sometrue, row_stack = prod, cumprod, all, any, vstack
asanyarray = asarray
# The Python Array API standard's names, keywords and methods (_arrayapi.py).
_arrayapi.install(globals())
# Mars's chunk_size= on what the Array API wrapped after its definition.
_mars.install(globals())

# REGISTRY names, for each function of the cluster's registry, what calls it
# here; tests check it against GET /api/functions so the two cannot drift.
REGISTRY = {n: n for n in UNARY_UFUNCS + BINARY_UFUNCS}
REGISTRY.update({
    "zeros": "zeros", "ones": "ones", "empty": "empty", "full": "full", "arange": "arange",
    "linspace": "linspace", "eye": "eye", "random": "random.RandomState",
    "where": "where", "clip": "clip", "astype": "Tensor.astype",
    "sum": "sum", "prod": "prod", "mean": "mean", "var": "var", "std": "std", "min": "min", "max": "max",
    "any": "any", "all": "all", "count_nonzero": "count_nonzero", "argmin": "argmin", "argmax": "argmax",
    "cumsum": "cumsum", "cumprod": "cumprod",
    "reshape": "reshape", "transpose": "transpose", "ravel": "ravel", "squeeze": "squeeze",
    "expand_dims": "expand_dims", "flip": "flip", "broadcast_to": "broadcast_to",
    "concatenate": "concatenate", "stack": "stack", "rechunk": "rechunk", "getitem": "Tensor.__getitem__",
    "matmul": "matmul", "dot": "dot", "outer": "outer", "tensordot": "tensordot",
    "from_npy": "from_npy", "from_zarr": "from_zarr", "to_npy": "to_npy", "to_zarr": "to_zarr",
    "frexp": "frexp", "modf": "modf", "isclose": "isclose", "allclose": "allclose",
    "array_equal": "array_equal", "array_equiv": "array_equiv",
    "nonzero": "nonzero", "argwhere": "argwhere", "flatnonzero": "flatnonzero", "compress": "compress",
    "extract": "extract", "take": "take", "sort": "sort", "setitem": "Tensor.__setitem__", "put": "put",
    "place": "place", "putmask": "putmask", "fill_diagonal": "fill_diagonal", "choose": "choose", "searchsorted": "searchsorted", "unique": "unique",
    "isin": "isin", "topk": "topk", "inner": "inner", "vdot": "vdot", "linalg.lu": "linalg.lu", "linalg.randomized_svd": "linalg.randomized_svd",
    "linalg.trace": "linalg.trace", "linalg.diagonal": "linalg.diagonal",
    "linalg.qr": "linalg.qr", "linalg.svd": "linalg.svd", "linalg.svdvals": "linalg.svd",
    "linalg.cholesky": "linalg.cholesky", "linalg.inv": "linalg.inv", "linalg.det": "linalg.det",
    "linalg.slogdet": "linalg.slogdet", "linalg.solve": "linalg.solve",
    "linalg.solve_triangular": "linalg.solve_triangular", "linalg.lstsq": "linalg.lstsq",
    "linalg.pinv": "linalg.pinv", "linalg.matrix_rank": "linalg.matrix_rank", "linalg.cond": "linalg.cond",
    "linalg.norm": "linalg.norm", "linalg.multi_dot": "linalg.multi_dot", "einsum": "einsum",
    "linalg.eigh": "linalg.eigh", "linalg.eigvalsh": "linalg.eigvalsh",
})
REGISTRY.update({"real": "real", "imag": "imag", "conj": "conj", "angle": "angle"})
REGISTRY.update(_manip.REGISTRY)
REGISTRY.update({n: n for n in _quantile.NAMES})
REGISTRY.update({n: n for n in _stats.NAMES})
REGISTRY["histogram_bin_count"] = "histogram"
REGISTRY.update({n: n for n in _setops.NAMES})
REGISTRY.update(fft.REGISTRY)
REGISTRY.update({n: n for n in _ops.NAMES})
REGISTRY["user_blocks"] = "map_blocks"  # and blockwise, map_overlap, from_array, ... (_userfunc.py)

# NumPy interoperability ----------------------------------------------------------

_UFUNC_ALIASES = {"divide": "true_divide", "abs": "absolute", "mod": "remainder", "bitwise_not": "invert"}
_REDUCE = {"add": "sum", "multiply": "prod", "minimum": "min", "maximum": "max",
           "logical_and": "all", "logical_or": "any"}


def _ufunc_dispatch(ufunc, method, inputs, kwargs):
    name = _UFUNC_ALIASES.get(ufunc.__name__, ufunc.__name__)
    here = globals()
    if method == "__call__":
        if name in UNARY_UFUNCS or name in BINARY_UFUNCS or name in ("frexp", "modf", "divmod"):
            return here[name](*inputs, **kwargs)
        if name == "matmul":
            return matmul(*inputs, **kwargs)
        raise NotImplementedError(f"phobos does not implement the ufunc numpy.{ufunc.__name__}")
    if method == "reduce" and name in _REDUCE:
        axis = kwargs.pop("axis", 0)
        return here[_REDUCE[name]](inputs[0], axis=axis, **kwargs)
    if method == "accumulate" and name in ("add", "multiply"):
        axis = kwargs.pop("axis", 0)
        return (cumsum if name == "add" else cumprod)(inputs[0], axis=axis, **kwargs)
    raise NotImplementedError(f"phobos does not implement numpy.{ufunc.__name__}.{method}")


_FUNCTIONS = {}
for _n in ("sum", "prod", "mean", "var", "std", "min", "max", "amin", "amax", "any", "all", "count_nonzero",
           "argmin", "argmax", "cumsum", "cumprod", "reshape", "transpose", "ravel", "squeeze", "expand_dims",
           "flip", "fliplr", "flipud", "broadcast_to", "concatenate", "stack", "vstack", "hstack", "where", "clip",
           "round", "around", "dot", "outer", "tensordot", "zeros_like", "ones_like", "empty_like", "full_like",
           "atleast_1d", "atleast_2d", "einsum", "isneginf", "isposinf", "nan_to_num", "fix", "isclose", "allclose",
           "array_equal", "array_equiv", "ndim", "shape", "size", "product", "cumproduct", "alltrue",
           "sometrue", "row_stack", "nonzero", "argwhere", "flatnonzero", "compress", "extract", "take", "sort", "searchsorted", "unique", "isin", "in1d", "put", "place", "putmask",
           "fill_diagonal", "copyto", "choose", "take_along_axis", "put_along_axis", "real", "imag", "angle",
           "iscomplex", "isreal", "iscomplexobj", "isrealobj") + \
        tuple(_compose.NAMES) + tuple(_manip.NAMES) + tuple(_quantile.NAMES) + tuple(_stats.NAMES) + \
        tuple(_setops.NAMES) + tuple(_ops.NAMES):
    if hasattr(np, _n):
        _FUNCTIONS[getattr(np, _n)] = _n
del _n


_DUCK = _duck.dispatch_table()  # what duck-array libraries (xarray) call besides
gradient = _duck.gradient
ComputeWarning = _duck.ComputeWarning


def _np_ndim(a):
    return a.ndim


def _np_shape(a):
    return a.shape


def _np_size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


_SPECIAL = {"ndim": _np_ndim, "shape": _np_shape, "size": _np_size}


def _function_dispatch(func, args, kwargs):
    if getattr(func, "__module__", "") == "numpy.linalg" and hasattr(linalg, func.__name__):
        return getattr(linalg, func.__name__)(*args, **kwargs)
    if getattr(func, "__module__", "") == "numpy.fft" and func.__name__ in fft.__all__:
        return fft.NUMPY_1_24.get(func.__name__, getattr(fft, func.__name__))(*args, **kwargs)
    duck = _DUCK.get(func)
    if duck is not None:
        return duck(*args, **kwargs)
    name = _FUNCTIONS.get(func)
    if name is None:
        raise NotImplementedError(f"phobos does not implement numpy.{func.__name__} "
                                  "(call np.asarray(t) first to compute in NumPy)")
    if name in _SPECIAL:
        return _SPECIAL[name](*args, **kwargs)
    return globals()[name](*args, **kwargs)


def _session_functions():
    return _session.get_default_session().functions()


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("np", "builtins", "operator", "g")]
