"""The array manipulation functions (calls of the cluster's roll, pad,
insert, ...; phobos/tensor/_manip.py) against NumPy, over several chunkings,
with the arguments NumPy takes: lists, slices, masks, NumPy arrays."""

import numpy as np
import pytest

import phobos.tensor as mt
from phobos._errors import AxisError

CHUNKS = (1, 3, 1000, None)
rng = np.random.default_rng(14)
F = rng.standard_normal((5, 7))
I = rng.integers(-9, 9, (5, 7)).astype(np.int32)
V = rng.standard_normal(6)
B = rng.random((4, 6)) > 0.5
T3 = rng.standard_normal((2, 3, 4))

CASES = {
    "pad-constant": ((F,), lambda xp, a: xp.pad(a, ((1, 2), (0, 3)), constant_values=((1.5, -2), (3, 4)))),
    "pad-int-scalar": ((I,), lambda xp, a: xp.pad(a, 2, constant_values=7)),
    "pad-edge": ((T3,), lambda xp, a: xp.pad(a, [(0, 1), (2, 0), (1, 1)], mode="edge")),
    "pad-reflect-wide": ((V,), lambda xp, a: xp.pad(a, (13, 4), mode="reflect")),
    "pad-symmetric": ((F,), lambda xp, a: xp.pad(a, ((9, 1), (2, 8)), mode="symmetric")),
    "pad-wrap-wide": ((B,), lambda xp, a: xp.pad(a, ((5, 0), (0, 13)), mode="wrap")),
    "insert-int": ((F,), lambda xp, a: xp.insert(a, 2, 9.0, axis=1)),
    "insert-list": ((V,), lambda xp, a: xp.insert(a, [0, 3, 3, -1], [1.0, 2.0, 3.0, 4.0])),
    "insert-slice": ((I,), lambda xp, a: xp.insert(a, slice(1, 5, 2), 0, axis=0)),
    "insert-array": ((F,), lambda xp, a: xp.insert(a, np.array([1, 4]), np.arange(10.0).reshape(5, 2), axis=1)),
    "delete-int": ((F,), lambda xp, a: xp.delete(a, -1, axis=0)),
    "delete-list": ((V,), lambda xp, a: xp.delete(a, [0, 2, 2])),
    "delete-slice": ((T3,), lambda xp, a: xp.delete(a, slice(None, None, 2), axis=2)),
    "delete-mask": ((F,), lambda xp, a: xp.delete(a, np.array([True, False, False, True, False, True, False]), axis=1)),
    "repeat-list": ((F,), lambda xp, a: xp.repeat(a, [1, 0, 3, 1, 2], axis=0)),
    "repeat-array": ((V,), lambda xp, a: xp.repeat(a, np.array([2, 1, 0, 1, 2, 3]))),
    "trace-dtype": ((I,), lambda xp, a: xp.trace(a, 1, dtype=np.float32)),
    "diagonal-3d": ((T3,), lambda xp, a: xp.diagonal(a, 1, 2, 1)),
    "triu-3d": ((T3,), lambda xp, a: xp.triu(a, 1)),
    "hstack-1d": ((V,), lambda xp, a: xp.hstack([a, a])),
    "vstack": ((F, I), lambda xp, a, b: xp.vstack([a, b])),
    "atleast_2d-many": ((V, F), lambda xp, a, b: xp.atleast_2d(a, b)),
    "meshgrid-sparse": ((V, F), lambda xp, a, b: xp.meshgrid(a, b, sparse=True, indexing="ij")),
    "array_split-indices": ((F,), lambda xp, a: xp.array_split(a, [2, 3, 9], axis=1)),
    "roll-many": ((T3,), lambda xp, a: xp.roll(a, [1, -5], axis=[2, 0])),
    "ediff1d-lists": ((I,), lambda xp, a: xp.ediff1d(a, to_end=[1, 2], to_begin=5)),
}


def check(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_manip(session, name):
    inputs, f = CASES[name]
    want = f(np, *inputs)
    outs = [f(mt, *[mt.tensor(x, chunks=c) for x in inputs]) for c in CHUNKS]
    flat = []
    for o in outs:
        flat += list(o) if isinstance(o, (list, tuple)) else [o]
    session.execute(*flat)
    for o in outs:
        if isinstance(want, (list, tuple)):
            assert len(o) == len(want)
            for g, w in zip(o, want):
                check(g.fetch(), w)
        else:
            check(o.fetch(), want)


@pytest.mark.parametrize("f,exc", [
    (lambda xp, a: xp.delete(a, 7, axis=1), IndexError),
    (lambda xp, a: xp.insert(a, 9, 1.0, axis=0), IndexError),
    (lambda xp, a: xp.pad(a, 1, mode="reflect", constant_values=3), ValueError),
    (lambda xp, a: xp.pad(a, -1), ValueError),
    (lambda xp, a: xp.pad(a, 1.5), TypeError),
    (lambda xp, a: xp.roll(a, 1, axis=3), AxisError),
    (lambda xp, a: xp.array_split(a, 0), ValueError),
    (lambda xp, a: xp.rot90(a, axes=(0, 0)), ValueError),
    (lambda xp, a: xp.repeat(a, [1, 2], axis=0), ValueError),
])
def test_manip_errors(session, f, exc):
    with pytest.raises(exc):
        f(np, F)
    with pytest.raises(exc):
        f(mt, mt.tensor(F, chunks=2))


def test_pad_modes_numpy_lacks_here():
    with pytest.raises(NotImplementedError):
        mt.pad(mt.tensor(F), 1, mode="median")
