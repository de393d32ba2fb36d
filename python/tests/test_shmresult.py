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

    def refused(session, res, pre=None):
        calls.append(res["url"])
        res = dict(res, shape=[800, 501])  # the worker refuses a file of the wrong size
        return real(session, res, pre)

    monkeypatch.setattr(_shmresult, "fetch", refused)
    got = (t + 1).execute().fetch()
    assert calls and np.array_equal(got, x + 1)


@pytest.mark.parametrize("shape,chunks", [
    ((700, 400), (1, 400)),        # chunks of one row
    ((700, 400), (333, 150)),      # uneven last chunks
    ((300, 500), (1000, 1000)),    # one chunk larger than the array
])
def test_result_file_made_before_the_graph(monkeypatch, shape, chunks):
    """The client makes the result's file before it submits the graph and
    names it there (the cluster writes chunks into it as they are
    computed); the fetch uses that file, and its name is gone after."""
    made, used = [], []
    prepare, fetch = _shmresult.prepare, _shmresult.fetch

    def spy_prepare(url, t):
        p = prepare(url, t)
        made.append(p)
        return p

    def spy_fetch(session, res, pre=None):
        used.append(pre)
        return fetch(session, res, pre)

    monkeypatch.setattr(_shmresult, "prepare", spy_prepare)
    monkeypatch.setattr(_shmresult, "fetch", spy_fetch)
    x = np.random.default_rng(1).standard_normal(shape)
    before = _leftovers()
    t = mt.tensor(x, chunks=chunks)
    got = mt.map_overlap(lambda b: b * 2 + 1, t, depth=2, boundary="reflect", dtype="float64").execute().fetch()
    assert np.array_equal(got, x * 2 + 1)
    assert len(made) == 1 and made[0] is not None and used == made
    assert made[0].fd is None and not os.path.exists(made[0].path)
    assert _leftovers() == before


def test_failed_graph_leaves_no_result_file():
    def boom(b):
        raise ValueError("boom")

    x = np.zeros((600, 600))
    before = _leftovers()
    with pytest.raises(Exception, match="boom"):
        mt.tensor(x, chunks=200).map_blocks(boom, dtype="float64").execute()
    assert _leftovers() == before


@pytest.mark.parametrize("into", [["/tmp/phobos-result-x"], ["/dev/shm/other"], ["/dev/shm/phobos-result-a", ""]])
def test_submission_names_only_result_files(into):
    """A submission's "into" names one /dev/shm/phobos-result-* file per
    result, or is refused before anything runs."""
    from phobos.session import get_default_session

    s = get_default_session()
    t = mt.ones((4, 4), chunks=2) + 1
    nodes, roots = t._phobos_program([t], s)
    with pytest.raises(Exception, match="into"):
        s._json("POST", f"/api/sessions/{s.session_id}/programs",
                {"program": {"nodes": nodes}, "results": roots, "into": into}, want=201)


def _held_result_files():
    """The result files whose names are gone that this process holds open
    (Python's mapping keeps a descriptor of its own)."""
    held = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/dev/shm/phobos-result-") and target.endswith(" (deleted)"):
            held.add(target)
    return held


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc")
def test_large_result_file_freed_after_its_last_view():
    """A large result's file is given back (its descriptor closed, off the
    caller's thread) only once no array or view of it is left."""
    import gc

    n = 3000  # 72 MB of float64, above FREE_LATER_BYTES
    assert n * n * 8 >= _shmresult.FREE_LATER_BYTES
    before = _held_result_files()
    got = (mt.ones((n, n), chunks=1000) * 3 + mt.arange(n)).execute().fetch()
    want_row = np.arange(n, dtype="float64") + 3
    assert np.array_equal(got[n - 1], want_row)
    assert len(_held_result_files()) == len(before) + 1
    view = got[10:20]
    del got
    gc.collect()
    assert _shmresult._freer.sync(30)
    assert len(_held_result_files()) == len(before) + 1  # the view still maps it
    assert np.array_equal(view[3], want_row)
    del view
    gc.collect()
    assert _shmresult._freer.sync(30)
    assert _held_result_files() == before


def test_prepared_large_file_is_allocated_ahead(monkeypatch):
    """A large result file made before its graph is allocated by the
    client's thread (the workers' writes then only copy); a small one is
    not; either leaves nothing behind once discarded."""
    monkeypatch.delenv("PHOBOS_NO_PREFAULT", raising=False)
    big = _shmresult.Pending((3000, 3000), "float64", prefault=True)
    small = _shmresult.Pending((300, 300), "float64", prefault=True)
    try:
        assert big.nbytes >= _shmresult.PREFAULT_BYTES > small.nbytes
        big._fill.join()  # the whole allocation, not stopped as a fetch would
        assert os.fstat(big.fd).st_blocks * 512 >= big.nbytes
        assert small._fill is None and os.fstat(small.fd).st_blocks == 0
    finally:
        big.discard()
        small.discard()
    assert not os.path.exists(big.path) and not os.path.exists(small.path)
