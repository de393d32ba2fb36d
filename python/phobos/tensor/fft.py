"""mt.fft: numpy.fft on the cluster (the registry's fft.* functions).

Each transform along one axis makes that axis whole in every chunk (the
other axes keep their chunks) and transforms each chunk's lanes; transforms
over several axes go one axis at a time. Every transform computes in
float64. The functions here are also the Array API standard's fft
extension: as the standard (and NumPy 2) says, a float32 or complex64 input
gives a complex64 result (float32 for irfft, irfftn and hfft), a wider one
complex128 (float64); fftfreq and rfftfreq take dtype= and device=.
numpy.fft's functions called on a tensor (np.fft.fft(t)) keep NumPy 1.24's
dtypes, complex128 and float64 whatever the input (NUMPY_1_24)."""

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


_SINGLE = ("float32", "complex64")


def _precision(a, r):
    """r in the precision of the input a, as the standard says: single for
    a float32 or complex64 input (the cluster computes in float64 and
    rounds once), r itself otherwise."""
    if a.dtype.name not in _SINGLE:
        return r
    return _core.call("astype", r, "complex64" if r.dtype.kind == "c" else "float32")


def _one(name, standard):
    def f(a, n=None, axis=-1, norm=None):
        a = _core.astensor(a)
        r = _call(name, a, n=_n(n), axis=operator.index(axis), norm=norm)
        return _precision(a, r) if standard else r
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.fft.{name}(a, n=None, axis=-1, norm=None) on the cluster; the standard's {name}(x, /, *, " \
        "n=None, axis=-1, norm='backward')."
    return f


def _nd(name, default_axes, standard):
    def f(a, s=None, axes=default_axes, norm=None):
        a = _core.astensor(a)
        kw = {"s": _ints(s), "norm": norm}
        if axes is not None:
            kw["axes"] = _ints(axes)
        r = _call(name, a, **kw)
        return _precision(a, r) if standard else r
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.fft.{name}(a, s=None, axes={default_axes!r}, norm=None) on the cluster."
    return f


_ONE = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
_ND = ("fftn", "ifftn", "rfftn", "irfftn")
_2D = ("fft2", "ifft2", "rfft2", "irfft2")
fft, ifft, rfft, irfft, hfft, ihfft = (_one(n, True) for n in _ONE)
fftn, ifftn, rfftn, irfftn = (_nd(n, None, True) for n in _ND)
fft2, ifft2, rfft2, irfft2 = (_nd(n, (-2, -1), True) for n in _2D)
# numpy.fft's functions on a tensor: NumPy 1.24's dtypes.
NUMPY_1_24 = {n: _one(n, False) for n in _ONE}
NUMPY_1_24.update({n: _nd(n, None, False) for n in _ND})
NUMPY_1_24.update({n: _nd(n, (-2, -1), False) for n in _2D})


def fftshift(x, axes=None):
    """numpy.fft.fftshift: the zero frequency moved to the centre (rolls)."""
    return _call("fftshift", _core.astensor(x), axes=_ints(axes))


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift, the inverse of fftshift."""
    return _call("ifftshift", _core.astensor(x), axes=_ints(axes))


def _freq(name, n, d, chunks, dtype, device):
    if device is not None and device != "cpu":
        raise ValueError(f"phobos: unknown device {device!r}: a Phobos cluster is one device, 'cpu'")
    r = _call(name, operator.index(n), d=float(d), chunks=_core._chunks(chunks))
    dt = _core._dtype_name(dtype)
    if dt is not None and dt != r.dtype.name:
        if np.dtype(dt).kind != "f":
            raise TypeError(f"{name}: dtype must be a real floating dtype, not {dt}")
        r = _core.call("astype", r, dt)
    return r


@_core.takes_chunk_size
def fftfreq(n, d=1.0, chunks=None, *, dtype=None, device=None):
    """numpy.fft.fftfreq: the sample frequencies of an fft of length n
    (float64, or the standard's dtype=)."""
    return _freq("fftfreq", n, d, chunks, dtype, device)


@_core.takes_chunk_size
def rfftfreq(n, d=1.0, chunks=None, *, dtype=None, device=None):
    """numpy.fft.rfftfreq: the non-negative sample frequencies of an rfft."""
    return _freq("rfftfreq", n, d, chunks, dtype, device)


# REGISTRY entries: every fft.* function of the cluster is called here.
REGISTRY = {"fft." + n: "fft." + n for n in __all__}
