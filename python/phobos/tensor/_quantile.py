"""Medians and quantiles: numpy.median, quantile, percentile and their nan-
forms, computed exactly by the cluster (a radix select over the chunks of a
lane split among them; see docs/ARCHITECTURE.md)."""

import operator

import numpy as np

from ._core import call, astensor

NAMES = ["median", "nanmedian", "quantile", "percentile", "nanquantile", "nanpercentile"]


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, np.ndarray) and axis.ndim == 1:
        axis = axis.tolist()  # xarray's quantile gives its axes as an array
    if isinstance(axis, (tuple, list)):
        return [operator.index(a) for a in axis]
    return operator.index(axis)


def _q(q):
    """q as the cluster takes it: a number, or a list of numbers (1-D)."""
    arr = np.asarray(q, dtype=np.float64)
    if arr.ndim == 0:
        return float(arr)
    if arr.ndim == 1:
        return [float(x) for x in arr]
    raise NotImplementedError(f"phobos: q of {arr.ndim} dimensions; give a scalar or a 1-D list")


def _no_out(fn, out):
    if out is not None:
        raise NotImplementedError(f"phobos: {fn}(out=...): tensors are immutable; use the result")


def _median(fn):
    def f(a, axis=None, out=None, overwrite_input=False, keepdims=False):
        _no_out(fn, out)
        return call(fn, astensor(a), axis=_axis(axis), keepdims=bool(keepdims) or None)
    f.__name__ = fn
    return f


def _quantile(fn):
    def f(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, interpolation=None):
        _no_out(fn, out)
        if interpolation is not None:
            raise TypeError(f"{fn}(): interpolation= was renamed method= in NumPy 1.22; pass method={interpolation!r}")
        return call(fn, astensor(a), _q(q), axis=_axis(axis), method=None if method == "linear" else method,
                    keepdims=bool(keepdims) or None)
    f.__name__ = fn
    return f


median = _median("median")
nanmedian = _median("nanmedian")
quantile = _quantile("quantile")
percentile = _quantile("percentile")
nanquantile = _quantile("nanquantile")
nanpercentile = _quantile("nanpercentile")
