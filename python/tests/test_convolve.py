"""numpy.convolve and numpy.correlate through phobos.tensor's generated
stubs, against NumPy, over chunkings that split the longer operand."""

import numpy as np
import pytest

import phobos.tensor as mt


@pytest.mark.parametrize("fn", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("na,nv,chunks", [(50, 7, 8), (7, 50, 3), (1, 1, 1), (31, 30, 4)])
def test_matches_numpy(fn, mode, na, nv, chunks):
    rng = np.random.default_rng(na * 100 + nv)
    a = rng.standard_normal(na) + 1j * rng.standard_normal(na)
    v = rng.standard_normal(nv)
    got = getattr(mt, fn)(mt.tensor(a, chunks=chunks), v, mode=mode).execute().fetch()
    np.testing.assert_allclose(got, getattr(np, fn)(a, v, mode=mode), rtol=1e-12, atol=1e-12)


def test_defaults_and_dispatch():
    a, v = np.arange(10.0), np.array([1.0, -2.0, 0.5])
    t = mt.tensor(a, chunks=3)
    np.testing.assert_array_equal(mt.convolve(t, v).execute().fetch(), np.convolve(a, v))
    np.testing.assert_array_equal(mt.correlate(t, v).execute().fetch(), np.correlate(a, v))
    # NumPy's own function on a tensor runs on the cluster.
    assert isinstance(np.convolve(t, v, mode="same"), mt.Tensor)


def test_refusals():
    with pytest.raises(ValueError, match="mode"):
        mt.convolve(mt.tensor(np.ones(4)), np.ones(2), mode="middle").execute()
    with pytest.raises(ValueError, match="empty"):
        mt.convolve(mt.tensor(np.ones(4)), np.ones(0)).execute()
    with pytest.raises(ValueError, match="one-dimensional"):
        mt.correlate(mt.tensor(np.ones((2, 2))), np.ones(2)).execute()


def test_zero_d_operands():
    # numpy.convolve reads a 0-d operand as one element; numpy.correlate refuses it.
    v = np.arange(1.0, 6.0)
    np.testing.assert_array_equal(mt.convolve(3.0, mt.tensor(v, chunks=2)).execute().fetch(), np.convolve(3.0, v))
    np.testing.assert_array_equal(mt.convolve(mt.tensor(v, chunks=2), mt.tensor(np.float64(2.0)), mode="same").execute().fetch(),
                                  np.convolve(v, 2.0, mode="same"))
    with pytest.raises(ValueError, match="one-dimensional"):
        mt.correlate(mt.tensor(np.float64(2.0)), v).execute()
