"""mt.linalg on stacks of matrices (..., M, N), as the Array API standard
requires, against NumPy 1.24 (numpy.linalg, or numpy.array_api where the
two differ): several batch shapes, odd sizes, empty stacks, and chunked
stacks (each matrix is still a cluster computation of its own)."""

import warnings

import numpy as np
import pytest

import phobos.tensor as mt

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import numpy.array_api as xa

rng = np.random.default_rng(20)

# (stack shape, matrix shape, chunks of the input or None)
STACKS = [
    ((2,), (5, 3), None),
    ((3, 1), (4, 4), None),
    ((2,), (3, 6), None),
    ((1,), (7, 7), None),
    ((2, 3), (5, 2), (1, 2, 3, 2)),
    ((0,), (3, 2), None),
    ((2, 0), (4, 3), None),
    ((3,), (1, 1), None),
]
IDS = [f"{s}x{m}-{c}" for s, m, c in STACKS]


def _x(a, chunks):
    return mt.asarray(a) if chunks is None else mt.tensor(a, chunks=chunks)


def _eyes(stack, n):
    return np.broadcast_to(np.eye(n), stack + (n, n))


@pytest.mark.parametrize("stack, mat, chunks", STACKS, ids=IDS)
def test_qr_stack(session, stack, mat, chunks):
    a = rng.standard_normal(stack + mat)
    wq, wr = np.linalg.qr(a)
    q, r = mt.linalg.qr(_x(a, chunks))
    assert q.shape == wq.shape and r.shape == wr.shape
    session.execute(q, r)
    Q, R = q.fetch(), r.fetch()
    np.testing.assert_allclose(Q @ R, a, atol=1e-12)
    k = min(mat)
    np.testing.assert_allclose(np.swapaxes(Q, -1, -2) @ Q, _eyes(stack, k), atol=1e-12)
    assert np.allclose(np.tril(R, -1), 0)
    # R is unique up to the signs of its rows
    np.testing.assert_allclose(np.abs(R), np.abs(wr), atol=1e-12)
    r_only = mt.linalg.qr(_x(a, chunks), mode="r")
    np.testing.assert_allclose(np.abs(r_only.fetch()), np.abs(wr), atol=1e-12)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("stack, mat, chunks", STACKS, ids=IDS)
def test_svd_stack(session, stack, mat, chunks, full):
    a = rng.standard_normal(stack + mat)
    wu, ws, wv = np.linalg.svd(a, full_matrices=full)
    r = mt.linalg.svd(_x(a, chunks), full_matrices=full)
    u, s, vh = r
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wv.shape)
    session.execute(u, s, vh)
    U, S, VH = u.fetch(), s.fetch(), vh.fetch()
    np.testing.assert_allclose(S, ws, rtol=1e-12, atol=1e-12)
    k = min(mat)
    np.testing.assert_allclose((U[..., :, :k] * S[..., None, :]) @ VH[..., :k, :], a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(U, -1, -2) @ U, _eyes(stack, U.shape[-1]), atol=1e-12)
    np.testing.assert_allclose(VH @ np.swapaxes(VH, -1, -2), _eyes(stack, VH.shape[-2]), atol=1e-12)
    np.testing.assert_allclose(mt.linalg.svdvals(_x(a, chunks)).fetch(), ws, rtol=1e-12, atol=1e-12)


def test_svd_full_of_one_matrix(session):
    for shape in [(7, 3), (3, 7), (5, 1), (4, 0)]:
        a = rng.standard_normal(shape)
        wu, ws, wv = np.linalg.svd(a)
        u, s, vh = mt.linalg.svd(mt.asarray(a))
        assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wv.shape)
        U, S, VH = u.fetch(), s.fetch(), vh.fetch()
        np.testing.assert_allclose(S, ws, rtol=1e-12)
        np.testing.assert_allclose(U.T @ U, np.eye(shape[0]), atol=1e-12)
        np.testing.assert_allclose(VH @ VH.T, np.eye(shape[1]), atol=1e-12)
        k = min(shape)
        np.testing.assert_allclose((U[:, :k] * S) @ VH[:k], a, atol=1e-12)


