"""In-place syntax on immutable tensors: x[key] = v, x += y and NumPy's
in-place functions rebind the tensor handle, against NumPy, over several
chunkings; tensors built before the assignment keep the old value."""

import numpy as np
import pytest

import phobos.tensor as mt

rng = np.random.default_rng(17)
X = rng.standard_normal((9, 7))
XI = rng.integers(-5, 5, (9, 7))
CHUNKS = [(1, 1), (4, 3), (9, 7), (100, 100), None]


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_setitem_like_numpy(session, chunks):
    x, want = mt.tensor(X, chunks=chunks), X.copy()
    before = x * 2  # built before: keeps the old x
    alias = x
    steps = [
        lambda a: a.__setitem__((slice(1, 4), 2), 9.5),
        lambda a: a.__setitem__(a > 1, 0),
        lambda a: a.__setitem__([0, -1, 3], -1.0),
        lambda a: a.__setitem__((slice(None), [1, 5]), X[:, :2] * 3),
        lambda a: a.__setitem__(([1, 2, 2], [0, 6, 6]), [7.0, 8.0, 9.0]),
        lambda a: a.__setitem__((np.array([[0], [8]]), np.array([1, 3])), 4.5),
        lambda a: a.__setitem__(Ellipsis, a * 0.5 if isinstance(a, np.ndarray) else a * 0.5),
    ]
    for step in steps:
        step(want)
        step(x)
        np.testing.assert_array_equal(x.fetch(), want)
    assert alias is x
    np.testing.assert_array_equal(before.fetch(), X * 2)


def test_setitem_errors_and_dtypes(session):
    x = mt.tensor(XI)
    x[0] = 2.7  # cast into the int tensor, as NumPy
    want = XI.copy()
    want[0] = 2.7
    np.testing.assert_array_equal(x.fetch(), want)
    assert x.dtype == np.int64
    with pytest.raises(IndexError):
        x[0, 0, 0] = 1
    with pytest.raises(ValueError, match="broadcast"):
        x[:3] = np.ones(5)
    y = mt.tensor(X)
    y[[0, 99]] = 1.0  # out of range: known only when computed
    with pytest.raises(Exception, match="out of bounds"):
        y.fetch()


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_inplace_operators(session, chunks):
    x, want = mt.tensor(X, chunks=chunks), X.copy()
    alias = x
    x += 1
    x *= X
    x -= 0.25
    x /= 3
    x **= 2
    want += 1
    want *= X
    want -= 0.25
    want /= 3
    want **= 2
    assert alias is x
    np.testing.assert_allclose(alias.fetch(), want, rtol=1e-15)
    i, wi = mt.tensor(XI, chunks=chunks), XI.copy()
    i //= 2
    i <<= 1
    i |= 1
    wi //= 2
    wi <<= 1
    wi |= 1
    np.testing.assert_array_equal(i.fetch(), wi)
    with pytest.raises(TypeError, match="same_kind"):
        i += 1.5  # NumPy refuses float into int in place


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_inplace_functions(session, chunks):
    a, want = mt.tensor(X, chunks=chunks), X.copy()
    m = X > 0.5
    for f, args in [
        (np.put, ([0, 5, -1, 62], [1.0, 2.0])),
        (np.place, (m, [10.0, 20.0, 30.0])),
        (np.putmask, (X < -1, -X)),
        (np.fill_diagonal, (7.0,)),
        (np.copyto, (X[0] * 3,)),
    ]:
        f(want, *args)
        assert f(a, *args) is None
        np.testing.assert_array_equal(a.fetch(), want)
    mt.copyto(a, X, where=m)
    np.copyto(want, X, where=m)
    np.testing.assert_array_equal(a.fetch(), want)
    t = mt.tensor(XI, chunks=chunks)
    with pytest.raises(TypeError, match="safe"):
        mt.putmask(t, XI > 0, X)
    with pytest.raises(TypeError, match="same_kind"):
        mt.copyto(t, X)
    tall = mt.tensor(np.zeros((11, 3)), chunks=chunks)
    wt = np.zeros((11, 3))
    mt.fill_diagonal(tall, [1.0, 2.0], wrap=True)
    np.fill_diagonal(wt, [1.0, 2.0], wrap=True)
    np.testing.assert_array_equal(tall.fetch(), wt)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_several_index_arrays_and_along_axis(session, chunks):
    x = mt.tensor(X, chunks=chunks)
    rows, cols = np.array([0, -1, 4, 4]), np.array([6, 0, -7, 2])
    np.testing.assert_array_equal(x[rows, cols].fetch(), X[rows, cols])
    np.testing.assert_array_equal(x[rows[:, None], cols].fetch(), X[rows[:, None], cols])
    x3 = rng.standard_normal((3, 4, 5))
    t3 = mt.tensor(x3, chunks=(2, 3, 2) if chunks else None)
    i, j = np.array([[0, 2], [1, 1]]), np.array([4, -1])
    np.testing.assert_array_equal(t3[i, :, j].fetch(), x3[i, :, j])
    np.testing.assert_array_equal(t3[:, i, j].fetch(), x3[:, i, j])
    np.testing.assert_array_equal(t3[i, 1, j].fetch(), x3[i, 1, j])
    idx = np.argsort(X, axis=1)
    np.testing.assert_array_equal(np.take_along_axis(x, idx, axis=1).fetch(), np.take_along_axis(X, idx, axis=1))
    np.testing.assert_array_equal(mt.take_along_axis(x, idx[:3], axis=0).fetch(), np.take_along_axis(X, idx[:3], axis=0))
    w = X.copy()
    np.put_along_axis(w, idx[:, :2], -9.0, axis=1)
    np.put_along_axis(x, idx[:, :2], -9.0, axis=1)
    np.testing.assert_array_equal(x.fetch(), w)
    with pytest.raises(IndexError):
        x[rows, np.array([1, 2])]  # shapes (4,) and (2,) do not broadcast
    x = mt.tensor(X, chunks=chunks)  # x above was changed in place
    c = rng.integers(0, 3, (9, 7))
    np.testing.assert_array_equal(mt.choose(c, [X, -X, 2.0]).fetch(), np.choose(c, [X, -X, 2.0]))
    np.testing.assert_array_equal(np.choose(c - 4, [x, -x, 2.0], mode="wrap").fetch(),
                                  np.choose(c - 4, [X, -X, 2.0], mode="wrap"))
    with pytest.raises(Exception, match="invalid entry"):
        mt.choose(c, [X, -X]).fetch()
