"""mt.linalg against numpy.linalg, over row chunkings (TSQR trees of
several depths), up to the signs of singular vectors."""

import numpy as np
import pytest

import phobos.tensor as mt

rng = np.random.default_rng(5)
TALL = rng.standard_normal((40, 6))
SQ = rng.standard_normal((5, 5)) + 5 * np.eye(5)
SPD = SQ @ SQ.T
B = rng.standard_normal((5, 2))
ROWS = [(1, 6), (7, 6), (40, 6), (100, 100), None]


@pytest.mark.parametrize("chunks", ROWS, ids=str)
def test_qr_reduced(session, chunks):
    a = mt.tensor(TALL, chunks=chunks)
    q, r = mt.linalg.qr(a)
    session.execute(q, r)
    Q, R = q.fetch(), r.fetch()
    assert Q.shape == (40, 6) and R.shape == (6, 6)
    np.testing.assert_allclose(Q @ R, TALL, atol=1e-12)
    np.testing.assert_allclose(Q.T @ Q, np.eye(6), atol=1e-12)
    np.testing.assert_allclose(np.abs(R), np.abs(np.linalg.qr(TALL)[1]), atol=1e-12)
    assert np.allclose(np.tril(R, -1), 0)


@pytest.mark.parametrize("chunks", ROWS, ids=str)
def test_svd(session, chunks):
    a = mt.tensor(TALL, chunks=chunks)
    u, s, vh = mt.linalg.svd(a, full_matrices=False)
    session.execute(u, s, vh)
    U, S, VH = u.fetch(), s.fetch(), vh.fetch()
    np.testing.assert_allclose(S, np.linalg.svd(TALL, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose((U * S) @ VH, TALL, atol=1e-12)
    np.testing.assert_allclose(mt.linalg.svd(a, compute_uv=False).fetch(), S, rtol=1e-12)


@pytest.mark.parametrize("name, f", [
    ("inv", lambda m, a, b: m.linalg.inv(a)),
    ("det", lambda m, a, b: m.linalg.det(a)),
    ("solve", lambda m, a, b: m.linalg.solve(a, b)),
    ("cholesky", lambda m, a, b: m.linalg.cholesky(a @ a.T)),
    ("slogdet", lambda m, a, b: m.linalg.slogdet(a)[1]),
    ("lstsq", lambda m, a, b: m.linalg.lstsq(a, b, rcond=None)[0]),
    ("matrix_power", lambda m, a, b: m.linalg.matrix_power(a, 3)),
    ("norm", lambda m, a, b: m.linalg.norm(a)),
    ("norm-nuc", lambda m, a, b: m.linalg.norm(a, "nuc")),
    ("norm-inf", lambda m, a, b: m.linalg.norm(a, np.inf)),
    ("norm-axis", lambda m, a, b: m.linalg.norm(a, 3, axis=0)),
    ("pinv", lambda m, a, b: m.linalg.pinv(a)),
    ("matrix_rank", lambda m, a, b: m.linalg.matrix_rank(a)),
    ("cond", lambda m, a, b: m.linalg.cond(a)),
    ("cond-fro", lambda m, a, b: m.linalg.cond(a, "fro")),
    ("multi_dot", lambda m, a, b: m.linalg.multi_dot([a, a, b])),
    ("einsum", lambda m, a, b: m.einsum("ij,jk->ik", a, b)),
    ("einsum-trace", lambda m, a, b: m.einsum("ii", a)),
    ("einsum-outer", lambda m, a, b: m.einsum("ij,kl->ikjl", a, b)),
])
@pytest.mark.parametrize("chunks", [2, 5, None], ids=str)
def test_against_numpy(session, name, f, chunks):
    want = f(np, SQ, B)
    got = f(mt, mt.tensor(SQ, chunks=chunks), mt.tensor(B, chunks=chunks)).fetch()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_lstsq_tall(session):
    b = rng.standard_normal(40)
    x, res, rank, s = mt.linalg.lstsq(mt.tensor(TALL, chunks=(9, 6)), mt.tensor(b, chunks=9), rcond=None)
    session.execute(x, res, rank, s)
    wx, wres, wrank, ws = np.linalg.lstsq(TALL, b, rcond=None)
    np.testing.assert_allclose(x.fetch(), wx, rtol=1e-10)
    np.testing.assert_allclose(res.fetch(), wres, rtol=1e-8)
    assert int(rank.fetch()) == wrank
    np.testing.assert_allclose(s.fetch(), ws, rtol=1e-12)


def test_numpy_linalg_dispatch():
    t = mt.tensor(SQ)
    r = np.linalg.det(t)
    assert isinstance(r, mt.Tensor)
    np.testing.assert_allclose(r.fetch(), np.linalg.det(SQ), rtol=1e-12)


def test_singular_matrix_fails_with_numpy_words(session):
    import phobos
    with pytest.raises(phobos.PhobosError, match="Singular matrix"):
        mt.linalg.inv(mt.zeros((3, 3))).execute()


@pytest.mark.parametrize("chunks", [(1, 6), (7, 6), (40, 6), (9, 2)], ids=str)
def test_lu(session, chunks):
    p, l, u = mt.linalg.lu(mt.tensor(TALL, chunks=chunks))
    session.execute(p, l, u)
    P, L, U = p.fetch(), l.fetch(), u.fetch()
    assert P.shape == (40, 40) and L.shape == (40, 6) and U.shape == (6, 6)
    np.testing.assert_allclose(P @ L @ U, TALL, atol=1e-12)
    assert np.allclose(np.triu(L, 1), 0) and np.allclose(np.diag(L), 1) and np.abs(L).max() <= 1
    assert np.allclose(np.tril(U, -1), 0)
    pl, u2 = mt.linalg.lu(mt.tensor(SQ), permute_l=True)
    np.testing.assert_allclose(pl.fetch() @ u2.fetch(), SQ, atol=1e-12)


@pytest.mark.parametrize("chunks", [(1, 6), (7, 6), (40, 6), None], ids=str)
def test_randomized_svd(session, chunks):
    low = TALL[:, :3] @ rng.standard_normal((3, 6))  # rank 3
    u, s, vt = mt.linalg.randomized_svd(mt.tensor(low, chunks=chunks), 2, random_state=4)
    session.execute(u, s, vt)
    S = np.linalg.svd(low, compute_uv=False)
    np.testing.assert_allclose(s.fetch(), S[:2], rtol=1e-10)
    U = u.fetch()
    np.testing.assert_allclose(U.T @ U, np.eye(2), atol=1e-12)
    assert (U[np.abs(U).argmax(0), range(2)] > 0).all()
    with pytest.raises(ValueError, match="n_components"):
        mt.linalg.randomized_svd(mt.tensor(low), 7)
