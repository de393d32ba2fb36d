"""from_array over an HDF5 dataset written by h5py, reduced on a `phobos
cluster` of 2 workers: the sum equals NumPy's, the data never pass through
the client (its peak RSS is printed), and both workers read.

    PHOBOS_BIN=/tmp/phobos python3 python/benchmarks/from_array_h5.py --rows 16384 --cols 16384   # 2 GiB
"""

import argparse
import json
import os
import resource
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _write(path, rows, cols, conn):
    import h5py
    want = 0.0
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("data/x", shape=(rows, cols), dtype="float64", chunks=(256, cols))
        rng = np.random.default_rng(0)
        for r in range(0, rows, 256):
            blk = rng.standard_normal((min(256, rows - r), cols))
            ds[r:r + blk.shape[0]] = blk
            want += float(blk.sum(dtype=np.float64))
    conn.send(want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--cols", type=int, default=16384)
    ap.add_argument("--chunk-rows", type=int, default=1024)
    a = ap.parse_args()
    import h5py
    import phobos
    import phobos.tensor as mt

    with tempfile.TemporaryDirectory(prefix="phobos-h5-", dir="/var/tmp") as root:
        path = os.path.join(root, "big.h5")
        t0 = time.perf_counter()
        # Written by a child process, so that this one's peak RSS is the
        # computation's alone.
        import multiprocessing as mp
        parent, child = mp.get_context("fork").Pipe()
        p = mp.get_context("fork").Process(target=_write, args=(path, a.rows, a.cols, child))
        p.start()
        want = parent.recv()
        p.join()
        write_s = time.perf_counter() - t0
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        s = phobos.new_session(workers=2, cluster_args=["--data-root", root])
        try:
            with h5py.File(path, "r") as f:
                t = mt.from_array(f["data/x"], chunks=(a.chunk_rows, a.cols))
                t0 = time.perf_counter()
                got = float(t.sum().execute().fetch())
                sum_s = time.perf_counter() - t0
            by_worker = {}
            for w in s._json("GET", "/api/workers")["workers"]:
                page = s._json("GET", f"/api/dashboard/workers/{w['id']}")
                by_worker[w["id"]] = sum(1 for task in page.get("recent", [])
                                         if "user_block" in json.dumps(task))
        finally:
            s.close()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"bytes": a.rows * a.cols * 8, "write_s": write_s, "sum_s": sum_s,
                          "rel_err": abs(got - want) / abs(want), "client_peak_rss_mb": rss,
                          "client_rss_before_mb": rss_before, "user_blocks_per_worker": by_worker}))


if __name__ == "__main__":
    main()
