"""What the Array API standard's 2023.12 and 2024.12 versions added to the
namespace, on top of _arrayapi.py's 2022.12: __array_namespace_info__,
cumulative_sum/cumulative_prod, unstack, and the standard's signatures of
functions NumPy 1.24 already has under other keywords (clip's min/max,
searchsorted's sorter, diff's prepend=None, take_along_axis's axis=-1,
repeat with a tensor of repeats). The elementwise additions (copysign,
hypot, maximum, minimum, signbit, nextafter, reciprocal) and moveaxis,
tile and count_nonzero are the cluster's own calls already.

Everything here composes existing calls of the cluster, each exactly:
nothing computes on the client but repeat's tensor of repeats, whose
values are the result's length."""

import builtins
import operator

import numpy as np

from . import _core
from ._core import Tensor, call, astensor
from .._executable import ExecutableTuple


def _mt():
    from .. import tensor
    return tensor


def _norm_axis(axis, ndim, name):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.AxisError(axis, ndim)
    return axis % ndim


# __array_namespace_info__ ------------------------------------------------------------------

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
    "numeric": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
                "complex64", "complex128"),
}
_STANDARD = ("bool",) + _KINDS["numeric"]
# The most axes a shape may have on the cluster (NumPy 1.24's limit too).
MAX_DIMENSIONS = 32


