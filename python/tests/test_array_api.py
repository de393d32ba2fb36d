"""phobos.tensor as a Python Array API (2022.12) namespace, against NumPy
1.24 and its numpy.array_api (the standard's reference on NumPy), over
several chunkings, through a real local cluster."""

import math
import warnings

import numpy as np
import pytest

import phobos.tensor as mt
from phobos.tensor._core import SUPPORTED_DTYPES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import numpy.array_api as xa

CHUNKS = [1, 3, 100, None]
ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float32", "float64", "complex64", "complex128"]
DTYPES = [d for d in ALL_DTYPES if d in SUPPORTED_DTYPES]
rng = np.random.default_rng(2022)


def _x(a, chunks):
    return mt.asarray(a, chunks=chunks)


def test_namespace(session):
    x = mt.asarray([1.0, 2.0])
    assert x.__array_namespace__() is mt
    assert x.__array_namespace__(api_version="2022.12") is mt
    assert x.__array_namespace__(api_version="2021.12") is mt
    with pytest.raises(ValueError, match="2024.12"):
        x.__array_namespace__(api_version="2025.12")
    assert mt.__array_api_version__ == "2024.12"
    for name in xa.__all__:
        if name in ALL_DTYPES and name not in SUPPORTED_DTYPES:
            continue  # a dtype the cluster does not have (yet)
        assert hasattr(mt, name), name
    for name in xa.linalg.__all__:
        assert hasattr(mt.linalg, name), "linalg." + name
    for d in DTYPES:
        assert np.dtype(getattr(mt, d)) == np.dtype(d)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_other_dtypes(session, dtype):
    """A dtype works as soon as the cluster supports it (SUPPORTED_DTYPES)."""
    if dtype not in SUPPORTED_DTYPES:
        pytest.skip(f"{dtype} is not supported by this cluster")
    a = np.arange(5).astype(dtype)
    x = mt.asarray(a)
    assert x.dtype == np.dtype(dtype) and getattr(mt, dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(mt.concat([x, x]).fetch(), np.concatenate([a, a]))


def test_device_and_dlpack(session):
    a = np.arange(6.0).reshape(2, 3)
    x = mt.asarray(a, device="cpu")
    assert x.device == "cpu" and x.to_device("cpu") is x
    with pytest.raises(ValueError):
        x.to_device("cuda:0")
    with pytest.raises(ValueError):
        mt.zeros(3, device="gpu")
    for f, args in [(mt.zeros, (3,)), (mt.ones, (3,)), (mt.empty, (3,)), (mt.full, (3, 2.0)), (mt.arange, (3,)),
                    (mt.linspace, (0, 1, 3)), (mt.eye, (3,)), (mt.zeros_like, (x,)), (mt.ones_like, (x,)),
                    (mt.empty_like, (x,)), (mt.full_like, (x, 1))]:
        assert f(*args, device="cpu").device == "cpu"
    import inspect
    for f in (mt.zeros, mt.ones, mt.empty, mt.full, mt.arange, mt.linspace, mt.eye, mt.zeros_like, mt.full_like):
        assert "device" in inspect.signature(f).parameters, f.__name__
    np.testing.assert_array_equal(mt.reshape(x, shape=(3, 2)).fetch(), a.reshape(3, 2))
    np.testing.assert_array_equal(mt.reshape(x, newshape=(3, 2)).fetch(), a.reshape(3, 2))
    np.testing.assert_array_equal(np.reshape(x, (6,)).fetch(), a.reshape(6))
    with pytest.raises(TypeError):
        mt.reshape(x)
    assert x.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(x + 1), a + 1)
    y = mt.from_dlpack(a)
    np.testing.assert_array_equal(y.fetch(), a)
    assert mt.from_dlpack(x) is x
    np.testing.assert_array_equal(mt.asarray(xa.asarray(a)).fetch(), a)
    with pytest.raises(ValueError):
        mt.asarray(a, copy=False)
    big = 2 ** 53 + 1  # exact beyond float64's integers
    for v in (big, -big, 2 ** 63 - 1, np.int64(-2 ** 63)):
        f = mt.full((2, 3), v, chunks=2)
        assert f.dtype == np.int64
        np.testing.assert_array_equal(f.fetch(), np.full((2, 3), v))
        np.testing.assert_array_equal(mt.full_like(f, v).fetch(), np.full((2, 3), v))
    assert mt.asarray(x, copy=False) is x
    # a copy is a handle of its own: in-place syntax on it leaves x alone
    for c in (mt.asarray(x, copy=True), mt.astype(x, x.dtype), x.astype(x.dtype), mt.copy(x), x.copy(), np.copy(x)):
        assert c is not x
        c /= 2.0
        np.testing.assert_array_equal(c.fetch(), a / 2)
    np.testing.assert_array_equal(x.fetch(), a)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_renamed_functions(session, chunks):
    u = rng.uniform(-0.9, 0.9, 11)
    g = rng.uniform(1.1, 5.0, 11)
    i = rng.integers(0, 100, 11)
    sh = rng.integers(0, 8, 11)
    xu, xg, xi, xs = _x(u, chunks), _x(g, chunks), _x(i, chunks), _x(sh, chunks)
    for name, got, want in [
        ("acos", mt.acos(xu), np.arccos(u)), ("asin", mt.asin(xu), np.arcsin(u)), ("atan", mt.atan(xu), np.arctan(u)),
        ("acosh", mt.acosh(xg), np.arccosh(g)), ("asinh", mt.asinh(xu), np.arcsinh(u)),
        ("atanh", mt.atanh(xu), np.arctanh(u)), ("atan2", mt.atan2(xu, xg), np.arctan2(u, g)),
        ("pow", mt.pow(xg, xu), np.power(g, u)), ("bitwise_invert", mt.bitwise_invert(xi), np.invert(i)),
        ("bitwise_left_shift", mt.bitwise_left_shift(xi, xs), np.left_shift(i, sh)),
        ("bitwise_right_shift", mt.bitwise_right_shift(xi, xs), np.right_shift(i, sh)),
    ]:
        np.testing.assert_allclose(got.fetch(), want, rtol=1e-15, atol=0, err_msg=name)
    m = rng.standard_normal((3, 4, 5))
    xm = _x(m, chunks)
    np.testing.assert_array_equal(mt.permute_dims(xm, (2, 0, 1)).fetch(), np.transpose(m, (2, 0, 1)))
    np.testing.assert_array_equal(mt.matrix_transpose(xm).fetch(), np.swapaxes(m, -1, -2))
    np.testing.assert_array_equal(xm.mT.fetch(), np.swapaxes(m, -1, -2))
    with pytest.raises(ValueError):
        _x(u, chunks).mT
    np.testing.assert_array_equal(mt.concat([xm, xm], axis=1).fetch(), np.concatenate([m, m], axis=1))
    np.testing.assert_array_equal(mt.concat([xm, xm], axis=None).fetch(), np.concatenate([m.ravel(), m.ravel()]))
    w = rng.standard_normal((4, 5))
    np.testing.assert_allclose(mt.vecdot(xm, _x(w, chunks)).fetch(), np.sum(m * w, axis=-1), rtol=1e-13)
    np.testing.assert_allclose(mt.vecdot(xm, xm, axis=0).fetch(), np.sum(m * m, axis=0), rtol=1e-13)
    np.testing.assert_allclose(mt.linalg.vecdot(xm, xm, axis=-2).fetch(), np.sum(m * m, axis=-2), rtol=1e-13)
    with pytest.raises(ValueError):
        mt.vecdot(xm, _x(m[:, :2], chunks), axis=1)
    k = rng.integers(-9, 9, (3, 5)).astype(np.int32)
    r = mt.vecdot(_x(k, chunks), _x(k, chunks))
    assert r.dtype == np.int32
    np.testing.assert_array_equal(r.fetch(), np.sum(k * k, axis=-1, dtype=np.int32))
    assert mt.astype(xi, mt.float32).dtype == np.float32
    assert mt.astype(xi, mt.int64, copy=False) is xi
    assert mt.astype(xi, mt.int64) is not xi
    np.testing.assert_array_equal(mt.astype(xu, mt.int32).fetch(), u.astype(np.int32))


