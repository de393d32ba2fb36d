"""Users' own functions on chunks (map_blocks, map_overlap, blockwise,
map_chunk, apply_gufunc), run by the workers' Python executors, compared
bit for bit with Dask 2022.12 (Debian's python3-dask) on random shapes and
odd chunkings; and their faults and refusals."""

import os

import numpy as np
import pytest

import phobos
import phobos.tensor as mt

da = pytest.importorskip("dask.array")
pytest.importorskip("cloudpickle")


def _chunking(rng, n):
    """Odd chunkings of a length n: single elements, uneven last chunks,
    one chunk larger than the axis."""
    kind = rng.integers(4)
    if n == 0 or kind == 0:
        return (n,)  # one chunk (the array's whole length)
    if kind in (1, 2):
        c = 1 if kind == 1 else int(rng.integers(1, n + 1))
        return (c,) * (n // c) + ((n % c,) if n % c else ())
    cuts = sorted(set(rng.integers(1, n, size=min(3, max(n - 1, 0))).tolist())) if n > 1 else []
    b = [0] + cuts + [n]
    return tuple(b[i + 1] - b[i] for i in range(len(b) - 1))


def _pair(rng, shape, dtype="float64"):
    x = rng.standard_normal(shape).astype(dtype)
    ch = tuple(_chunking(rng, n) for n in shape)
    return x, mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def test_map_blocks_random_vs_dask():
    rng = np.random.default_rng(30)
    for _ in range(6):
        shape = tuple(int(n) for n in rng.integers(0, 9, size=rng.integers(1, 4)))
        if 0 in shape:
            shape = tuple(max(n, 1) for n in shape[:-1]) + (0,)
        x, t, d = _pair(rng, shape)
        f = lambda b: np.sin(b) * 3 + b[..., ::-1]  # noqa: E731
        _same(t.map_blocks(f).execute().fetch(), d.map_blocks(f).compute())
        # Block positions, as Dask hands them.
        g = lambda b, block_id=None: np.full(b.shape, sum(block_id), dtype="int64")  # noqa: E731
        _same(mt.map_blocks(g, t, dtype="int64").execute().fetch(), da.map_blocks(g, d, dtype="int64").compute())


def test_map_blocks_block_info_two_arrays_vs_dask():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((7, 5))
    t, d = mt.tensor(x, chunks=((3, 4), (2, 3))), da.from_array(x, chunks=((3, 4), (2, 3)))
    y = rng.standard_normal((7, 5))
    ty, dy = mt.tensor(y, chunks=((3, 4), (2, 3))), da.from_array(y, chunks=((3, 4), (2, 3)))

    def f(a, b, c, block_info=None):
        lo = block_info[0]["array-location"][0][0] + block_info[None]["chunk-location"][1]
        return a * c + b + lo

    _same(mt.map_blocks(f, t, ty, 2.5, dtype="float64").execute().fetch(),
          da.map_blocks(f, d, dy, 2.5, dtype="float64").compute())
    # Other chunks: both are rechunked to the common refinement (Dask
    # 2022.12 hands such blocks over misaligned when the grids match), and
    # a lower-dimensional array lines up with the last axes.
    tz = mt.tensor(y, chunks=((2, 5), (3, 2)))
    v = rng.standard_normal(5)
    tv = mt.tensor(v, chunks=((1, 4),))
    g = lambda a, b, c: a * 2 - b + c  # noqa: E731
    _same(mt.map_blocks(g, t, tz, tv).execute().fetch(), x * 2 - y + v)


def test_map_blocks_drop_and_new_axis_vs_dask():
    rng = np.random.default_rng(32)
    x, t, d = _pair(rng, (6, 7))
    f = lambda b: b.sum(axis=1)  # noqa: E731
    _same(t.map_blocks(f, drop_axis=1).execute().fetch(), d.map_blocks(f, drop_axis=1).compute())
    g = lambda b: b[:, None, :] * np.arange(3.0)[None, :, None]  # noqa: E731
    _same(t.map_blocks(g, new_axis=1, chunks=(t.nsplits[0], (3,), t.nsplits[1])).execute().fetch(),
          d.map_blocks(g, new_axis=1, chunks=(d.chunks[0], (3,), d.chunks[1])).compute())
    # chunks= of ints: every output block of that length.
    h = lambda b: b[:1]  # noqa: E731
    _same(t.map_blocks(h, chunks=(1, t.nsplits[1])).execute().fetch(),
          d.map_blocks(h, chunks=(1, d.chunks[1])).compute())


def test_map_blocks_dtype_inferred_as_dask():
    rng = np.random.default_rng(33)
    x, t, d = _pair(rng, (5, 4))
    f = lambda b: (b > 0).astype("int32")  # noqa: E731
    got = t.map_blocks(f)
    assert got.dtype == d.map_blocks(f).dtype == np.int32
    _same(got.execute().fetch(), d.map_blocks(f).compute())

    def bad(b):
        raise RuntimeError("only on real data")
    with pytest.raises(ValueError, match="`dtype` inference failed in `map_blocks`"):
        t.map_blocks(bad)


@pytest.mark.parametrize("boundary", ["reflect", "periodic", "nearest", "none", 1.5])
def test_map_overlap_boundaries_vs_dask(boundary):
    rng = np.random.default_rng(34)
    for depth in (1, {0: 2, 1: 0}, {0: 1, 1: 3}):  # the last one deeper than some chunks
        x = rng.standard_normal((9, 8))
        ch = ((3, 1, 5), (2, 4, 2))
        t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)
        f = lambda b: b * 2 - np.roll(b, 1, axis=0) + np.roll(b, -1, axis=1)  # noqa: E731
        got = mt.map_overlap(f, t, depth=depth, boundary=boundary).execute().fetch()
        want = da.map_overlap(f, d, depth=depth, boundary=boundary).compute()
        _same(got, want)
        if depth != 1:
            continue  # Dask 2022.12 fails trim=False once it has rechunked
        # trim=False: the extended blocks themselves.
        g = lambda b: b + 1  # noqa: E731
        _same(mt.map_overlap(g, t, depth=depth, boundary=boundary, trim=False).execute().fetch(),
              da.map_overlap(g, d, depth=depth, boundary=boundary, trim=False).compute())


