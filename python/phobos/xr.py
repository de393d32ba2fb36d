"""Zarr stores of xarray Datasets whose data stays on the cluster.

    import phobos.xr
    phobos.xr.to_zarr(ds, "/data/run.zarr")   # the workers write each tensor's chunks
    ds = phobos.xr.open_zarr("/data/run.zarr")  # data variables are tensors read by the workers

xarray's own Dataset.to_zarr hands each tensor to zarr-python, which needs
NumPy buffers, and xr.open_zarr gives NumPy or Dask data. Here xarray
writes and reads what lives in the client (the coordinates, the
attributes, the dimension names) and the cluster writes and reads the data
variables (mt.to_zarr, mt.from_zarr), so the workers must see the store's
directory (under their --data-root). The store is a plain xarray Zarr
store (format 2, consolidated): xr.open_zarr reads it, and open_zarr reads
one xarray wrote."""

import json
import os

import numpy as np

from . import session as _session
from . import tensor as mt


def _xr():
    import xarray
    return xarray


def to_zarr(ds, path, chunks=None):
    """Writes the Dataset (or DataArray) ds as a Zarr store at path, which
    must not exist: its tensor data variables by the workers, chunk by
    chunk (stored chunks: chunks, a mapping of dimension names to lengths,
    a dimension it does not name whole; default about 16 MiB each),
    everything else (coordinates, NumPy variables, attributes) by xarray.
    Nothing of a tensor is fetched."""
    xr = _xr()
    if isinstance(ds, xr.DataArray):
        ds = ds.to_dataset(name=ds.name if ds.name is not None else "__xarray_dataarray_variable__")
    path = os.path.abspath(os.fspath(path))
    if os.path.exists(path):
        raise FileExistsError(f"phobos: {path} exists; to_zarr writes a new store")
    on_cluster = [k for k, v in ds.data_vars.items() if isinstance(v.data, mt.Tensor)]
    # xarray writes the client's part: coordinates, attributes, NumPy variables
    ds.drop_vars(on_cluster).to_zarr(path, mode="w-", consolidated=False)
    sinks = [mt.to_zarr(ds[k].data, os.path.join(path, k),
                        chunks=None if chunks is None else [chunks.get(d, -1) for d in ds[k].dims])
             for k in on_cluster]
    if sinks:
        _session.execute(*sinks)  # one graph: the variables share their inputs
    import zarr
    for k in on_cluster:
        d = os.path.join(path, k)
        # every stored chunk is written, so no fill value is needed; one of
        # 0 would read back as missing through xarray's masking
        meta_path = os.path.join(d, ".zarray")
        with open(meta_path) as f:
            meta = json.load(f)
        meta["fill_value"] = None
        with open(meta_path, "w") as f:
            json.dump(meta, f)
        attrs = dict(ds[k].attrs)
        attrs["_ARRAY_DIMENSIONS"] = list(ds[k].dims)
        with open(os.path.join(d, ".zattrs"), "w") as f:
            json.dump(attrs, f, default=_json_default)
    zarr.consolidate_metadata(path)


def _json_default(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    raise TypeError(f"phobos: attribute value {v!r} is not JSON")


def open_zarr(path, chunks=None):
    """The Zarr store at path as a Dataset whose numeric data variables are
    tensors the workers read chunk by chunk (mt.from_zarr; chunks as
    there, default the stored ones); coordinates and attributes as xarray
    reads them. A variable xarray decodes with _FillValue, scale_factor or
    add_offset gets the same decoding on the cluster; one with other
    encodings (times, strings) stays as xarray reads it."""
    xr = _xr()
    path = os.path.abspath(os.fspath(path))
    ds = xr.open_zarr(path, chunks=None)
    out = {}
    for k, v in ds.data_vars.items():
        enc = v.encoding
        raw_dtype = np.dtype(enc.get("dtype", v.dtype))
        if raw_dtype.kind not in "biufc" or "units" in enc or "calendar" in enc:
            continue
        t = mt.from_zarr(os.path.join(path, k), chunks=chunks)
        fill = enc.get("_FillValue")
        if fill is not None and not (isinstance(fill, float) and np.isnan(fill)):
            t = mt.where(t == fill, np.nan, t.astype(v.dtype))
        elif t.dtype != v.dtype:
            t = t.astype(v.dtype)
        if "scale_factor" in enc:
            t = t * enc["scale_factor"]
        if "add_offset" in enc:
            t = t + enc["add_offset"]
        if t.dtype != v.dtype:
            t = t.astype(v.dtype)
        out[k] = v.copy(data=t)
    return ds.assign(out)