@pytest.mark.parametrize("stack, mat, chunks", STACKS, ids=IDS)
def test_pinv_and_rank_stack(session, stack, mat, chunks):
    a = rng.standard_normal(stack + mat)
    if a.size and min(mat) > 1:
        a[..., -1] = a[..., 0]  # rank deficient
    x = _x(a, chunks)
    p = mt.linalg.pinv(x)
    assert p.shape == np.linalg.pinv(a).shape
    np.testing.assert_allclose(p.fetch(), np.linalg.pinv(a, rcond=max(mat) * np.finfo(np.float64).eps),
                               atol=1e-10)
    rank = mt.linalg.matrix_rank(x)
    assert rank.shape == stack
    np.testing.assert_array_equal(rank.fetch(), np.linalg.matrix_rank(a))
    rr = mt.linalg.matrix_rank(x, rtol=1e-3)
    np.testing.assert_array_equal(rr.fetch(), np.linalg.matrix_rank(a) if a.size else np.zeros(stack, int))


# (a's shape, b's shape): the standard's rule (NumPy 2's): a 1-D b is one
# vector for every matrix, any other b a stack of matrices broadcast with a's
SOLVES = [((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 4)), ((4, 1, 5, 5), (3, 5, 2)), ((3, 3), (2, 3, 1)),
          ((2, 4, 4), (1, 4, 0)), ((0, 3, 3), (3,)), ((3, 2, 2), (2, 1))]


@pytest.mark.parametrize("ash, bsh", SOLVES, ids=str)
def test_solve_stack(session, ash, bsh):
    a = rng.standard_normal(ash) + 3 * np.eye(ash[-1])
    b = rng.standard_normal(bsh)
    want = np.asarray(xa.linalg.solve(xa.asarray(a), xa.asarray(b)))
    got = mt.linalg.solve(mt.asarray(a), mt.asarray(b))
    assert got.shape == want.shape
    np.testing.assert_allclose(got.fetch(), want, rtol=1e-10, atol=1e-12)


def test_solve_stack_float32(session):
    a = (rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
    b = rng.standard_normal((3, 4, 2))
    got = mt.linalg.solve(mt.asarray(a), mt.asarray(b))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got.fetch(), np.linalg.solve(a, b), rtol=1e-6)


def test_solve_stack_mismatch(session):
    with pytest.raises(Exception, match="broadcast|rows"):
        mt.linalg.solve(mt.ones((2, 3, 3)), mt.ones((3, 4, 2))).fetch()


@pytest.mark.parametrize("stack", [(2,), (2, 3), (0,)], ids=str)
def test_square_stacks(session, stack):
    """det, inv, cholesky, slogdet, eigh, matrix_norm took stacks before:
    checked here beside the others."""
    a = rng.standard_normal(stack + (4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + np.eye(4)
    x = mt.asarray(spd)
    np.testing.assert_allclose(mt.linalg.det(x).fetch(), np.linalg.det(spd), rtol=1e-10)
    np.testing.assert_allclose(mt.linalg.inv(x).fetch(), np.linalg.inv(spd), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mt.linalg.cholesky(x).fetch(), np.linalg.cholesky(spd), rtol=1e-10, atol=1e-12)
    sign, logabs = mt.linalg.slogdet(x)
    ws, wl = np.linalg.slogdet(spd)
    np.testing.assert_array_equal(sign.fetch(), ws)
    np.testing.assert_allclose(logabs.fetch(), wl, rtol=1e-10)
    np.testing.assert_allclose(mt.linalg.eigh(x).eigenvalues.fetch(), np.linalg.eigvalsh(spd), rtol=1e-10)
    for o in ("fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf):
        np.testing.assert_allclose(mt.linalg.matrix_norm(mt.asarray(a), ord=o).fetch(),
                                   np.linalg.norm(a, ord=o, axis=(-2, -1)), rtol=1e-10, err_msg=str(o))
