"""The statistics functions (phobos/tensor/_stats.py, the cluster's nan
reductions, average, cov, corrcoef, bincount, digitize and histograms)
against NumPy, over several chunkings."""

import warnings

import numpy as np
import pytest

import phobos
import phobos.tensor as mt

CHUNKS = (1, 3, 1000, None)
rng = np.random.default_rng(13)
F = rng.standard_normal((5, 7))
FN = F.copy()
FN[1, 2] = FN[3, :] = np.nan  # a NaN, and an all-NaN row
FN[:, 4] = np.nan  # an all-NaN column
FN[0, 0], FN[2, 6] = np.inf, -np.inf
FA = F.copy()
FA[1, 2] = FA[0, 5] = np.nan  # NaN, but no all-NaN slice
I = rng.integers(-9, 9, (5, 7)).astype(np.int32)
X = rng.standard_normal(200)
XN = X.copy()
XN[::17] = np.nan
K = rng.integers(0, 12, 90)
W = rng.random(90)
OBS = rng.standard_normal((3, 20))

CASES = {
    "nansum": ((FN,), lambda xp, a: xp.nansum(a, axis=0)),
    "nansum-f32": ((FN.astype(np.float32),), lambda xp, a: xp.nansum(a, axis=1, keepdims=True)),
    "nanprod": ((FN,), lambda xp, a: xp.nanprod(a, axis=1)),
    "nanmin": ((FN,), lambda xp, a: xp.nanmin(a, axis=1)),
    "nanmax-all": ((FN,), lambda xp, a: xp.nanmax(a)),
    "nanmean": ((FN,), lambda xp, a: xp.nanmean(a, axis=0)),
    "nanmean-dtype": ((FN,), lambda xp, a: xp.nanmean(a, axis=1, dtype=np.float32)),
    "nanvar-ddof2": ((FN,), lambda xp, a: xp.nanvar(a, axis=1, ddof=2)),
    "nanstd-int": ((I,), lambda xp, a: xp.nanstd(a, axis=(0, 1))),
    "nanargmin": ((FA,), lambda xp, a: xp.nanargmin(a, axis=0)),
    "nanargmax": ((FA,), lambda xp, a: xp.nanargmax(a)),
    "nanargmax-keep": ((FA,), lambda xp, a: xp.nanargmax(a, axis=1, keepdims=True)),
    "nanargmin-all-rows": ((FN,), lambda xp, a: xp.nanargmin(a)),
    "nancumsum-flat": ((FN,), lambda xp, a: xp.nancumsum(a)),
    "nancumprod-axis0": ((FA,), lambda xp, a: xp.nancumprod(a, axis=0)),
    "ptp-keep": ((I,), lambda xp, a: xp.ptp(a, axis=1, keepdims=True)),
    "ptp-method": ((F,), lambda xp, a: a.ptp(axis=0)),
    "average-returned": ((F, np.arange(1.0, 8.0)), lambda xp, a, w: xp.average(a, axis=1, weights=w, returned=True)),
    "average-plain-returned": ((I,), lambda xp, a: xp.average(a, axis=0, returned=True)),
    "average-keepdims": ((F, np.abs(F)), lambda xp, a, w: xp.average(a, axis=0, weights=w, keepdims=True)),
    "cov": ((OBS,), lambda xp, m: xp.cov(m)),
    "cov-rowvar": ((OBS.T,), lambda xp, m: xp.cov(m, rowvar=False, bias=True)),
    "cov-y": ((OBS, OBS[:2] ** 2), lambda xp, m, y: xp.cov(m, y, ddof=3)),
    "cov-fweights": ((OBS, np.arange(20) % 4), lambda xp, m, f: xp.cov(m, fweights=f)),
    "cov-aweights": ((OBS, np.linspace(0.5, 2, 20)), lambda xp, m, a: xp.cov(m, aweights=a, ddof=2)),
    "cov-both": ((OBS, np.arange(20) % 3 + 1, np.linspace(0.5, 2, 20)),
                 lambda xp, m, f, a: xp.cov(m, fweights=f, aweights=a)),
    "cov-1d": ((X,), lambda xp, m: xp.cov(m)),
    "cov-f32": ((OBS.astype(np.float32),), lambda xp, m: xp.cov(m, dtype=np.float32)),
    "corrcoef": ((OBS,), lambda xp, m: xp.corrcoef(m)),
    "corrcoef-y": ((OBS, OBS[:1] * 3 + 1), lambda xp, m, y: xp.corrcoef(m, y)),
    "corrcoef-rowvar": ((OBS.T,), lambda xp, m: xp.corrcoef(m, rowvar=False)),
    "bincount": ((K,), lambda xp, x: xp.bincount(x)),
    "bincount-minlength": ((K,), lambda xp, x: xp.bincount(x, minlength=20)),
    "bincount-weights": ((K, W), lambda xp, x, w: xp.bincount(x, weights=w)),
    "digitize": ((XN,), lambda xp, x: xp.digitize(x, [-1.5, -0.5, 0, 0.5, 1.5])),
    "digitize-right-dec": ((XN,), lambda xp, x: xp.digitize(x, [1.5, 0.5, 0, -0.5, -1.5], right=True)),
    "digitize-int": ((I,), lambda xp, x: xp.digitize(x, [-5, 0, 0, 5])),
    "histogram": ((X,), lambda xp, x: xp.histogram(x)),
    "histogram-bins": ((F,), lambda xp, x: xp.histogram(x, bins=4, range=(-1, 1))),
    "histogram-edges": ((X,), lambda xp, x: xp.histogram(x, bins=[-3, -1, 0, 0.5, 3])),
    "histogram-weights-density": ((X, np.abs(X)), lambda xp, x, w: xp.histogram(x, bins=6, weights=w, density=True)),
    "histogram-nan-range": ((XN,), lambda xp, x: xp.histogram(x, bins=5, range=(-2, 2))),
    "histogram-int": ((K,), lambda xp, x: xp.histogram(x, bins=5)),
    "histogram-sturges": ((X,), lambda xp, x: xp.histogram(x, bins="sturges")),
    "histogram-sqrt-range": ((X,), lambda xp, x: xp.histogram(x, bins="sqrt", range=(-1, 2))),
    "histogram-rice": ((K,), lambda xp, x: xp.histogram(x, bins="rice")),
    "histogram-scott": ((X,), lambda xp, x: xp.histogram(x, bins="scott")),
    "histogram-doane": ((X,), lambda xp, x: xp.histogram(x, bins="doane")),
    "histogram_bin_edges": ((X,), lambda xp, x: xp.histogram_bin_edges(x, bins=7)),
    "histogram_bin_edges-rule": ((F,), lambda xp, x: xp.histogram_bin_edges(x, bins="sturges", range=(-1, 1))),
    "histogram-fd": ((X,), lambda xp, x: xp.histogram(x, bins="fd")),
    "histogram-auto": ((K,), lambda xp, x: xp.histogram(x, bins="auto")),
    "histogram_bin_edges-auto-range": ((XN,), lambda xp, x: xp.histogram_bin_edges(x, bins="auto", range=(-2, 2))),
}


