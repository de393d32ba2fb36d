"""The integer dtypes int8, int16, uint8, uint16, uint32 and uint64 through
the client: uploads, creation, casts, arithmetic that wraps, promotion by
value of Python scalars, reductions and sorting, against NumPy 1.24."""

import numpy as np
import pytest

import phobos.tensor as mt

NEW = ("int8", "int16", "uint8", "uint16", "uint32", "uint64")
CHUNKINGS = (1, 3, 1000)


def full_range(dtype, shape, seed):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    a = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    a.flat[:3] = [info.min, info.max, 0]
    return a


def same(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("dtype", NEW)
def test_arithmetic_wraps(dtype, chunks):
    a, b = full_range(dtype, (5, 7), 1), full_range(dtype, (5, 7), 2)
    x, y = mt.tensor(a, chunks=chunks), mt.tensor(b, chunks=chunks)
    with np.errstate(all="ignore"):
        for f in (lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p * q, lambda p, q: p // q,
                  lambda p, q: p % q, lambda p, q: p & q, lambda p, q: p ^ q, lambda p, q: p < q):
            same(f(x, y).fetch(), f(a, b))


@pytest.mark.parametrize("dtype", NEW)
def test_scalars_promote_by_value(dtype):
    a = full_range(dtype, (4, 6), 3)
    x = mt.tensor(a, chunks=4)
    with np.errstate(all="ignore"):
        for s in (1, 200, 300, -1, 70000, 2 ** 40, 1.5, True):
            same((x + s).fetch(), a + s)


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("dtype", NEW)
def test_reductions_and_sort(dtype, chunks):
    a = full_range(dtype, (6, 5), 4)
    x = mt.tensor(a, chunks=chunks)
    same(x.sum().fetch(), a.sum())
    same(x.sum(axis=0).fetch(), a.sum(axis=0))
    same(x.max(axis=1).fetch(), a.max(axis=1))
    same(mt.argmin(x).fetch(), np.argmin(a))
    same(mt.cumsum(x, axis=1).fetch(), np.cumsum(a, axis=1))
    same(mt.sort(x.ravel()).fetch(), np.sort(a.ravel()))


@pytest.mark.parametrize("dtype", NEW)
def test_creation_and_astype(dtype):
    same(mt.zeros((3, 4), dtype=dtype, chunks=2).fetch(), np.zeros((3, 4), dtype))
    same(mt.arange(0, 100, 7, dtype=dtype, chunks=3).fetch(), np.arange(0, 100, 7, dtype=dtype))
    f = np.array([np.nan, np.inf, -1.5, 300.7, 7e4, -5e9, 1e20, 0.5])
    with np.errstate(all="ignore"):
        same(mt.tensor(f, chunks=3).astype(dtype).fetch(), f.astype(dtype))
    assert mt.zeros(2, dtype=getattr(mt, dtype)).dtype == np.dtype(dtype)


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_float16(chunks):
    rng = np.random.default_rng(5)
    a = (rng.integers(-40, 40, (5, 7)) / 4).astype(np.float16)
    b = (rng.standard_normal((5, 7))).astype(np.float16)
    x, y = mt.tensor(a, chunks=chunks), mt.tensor(b, chunks=chunks)
    for f in (lambda p, q: p + q, lambda p, q: p * q, lambda p, q: p / q, lambda p, q: p > q,
              lambda p, q: p + 1.5, lambda p, q: p + 1e5):
        same(f(x, y).fetch(), f(a, b))
    same(x.sum().fetch(), a.sum())
    same(x.max(axis=0).fetch(), a.max(axis=0))
    s = mt.sqrt(mt.abs(y)).fetch()
    assert s.dtype == np.float16
    np.testing.assert_allclose(s, np.sqrt(np.abs(b)), rtol=1e-3)
    with pytest.raises(Exception, match="float16"):
        mt.sort(x).fetch()
