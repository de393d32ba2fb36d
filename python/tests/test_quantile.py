"""mt.median, quantile, percentile and their nan- forms against NumPy,
exactly, over chunkings that keep lanes whole, split them (radix select)
and split many of them (rechunked whole)."""

import numpy as np
import pytest

import phobos.tensor as mt

rng = np.random.default_rng(13)
X = rng.standard_normal((12, 30))
XN = X.copy()
XN[::3, 5] = np.nan
XN[4] = np.nan
INTS = rng.integers(-20, 20, size=(7, 9))
F32 = rng.standard_normal(41).astype(np.float32)
CHUNKS = [1, 4, (12, 7), 100]
METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]


def same(got, want):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_median(session, chunks):
    a = mt.tensor(X, chunks=chunks)
    same(mt.median(a).fetch(), np.median(X))
    same(mt.median(a, axis=1).fetch(), np.median(X, axis=1))
    same(mt.median(a, axis=0, keepdims=True).fetch(), np.median(X, axis=0, keepdims=True))
    same(np.median(a).fetch(), np.median(X))  # NumPy's function dispatches to phobos


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_nan_forms(session, chunks):
    a = mt.tensor(XN, chunks=chunks)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanmedian(XN, axis=1)
    same(mt.nanmedian(a, axis=1).fetch(), want)
    same(mt.median(a, axis=0).fetch(), np.median(XN, axis=0))
    same(mt.nanquantile(a, [0.1, 0.5], axis=(0, 1)).fetch(), np.nanquantile(XN, [0.1, 0.5], axis=(0, 1)))
    same(mt.nanpercentile(a, 75, method="hazen").fetch(), np.nanpercentile(XN, 75, method="hazen"))


@pytest.mark.parametrize("method", METHODS)
def test_methods(session, method):
    for data, chunks in ((X, 5), (INTS, 2), (F32, 6)):
        a = mt.tensor(data, chunks=chunks)
        q = [0, 0.13, 0.5, 0.77, 1]
        same(mt.quantile(a, q, method=method).fetch(), np.quantile(data, q, method=method))
        same(mt.percentile(a, 40, axis=-1, method=method).fetch(), np.percentile(data, 40, axis=-1, method=method))


def test_errors(session):
    a = mt.tensor(X, chunks=5)
    with pytest.raises(ValueError, match="1.5"):
        mt.quantile(a, 1.5)
    with pytest.raises(ValueError, match="101"):
        mt.percentile(a, [50, 101])
    with pytest.raises(ValueError, match="cubic"):
        mt.quantile(a, 0.5, method="cubic")
    with pytest.raises(TypeError, match="method"):
        mt.quantile(a, 0.5, interpolation="lower")
    with pytest.raises(np.AxisError):
        mt.median(a, axis=2)
