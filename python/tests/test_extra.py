"""Compositions of the cluster's functions that NumPy programs call: metadata functions, geomspace,
msort, ix_, diag_indices, vander, the window functions, lexsort, trim_zeros and resize, against NumPy."""

import numpy as np
import pytest

import phobos.tensor as mt

rng = np.random.default_rng(21)
X = rng.standard_normal((7, 5))


def test_metadata(session):
    t = mt.tensor(X, chunks=3)
    assert mt.ndim(t) == 2 and mt.shape(t) == (7, 5) and mt.size(t) == 35 and mt.size(t, 1) == 5
    assert np.ndim(t) == 2 and np.shape(t) == (7, 5)


@pytest.mark.parametrize("args", [(1, 1000, 4), (1, 256, 9, False), (-1000, -1, 5), (2.5, 7.1, 1), (3, 5, 0)], ids=str)
def test_geomspace(session, args):
    np.testing.assert_allclose(mt.geomspace(*args).fetch(), np.geomspace(*args), rtol=1e-14)
    if len(args) == 3 and args[2] > 1:
        got = mt.geomspace(*args).fetch()
        assert got[0] == args[0] and got[-1] == args[1]


def test_msort_ix_diag_indices(session):
    t = mt.tensor(X, chunks=(2, 3))
    np.testing.assert_array_equal(mt.msort(t).fetch(), np.sort(X, axis=0))
    for a, b in zip(mt.ix_([0, 3, 6], [1, 4]), np.ix_([0, 3, 6], [1, 4])):
        np.testing.assert_array_equal(a.fetch(), b)
    for a, b in zip(mt.diag_indices(4, 3), np.diag_indices(4, 3)):
        np.testing.assert_array_equal(a.fetch(), b)
    sq = np.zeros((3, 3))
    for a, b in zip(mt.diag_indices_from(mt.tensor(sq)), np.diag_indices_from(sq)):
        np.testing.assert_array_equal(a.fetch(), b)
    with pytest.raises(ValueError):
        mt.diag_indices_from(t)


@pytest.mark.parametrize("n, inc", [(None, False), (3, True), (6, False)], ids=str)
def test_vander(session, n, inc):
    x = np.array([1.5, -2.0, 3.0, 0.5])
    np.testing.assert_allclose(mt.vander(x, n, increasing=inc).fetch(), np.vander(x, n, increasing=inc), rtol=1e-14)
    xi = np.array([2, -3, 4])
    np.testing.assert_array_equal(mt.vander(xi, n, increasing=inc).fetch(), np.vander(xi, n, increasing=inc))


@pytest.mark.parametrize("m", [0, 1, 2, 5, 12, 51])
@pytest.mark.parametrize("name", ["hanning", "hamming", "blackman", "bartlett"])
def test_windows(session, name, m):
    np.testing.assert_allclose(getattr(mt, name)(m).fetch(), getattr(np, name)(m), rtol=1e-14, atol=1e-16)


def test_lexsort(session):
    a = rng.integers(0, 3, 40)
    b = rng.integers(0, 4, 40)
    c = rng.standard_normal(40)
    np.testing.assert_array_equal(mt.lexsort((mt.tensor(c, chunks=7), mt.tensor(b, chunks=9), a)).fetch(), np.lexsort((c, b, a)))
    np.testing.assert_array_equal(np.lexsort((mt.tensor(b, chunks=7), mt.tensor(a, chunks=9))).fetch(), np.lexsort((b, a)))


@pytest.mark.parametrize("trim", ["fb", "f", "b"])
def test_trim_zeros(session, trim):
    f = np.array([0, 0, 3, 0, 2, 0, 0])
    np.testing.assert_array_equal(mt.trim_zeros(mt.tensor(f, chunks=2), trim).fetch(), np.trim_zeros(f, trim))
    z = np.zeros(4)
    np.testing.assert_array_equal(mt.trim_zeros(mt.tensor(z), trim).fetch(), np.trim_zeros(z, trim))


@pytest.mark.parametrize("shape", [(3, 4), 11, (2, 0), (12,)], ids=str)
def test_resize(session, shape):
    a = np.arange(5.0)
    np.testing.assert_array_equal(mt.resize(mt.tensor(a, chunks=2), shape).fetch(), np.resize(a, shape))
