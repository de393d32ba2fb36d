"""The NumPy functions the client composes from the cluster's functions
(phobos/tensor/_compose.py), against NumPy, over several chunkings."""

import warnings

import numpy as np
import pytest

import phobos.tensor as mt

CHUNKS = (1, 3, 1000, None)
rng = np.random.default_rng(11)
F = rng.standard_normal((5, 7))
FN = F.copy()
FN[1, 2] = FN[3, :] = np.nan  # a NaN, and an all-NaN row
FN[:, 4] = np.nan  # an all-NaN column
I = rng.integers(-9, 9, (5, 7)).astype(np.int32)
V = rng.standard_normal(6)
B = rng.random((4, 6)) > 0.5
C3 = rng.standard_normal((4, 3))
D3 = rng.standard_normal((4, 3))
T3 = rng.standard_normal((2, 3, 4))
S = rng.standard_normal((3, 3))

# name: (inputs, f(xp, *inputs)); xp is numpy or phobos.tensor
CASES = {
    "nansum": ((FN,), lambda xp, a: xp.nansum(a)),
    "nansum-axis0": ((FN,), lambda xp, a: xp.nansum(a, axis=0)),
    "nansum-int": ((I,), lambda xp, a: xp.nansum(a, axis=1)),
    "nanprod-axis1": ((FN,), lambda xp, a: xp.nanprod(a, axis=1, keepdims=True)),
    "nancumsum": ((FN,), lambda xp, a: xp.nancumsum(a, axis=1)),
    "nancumprod": ((FN,), lambda xp, a: xp.nancumprod(a)),
    "nanmax-axis0": ((FN,), lambda xp, a: xp.nanmax(a, axis=0)),
    "nanmin-axis1": ((FN,), lambda xp, a: xp.nanmin(a, axis=1)),
    "nanmax-all": ((FN,), lambda xp, a: xp.nanmax(a)),
    "nanmax-int": ((I,), lambda xp, a: xp.nanmax(a, axis=0)),
    "nanmean": ((FN,), lambda xp, a: xp.nanmean(a)),
    "nanmean-axis0": ((FN,), lambda xp, a: xp.nanmean(a, axis=0)),
    "nanmean-f32": ((FN.astype(np.float32),), lambda xp, a: xp.nanmean(a, axis=1)),
    "nanmean-int": ((I,), lambda xp, a: xp.nanmean(a, axis=1)),
    "nanvar-axis1": ((FN,), lambda xp, a: xp.nanvar(a, axis=1)),
    "nanvar-ddof1": ((FN,), lambda xp, a: xp.nanvar(a, axis=0, ddof=1)),
    "nanstd": ((FN,), lambda xp, a: xp.nanstd(a)),
    "nanstd-keep": ((FN,), lambda xp, a: xp.nanstd(a, axis=0, keepdims=True)),
    "ptp": ((F,), lambda xp, a: xp.ptp(a, axis=0)),
    "ptp-int": ((I,), lambda xp, a: xp.ptp(a)),
    "average": ((F,), lambda xp, a: xp.average(a, axis=1)),
    "average-w": ((F, np.arange(1.0, 8.0)), lambda xp, a, w: xp.average(a, axis=1, weights=w)),
    "average-w-full": ((I, np.abs(F) + 1), lambda xp, a, w: xp.average(a, weights=w)),
    "diff": ((F,), lambda xp, a: xp.diff(a)),
    "diff-n2-axis0": ((F,), lambda xp, a: xp.diff(a, n=2, axis=0)),
    "diff-bool": ((B,), lambda xp, a: xp.diff(a, axis=1)),
    "diff-prepend": ((V,), lambda xp, a: xp.diff(a, prepend=0.5, append=2.0)),
    "ediff1d": ((F,), lambda xp, a: xp.ediff1d(a, to_begin=[-1.0], to_end=[9.0, 8.0])),
    "trapz": ((F,), lambda xp, a: xp.trapz(a)),
    "trapz-x": ((F, np.linspace(0, 2, 7)), lambda xp, a, x: xp.trapz(a, x=x)),
    "trapz-axis0": ((F,), lambda xp, a: xp.trapz(a, dx=0.5, axis=0)),
    "moveaxis": ((T3,), lambda xp, a: xp.moveaxis(a, 0, -1)),
    "moveaxis-many": ((T3,), lambda xp, a: xp.moveaxis(a, [0, 1], [-1, -2])),
    "swapaxes": ((T3,), lambda xp, a: xp.swapaxes(a, 0, 2)),
    "rollaxis": ((T3,), lambda xp, a: xp.rollaxis(a, 2)),
    "rollaxis-start": ((T3,), lambda xp, a: xp.rollaxis(a, 0, 3)),
    "atleast_3d-1d": ((V,), lambda xp, a: xp.atleast_3d(a)),
    "atleast_3d-2d": ((F,), lambda xp, a: xp.atleast_3d(a)),
    "column_stack": ((V, V * 2), lambda xp, a, b: xp.column_stack([a, b])),
    "dstack": ((F, F), lambda xp, a, b: xp.dstack([a, b])),
    "row_stack": ((F, I), lambda xp, a, b: xp.row_stack([a, b])),
    "append": ((F, V), lambda xp, a, b: xp.append(a, b)),
    "append-axis": ((F, F[:2]), lambda xp, a, b: xp.append(a, b, axis=0)),
    "tile": ((V,), lambda xp, a: xp.tile(a, 3)),
    "tile-2d": ((F,), lambda xp, a: xp.tile(a, (2, 1, 3))),
    "repeat": ((F,), lambda xp, a: xp.repeat(a, 2)),
    "repeat-axis": ((I,), lambda xp, a: xp.repeat(a, 3, axis=1)),
    "roll": ((F,), lambda xp, a: xp.roll(a, 3)),
    "roll-axis": ((F,), lambda xp, a: xp.roll(a, -2, axis=1)),
    "roll-axes": ((F,), lambda xp, a: xp.roll(a, (1, 9), axis=(0, 1))),
    "rot90": ((F,), lambda xp, a: xp.rot90(a)),
    "rot90-k2": ((F,), lambda xp, a: xp.rot90(a, 2)),
    "rot90-k3": ((T3,), lambda xp, a: xp.rot90(a, 3, axes=(1, 2))),
    "tril": ((F,), lambda xp, a: xp.tril(a)),
    "tril-k": ((I,), lambda xp, a: xp.tril(a, -1)),
    "triu": ((F,), lambda xp, a: xp.triu(a, 2)),
    "triu-bool": ((B,), lambda xp, a: xp.triu(a)),
    "diagonal": ((F,), lambda xp, a: xp.diagonal(a)),
    "diagonal-k": ((F,), lambda xp, a: xp.diagonal(a, 2)),
    "diagonal-neg": ((I,), lambda xp, a: xp.diagonal(a, -3)),
    "diag-2d": ((F,), lambda xp, a: xp.diag(a, 1)),
    "diag-1d": ((V,), lambda xp, a: xp.diag(a)),
    "diag-1d-k": ((V,), lambda xp, a: xp.diag(a, 2)),
    "diag-1d-negk": ((V,), lambda xp, a: xp.diag(a, -1)),
    "diagflat": ((S,), lambda xp, a: xp.diagflat(a)),
    "trace": ((F,), lambda xp, a: xp.trace(a)),
    "trace-int": ((I,), lambda xp, a: xp.trace(a, 1)),
    "kron": ((S, F[:2, :3]), lambda xp, a, b: xp.kron(a, b)),
    "kron-1d": ((V, V[:3]), lambda xp, a, b: xp.kron(a, b)),
    "inner": ((F, F), lambda xp, a, b: xp.inner(a, b)),
    "inner-1d": ((V, V), lambda xp, a, b: xp.inner(a, b)),
    "vdot": ((F, F), lambda xp, a, b: xp.vdot(a, b)),
    "cross": ((C3, D3), lambda xp, a, b: xp.cross(a, b)),
    "cov": ((F,), lambda xp, a: xp.cov(a)),
    "cov-cols": ((F,), lambda xp, a: xp.cov(a, rowvar=False, bias=True)),
    "cov-1d": ((V,), lambda xp, a: xp.cov(a)),
    "corrcoef": ((F,), lambda xp, a: xp.corrcoef(a)),
    "sinc": ((np.array([0.0, 0.5, -1.0, 2.5, 1e-30]),), lambda xp, a: xp.sinc(a)),
    "select": ((F,), lambda xp, a: xp.select([a < -0.5, a > 0.5], [a * 2, a * 3], default=-1.0)),
    "nanmean-col-allnan": ((FN,), lambda xp, a: xp.nanmean(a, axis=0)),
    "frexp": ((F * 1000,), lambda xp, a: xp.frexp(a)),
    "modf": ((F * 3,), lambda xp, a: xp.modf(a)),
    "divmod": ((F * 5, V[:1] + 2), lambda xp, a, b: xp.divmod(a, b)),
    "divmod-int": ((I, I.T[:1] % 4 + 1), lambda xp, a, b: xp.divmod(a, b.reshape(1, -1)[:, :1])),
    "isclose": ((F, F + 1e-9), lambda xp, a, b: xp.isclose(a, b)),
    "isclose-nan": ((FN, FN), lambda xp, a, b: xp.isclose(a, b, equal_nan=True)),
    "allclose": ((F, F * (1 + 1e-7)), lambda xp, a, b: xp.allclose(a, b)),
    "allclose-not": ((F, F + 0.1), lambda xp, a, b: xp.allclose(a, b, atol=0.01)),
    "array_equal": ((I, I), lambda xp, a, b: xp.array_equal(a, b)),
    "array_equal-nan": ((FN, FN), lambda xp, a, b: xp.array_equal(a, b, equal_nan=True)),
    "array_equiv": ((F, F[:1]), lambda xp, a, b: xp.array_equiv(a, b)),
    "nan_to_num": ((FN / 0.0,), lambda xp, a: xp.nan_to_num(a)),
}

