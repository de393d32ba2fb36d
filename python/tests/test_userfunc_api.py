"""What the users'-function API added to issue 30's first part: outputs of
unknown length (Dask's NaN chunks, Mars's map_chunk without elementwise),
compared with Dask 2022.12 (Debian's python3-dask) on random shapes and
odd chunkings (chunks of 1, uneven last chunks, empty axes), bit for bit."""

import math
import os
import sys

import numpy as np
import pytest

import phobos.tensor as mt

da = pytest.importorskip("dask.array")
cloudpickle = pytest.importorskip("cloudpickle")
# The executors cannot import this file: its functions travel by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _chunking(rng, n):
    """Odd chunkings of a length n: single elements, uneven last chunks,
    one chunk (as large as the axis)."""
    kind = rng.integers(4)
    if n == 0 or kind == 0:
        return (n,)
    if kind in (1, 2):
        c = 1 if kind == 1 else int(rng.integers(1, n + 1))
        return (c,) * (n // c) + ((n % c,) if n % c else ())
    cuts = sorted(set(rng.integers(1, n, size=min(3, max(n - 1, 0))).tolist())) if n > 1 else []
    b = [0] + cuts + [n]
    return tuple(b[i + 1] - b[i] for i in range(len(b) - 1))


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def _rows_positive(b):
    """The rows of a block whose first element is positive: a length only
    the data tell, alike across a row of blocks (the key column is whole)."""
    return b[b[:, 0] > 0] if b.ndim == 2 else b[b > 0]


def test_map_blocks_nan_chunks_vs_dask():
    rng = np.random.default_rng(300)
    for trial in range(8):
        nd = 1 + trial % 2
        n = int(rng.integers(0, 13)) if trial != 3 else 0  # one empty axis
        shape = (n,) if nd == 1 else (n, int(rng.integers(1, 5)))
        x = np.round(rng.standard_normal(shape), 3)
        ch = (_chunking(rng, n),) + (((shape[1],),) if nd == 2 else ())
        t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)
        nan = ((math.nan,) * len(ch[0]),) + ch[1:]
        u = t.map_blocks(_rows_positive, chunks=nan, dtype=x.dtype)
        v = d.map_blocks(_rows_positive, chunks=nan, dtype=x.dtype)
        assert u.shape[0] is None and math.isnan(v.shape[0])
        assert u.shape[1:] == v.shape[1:]
        _same(u.sum(axis=0).execute().fetch(), v.sum(axis=0).compute())
        _same(mt.concatenate([u, t]).execute().fetch(), da.concatenate([v, d]).compute())
        _same(u.execute().fetch(), v.compute())
        assert u.shape == v.compute().shape  # known once computed
        # compute_chunk_sizes: the lengths known, the data left on the cluster.
        w = t.map_blocks(_rows_positive, chunks=nan, dtype=x.dtype)
        assert w.compute_chunk_sizes() is w
        v.compute_chunk_sizes()
        assert w.shape == v.shape and w.nsplits == v.chunks
        # (Dask 2022.12 loses a key slicing v now: the value is compared.)
        _same((w[1:] * 2).execute().fetch(), v.compute()[1:] * 2)


def test_map_blocks_nan_scalar_chunks_and_errors():
    x = np.arange(10.0) - 4
    t = mt.tensor(x, chunks=3)
    # chunks=(nan,): every block of unknown length, as Dask takes it.
    _same(t.map_blocks(_rows_positive, chunks=(math.nan,), dtype="float64").execute().fetch(), x[x > 0])
    # A block longer than the input's (the bound Phobos plans with) names the op.
    # Every block is too long (6 for 3, 2 for the last 1): whichever call's
    # error ends the graph first (calls run in batches, on two slots).
    with pytest.raises(Exception, match=r"user_block\(repeat\) returned a block of float64 \[(6|2)\].*at most (3|1)\b"):
        def repeat(b):
            return np.repeat(b, 2)
        t.map_blocks(repeat, chunks=(math.nan,), dtype="float64").execute()
    # Phobos tracks one axis of unknown length.
    m = mt.ones((4, 4), chunks=2)
    with pytest.raises(NotImplementedError, match="more than one axis"):
        m.map_blocks(lambda b: b, chunks=((math.nan,) * 2, (math.nan,) * 2), dtype="float64")
    # Other ops that need the length say so, as Dask does.
    u = t.map_blocks(_rows_positive, chunks=(math.nan,), dtype="float64")
    with pytest.raises(ValueError, match="unknown length"):
        mt.stack([u, u])


