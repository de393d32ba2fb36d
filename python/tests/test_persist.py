"""Results that stay on the cluster (persist, execute): a tensor computed
once and used by later graphs is not computed again, its chunks are freed
when the client drops it, and a worker holding them can die."""

import contextlib
import gc
import http.client
import os
import signal
import time
import urllib.parse

import numpy as np
import pytest

import phobos
import phobos.tensor as mt
from phobos import session as _session


@contextlib.contextmanager
def _as_default(s):
    """s as the default session while the block runs, then the one before
    (the suite's, which has a data root) again."""
    with _session._default_lock:
        before, _session._default = _session._default, s
    try:
        yield s
    finally:
        with _session._default_lock:
            _session._default = before


def _store_bytes(s):
    """Bytes in the workers' stores now, read from each live worker's
    metrics (not the heartbeats' figures, which lag)."""
    total = 0
    for w in s._json("GET", "/api/workers")["workers"]:
        if not w["alive"]:
            continue
        u = urllib.parse.urlsplit(w["url"])
        c = http.client.HTTPConnection(u.netloc, timeout=10)
        try:
            c.request("GET", "/metrics", headers={"Authorization": "Bearer " + s._token})
            body = c.getresponse().read().decode()
        finally:
            c.close()
        for line in body.splitlines():
            if line.startswith("phobos_worker_store_memory_bytes"):
                total += int(float(line.split()[-1]))
    return total


def _settled(s, polls=50, every=0.02):
    """Polls the stores' bytes until two readings in a row agree (releases
    queued before are sent from a thread of the session, a little later);
    the bytes then, or None."""
    last = _store_bytes(s)
    for _ in range(polls):
        time.sleep(every)
        now = _store_bytes(s)
        if now == last:
            return now
        last = now
    return None


def _back_to(s, base, polls=50, every=0.02):
    """Polls the stores' bytes at most polls times; the number of polls it
    took to be back at base, or None."""
    for i in range(polls):
        if _store_bytes(s) == base:
            return i
        time.sleep(every)
    return None


def _chain(x, chunks):
    # Matrix products and a cumulative sum: not fused away, so a graph that
    # computes them again has more chunk ops than one reading their result.
    w = np.linspace(-1, 1, x.shape[1] * x.shape[1]).reshape(x.shape[1], x.shape[1])
    t = mt.tensor(x, chunks=chunks)
    return mt.cumsum(t @ mt.tensor(w) + 1, axis=0)


def _want(x):
    w = np.linspace(-1, 1, x.shape[1] * x.shape[1]).reshape(x.shape[1], x.shape[1])
    return np.cumsum(x @ w + 1, axis=0)


LATER = [
    (lambda p: p.sum(axis=0), lambda v: v.sum(axis=0)),
    (lambda p: (p * 2).mean(), lambda v: (v * 2).mean()),
    (lambda p: p.T @ p, lambda v: v.T @ v),
    (lambda p: (p - 1).max(axis=1), lambda v: (v - 1).max(axis=1)),
    (lambda p: mt.sqrt(abs(p)).sum(axis=1), lambda v: np.sqrt(abs(v)).sum(axis=1)),
]


@pytest.mark.parametrize("chunks", [(333, 17), (1, 17), (5000, 100)])
def test_persisted_computed_once(sess, chunks):
    x = np.random.RandomState(3).rand(1000, 17)
    with _as_default(sess):
        base = _store_bytes(sess)
        p = _chain(x, chunks)
        p.persist(session=sess)
        assert sess.last_graph["state"] == "SUCCEEDED"
        assert _store_bytes(sess) > base
        value = _want(x)
        # the same tensor recomputed, and one made from its value with the
        # same chunks (one op per chunk, as a held tensor has)
        again = _chain(x, chunks)
        lit = mt.tensor(value, chunks=chunks)
        for k in range(10):
            build, ref = LATER[k % len(LATER)]
            got = build(p).execute(session=sess).fetch()
            held_ops = sess.last_graph["chunk_ops"]
            np.testing.assert_allclose(got, ref(value), rtol=1e-12, atol=1e-9)
            build(again).execute(session=sess)
            recomputed_ops = sess.last_graph["chunk_ops"]
            build(lit).execute(session=sess)
            literal_ops = sess.last_graph["chunk_ops"]
            assert held_ops == literal_ops, (k, held_ops, literal_ops)
            assert held_ops < recomputed_ops, (k, held_ops, recomputed_ops)
        del again, lit
        gc.collect()
        before = _settled(sess)
        assert before is not None
        del p
        gc.collect()
        # the held chunks go within a second of the client dropping them
        polls = _back_to(sess, base)
        assert polls is not None, f"store bytes {_store_bytes(sess)} (held {before}), baseline {base}"