WHOLE = {  # functions of shapes, not arrays: no chunks to vary
    "tri": lambda xp: xp.tri(4, 6, 1),
    "tri-int": lambda xp: xp.tri(3, dtype=int),
    "indices": lambda xp: xp.indices((2, 3)),
    "logspace": lambda xp: xp.logspace(0, 3, 7),
    "logspace-base2": lambda xp: xp.logspace(1, 4, 4, base=2.0, endpoint=False),
}


def check(got, want):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-10 if want.dtype == np.float64 else 1e-5, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_composed(session, name):
    inputs, f = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(np, *inputs)
    outs = []
    for c in CHUNKS:
        outs.append(f(mt, *[mt.tensor(x, chunks=c) for x in inputs]))
    flat = []
    for o in outs:
        flat += list(o) if isinstance(o, (list, tuple)) else [o]
    session.execute(*flat)
    for c, o in zip(CHUNKS, outs):
        if isinstance(want, (list, tuple)):
            for g, w in zip(o, want):
                check(g.fetch(), w)
        else:
            check(o.fetch(), want)


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_made_from_shapes(name):
    check(WHOLE[name](mt).fetch(), WHOLE[name](np))


@pytest.mark.parametrize("fn,args", [
    ("split", (5,)), ("split", ([2, 5],)), ("array_split", (4,)), ("hsplit", (7,)), ("vsplit", ([1, 3],)),
])
def test_splits(session, fn, args):
    want = getattr(np, fn)(F, *args)
    for c in CHUNKS:
        got = getattr(mt, fn)(mt.tensor(F, chunks=c), *args)
        assert len(got) == len(want)
        session.execute(*got)
        for g, w in zip(got, want):
            check(g.fetch(), w)