def test_map_chunk_unknown_shape_as_mars():
    rng = np.random.default_rng(301)
    x = np.round(rng.standard_normal((9, 3)), 3)
    t = mt.tensor(x, chunks=(2, 3))
    u = t.map_chunk(_rows_positive)
    assert u.shape == (None, 3) and u.dtype == x.dtype
    want = np.concatenate([_rows_positive(x[i:i + 2]) for i in range(0, 9, 2)])
    _same(u.execute().fetch(), want)
    assert u.shape == want.shape
    # elementwise: the input's shape, known.
    e = t.map_chunk(np.negative, elementwise=True)
    assert e.shape == (9, 3)
    _same(e.execute().fetch(), -x)
    with_idx = mt.tensor(np.arange(7.0), chunks=3).map_chunk(lambda idx, c: c[: idx[0] + 1], with_chunk_index=True)
    _same(with_idx.execute().fetch(), np.array([0.0, 3, 4, 6]))


def _stats(a):
    return a.mean(axis=-1), a.std(axis=-1)


@pytest.mark.parametrize("kw", [{}, {"axis": 1}, {"axes": [(0,), (), ()]}, {"keepdims": True},
                                {"axis": 0, "keepdims": True}])
def test_apply_gufunc_several_outputs_vs_dask(kw):
    rng = np.random.default_rng(310)
    for _ in range(3):
        shape = tuple(int(n) for n in rng.integers(1, 7, size=3))
        x = rng.standard_normal(shape)
        core = kw.get("axis", kw.get("axes", [(-1,)])[0])
        core = core[0] if isinstance(core, tuple) else core
        ch = tuple((n,) if ax == core % 3 else _chunking(rng, n) for ax, n in enumerate(shape))
        t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)
        got = mt.apply_gufunc(_stats, "(i)->(),()", t, output_dtypes=["float64", "float64"], **kw)
        want = da.apply_gufunc(_stats, "(i)->(),()", d, output_dtypes=["float64", "float64"], **kw)
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, want):
            assert g.shape == w.shape
            _same(g.execute().fetch(), w.compute())


def test_apply_gufunc_new_core_dims_and_vectorize_vs_dask():
    rng = np.random.default_rng(311)
    x = rng.standard_normal((5, 3, 4))
    ch = ((2, 2, 1), (1, 2), (4,))
    t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)

    def spread(a):
        return np.stack([a, a * 2, a - 1], axis=-1)
    # output_sizes= for the new core dimension k, and axes= for the output's.
    got = mt.apply_gufunc(spread, "(i)->(i,k)", t, output_sizes={"k": 3}, axes=[(2,), (0, 1)])
    want = da.apply_gufunc(spread, "(i)->(i,k)", d, output_sizes={"k": 3}, axes=[(2,), (0, 1)])
    assert got.shape == want.shape
    _same(got.execute().fetch(), want.compute())

    def span(v):
        return v.max() - v.min(), int(v.argmax())
    # vectorize=True, dtypes inferred as Dask infers them.
    got = mt.apply_gufunc(span, "(i)->(),()", t, vectorize=True)
    want = da.apply_gufunc(span, "(i)->(),()", d, vectorize=True)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        _same(g.execute().fetch(), w.compute())
    # Two inputs, loop dimensions broadcast.
    y = rng.standard_normal((3, 4))
    ty, dy = mt.tensor(y, chunks=((1, 2), (4,))), da.from_array(y, chunks=((1, 2), (4,)))
    f = lambda a, b: ((a * b).sum(-1), (a - b).max(-1))  # noqa: E731
    for g, w in zip(mt.apply_gufunc(f, "(i),(i)->(),()", t, ty, output_dtypes=("float64", "float64")),
                    da.apply_gufunc(f, "(i),(i)->(),()", d, dy, output_dtypes=("float64", "float64"))):
        _same(g.execute().fetch(), w.compute())


