"""The client's shape and dtype inference (phobos.tensor._infer) against
the cluster's describe: over many calls, shapes, dtypes and scalars, every
answer the client gives itself must be the cluster's, and a call the
cluster refuses must be left to it. Also: the common calls cost no
describe request, and mt.compute reads several values in one graph."""

import itertools

import numpy as np
import pytest

import phobos.tensor as mt
from phobos.tensor import _core, _infer
from phobos.tensor import _infer_rules as R

DTYPES = list(R.DTYPES)
SCALARS = [True, False, 0, 1, 2, 100, 127, 128, 300, -1, -100, -128, -129, 0.0, 0.5, 2.5, -3.25, 1e4,
           64999.0, 65000.0, 65504.0, 1e10, 1j, 2 - 3j, 1e5 + 1j]


def _like(shape, dtype):
    """A tensor of that shape and dtype, by its metadata alone (its data is
    never needed: the cluster is asked about like nodes)."""
    return _core.Tensor._make(data=None, meta={"shape": tuple(shape), "dtype": dtype})


def _server(session, cases):
    """The cluster's answer to each case (fn, args, kwargs): its meta, or
    None when it refuses the call. Cases go in programs of many nodes; a
    program refused is split until the refused calls are alone."""
    if not cases:
        return []
    nodes, index, calls = [], {}, []

    def ref(x):
        if id(x) not in index:
            index[id(x)] = len(nodes)
            nodes.append({"like": {"shape": list(x._shape), "dtype": x._dtype.name}})
        return index[id(x)]

    for fn, args, kwargs in cases:
        me = object.__new__(_core.Tensor)
        me._fn, me._args, me._kwargs = fn, tuple(args), dict(kwargs)
        ins = []
        _core._collect(me._args, ins)
        _core._collect(list(me._kwargs.values()), ins)
        for x in ins:
            ref(x)
        calls.append(me)
    first = len(nodes)
    for me in calls:
        nodes.append(_core._node(me, lambda x: index[id(x)], None, True))
    try:
        out = session._json("POST", "/api/describe",
                            {"program": {"nodes": nodes}, "nodes": list(range(first, len(nodes)))})["nodes"]
        return [{"shape": tuple(m["shape"]), "dtype": m["dtype"]} for m in out]
    except (ValueError, TypeError, IndexError, NotImplementedError, OverflowError, ZeroDivisionError):
        if len(cases) == 1:
            return [None]
        half = len(cases) // 2
        return _server(session, cases[:half]) + _server(session, cases[half:])


def _check(session, cases):
    """Every case the client infers agrees with the cluster; the number it inferred."""
    server = _server(session, cases)
    inferred = 0
    for (fn, args, kwargs), want in zip(cases, server):
        got = _infer.infer(fn, tuple(args), dict(kwargs))
        if got is None:
            continue
        inferred += 1
        what = f"{fn}{tuple(getattr(a, '_shape', a) for a in args)} {[getattr(a, '_dtype', None) for a in args]} {kwargs}"
        assert want is not None, f"{what}: the client infers {got}, the cluster refuses it"
        assert (tuple(got["shape"]), got["dtype"]) == (want["shape"], want["dtype"]), f"{what}: client {got}, cluster {want}"
    return inferred


def test_unary_ufuncs_infer_as_the_cluster_describes(session):
    cases = []
    for dt in DTYPES:
        for shape in [(), (3,), (2, 0), (2, 3, 1)]:
            x = _like(shape, dt)
            cases += [(fn, [x], {}) for fn in mt.UNARY_UFUNCS]
    assert _check(session, cases) > len(cases) // 2


@pytest.mark.parametrize("fn", mt.BINARY_UFUNCS)
def test_binary_ufuncs_infer_as_the_cluster_describes(session, fn):
    shapes = [((3,), (3,)), ((2, 1), (3,)), ((), (4,)), ((2, 3), (4,)), ((0,), (1,)), ((5, 1, 2), (1, 4, 1)), ((), ()),
              ((2 ** 31, 1), (1, 2 ** 31)), ((1,) * 32, (3,)), ((1,) * 20, (1,) * 33)]
    cases = []
    for (sa, sb), (da, db) in zip(itertools.cycle(shapes), itertools.product(DTYPES, DTYPES)):
        cases.append((fn, [_like(sa, da), _like(sb, db)], {}))
    for dt, (i, s) in itertools.product(DTYPES, enumerate(SCALARS)):
        x = _like([(3,), (), (2, 2)][i % 3], dt)
        cases += [(fn, [x, s], {}), (fn, [s, x], {})]
    n = _check(session, cases)
    assert n > 0 or fn not in _infer._BINARY, "a ufunc with a table inferred nothing"



