"""mt.fft: numpy.fft on the cluster (the registry's fft.* functions).

Each transform along one axis makes that axis whole in every chunk (the
other axes keep their chunks) and transforms each chunk's lanes; transforms
over several axes go one axis at a time. As in NumPy 1.24, every transform
computes in float64 and returns complex128 (float64 for irfft and hfft)."""

import operator

import numpy as np

from . import _core

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "rfftn", "irfftn", "rfft2", "irfft2",
           "fft2", "ifft2", "fftn", "ifftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]


def _call(fn, *args, **kw):
    return _core.call("fft." + fn, *args, **kw)


def _n(n):
    return None if n is None else operator.index(n)


def _ints(v):
    if v is None:
        return None
    if isinstance(v, (int, np.integer)):
        return operator.index(v)
    return [operator.index(x) for x in v]


def _one(name):
    def f(a, n=None, axis=-1, norm=None):
        return _call(name, _core.astensor(a), n=_n(n), axis=operator.index(axis), norm=norm)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.fft.{name}(a, n=None, axis=-1, norm=None) on the cluster."
    return f


def _nd(name, default_axes):
    def f(a, s=None, axes=default_axes, norm=None):
        kw = {"s": _ints(s), "norm": norm}
        if axes is not None:
            kw["axes"] = _ints(axes)
        return _call(name, _core.astensor(a), **kw)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.fft.{name}(a, s=None, axes={default_axes!r}, norm=None) on the cluster."
    return f


fft, ifft, rfft, irfft, hfft, ihfft = (_one(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn = (_nd(n, None) for n in ("fftn", "ifftn", "rfftn", "irfftn"))
fft2, ifft2, rfft2, irfft2 = (_nd(n, (-2, -1)) for n in ("fft2", "ifft2", "rfft2", "irfft2"))


def fftshift(x, axes=None):
    """numpy.fft.fftshift: the zero frequency moved to the centre (rolls)."""
    return _call("fftshift", _core.astensor(x), axes=_ints(axes))


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift, the inverse of fftshift."""
    return _call("ifftshift", _core.astensor(x), axes=_ints(axes))


@_core.takes_chunk_size
def fftfreq(n, d=1.0, chunks=None):
    """numpy.fft.fftfreq: the sample frequencies of an fft of length n."""
    return _call("fftfreq", operator.index(n), d=float(d), chunks=_core._chunks(chunks))


@_core.takes_chunk_size
def rfftfreq(n, d=1.0, chunks=None):
    """numpy.fft.rfftfreq: the non-negative sample frequencies of an rfft."""
    return _call("rfftfreq", operator.index(n), d=float(d), chunks=_core._chunks(chunks))


# REGISTRY entries: every fft.* function of the cluster is called here.
REGISTRY = {"fft." + n: "fft." + n for n in __all__}
