# Writes Zarr v2 stores with zarr-python (Debian's python3-zarr) for the Go
# reader to check: every compressor, C and F order, every Phobos dtype, odd
# chunkings, missing chunks, both dimension separators, both byte orders.
# Each store <name>.zarr has <name>.npy beside it with the expected array.
import sys, os, json
import numpy as np
import zarr
from numcodecs import Blosc, Zlib, GZip, Zstd

out = sys.argv[1]
rng = np.random.default_rng(7)
comps = {
    "none": None,
    "zlib": Zlib(level=3),
    "gzip": GZip(level=5),
    "zstd": Zstd(level=3),
    "blosc-lz4-shuffle": Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE),
    "blosc-lz4-noshuffle": Blosc(cname="lz4", clevel=5, shuffle=Blosc.NOSHUFFLE),
    "blosc-lz4hc-bitshuffle": Blosc(cname="lz4hc", clevel=5, shuffle=Blosc.BITSHUFFLE),
    "blosc-zstd-shuffle": Blosc(cname="zstd", clevel=3, shuffle=Blosc.SHUFFLE),
    "blosc-zlib-bitshuffle": Blosc(cname="zlib", clevel=3, shuffle=Blosc.BITSHUFFLE),
    "blosc-zstd-bitshuffle-big": Blosc(cname="zstd", clevel=1, shuffle=Blosc.BITSHUFFLE, blocksize=4096),
}
dtypes = ["<f8", ">f8", "<f4", "<i8", ">i4", "|b1", "<c8", "<c16", ">c16"]
cases = []
def data(dt, shape):
    if dt == "|b1":
        return rng.random(shape) > 0.5
    if dt[1] == "i":
        return rng.integers(-1000, 1000, shape).astype(dt)
    if dt[1] == "c":
        return (rng.standard_normal(shape) * 100 + 1j * rng.standard_normal(shape)).astype(dt)
    return (rng.standard_normal(shape) * 100).astype(dt)

n = 0
for cname, comp in comps.items():
    for dt in dtypes:
        for order in ["C", "F"]:
            for shape, chunks in [((37, 23), (10, 7)), ((5, 4, 9), (5, 4, 9)), ((100,), (1000,)), ((6, 5), (1, 1)), ((0, 4), (3, 3)), ((300, 70), (64, 33))]:
                if cname != "none" and shape == (6, 5) and dt != "<f8":
                    continue  # single-element chunks: once per compressor
                name = f"c{n}"
                n += 1
                a = data(dt, shape)
                sep = "/" if n % 3 == 0 else "."
                z = zarr.open(os.path.join(out, name + ".zarr"), mode="w", shape=shape, chunks=chunks, dtype=dt,
                              compressor=comp, order=order, dimension_separator=sep, fill_value=0)
                z[...] = a
                np.save(os.path.join(out, name + ".npy"), np.asarray(a).astype(np.dtype(dt).newbyteorder("=")))
                cases.append({"name": name, "desc": f"{cname} {dt} {order} {shape} chunks {chunks} sep {sep!r}"})
# Missing chunks read as fill_value, NaN included.
for fill, dt in [(np.nan, "<f8"), (-7, "<i4"), (2.5, "<f4"), (True, "|b1"), (1.5 - 2j, "<c16"), (complex(np.nan, 1), "<c8")]:
    name = f"c{n}"
    n += 1
    z = zarr.open(os.path.join(out, name + ".zarr"), mode="w", shape=(20, 10), chunks=(6, 4), dtype=dt, fill_value=fill,
                  compressor=Blosc(cname="lz4"))
    a = np.full((20, 10), fill, dtype=dt)
    a[7:13, 2:7] = data(dt, (6, 5))
    z[7:13, 2:7] = a[7:13, 2:7]
    np.save(os.path.join(out, name + ".npy"), a)
    cases.append({"name": name, "desc": f"missing chunks fill {fill!r} {dt}"})
json.dump(cases, open(os.path.join(out, "cases.json"), "w"))
