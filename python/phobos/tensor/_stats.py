"""Statistics: NumPy's NaN-aware reductions, ptp, average, cov, corrcoef,
bincount, digitize and histograms, each a call of the cluster's function of
the same name with NumPy 1.24's signature.

Two differ from NumPy by the nature of lazy tensors: bincount without a
large enough minlength, and histogram with a named bin rule, have a length
that depends on the data, so they execute a small tensor first (the data's
minimum and maximum, or the rule's number of bins) and then build the
result. Mistakes only visible in the data (an all-NaN slice for nanargmin,
bins tensors that are not monotonic, weights summing to zero for average)
fail the computation with a PhobosError when it runs, where NumPy raises
ValueError or ZeroDivisionError at once."""

import builtins
import math
import operator
import warnings

import numpy as np

from ._core import Tensor, astensor, call, from_numpy, _dtype_name
from .._executable import ExecutableTuple

_NoValue = np._NoValue


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return [operator.index(a) for a in axis]
    return operator.index(axis)


def _keep(keepdims):
    return None if keepdims is _NoValue else (bool(keepdims) or None)


def _no_out(fn, out):
    if out is not None:
        raise NotImplementedError(f"phobos: {fn}(out=...): tensors are immutable; use the result")


def _no_where_initial(fn, initial=_NoValue, where=_NoValue):
    if initial is not _NoValue or (where is not _NoValue and where is not True):
        raise NotImplementedError(f"phobos: {fn} with initial= or where= is not supported")


def _operand(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float, np.generic)) and np.ndim(x) == 0:
        return x.item() if isinstance(x, np.generic) else x
    return from_numpy(x)


# NaN-aware reductions ---------------------------------------------------------


