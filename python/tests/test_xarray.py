"""xarray (Debian's 2023.01) over Phobos tensors: each operation on a
Phobos-backed DataArray or Dataset stays a lazy tensor (nothing fetched
while it is built) and, computed, equals the same operation on the
NumPy-backed one. Over chunkings with odd sizes, single elements along
time and one chunk larger than the array. The climatology (monthly means
of 10 years of daily data by groupby("time.month"), and the anomalies)
fetches its results and nothing more. What cannot stay lazy warns."""

import warnings

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pd = pytest.importorskip("pandas")

import phobos.tensor as mt  # noqa: E402
from phobos.tensor import ComputeWarning  # noqa: E402

CHUNKS = [(7, 4, 5), (1, 6, 5), (100, 100, 100)]
rng = np.random.default_rng(2301)


@pytest.fixture
def fetched(session):
    """The byte counts of the results fetched from the cluster, while the
    test runs."""
    got = []
    orig = session._take_result  # every result's value, inline or fetched

    def counting(res, *rest):
        v = orig(res, *rest)
        got.append(v.nbytes)
        return v
    session._take_result = counting
    yield got
    session.__dict__.pop("_take_result", None)


def cube(shape=(40, 6, 5), nan=True):
    a = rng.standard_normal(shape)
    if nan:
        a[3, 2, 1] = np.nan
        a[10, :, 0] = np.nan
    return a


def coords(shape):
    return {"time": pd.date_range("2000-01-01", periods=shape[0], freq="D"),
            "lat": np.linspace(-60, 60, shape[1]), "lon": np.arange(shape[2]) * 10.0}


def pair(a, chunks):
    """The NumPy-backed DataArray of a and the Phobos-backed one."""
    c = coords(a.shape)
    dims = ("time", "lat", "lon")
    return (xr.DataArray(a, dims=dims, coords=c, name="v"),
            xr.DataArray(mt.asarray(a, chunks=chunks), dims=dims, coords=c, name="v"))


def values(obj):
    if isinstance(obj, xr.Dataset):
        return {k: np.asarray(v.values) for k, v in obj.data_vars.items()}
    return np.asarray(obj.values)


def same(got, want):
    """got equals want: dims, coordinates and values (NaNs where NumPy has them)."""
    assert type(got) is type(want)
    if isinstance(want, xr.Dataset):
        assert set(got.data_vars) == set(want.data_vars)
        for k in want.data_vars:
            same(got[k], want[k])
        return
    assert got.dims == want.dims and got.shape == want.shape
    for k in want.coords:
        np.testing.assert_array_equal(got[k].values, want[k].values)
    g, w = values(got), values(want)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True)


def lazy(obj):
    """Every data variable of obj is a Phobos tensor (not computed)."""
    arrays = [v.data for v in obj.data_vars.values()] if isinstance(obj, xr.Dataset) else [obj.data]
    return all(isinstance(d, mt.Tensor) for d in arrays)


