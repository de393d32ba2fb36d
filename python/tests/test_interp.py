"""numpy.interp through phobos.tensor's generated stub, against NumPy."""

import numpy as np
import pytest

import phobos.tensor as mt


@pytest.mark.parametrize("chunks", [1, 7, 1000])
def test_matches_numpy(chunks):
    rng = np.random.default_rng(chunks)
    x = rng.uniform(-2, 12, size=(9, 11))
    xp = np.sort(rng.uniform(0, 10, size=25))
    fp = rng.standard_normal(25)
    t = mt.tensor(x, chunks=chunks)
    np.testing.assert_array_equal(mt.interp(t, xp, fp).execute().fetch(), np.interp(x, xp, fp))
    np.testing.assert_array_equal(mt.interp(t, xp, fp, left=-5.0, right=5.0).execute().fetch(),
                                  np.interp(x, xp, fp, left=-5.0, right=5.0))
    np.testing.assert_array_equal(mt.interp(t, xp, fp, period=3.0).execute().fetch(),
                                  np.interp(x, xp, fp, period=3.0))


def test_dispatch_and_refusals():
    t = mt.tensor(np.linspace(0, 1, 10), chunks=3)
    assert isinstance(np.interp(t, [0.0, 1.0], [1.0, 2.0]), mt.Tensor)
    with pytest.raises(ValueError, match="period"):
        mt.interp(t, [0.0, 1.0], [1.0, 2.0], period=0).execute()
    with pytest.raises(ValueError, match="same length"):
        mt.interp(t, [0.0, 1.0], [1.0]).execute()
