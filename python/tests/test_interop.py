"""phobos.tensor with NumPy: the array protocols (ufuncs and functions on
tensors stay lazy tensors), errors as NumPy raises them, mt.random, and the
Tensor's Python properties."""

import operator

import numpy as np
import pytest

import phobos.tensor as mt
from phobos.tensor import Tensor

CHUNKINGS = (1, 3, 1000, None)
AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


def check(got, want, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    if want.dtype.kind == "f":
        rtol, atol = (1e-5, 1e-6) if want.dtype == np.float32 else (1e-12, 1e-12)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def lazy(t):
    return isinstance(t, Tensor) and repr(t).startswith("Tensor <")


X = np.random.default_rng(42).standard_normal((4, 5)) * 2
X[0, 0] = 0.0
V = np.arange(1.0, 6.0)

# NumPy functions and ufuncs called on tensors --------------------------------------------------

PROTOCOL = {
    "np.sin": lambda a: np.sin(a), "np.add-scalar": lambda a: np.add(a, 1),
    "np.add-scalar-left": lambda a: np.add(2.5, a), "np.multiply": lambda a: np.multiply(a, a),
    "np.subtract-array": lambda a: np.subtract(a, V), "np.divide": lambda a: np.divide(a, 4),
    "np.mod": lambda a: np.mod(a, 1.5), "np.power": lambda a: np.power(a, 2),
    "np.negative": lambda a: np.negative(a), "np.abs": lambda a: np.abs(a), "np.sqrt": lambda a: np.sqrt(a),
    "np.maximum": lambda a: np.maximum(a, 0), "np.less": lambda a: np.less(a, 0.5),
    "np.isinf": lambda a: np.isinf(a / 0.0), "np.isnan": lambda a: np.isnan(np.log(a)),
    "np.positive": lambda a: np.positive(a), "np.logical_not": lambda a: np.logical_not(a > 0),
    "np.matmul": lambda a: np.matmul(a, a.T), "ndarray+tensor": lambda a: V + a,
    "ndarray<tensor": lambda a: V < a, "ndarray@tensor": lambda a: X.T @ a,
    "np.float64*tensor": lambda a: np.float64(2) * a,
    "np.sum-axis0": lambda a: np.sum(a, axis=0), "np.sum": lambda a: np.sum(a),
    "np.sum-keepdims": lambda a: np.sum(a, axis=1, keepdims=True), "np.mean": lambda a: np.mean(a),
    "np.mean-axis": lambda a: np.mean(a, axis=-1), "np.var": lambda a: np.var(a, axis=0, ddof=1),
    "np.std": lambda a: np.std(a), "np.prod": lambda a: np.prod(a, axis=1),
    "np.min": lambda a: np.min(a, axis=0), "np.amax": lambda a: np.amax(a), "np.any": lambda a: np.any(a > 3),
    "np.all": lambda a: np.all(a > -10, axis=1), "np.count_nonzero": lambda a: np.count_nonzero(a, axis=0),
    "np.argmin": lambda a: np.argmin(a), "np.argmax": lambda a: np.argmax(a, axis=1),
    "np.cumsum": lambda a: np.cumsum(a, axis=1), "np.cumprod": lambda a: np.cumprod(a),
    "np.where": lambda a: np.where(a > 0, a, 0), "np.concatenate": lambda a: np.concatenate([a, a]),
    "np.concatenate-axis1": lambda a: np.concatenate([a, a], axis=1),
    "np.linalg.norm-axis1": lambda a: np.linalg.norm(a, axis=1), "np.linalg.norm": lambda a: np.linalg.norm(a),
    "np.linalg.norm-ord1": lambda a: np.linalg.norm(a, ord=1, axis=0),
    "np.reshape": lambda a: np.reshape(a, (2, -1)), "np.transpose": lambda a: np.transpose(a),
    "np.ravel": lambda a: np.ravel(a), "np.squeeze": lambda a: np.squeeze(a[:1]),
    "np.expand_dims": lambda a: np.expand_dims(a, 1), "np.flip": lambda a: np.flip(a, 1),
    "np.fliplr": lambda a: np.fliplr(a), "np.flipud": lambda a: np.flipud(a),
    "np.broadcast_to": lambda a: np.broadcast_to(a[0], (3, 5)), "np.stack": lambda a: np.stack([a, a], axis=1),
    "np.vstack": lambda a: np.vstack([a, a[0]]), "np.hstack": lambda a: np.hstack([a, a]),
    "np.clip": lambda a: np.clip(a, -1, 1), "np.round": lambda a: np.round(a, 2),
    "np.around": lambda a: np.around(a), "np.dot": lambda a: np.dot(a, a.T), "np.outer": lambda a: np.outer(a[0], a[1]),
    "np.tensordot": lambda a: np.tensordot(a, a, axes=([0], [0])), "np.zeros_like": lambda a: np.zeros_like(a),
    "np.ones_like": lambda a: np.ones_like(a), "np.full_like": lambda a: np.full_like(a, 7.5),
    "np.atleast_2d": lambda a: np.atleast_2d(a[0]), "np.atleast_1d": lambda a: np.atleast_1d(a[0, 0]),
    "np.add.reduce": lambda a: np.add.reduce(a), "np.add.reduce-axis0": lambda a: np.add.reduce(a, axis=0),
    "np.add.reduce-axis-None": lambda a: np.add.reduce(a, axis=None),
    "np.multiply.reduce-axis1": lambda a: np.multiply.reduce(a, axis=1),
    "np.maximum.reduce": lambda a: np.maximum.reduce(a), "np.minimum.reduce": lambda a: np.minimum.reduce(a, axis=1),
    "np.logical_and.reduce": lambda a: np.logical_and.reduce(a > -1),
    "np.logical_or.reduce": lambda a: np.logical_or.reduce(a > 2),
    "np.add.accumulate": lambda a: np.add.accumulate(a),
    "np.add.accumulate-axis1": lambda a: np.add.accumulate(a, axis=1),
    "np.multiply.accumulate": lambda a: np.multiply.accumulate(a, axis=1),
}


@pytest.mark.parametrize("fn", [pytest.param(f, id=i) for i, f in PROTOCOL.items()])
def test_numpy_protocol_returns_lazy_tensors(session, fn):
    with np.errstate(all="ignore"):
        want = np.asarray(fn(X.copy()))
    ts = [fn(mt.tensor(X, chunks=c)) for c in CHUNKINGS]
    for t in ts:
        assert lazy(t), type(t)
    session.execute(*ts)
    for c, t in zip(CHUNKINGS, ts):
        check(t.fetch(), want, f"chunks={c}")


@pytest.mark.parametrize("fn, want", [
    pytest.param(np.ndim, 2, id="np.ndim"), pytest.param(np.shape, (4, 5), id="np.shape"),
    pytest.param(np.size, 20, id="np.size"), pytest.param(lambda a: np.size(a, 1), 5, id="np.size-axis"),
])
def test_numpy_metadata_functions(fn, want):
    assert fn(mt.tensor(X)) == want


@pytest.mark.parametrize("c", CHUNKINGS)
def test_asarray_gives_the_array(c):
    t = mt.tensor(X, chunks=c) * 2
    a = np.asarray(t)
    assert type(a) is np.ndarray
    check(a, X * 2)
    check(np.array(t), X * 2)
    check(np.asarray(t, dtype=np.float32), (X * 2).astype(np.float32))
    check(t.fetch(), X * 2)
    assert t.tolist() == (X * 2).tolist()


def test_empty_like_is_a_lazy_tensor(session):
    t = np.empty_like(mt.tensor(X.astype(np.int32)))
    assert lazy(t) and t.shape == (4, 5) and t.dtype == np.int32
    assert np.asarray(t).shape == (4, 5)


UNSUPPORTED = [
    ("np.polyval", lambda t: np.polyval(t[0], t[1]), "polyval"), ("np.sin-out", lambda t: np.sin(t, out=np.empty((4, 5))), "sin"),
    ("np.add-out", lambda t: np.add(t, 1, out=np.empty((4, 5))), "add"),
    ("np.sum-out", lambda t: np.sum(t, out=np.empty(())), "sum"), ("np.median-out", lambda t: np.median(t, out=np.empty(())), "median"),
    ("np.unique-axis", lambda t: np.unique(t, return_counts=True, axis=0), "unique"),
    ("np.argsort-order", lambda t: np.argsort(t, order="x"), "argsort"), ("np.histogram2d", lambda t: np.histogram2d(t, t), "histogram2d"),
    ("np.add.outer", lambda t: np.add.outer(t, t), "outer"),
    ("np.subtract.reduce", lambda t: np.subtract.reduce(t), "subtract.reduce"),
    ("np.add.reduceat", lambda t: np.add.reduceat(t, [0, 2]), "reduceat"),
    ("np.maximum.accumulate", lambda t: np.maximum.accumulate(t), "maximum.accumulate"),
    ("np.sum-where", lambda t: np.sum(t, where=t > 0), "sum"),
    ("np.linalg.eig", lambda t: np.linalg.eig(t), "eig"),
    ("np.frexp-out", lambda t: np.frexp(t, out=(np.empty((4, 5)), np.empty((4, 5), np.int32))), "frexp"),
]


@pytest.mark.parametrize("fn, name", [pytest.param(f, n, id=i) for i, f, n in UNSUPPORTED])
def test_unsupported_raise_not_implemented_naming_the_function(fn, name):
    with pytest.raises(NotImplementedError, match=name):
        fn(mt.tensor(X))


# errors as NumPy raises them ------------------------------------------------------------------------

ERRORS = [
    ("add-shape-mismatch", lambda m, a: m.add(a, m.ones(3)), ValueError),
    ("operator-shape-mismatch", lambda m, a: a + a[:, :2], ValueError),
    ("matmul-mismatch", lambda m, a: m.matmul(a, a), ValueError),
    ("concatenate-mismatch", lambda m, a: m.concatenate([a, a[:, :2]]), ValueError),
    ("stack-mismatch", lambda m, a: m.stack([a, a[:2]]), ValueError),
    ("broadcast_to-bad", lambda m, a: m.broadcast_to(a, (5, 4)), ValueError),
    ("index-out-of-range", lambda m, a: a[4], IndexError),
    ("neg-index-out-of-range", lambda m, a: a[0, -6], IndexError),
    ("too-many-indices", lambda m, a: a[0, 0, 0], IndexError), ("slice-step-0", lambda m, a: a[::0], ValueError),
    ("reshape-wrong-size", lambda m, a: a.reshape(3, 7), ValueError),
    ("reshape-wrong-size-minus1", lambda m, a: m.reshape(a, (3, -1)), ValueError),
    ("reshape-two-minus1", lambda m, a: a.reshape(-1, -1), ValueError),
    ("squeeze-not-1", lambda m, a: m.squeeze(a, 0), ValueError),
    ("argmin-tuple-axis", lambda m, a: m.argmin(a, axis=(0, 1)), TypeError),
    ("eye-negative", lambda m, a: m.eye(-1), ValueError),
    ("arange-step-0", lambda m, a: m.arange(0, 5, 0), ZeroDivisionError),
    ("norm-fro-vector", lambda m, a: m.linalg.norm(a, "fro", axis=1), ValueError),
    ("where-one-of-x-y", lambda m, a: m.where(a > 0, a), (TypeError, ValueError)),
]


@pytest.mark.parametrize("fn, exc", [pytest.param(f, e, id=i) for i, f, e in ERRORS])
def test_errors_as_numpy(fn, exc):
    with pytest.raises(exc):
        fn(np, X)  # NumPy raises this too
    with pytest.raises(exc):
        fn(mt, mt.tensor(X, chunks=2))


BAD_AXES = [
    ("sum-axis2", lambda m, a: m.sum(a, axis=2)), ("sum-axis-3", lambda m, a: m.sum(a, axis=-3)),
    ("mean-tuple", lambda m, a: m.mean(a, axis=(0, 2))), ("argmax-axis5", lambda m, a: m.argmax(a, axis=5)),
    ("cumsum-axis3", lambda m, a: m.cumsum(a, axis=3)), ("flip-axis2", lambda m, a: m.flip(a, 2)),
    ("concatenate-axis2", lambda m, a: m.concatenate([a, a], axis=2)),
    ("expand_dims-axis4", lambda m, a: m.expand_dims(a, 4)),
    ("transpose-axes", lambda m, a: m.transpose(a, (0, 2))), ("squeeze-axis3", lambda m, a: m.squeeze(a, 3)),
]
@pytest.mark.parametrize("fn", [pytest.param(f, id=i) for i, f in BAD_AXES])
def test_bad_axis_is_value_or_index_error(fn):
    with pytest.raises(AxisError):
        fn(np, X)
    with pytest.raises((ValueError, IndexError)):
        fn(mt, mt.tensor(X))


@pytest.mark.parametrize("fn", [pytest.param(f, id=i) for i, f in BAD_AXES])
def test_bad_axis_is_numpy_axis_error(fn):
    with pytest.raises(AxisError):
        fn(mt, mt.tensor(X))


@pytest.mark.parametrize("make", [
    pytest.param(lambda: mt.tensor(np.ones(3, np.clongdouble)), id="tensor-clongdouble"),
    pytest.param(lambda: mt.asarray(np.ones(3, np.longdouble)), id="asarray-longdouble"),
    pytest.param(lambda: mt.tensor(np.array(["ab", "c"])), id="tensor-str"),
    pytest.param(lambda: mt.tensor([1, 2], dtype=np.clongdouble), id="tensor-dtype-clongdouble"),
    pytest.param(lambda: mt.zeros(3, dtype=np.clongdouble), id="zeros-clongdouble"),
    pytest.param(lambda: mt.tensor(X).astype(np.clongdouble), id="astype-clongdouble"),
    pytest.param(lambda: mt.tensor(X) + np.clongdouble(3), id="add-np.clongdouble"),
    pytest.param(lambda: mt.tensor(X).sum(dtype=np.longdouble), id="sum-dtype-longdouble"),
    pytest.param(lambda: np.add(mt.tensor(X), np.ones(5, np.clongdouble)), id="np.add-clongdouble-array"),
])
def test_unsupported_dtype_raises_type_error(make):
    with pytest.raises(TypeError):
        make()


# mt.random -------------------------------------------------------------------------------------

def _draws(c):
    mt.random.seed(5)
    return [mt.random.rand(4, 5, chunks=c), mt.random.randn(30, chunks=c),
            mt.random.randint(3, 9, size=(6, 5), chunks=c), mt.random.uniform(-2, 3, size=40, chunks=c),
            mt.random.normal(10, 2, size=(5, 8), chunks=c), mt.random.randint(4, size=7, dtype="int32", chunks=c),
            mt.random.rand(12, dtype="float32", chunks=c), mt.random.random_sample((2, 3), chunks=c)]


WANT_META = [((4, 5), "float64"), ((30,), "float64"), ((6, 5), "int64"), ((40,), "float64"), ((5, 8), "float64"),
             ((7,), "int32"), ((12,), "float32"), ((2, 3), "float64")]


def test_random_is_reproducible_whatever_the_chunks(session):
    runs = [_draws(c) for c in CHUNKINGS] + [_draws(None)]
    session.execute(*[t for r in runs for t in r])
    first = [t.fetch() for t in runs[0]]
    for (shape, dtype), v in zip(WANT_META, first):
        assert (v.shape, v.dtype.name) == (shape, dtype)
    for c, r in zip(CHUNKINGS[1:] + ("again",), runs[1:]):
        for a, t in zip(first, r):
            np.testing.assert_array_equal(t.fetch(), a, err_msg=f"chunks={c}")
    rand, randn, randint, uniform, normal, randint4, rand32, sample = first
    assert 0 <= rand.min() and rand.max() < 1 and 0 <= sample.min() and sample.max() < 1
    assert 0 <= rand32.min() and rand32.max() < 1
    assert 3 <= randint.min() and randint.max() < 9 and 0 <= randint4.min() and randint4.max() < 4
    assert -2 <= uniform.min() and uniform.max() < 3
    assert len(np.unique(rand)) == rand.size and len(np.unique(randn)) == randn.size


def test_random_streams_differ_and_seeds_differ(session):
    mt.random.seed(5)
    a, b = mt.random.rand(50), mt.random.rand(50)
    mt.random.seed(6)
    c = mt.random.rand(50)
    session.execute(a, b, c)
    assert not np.array_equal(a.fetch(), b.fetch())
    assert not np.array_equal(a.fetch(), c.fetch())


def test_random_state_objects(session):
    a, b = mt.random.RandomState(7).rand(10), mt.random.RandomState(7).rand(10)
    c = mt.random.RandomState(8).rand(10)
    rs = mt.random.RandomState(7)
    d, e = rs.rand(10, chunks=3), rs.rand(10)
    session.execute(a, b, c, d, e)
    np.testing.assert_array_equal(a.fetch(), b.fetch())
    np.testing.assert_array_equal(a.fetch(), d.fetch())
    assert not np.array_equal(a.fetch(), c.fetch()) and not np.array_equal(d.fetch(), e.fetch())
    assert isinstance(a, Tensor) and a.shape == (10,) and a.dtype == np.float64


@pytest.mark.parametrize("name, make, mean, std, low, high", [
    pytest.param("rand", lambda: mt.random.rand(100_000, chunks=30_000), 0.5, 12 ** -0.5, 0, 1, id="rand"),
    pytest.param("randn", lambda: mt.random.randn(100_000), 0.0, 1.0, None, None, id="randn"),
    pytest.param("uniform", lambda: mt.random.uniform(-3, 5, size=100_000, chunks=7_000), 1.0, 8 * 12 ** -0.5, -3, 5,
                 id="uniform"),
    pytest.param("normal", lambda: mt.random.normal(10, 3, size=(200, 500)), 10.0, 3.0, None, None, id="normal"),
    pytest.param("randint", lambda: mt.random.randint(-4, 6, size=100_000), 0.5, (99 / 12) ** 0.5, -4, 6, id="randint"),
    pytest.param("rand-float32", lambda: mt.random.rand(100_000, dtype="float32"), 0.5, 12 ** -0.5, 0, 1,
                 id="rand-float32"),
])
def test_random_distributions(session, name, make, mean, std, low, high):
    mt.random.seed(11)
    t = make()
    v = t.execute(session=session).fetch()
    assert v.size == 100_000
    assert abs(v.mean() - mean) < 0.02 * max(std, 1) and abs(v.std() - std) < 0.02 * std
    if low is not None:
        assert low <= v.min() and v.max() < high
    if name == "randint":
        assert set(np.unique(v)) == set(range(low, high))
    # the cluster's own reductions agree with NumPy's on the same numbers
    m, s = mt.mean(t), mt.std(t)
    session.execute(m, s)
    check(m.fetch(), np.mean(v), "mean")
    check(s.fetch(), np.std(v), "std")


# Tensor properties ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (2, 3, 4)], ids=lambda s: "x".join(map(str, s)) or "0d")
def test_properties(dtype, shape):
    a = np.ones(shape, dtype)
    t = mt.tensor(a, chunks=2)
    u = t + t if dtype != "bool" else t | t
    for x in (t, u):
        assert (x.shape, x.dtype, x.ndim, x.size, x.nbytes, x.itemsize) == \
            (a.shape, a.dtype, a.ndim, a.size, a.nbytes, a.itemsize)
        if shape:  # 0-d: test_nsplits_of_0d
            assert x.nsplits == tuple(tuple([2] * (n // 2) + [1] * (n % 2)) for n in shape)
    if shape:
        assert len(t) == shape[0]
    else:
        with pytest.raises(TypeError):
            len(t)
        with pytest.raises(TypeError):
            iter(t).__next__()


@pytest.mark.parametrize("chunks, nsplits", [(1, ((1, 1, 1), (1,) * 5)), (3, ((3,), (3, 2))), (1000, ((3,), (5,))),
                                             ((2, 4), ((2, 1), (4, 1))), ([[1, 2], [5]], ((1, 2), (5,)))],
                         ids=["1", "3", "1000", "per-axis", "sizes"])
def test_nsplits(chunks, nsplits):
    t = mt.tensor(np.zeros((3, 5)), chunks=chunks)
    assert t.nsplits == nsplits
    assert (t + 1).nsplits == nsplits
    assert t.chunk_shape == tuple(len(s) for s in nsplits)


@pytest.mark.parametrize("make", [pytest.param(lambda: mt.tensor(np.float64(3)), id="data"),
                                  pytest.param(lambda: mt.tensor(V).sum(), id="sum")])
def test_nsplits_of_0d(make):
    assert make().nsplits == ()


def test_iteration_gives_rows(session):
    t = mt.tensor(X, chunks=3)
    rows = list(t)
    assert len(rows) == 4 and all(isinstance(r, Tensor) and r.shape == (5,) for r in rows)
    session.execute(*rows)
    for r, w in zip(rows, X):
        check(r.fetch(), w)
    assert [float(x) for x in mt.tensor(V)] == V.tolist()


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=["0d", "1", "1x1"])
@pytest.mark.parametrize("value", [2.75, -3, 0], ids=["float", "int", "zero"])
def test_scalar_conversions(shape, value):
    a = np.full(shape, value)
    t = mt.tensor(a, chunks=1) * 1
    assert float(t) == float(a) and int(t) == int(a) and bool(t) == bool(a)
    assert isinstance(float(t), float) and isinstance(int(t), int) and isinstance(bool(t), bool)
    if a.dtype.kind == "i":
        assert operator.index(t) == int(a) and [10, 20, 30, 40][t] == [10, 20, 30, 40][int(a)]
    else:
        with pytest.raises(TypeError):
            operator.index(t)


@pytest.mark.parametrize("shape", [(2,), (2, 3)], ids=["2", "2x3"])
def test_bool_of_bigger_tensors_is_ambiguous(shape):
    t = mt.tensor(np.ones(shape))
    with pytest.raises(ValueError):
        bool(np.ones(shape))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)
    with pytest.raises(ValueError):
        if t > 0:
            pass


@pytest.mark.parametrize("conv", [
    pytest.param(float, id="float"),
    pytest.param(int, id="int"),
])
def test_scalar_conversion_of_bigger_tensors(conv):
    with pytest.raises(TypeError):
        conv(np.ones(2))
    with pytest.raises(TypeError):
        conv(mt.tensor(np.ones(2)))


def test_repr_and_execute_keep_the_value(session):
    t = mt.tensor(V, chunks=2) + 1
    assert lazy(t) and "float64" in repr(t)
    assert t.execute(session=session) is t
    assert repr(t) == repr(V + 1) and str(t) == str(V + 1)
    assert not lazy(t)


def test_setitem_rebinds_and_tensors_hash(session):
    t = mt.tensor(V)
    old = t * 1
    t[0] = 1
    want = V.copy()
    want[0] = 1
    np.testing.assert_array_equal(t.fetch(), want)
    np.testing.assert_array_equal(old.fetch(), V)
    assert hash(t) == hash(t) and len({t, t}) == 1
    with pytest.raises(TypeError):
        Tensor()