WEEKDAY = xr.DataArray(np.arange(5.0), dims="lon")
OPS = {
    "mean over time": lambda d: d.mean("time"),
    "sum (skipna)": lambda d: d.sum(),
    "sum skipna=False": lambda d: d.sum(["lat", "lon"], skipna=False),
    "sum min_count": lambda d: d.sum("time", min_count=35),
    "std over lat": lambda d: d.std("lat"),
    "var ddof=1": lambda d: d.var("time", ddof=1),
    "max": lambda d: d.max("lon"),
    "min": lambda d: d.min(),
    "median": lambda d: d.median("time"),
    "count": lambda d: d.count("time"),
    "quantile": lambda d: d.quantile(0.25, dim="time"),
    "quantiles over 2 dims": lambda d: d.quantile([0.1, 0.9], dim=["time", "lon"]),
    "prod": lambda d: d.prod("lon"),
    "argmax": lambda d: d.fillna(0).argmax("time"),
    "cumsum": lambda d: d.cumsum("time"),
    "any": lambda d: (d > 1).any("time"),
    "where": lambda d: d.where(d > 0),
    "where other": lambda d: d.where(d > 0, -1.0),
    "xr.where": lambda d: xr.where(d > 0, d, 0.0),
    "fillna": lambda d: d.fillna(0.5),
    "isnull": lambda d: d.isnull(),
    "notnull": lambda d: d.notnull(),
    "concat along time": lambda d: xr.concat([d, d + 1], "time"),
    "concat new dim": lambda d: xr.concat([d, d * 2], "run"),
    "isel": lambda d: d.isel(time=slice(2, 19, 3), lat=[0, 3, 1]),
    "isel points": lambda d: d.isel(time=xr.DataArray([1, 3, 7], dims="p"), lat=xr.DataArray([0, 2, 5], dims="p")),
    "sel": lambda d: d.sel(lat=d.lat[2]),
    "sel time slice": lambda d: d.sel(time=slice("2000-01-05", "2000-01-20")),
    "anomaly": lambda d: d - d.mean("time"),
    "broadcast by name": lambda d: d * xr.DataArray(np.arange(5.0), dims="lon") + xr.DataArray(np.ones(6), dims="lat"),
    "transpose": lambda d: d.T,
    "groupby month mean": lambda d: d.groupby("time.month").mean(),
    "groupby weekday sum": lambda d: d.groupby("time.dayofweek").sum(),
    "groupby anomaly": lambda d: d.groupby("time.month") - d.groupby("time.month").mean(),
    "rolling mean": lambda d: d.rolling(time=3).mean(),
    "rolling sum centred": lambda d: d.rolling(time=4, center=True).sum(),
    "rolling min_periods": lambda d: d.rolling(time=3, min_periods=1).mean(),
    "rolling 2-d": lambda d: d.rolling(time=2, lat=3).sum(),
    "coarsen mean": lambda d: d.coarsen(time=4).mean(),
    "coarsen trim": lambda d: d.coarsen(lat=4, lon=2, boundary="trim").sum(),
    "resample 7D": lambda d: d.resample(time="7D").mean(),
    "resample month start": lambda d: d.resample(time="MS").sum(),
    "shift": lambda d: d.shift(time=2),
    "diff": lambda d: d.diff("time"),
    "roll": lambda d: d.roll(lon=2),
    "pad": lambda d: d.pad(time=(1, 2)),
    "round": lambda d: d.round(1),
    "astype": lambda d: d.astype("float32"),
    "clip": lambda d: d.clip(-0.5, 0.5),
    "stack": lambda d: d.stack(z=("lat", "lon")),
    "reduce np.sum": lambda d: d.reduce(np.sum, dim="time"),
    "ufunc": lambda d: np.exp(d) + abs(d),
    "xr.dot": lambda d: xr.dot(d, d + 1, dims="lon"),
    "weighted mean": lambda d: d.fillna(0).weighted(xr.DataArray(np.arange(6.0), dims="lat")).mean("lat"),
    "reindex with a missing label": lambda d: d.reindex(lat=[d.lat.values[0], d.lat.values[2], 99.0]),
    "align outer": lambda d: xr.align(d, d.isel(lat=slice(2, 5)).assign_coords(lat=[3.0, 4.0, 7.0]), join="outer")[1],
    "sortby": lambda d: d.sortby("lat", ascending=False),
    "isin": lambda d: d.round().isin([0.0, 1.0]),
    "combine_first": lambda d: d.isel(lat=slice(0, 3)).combine_first(d),
    "expand_dims": lambda d: d.expand_dims(run=2),
    "drop_sel": lambda d: d.drop_sel(lat=[d.lat.values[1]]),
    "sel nearest": lambda d: d.sel(lat=2.4, method="nearest"),
    "where drop": lambda d: d.where(d.lat > 0, drop=True),
    "integrate": lambda d: d.integrate("lat"),
    "cumulative_integrate": lambda d: d.cumulative_integrate("lon"),
    "broadcast_like": lambda d: d.isel(lat=0).broadcast_like(d),
    "groupby_bins": lambda d: d.groupby_bins("lat", [-60, 0, 60]).mean(),
    "rolling max": lambda d: d.rolling(time=3).max(),
    "rolling std": lambda d: d.rolling(time=5).std(),
    "rolling construct": lambda d: d.rolling(time=3).construct("w").mean("w"),
    "argsort": lambda d: d.fillna(0).argsort(),
    "merge": lambda d: xr.merge([d.rename("a"), (d * 2).rename("b").isel(lon=slice(0, 3))]),
    "dataset mean": lambda d: xr.Dataset({"v": d, "w": d * 2}).mean("time"),
    "dataset groupby": lambda d: xr.Dataset({"v": d, "w": d - 1}).groupby("time.month").mean(),
    "dataset arithmetic": lambda d: xr.Dataset({"v": d}) - xr.Dataset({"v": d}).mean("lat"),
}


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
@pytest.mark.parametrize("op", list(OPS))
def test_op_matches_numpy(fetched, chunks, op):
    want_in, got_in = pair(cube(), chunks)
    f = OPS[op]
    with xr.set_options(use_bottleneck=False), warnings.catch_warnings():
        warnings.simplefilter("error", ComputeWarning)
        got = f(got_in)
        assert lazy(got), op
        assert fetched == [], f"{op} fetched {fetched} while building"
        want = f(want_in)
        same(got, want)