@pytest.mark.parametrize("call, match", [
    (lambda m, x: m.apply_gufunc(_stats, "(i)->(),()", x, output_dtypes=["float64"]), "of 2 items"),
    (lambda m, x: m.apply_gufunc(_stats, "(i)->(),()", x, axis=0, axes=[(0,)]), "Only one of `axis` or `axes`"),
    (lambda m, x: m.apply_gufunc(_stats, "(i)->(),()", x, axes=(0,)), "`axes` has to be of type list"),
    (lambda m, x: m.apply_gufunc(lambda a: a, "(i)->(i)", x, keepdims=True), "`keepdims` can only be used"),
    (lambda m, x: m.apply_gufunc(lambda a: a, "(i,j)->()", x, axis=0), "`axis` can be used only"),
    (lambda m, x: m.apply_gufunc(_stats, "(i)->(),()", x, axes=[(0,), (1,)]), "number of `axes` entries"),
    (lambda m, x: m.apply_gufunc(_stats, "i->()", x), "Not a valid gufunc signature"),
])
def test_apply_gufunc_errors_as_dask(call, match):
    x = np.ones((4, 3))
    with pytest.raises(ValueError, match=match):
        call(da, da.from_array(x, chunks=(2, 3)))
    with pytest.raises(ValueError, match=match):
        call(mt, mt.tensor(x, chunks=(2, 3)))


def test_xarray_apply_ufunc_parallelized_several_outputs():
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(312)
    x = rng.standard_normal((6, 5))
    a = xr.DataArray(mt.tensor(x, chunks=(2, 5)), dims=("y", "x"))
    b = xr.DataArray(da.from_array(x, chunks=(2, 5)), dims=("y", "x"))
    kw = dict(input_core_dims=[["x"]], output_core_dims=[[], []], dask="parallelized",
              output_dtypes=[float, float])
    got = xr.apply_ufunc(_stats, a, **kw)
    want = xr.apply_ufunc(_stats, b, **kw)
    for g, w in zip(got, want):
        assert isinstance(g.data, mt.Tensor) and g.dims == w.dims == ("y",)
        _same(np.asarray(g.data), w.values)


def _mix(a, b):
    return a * 2 - np.roll(b, 1, axis=0) + np.roll(a, -1, axis=-1) * b


@pytest.mark.parametrize("depth, boundary", [
    (1, "reflect"),
    ([1, 1], ["periodic", "nearest"]),            # per array
    ([{0: 2, 1: 1}] * 2, [1.5, "reflect"]),        # per axis and per array; deeper than some chunks
    ({0: 0, 1: 3}, "none"),
])
def test_map_overlap_several_arrays_vs_dask(depth, boundary):
    rng = np.random.default_rng(320)
    for _ in range(3):
        shape = (int(rng.integers(4, 10)), int(rng.integers(4, 9)))
        x, y = rng.standard_normal(shape), rng.standard_normal(shape)
        ch = tuple(_chunking(rng, n) for n in shape)
        ch2 = tuple(_chunking(rng, n) for n in shape)  # unified as Dask unifies them
        t1, t2 = mt.tensor(x, chunks=ch), mt.tensor(y, chunks=ch2)
        d1, d2 = da.from_array(x, chunks=ch), da.from_array(y, chunks=ch2)
        got = mt.map_overlap(_mix, t1, t2, depth=depth, boundary=boundary).execute().fetch()
        want = da.map_overlap(_mix, d1, d2, depth=depth, boundary=boundary).compute()
        _same(got, want)


