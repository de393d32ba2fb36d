"""map_overlap on blocks whose rows are long: each block is written into
its executor's shared memory straight from its neighbours' borders, and
the trimmed result is read back row by row where the function left it.
Compared bit for bit with Dask 2022.12 over odd chunkings, every boundary
mode, per-axis depths, trim=False, several dtypes, and a 3-D array."""

import numpy as np
import pytest

import phobos.tensor as mt

da = pytest.importorskip("dask.array")
pytest.importorskip("cloudpickle")


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.array_equal(got, want, equal_nan=True)


# A lambda (pickled by value: the executors cannot import this module).
_f = lambda b: b * 2 - np.roll(b, 1, axis=0) + np.roll(b, -1, axis=-1)  # noqa: E731


@pytest.mark.parametrize("boundary", ["reflect", "periodic", "nearest", "none", 0.5])
def test_long_rows_vs_dask(boundary):
    rng = np.random.default_rng(7)
    # Rows of 700 and 1300 float64 (more than a page each once trimmed),
    # an uneven last chunk, a chunk of one row; 1.3 MB, so the result comes
    # through shared memory, written a row at a time.
    x = rng.standard_normal((60, 2700))
    ch = ((9, 1, 13, 37), (700, 1300, 700))
    t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)
    for depth in (2, {0: 3, 1: 0}, {0: 0, 1: 5}):
        got = mt.map_overlap(_f, t, depth=depth, boundary=boundary).execute().fetch()
        _same(got, da.map_overlap(_f, d, depth=depth, boundary=boundary).compute())
    g = lambda b: b + 1  # noqa: E731
    _same(mt.map_overlap(g, t, depth=2, boundary=boundary, trim=False).execute().fetch(),
          da.map_overlap(g, d, depth=2, boundary=boundary, trim=False).compute())


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
def test_long_rows_dtypes_and_3d(dtype):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((5, 6, 1500)) * 100).astype(dtype)
    ch = ((2, 3), (4, 2), (1100, 400))
    t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)
    depth = {0: 1, 1: 2, 2: 4}
    got = mt.map_overlap(_f, t, depth=depth, boundary="reflect").execute().fetch()
    _same(got, da.map_overlap(_f, d, depth=depth, boundary="reflect").compute())
    # The sum where it is computed, as the benchmark takes it (summed in
    # another order than NumPy's: equal within rounding).
    want = da.map_overlap(_f, d, depth=depth, boundary="periodic").compute()
    _same(mt.map_overlap(_f, t, depth=depth, boundary="periodic").execute().fetch(), want)
    s = mt.map_overlap(_f, t, depth=depth, boundary="periodic").sum().execute().fetch()
    assert np.isclose(s, want.sum(), rtol=1e-4 if dtype == "float32" else 1e-12, atol=0)