def test_dropna_fetches_only_the_mask_count(fetched):
    want_in, got_in = pair(cube(), (7, 4, 5))
    got = got_in.dropna("time", how="any")
    assert lazy(got)
    # the rows to keep are found on the cluster: one count per time step
    assert sum(fetched) <= got_in.sizes["time"] * 8, fetched
    same(got, want_in.dropna("time", how="any"))


def test_hidden_conversions_warn(session):
    """Operations xarray performs in NumPy (bottleneck's moving windows,
    interpolation) warn that the tensor is fetched whole; asking for the
    values (.values, np.asarray, the repr) does not."""
    want_in, got_in = pair(cube(), (7, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComputeWarning)
        np.asarray(got_in.mean("lat"))
        got_in.std("time").values
        repr(got_in.max("lon"))
    with pytest.warns(ComputeWarning, match="xarray.core.missing"):
        r = got_in.interp(lat=[0.5, 1.5])
    same(r, want_in.interp(lat=[0.5, 1.5]))
    try:
        import bottleneck  # noqa: F401
    except ImportError:
        return
    with xr.set_options(use_bottleneck=True), pytest.warns(ComputeWarning, match="bottleneck"):
        got_in.rolling(time=3).mean()


def test_unsupported_raise(session):
    """idxmax indexes the client's coordinate with the cluster's argmax: it
    raises rather than compute the tensor in the client."""
    _, got_in = pair(cube(), (7, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComputeWarning)
        with pytest.raises(TypeError):
            got_in.fillna(0).idxmax("time")


@pytest.mark.parametrize("sub,shapes", [
    ("...ij,...ij->...i", [(4, 3, 5), (4, 3, 5)]), ("...ij,ij->...", [(4, 3, 5), (3, 5)]),
    ("...j,...j", [(4, 3, 5), (3, 5)]), ("i...,i...->...", [(4, 3, 5), (4, 3, 5)]),
    ("...ab,...b->...a", [(2, 1, 3, 5), (4, 5)]), ("...,...", [(4, 1), (1, 3)]),
])
def test_einsum_ellipsis(session, sub, shapes):
    ops = [rng.standard_normal(s) for s in shapes]
    got = mt.einsum(sub, *[mt.asarray(o, chunks=2) for o in ops])
    want = np.einsum(sub, *ops)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.fetch(), want, rtol=1e-12, atol=1e-12)


def test_climatology(fetched):
    """Monthly means of 10 years of daily (time, lat, lon) data by
    groupby("time.month"), and the anomalies from them, on the cluster:
    the client fetches the climatology and the anomalies' monthly spread,
    nothing else (their bytes exactly)."""
    time = pd.date_range("2000-01-01", "2009-12-31", freq="D")
    shape = (len(time), 8, 12)
    seasonal = 10 * np.sin(2 * np.pi * time.dayofyear.values / 365.25)[:, None, None]
    a = rng.standard_normal(shape) + seasonal
    a[100:110, 2, 3] = np.nan
    c = {"time": time, "lat": np.linspace(-70, 70, 8), "lon": np.arange(12) * 30.0}
    want_in = xr.DataArray(a, dims=("time", "lat", "lon"), coords=c)
    got_in = xr.DataArray(mt.asarray(a, chunks=(365, 8, 12)), dims=("time", "lat", "lon"), coords=c)
    del fetched[:]  # the upload sends data; count only what comes back

    def clim(d):
        return d.groupby("time.month").mean("time")

    def anomalies(d):
        return d.groupby("time.month") - clim(d)

    def spread(d):
        return anomalies(d).groupby("time.month").std("time")

    with warnings.catch_warnings():
        warnings.simplefilter("error", ComputeWarning)
        gc, ga, gs = clim(got_in), anomalies(got_in), spread(got_in)
        assert lazy(gc) and lazy(ga) and lazy(gs)
        assert fetched == []
        same(gc, clim(want_in))
        same(gs, spread(want_in))
    assert sum(fetched) == gc.values.nbytes + gs.values.nbytes == 2 * 12 * 8 * 12 * 8, fetched
    # the anomalies themselves, fetched on their own, are the anomalies' bytes
    del fetched[:]
    same(ga, anomalies(want_in))
    assert sum(fetched) == a.nbytes


def test_dataset_to_zarr_refused(session, tmp_path):
    """Dataset.to_zarr hands each tensor to zarr-python, which needs its
    chunks as NumPy buffers: it raises (a TypeError from zarr's codecs)
    instead of computing the tensors in the client; the values reach a
    Zarr store through np.asarray (the user's explicit fetch) or
    mt.to_zarr (the workers write the chunks)."""
    pytest.importorskip("zarr")
    want_in, got_in = pair(cube(nan=False), (7, 4, 5))
    ds = xr.Dataset({"v": got_in})
    with pytest.raises(TypeError), warnings.catch_warnings():
        warnings.simplefilter("ignore", ComputeWarning)
        ds.to_zarr(tmp_path / "s.zarr")
    fetched = xr.Dataset({"v": xr.DataArray(np.asarray(got_in), dims=got_in.dims, coords=got_in.coords)})
    fetched.to_zarr(tmp_path / "t.zarr")
    back = xr.open_zarr(tmp_path / "t.zarr").load()
    np.testing.assert_array_equal(back["v"].values, want_in.values)


def test_deepcopy_shares_the_node(session):
    """xarray deep-copies variables: a tensor's deep copy is a new handle on
    the same node (its client data is not copied, so not uploaded again),
    and in-place syntax on either leaves the other as it was."""
    import copy
    a = np.arange(12.0).reshape(3, 4)
    x = mt.asarray(a, chunks=2)
    y = copy.deepcopy(x)
    z = copy.copy(x)
    assert y is not x and z is not x and y._data is x._data
    y += 1
    z[0, 0] = -5
    np.testing.assert_array_equal(x.fetch(), a)
    np.testing.assert_array_equal(y.fetch(), a + 1)
    want = a.copy()
    want[0, 0] = -5
    np.testing.assert_array_equal(z.fetch(), want)
    d = xr.DataArray(x, dims=("a", "b"))
    np.testing.assert_array_equal(d.copy(deep=True).values, a)


@pytest.mark.parametrize("n", [5, 1100])
def test_large_gather_in_pieces(session, n):
    """x[idx] with a long client index array (xarray's groupby binary ops
    and sel by label) gathers in pieces of about 8 MiB: several chunks,
    the same value."""
    a = rng.standard_normal((12, 64, 32))
    idx = rng.integers(0, 12, n)
    x = mt.asarray(a)
    g = x[idx]
    np.testing.assert_array_equal(g.fetch(), a[idx])
    row = 64 * 32 * 8
    assert len(g.nsplits[0]) == (1 if n * row <= 8 << 20 else -(-n // ((8 << 20) // row)))
    np.testing.assert_array_equal(x[1:, idx[:3]].fetch(), a[1:, idx[:3]])


def test_phobos_xr_zarr_round_trip(session, fetched):
    """phobos.xr.to_zarr writes a Phobos-backed Dataset as an xarray Zarr
    store, the tensors by the workers (nothing fetched); xr.open_zarr reads
    it equal to the NumPy-backed Dataset, and phobos.xr.open_zarr reads it
    (and a store xarray wrote, with a fill value and a scale) as tensors."""
    import os
    pytest.importorskip("zarr")
    import phobos.xr
    want_in, got_in = pair(cube(), (7, 4, 5))
    want = xr.Dataset({"v": want_in, "m": want_in.mean("lat")}, attrs={"title": "t"})
    got = xr.Dataset({"v": got_in, "m": got_in.mean("lat"), "n": want_in.lat * 2}, attrs={"title": "t"})
    got["v"].attrs["units"] = "K"
    path = os.path.join(session.data_root, "xr.zarr")
    phobos.xr.to_zarr(got, path, chunks={"time": 11, "lat": 4})
    assert fetched == [8, 8]  # each sink's value, the bytes it wrote; no data
    back = xr.open_zarr(path).load()
    assert back.attrs == {"title": "t"} and back["v"].attrs == {"units": "K"}
    assert back["v"].dims == ("time", "lat", "lon") and back["m"].dims == ("time", "lon")
    np.testing.assert_array_equal(back["v"].values, want_in.values)
    np.testing.assert_allclose(back["m"].values, want["m"].values, rtol=1e-12)
    np.testing.assert_array_equal(back["n"].values, want_in.lat.values * 2)
    np.testing.assert_array_equal(back["time"].values, want_in.time.values)
    with pytest.raises(FileExistsError):
        phobos.xr.to_zarr(got, path)
    ours = phobos.xr.open_zarr(path)
    assert lazy(ours[["v", "m"]])
    same(ours["v"].mean("time"), want_in.mean("time"))
    # a store xarray wrote, with an integer encoding (fill value, scale)
    path2 = os.path.join(session.data_root, "xr2.zarr")
    enc = {"v": {"dtype": "int16", "scale_factor": 0.01, "add_offset": 1.0, "_FillValue": -9999}}
    want.to_zarr(path2, encoding=enc)
    theirs = xr.open_zarr(path2).load()
    ours2 = phobos.xr.open_zarr(path2)
    assert isinstance(ours2["v"].data, mt.Tensor)
    got_v = ours2["v"].values
    assert got_v.dtype == theirs["v"].dtype
    np.testing.assert_allclose(got_v, theirs["v"].values, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("chunks", [1, 3, 100, None], ids=str)
def test_duck_numpy_functions(session, chunks):
    """The NumPy functions xarray's duck-array path calls, on tensors through
    __array_function__, against NumPy 1.24 on the same data: each gives a
    tensor (nothing computed in the client)."""
    a = cube((12, 4, 5))
    x = mt.asarray(a, chunks=chunks)
    f32 = mt.asarray(a.astype("float32"), chunks=chunks)
    # result_type: a tensor counts by its dtype; NumPy values as NumPy counts them
    for args, want in [((x, np.asarray(np.nan)), np.float64), ((f32, np.asarray(np.nan)), np.float32),
                       ((f32, x), np.float64), ((mt.asarray(np.int8(1)), np.int16), np.int16),
                       ((f32, 1), np.float32), ((mt.asarray(np.arange(3, dtype="uint8")), -1), np.int16)]:
        assert np.result_type(*args) == want, args
    swv = np.lib.stride_tricks.sliding_window_view
    for shape, axis in [(3, 0), (2, -1), ((2, 3), (0, 2)), ((7, 1, 5), None), (1, 1)]:
        got = swv(x, shape, axis=axis)
        assert isinstance(got, mt.Tensor)
        np.testing.assert_array_equal(got.fetch(), swv(a, shape, axis=axis))
    with pytest.raises(ValueError):
        swv(x, 13, axis=0)
    idx = np.array([4, 0, 6, 6])
    for got, want in [
        (np.take(x, idx, axis=0), np.take(a, idx, axis=0)), (np.concatenate([x, x], axis=1), np.concatenate([a, a], 1)),
        (np.stack([x, x], axis=-1), np.stack([a, a], -1)), (np.where(np.isnan(x), 0.0, x), np.where(np.isnan(a), 0.0, a)),
        (np.nanmean(x, axis=0), np.nanmean(a, axis=0)), (np.nansum(x, axis=(1, 2)), np.nansum(a, axis=(1, 2))),
        (np.nanmax(x, axis=2), np.nanmax(a, axis=2)), (np.nanstd(x, axis=0, ddof=1), np.nanstd(a, axis=0, ddof=1)),
        (np.pad(x, ((1, 2), (0, 0), (3, 0)), constant_values=np.nan),
         np.pad(a, ((1, 2), (0, 0), (3, 0)), constant_values=np.nan)),
        (np.pad(x > 0, ((2, 0), (0, 0), (0, 0)), constant_values=False),
         np.pad(a > 0, ((2, 0), (0, 0), (0, 0)), constant_values=False)),
    ]:
        assert isinstance(got, mt.Tensor)
        g = got.fetch()
        assert g.dtype == want.dtype and g.shape == want.shape
        np.testing.assert_allclose(g, want, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("chunks", [1, 3, None], ids=str)
def test_gradient(session, chunks):
    """np.gradient on a tensor (xarray's differentiate): uniform and
    uneven spacing, both edge orders, one axis or all, against NumPy."""
    a = rng.standard_normal((6, 7, 5))
    c = np.cumsum(rng.random(7) + 0.1)
    x = mt.asarray(a, chunks=chunks)
    for args, kw in [((), {}), ((2.0,), {"axis": 1}), ((c,), {"axis": 1}), ((c,), {"axis": -2, "edge_order": 2}),
                     ((0.5,), {"axis": 0, "edge_order": 2}), ((1.0, c, 2.0), {})]:
        got, want = np.gradient(x, *args, **kw), np.gradient(a, *args, **kw)
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
            assert isinstance(g, mt.Tensor)
            np.testing.assert_allclose(g.fetch(), w, rtol=1e-12, atol=1e-12)
    i = np.arange(12, dtype="int32").reshape(3, 4) ** 2
    check = np.gradient(mt.asarray(i, chunks=chunks), axis=1)
    assert check.dtype == np.float64
    np.testing.assert_allclose(check.fetch(), np.gradient(i, axis=1))
    f32 = a.astype("float32")
    assert np.gradient(mt.asarray(f32), c, axis=1).dtype == np.float32
    with pytest.raises(ValueError):
        np.gradient(mt.asarray(a[:2]), axis=0, edge_order=2)
    d = xr.DataArray(a, dims=("t", "y", "x"), coords={"y": c})
    dm = xr.DataArray(x, dims=("t", "y", "x"), coords={"y": c})
    same(dm.differentiate("y"), d.differentiate("y"))