def test_type_functions(session):
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            if not (hasattr(xa, a) and hasattr(xa, b)):  # numpy.array_api 1.24 has no complex
                continue
            try:
                want = xa.result_type(getattr(xa, a), getattr(xa, b))
            except TypeError:  # mixed kinds: the standard defines none; NumPy 2 promotes
                want = np.promote_types(a, b)
            assert mt.result_type(np.dtype(a), np.dtype(b)) == np.dtype(want), (a, b)
            assert mt.can_cast(np.dtype(a), np.dtype(b)) == (xa.can_cast(getattr(xa, a), getattr(xa, b))
                                                            or np.can_cast(a, b, "safe")), (a, b)
    assert mt.result_type(np.complex64, np.float64) == np.complex128
    assert mt.result_type(np.complex64, np.float32) == np.complex64
    assert mt.result_type(np.uint64, np.int64) == np.float64  # no standard result: NumPy's
    assert mt.result_type(mt.int32, 1) == np.int32
    assert mt.result_type(mt.float32, 1.0) == np.float32
    assert mt.result_type(mt.asarray(np.float32(1)), mt.float64) == np.float64
    for d in ("float32", "float64"):
        f, nf = mt.finfo(np.dtype(d)), np.finfo(d)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (nf.bits, nf.eps, nf.max, nf.min, nf.smallest_normal)
        assert mt.finfo(mt.ones(2, dtype=d)).bits == nf.bits and f.dtype == np.dtype(d)
        assert all(type(getattr(f, k)) is float for k in ("eps", "max", "min", "smallest_normal"))
    for d in ("int32", "int64"):
        i = mt.iinfo(np.dtype(d))
        assert (i.bits, i.min, i.max) == (np.iinfo(d).bits, np.iinfo(d).min, np.iinfo(d).max)
    kinds = {"bool": {"bool"}, "signed integer": set(ALL_DTYPES[1:5]), "unsigned integer": set(ALL_DTYPES[5:9]),
             "integral": set(ALL_DTYPES[1:9]), "real floating": {"float32", "float64"},
             "complex floating": {"complex64", "complex128"}, "numeric": set(ALL_DTYPES[1:])}
    for d in ALL_DTYPES:
        for k, members in kinds.items():
            assert mt.isdtype(np.dtype(d), k) == (d in members), (d, k)
        assert mt.isdtype(np.dtype(d), ("bool", "real floating")) == (d in ("bool", "float32", "float64"))
        assert mt.isdtype(np.dtype(d), np.dtype(d))
    with pytest.raises(ValueError):
        mt.isdtype(mt.float64, "floating")


