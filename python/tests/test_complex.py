"""complex64 and complex128 through the client: uploads and fetches, Python
and NumPy complex scalars, x.real / x.imag / x.conj(), np.conj, np.angle,
np.abs, np.real, np.imag through NumPy's dispatch, arithmetic, reductions
and the refusals of ops without complex kernels, against NumPy 1.24."""

import numpy as np
import pytest

import phobos.tensor as mt

CHUNKINGS = (1, 3, 1000)
COMPLEX = ("complex64", "complex128")


def data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    a.flat[:4] = [complex(np.nan, 1), complex(1, np.inf), -0.0 + 0j, complex(-np.inf, -0.0)]
    return a


def close(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    rtol = 1e-5 if want.dtype in (np.complex64, np.float32) else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("dtype", COMPLEX)
def test_upload_fetch_round_trip(dtype, chunks):
    a = data(dtype, (5, 7), 1)
    x = mt.tensor(a, chunks=chunks)
    assert x.dtype == np.dtype(dtype)
    got = x.fetch()
    assert got.dtype == a.dtype and got.tobytes() == a.tobytes()
    big = a.astype(np.dtype(dtype).newbyteorder(">"))
    assert mt.tensor(big, chunks=chunks).fetch().tobytes() == a.tobytes()


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("dtype", COMPLEX)
def test_parts_and_numpy_dispatch(dtype, chunks):
    a = data(dtype, (5, 7), 2)
    x = mt.tensor(a, chunks=chunks)
    with np.errstate(all="ignore"):
        for got, want in [(x.real, a.real), (x.imag, a.imag), (x.conj(), a.conj()), (np.conj(x), np.conj(a)),
                          (np.conjugate(x), np.conjugate(a)), (np.real(x), np.real(a)), (np.imag(x), np.imag(a)),
                          (np.angle(x), np.angle(a)), (np.angle(x, deg=True), np.angle(a, deg=True)),
                          (np.abs(x), np.abs(a)), (abs(x), abs(a)), (np.iscomplex(x), np.iscomplex(a)),
                          (np.isreal(x), np.isreal(a))]:
            assert isinstance(got, mt.Tensor)
            close(got.fetch(), want)
    assert np.iscomplexobj(x) and not np.isrealobj(x)
    r = mt.tensor(a.real.copy(), chunks=chunks)
    assert np.isrealobj(r) and not np.iscomplexobj(r)
    close(np.imag(r).fetch(), np.imag(a.real))


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("dtype", COMPLEX)
def test_arithmetic_and_scalars(dtype, chunks):
    a, b = data(dtype, (4, 6), 3), data(dtype, (4, 6), 4)
    x, y = mt.tensor(a, chunks=chunks), mt.tensor(b, chunks=chunks)
    f32 = np.arange(24, dtype=np.float32).reshape(4, 6)
    with np.errstate(all="ignore"):
        for got, want in [(x + y, a + b), (x * y, a * b), (x / y, a / b), (x - 1j, a - 1j), ((2 - 3j) * x, (2 - 3j) * a),
                          (x ** 2, a ** 2), (x + np.complex64(1 + 1j), a + np.complex64(1 + 1j)), (x * 1e300j, a * 1e300j),
                          (mt.tensor(f32, chunks=chunks) + 1j, f32 + 1j), (np.exp(x), np.exp(a)), (np.sqrt(x), np.sqrt(a)),
                          (x == y, a == b), (x < y, a < b)]:
            close(got.fetch(), want)


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("dtype", COMPLEX)
def test_reductions(dtype, chunks):
    a = data(dtype, (6, 5), 5)[1:]  # without the NaN row's first element
    a = np.where(np.isfinite(a), a, 0.5 - 0.25j).astype(dtype)
    x = mt.tensor(a, chunks=chunks)
    for got, want in [(x.sum(), a.sum()), (x.sum(axis=0), a.sum(axis=0)), (x.prod(axis=1), a.prod(axis=1)),
                      (x.mean(), a.mean()), (x.var(), a.var()), (x.std(axis=1), a.std(axis=1)), (x.max(), a.max()),
                      (mt.cumsum(x, axis=0), np.cumsum(a, axis=0)), (x @ x.T, a @ a.T),
                      (mt.sort(x, axis=0), np.sort(a, axis=0)), (mt.sort(x.ravel()), np.sort(a.ravel()))]:
        got = got.fetch()
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "complex64" else 1e-10)
    assert complex(x.sum()) == pytest.approx(complex(a.sum()), rel=1e-4)


def test_refusals():
    x = mt.tensor(data("complex128", (8,), 6), chunks=3)
    with pytest.raises(TypeError):
        mt.argsort(x).fetch()
    with pytest.raises(TypeError):
        np.floor(x).fetch()
