"""phobos.tensor as a Python Array API standard (2024.12) namespace, as NumPy
2's main namespace is: `x.__array_namespace__()` is phobos.tensor itself.

install() adds the standard's names NumPy 1.24 spells differently (acos,
concat, permute_dims, unique_*, ...), its keywords (sort's descending and
stable, std/var's correction, the creation functions' device), the array
attributes and methods (mT, device, to_device, __dlpack__), the type
functions (isdtype, finfo, iinfo, can_cast, result_type) and the linalg
extension's names; _arrayapi2024.py adds what 2023.12 and 2024.12 added.
Where NumPy 1.24 and the standard disagree the names
here follow the standard; docs/array-api.md lists each difference.

The dtypes come from _core.SUPPORTED_DTYPES: a dtype the cluster gains is
a dtype of the namespace, with no change here."""

import builtins
import collections
import contextlib
import inspect
import math
import operator

import numpy as np

from . import _core
from . import _arrayapi2024
from ._core import Tensor, call, astensor
from .._executable import executable_namedtuple

API_VERSION = "2024.12"
# Versions whose namespace this one is (each a subset of the next, but for
# sum and prod of float32, which from 2023.12 on keep float32 as NumPy does).
_VERSIONS = (None, "2021.12", "2022.12", "2023.12", "2024.12")

UniqueAllResult = executable_namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = executable_namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = executable_namedtuple("UniqueInverseResult", ["values", "inverse_indices"])
EighResult = executable_namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = executable_namedtuple("QRResult", ["Q", "R"])
SlogdetResult = executable_namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = executable_namedtuple("SVDResult", ["U", "S", "Vh"])

# The standard's dtypes by kind, with their bits; which of them the cluster
# has is SUPPORTED_DTYPES.
_SIGNED = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_UNSIGNED = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}
_REAL = {"float32": 32, "float64": 64}
_COMPLEX = {"complex64": 64, "complex128": 128}
_DTYPE_NAMES = ("bool",) + tuple(_SIGNED) + tuple(_UNSIGNED) + tuple(_REAL) + tuple(_COMPLEX)


def _mt():
    from .. import tensor
    return tensor


# devices ----------------------------------------------------------------------

CPU = "cpu"


def _check_device(device):
    if device is not None and device != CPU:
        raise ValueError(f"phobos: unknown device {device!r}: a Phobos cluster is one device, 'cpu'")


def _t_device(self):
    """The standard's device: a cluster is one device, "cpu" (NumPy's name)."""
    return CPU


def _t_to_device(self, device, /, *, stream=None):
    if stream is not None:
        raise ValueError("phobos: to_device(stream=...): the cpu device has no streams")
    _check_device(device)
    return self


def _t_array_namespace(self, /, *, api_version=None):
    if api_version not in _VERSIONS:
        raise ValueError(f"phobos: Array API version {api_version!r} is not supported; "
                         f"phobos.tensor implements {API_VERSION}")
    return _mt()


def _t_mT(self):
    if self.ndim < 2:
        raise ValueError(f"mT of a {self.ndim}-d tensor: it needs at least 2 dimensions")
    return matrix_transpose(self)


def _t_dlpack(self, /, *, stream=None):
    """DLPack through NumPy: the tensor is computed and its NumPy value
    exported (the capsule keeps the array alive)."""
    if stream is not None:
        raise BufferError("phobos: __dlpack__(stream=...): the cpu device has no streams")
    return np.ascontiguousarray(self.fetch()).__dlpack__()


def _t_dlpack_device(self):
    return (1, 0)  # kDLCPU, device 0


def from_dlpack(x, /):
    """An array of another library (anything with __dlpack__) as a tensor,
    through NumPy: its data is uploaded."""
    if isinstance(x, Tensor):
        return x
    return _core.from_numpy(np.from_dlpack(x))


# dtypes ------------------------------------------------------------------------


def _as_dtype(x):
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, np.ndarray):
        return x.dtype
    return np.dtype(x)