def test_map_overlap_broadcast_and_own_depths():
    rng = np.random.default_rng(321)
    x = rng.standard_normal((9, 8))
    v = rng.standard_normal(8)
    t, d = mt.tensor(x, chunks=((4, 5), (3, 5))), da.from_array(x, chunks=((4, 5), (3, 5)))
    tv, dv = mt.tensor(v, chunks=((2, 6),)), da.from_array(v, chunks=((2, 6),))
    # A 1-D array lined up with the last axis (its chunks unified with x's).
    h = lambda a, b: a * b + np.roll(a, 1, axis=0)  # noqa: E731
    _same(mt.map_overlap(h, t, tv, depth=[{0: 1, 1: 0}, 0], boundary="reflect").execute().fetch(),
          da.map_overlap(h, d, dv, depth=[{0: 1, 1: 0}, 0], boundary="reflect").compute())
    # Arrays of their own depths (Dask 2022.12 refuses the blocks' shapes
    # there): each block of y comes with its border, x's without; the
    # output is trimmed as x (the first of the highest rank).
    y = rng.standard_normal((9, 8))
    ty = mt.tensor(y, chunks=((4, 5), (3, 5)))
    got = mt.map_overlap(lambda a, b: a + b[1:-1, 1:-1], t, ty, depth=[0, 1], boundary="reflect")
    _same(got.execute().fetch(), x + y)


def test_map_blocks_align_arrays_vs_dask():
    rng = np.random.default_rng(322)
    x, y = rng.standard_normal((7, 4)), rng.standard_normal((7, 4))
    t, d = mt.tensor(x, chunks=((3, 4), (4,))), da.from_array(x, chunks=((3, 4), (4,)))
    ty, dy = mt.tensor(y, chunks=((2, 5), (4,))), da.from_array(y, chunks=((2, 5), (4,)))
    # Unified (the default): blocks of the common refinement (Dask 2022.12
    # refuses these grids or hands their blocks over misaligned: NumPy
    # says what the value is).
    y3 = rng.standard_normal((7, 4))
    t3 = mt.tensor(y3, chunks=((2, 2, 3), (4,)))
    _same(mt.map_blocks(lambda a, b: a * 3 - b, t, t3).execute().fetch(), x * 3 - y3)
    # blockwise's align_arrays=False: the blocks as they are, lined up by
    # position (the output chunked as the first array).
    g = lambda a, b: np.full((len(a), 4), len(a) * 10 + len(b), dtype="float64")  # noqa: E731
    _same(mt.blockwise(g, "ij", t, "ij", ty, "ij", align_arrays=False, dtype="float64").execute().fetch(),
          da.blockwise(g, "ij", d, "ij", dy, "ij", align_arrays=False, dtype="float64").compute())
    # ... and aligned (the default): the common refinement, as Dask's.
    _same(mt.blockwise(g, "ij", t, "ij", ty, "ij", dtype="float64").execute().fetch(),
          da.blockwise(g, "ij", d, "ij", dy, "ij", dtype="float64").compute())
    # Broadcasting of chunks: a length-1 axis lines up with any chunks.
    z = rng.standard_normal((1, 4))
    tz, dz = mt.tensor(z), da.from_array(z)
    _same(mt.map_blocks(lambda a, b: a + b, t, tz).execute().fetch(),
          da.map_blocks(lambda a, b: a + b, d, dz).compute())


class _CountingLock:
    """A lock that pickles (a user's own): it records each acquire in a
    file, so that the test sees the workers took it."""

    def __init__(self, path):
        self.path = path

    def acquire(self):
        with open(self.path, "a") as f:
            f.write("a")
        return True

    def release(self):
        pass