class Info:
    """The standard's inspection object: what the namespace can do, its
    default dtypes and its devices (one: a cluster is one device, "cpu")."""

    __module__ = "phobos.tensor"

    def capabilities(self):
        # boolean indexing and data-dependent shapes give an axis of
        # length None until computed, which the standard allows; the
        # cluster refuses shapes of more than MAX_DIMENSIONS axes
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": MAX_DIMENSIONS}

    def default_device(self):
        return "cpu"

    def devices(self):
        return ["cpu"]

    def _device(self, device):
        if device is not None and device != "cpu":
            raise ValueError(f"phobos: unknown device {device!r}: a Phobos cluster is one device, 'cpu'")

    def default_dtypes(self, *, device=None):
        self._device(device)
        return {"real floating": np.dtype("float64"), "complex floating": np.dtype("complex128"),
                "integral": np.dtype("int64"), "indexing": np.dtype("int64")}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes the cluster has, by name; kind as isdtype's
        (a name or a tuple of names)."""
        self._device(device)
        have = [n for n in _STANDARD if n in _core.SUPPORTED_DTYPES]
        if kind is None:
            names = have
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            for k in kinds:
                if k not in _KINDS:
                    raise ValueError(f"dtypes: unknown kind {k!r}")
            names = [n for n in have if builtins.any(n in _KINDS[k] for k in kinds)]
        return {n: np.dtype(n) for n in names}


_INFO = Info()


def __array_namespace_info__():
    return _INFO


# cumulative sums and products ----------------------------------------------------------


def _cumulative(fn, identity):
    def f(x, /, *, axis=None, dtype=None, include_initial=False):
        x = astensor(x)
        if axis is None:
            if x.ndim > 1:
                raise ValueError(f"{f.__name__}: axis is required for a tensor of {x.ndim} dimensions")
            if x.ndim == 0:
                raise ValueError(f"{f.__name__}: x must have at least one dimension")
            axis = 0
        axis = _norm_axis(axis, x.ndim, f.__name__)
        r = call(fn, x, axis=axis, dtype=_core._dtype_name(dtype))
        if not include_initial:
            return r
        shape = list(x.shape)
        shape[axis] = 1
        first = _mt().full(tuple(shape), identity, dtype=r.dtype)
        return call("concatenate", [first, r], axis)
    return f


cumulative_sum = _cumulative("cumsum", 0)
cumulative_sum.__name__ = "cumulative_sum"
cumulative_sum.__doc__ = """The standard's cumulative_sum: cumsum along axis (may be None only for a
1-d x), in dtype (the default: cumsum's, a float keeping its own); with
include_initial the sum of no elements, 0, comes first."""
cumulative_prod = _cumulative("cumprod", 1)
cumulative_prod.__name__ = "cumulative_prod"
cumulative_prod.__doc__ = """The standard's cumulative_prod: cumprod along axis, with include_initial
the empty product, 1, first."""


# manipulation ----------------------------------------------------------------------------


def unstack(x, /, *, axis=0):
    """The standard's unstack: the tensors along axis, x[..., i, ...] each,
    as a tuple."""
    x = astensor(x)
    if x.ndim == 0:
        raise ValueError("unstack: x must have at least one dimension")
    axis = _norm_axis(axis, x.ndim, "unstack")
    lead = [{"slice": [None, None, None]}] * axis
    return ExecutableTuple(call("getitem", x, lead + [i]) for i in range(x.shape[axis]))


def _wrap_repeat(np_repeat):
    def repeat(a, repeats, axis=None):
        """numpy.repeat, and the standard's repeat(x, repeats, /, *, axis=None)
        with repeats a tensor: its values are the result's length, so they
        are fetched (a tensor of one length per element, small beside x)."""
        if isinstance(repeats, Tensor):
            repeats = repeats.fetch()
        if isinstance(repeats, np.ndarray):
            if repeats.dtype.kind not in "iu" and repeats.size:
                raise TypeError("repeat: repeats must be integers")
            repeats = int(repeats) if repeats.ndim == 0 else [int(r) for r in repeats.ravel()]
        return np_repeat(a, repeats, axis=axis)
    return repeat


def _wrap_clip(np_clip):
    def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):  # noqa: A002
        """numpy.clip, and the standard's clip(x, /, min=None, max=None):
        either bound may be None (both: x itself, as a new handle), a
        number or a tensor; the result has x's dtype, as the standard says
        (NumPy 1.24 promotes with a tensor bound of a wider dtype)."""
        if min is not None:
            if a_min is not None:
                raise TypeError("clip: give a_min or min, not both")
            a_min = min
        if max is not None:
            if a_max is not None:
                raise TypeError("clip: give a_max or max, not both")
            a_max = max
        x = astensor(a)
        if a_min is None and a_max is None:
            if out is not None:
                raise NotImplementedError("phobos: clip(out=...): tensors are immutable; use the result")
            return call("astype", x, x.dtype.name)
        r = np_clip(x, a_min, a_max, out)
        if r.dtype != x.dtype and builtins.any(isinstance(b, Tensor) for b in (a_min, a_max)):
            r = call("astype", r, x.dtype.name)
        return r
    return clip


def _wrap_searchsorted(np_searchsorted):
    def searchsorted(a, v, side="left", sorter=None):
        """numpy.searchsorted, and the standard's sorter: the positions in
        a taken in sorter's order (a's sorted form), which are what NumPy
        returns."""
        if sorter is not None:
            a = call("take", astensor(a), astensor(sorter if isinstance(sorter, Tensor) else np.asarray(sorter)))
        return np_searchsorted(a, v, side=side)
    return searchsorted


def _wrap_diff(np_diff):
    def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
        """numpy.diff; the standard's prepend=None and append=None mean
        none (NumPy 1.24 would take None as a value)."""
        kw = {}
        if prepend is not None and prepend is not np._NoValue:
            kw["prepend"] = prepend
        if append is not None and append is not np._NoValue:
            kw["append"] = append
        return np_diff(a, n, axis, **kw)
    return diff


def _wrap_take_along_axis(np_take_along_axis):
    def take_along_axis(arr, indices, axis=-1):
        """numpy.take_along_axis; the standard's axis defaults to -1."""
        return np_take_along_axis(arr, indices, axis)
    return take_along_axis


def install(ns):
    """Adds the 2023.12 and 2024.12 names to the namespace ns."""
    for f in (cumulative_sum, cumulative_prod, unstack, __array_namespace_info__):
        ns[f.__name__] = f
    ns["repeat"] = _wrap_repeat(ns["repeat"])
    ns["clip"] = _wrap_clip(ns["clip"])
    ns["searchsorted"] = _wrap_searchsorted(ns["searchsorted"])
    ns["diff"] = _wrap_diff(ns["diff"])
    ns["take_along_axis"] = _wrap_take_along_axis(ns["take_along_axis"])
    method = ns["_method"]
    for name in ("repeat", "clip", "searchsorted"):
        setattr(Tensor, name, method(ns[name]))