def test_map_overlap_scipy_filter_equals_whole():
    ndi = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(35)
    x = rng.standard_normal((64, 48))
    t = mt.tensor(x, chunks=(16, 20))
    got = mt.map_overlap(lambda b: ndi.gaussian_filter(b, sigma=1.5), t, depth=7, boundary="reflect").execute().fetch()
    want = ndi.gaussian_filter(x, sigma=1.5)  # scipy's 'reflect' is Dask's
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_map_overlap_refuses_small_chunks_without_rechunk():
    t = mt.ones((10,), chunks=3)
    with pytest.raises(ValueError, match="Overlap depth is larger than smallest chunksize"):
        mt.map_overlap(lambda b: b, t, depth=4, boundary="none", allow_rechunk=False)


def test_blockwise_vs_dask():
    rng = np.random.default_rng(36)
    x, t, d = _pair(rng, (6, 5))
    y = rng.standard_normal((5, 4))
    ty, dy = mt.tensor(y, chunks=(5, 3)), da.from_array(y, chunks=(5, 3))
    # A contracted index (j): the blocks see it whole.
    f = lambda a, b: a @ b  # noqa: E731
    got = mt.blockwise(f, "ik", t, "ij", ty, "jk", dtype="float64").execute().fetch()
    want = da.blockwise(f, "ik", d, "ij", dy, "jk", dtype="float64", concatenate=True).compute()
    _same(got, want)
    g = lambda a: a.T  # noqa: E731
    _same(mt.blockwise(g, "ji", t, "ij", dtype="float64").execute().fetch(),
          da.blockwise(g, "ji", d, "ij", dtype="float64").compute())


def test_apply_gufunc_vs_dask():
    rng = np.random.default_rng(37)
    x = rng.standard_normal((6, 5))
    t, d = mt.tensor(x, chunks=(4, 5)), da.from_array(x, chunks=(4, 5))
    f = lambda a: a.mean(axis=-1)  # noqa: E731
    _same(mt.apply_gufunc(f, "(i)->()", t, output_dtypes="float64").execute().fetch(),
          da.apply_gufunc(f, "(i)->()", d, output_dtypes="float64").compute())
    with pytest.raises(ValueError, match="consists of multiple chunks"):
        mt.apply_gufunc(f, "(i)->()", mt.tensor(x, chunks=(4, 2)), output_dtypes="float64")


def test_map_chunk_mars():
    x = np.arange(12.0).reshape(3, 4)
    t = mt.tensor(x, chunks=2)
    _same(t.map_chunk(lambda c, k: c * k, args=(3,), elementwise=True).execute().fetch(), x * 3)
    got = t.map_chunk(lambda idx, c: np.full(c.shape, idx[0] * 10 + idx[1], dtype="float64"), with_chunk_index=True, dtype="float64")
    _same(got.execute().fetch(), np.array([[0, 0, 1, 1], [0, 0, 1, 1], [10, 10, 11, 11]], dtype="float64"))