def isdtype(dtype, kind):
    """The standard's isdtype: kind is a dtype, one of 'bool', 'signed
    integer', 'unsigned integer', 'integral', 'real floating', 'complex
    floating', 'numeric', or a tuple of those."""
    dt = np.dtype(dtype)
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dt, k) for k in kind)
    if isinstance(kind, str):
        name = dt.name
        kinds = {
            "bool": name == "bool",
            "signed integer": name in _SIGNED,
            "unsigned integer": name in _UNSIGNED,
            "integral": name in _SIGNED or name in _UNSIGNED,
            "real floating": name in _REAL,
            "complex floating": name in _COMPLEX,
            "numeric": name in _SIGNED or name in _UNSIGNED or name in _REAL or name in _COMPLEX,
        }
        if kind not in kinds:
            raise ValueError(f"isdtype: unknown kind {kind!r}")
        return kinds[kind]
    return dt == np.dtype(kind)


FinfoResult = collections.namedtuple("finfo_object", ["bits", "eps", "max", "min", "smallest_normal", "dtype"])
IinfoResult = collections.namedtuple("iinfo_object", ["bits", "max", "min", "dtype"])


def finfo(type, /):  # noqa: A002
    """bits, eps, max, min, smallest_normal (Python floats, as the standard
    says; NumPy's are NumPy scalars) and dtype of a floating dtype."""
    f = np.finfo(_as_dtype(type))
    return FinfoResult(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), f.dtype)


def iinfo(type, /):  # noqa: A002
    """bits, max, min and dtype of an integer dtype."""
    i = np.iinfo(_as_dtype(type))
    return IinfoResult(int(i.bits), int(i.max), int(i.min), i.dtype)


def _promote(a, b):
    """The standard's promotion table on dtype names; None where it
    defines no result (mixed kinds, uint64 with a signed integer)."""
    if a == b:
        return a
    for table in (_SIGNED, _UNSIGNED, _REAL, _COMPLEX):
        if a in table and b in table:
            return a if table[a] >= table[b] else b
    if a in _UNSIGNED and b in _SIGNED:
        a, b = b, a
    if a in _SIGNED and b in _UNSIGNED:
        bits = builtins.max(_SIGNED[a], 2 * _UNSIGNED[b])
        return f"int{bits}" if bits <= 64 else None
    if a in _COMPLEX and b in _REAL:
        a, b = b, a
    if a in _REAL and b in _COMPLEX:
        return "complex128" if a == "float64" or b == "complex128" else "complex64"
    return None