def test_store_regions_lock_and_compute_false_vs_dask(session, tmp_path):
    zarr = pytest.importorskip("zarr")
    rng = np.random.default_rng(330)
    x = rng.standard_normal((7, 5))
    y = rng.standard_normal((3, 5))
    ch = ((1, 4, 2), (3, 2))

    def targets(tag):
        root = os.path.join(session.data_root, f"store-{tag}")
        a = zarr.open(root + "-a.zarr", mode="w", shape=(10, 6), chunks=(3, 3), dtype="float64", fill_value=-1.0)
        b = zarr.open(root + "-b.zarr", mode="w", shape=(2, 3, 5), chunks=(1, 3, 5), dtype="float64",
                      fill_value=-1.0)
        return a, b

    regions = [(slice(2, 9), slice(1, 6)), (1, slice(None), slice(None))]
    pa, pb = targets("phobos")
    task = mt.store([mt.tensor(x, chunks=ch), mt.tensor(y, chunks=2)], [pa, pb], regions=regions, compute=False)
    # compute=False: nothing is written until the task is computed.
    assert (pa[...] == -1).all() and (pb[...] == -1).all()
    assert task.compute() is None
    da_, db = targets("dask")
    da.store([da.from_array(x, chunks=ch), da.from_array(y, chunks=2)], [da_, db], regions=regions)
    _same(pa[...], da_[...])
    _same(pb[...], db[...])
    # lock=False, and a lock of the user's that pickles (taken once a
    # block, locking nothing): blocks that match the target's chunks, as
    # writes without a lock need (the misaligned ones above share Zarr
    # chunks, which only the lock keeps from losing writes).
    marks = str(tmp_path / "lock-marks")
    for lock in (False, _CountingLock(marks)):
        pa, _ = targets("lock")
        mt.store(mt.tensor(x, chunks=((3, 3, 1), (3, 2))), pa, regions=(slice(3, 10), slice(0, 5)), lock=lock)
        _same(pa[3:10, 0:5], x)
    assert open(marks).read() == "a" * 6
    # return_stored: tensors of the stored data, which write when computed.
    pa, _ = targets("stored")
    (stored,) = mt.store([mt.tensor(x, chunks=ch)], [pa], regions=[regions[0]], return_stored=True, compute=False)
    assert (pa[...] == -1).all()
    _same(stored.execute().fetch(), x)
    _same(pa[2:9, 1:6], x)
    # Errors as Dask's.
    import threading
    with pytest.raises(ValueError, match=r"Different number of sources \[1\] and targets \[2\]"):
        mt.store([mt.tensor(x)], [pa, pb])
    with pytest.raises(ValueError, match=r"than regions \[2\]"):
        mt.store([mt.tensor(x)], [pa], regions=[regions[0], regions[0]])
    with pytest.raises(ValueError, match="All sources must be"):
        mt.store([x], [pa])
    with pytest.raises(TypeError, match="lock"):
        mt.store(mt.tensor(x), pa, lock=threading.Lock())


def test_apply_gufunc_several_outputs_run_once_per_block(tmp_path):
    rng = np.random.default_rng(313)
    x = rng.standard_normal((7, 3, 4))
    ch = ((2, 4, 1), (1, 2), (4,))
    t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)
    marks = str(tmp_path / "calls")

    def parts(a):
        with open(marks, "a") as f:
            f.write("c")
        return (a > 0).any(axis=-1), np.fft.fft(a, axis=-1)[..., :2], a.sum(axis=-1).astype("int16")

    kw = dict(output_dtypes=["bool", "complex128", "int16"], output_sizes={"k": 2})
    got = mt.apply_gufunc(parts, "(i)->(),(k),()", t, **kw)
    want = da.apply_gufunc(parts, "(i)->(),(k),()", d, **kw)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
    from phobos.tensor._core import _default_session
    _default_session().execute(*got)
    assert len(open(marks).read()) == 6  # 3 x 2 blocks, each once for its three outputs
    for g, w in zip(got, want):
        _same(g.fetch(), w.compute())


def test_map_blocks_over_unknown_lengths_vs_dask():
    rng = np.random.default_rng(302)
    for _ in range(4):
        n = int(rng.integers(0, 15))
        x = np.round(rng.standard_normal(n), 3)
        ch = (_chunking(rng, n),)
        t, d = mt.tensor(x, chunks=ch), da.from_array(x, chunks=ch)
        nan = ((math.nan,) * len(ch[0]),)
        u = t.map_blocks(_rows_positive, chunks=nan, dtype="float64")
        v = d.map_blocks(_rows_positive, chunks=nan, dtype="float64")
        # A function over blocks of unknown length: of unknown length too.
        g = lambda b: b * 2 + 1  # noqa: E731
        w = u.map_blocks(g)
        assert w.shape == (None,)
        _same(w.execute().fetch(), v.map_blocks(g).compute())
        h = lambda b: b[::2]  # noqa: E731
        _same(u.map_blocks(h, chunks=nan).execute().fetch(), v.map_blocks(h, chunks=nan).compute())
        # ... and over a boolean mask's selection.
        _same(t[t > 0].map_blocks(np.sqrt).execute().fetch(), d[d > 0].map_blocks(np.sqrt).compute())