def test_user_exception_is_raised_with_its_traceback():
    def parse_band(b):
        raise KeyError("no band " + str(b.shape))

    t = mt.ones((4,), chunks=2)
    with pytest.raises(KeyError) as e:
        t.map_blocks(parse_band, dtype="float64").execute()
    assert "no band (2,)" in str(e.value) and "in parse_band" in str(e.value)

    class Custom(Exception):
        pass

    def raise_custom(b):
        raise Custom("mine")
    # A class the client cannot import by name: PhobosError, with the name.
    with pytest.raises(phobos.PhobosError, match="Custom: mine"):
        t.map_blocks(raise_custom, dtype="float64").execute()


def test_output_mismatch_names_the_op():
    t = mt.ones((4,), chunks=2)
    with pytest.raises(phobos.PhobosError, match=r"user_block\(halve\) returned a block of float32"):
        def halve(b):
            return (b / 2).astype("float32")
        t.map_blocks(halve, dtype="float64").execute()
    with pytest.raises(phobos.PhobosError, match=r"user_block\(lambda\) returned a block of float64 \[1\]"):
        t.map_blocks(lambda b: b[:1], dtype="float64").execute()


def test_executor_death_is_retried(tmp_path):
    marker = str(tmp_path / "died-once")

    def die_once(b):
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(7)
        return b + 1

    t = mt.ones((4,), chunks=4)
    _same(t.map_blocks(die_once, dtype="float64").execute().fetch(), np.full(4, 2.0))

    def always_segfault(b):
        import ctypes
        return ctypes.string_at(0)
    with pytest.raises(phobos.PhobosError, match="executor running it died \\(killed by signal segmentation fault\\)"):
        t.map_blocks(always_segfault, dtype="float64").execute()


def test_time_limit_and_refusal():
    """Clusters of their own (not the default session's): a time limit of
    2 s, and one that refuses users' code."""
    def hang(b):
        import time
        time.sleep(3600)
    t = mt.ones((2,), chunks=2)
    s = phobos.new_session(workers=1, cluster_args=["--user-code-timeout", "2s"], default=False)
    try:
        with pytest.raises(phobos.PhobosError, match="time limit of 2s"):
            t.map_blocks(hang, dtype="float64").execute(session=s)
        _same(t.map_blocks(lambda b: b * 3, dtype="float64").execute(session=s).fetch(), np.full(2, 3.0))
    finally:
        s.close()
    s = phobos.new_session(workers=1, cluster_args=["--allow-user-code=false"], default=False)
    try:
        with pytest.raises(phobos.PhobosError, match="--allow-user-code"):
            t.map_blocks(lambda b: b, dtype="float64").execute(session=s)
    finally:
        s.close()


def test_from_array_h5py_and_store(session, tmp_path):
    h5py = pytest.importorskip("h5py")
    rng = np.random.default_rng(38)
    x = rng.standard_normal((37, 11))
    path = os.path.join(session.data_root, "from_array.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("grp/x", data=x)
    with h5py.File(path, "r") as f:
        t = mt.from_array(f["grp/x"], chunks=(10, 4))
        assert t.shape == (37, 11) and t.nsplits == ((10, 10, 10, 7), (4, 4, 3))
        _same(t.execute().fetch(), x)
        _same((t * 2).sum(axis=0).execute().fetch(), (x * 2).sum(axis=0))
    # A file outside the workers' data roots is refused, naming the flag.
    outside = str(tmp_path / "outside.h5")
    with h5py.File(outside, "w") as f:
        f.create_dataset("x", data=x)
    with h5py.File(outside, "r") as f:
        with pytest.raises(PermissionError, match="--data-root"):
            mt.from_array(f["x"], chunks=10).execute()
    # Any sliceable object that pickles.
    _same(mt.from_array(x.tolist() and np.asarray(x), chunks=5).execute().fetch(), x)
    # store into a Zarr array the workers write.
    zarr = pytest.importorskip("zarr")
    target = zarr.open(os.path.join(session.data_root, "stored.zarr"), mode="w", shape=x.shape, chunks=(10, 4),
                       dtype="float64")
    mt.tensor(x, chunks=(10, 4)).store(target)
    _same(target[...], x)


def test_vectorize_as_numpy():
    x = np.arange(10.0) - 4.5
    t = mt.tensor(x, chunks=3)

    @mt.vectorize
    def clip_step(v):
        return 0.0 if v < 0 else v * 2

    _same(clip_step(t).execute().fetch(), np.vectorize(lambda v: 0.0 if v < 0 else v * 2)(x))
    m = np.arange(12.0).reshape(4, 3)
    norm = mt.vectorize(lambda row: np.sqrt((row ** 2).sum()), signature="(n)->()", otypes=["float64"])
    _same(norm(mt.tensor(m, chunks=(2, 3))).execute().fetch(), np.sqrt((m ** 2).sum(axis=1)))
