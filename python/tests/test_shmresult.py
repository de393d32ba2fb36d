"""Results handed over in shared memory on the cluster's own host (the
workers copy their chunks into a /dev/shm file the client maps): equal to
NumPy across chunkings and dtypes, and the .npy stream when refused."""

import os

import numpy as np
import pytest

import phobos.tensor as mt
from phobos import _shmresult

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm")


def _leftovers():
    return [f for f in os.listdir("/dev/shm") if f.startswith("phobos-result-")]


@pytest.mark.parametrize("shape,chunks,dtype", [
    ((700, 400), (1, 400), "float64"),       # chunks of one row
    ((700, 400), (333, 150), "float32"),      # uneven last chunks
    ((300, 500), (1000, 1000), "int64"),      # one chunk larger than the array
    ((60, 70, 80), (7, 70, 13), "complex128"),
    ((2_000_000,), (300_001,), "bool"),
])
def test_result_through_shared_memory(shape, chunks, dtype):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    before = _leftovers()
    t = mt.tensor(x, chunks=chunks)
    got = (t * 2).T.execute().fetch()
    want = (x * 2).T
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
    assert isinstance(got.base, np.ndarray) and got.flags.writeable  # the mapped file, writable
    got[(0,) * got.ndim] = 1  # the caller's own
    assert _leftovers() == before  # the file's name is gone once mapped


def test_refused_falls_back_to_npy(monkeypatch):
    x = np.arange(400_000, dtype="float64").reshape(800, 500)
    t = mt.tensor(x, chunks=(100, 500))
    calls = []
    real = _shmresult.fetch

    def refused(session, res):
        calls.append(res["url"])
        res = dict(res, shape=[800, 501])  # the worker refuses a file of the wrong size
        return real(session, res)

    monkeypatch.setattr(_shmresult, "fetch", refused)
    got = (t + 1).execute().fetch()
    assert calls and np.array_equal(got, x + 1)
