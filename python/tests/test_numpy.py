"""phobos.tensor against NumPy 1.24: values, dtypes and shapes of every
ufunc, operator, reduction, creation, shape and linear-algebra function,
each case computed over several chunkings of its inputs."""

import contextlib
import operator

import numpy as np
import pytest

import phobos.tensor as mt
from phobos.tensor import Tensor

# single-element chunks, an odd size, one chunk for the whole array, auto
CHUNKINGS = (1, 3, 1000, None)
DTYPES = ("bool", "int32", "int64", "float32", "float64")
# NumPy's float16 results (e.g. sqrt of bool) have no Phobos dtype; the
# engine documents float64 for them (ndarray.UfuncFloat).
SUBST = {}  # float16 results are float16, as NumPy 1.24 gives them
RAISES = (TypeError, ValueError, IndexError, NotImplementedError, ZeroDivisionError)


def P(id, *values, marks=()):
    return pytest.param(*values, id=id, marks=marks)


def shape_id(s):
    return "x".join(map(str, s)) if s else "0d"


def data(dtype, shape, seed=0, nonzero=False, small=False):
    """Deterministic data: ints in [-9, 9], floats ~N(0, 3) with every
    fourth value an exact half or integer (rounding ties, floor/ceil)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        a = rng.random(shape) < 0.6
        return np.ones(shape, bool) if nonzero else np.asarray(a)
    if dtype in ("int32", "int64"):
        lo, hi = (-2, 3) if small else (-9, 10)
        a = rng.integers(lo, hi, shape)
        if nonzero:
            a[a == 0] = 1
        return np.asarray(a, dtype)
    if small:
        a = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)
    else:
        a = rng.standard_normal(shape) * 3
        flat = a.reshape(-1)
        flat[::4] = rng.integers(-6, 7, flat[::4].shape) / 2
    return np.asarray(a, dtype)


def expect(fn, arrays):
    """fn's NumPy result as an array (float16 results as the dtype the
    engine uses), or the exception NumPy raised."""
    with np.errstate(all="ignore"):
        try:
            w = np.asarray(fn(np, *arrays))
        except Exception as e:  # noqa: BLE001
            return e
        if w.dtype.name in SUBST:
            sub = SUBST[w.dtype.name]
            try:
                w = np.asarray(fn(np, *[a.astype(sub) if a.dtype == bool else a for a in arrays]))
            except TypeError:
                w = None
            if w is None or w.dtype.name != sub:
                # small integers to float16 (ldexp of int32 or bool): the
                # engine computes in float64 from the first operand
                w = np.asarray(fn(np, *[a.astype(sub) if i == 0 else a for i, a in enumerate(arrays)]))
            assert w.dtype.name == sub
    return w


def check(got, want, what=""):
    got = np.asarray(got)
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    if want.dtype.kind == "f":
        rtol, atol = {np.float16: (1e-3, 1e-6), np.float32: (1e-5, 1e-6)}.get(want.dtype.type, (1e-12, 1e-12))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def compare(session, want, make, chunkings=CHUNKINGS):
    """make(chunks) builds the tensor for each chunking; all run in one graph."""
    if isinstance(want, Exception):
        kinds = tuple(k for k in RAISES if isinstance(want, k))
        assert kinds, f"NumPy raised {want!r}"
        for c in chunkings:
            with pytest.raises(kinds):
                session.execute(make(c))
        return []
    ts = [make(c) for c in chunkings]
    for c, t in zip(chunkings, ts):
        assert isinstance(t, Tensor), f"chunks={c}: {type(t)}"
        assert (t.shape, t.dtype) == (want.shape, want.dtype), f"chunks={c} (metadata)"
    session.execute(*ts)
    for c, t in zip(chunkings, ts):
        check(t.fetch(), want, f"chunks={c}")
    return ts


def run(session, fn, *arrays, chunkings=CHUNKINGS):
    """fn(module, *inputs) in NumPy and in Phobos over every chunking."""
    return compare(session, expect(fn, arrays),
                   lambda c: fn(mt, *[mt.tensor(a, chunks=c) for a in arrays]), chunkings)


# ufuncs -------------------------------------------------------------------------

@pytest.mark.parametrize("name, dtype", [P(f"{n}-{d}", n, d) for n in mt.UNARY_UFUNCS for d in DTYPES])
def test_unary_ufunc(session, name, dtype):
    x = data(dtype, (4, 5), seed=len(name))
    if dtype.startswith("float"):
        x.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
    if name in ("floor", "ceil", "trunc") and dtype.startswith("int"):
        # the Array API standard: integers stay as they are (NumPy 1.24: float64)
        run(session, lambda m, a: a if m is np else getattr(m, name)(a), x)
        return
    run(session, lambda m, a: getattr(m, name)(a), x)


@contextlib.contextmanager
def nep50():
    """NumPy 2's promotion (NEP 50, the Array API standard's), which the
    client follows: a 0-d array promotes by its dtype, not its value."""
    old = np._get_promotion_state()
    np._set_promotion_state("weak")
    try:
        yield
    finally:
        np._set_promotion_state(old)


BROADCASTS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((5,), ()), ((), (2, 3)), ((4, 1), (1, 5)),
              ((), ())]
BINARY_CASES = []
for _i, (_name, _d1, _d2) in enumerate((n, a, b) for n in mt.BINARY_UFUNCS for a in DTYPES for b in DTYPES):
    _s1, _s2 = BROADCASTS[_i % len(BROADCASTS)]
    BINARY_CASES.append(P(f"{_name}-{_d1}-{_d2}-{shape_id(_s1)}+{shape_id(_s2)}", _name, _d1, _d2, _s1, _s2))


@pytest.mark.parametrize("name, d1, d2, s1, s2", BINARY_CASES)
def test_binary_ufunc(session, name, d1, d2, s1, s2):
    divides = name in ("floor_divide", "remainder", "true_divide")
    x = data(d1, s1, seed=1)
    y = data(d2, s2, seed=2, nonzero=divides and d2 != "float64")
    if name == "power" and d2 not in ("float32", "float64"):
        y = np.abs(y) % 4 if d2 != "bool" else y  # no negative integer powers
    with nep50() if () in (s1, s2) else contextlib.nullcontext():
        run(session, lambda m, a, b: getattr(m, name)(a, b), x, y)


# Python operators -------------------------------------------------------------------

BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<": operator.lt,
          "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
          "&": operator.and_, "|": operator.or_, "^": operator.xor, "@": operator.matmul,
          "<<": operator.lshift, ">>": operator.rshift}
BITWISE = ("&", "|", "^", "<<", ">>")
OP_CASES = []
for _sym, _op in BINOPS.items():
    for _d1, _d2 in (("int32", "int32"), ("float64", "int64"), ("float32", "float32"), ("bool", "bool"), ("int64", "int32")):
        if _sym in BITWISE and "float" in _d1 + _d2 or _sym in ("<<", ">>") and _d1 == "bool" or _sym == "@":
            continue
        OP_CASES.append(P(f"t{_sym}t-{_d1}-{_d2}", _op, _d1, _d2, "tt"))
    for _d in ("int32", "float32", "float64", "bool"):
        if _sym in BITWISE and "float" in _d or _sym in ("<<", ">>") and _d == "bool" or _sym == "@":
            continue
        _s = True if _d == "bool" else 2
        OP_CASES.append(P(f"t{_sym}{_s}-{_d}", _op, _d, _s, "ts"))
        OP_CASES.append(P(f"{_s}{_sym}t-{_d}", _op, _d, _s, "st"))


@pytest.mark.parametrize("op, d1, d2, form", OP_CASES)
def test_operator(session, op, d1, d2, form):
    divides = op in (operator.floordiv, operator.mod, operator.truediv)
    x = data(d1, (3, 4), seed=3, nonzero=divides and form == "st")
    if op is operator.pow and d1 != "bool":
        x = np.abs(x) % 4 if form == "st" else x
    if form == "tt":
        y = data(d2, (4,), seed=4, nonzero=divides)
        if op is operator.pow:
            y = np.abs(y) % 4 if d2 != "bool" else y
        run(session, lambda m, a, b: op(a, b), x, y)
    elif form == "ts":
        run(session, lambda m, a: op(a, d2), x)
    else:
        run(session, lambda m, a: op(d2, a), x)


UNOPS = {"neg": operator.neg, "abs": abs, "invert": operator.invert, "pos": operator.pos}


@pytest.mark.parametrize("sym, dtype", [P(f"{s}-{d}", s, d) for s in UNOPS for d in DTYPES
                                        if (s, d) != ("pos", "bool")])
def test_unary_operator(session, sym, dtype):
    run(session, lambda m, a: UNOPS[sym](a), data(dtype, (3, 4), seed=5))


INPLACE = {"+=": (operator.iadd, operator.add), "-=": (operator.isub, operator.sub),
           "*=": (operator.imul, operator.mul), "/=": (operator.itruediv, operator.truediv),
           "//=": (operator.ifloordiv, operator.floordiv), "%=": (operator.imod, operator.mod),
           "**=": (operator.ipow, operator.pow), "@=": (operator.imatmul, operator.matmul)}


@pytest.mark.parametrize("sym", INPLACE)
@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_inplace_operator_changes_the_tensor(session, sym, dtype):
    # NumPy's in-place semantics on a handle: the tensor (and every name
    # bound to it) takes the result in its own dtype; a result NumPy cannot
    # cast back ('same_kind') is a TypeError; tensors built before keep the
    # old value. `@=` works as NumPy 2 and the Array API have it (NumPy 1.24
    # refuses it).
    iop, op = INPLACE[sym]
    x = data(dtype, (3, 3), seed=6, nonzero=True)
    other = np.abs(x) % 3 if sym in ("**=", "@=") else 2
    try:
        with np.errstate(all="ignore"):
            want = iop(x.copy(), other) if sym != "@=" else (x @ other).astype(x.dtype)
    except TypeError:
        want = None
    for c in CHUNKINGS:
        t = mt.tensor(x, chunks=c)
        before = t + 0
        alias = t
        arg = mt.tensor(other) if sym == "@=" else other
        if want is None:
            with pytest.raises(TypeError, match="same_kind"):
                iop(t, arg)
            continue
        u = iop(t, arg)
        assert u is t and alias is t and t.dtype == x.dtype
        session.execute(before, t)
        check(before.fetch(), x, f"old, chunks={c}")
        check(t.fetch(), want, f"new, chunks={c}")


@pytest.mark.parametrize("c", CHUNKINGS, ids=["1", "3", "1000", "auto"])
def test_plus_equals_changes_every_name(session, c):
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = mt.tensor(x, chunks=c)
    u = t
    u += 1
    assert u is t and t.dtype == np.int32
    with pytest.raises(TypeError, match="same_kind"):
        u *= 2.5  # NumPy: UFuncTypeError, a TypeError
    check(t.fetch(), x + 1)


SCALAR_CASES = [
    ("int32+1", "int32", lambda a: a + 1), ("int32*2.5", "int32", lambda a: a * 2.5),
    ("float32*2.5", "float32", lambda a: a * 2.5), ("float32+1", "float32", lambda a: a + 1),
    ("float32-True", "float32", lambda a: a - True), ("bool+1", "bool", lambda a: a + 1),
    ("bool+True", "bool", lambda a: a + True), ("bool*2.5", "bool", lambda a: a * 2.5),
    ("int64/2", "int64", lambda a: a / 2), ("int32/2", "int32", lambda a: a / 2),
    ("int32//2", "int32", lambda a: a // 2), ("int32%3", "int32", lambda a: a % 3),
    ("int32**2", "int32", lambda a: a ** 2), ("float32**0.5", "float32", lambda a: a ** 0.5),
    ("int32<2.5", "int32", lambda a: a < 2.5), ("float32==1", "float32", lambda a: a == 1),
    ("int32+2**40", "int32", lambda a: a + 2 ** 40), ("int32-(-2**31-1)", "int32", lambda a: a - (-2 ** 31 - 1)),
    ("float32+1e300", "float32", lambda a: a + 1e300), ("float32+70000", "float32", lambda a: a + 70000),
    ("float32+100", "float32", lambda a: a + 100), ("np.float64*float32", "float32", lambda a: np.float64(2.5) * a),
    ("np.int64+int32", "int32", lambda a: a + np.int64(3)), ("3-int32", "int32", lambda a: 3 - a),
    ("2**int32", "int32", lambda a: 2 ** (abs(a) % 5)), ("1.5/float32", "float32", lambda a: 1.5 / a),
    ("0d-int32+1", "int32", lambda a: a[0, 0] + 1), ("0d-float32*2.5", "float32", lambda a: a[0, 0] * 2.5),
    ("float32-0d-float64", "float32", lambda a: a - a.astype("float64").sum()),
    ("int32*0d-int64", "int32", lambda a: a * a.astype("int64")[1, 1]),
    ("int32**2.0", "int32", lambda a: a ** 2.0), ("float64**-1", "float64", lambda a: a ** -1),
    ("divmod-q", "int32", lambda a: divmod(a, 3)[0]), ("divmod-r", "float64", lambda a: divmod(a, 1.5)[1]),
    ("int32+list", "int32", lambda a: a + [1, 2, 3, 4]),
    ("float32+float64-array", "float32", lambda a: a + np.arange(4.0)),
]


# 0-d tensors promote by dtype (the Array API standard, NumPy 2), not by
# value, and a Python scalar beside a 0-d tensor is weak as beside any other
ZERO_D_CASES = {"float32-0d-float64", "int32*0d-int64", "0d-int32+1", "0d-float32*2.5"}


@pytest.mark.parametrize("case, dtype, fn", [P(i, i, d, f) for i, d, f in SCALAR_CASES])
def test_python_scalar_promotion(session, case, dtype, fn):
    with nep50() if case in ZERO_D_CASES else contextlib.nullcontext():
        run(session, lambda m, a: fn(a), data(dtype, (3, 4), seed=7, nonzero=True))


# reductions -----------------------------------------------------------------------------

AXES = [(None, False), (1, False), (-1, True), ((0, 2), False), ((0, -1), True), (None, True)]
RED_CASES = []
for _name in ("sum", "prod", "mean", "var", "std", "min", "max", "any", "all", "count_nonzero", "argmin", "argmax"):
    for _d in DTYPES:
        for _ax, _kd in AXES:
            if _name in ("argmin", "argmax") and isinstance(_ax, tuple):
                continue
            RED_CASES.append(P(f"{_name}-{_d}-axis={_ax}{'-keepdims' if _kd else ''}", _name, _d, _ax, _kd))


@pytest.mark.parametrize("name, dtype, axis, keepdims", RED_CASES)
def test_reduction(session, name, dtype, axis, keepdims):
    x = data(dtype, (3, 4, 5), seed=8, small=name == "prod")
    run(session, lambda m, a: getattr(m, name)(a, axis=axis, keepdims=keepdims), x)


@pytest.mark.parametrize("name, dtype, kw", [
    P("var-ddof1", "var", "float64", dict(ddof=1)), P("std-ddof1-axis0", "std", "float64", dict(ddof=1, axis=0)),
    P("var-int32-ddof2-axis1", "var", "int32", dict(ddof=2, axis=1)),
    P("std-float32-ddof1", "std", "float32", dict(ddof=1, axis=-1, keepdims=True)),
    P("sum-int32-dtype-float32", "sum", "int32", dict(dtype="float32")),
    P("sum-float64-dtype-int32", "sum", "float64", dict(dtype="int32", axis=0)),
    P("sum-bool-dtype-int32", "sum", "bool", dict(dtype="int32", axis=1)),
    P("prod-int32-dtype-int32", "prod", "int32", dict(dtype="int32")),
    P("prod-float32-dtype-float64", "prod", "float32", dict(dtype="float64", axis=0)),
    P("mean-int32-dtype-float32", "mean", "int32", dict(dtype="float32")),
    P("mean-float32-dtype-float64", "mean", "float32", dict(dtype="float64", axis=(0, 1))),
    P("var-float32-dtype-float64", "var", "float32", dict(dtype="float64", axis=1)),
    P("std-int64-dtype-float32", "std", "int64", dict(dtype="float32")),
    P("sum-axis-neg2", "sum", "float64", dict(axis=-2)),
])
def test_reduction_options(session, name, dtype, kw):
    x = data(dtype, (4, 6), seed=9, small=name == "prod")
    run(session, lambda m, a: getattr(m, name)(a, **kw), x)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name", ["sum", "min", "max", "argmin", "argmax", "mean", "any", "all", "count_nonzero"])
def test_reduction_with_nan_and_inf(session, name, axis):
    x = np.array([[1.0, np.nan, 3.0, -np.inf], [2.0, 5.0, np.inf, -1.0], [0.0, -2.0, np.nan, 4.0]])
    run(session, lambda m, a: getattr(m, name)(a, axis=axis), x)


@pytest.mark.parametrize("name", ["sum", "mean", "min", "argmax", "var"])
def test_reduction_as_method(session, name):
    run(session, lambda m, a: getattr(a, name)(axis=0), data("float64", (5, 3), seed=10))


CUM_CASES = [P(f"{n}-{d}-axis={ax}", n, d, ax, None) for n in ("cumsum", "cumprod") for d in DTYPES
             for ax in (None, 0, 1, -1)]
CUM_CASES += [P("cumsum-int32-dtype-float32", "cumsum", "int32", 1, "float32"),
              P("cumprod-float32-dtype-float64", "cumprod", "float32", None, "float64"),
              P("cumsum-bool-dtype-int32", "cumsum", "bool", 0, "int32")]


@pytest.mark.parametrize("name, dtype, axis, dt", CUM_CASES)
def test_cumulative(session, name, dtype, axis, dt):
    x = data(dtype, (4, 5), seed=11, small=name == "cumprod")
    run(session, lambda m, a: getattr(m, name)(a, axis=axis, dtype=dt), x)


# creation ---------------------------------------------------------------------------------

CREATION = [
    ("tensor-list-int", lambda m, c: m.array([[1, 2, 3], [4, 5, 6]], **c)),
    ("tensor-list-float", lambda m, c: m.array([1.5, -2.0, 3.25], **c)),
    ("tensor-list-bool", lambda m, c: m.array([[True, False], [False, True]], **c)),
    ("tensor-list-mixed", lambda m, c: m.array([1, 2.5, True], **c)),
    ("tensor-list-dtype", lambda m, c: m.array([1, 2, 3], dtype="float32", **c)),
    ("tensor-array-int32", lambda m, c: m.array(np.arange(12, dtype=np.int32).reshape(3, 4), **c)),
    ("tensor-array-astype", lambda m, c: m.array(np.arange(6.5), dtype=np.int64, **c)),
    ("tensor-scalar", lambda m, c: m.array(3.5, **c)),
    ("tensor-np.float32", lambda m, c: m.array(np.float32(2.5), **c)),
    ("tensor-of-tensor", lambda m, c: m.array(m.array([[1, 2], [3, 4]]), dtype="float32", **c)),
    ("asarray-list", lambda m, c: m.asarray([[1.0, 2.0]] * 3, **c)),
    ("asarray-array-float32", lambda m, c: m.asarray(np.linspace(0, 1, 7, dtype=np.float32), **c)),
    ("zeros", lambda m, c: m.zeros((3, 4), **c)), ("zeros-int", lambda m, c: m.zeros(5, dtype="int32", **c)),
    ("ones", lambda m, c: m.ones((2, 3, 4), **c)), ("ones-bool", lambda m, c: m.ones([4], dtype=bool, **c)),
    ("full-int", lambda m, c: m.full((3, 2), 7, **c)), ("full-float", lambda m, c: m.full(5, -2.5, **c)),
    ("full-bool", lambda m, c: m.full((2, 2), True, **c)),
    ("full-dtype", lambda m, c: m.full((4, 3), 3, dtype="float32", **c)),
    ("full-float-as-int", lambda m, c: m.full(4, 2.7, dtype="int32", **c)),
    ("full-np.float32", lambda m, c: m.full((2, 3), np.float32(1.5), **c)),
    ("full-np.int32", lambda m, c: m.full(3, np.int32(7), **c)), ("zeros-0d", lambda m, c: m.zeros((), **c)),
    ("arange-float-start", lambda m, c: m.arange(0.5, 4, **c)),
    ("arange-np.int32", lambda m, c: m.arange(np.int32(6), **c)),
    ("arange-1", lambda m, c: m.arange(10, **c)), ("arange-2", lambda m, c: m.arange(3, 17, **c)),
    ("arange-3", lambda m, c: m.arange(1, 20, 3, **c)), ("arange-neg-step", lambda m, c: m.arange(10, -3, -2, **c)),
    ("arange-float-stop", lambda m, c: m.arange(5.5, **c)),
    ("arange-float-step", lambda m, c: m.arange(0, 1, 0.1, **c)),
    ("arange-float-neg-step", lambda m, c: m.arange(2.0, -1.0, -0.3, **c)),
    ("arange-empty", lambda m, c: m.arange(5, 2, **c)),
    ("arange-dtype-int32", lambda m, c: m.arange(2, 11, 2, dtype="int32", **c)),
    ("arange-dtype-float32", lambda m, c: m.arange(-1, 1, 0.25, dtype="float32", **c)),
    ("linspace", lambda m, c: m.linspace(0, 1, 11, **c)),
    ("linspace-no-endpoint", lambda m, c: m.linspace(-2, 3, 7, endpoint=False, **c)),
    ("linspace-decreasing", lambda m, c: m.linspace(5, -5, 9, **c)),
    ("linspace-1", lambda m, c: m.linspace(2, 3, 1, **c)), ("linspace-0", lambda m, c: m.linspace(0, 1, 0, **c)),
    ("linspace-2-no-endpoint", lambda m, c: m.linspace(1, 2, 2, endpoint=False, **c)),
    ("linspace-float32", lambda m, c: m.linspace(0, 1, 6, dtype="float32", **c)),
    ("linspace-int32", lambda m, c: m.linspace(0, 10, 4, dtype="int32", **c)),
    ("eye", lambda m, c: m.eye(4, **c)), ("eye-M", lambda m, c: m.eye(3, 5, **c)),
    ("eye-k1", lambda m, c: m.eye(4, 3, k=1, **c)), ("eye-k-neg", lambda m, c: m.eye(5, k=-2, **c)),
    ("eye-k-out", lambda m, c: m.eye(3, k=4, **c)), ("eye-k-neg-wide", lambda m, c: m.eye(2, 6, k=-1, **c)),
    ("eye-int32", lambda m, c: m.eye(3, dtype="int32", **c)),
    ("identity", lambda m, c: m.identity(4, **c)), ("identity-bool", lambda m, c: m.identity(3, dtype=bool, **c)),
]


@pytest.mark.parametrize("fn", [P(i, f) for i, f in CREATION])
def test_creation(session, fn):
    compare(session, expect(lambda m: fn(m, {}), ()), lambda c: fn(mt, {"chunks": c}))


@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_retstep(session, endpoint):
    want, wstep = np.linspace(-1, 4, 6, endpoint=endpoint, retstep=True)
    for c in CHUNKINGS:
        t, step = mt.linspace(-1, 4, 6, endpoint=endpoint, retstep=True, chunks=c)
        assert step == pytest.approx(wstep, rel=1e-12)
        check(t.execute(session=session).fetch(), want, f"chunks={c}")


@pytest.mark.parametrize("shape, dtype", [P("3x4-float64", (3, 4), None), P("5-int32", 5, "int32"),
                                          P("2x2x2-bool", (2, 2, 2), bool)])
def test_empty(session, shape, dtype):
    want = np.empty(shape, dtype)
    ts = [mt.empty(shape, dtype=dtype, chunks=c) for c in CHUNKINGS]
    ts += [mt.empty_like(mt.tensor(np.ones(shape, dtype or float), chunks=c)) for c in CHUNKINGS]
    session.execute(*ts)
    for t in ts:
        assert t.fetch().shape == want.shape and t.fetch().dtype == want.dtype == t.dtype


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "full_like"])
@pytest.mark.parametrize("dtype, kw", [P("int32", "int32", {}), P("float32-as-int64", "float32", {"dtype": "int64"}),
                                       P("bool", "bool", {}), P("float64-as-bool", "float64", {"dtype": bool})])
def test_like(session, name, dtype, kw):
    args = (3,) if name == "full_like" else ()
    run(session, lambda m, a: getattr(m, name)(a, *args, **kw), data(dtype, (2, 5), seed=12))


# shapes -------------------------------------------------------------------------------------

SHAPE_OPS = [
    ("reshape-flat", (3, 4), lambda m, a: m.reshape(a, -1)), ("reshape-2", (3, 4), lambda m, a: a.reshape(2, -1)),
    ("reshape-3d", (3, 4), lambda m, a: a.reshape((2, 3, 2))),
    ("reshape-back", (2, 3, 4), lambda m, a: a.reshape(4, 6)),
    ("transpose", (2, 3, 4), lambda m, a: m.transpose(a)),
    ("transpose-axes", (2, 3, 4), lambda m, a: a.transpose(1, 0, 2)),
    ("transpose-tuple", (2, 3, 4), lambda m, a: a.transpose((2, 0, 1))), ("T", (3, 5), lambda m, a: a.T),
    ("ravel", (3, 4), lambda m, a: m.ravel(a)), ("ravel-method", (2, 3, 2), lambda m, a: a.ravel()),
    ("flatten", (3, 4), lambda m, a: a.flatten()), ("ravel-of-T", (3, 4), lambda m, a: a.T.ravel()),
    ("squeeze", (1, 3, 1, 4), lambda m, a: m.squeeze(a)), ("squeeze-0", (1, 3, 1, 4), lambda m, a: m.squeeze(a, 0)),
    ("squeeze-tuple", (1, 3, 1, 4), lambda m, a: m.squeeze(a, (0, -2))),
    ("expand_dims-0", (3, 4), lambda m, a: m.expand_dims(a, 0)),
    ("expand_dims-neg", (3, 4), lambda m, a: m.expand_dims(a, -1)),
    ("expand_dims-tuple", (3, 4), lambda m, a: m.expand_dims(a, (0, 2))),
    ("flip", (3, 4), lambda m, a: m.flip(a)), ("flip-0", (3, 4, 2), lambda m, a: m.flip(a, 0)),
    ("flip-neg", (3, 4, 2), lambda m, a: m.flip(a, -2)), ("flip-tuple", (3, 4, 2), lambda m, a: m.flip(a, (0, 2))),
    ("fliplr", (3, 4), lambda m, a: m.fliplr(a)), ("flipud", (3, 4), lambda m, a: m.flipud(a)),
    ("broadcast_to", (4,), lambda m, a: m.broadcast_to(a, (3, 4))),
    ("broadcast_to-3d", (3, 1), lambda m, a: m.broadcast_to(a, (2, 3, 5))),
    ("broadcast_to-0d", (), lambda m, a: m.broadcast_to(a, (2, 3))),
    ("expand_dims-0d", (), lambda m, a: m.expand_dims(a, 0)),
    ("flip-1d", (7,), lambda m, a: m.flip(a)), ("reshape-0d", (), lambda m, a: a.reshape(1, 1)),
    ("concatenate-0", (3, 4), lambda m, a: m.concatenate([a, a[:1] * 2])),
    ("concatenate-1", (3, 4), lambda m, a: m.concatenate([a, a[:, :2], a], axis=1)),
    ("concatenate-neg", (2, 3, 2), lambda m, a: m.concatenate([a, a], axis=-1)),
    ("concatenate-None", (3, 4), lambda m, a: m.concatenate([a, a[1:]], axis=None)),
    ("concatenate-mixed-dtypes", (3, 4), lambda m, a: m.concatenate([a, a.astype("float32")])),
    ("stack", (3, 4), lambda m, a: m.stack([a, a + 1])), ("stack-1", (3, 4), lambda m, a: m.stack([a, a, -a], axis=1)),
    ("stack-neg", (3, 4), lambda m, a: m.stack([a, a], axis=-1)),
    ("vstack-1d", (5,), lambda m, a: m.vstack([a, a * 2])), ("vstack-2d", (2, 5), lambda m, a: m.vstack([a, a[:1]])),
    ("hstack-1d", (5,), lambda m, a: m.hstack([a, a[:2]])), ("hstack-2d", (3, 2), lambda m, a: m.hstack([a, a, a])),
]


@pytest.mark.parametrize("dtype", ["int32", "float64"])
@pytest.mark.parametrize("shape, fn", [P(i, s, f) for i, s, f in SHAPE_OPS])
def test_shape_op(session, shape, fn, dtype):
    run(session, fn, data(dtype, shape, seed=13))


@pytest.mark.parametrize("src", [1, 3, None, (2, 5)], ids=["from-1", "from-3", "from-auto", "from-2x5"])
@pytest.mark.parametrize("target, nsplits", [
    P("2", 2, ((2, 2, 2, 1), (2, 2, 2))), P("5", 5, ((5, 2), (5, 1))), P("1000", 1000, ((7,), (6,))),
    P("per-axis", (3, 4), ((3, 3, 1), (4, 2))), P("whole-axis", (1, None), ((1,) * 7, (6,))),
    P("sizes", [[4, 3], [1, 2, 3]], ((4, 3), (1, 2, 3))),
])
def test_rechunk(session, src, target, nsplits):
    x = data("float64", (7, 6), seed=14)
    t = mt.tensor(x, chunks=src).rechunk(target)
    assert t.nsplits == nsplits
    u = mt.rechunk(mt.tensor(x, chunks=src) * 2, target)
    assert u.nsplits == nsplits
    session.execute(t, u)
    check(t.fetch(), x)
    check(u.fetch(), x * 2)


INDEXES = [
    ("int", 1), ("neg-int", -1), ("ints", (1, 2)), ("neg-ints", (-1, -2, -3)), ("all-ints", (3, 4, 5)),
    ("slice", slice(1, 3)), ("slice-step", slice(None, None, 2)), ("slice-rev", slice(None, None, -1)),
    ("slice-neg-step", slice(3, 0, -2)), ("slice-neg-start", slice(-2, None)), ("slice-step3", slice(None, None, -3)),
    ("slice-int", (slice(None), 2)), ("ellipsis-int", (Ellipsis, 1)), ("None-int", (None, 1)),
    ("int-None-negslice", (1, None, slice(None, None, -2))), ("ellipsis-None", (Ellipsis, None)),
    ("int-ellipsis-slice", (0, Ellipsis, slice(1, None, 3))), ("two-slices", (slice(3, None, -1), slice(None, -1))),
    ("mixed", (slice(1, None, 2), -1, slice(None, None, -2))), ("empty-tuple", ()), ("ellipsis", Ellipsis),
    ("out-of-range-slice", slice(10, 20)), ("slice-past-end", (slice(2, 100), slice(-100, 2))),
    ("None-None", (None, Ellipsis, None)), ("neg-stop", (slice(None, -1), slice(-4, -1, 2), 0)),
    ("neg-step-big-start", slice(100, None, -2)), ("neg-step-to-start", (0, slice(None, -100, -1))),
    ("neg-step-empty", slice(-100, 2, -1)), ("np-ints", (np.int64(2), np.int32(-1))),
]


@pytest.mark.parametrize("key", [P(i, k) for i, k in INDEXES])
def test_getitem(session, key):
    run(session, lambda m, a: a[key], data("float64", (4, 5, 6), seed=15))


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_astype(session, src, dst):
    run(session, lambda m, a: a.astype(dst), data(src, (3, 5), seed=16))


# elementwise beyond the ufuncs ------------------------------------------------------------------

MISC = [
    ("where", lambda m, a, b: m.where(a > 0, a, b)), ("where-scalar", lambda m, a, b: m.where(a > 0, a, 0)),
    ("where-scalars", lambda m, a, b: m.where(b < a, 1.5, -1)),
    ("where-broadcast", lambda m, a, b: m.where(a[:1] > 0, b, a)),
    ("clip", lambda m, a, b: m.clip(a, -1, 2)), ("clip-None-low", lambda m, a, b: m.clip(a, None, 1)),
    ("clip-None-high", lambda m, a, b: m.clip(a, -1, None)),
    ("clip-float-bounds", lambda m, a, b: m.clip(a, -1.5, 2.5)),
    ("clip-method", lambda m, a, b: a.clip(0, 3)), ("round", lambda m, a, b: m.round(a)),
    ("round-1", lambda m, a, b: m.round(a, 1)), ("round-2", lambda m, a, b: m.round(a, decimals=2)),
    ("round--1", lambda m, a, b: m.round(a, -1)), ("around-method", lambda m, a, b: a.round(1)),
]


@pytest.mark.parametrize("fn, dtype", [P(f"{i}-{d}", f, d) for i, f in MISC
                                       for d in ("int32", "int64", "float32", "float64")])
def test_where_clip_round(session, fn, dtype):
    x = data(dtype, (4, 5), seed=17)
    if dtype.startswith("float"):
        x = x * 7.3
    run(session, fn, x, data(dtype, (4, 5), seed=18))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_halves(session, dtype):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, 0.35, 1.125, 12345.5, -0.0], dtype)
    run(session, lambda m, a: m.round(a), x)
    run(session, lambda m, a: m.round(a, 1), x)


# linear algebra ------------------------------------------------------------------------------------

LINALG = [
    ("matmul-2d", (3, 4), (4, 5), lambda m, a, b: m.matmul(a, b)), ("@-2d", (3, 4), (4, 2), lambda m, a, b: a @ b),
    ("matmul-1d-2d", (4,), (4, 5), lambda m, a, b: a @ b), ("matmul-2d-1d", (3, 4), (4,), lambda m, a, b: a @ b),
    ("matmul-1d-1d", (6,), (6,), lambda m, a, b: a @ b), ("matmul-batch", (2, 3, 4), (2, 4, 5), lambda m, a, b: a @ b),
    ("matmul-bcast", (2, 3, 4), (4, 2), lambda m, a, b: m.matmul(a, b)),
    ("dot-2d", (3, 4), (4, 5), lambda m, a, b: m.dot(a, b)), ("dot-1d", (5,), (5,), lambda m, a, b: m.dot(a, b)),
    ("dot-method", (3, 4), (4,), lambda m, a, b: a.dot(b)),
    ("dot-3d-2d", (2, 3, 4), (4, 3), lambda m, a, b: m.dot(a, b)),
    ("dot-3d-3d", (2, 3, 4), (2, 4, 3), lambda m, a, b: m.dot(a, b)),
    ("outer", (4,), (3,), lambda m, a, b: m.outer(a, b)), ("outer-2d", (2, 3), (2, 2), lambda m, a, b: m.outer(a, b)),
    ("tensordot-2", (3, 4, 5), (4, 5, 2), lambda m, a, b: m.tensordot(a, b)),
    ("tensordot-1", (3, 4), (4, 5), lambda m, a, b: m.tensordot(a, b, 1)),
    ("tensordot-0", (3,), (2, 2), lambda m, a, b: m.tensordot(a, b, 0)),
    ("tensordot-pairs", (3, 4, 5), (5, 3, 2), lambda m, a, b: m.tensordot(a, b, ([0, 2], [1, 0]))),
    ("tensordot-ints", (3, 4), (5, 4), lambda m, a, b: m.tensordot(a, b, (1, 1))),
]


@pytest.mark.parametrize("d1, d2", [("float64", "float64"), ("float32", "float32"), ("int32", "int32"),
                                    ("int64", "float32"), ("bool", "bool")], ids="-".join)
@pytest.mark.parametrize("s1, s2, fn", [P(i, s1, s2, f) for i, s1, s2, f in LINALG])
def test_products(session, s1, s2, fn, d1, d2):
    run(session, fn, data(d1, s1, seed=19), data(d2, s2, seed=20))


NORMS = [(o, ax, kd) for o in (None, 1, 2, np.inf, -np.inf, 0, 3) for ax, kd in ((None, False), (0, True))]
NORM_CASES = [P(f"1d-ord={o}-axis={ax}{'-keepdims' if kd else ''}", (7,), o, ax, kd) for o, ax, kd in NORMS]
NORM_CASES += [P(f"2d-ord={o}-axis={ax}{'-keepdims' if kd else ''}", (4, 5), o, ax, kd)
               for o in (None, 1, 2, np.inf, -np.inf, 0, 3) for ax, kd in ((1, False), (-2, True))]
NORM_CASES += [P("2d-None", (4, 5), None, None, False), P("2d-fro", (4, 5), "fro", None, False),
               P("2d-fro-keepdims", (4, 5), "fro", None, True), P("2d-fro-axes", (4, 5), "fro", (0, 1), False),
               P("3d-None", (2, 3, 4), None, None, False), P("3d-axes", (2, 3, 4), None, (0, 2), True),
               P("3d-tuple-axis", (2, 3, 4), 1, (1,), False)]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
@pytest.mark.parametrize("shape, ord, axis, keepdims", NORM_CASES)
def test_norm(session, shape, ord, axis, keepdims, dtype):
    x = data(dtype, shape, seed=21)
    x.reshape(-1)[1] = 0
    run(session, lambda m, a: m.linalg.norm(a, ord=ord, axis=axis, keepdims=keepdims), x)

