"""Users' functions on many small chunks, whose calls a worker hands its
executors in batches: results equal NumPy's and Dask's, and a fault in one
call keeps its meaning (the graph fails with that call's exception; an
executor killed in the middle of a batch is retried; a hang in a batch
hits the time limit)."""

import os
import signal

import numpy as np
import pytest

import phobos
import phobos.tensor as mt

da = pytest.importorskip("dask.array")
pytest.importorskip("cloudpickle")


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("chunks", [1, 3, 7, 1000, 4000])
def test_many_small_blocks_vs_numpy_and_dask(chunks):
    rng = np.random.default_rng(chunks)
    x = rng.standard_normal(2000)
    f = lambda b: np.sin(b) * 3 + b[::-1]  # noqa: E731
    want = da.from_array(x, chunks=chunks).map_blocks(f).compute()
    got = mt.tensor(x, chunks=chunks).map_blocks(f).execute().fetch()
    _same(got, want)
    if chunks >= len(x):
        _same(got, f(x))


def test_small_blocks_2d_with_block_id_vs_dask():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((23, 17))
    ch = ((1,) * 23, (5, 5, 5, 2))
    g = lambda b, block_id=None: b * (1 + block_id[0]) - block_id[1]  # noqa: E731
    _same(mt.tensor(x, chunks=ch).map_blocks(g, dtype="float64").execute().fetch(),
          da.from_array(x, chunks=ch).map_blocks(g, dtype="float64").compute())


def test_two_functions_in_one_graph():
    x = np.arange(3000, dtype="float64")
    t = mt.tensor(x, chunks=2)
    got = (t.map_blocks(lambda b: b * 2) + t.map_blocks(lambda b: b - 1)).execute().fetch()
    _same(got, x * 2 + (x - 1))


def test_one_failing_call_among_many():
    def picky(b):
        if (b == 1234).any():
            raise ValueError("no 1234 here")
        return b + 1

    t = mt.tensor(np.arange(3000, dtype="float64"), chunks=1)
    with pytest.raises(ValueError, match="no 1234 here") as e:
        t.map_blocks(picky).execute()
    assert "in picky" in str(e.value)


def test_executor_killed_mid_batch_is_retried(tmp_path):
    marker = str(tmp_path / "killed-once")

    def die_once(b):
        if (b == 777).any() and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return b * 3

    x = np.arange(2000, dtype="float64")
    _same(mt.tensor(x, chunks=1).map_blocks(die_once).execute().fetch(), x * 3)
    assert os.path.exists(marker)


def test_hang_in_a_batch_hits_the_time_limit():
    def hang_once(b):
        if (b == 150).any():
            import time
            time.sleep(3600)
        return b

    t = mt.tensor(np.arange(400, dtype="float64"), chunks=1)
    s = phobos.new_session(workers=1, cluster_args=["--user-code-timeout", "2s"], default=False)
    try:
        with pytest.raises(phobos.PhobosError, match="time limit of 2s"):
            t.map_blocks(hang_once).execute(session=s)
        x = np.arange(400, dtype="float64")
        _same(mt.tensor(x, chunks=1).map_blocks(lambda b: b * 3).execute(session=s).fetch(), x * 3)
    finally:
        s.close()