@pytest.mark.parametrize("a,b", [(a, b) for a in DTYPES for b in DTYPES if a != b])
def test_zero_d_promotion(session, a, b):
    """A 0-d tensor promotes by its dtype, not its value (NumPy 1.24 casts
    by value; the standard and NumPy 2 do not)."""
    x = mt.asarray(np.ones(3, dtype=a))
    y = mt.asarray(np.array(1, dtype=b))
    try:
        want = xa.result_type(getattr(xa, a), getattr(xa, b))
    except (TypeError, AttributeError):  # numpy.array_api 1.24 has no complex dtypes
        want = np.promote_types(a, b)
    for r, v in ((x + y, 2), (y + x, 2), (mt.multiply(x, y), 1), (mt.maximum(y, x), 1)):
        assert r.dtype == want, (a, b, r.dtype)
        np.testing.assert_array_equal(r.fetch(), np.full(3, v).astype(want))
    assert (x < y).dtype == np.bool_


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_sort_descending_stable(session, chunks):
    d = rng.integers(0, 4, (5, 13)).astype(np.float64)
    x = _x(d, chunks)
    for axis in (0, 1, -1):
        np.testing.assert_array_equal(mt.sort(x, axis=axis, descending=True).fetch(), np.flip(np.sort(d, axis=axis), axis=axis))
        np.testing.assert_array_equal(mt.sort(x, axis=axis, stable=True).fetch(), np.sort(d, axis=axis))
        want = np.asarray(xa.argsort(xa.asarray(d), axis=axis, descending=True, stable=True))
        np.testing.assert_array_equal(mt.argsort(x, axis=axis, descending=True).fetch(), want)
        np.testing.assert_array_equal(mt.argsort(x, axis=axis, descending=False, stable=True).fetch(),
                                      np.argsort(d, axis=axis, kind="stable"))
    # ties stay in their order when descending: the first of equal values first
    t = _x(np.array([1, 2, 1, 2, 1]), chunks)
    np.testing.assert_array_equal(mt.argsort(t, descending=True).fetch(), [1, 3, 0, 2, 4])
    np.testing.assert_array_equal(x.argsort(axis=0, descending=True).fetch(),
                                  np.asarray(xa.argsort(xa.asarray(d), axis=0, descending=True)))


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_std_var_correction(session, chunks):
    d = rng.standard_normal((7, 6))
    x = _x(d, chunks)
    for f, nf in ((mt.std, np.std), (mt.var, np.var)):
        for axis in (None, 0, 1, (0, 1)):
            for c in (0, 1, 1.0, 2):
                np.testing.assert_allclose(f(x, axis=axis, correction=c).fetch(), nf(d, axis=axis, ddof=int(c)), rtol=1e-12)
            want = nf(d, axis=axis, ddof=0) ** (2 if nf is np.std else 1)
            n = d.size if axis is None else (math.prod(d.shape[a] for a in axis) if isinstance(axis, tuple) else d.shape[axis])
            want = want * n / (n - 0.5)
            if nf is np.std:
                want = np.sqrt(want)
            np.testing.assert_allclose(f(x, axis=axis, correction=0.5, keepdims=True).fetch(),
                                       np.reshape(want, nf(d, axis=axis, keepdims=True).shape), rtol=1e-12)
        np.testing.assert_allclose(getattr(x, f.__name__)(correction=1).fetch(), nf(d, ddof=1), rtol=1e-12)
        with pytest.raises(TypeError):
            f(x, ddof=1, correction=1)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_unique_and_unknown_shapes(session, chunks):
    d = rng.integers(-3, 4, (4, 6)).astype(np.float64)
    x = _x(d, chunks)
    xd = xa.asarray(d)
    got = mt.unique_all(x)
    want = xa.unique_all(xd)
    assert type(got).__name__ == "UniqueAllResult" and got._fields == want._fields
    for t in (got.values, got.indices, got.counts):
        assert t.shape == (None,)  # known once computed
    assert got.inverse_indices.shape == d.shape  # the standard's: x's shape
    session.execute(*got)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.fetch(), np.asarray(w))
    assert got.values.shape == np.asarray(want.values).shape  # resolved once computed
    c = mt.unique_counts(x)
    np.testing.assert_array_equal(c.counts.fetch(), np.asarray(xa.unique_counts(xd).counts))
    v, inv = mt.unique_inverse(x)
    np.testing.assert_array_equal(v.fetch()[inv.fetch()], d)
    np.testing.assert_array_equal(mt.unique_values(x).fetch(), np.asarray(xa.unique_values(xd)))
    # every data-dependent length is None until computed
    nz = mt.nonzero(x)
    assert all(t.shape == (None,) for t in nz)
    for g, w in zip(nz, np.nonzero(d)):
        np.testing.assert_array_equal(g.fetch(), w)
    m = x[x > 0]
    assert m.shape == (None,)
    np.testing.assert_array_equal(m.fetch(), d[d > 0])
    assert m.shape == (int((d > 0).sum()),)
    rows = x[_x(d[:, 0] > 0, chunks)]
    assert rows.shape == (None, 6)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_unique_nans_distinct(session, chunks):
    """NaNs compare unequal, so each is a value of its own (the standard;
    NumPy 1.24's unique merges them); -0.0 and 0.0 are one value."""
    for d in (np.array([1.0, np.nan, 2.0, 1.0, np.nan, -0.0, 0.0, np.inf, np.nan]),
              np.array([[3.0, np.nan], [np.nan, 3.0]], dtype=np.float32), np.array([np.nan]), np.zeros(0)):
        x = _x(d, chunks)
        got, want = mt.unique_all(x), xa.unique_all(xa.asarray(d))
        session.execute(*got)
        for g, w in zip(got, want):
            assert g.fetch().dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(g.fetch(), np.asarray(w))
        np.testing.assert_array_equal(mt.unique_values(x).fetch(), np.asarray(xa.unique_values(xa.asarray(d))))
        np.testing.assert_array_equal(mt.unique_counts(x).counts.fetch(),
                                      np.asarray(xa.unique_counts(xa.asarray(d)).counts))
        v, inv = mt.unique_inverse(x)
        np.testing.assert_array_equal(v.fetch()[inv.fetch()], d)