def test_execute_keeps_result(sess):
    x = np.random.RandomState(4).rand(900, 13)
    with _as_default(sess):
        t = _chain(x, (100, 13))
        v = t.execute(session=sess).fetch()
        np.testing.assert_allclose(v, _want(x), rtol=1e-12)
        gid = sess.last_graph["graph_id"]
        n_chunks = 9
        s = t.sum().execute(session=sess).fetch()
        # 9 held chunks, their 9 partial sums and the combine tree
        assert sess.last_graph["chunk_ops"] < 2 * n_chunks + 4, sess.last_graph["chunk_ops"]
        np.testing.assert_allclose(s, _want(x).sum(), rtol=1e-12)
        # explicit release: the graph is gone, a later graph recomputes
        sess.release(t)
        st = sess._request("GET", f"/api/sessions/{sess.session_id}/graphs/{gid}")
        st.read()
        assert st.status == 404
        np.testing.assert_allclose(t.sum().execute(session=sess).fetch(), _want(x).sum(), rtol=1e-12)


def test_small_results_not_kept(sess):
    with _as_default(sess):
        t = (mt.arange(100) * 2).sum()
        assert int(t.execute(session=sess).fetch()) == 9900
        assert t._held is None


def test_worker_holding_persisted_chunks_killed():
    # Workers in processes of their own, so one can be killed alone.
    s = phobos.new_session(workers=3, default=False, cluster_args=("--one-process=false",))
    try:
        with _as_default(s):
            # generated on the workers: its whole lineage can run again
            # (an upload lives on one worker only and dies with it)
            g = mt.random.RandomState(5).rand(3000, 20, chunks=(250, 20))
            p = mt.cumsum(g @ g.T[:, :20] + 1, axis=0)
            p.persist(session=s)
            value = p.fetch()  # from the held chunks
            workers = s._json("GET", "/api/workers")["workers"]
            deadline = time.monotonic() + 10
            while all(w["store_bytes"] == 0 for w in workers) and time.monotonic() < deadline:
                time.sleep(0.1)  # heartbeats carry the figures
                workers = s._json("GET", "/api/workers")["workers"]
            victim = max(workers, key=lambda w: w["store_bytes"])
            assert victim["store_bytes"] > 0
            os.kill(victim["pid"], signal.SIGKILL)
            got = (p * p).sum(axis=1).execute(session=s).fetch()
            np.testing.assert_allclose(got, (value ** 2).sum(axis=1), rtol=1e-12)
            assert s.last_graph["state"] == "SUCCEEDED"
    finally:
        s.close()


def test_release_in_one_request_and_sessions_apart(sess):
    x = np.random.RandomState(6).rand(200, 100)
    with _as_default(sess):
        a = (mt.tensor(x, chunks=(70, 100)) + 1).persist(session=sess)
        gid_a = sess.last_graph["graph_id"]
        b = (mt.tensor(x, chunks=(70, 100)) * 2).persist(session=sess)
        gid_b = sess.last_graph["graph_id"]
        # another session cannot read this one's held results
        other = phobos.new_session(url=sess.url, token=sess._token, default=False)
        try:
            node = {"held": {"ref": gid_a, "result": 0, "meta": {"shape": [200, 100], "dtype": "float64"}}}
            with pytest.raises(Exception, match=gid_a):
                other._json("POST", f"/api/sessions/{other.session_id}/programs",
                            {"program": {"nodes": [node]}, "results": [0]}, want=201)
        finally:
            other.close()
        # a node naming the wrong meta is refused
        bad = {"held": {"ref": gid_a, "result": 0, "meta": {"shape": [100, 200], "dtype": "float64"}}}
        with pytest.raises(Exception, match="graph says"):
            sess._json("POST", f"/api/sessions/{sess.session_id}/programs",
                       {"program": {"nodes": [bad]}, "results": [0]}, want=201)
        got = sess.release_graphs([gid_a, gid_b, "g999"])
        assert got == {"released": 2, "missing": ["g999"]}
        # the tensors no longer name released chunks: they are recomputed
        a._held[0].release()
        b._held[0].release()
        np.testing.assert_allclose(float((a + b).sum().execute(session=sess).fetch()), (x + 1 + x * 2).sum(), rtol=1e-12)


def test_held_graph_gone_is_recomputed(sess):
    x = np.random.RandomState(7).rand(300, 100)
    with _as_default(sess):
        t = (mt.tensor(x, chunks=(70, 100)) * 3).persist(session=sess)
        gid = sess.last_graph["graph_id"]
        # the cluster drops the graph behind the client's back (as it
        # does with the oldest of too many finished graphs)
        r = sess._request("DELETE", f"/api/sessions/{sess.session_id}/graphs/{gid}")
        r.read()
        assert r.status == 200
        np.testing.assert_allclose(float(t.sum().execute(session=sess).fetch()), (x * 3).sum(), rtol=1e-12)
