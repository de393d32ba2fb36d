"""scikit-learn on Phobos tensors through the Python Array API:
LinearDiscriminantAnalysis(solver="svd") under array_api_dispatch fits and
predicts as it does on NumPy arrays."""

import numpy as np
import pytest

import phobos.tensor as mt

sklearn = pytest.importorskip("sklearn", reason="apt-get install python3-sklearn")
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402


def _data(n, d, classes, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    X = rng.standard_normal((n, d)) + y[:, None] * rng.uniform(0.2, 1.0, d)
    return X, y


def _count_fetches(session):
    """The sizes in bytes of the results the client fetches from now on."""
    sizes = []
    orig = session._take_result

    def take(res, *rest):
        v = orig(res, *rest)
        sizes.append(v.nbytes)
        return v
    session._take_result = take
    return sizes


@pytest.fixture
def session(session):
    yield session
    session.__dict__.pop("_take_result", None)  # undo _count_fetches


@pytest.mark.parametrize("n, d, classes, chunks", [(300, 5, 3, None), (257, 7, 4, 50), (64, 3, 2, 7)])
def test_lda(session, n, d, classes, chunks):
    X, y = _data(n, d, classes, seed=n)
    want = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    # scikit-learn 1.2 reads data-dependent lengths (the classes' count) as
    # numbers: under its array_api_dispatch they are computed when read,
    # with no change to the user's code
    fetched = _count_fetches(session)
    with sklearn.config_context(array_api_dispatch=True):
        lda = LinearDiscriminantAnalysis(solver="svd").fit(mt.asarray(X, chunks=chunks), mt.asarray(y, chunks=chunks))
        # the fit computes on the cluster: what comes back are lengths,
        # counts and ranks, and the small results a rank is read from (a
        # d x d Vᵀ, the classes' means), never the data or a class's rows
        assert fetched and max(fetched) <= 8 * d * max(d, classes), fetched
        got = lda.predict(mt.asarray(X, chunks=chunks))
        proba = lda.predict_proba(mt.asarray(X, chunks=chunks))
    assert isinstance(lda.coef_, mt.Tensor)
    np.testing.assert_array_equal(np.asarray(got), want.predict(X))
    np.testing.assert_allclose(np.asarray(lda.coef_), want.coef_, rtol=1e-10, atol=0)
    np.testing.assert_allclose(np.asarray(lda.intercept_), want.intercept_, rtol=1e-10, atol=0)
    # the scalings are singular vectors: each column's sign is the SVD's choice
    np.testing.assert_allclose(np.abs(np.asarray(lda.scalings_)), np.abs(want.scalings_), rtol=1e-10, atol=0)
    np.testing.assert_allclose(np.asarray(proba), want.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_resolve_shapes(session):
    x = mt.asarray(np.array([3, 1, 3, 2]))
    u = mt.unique_values(x)
    assert u.shape == (None,)
    with mt.resolve_shapes():
        v = mt.unique_values(x)
        assert v.shape == (3,)
        w = mt.concat([v, v])  # built on v's value: concat needs the length
        assert w.shape == (6,)
    np.testing.assert_array_equal(w.fetch(), [1, 2, 3, 1, 2, 3])
    assert mt.unique_values(x).shape == (None,)


def test_shapes_resolve_under_array_api_dispatch(session):
    """Natural scikit-learn code: inside array_api_dispatch a length known
    only once computed is computed when read; a mask's selection keeps its
    data on the cluster (only its count is fetched)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((200, 4))
    y = rng.integers(0, 3, 200)
    Xt, yt = mt.asarray(X, chunks=(64, 4)), mt.asarray(y, chunks=64)
    assert mt.unique_values(yt).shape == (None,)
    with sklearn.config_context(array_api_dispatch=True):
        assert mt.unique_values(yt).shape[0] == 3
        rows = Xt[yt == 1]
        fetched = _count_fetches(session)
        assert rows.shape == (int(np.sum(y == 1)), 4)
        assert fetched == [8]  # the count alone
        c = mt.concat([rows - mt.mean(rows, axis=0), Xt[yt == 2]], axis=0)
        assert c.shape == (int(np.sum(y != 0)), 4)
        with mt.resolve_shapes(False):
            assert Xt[yt == 0].shape == (None, 4)
    want = np.concatenate([X[y == 1] - X[y == 1].mean(axis=0), X[y == 2]])
    np.testing.assert_allclose(c.fetch(), want, rtol=1e-12)
    assert Xt[yt == 0].shape == (None, 4)


@pytest.mark.parametrize("key", ["mask", "mask2d", "mask_then_slice", "empty"])
def test_resolved_selection_matches_numpy(session, key):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((6, 5, 4))
    x = mt.asarray(a, chunks=(2, 5, 4))
    with mt.resolve_shapes():
        if key == "mask":
            m = a[:, 0, 0] > 0
            got, want = x[mt.asarray(m)], a[m]
        elif key == "mask2d":
            m = a[:, :, 0] > 0
            got, want = x[mt.asarray(m)], a[m]
        elif key == "mask_then_slice":
            m = a[:, :, 1] > 0
            got, want = x[mt.asarray(m), 1:3], a[m, 1:3]
        else:
            m = a[:, 0, 0] > 10
            got, want = x[mt.asarray(m)], a[m]
        assert got.shape == want.shape
    np.testing.assert_array_equal(got.fetch(), want)
