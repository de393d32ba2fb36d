import numpy as np

import phobos.tensor as mt


def test_seeds_example():
    # the seeds' example, verbatim after the import line
    a = mt.random.rand(100, chunks=100)
    b = mt.random.rand(100, chunks=100)
    c = (a + b).sum()
    v = c.execute().fetch()
    assert v.shape == () and 0 < v < 200
    assert np.isclose(v, a.fetch().sum() + b.fetch().sum())
