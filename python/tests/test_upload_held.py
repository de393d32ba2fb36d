"""A client array read by several graphs stays on the workers: its first
graph reads the upload, its second keeps the chunks it read (as a
persisted result of that graph), and later graphs name those chunks
instead of reading the upload's files again. Values are checked against
NumPy over chunkings; the chunks go when the tensor does."""

import gc
import weakref

import numpy as np
import pytest

import phobos
import phobos.tensor as mt
from phobos import _held
from phobos.tensor import _core


def _node_kind(t, s):
    nodes, roots = _core._program([t], s)
    return next(iter(nodes[roots[0]]))


@pytest.mark.parametrize("chunks", [None, 7_001, (1,), 60_000, 1_000_000])
def test_client_array_held_from_its_second_graph(sess, chunks):
    x = np.random.default_rng(11).standard_normal(50_000)
    assert x.nbytes > phobos.session.INLINE_LIMIT
    if chunks == (1,):
        x = x[:9_000]  # single-element chunks: 9,000 of them
        assert x.nbytes > phobos.session.INLINE_LIMIT
    t = mt.tensor(x, chunks=chunks[0] if isinstance(chunks, tuple) else chunks)
    reads = [
        (lambda u: u.mean(), lambda v: v.mean()),
        (lambda u: (u * 3 - 1).sum(), lambda v: (v * 3 - 1).sum()),
        (lambda u: u.max(), lambda v: v.max()),
        (lambda u: mt.sqrt(abs(u)).std(), lambda v: np.sqrt(abs(v)).std()),
    ]
    for k in range(6):
        build, want = reads[k % len(reads)]
        got = float(sess.execute(build(t)).fetch())
        assert got == pytest.approx(float(want(x)), rel=1e-9, abs=1e-12), k
        if k == 0:
            # one graph read it: nothing kept for it yet
            assert t._held is None
            assert _node_kind(t, sess) == "uploaded"
        else:
            assert t._held is not None and t._held[2] is sess
            assert _node_kind(t, sess) == "held"
    # a big result built on it comes back whole and right
    np.testing.assert_allclose(sess.execute(t * 2.5 + 1).fetch(), x * 2.5 + 1, rtol=1e-15)
    # another tensor of the same content is the same upload, not sent
    # again, and not held until its own second graph
    u = mt.tensor(x.copy(), chunks=chunks[0] if isinstance(chunks, tuple) else chunks)
    assert float(sess.execute(u.sum()).fetch()) == pytest.approx(x.sum(), rel=1e-9)
    assert u._held is None


def test_held_client_array_released_with_its_tensor(sess):
    x = np.arange(40_000, dtype=np.float64)
    t = mt.tensor(x)
    for _ in range(3):
        assert float(sess.execute(t.sum()).fetch()) == x.sum()
    gid = t._held[0].gid
    kept = weakref.ref(t._held[0])
    assert sess._json("GET", f"/api/sessions/{sess.session_id}/graphs/{gid}").get("released") is not True
    del t
    gc.collect()
    assert kept() is None
    _held._Releaser.of(sess).flush()
    # the graph that held it is released on the cluster (by the flush or
    # by the releaser's thread before it): deleted, its results freed
    with pytest.raises(LookupError, match="released"):
        sess._json("GET", f"/api/sessions/{sess.session_id}/graphs/{gid}")


def test_client_array_with_a_result_held_by_the_same_graph(sess):
    """The graph that keeps the array may keep a result too: both are
    results of one graph, held until both tensors are dropped."""
    x = np.random.default_rng(12).random((300, 80))
    t = mt.tensor(x, chunks=(77, 80))
    assert float(sess.execute(t.sum()).fetch()) == pytest.approx(x.sum(), rel=1e-12)
    big = t @ t.T
    sess.execute(big)
    assert big._held is not None and t._held is not None and big._held[0] is t._held[0]
    np.testing.assert_allclose(big.fetch(), x @ x.T, rtol=1e-12)
    np.testing.assert_allclose(sess.execute((big + t.sum()).sum(axis=0)).fetch(),
                               (x @ x.T + x.sum()).sum(axis=0), rtol=1e-12)