def _promote_dtypes(a, b):
    """The standard's result where it has one, else NumPy's own promotion
    of the dtypes (what NumPy 2 does for mixed kinds), never by value."""
    r = _promote(a.name, b.name)
    return np.dtype(r) if r is not None else np.promote_types(a, b)


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on the arguments (tensors, arrays, dtypes)
    by the standard's promotion table; Python scalars are weak, as in NumPy
    2 (they take the others' dtype when their kind allows)."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    dts = [_as_dtype(x) for x in arrays_and_dtypes if not isinstance(x, (bool, int, float, complex))]
    scalars = [x for x in arrays_and_dtypes if isinstance(x, (bool, int, float, complex))]
    if not dts:
        return np.result_type(*scalars)
    r = dts[0]
    for d in dts[1:]:
        r = _promote_dtypes(r, d)
    for s in scalars:
        r = _weak(r, s)
    return r


def _weak(dt, s):
    """dt with a Python scalar s (NEP 50): dt when s's kind fits."""
    k = dt.kind
    if isinstance(s, bool) or (isinstance(s, int) and k in "iuf") or (isinstance(s, float) and k in "fc") or \
            (isinstance(s, complex) and k == "c"):
        return dt
    return np.result_type(dt, s)


def can_cast(from_, to, /):
    """Whether from_ (a dtype or tensor) casts to dtype to without loss:
    the standard's rule (result_type(from_, to) == to) within a kind, NumPy's
    'safe' rule across kinds; never by value."""
    f, t = _as_dtype(from_), np.dtype(to)
    r = _promote(f.name, t.name)
    if r is not None:
        return r == t.name
    return builtins.bool(np.can_cast(f, t, "safe"))


def _promote_0d(a, b):
    """Operands of a binary function promoted as the standard says: a 0-d
    tensor counts by its dtype, not its value (NumPy 1.24 casts by value,
    so int32 + int64 0-d was int32 there; it is int64 here, as in NumPy 2)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a._dtype != b._dtype and (not a._shape) != (not b._shape):
        r = _promote_dtypes(a.dtype, b.dtype)
        if a.dtype != r:
            a = call("astype", a, r.name)
        if b.dtype != r:
            b = call("astype", b, r.name)
    elif isinstance(a, Tensor) and not a._shape and _is_py_scalar(b):
        b = _weak_operand(a.dtype, b)
    elif isinstance(b, Tensor) and not b._shape and _is_py_scalar(a):
        a = _weak_operand(b.dtype, a)
    return a, b


def _is_py_scalar(v):
    return isinstance(v, (builtins.bool, int, float)) and not isinstance(v, np.generic)


def _weak_operand(dt, s):
    """A Python scalar beside a 0-d tensor of dtype dt: NumPy 1.24 casts the
    two by value (a 0-d uint8 + 1 is int64 there), the standard keeps dt
    when s's kind fits it (NEP 50), so s travels as a 0-d tensor of dt.
    A value dt cannot hold stays a Python scalar (the standard leaves
    that case unspecified)."""
    if _weak(dt, s) != dt:
        return s
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if not info.min <= int(s) <= info.max:
            return s
    elif dt.kind == "f" and math.isfinite(float(s)) and not np.isfinite(np.asarray(float(s), dtype=dt)):
        return s
    return _core.from_numpy(np.asarray(s, dtype=dt))


# names NumPy 1.24 spells differently -------------------------------------------------

_ALIASES = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
    "atan2": "arctan2", "atanh": "arctanh", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "pow": "power",
}


def concat(arrays, /, *, axis=0):
    """The standard's concatenate (axis=None: flattened first)."""
    return _mt().concatenate(arrays, axis=axis)


def permute_dims(x, /, axes):
    return call("transpose", astensor(x), [operator.index(a) for a in axes])


def matrix_transpose(x, /):
    """The transpose of each matrix (the last two axes) of x."""
    x = astensor(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose of a {x.ndim}-d tensor: it needs at least 2 dimensions")
    axes = list(range(x.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return call("transpose", x, axes)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of x1 and x2 (broadcast) along axis."""
    mt = _mt()
    x1, x2 = astensor(x1), astensor(x2)
    axis = operator.index(axis)
    n = builtins.max(x1.ndim, x2.ndim)
    if not -n <= axis < n:
        raise np.AxisError(axis, n)
    # the axis counts from the end of the broadcast shape; both must have it
    # with the same length (the standard does not broadcast it)
    for x in (x1, x2):
        i = axis if axis < 0 else axis - n
        if -i > x.ndim:
            raise ValueError(f"vecdot: axis {axis} is not an axis of an operand of shape {x.shape}")
    d1, d2 = x1.shape[axis - n if axis >= 0 else axis], x2.shape[axis - n if axis >= 0 else axis]
    if d1 != d2:
        raise ValueError(f"vecdot: the contracted axes have lengths {d1} and {d2}")
    x1, x2 = _promote_0d(x1, x2)
    if x1.dtype.kind == "c":
        x1 = mt.conj(x1)  # the standard's vecdot conjugates x1
    prod = mt.multiply(x1, x2)
    # the product's dtype, as the standard says (sum would widen int32)
    return mt.sum(prod, axis=axis if axis < 0 else axis - n, dtype=prod.dtype if prod.dtype.kind in "iu" else None)


def _t_astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """x.astype(dtype, copy=) as the standard's astype; NumPy's order,
    casting and subok are taken (a tensor has no memory order, and any
    cast is allowed, as NumPy's default 'unsafe')."""
    if casting != "unsafe" and not np.can_cast(self.dtype, np.dtype(dtype), casting):
        raise TypeError(f"Cannot cast array data from {self.dtype} to {np.dtype(dtype)} according to the rule "
                        f"{casting!r}")
    return astype(self, dtype, copy=copy)


def _copy(x):
    """A new handle with x's value. Tensors are immutable, but in-place
    syntax rebinds a handle (x += 1), so a copy must be a handle of its own
    for the original to keep its value."""
    return call("astype", x, x.dtype.name)


def astype(x, dtype, /, *, copy=True):
    """x in dtype; with copy=False, x itself when it has dtype already."""
    x = astensor(x)
    name = _core._dtype_name(dtype)
    if name == x.dtype.name:
        return _copy(x) if copy else x
    return call("astype", x, name)


# data-dependent shapes: unique_* -------------------------------------------------------


def _unique(x, index, inverse, counts):
    x = astensor(x)
    if x.dtype.kind == "f":
        return _unique_nan_distinct(x, index, inverse, counts)
    parts = _mt().unique(x, return_index=index, return_inverse=inverse, return_counts=counts)
    return parts if isinstance(parts, tuple) else (parts,)


def _unique_nan_distinct(x, index, inverse, counts):
    """unique_* of a floating x as the standard says: NaNs compare unequal,
    so each is a value of its own (NumPy 1.24's unique merges them). Built
    from the stable sort: a value is kept where it differs from the one
    before it, which every NaN does; only the final selections have a
    data-dependent length."""
    mt = _mt()
    flat = call("ravel", x)
    n = flat.shape[0]
    p = mt.argsort(flat)  # stable, NaNs last
    s = flat[p]
    if n == 0:
        keep = mt.zeros((0,), dtype="bool")
    else:
        keep = mt.concat([mt.ones((1,), dtype="bool"), mt.not_equal(s[1:], s[:-1])])
    out = [s[keep]]
    if index:
        out.append(p[keep])  # the stable sort puts each value's first position first
    if inverse:
        rank = mt.cumsum(keep.astype("int64")) - 1
        out.append(rank[mt.argsort(p)])
    if counts:
        z = s + 0.0  # -0.0 to +0.0: the cluster's searchsorted orders -0.0 below +0.0
        run = call("searchsorted", z, z, side="right") - mt.arange(n, dtype="int64")
        out.append(mt.where(mt.isnan(s), 1, run)[keep])
    return tuple(out)


def unique_values(x, /):
    """The distinct values of x, sorted (a length known once computed:
    shape (None,))."""
    return _unique(x, False, False, False)[0]


def unique_counts(x, /):
    v, c = _unique(x, False, False, True)
    return UniqueCountsResult(v, c)


def unique_inverse(x, /):
    """values, and inverse_indices of x's shape (the standard's; NumPy 1.24
    flattens it)."""
    x = astensor(x)
    v, inv = _unique(x, False, True, False)
    return UniqueInverseResult(v, _reshape_inverse(inv, x))


def unique_all(x, /):
    x = astensor(x)
    v, i, inv, c = _unique(x, True, True, True)
    return UniqueAllResult(v, i, _reshape_inverse(inv, x), c)


def _reshape_inverse(inv, x):
    if x.ndim == 1:
        return inv
    return call("reshape", inv, list(x.shape))


# keywords NumPy 1.24 lacks -------------------------------------------------------------


def _sort_axis(x, axis):
    if axis is None:
        return call("ravel", x), 0
    return x, operator.index(axis)


def _wrap_sort(np_sort):
    def sort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
        """numpy.sort, and the standard's sort(x, axis=-1, descending=False,
        stable=True): descending order reverses the ascending one (NaNs first
        then, as numpy.array_api)."""
        r = np_sort(a, axis=axis, kind=kind, order=order)
        if descending:
            return call("flip", r, [-1 if axis is None else operator.index(axis)])
        return r
    return sort


def _wrap_argsort(np_argsort):
    def argsort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
        """numpy.argsort (stable), and the standard's argsort(x, axis=-1,
        descending=False, stable=True): descending and stable keeps equal
        values in their order, as the standard asks."""
        if not descending:
            return np_argsort(a, axis=axis, kind=kind, order=order)
        if order is not None:
            raise NotImplementedError("phobos: argsort(order=...): tensors have no fields")
        x, ax = _sort_axis(astensor(a), axis)
        n = x.shape[ax]
        # positions in the reversed x, sorted ascending and stable, read
        # backwards: the largest first, ties in their original order
        r = np_argsort(call("flip", x, [ax]), axis=ax, kind=kind)
        return (n - 1) - call("flip", r, [ax])
    return argsort


def _wrap_moment(np_moment, name):
    def moment(a, axis=None, dtype=None, out=None, keepdims=False, ddof=0, *, correction=None, **kw):
        if correction is not None:
            if ddof:
                raise TypeError(f"{name}: give ddof or correction, not both")
            ddof = correction
        if isinstance(ddof, float) and not ddof.is_integer():
            return _fractional(np_moment, name, a, axis, dtype, keepdims, ddof)
        return np_moment(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, ddof=int(ddof), **kw)
    moment.__name__ = name
    moment.__doc__ = f"numpy.{name}, and the standard's correction= (NumPy's ddof by its name)."
    return moment


def _fractional(np_moment, name, a, axis, dtype, keepdims, c):
    """var or std with a correction that is not an integer: the biased
    variance scaled by N / (N - c)."""
    mt = _mt()
    a = astensor(a)
    var = mt.var(a, axis=axis, dtype=dtype, keepdims=keepdims)
    axes = range(a.ndim) if axis is None else ([axis] if isinstance(axis, int) else axis)
    n = math.prod(a.shape[operator.index(ax)] for ax in axes)
    v = var * (n / (n - c) if n > c else math.inf)  # NumPy: inf (NaN for 0 / 0) past N
    return mt.sqrt(v) if name == "std" else v


# creation functions with device= ----------------------------------------------------------


def _with_device(f):
    def g(*args, device=None, **kw):
        if device is not None:
            _check_device(device)
        return f(*args, **kw)
    g.__name__, g.__doc__ = f.__name__, f.__doc__
    # the signature shows device, as the standard's signatures do
    sig = inspect.signature(f)
    g.__signature__ = sig.replace(parameters=list(sig.parameters.values()) + [
        inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return g


def _wrap_reshape(np_reshape):
    def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
        """numpy.reshape, and the standard's reshape(x, shape, copy=):
        NumPy 1.24 names the shape newshape (still taken). A reshape never
        copies data it need not (tensors are immutable)."""
        if (shape is None) == (newshape is None):
            raise TypeError("reshape: give shape (or NumPy's newshape), once")
        return np_reshape(a, shape if shape is not None else newshape, order)
    return reshape


def _wrap_asarray(np_asarray):
    def asarray(obj, dtype=None, chunks=None, *, device=None, copy=None):
        """numpy.asarray, and the standard's asarray(obj, dtype, device,
        copy): a tensor never shares memory with client data, so copy=False
        is refused for anything but a tensor."""
        _check_device(device)
        if isinstance(obj, Tensor):
            t = obj if dtype is None else astype(obj, dtype, copy=False)
            if copy and t is obj:
                t = _copy(obj)
            return t if chunks is None else t.rechunk(chunks)
        if copy is False:
            raise ValueError("phobos: asarray(copy=False) of client data: a tensor's data lives on the cluster, "
                             "so it is always a copy")
        if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
            obj = np.from_dlpack(obj)
        return np_asarray(obj, dtype, chunks)
    return asarray


def _wrap_full(np_full):
    def full(shape, fill_value, dtype=None, chunks=None, order="C"):
        """numpy.full. The cluster's full holds its value as a float64, so an
        integer beyond 2**53 is added to zeros instead (a weak scalar keeps
        all its bits)."""
        if isinstance(fill_value, (int, np.integer)) and not isinstance(fill_value, (builtins.bool, np.bool_)) \
                and builtins.abs(int(fill_value)) > 2 ** 53:
            z = np_full(shape, 0, dtype=dtype if dtype is not None else getattr(fill_value, "dtype", None),
                        chunks=chunks, order=order)
            v = int(fill_value)
            if z.dtype.kind in "iu" and np.iinfo(z.dtype).min <= v <= np.iinfo(z.dtype).max:
                # a 0-d tensor of z's dtype: a Python int past int64's
                # range (a uint64 fill) would travel as a float
                return call("add", z, _core.from_numpy(np.asarray(v, dtype=z.dtype)))
            return call("add", z, v)
        return np_full(shape, fill_value, dtype=dtype, chunks=chunks, order=order)
    return full


# standard special cases NumPy 1.24 does not follow ---------------------------------------------


def _integer_identity(np_f, name):
    def f(x, out=None, **kw):
        if out is None and not kw and isinstance(x, Tensor) and x.dtype.kind in "iu":
            return x
        return np_f(x, out=out, **kw)
    f.__name__ = name
    f.__doc__ = f"numpy.{name}; an integer tensor is returned as it is (the standard's rule; NumPy 1.24 gives float64)."
    return f


def _wrap_floor_divide(np_fd):
    def floor_divide(x1, x2, out=None, **kw):
        """numpy.floor_divide, with the standard's infinities: an infinite
        operand against a finite one gives floor(x1 / x2), +-inf or +-0
        (NumPy 1.24 gives NaN for inf // 2 and -1 for -1 // inf)."""
        r = np_fd(x1, x2, out=out, **kw)
        if r.dtype.kind != "f":
            return r
        mt = _mt()
        a, b = _operand_tensor(x1, r.dtype), _operand_tensor(x2, r.dtype)
        fix = mt.not_equal(mt.isinf(a), mt.isinf(b)) & mt.logical_not(mt.isnan(a) | mt.isnan(b))
        return mt.where(fix, mt.floor(mt.true_divide(a, b)), r)
    return floor_divide


def _operand_tensor(x, dt):
    if isinstance(x, Tensor):
        return x
    return _core.from_numpy(np.asarray(x, dtype=dt if np.ndim(x) == 0 else None))


# linalg ---------------------------------------------------------------------------------


def _install_linalg(linalg):
    mt = _mt()
    np_qr, np_svd, np_slogdet, np_cholesky = linalg.qr, linalg.svd, linalg.slogdet, linalg.cholesky
    np_pinv, np_rank = linalg.pinv, linalg.matrix_rank

    def eigh(a, UPLO="L"):
        """numpy.linalg.eigh: (eigenvalues ascending, eigenvectors as
        columns), each matrix of a stack whole in one chunk (LAPACK
        xSYEVD); the standard's EighResult."""
        a = astensor(a)
        return EighResult(*(linalg._call("eigh", a, UPLO=UPLO, out=i) for i in range(2)))

    def eigvalsh(a, UPLO="L"):
        return linalg._call("eigvalsh", astensor(a), UPLO=UPLO)

    def qr(a, mode="reduced"):
        r = np_qr(a, mode)
        return QRResult(*r) if isinstance(r, tuple) else r

    def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
        r = np_svd(a, full_matrices, compute_uv, hermitian)
        return SVDResult(*r) if isinstance(r, tuple) else r

    def slogdet(a):
        return SlogdetResult(*np_slogdet(a))

    def cholesky(a, /, *, upper=False):
        """numpy.linalg.cholesky; upper=True gives Uᵀ = L's transpose (a = UᵀU)."""
        L = np_cholesky(a)
        return matrix_transpose(L) if upper else L

    def svdvals(x, /):
        return linalg._call("svdvals", astensor(x))

    def pinv(a, rcond=None, hermitian=False, *, rtol=None):
        """numpy.linalg.pinv, and the standard's rtol (the default cutoff
        max(M, N) * eps, as the standard says)."""
        a = astensor(a)
        tol = rtol if rtol is not None else rcond
        if tol is None:
            tol = builtins.max(a.shape[-2:]) * np.finfo(np.result_type(a.dtype, np.float32)).eps
        return np_pinv(a, tol)

    def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
        """numpy.linalg.matrix_rank, and the standard's rtol: a singular
        value counts when above rtol times the largest."""
        if rtol is None:
            return np_rank(A, tol)
        A = astensor(A)
        s = svdvals(A)
        if A.shape[-2] == 0 or A.shape[-1] == 0:
            return mt.zeros(tuple(A.shape[:-2]), dtype="int64")
        if isinstance(rtol, Tensor) and rtol.ndim:
            rtol = mt.expand_dims(rtol, axis=-1)  # one per matrix of the stack
        return mt.count_nonzero(s > mt.max(s, axis=-1, keepdims=True) * rtol, axis=-1)

    def matrix_norm(x, /, *, keepdims=False, ord="fro"):
        """The norm of each matrix (the last two axes)."""
        x = astensor(x)
        if x.ndim > 2 and ord in ("nuc", 2, -2) and 0 not in x.shape[-2:]:
            # the singular values of each matrix of the stack (the
            # cluster's svdvals takes stacks)
            s = svdvals(x if x.dtype.kind == "f" else mt.astype(x, "float64"))
            r = mt.sum(s, axis=-1) if ord == "nuc" else mt.max(s, axis=-1) if ord == 2 else mt.min(s, axis=-1)
        else:
            r = linalg.norm(x, ord=ord, axis=(-2, -1))
        return mt.reshape(r, tuple(x.shape[:-2]) + (1, 1)) if keepdims else r

    def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
        """The vector norm over axis (None: all of x as one vector; a tuple:
        those axes as one vector)."""
        x = astensor(x)
        nd = x.ndim
        axes = tuple(range(nd)) if axis is None else (
            (operator.index(axis),) if not isinstance(axis, tuple) else tuple(operator.index(a) for a in axis))
        axes = tuple(a % nd if nd else 0 for a in axes)
        if len(axes) == 1 and nd:
            v, ax = x, axes[0]
        else:
            keep = [d for d in range(nd) if d not in axes]
            t = call("transpose", x, keep + list(axes)) if nd else x
            v = mt.reshape(t, tuple(x.shape[d] for d in keep) + (-1,))
            ax = len(keep)
        r = linalg.norm(v, ord=ord, axis=ax)
        if keepdims:
            r = mt.reshape(r, tuple(1 if d in axes else x.shape[d] for d in range(nd)))
        return r

    def outer(x1, x2, /):
        return mt.outer(x1, x2)

    def tensordot(x1, x2, /, *, axes=2):
        return mt.tensordot(x1, x2, axes=axes)

    def cross(x1, x2, /, *, axis=-1):
        """The cross product of 3-element vectors along axis (broadcast)."""
        x1, x2 = astensor(x1), astensor(x2)
        if x1.shape[axis] != 3 or x2.shape[axis] != 3:
            raise ValueError("cross: both operands need length 3 along axis")
        return mt.cross(x1, x2, axis=axis)

    for f in (eigh, eigvalsh, qr, svd, slogdet, cholesky, svdvals, pinv, matrix_rank, matrix_norm, vector_norm,
              outer, tensordot, cross):
        setattr(linalg, f.__name__, f)
    linalg.vecdot = vecdot
    linalg.matrix_transpose = matrix_transpose


@contextlib.contextmanager
def resolve_shapes(enabled=True):
    """Within it, the shape of a tensor whose length depends on its data
    (unique_values, nonzero, x[mask]) is computed when read, instead of
    holding None: for libraries written for eager arrays, such as
    scikit-learn's Array API support, which compare such lengths."""
    tok = _core.RESOLVE_SHAPES.set(builtins.bool(enabled))
    try:
        yield
    finally:
        _core.RESOLVE_SHAPES.reset(tok)


# install ---------------------------------------------------------------------------------------


def install(ns):
    """Makes the module namespace ns (phobos.tensor's globals) the Array
    API namespace."""
    ns["__array_api_version__"] = API_VERSION
    for name in _DTYPE_NAMES:
        if name in _core.SUPPORTED_DTYPES and name != "bool":
            ns[name] = getattr(np, name)
    ns["bool"] = np.bool_
    for alias, name in _ALIASES.items():
        ns[alias] = ns[name]
    for f in (concat, permute_dims, matrix_transpose, vecdot, astype, unique_values, unique_counts,
              unique_inverse, unique_all, isdtype, finfo, iinfo, result_type, can_cast, from_dlpack, resolve_shapes):
        ns[f.__name__] = f
    ns["sort"] = _wrap_sort(ns["sort"])
    ns["argsort"] = _wrap_argsort(ns["argsort"])
    ns["var"] = _wrap_moment(ns["var"], "var")
    ns["std"] = _wrap_moment(ns["std"], "std")
    ns["asarray"] = _wrap_asarray(ns["asarray"])
    ns["full"] = _wrap_full(ns["full"])
    ns["reshape"] = _wrap_reshape(ns["reshape"])
    for name in ("zeros", "ones", "empty", "full", "arange", "linspace", "eye", "zeros_like", "ones_like",
                 "empty_like", "full_like"):
        ns[name] = _with_device(ns[name])
    for name in ("ceil", "floor", "trunc"):
        ns[name] = _integer_identity(ns[name], name)
    ns["floor_divide"] = _wrap_floor_divide(ns["floor_divide"])
    _install_linalg(ns["linalg"])
    _arrayapi2024.install(ns)

    Tensor.__array_namespace__ = _t_array_namespace
    Tensor.device = property(_t_device)
    Tensor.to_device = _t_to_device
    Tensor.mT = property(_t_mT)
    Tensor.__dlpack__ = _t_dlpack
    Tensor.__dlpack_device__ = _t_dlpack_device
    Tensor.__complex__ = lambda self: self._scalar(complex)
    Tensor.__floordiv__ = lambda self, other: ns["floor_divide"](self, other)
    Tensor.__rfloordiv__ = lambda self, other: ns["floor_divide"](other, self)
    Tensor.__ifloordiv__ = ns["_inplace"](ns["floor_divide"])
    Tensor.astype = _t_astype
    for name in ("sort", "argsort", "var", "std"):
        setattr(Tensor, name, ns["_method"](ns[name]))
