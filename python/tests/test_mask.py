"""Boolean masks and the selections whose length is known only once
computed (shape None there), against NumPy, over several chunkings."""

import numpy as np
import pytest

import phobos.tensor as mt

rng = np.random.default_rng(9)
X = rng.standard_normal((13, 7))
CHUNKS = [(1, 1), (4, 3), (13, 7), (100, 100), None]


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_mask_and_reductions(session, chunks):
    x = mt.tensor(X, chunks=chunks)
    sel = x[x > 0.3]
    assert sel.shape == (None,) and sel.size is None
    s, m, v = sel.sum(), sel.mean(), (sel * 2 + 1).var(ddof=1)
    session.execute(sel, s, m, v)
    want = X[X > 0.3]
    np.testing.assert_array_equal(sel.fetch(), want)
    assert sel.shape == want.shape
    np.testing.assert_allclose(s.fetch(), want.sum(), rtol=1e-12)
    np.testing.assert_allclose(m.fetch(), want.mean(), rtol=1e-12)
    np.testing.assert_allclose(v.fetch(), (want * 2 + 1).var(ddof=1), rtol=1e-12)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_masks_on_axes(session, chunks):
    x = mt.tensor(X, chunks=chunks)
    cols = X[0] > 0
    rows = np.arange(13) % 3 == 0
    np.testing.assert_array_equal(x[:, cols].fetch(), X[:, cols])
    np.testing.assert_array_equal(x[rows].fetch(), X[rows])
    np.testing.assert_array_equal(x[list(rows)].fetch(), X[list(rows)])
    np.testing.assert_array_equal(x[2, cols].fetch(), X[2, cols])
    np.testing.assert_array_equal(x[x > 10].fetch(), X[X > 10])  # selects nothing
    np.testing.assert_array_equal(mt.compress(cols, x, axis=1).fetch(), np.compress(cols, X, axis=1))
    np.testing.assert_array_equal(mt.extract(X > 0, x).fetch(), np.extract(X > 0, X))


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_nonzero_family(session, chunks):
    x = mt.tensor(X, chunks=chunks)
    for got, want in zip(mt.nonzero(x > 0.5), np.nonzero(X > 0.5)):
        np.testing.assert_array_equal(got.fetch(), want)
    for got, want in zip(mt.where(x > 0.5), np.where(X > 0.5)):
        np.testing.assert_array_equal(got.fetch(), want)
    np.testing.assert_array_equal(mt.argwhere(x < -1).fetch(), np.argwhere(X < -1))
    np.testing.assert_array_equal(mt.flatnonzero(x > 1).fetch(), np.flatnonzero(X > 1))
    np.testing.assert_array_equal(np.nonzero(x > 1)[1].fetch(), np.nonzero(X > 1)[1])  # NumPy dispatch


def test_unknown_length_needs_compute(session):
    sel = mt.tensor(X)[mt.tensor(X) > 0]
    with pytest.raises(ValueError, match="unknown length"):
        sel.reshape(2, -1)
    with pytest.raises(TypeError, match="execute"):
        len(sel)
    with pytest.raises(IndexError, match="boolean index did not match"):
        mt.tensor(X)[np.ones(5, bool)]
    with pytest.raises(IndexError, match="boolean mask combined with other array indices"):
        mt.tensor(X)[X[:, 0] > 0, [0, 1]]
    sel.execute()
    assert len(sel) == (X > 0).sum()


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_take_and_integer_indexing(session, chunks):
    x = mt.tensor(X, chunks=chunks)
    rows = np.array([3, -1, 0, 3, 12, -13])
    cols = np.array([[1, 6], [-7, 2]], dtype=np.int32)
    np.testing.assert_array_equal(x[rows].fetch(), X[rows])
    np.testing.assert_array_equal(x[:, cols].fetch(), X[:, cols])
    np.testing.assert_array_equal(x[2:9, [0, 0, 5]].fetch(), X[2:9, [0, 0, 5]])
    np.testing.assert_array_equal(mt.take(x, cols, axis=1).fetch(), np.take(X, cols, axis=1))
    np.testing.assert_array_equal(x.take(mt.tensor(rows)).fetch(), X.take(rows))
    np.testing.assert_array_equal(np.take(x, [5, 1]).fetch(), np.take(X, [5, 1]))  # NumPy dispatch
    pos = mt.flatnonzero(x > 0.5)
    np.testing.assert_array_equal(x.ravel()[pos].fetch(), X.ravel()[np.flatnonzero(X > 0.5)])


def test_take_out_of_range(session):
    with pytest.raises(Exception, match="index 13 is out of bounds for axis 0 with size 13"):
        mt.tensor(X, chunks=(4, 3))[[0, 13]].fetch()
    with pytest.raises(IndexError, match="integer"):
        mt.tensor(X)[np.array([0.5])]


@pytest.mark.parametrize("chunks", [1, 7, 40, 1000], ids=str)
def test_sort(session, chunks):
    a = rng.standard_normal(1000)
    a[::50] = np.nan
    np.testing.assert_array_equal(mt.sort(mt.tensor(a, chunks=chunks)).fetch(), np.sort(a))
    np.testing.assert_array_equal(np.sort(mt.tensor(X, chunks=(5, 3)), axis=0).fetch(), np.sort(X, axis=0))
    np.testing.assert_array_equal(mt.sort(mt.tensor(X), axis=None).fetch(), np.sort(X, axis=None))


def test_search_unique_isin(session):
    a = np.sort(rng.integers(-20, 20, 300))
    v = rng.integers(-25, 25, (4, 5))
    ta = mt.tensor(a, chunks=37)
    np.testing.assert_array_equal(mt.searchsorted(ta, v).fetch(), np.searchsorted(a, v))
    np.testing.assert_array_equal(mt.searchsorted(ta, v, side="right").fetch(), np.searchsorted(a, v, side="right"))
    u = mt.unique(mt.tensor(v, chunks=2))
    assert u.shape == (None,)
    np.testing.assert_array_equal(u.fetch(), np.unique(v))
    np.testing.assert_array_equal(mt.isin(mt.tensor(v), a[:50]).fetch(), np.isin(v, a[:50]))
    np.testing.assert_array_equal(mt.isin(mt.tensor(v), a[:50], invert=True).fetch(), np.isin(v, a[:50], invert=True))
    np.testing.assert_array_equal(np.in1d(mt.tensor(v), a).fetch(), np.in1d(v, a))


def test_topk(session):
    a = rng.standard_normal((6, 50))
    v, i = mt.topk(mt.tensor(a, chunks=(4, 7)), 5, return_index=True)
    np.testing.assert_array_equal(v.fetch(), -np.sort(-a, axis=1)[:, :5])
    np.testing.assert_array_equal(i.fetch(), np.argsort(-a, axis=1, kind="stable")[:, :5])
    np.testing.assert_array_equal(mt.topk(mt.tensor(a), 2, axis=0, largest=False).fetch(), np.sort(a, axis=0)[:2])
