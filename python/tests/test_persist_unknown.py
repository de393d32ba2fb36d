"""Held results of unknown length: a boolean mask's selection persisted
and read by later graphs without computing it again, and a scalar read
that keeps on the cluster the summaries of unknown length it computed
(unique's outputs), so the reads after it do not compute them again."""

import contextlib

import numpy as np
import pytest

import phobos
import phobos.tensor as mt
from phobos import session as _session


@contextlib.contextmanager
def _as_default(s):
    with _session._default_lock:
        before, _session._default = _session._default, s
    try:
        yield s
    finally:
        with _session._default_lock:
            _session._default = before


@pytest.mark.parametrize("chunks,cut", [((7, 3), 0.2), ((1, 4), 0.5), ((5000, 10), -0.3), ((7, 3), 99.0)])
def test_persisted_selection_computed_once(sess, chunks, cut):
    x = np.random.default_rng(5).standard_normal((1000, 4))
    m = x[:, 0] > cut
    want = x[m]
    with _as_default(sess):
        sel = mt.tensor(x, chunks=chunks)[mt.tensor(m, chunks=chunks[0])]
        assert sel._shape[0] is None
        sel.persist(session=sess)
        later = [(lambda p: (p * 2).sum(axis=0), lambda v: (v * 2).sum(axis=0)),
                 (lambda p: p - p.mean(axis=0), lambda v: v - v.mean(axis=0)),
                 (lambda p: p.sum(), lambda v: v.sum())]
        # the same graphs on a client array of the selection's value, in
        # the held tensor's chunks: the rows each chunk of x kept, empty
        # ones left out
        kept = [int(m[i:i + chunks[0]].sum()) for i in range(0, len(m), chunks[0])]
        splits = [n for n in kept if n]
        for k in range(6):
            build, ref = later[k % len(later)]
            got = build(sel).execute(session=sess).fetch()
            held_ops = sess.last_graph["chunk_ops"]
            np.testing.assert_allclose(got, ref(want), rtol=1e-12, atol=1e-12)
            again = mt.tensor(x, chunks=chunks)[mt.tensor(m, chunks=chunks[0])]
            build(again).execute(session=sess)
            recomputed_ops = sess.last_graph["chunk_ops"]
            assert held_ops < recomputed_ops, (k, held_ops, recomputed_ops)
            if len(want):
                cols = [min(chunks[1], 4 - i) for i in range(0, 4, chunks[1])]
                lit = mt.tensor(want, chunks=[splits, cols])
                build(lit).execute(session=sess)
                # no more chunk ops than that (one per chunk for the data)
                assert held_ops <= sess.last_graph["chunk_ops"], (k, held_ops, sess.last_graph["chunk_ops"])


def test_scalar_read_keeps_unique_counts(sess):
    # y is larger than what travels inside programs (64 KiB)
    y = np.random.default_rng(6).integers(0, 4, 20000)
    with _as_default(sess):
        yt = mt.asarray(y, chunks=3001).persist(session=sess)
        _, counts = mt.unique(yt, return_counts=True)
        priors = mt.astype(counts, mt.float64) / 20000.0
        assert priors._shape[0] is None
        assert not bool(mt.any(priors < 0))
        first = sess.last_graph["chunk_ops"]
        assert counts._held is not None or counts._value is not None
        total = float(mt.sum(priors))
        second = sess.last_graph["chunk_ops"]
        assert second < first / 4, (first, second)
        assert total == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(priors.fetch(), np.unique(y, return_counts=True)[1] / 20000.0, rtol=1e-15)