def test_split_unequal_is_value_error():
    with pytest.raises(ValueError):
        np.split(F, 3, axis=1)
    with pytest.raises(ValueError):
        mt.split(mt.tensor(F), 3, axis=1)


def test_meshgrid():
    x, y = np.arange(3.0), np.linspace(0, 1, 4)
    for indexing in ("xy", "ij"):
        want = np.meshgrid(x, y, indexing=indexing)
        got = mt.meshgrid(mt.tensor(x), mt.tensor(y), indexing=indexing)
        for g, w in zip(got, want):
            check(g.fetch(), w)


def test_broadcast_arrays():
    want = np.broadcast_arrays(V.reshape(1, 6), np.arange(3.0).reshape(3, 1))
    got = mt.broadcast_arrays(mt.tensor(V.reshape(1, 6)), mt.tensor(np.arange(3.0).reshape(3, 1)))
    for g, w in zip(got, want):
        check(g.fetch(), w)
    assert mt.broadcast_shapes((1, 6), (3, 1)) == (3, 6)


def test_numpy_dispatch_reaches_compositions():
    t = mt.tensor(FN, chunks=2)
    r = np.nanmean(t, axis=0)
    assert isinstance(r, mt.Tensor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(r.fetch(), np.nanmean(FN, axis=0))
    assert isinstance(np.tril(t), mt.Tensor)
    assert isinstance(np.roll(t, 1), mt.Tensor)
