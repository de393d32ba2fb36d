"""Users' functions on a Phobos cluster against Dask threaded and SciPy, in
one run (medians of --reps): scipy.ndimage.gaussian_filter(sigma=4) through
map_overlap over an N x N float64 image in C x C chunks, and map_blocks(lambda
b: b + 1) over many small chunks (time per chunk; also with block_id=, which
makes every chunk op differ).

    PHOBOS_BIN=/tmp/phobos python3 python/benchmarks/userfunc_anchor.py [--n 8192 --chunk 1024]
        [--only filter|overhead]
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def timed(fn, reps):
    ts = []
    out = None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--sigma", type=float, default=4.0)
    ap.add_argument("--blocks", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--only", choices=("filter", "overhead"), help="run one of the two benchmarks")
    a = ap.parse_args()

    import phobos

    s = phobos.new_session(workers=a.workers)
    res = {}
    if a.only != "overhead":
        _filter(a, res)
    if a.only != "filter":
        _overhead(a, res, s)
    res["workers"] = a.workers
    print(json.dumps(res))
    s.close()


def _filter(a, res):
    import dask
    import dask.array as da
    import scipy.ndimage as ndi
    import phobos.tensor as mt

    sigma, n, c = a.sigma, a.n, a.chunk
    depth = int(4 * sigma + 0.5)  # gaussian_filter's own radius (truncate=4)
    filt = lambda b: ndi.gaussian_filter(b, sigma=sigma)  # noqa: E731
    rng = np.random.default_rng(0)
    img = rng.standard_normal((n, n))

    # Computed and reduced where it was computed (a sum of the filtered
    # image): the engines' own work, no 512 MB result handed over.
    res["scipy_whole_sum_s"], _ = timed(lambda: ndi.gaussian_filter(img, sigma=sigma).sum(), a.reps)
    d = da.from_array(img, chunks=c)
    x = mt.tensor(img, chunks=c)
    x.map_blocks(lambda b: b[:1, :1], chunks=(1, 1), dtype="float64").execute()  # upload once, start the executors
    with dask.config.set(scheduler="threads"):
        res["dask_threads_sum_s"], _ = timed(
            lambda: da.map_overlap(filt, d, depth=depth, boundary="reflect", dtype="float64").sum().compute(), a.reps)
    res["phobos_sum_s"], _ = timed(
        lambda: mt.map_overlap(filt, x, depth=depth, boundary="reflect", dtype="float64").sum().execute().fetch(), a.reps)
    # And with the filtered image handed to the client (Phobos's workers
    # copy it into shared memory the client maps; Dask's threads have it
    # in place).
    res["scipy_whole_s"], want = timed(lambda: ndi.gaussian_filter(img, sigma=sigma), a.reps)
    with dask.config.set(scheduler="threads"):
        res["dask_threads_s"], got_d = timed(
            lambda: da.map_overlap(filt, d, depth=depth, boundary="reflect", dtype="float64").compute(), a.reps)
    res["phobos_s"], got_p = timed(
        lambda: mt.map_overlap(filt, x, depth=depth, boundary="reflect", dtype="float64").execute().fetch(), a.reps)
    # The same through the .npy stream (a client on another host).
    from phobos import _shmresult
    usable = _shmresult.usable
    _shmresult.usable = lambda *args: False
    try:
        res["phobos_npy_s"], _ = timed(
            lambda: mt.map_overlap(filt, x, depth=depth, boundary="reflect", dtype="float64").execute().fetch(), a.reps)
    finally:
        _shmresult.usable = usable
    res["phobos_rel_err"] = float(np.max(np.abs(got_p - want)) / np.max(np.abs(want)))
    res["dask_rel_err"] = float(np.max(np.abs(got_d - want)) / np.max(np.abs(want)))
    res["phobos_vs_scipy_sum"] = res["scipy_whole_sum_s"] / res["phobos_sum_s"]
    res["phobos_vs_dask_sum"] = res["dask_threads_sum_s"] / res["phobos_sum_s"]
    res["phobos_vs_scipy"] = res["scipy_whole_s"] / res["phobos_s"]
    res["phobos_vs_dask"] = res["dask_threads_s"] / res["phobos_s"]
    res["n"], res["chunk"] = n, c


def _cpu_s(pids):
    """User plus system CPU seconds of the processes pids (Linux's /proc)."""
    tck = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        total += (int(fields[11]) + int(fields[12])) / tck
    return total


def _phobos_pids(s):
    """The local cluster's process and its children (the executors)."""
    local = getattr(s, "_local", None)
    if local is None or not os.path.isdir("/proc"):
        return []
    root = local.proc.pid
    pids = [root]
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == root:
                        pids.append(int(p))
            except OSError:
                pass
    return pids


def _self_cpu_s():
    t = os.times()
    return t.user + t.system


def _overhead(a, res, s):
    import dask
    import dask.array as da
    import phobos.tensor as mt

    # Per-task overhead: blocks of 8 float64. Beside the wall time (medians),
    # the CPU time per chunk (means over the reps): Dask's process, and
    # Phobos's client, cluster and executors, which on a loaded machine
    # says more than the wall time.
    k = a.blocks
    x = np.arange(8 * k, dtype="float64")
    dx = da.from_array(x, chunks=8)
    with dask.config.set(scheduler="threads"):
        c0 = _self_cpu_s()
        t_d, _ = timed(lambda: dx.map_blocks(lambda b: b + 1).compute(), a.reps)
        res["dask_cpu_us_per_chunk"] = (_self_cpu_s() - c0) / a.reps / k * 1e6
    tx = mt.tensor(x, chunks=8)
    tx.map_blocks(lambda b: b + 1).execute().fetch()  # upload once, start the executors
    pids = _phobos_pids(s)
    c0, p0 = _self_cpu_s(), _cpu_s(pids)
    t_p, got = timed(lambda: tx.map_blocks(lambda b: b + 1).execute().fetch(), a.reps)
    if pids:
        res["phobos_cpu_us_per_chunk"] = (_self_cpu_s() - c0 + _cpu_s(pids) - p0) / a.reps / k * 1e6
    assert np.array_equal(got, x + 1)
    res["map_blocks_chunks"] = k
    res["dask_us_per_chunk"] = t_d / k * 1e6
    res["phobos_us_per_chunk"] = t_p / k * 1e6
    # The same with block_id=: every chunk op differs (its block's
    # position), so equal ops are no longer sent once.
    f_id = lambda b, block_id=None: b + 1  # noqa: E731
    with dask.config.set(scheduler="threads"):
        t_d, _ = timed(lambda: dx.map_blocks(f_id).compute(), a.reps)
    t_p, got = timed(lambda: tx.map_blocks(f_id).execute().fetch(), a.reps)
    assert np.array_equal(got, x + 1)
    res["dask_block_id_us_per_chunk"] = t_d / k * 1e6
    res["phobos_block_id_us_per_chunk"] = t_p / k * 1e6


if __name__ == "__main__":
    main()