def check(got, want):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-10 if want.dtype == np.float64 else 1e-5, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_stats(session, name):
    inputs, f = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(np, *inputs)
    outs = []
    for c in CHUNKS:
        outs.append(f(mt, *[mt.tensor(x, chunks=c) for x in inputs]))
    flat = []
    for o in outs:
        flat += list(o) if isinstance(o, (list, tuple)) else [o]
    session.execute(*flat)
    for o in outs:
        if isinstance(want, (list, tuple)):
            assert len(o) == len(want)
            for g, w in zip(o, want):
                check(g.fetch(), w)
        else:
            check(o.fetch(), want)


def test_numpy_dispatch(session):
    t = mt.tensor(FN, chunks=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(np.nanmean(t, axis=0).fetch(), np.nanmean(FN, axis=0))
        check(np.nanargmax(mt.tensor(FA, chunks=3)).fetch(), np.nanargmax(FA))
    h, e = np.histogram(mt.tensor(X, chunks=7), bins=5)
    wh, we = np.histogram(X, bins=5)
    check(h.fetch(), wh)
    check(e.fetch(), we)


@pytest.mark.parametrize("f", [
    lambda xp: xp.bincount(np.array([1, -2, 3])),
    lambda xp: xp.bincount(np.array([1.0, 2.0])),
    lambda xp: xp.bincount(np.array([[1, 2]])),
    lambda xp: xp.bincount(np.array([1, 2]), minlength=-1),
    lambda xp: xp.bincount(np.array([1, 2]), weights=np.ones(3)),
    lambda xp: xp.digitize(np.array([1.0]), [0, 2, 1]),
    lambda xp: xp.histogram(np.array([1.0, 2.0]), bins=[0, 2, 1]),
    lambda xp: xp.histogram(np.array([1.0, 2.0]), bins=0),
    lambda xp: xp.histogram(np.array([1.0, 2.0]), range=(2, 1)),
    lambda xp: xp.histogram(np.array([1.0, 2.0]), weights=np.ones(3)),
    lambda xp: xp.histogram(np.array([1.0, 2.0]), bins="nope"),
    lambda xp: xp.histogram(np.array([1.0, 2.0]), bins="sturges", weights=np.ones(2)),
    lambda xp: xp.average(np.ones((2, 3)), weights=np.ones(3)),
    lambda xp: xp.average(np.ones((2, 3)), axis=0, weights=np.ones(3)),
    lambda xp: xp.cov(np.ones((2, 3)), fweights=np.ones(4, dtype=int)),
    lambda xp: xp.cov(np.ones((2, 3)), fweights=np.full(3, 0.5)),
    lambda xp: xp.cov(np.ones((2, 3)), aweights=-np.ones(3)),
    lambda xp: xp.cov(np.ones((2, 3)), aweights=np.ones((3, 1))),
    lambda xp: xp.cov(np.ones((2, 3, 4))),
    lambda xp: xp.nanargmin(np.ones((2, 3)), axis=(0, 1)),
], ids=lambda f: "")
def test_errors_as_numpy(session, f):
    """A mistake NumPy refuses when the call is made raises the same
    exception class here, before anything runs."""
    with pytest.raises(Exception) as np_err:
        f(np)
    with pytest.raises(type(np_err.value)):
        f(mt).execute()


def test_data_errors_when_run(session):
    """Mistakes visible only in the data fail the computation."""
    with pytest.raises(phobos.PhobosError, match="All-NaN slice"):
        mt.nanargmin(mt.tensor(FN, chunks=2), axis=1).execute()
    with pytest.raises(phobos.PhobosError, match="monotonically"):
        mt.digitize(mt.tensor(X), mt.tensor(np.array([0.0, 2.0, 1.0]))).execute()
    with pytest.raises(phobos.PhobosError, match="not finite"):
        mt.histogram(mt.tensor(XN, chunks=30), bins=4)[0].execute()


def test_bincount_length_from_the_data(session):
    """bincount's length is max+1 (or minlength), found by one execution."""
    x = mt.tensor(K, chunks=13)
    got = mt.bincount(x)
    assert got.shape == (int(K.max()) + 1,)
    check(got.fetch(), np.bincount(K))
