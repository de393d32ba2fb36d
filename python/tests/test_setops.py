"""argsort, partition, argpartition, unique's extras and the set operations
against NumPy, over several chunkings, with duplicates, NaNs and empties."""

import numpy as np
import pytest

import phobos.tensor as mt

rng = np.random.default_rng(14)
D = rng.integers(-5, 5, 61).astype(np.float64)
D[[3, 17, 40]] = np.nan
D[[5, 9]] = [0.0, -0.0]
E = rng.integers(0, 9, 23)
CHUNKS = [1, 7, 100, None]


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_argsort(session, chunks):
    x = mt.tensor(D, chunks=chunks)
    np.testing.assert_array_equal(mt.argsort(x).fetch(), np.argsort(D, kind="stable"))
    np.testing.assert_array_equal(np.argsort(x, kind="stable").fetch(), np.argsort(D, kind="stable"))
    m = mt.tensor(D[:60].reshape(6, 10), chunks=chunks)
    np.testing.assert_array_equal(mt.argsort(m, axis=0).fetch(), np.argsort(D[:60].reshape(6, 10), axis=0, kind="stable"))
    np.testing.assert_array_equal(mt.argsort(m, axis=None).fetch(), np.argsort(D[:60], kind="stable"))
    with pytest.raises(ValueError):
        mt.argsort(x, kind="bogus")


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_partition(session, chunks):
    x = mt.tensor(E, chunks=chunks)
    kth = [2, -1, 11]
    p, ap = mt.partition(x, kth), mt.argpartition(x, 4)
    session.execute(p, ap)
    got = p.fetch()
    np.testing.assert_array_equal(got[kth], np.partition(E, kth)[kth])
    for k in kth:
        assert (got[:k % 23] <= got[k]).all() and (got[k % 23 + 1:] >= got[k]).all()
    assert E[ap.fetch()][4] == np.sort(E)[4]
    with pytest.raises(ValueError):
        mt.partition(x, 23)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_unique_extras(session, chunks):
    x = mt.tensor(D, chunks=chunks)
    got = mt.unique(x, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(D, return_index=True, return_inverse=True, return_counts=True)
    assert len(got) == 4
    session.execute(*got)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.fetch(), w)
    v, c = mt.unique(mt.tensor(E, chunks=chunks), return_counts=True)
    np.testing.assert_array_equal(c.fetch(), np.unique(E, return_counts=True)[1])
    v, i = np.unique(mt.tensor(E[:0], chunks=chunks), return_index=True)
    assert v.fetch().shape == (0,) and i.fetch().dtype == np.int64


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_set_operations(session, chunks):
    a, b = mt.tensor(D, chunks=chunks), mt.tensor(E, chunks=chunks)
    for f in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        np.testing.assert_array_equal(getattr(mt, f)(a, b).fetch(), getattr(np, f)(D, E), err_msg=f)
        np.testing.assert_array_equal(getattr(np, f)(b, a).fetch(), getattr(np, f)(E, D), err_msg=f)
    u = np.unique(E)
    ut = mt.tensor(u, chunks=chunks)
    for f in ("intersect1d", "setdiff1d", "setxor1d"):
        want = getattr(np, f)(u, u[::2] + 1, assume_unique=True)
        got = getattr(mt, f)(ut, u[::2] + 1, assume_unique=True)
        np.testing.assert_array_equal(got.fetch(), want, err_msg=f)
    np.testing.assert_array_equal(mt.setxor1d(a, a).fetch(), np.setxor1d(D, D))
    np.testing.assert_array_equal(mt.intersect1d(a, E[:0]).fetch(), np.intersect1d(D, E[:0]))


def test_methods(session):
    x = mt.tensor(E, chunks=5)
    np.testing.assert_array_equal(x.argsort().fetch(), E.argsort(kind="stable"))
    assert E[x.argpartition(6).fetch()][6] == np.sort(E)[6]
