"""mt.fft against numpy.fft over chunkings, through mt.fft and through
NumPy's own functions dispatched to phobos tensors (__array_function__)."""

import numpy as np
import pytest

import phobos.tensor as mt

rng = np.random.default_rng(14)
X1 = rng.standard_normal(97)
X2 = rng.standard_normal((6, 10))
X3 = rng.standard_normal((3, 4, 5))
CHUNKS = [1, 3, 1 << 20]


def close(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    # single precision: both sides round the same double result, which may
    # differ in its last bits, so they may differ by an ulp of float32
    tol = 1e-6 if want.dtype in (np.complex64, np.float32) else 1e-13
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * max(1.0, np.abs(want).max(initial=0)))


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
@pytest.mark.parametrize("name, kw", [
    ("fft", {}), ("fft", {"n": 50, "norm": "ortho"}), ("ifft", {"n": 130}), ("rfft", {"norm": "forward"}),
    ("ihfft", {"n": 20}), ("irfft", {"n": 40}), ("hfft", {}),
])
def test_one_axis(session, chunks, name, kw):
    t = mt.tensor(X1, chunks=chunks)
    close(getattr(mt.fft, name)(t, **kw).fetch(), getattr(np.fft, name)(X1, **kw))


@pytest.mark.parametrize("chunks", [(1, 3), (4, -1), 100], ids=str)
@pytest.mark.parametrize("name, kw", [
    ("fft", {"axis": 0}), ("fft2", {}), ("ifft2", {"s": (4, 12)}), ("rfft2", {"norm": "ortho"}),
    ("fftn", {"axes": (1, 0)}), ("rfftn", {}), ("irfft2", {}), ("irfftn", {"s": (5, 7)}), ("ifftn", {}),
])
def test_two_axes(session, chunks, name, kw):
    t = mt.tensor(X2, chunks=chunks)
    close(getattr(mt.fft, name)(t, **kw).fetch(), getattr(np.fft, name)(X2, **kw))


def test_three_d_and_round_trip(session):
    t = mt.tensor(X3, chunks=2)
    close(mt.fft.fftn(t).fetch(), np.fft.fftn(X3))
    back = mt.fft.irfftn(mt.fft.rfftn(t), s=X3.shape)
    close(back.fetch(), np.fft.irfftn(np.fft.rfftn(X3), s=X3.shape))
    # a complex tensor made on the cluster, transformed back
    close(mt.fft.ifft(mt.fft.fft(t, axis=1), axis=1).fetch(), np.fft.ifft(np.fft.fft(X3, axis=1), axis=1))


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_input(session, dtype):
    c = (rng.standard_normal((5, 8)) + 1j * rng.standard_normal((5, 8))).astype(dtype)
    t = mt.tensor(c, chunks=(2, 3))

    def single(r):
        # mt.fft follows the Array API standard (and NumPy 2): a complex64
        # input gives complex64 (float32); NumPy 1.24 gives double
        if dtype != "complex64":
            return r
        return r.astype("complex64" if r.dtype.kind == "c" else "float32")
    close(mt.fft.ifft(t, norm="ortho").fetch(), single(np.fft.ifft(c, norm="ortho")))
    close(mt.fft.fft2(t, s=(3, 9)).fetch(), single(np.fft.fft2(c, s=(3, 9))))
    close(mt.fft.irfft(t, axis=0).fetch(), single(np.fft.irfft(c, axis=0)))
    close(mt.fft.hfft(t).fetch(), single(np.fft.hfft(c)))
    # numpy.fft's own functions on a tensor keep NumPy 1.24's dtypes
    close(np.fft.ifftn(t).fetch(), np.fft.ifftn(c))


def test_numpy_dispatch(session):
    t = mt.tensor(X2, chunks=3)
    r = np.fft.fft2(t)
    assert isinstance(r, mt.Tensor)
    close(r.fetch(), np.fft.fft2(X2))
    close(np.fft.rfft(t, n=7, axis=0).fetch(), np.fft.rfft(X2, n=7, axis=0))
    s = np.fft.fftshift(mt.tensor(np.arange(10), chunks=3))
    assert isinstance(s, mt.Tensor)
    np.testing.assert_array_equal(s.fetch(), np.fft.fftshift(np.arange(10)))


def test_shift_and_freq(session):
    a = np.arange(30).reshape(5, 6)
    t = mt.tensor(a, chunks=2)
    np.testing.assert_array_equal(mt.fft.fftshift(t).fetch(), np.fft.fftshift(a))
    np.testing.assert_array_equal(mt.fft.ifftshift(t, axes=0).fetch(), np.fft.ifftshift(a, axes=0))
    np.testing.assert_array_equal(mt.fft.ifftshift(t, axes=()).fetch(), a)
    for n in (1, 8, 9):
        np.testing.assert_array_equal(mt.fft.fftfreq(n, 0.1, chunks=2).fetch(), np.fft.fftfreq(n, 0.1))
        np.testing.assert_array_equal(mt.fft.rfftfreq(n, d=3).fetch(), np.fft.rfftfreq(n, d=3))


@pytest.mark.parametrize("f, exc", [
    (lambda t: mt.fft.fft(t, n=0), ValueError),
    (lambda t: mt.fft.fft(t, norm="bogus"), ValueError),
    (lambda t: mt.fft.fft(t, axis=3), np.AxisError),
    (lambda t: mt.fft.fftn(t, s=(3,), axes=(0, 1)), ValueError),
    (lambda t: mt.fft.irfft(t[:1, :1]), ValueError),
    (lambda t: mt.fft.fftfreq(0), ZeroDivisionError),
])
def test_errors(session, f, exc):
    with pytest.raises(exc):
        f(mt.tensor(X2, chunks=3))