def test_reductions_infer_as_the_cluster_describes(session):
    cases = []
    for fn, dt in itertools.product(R.REDUCE, DTYPES):
        for shape in [(), (4,), (2, 3), (2, 0), (0,), (3, 1, 2)]:
            x = _like(shape, dt)
            for axis, keep in itertools.product([None, 0, -1, [0, 1], [1, -1], 5, [0, 0]], [None, True]):
                kw = {k: v for k, v in {"axis": axis, "keepdims": keep}.items() if v is not None}
                cases.append((fn, [x], kw))
            if fn in ("var", "std"):
                cases.append((fn, [x], {"ddof": 1}))
    assert _check(session, cases) > len(cases) // 3


def test_creation_infers_as_the_cluster_describes(session):
    cases = []
    for args in [(0, 100, 1), (5, 0, -1), (3, 3, 1), (0, 10, 3), (-7, 7, 2), (0, 1, 0.1), (0.5, 10.3, 0.7),
                 (0, 5.0, 1), (1.5, -2, -0.25), (0, 10, 0), (10, 0, 1), (0, 100, 1000),
                 (0, 2 ** 62, 1), (0, 2 ** 58, 1), (2 ** 53 + 1, 2 ** 53 + 8, 3), (-(2 ** 60), 2 ** 60, 7)]:
        cases.append(("arange", list(args), {}))
        cases.append(("arange", list(args), {"chunks": 7}))
    shapes = [[], [0], [3], [2, 5, 1], [-1], [1] * 32, [1] * 33, [2 ** 31, 2 ** 31], [2 ** 29, 2 ** 29]]
    for fn, dt, shape in itertools.product(["zeros", "ones", "empty"], DTYPES, shapes):
        cases.append((fn, [shape], {"dtype": dt}))
        cases.append((fn, [shape], {"dtype": dt, "chunks": 2}))
    assert _check(session, cases) > len(cases) // 2


def test_common_calls_make_no_describe_request(session, monkeypatch):
    seen = []
    real = type(session)._json

    def counting(self, method, path, *a, **k):
        seen.append(path)
        return real(self, method, path, *a, **k)

    monkeypatch.setattr(type(session), "_json", counting)
    monkeypatch.setattr(session, "_described", type(session._described)())
    x = mt.tensor(np.arange(12.0).reshape(3, 4))
    t = (mt.arange(100) * 2).sum()
    u = (mt.sqrt(x + 1) - x.mean(axis=0)).max(axis=1, keepdims=True)
    v = mt.ones((3, 4), dtype="float32") * 2.5 + mt.zeros(4)
    assert not [p for p in seen if p.endswith("/describe")], seen
    assert (t.shape, t.dtype) == ((), np.dtype("int64"))
    np.testing.assert_allclose(u.fetch(), (np.sqrt(np.arange(12.0).reshape(3, 4) + 1) -
                                            np.arange(12.0).reshape(3, 4).mean(axis=0)).max(axis=1, keepdims=True))
    assert v.dtype == (np.ones((3, 4), dtype="float32") * 2.5 + np.zeros(4)).dtype
    assert int(t) == int((np.arange(100) * 2).sum())


def test_compute_reads_several_values_in_one_graph(session, monkeypatch):
    a = np.random.default_rng(3).standard_normal((7, 5))
    ta = mt.tensor(a, chunks=3)
    posts = []
    real = type(session)._json

    def counting(self, method, path, *args, **k):
        if path.endswith("/programs"):
            posts.append(path)
        return real(self, method, path, *args, **k)

    monkeypatch.setattr(type(session), "_json", counting)
    s, m, d = mt.compute(ta.sum(), ta.mean(axis=0), {"max": ta.max(), "n": 3, "l": [ta.min()]})
    assert len(posts) == 1
    np.testing.assert_allclose(s, a.sum())
    assert isinstance(s, np.generic)
    np.testing.assert_allclose(m, a.mean(axis=0))
    assert d["n"] == 3 and d["max"] == a.max() and d["l"][0] == a.min()
    # computed values are not computed again
    done = ta.sum().execute()
    posts.clear()
    (again,) = mt.compute(done)
    assert posts == [] and again == done.fetch()
