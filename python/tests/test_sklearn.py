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


@pytest.mark.parametrize("n, d, classes, chunks", [(300, 5, 3, None), (257, 7, 4, 50), (64, 3, 2, 7)])
def test_lda(session, n, d, classes, chunks):
    X, y = _data(n, d, classes, seed=n)
    want = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    # scikit-learn 1.2 reads data-dependent lengths (the classes' count) as
    # numbers: resolve_shapes() computes them when read
    with sklearn.config_context(array_api_dispatch=True), mt.resolve_shapes():
        lda = LinearDiscriminantAnalysis(solver="svd").fit(mt.asarray(X, chunks=chunks), mt.asarray(y, chunks=chunks))
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