def nansum(a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    _no_out("nansum", out)
    _no_where_initial("nansum", initial, where)
    return call("nansum", astensor(a), axis=_axis(axis), dtype=_dtype_name(dtype), keepdims=_keep(keepdims))


def nanprod(a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    _no_out("nanprod", out)
    _no_where_initial("nanprod", initial, where)
    return call("nanprod", astensor(a), axis=_axis(axis), dtype=_dtype_name(dtype), keepdims=_keep(keepdims))


def nanmean(a, axis=None, dtype=None, out=None, keepdims=_NoValue, *, where=_NoValue):
    _no_out("nanmean", out)
    _no_where_initial("nanmean", where=where)
    return call("nanmean", astensor(a), axis=_axis(axis), dtype=_dtype_name(dtype), keepdims=_keep(keepdims))


def _nanmoment(fn):
    def f(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, where=_NoValue):
        _no_out(fn, out)
        _no_where_initial(fn, where=where)
        return call(fn, astensor(a), axis=_axis(axis), dtype=_dtype_name(dtype),
                    ddof=operator.index(ddof) or None, keepdims=_keep(keepdims))
    f.__name__ = fn
    f.__doc__ = f"numpy.{fn}: over the numbers only; NaN where count - ddof <= 0."
    return f


nanvar = _nanmoment("nanvar")
nanstd = _nanmoment("nanstd")


def _nanext(fn):
    def f(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
        _no_out(fn, out)
        _no_where_initial(fn, initial, where)
        return call(fn, astensor(a), axis=_axis(axis), keepdims=_keep(keepdims))
    f.__name__ = fn
    f.__doc__ = f"numpy.{fn}: NaN ignored; an all-NaN slice gives NaN."
    return f


nanmin = _nanext("nanmin")
nanmax = _nanext("nanmax")


def _nanarg(fn):
    def f(a, axis=None, out=None, *, keepdims=_NoValue):
        _no_out(fn, out)
        return call(fn, astensor(a), axis=None if axis is None else operator.index(axis), keepdims=_keep(keepdims))
    f.__name__ = fn
    f.__doc__ = (f"numpy.{fn} in one pass; an all-NaN slice fails the computation "
                 "(PhobosError 'All-NaN slice encountered' when it runs).")
    return f


nanargmin = _nanarg("nanargmin")
nanargmax = _nanarg("nanargmax")


def _nancum(fn):
    def f(a, axis=None, dtype=None, out=None):
        _no_out(fn, out)
        return call(fn, astensor(a), axis=None if axis is None else operator.index(axis), dtype=_dtype_name(dtype))
    f.__name__ = fn
    return f


nancumsum = _nancum("nancumsum")
nancumprod = _nancum("nancumprod")


def ptp(a, axis=None, out=None, keepdims=_NoValue):
    _no_out("ptp", out)
    return call("ptp", astensor(a), axis=_axis(axis), keepdims=_keep(keepdims))


# average, cov, corrcoef -----------------------------------------------------------


def average(a, axis=None, weights=None, returned=False, *, keepdims=_NoValue):
    """numpy.average; weights summing to zero give NaN or inf (NumPy raises
    ZeroDivisionError), as their sum is known only when it runs."""
    a = astensor(a)
    k = {"axis": _axis(axis), "keepdims": _keep(keepdims)}
    if weights is not None:
        k["weights"] = astensor(weights)
    if not returned:
        return call("average", a, **k)
    return ExecutableTuple((call("average", a, returned=True, out=0, **k), call("average", a, returned=True, out=1, **k)))


def _ddof(ddof):
    if ddof is None:
        return None
    if ddof != int(ddof):
        raise ValueError("ddof must be integer")
    return int(ddof)


def _weights(w):
    return None if w is None else astensor(w)


def _check_weights(m, rowvar, fweights, aweights):
    """NumPy's checks of cov's weights: shapes always, values when the
    weights are arrays here (a tensor's values are known only when it runs)."""
    m = astensor(m)
    n = m.shape[0] if m.ndim == 1 else m.shape[1] if rowvar or m.shape[0] == 1 else m.shape[0] if m.ndim == 2 else None
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is None:
            continue
        if not isinstance(w, Tensor):
            v = np.asarray(w, dtype=float)
            if name == "fweights" and not np.all(v == np.around(v)):
                raise TypeError("fweights must be integer")
            if np.any(v < 0):
                raise ValueError(f"{name} cannot be negative")
        nd, shape = np.ndim(w) if not isinstance(w, Tensor) else w.ndim, np.shape(w) if not isinstance(w, Tensor) else w.shape
        if nd > 1:
            raise RuntimeError(f"cannot handle multidimensional {name}")
        if n is not None and shape[0] != n:
            raise RuntimeError(f"incompatible numbers of samples and {name}")


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """numpy.cov. Negative or fractional weights given as tensors, which
    NumPy refuses by value, are not checked (their values are known only
    when it runs)."""
    _check_weights(m, rowvar, fweights, aweights)
    return call("cov", astensor(m), None if y is None else astensor(y), rowvar=bool(rowvar), bias=bool(bias) or None,
                ddof=_ddof(ddof), fweights=_weights(fweights), aweights=_weights(aweights), dtype=_dtype_name(dtype))


def corrcoef(x, y=None, rowvar=True, bias=_NoValue, ddof=_NoValue, *, dtype=None):
    if bias is not _NoValue or ddof is not _NoValue:
        warnings.warn("bias and ddof have no effect and are deprecated", DeprecationWarning, stacklevel=2)
    return call("corrcoef", astensor(x), None if y is None else astensor(y), rowvar=bool(rowvar),
                dtype=_dtype_name(dtype))


# counts and histograms ---------------------------------------------------------------


def bincount(x, weights=None, minlength=0):
    """numpy.bincount. The result's length is max(x)+1 unless minlength is
    larger: it executes the minimum and maximum of x first (one small
    computation), then counts each chunk on its worker."""
    x = astensor(x)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1 else "object of too small depth for desired array")
    if x.dtype.kind == "f":
        raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') according to the rule 'safe'")
    n = minlength
    if x.size:
        from ..session import execute
        lo, hi = call("min", x), call("max", x)
        execute(lo, hi)  # one computation for both
        lo, hi = int(lo.fetch()), int(hi.fetch())
        if lo < 0:
            raise ValueError("'list' argument must have no negative elements")
        n = builtins.max(minlength, hi + 1)
    return call("bincount", x, _weights(weights), minlength=n)


def _monotonic(b):
    d = np.diff(b)
    return bool(np.all(d >= 0) or np.all(d <= 0))


def digitize(x, bins, right=False):
    """numpy.digitize. Bins given as an array are checked here; bins given
    as a tensor are checked when it runs."""
    if not isinstance(bins, Tensor):
        b = np.asarray(bins)
        if b.ndim != 1:
            raise ValueError("object too deep for desired array" if b.ndim > 1 else "object of too small depth for desired array")
        if not _monotonic(b):
            raise ValueError("bins must be monotonically increasing or decreasing")
        bins = from_numpy(b)
    x = _operand(x)
    if not isinstance(x, Tensor):
        x = from_numpy(np.asarray(x))
    return call("digitize", x, bins, right=bool(right) or None)


_RULES = ("sqrt", "sturges", "rice", "scott", "doane", "fd", "auto")


def _range(r):
    if r is None:
        return None
    lo, hi = (float(v) for v in r)
    if lo > hi:
        raise ValueError("max must be larger than min in range parameter.")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
    return [lo, hi]


def _bins(a, bins, range_, weights):
    """bins as the cluster takes them: a count, or a tensor of edges; a named
    rule is turned into its count here, by one execution."""
    if isinstance(bins, str):
        if bins not in _RULES:
            if bins == "stone":
                raise NotImplementedError("phobos: bins='stone' (sqrt, sturges, rice, scott, doane, fd and auto "
                                          "are supported)")
            raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
        if weights is not None:
            raise TypeError("Automated estimation of the number of bins is not supported for weighted data")
        n = int(call("histogram_bin_count", a, bins, range=range_).execute().fetch())
        if n < 1:
            raise ValueError("autodetected range of the data is not finite")
        return n
    if isinstance(bins, Tensor):
        return bins
    if np.ndim(bins) == 0:
        n = operator.index(bins)
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        return n
    b = np.asarray(bins)
    if b.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if np.any(b[:-1] > b[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return from_numpy(b)


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """numpy.histogram: each chunk counts its elements and the counts are
    added by a tree; the data is never gathered."""
    a = astensor(a)
    range_ = _range(range)
    w = _weights(weights)
    b = _bins(a, bins, range_, w)
    k = {"range": range_, "weights": w, "density": bool(density) or None}
    return ExecutableTuple((call("histogram", a, b, out=0, **k), call("histogram", a, b, out=1, **k)))


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    a = astensor(a)
    range_ = _range(range)
    w = _weights(weights)
    return call("histogram_bin_edges", a, _bins(a, bins, range_, w), range=range_, weights=w)


NAMES = [
    "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax", "nanargmin", "nanargmax",
    "nancumsum", "nancumprod", "ptp", "average", "cov", "corrcoef", "bincount", "digitize", "histogram",
    "histogram_bin_edges",
]
