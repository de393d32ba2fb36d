"""The climatology of docs/xarray.md, timed in one run on a Phobos cluster
and on xarray over Dask threaded, with the same data and the same chunks:
monthly means by groupby("time.month") of 10 years of daily (time, lat,
lon) float64 data, the anomalies from them, and the anomalies' monthly
standard deviation; each system fetches the climatology and the spread.

    cd python && /usr/bin/python3 benchmarks/xarray_climatology.py [--lat 32] [--lon 64]
        [--chunk 365] [--workers 1] [--threads 2] [--reps 5]

One worker process (using the machine's cores, as Dask's threads share
one process) is the default; more workers on one machine move the
groups' rows between them. The data is made with NumPy before any timing; Phobos holds it uploaded
(the upload is not timed, as Dask's from_array is not) and Dask wraps it
with from_array in chunks of --chunk days (whole lat and lon). The two
results are checked equal (rtol 1e-10) and the bytes Phobos fetched are
checked to be those of the two results. Prints one JSON line per system:
the median wall seconds of --reps runs and every run."""

import argparse
import json
import os
import statistics
import sys
import time

import dask
import dask.array as da
import numpy as np
import pandas as pd
import xarray as xr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import phobos  # noqa: E402
import phobos.tensor as mt  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--lat", type=int, default=32)
ap.add_argument("--lon", type=int, default=64)
ap.add_argument("--chunk", type=int, default=365)
ap.add_argument("--workers", type=int, default=1)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=5)
args = ap.parse_args()

time_index = pd.date_range("2000-01-01", "2009-12-31", freq="D")
shape = (len(time_index), args.lat, args.lon)
rng = np.random.default_rng(34)
seasonal = 10 * np.sin(2 * np.pi * time_index.dayofyear.values / 365.25)[:, None, None]
a = rng.standard_normal(shape) + seasonal
coords = {"time": time_index, "lat": np.linspace(-80, 80, args.lat), "lon": np.linspace(0, 360, args.lon,
                                                                                        endpoint=False)}
dims = ("time", "lat", "lon")
chunks = (args.chunk, args.lat, args.lon)


def climatology(d):
    clim = d.groupby("time.month").mean("time")
    spread = (d.groupby("time.month") - clim).groupby("time.month").std("time")
    return clim, spread


def timed(run):
    walls, result = [], None
    for _ in range(args.reps):
        t0 = time.perf_counter()
        result = run()
        walls.append(time.perf_counter() - t0)
    return walls, result


def report(system, walls, **extra):
    print(json.dumps({"system": system, "shape": shape, "chunks": chunks, "wall_s": statistics.median(walls),
                      "wall_s_all": walls, "xarray": xr.__version__, "dask": dask.__version__, **extra}),
          flush=True)


# Dask threaded
dd = xr.DataArray(da.from_array(a, chunks=chunks), dims=dims, coords=coords)
with dask.config.set(scheduler="threads", num_workers=args.threads):
    walls, (dc, ds) = timed(lambda: tuple(x.values for x in climatology(dd)))
report("xarray-dask-threads", walls, threads=args.threads)

# Phobos
session = phobos.new_session(workers=args.workers)
try:
    t = mt.asarray(a, chunks=chunks)
    (t + 0).sum().execute()  # the upload, untimed
    fetched = []
    orig = session._fetch_result

    def counting(path):
        v = orig(path)
        fetched.append(v.nbytes)
        return v
    session._fetch_result = counting
    pd_ = xr.DataArray(t, dims=dims, coords=coords)

    def run():
        del fetched[:]
        with xr.set_options(use_bottleneck=False):
            clim, spread = climatology(pd_)
            assert isinstance(clim.data, mt.Tensor) and isinstance(spread.data, mt.Tensor)
            session.execute(clim.data, spread.data)  # one graph for both
            return clim.values, spread.values
    walls, (pc, ps) = timed(run)
    assert sum(fetched) == pc.nbytes + ps.nbytes, fetched
    report("phobos", walls, workers=args.workers, fetched_bytes=sum(fetched))
finally:
    session.close()

np.testing.assert_allclose(pc, dc, rtol=1e-10)
np.testing.assert_allclose(ps, ds, rtol=1e-10)
print(json.dumps({"check": "equal to rtol 1e-10", "result_bytes": pc.nbytes + ps.nbytes, "data_bytes": a.nbytes}))