def test_special_cases(session):
    """The standard's special cases NumPy 1.24 does not follow."""
    a = np.array([np.inf, -np.inf, np.inf, -np.inf, 1.0, -1.0, 1.0, -1.0, np.inf, 7.0, np.nan, 5.0])
    b = np.array([2.0, 2.0, -2.0, -2.0, np.inf, np.inf, -np.inf, -np.inf, 0.0, 2.0, np.inf, -0.0])
    want = np.array([np.inf, -np.inf, -np.inf, np.inf, 0.0, -0.0, -0.0, 0.0, np.inf, 3.0, np.nan, -np.inf])
    for chunks in CHUNKS:
        x, y = _x(a, chunks), _x(b, chunks)
        for got in (mt.floor_divide(x, y).fetch(), (x // y).fetch()):
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal((_x(a, 5) // 2.0).fetch(), np.where(np.isinf(a), a, np.floor_divide(a, 2.0)))
    i = np.array([-3, 0, 5], dtype=np.int32)
    for f in (mt.ceil, mt.floor, mt.trunc):
        r = f(mt.asarray(i))
        assert r.dtype == np.int32
        np.testing.assert_array_equal(r.fetch(), i)
    np.testing.assert_array_equal(mt.floor(mt.asarray([1.5, -1.5])).fetch(), [1.0, -2.0])
    np.testing.assert_array_equal((mt.asarray(np.array([7, -7])) // 2).fetch(), [3, -4])


def _sym(n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a + np.swapaxes(a, -1, -2)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_eigh(session, chunks):
    for a in (_sym(1), _sym(6), _sym(9, (3,)), _sym(4, (2, 3))):
        x = _x(a, chunks)
        w, v = mt.linalg.eigh(x)
        r = mt.linalg.eigh(x)
        assert r._fields == ("eigenvalues", "eigenvectors")
        session.execute(w, v)
        nw, nv = np.linalg.eigh(a)
        np.testing.assert_allclose(w.fetch(), nw, rtol=1e-12, atol=1e-12)
        # eigenvectors are defined up to sign: compare |v| and V diag(w) Vᵀ
        np.testing.assert_allclose(np.abs(v.fetch()), np.abs(nv), rtol=1e-9, atol=1e-9)
        vv = v.fetch()
        np.testing.assert_allclose(vv @ (w.fetch()[..., None] * np.swapaxes(vv, -1, -2)), a, atol=1e-10)
        np.testing.assert_allclose(mt.linalg.eigvalsh(x).fetch(), np.linalg.eigvalsh(a), rtol=1e-12, atol=1e-12)
    # only the named triangle is read
    b = rng.standard_normal((5, 5))
    for uplo in ("L", "U"):
        np.testing.assert_allclose(mt.linalg.eigvalsh(_x(b, chunks), UPLO=uplo).fetch(),
                                   np.linalg.eigvalsh(b, UPLO=uplo), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(mt.linalg.eigh(_x(b, chunks), UPLO=uplo).eigenvalues.fetch(),
                                   np.linalg.eigh(b, UPLO=uplo)[0], rtol=1e-12, atol=1e-12)
    f = _sym(5).astype(np.float32)
    r = mt.linalg.eigvalsh(_x(f, chunks))
    assert r.dtype == np.float32
    np.testing.assert_allclose(r.fetch(), np.linalg.eigvalsh(f), rtol=1e-4, atol=1e-4)
    i = rng.integers(-5, 5, (4, 4))
    np.testing.assert_allclose(mt.linalg.eigvalsh(_x(i + i.T, chunks)).fetch(), np.linalg.eigvalsh(i + i.T), atol=1e-12)
    with pytest.raises(ValueError):
        mt.linalg.eigh(mt.ones((2, 3)))
    with pytest.raises(ValueError):
        mt.linalg.eigh(mt.ones((2, 2)), UPLO="X")


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_linalg_extension(session, chunks):
    m = rng.standard_normal((3, 4, 5))
    x = _x(m, chunks)
    xm = xa.asarray(m)
    for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        for keepdims in (False, True):
            np.testing.assert_allclose(mt.linalg.matrix_norm(x, ord=ord, keepdims=keepdims).fetch(),
                                       np.asarray(xa.linalg.matrix_norm(xm, ord=ord, keepdims=keepdims)), rtol=1e-12,
                                       err_msg=str(ord))
    for ord in (2, 1, 0, 3, math.inf, -math.inf):
        for axis in (None, 0, -1, (0, 2), (1, 2)):
            for keepdims in (False, True):
                np.testing.assert_allclose(
                    mt.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord).fetch(),
                    np.asarray(xa.linalg.vector_norm(xm, axis=axis, keepdims=keepdims, ord=ord)), rtol=1e-12,
                    err_msg=f"ord={ord} axis={axis} keepdims={keepdims}")
    a = rng.standard_normal((6, 4))
    np.testing.assert_allclose(mt.linalg.svdvals(_x(a, chunks)).fetch(), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    u, v3 = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(mt.linalg.cross(_x(u, chunks), _x(v3, chunks)).fetch(), np.cross(u, v3), rtol=1e-13)
    np.testing.assert_allclose(mt.linalg.cross(_x(u.T, chunks), _x(v3.T, chunks), axis=0).fetch(),
                               np.cross(u.T, v3.T, axis=0), rtol=1e-13)
    with pytest.raises(ValueError):
        mt.linalg.cross(_x(a, chunks), _x(a, chunks))
    np.testing.assert_allclose(mt.linalg.outer(_x(u[0], chunks), _x(v3[1], chunks)).fetch(), np.outer(u[0], v3[1]))
    np.testing.assert_allclose(mt.linalg.tensordot(x, _x(a[:5], chunks), axes=1).fetch(), np.tensordot(m, a[:5], 1), rtol=1e-12)
    np.testing.assert_array_equal(mt.linalg.matrix_transpose(x).fetch(), np.swapaxes(m, -1, -2))
    spd = a.T @ a + np.eye(4)
    s = _x(spd, chunks)
    L = np.linalg.cholesky(spd)
    np.testing.assert_allclose(mt.linalg.cholesky(s, upper=True).fetch(), L.T, rtol=1e-12)
    assert mt.linalg.qr(_x(a, chunks))._fields == ("Q", "R")
    assert mt.linalg.svd(_x(a, chunks), full_matrices=False)._fields == ("U", "S", "Vh")
    sl = mt.linalg.slogdet(s)
    assert sl._fields == ("sign", "logabsdet")
    np.testing.assert_allclose(sl.logabsdet.fetch(), np.linalg.slogdet(spd)[1], rtol=1e-12)
    np.testing.assert_allclose(mt.linalg.pinv(_x(a, chunks)).fetch(), np.asarray(xa.linalg.pinv(xa.asarray(a))), rtol=1e-10)
    r = np.outer(np.arange(1.0, 5), np.arange(1.0, 4))
    assert int(mt.linalg.matrix_rank(_x(r, chunks), rtol=1e-10).fetch()) == 1


@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "uint32", "float16", "float32"])
def test_python_scalar_beside_0d_is_weak(session, dt):
    """A Python scalar beside a 0-d tensor keeps the tensor's dtype (NEP 50,
    the standard); NumPy 1.24 casts the two by value (0-d uint8 + 1 is int64)."""
    a = np.array(3, dtype=dt)
    x = mt.asarray(a)
    with np.testing.suppress_warnings():
        np._set_promotion_state("weak")
        try:
            for got, want in [(x + 1, a + 1), (2 * x, 2 * a), (x - True, a - True), (x ** 2, a ** 2),
                              (x // 2, a // 2)]:
                assert got.dtype == want.dtype == np.dtype(dt)
                np.testing.assert_array_equal(got.fetch(), want)
        finally:
            np._set_promotion_state("legacy")
    y = mt.asarray(np.array(3, dtype=dt))
    y += 1
    assert y.dtype == np.dtype(dt) and int(y) == 4
    if dt[0] in "ui":
        assert (x & 1).dtype == np.dtype(dt) and (x << 1).dtype == np.dtype(dt)
        # a value the dtype cannot hold is left to NumPy 1.24's rules
        fits = np.iinfo(dt).max >= 1000
        assert (x + 1000).dtype == (np.dtype(dt) if fits else np.result_type(np.array(3, dtype=dt), 1000))
    else:
        assert (x / 2).dtype == np.dtype(dt)


def test_uint64_beyond_int64(session):
    v = 2 ** 63 + 1
    np.testing.assert_array_equal(mt.full(3, v, dtype=mt.uint64).fetch(), np.full(3, v, dtype=np.uint64))
    x = mt.zeros(3, dtype=mt.uint64)
    x[1] = v
    np.testing.assert_array_equal(x.fetch(), np.array([0, v, 0], dtype=np.uint64))


@pytest.mark.parametrize("m", [True, False])
@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_zero_d_boolean_index(session, m, shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    got = mt.asarray(a)[mt.asarray(np.array(m))]
    want = a[np.array(m)]
    np.testing.assert_array_equal(got.fetch(), want)
    with mt.resolve_shapes():
        assert mt.asarray(a)[mt.asarray(np.array(m))].shape == want.shape
