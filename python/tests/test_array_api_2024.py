"""What the Array API standard's 2023.12 and 2024.12 versions added, on
phobos.tensor, against NumPy 1.24's equivalents, over several chunkings
(single elements, odd sizes, one chunk larger than the array): the new
functions, Python scalars in binary functions, sum/prod keeping a float
input's dtype, __array_namespace_info__, complex dtypes under the
standard's rules and the fft extension."""

import numpy as np
import pytest

import phobos.tensor as mt

CHUNKS = [1, 3, 100, None]
rng = np.random.default_rng(2412)


def _x(a, chunks):
    return mt.asarray(a, chunks=chunks)


def check(got, want, rtol=0.0):
    """got (a tensor) equals want (NumPy's) in dtype, shape and values."""
    g = got.fetch() if isinstance(got, mt.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if rtol:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(g, want)


def floats(shape, dtype="float64", nan=True):
    a = rng.standard_normal(shape).astype(dtype)
    if nan and a.size > 3:
        a.flat[1] = np.nan
        a.flat[2] = -0.0
    return a


def test_version_and_info(session):
    assert mt.__array_api_version__ == "2024.12"
    x = mt.asarray([1.0])
    for v in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
        assert x.__array_namespace__(api_version=v) is mt
    with pytest.raises(ValueError, match="2024.12"):
        x.__array_namespace__(api_version="2025.12")
    info = mt.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert caps["max dimensions"] == 32
    assert mt.zeros((1,) * 32).ndim == 32
    with pytest.raises((TypeError, ValueError)):
        mt.zeros((1,) * 33)  # refused by the cluster when made
    assert info.default_device() == "cpu" and info.devices() == ["cpu"]
    d = info.default_dtypes()
    assert d == {"real floating": np.float64, "complex floating": np.complex128, "integral": np.int64,
                 "indexing": np.int64}
    assert d == info.default_dtypes(device="cpu")
    with pytest.raises(ValueError):
        info.default_dtypes(device="gpu")
    every = info.dtypes()
    assert set(every) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                          "float32", "float64", "complex64", "complex128"}
    for name, dt in every.items():
        assert dt == np.dtype(name) and getattr(mt, name) == dt
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}
    assert set(info.dtypes(kind=("bool", "real floating"))) == {"bool", "float32", "float64"}
    for kind in ("integral", "numeric", "signed integer", "unsigned integer"):
        assert all(mt.isdtype(dt, kind) for dt in info.dtypes(kind=kind).values())
    with pytest.raises(ValueError):
        info.dtypes(kind="floating")


# The 2024.12 standard's names, by section (the main namespace, linalg and fft).
STANDARD_2024_12 = {
    "": """abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert
        bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp expm1
        floor floor_divide greater greater_equal hypot imag isfinite isinf isnan less less_equal log log1p
        log2 log10 logaddexp logical_and logical_not logical_or logical_xor maximum minimum multiply negative
        nextafter not_equal positive pow real reciprocal remainder round sign signbit sin sinh square sqrt
        subtract tan tanh trunc arange asarray empty empty_like eye from_dlpack full full_like linspace
        meshgrid ones ones_like tril triu zeros zeros_like astype can_cast finfo iinfo isdtype result_type
        take take_along_axis __array_namespace_info__ matmul matrix_transpose tensordot vecdot
        broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape roll
        squeeze stack tile unstack argmax argmin count_nonzero nonzero searchsorted where unique_all
        unique_counts unique_inverse unique_values argsort sort cumulative_prod cumulative_sum max mean min
        prod std sum var all any diff e inf nan newaxis pi bool int8 int16 int32 int64 uint8 uint16 uint32
        uint64 float32 float64 complex64 complex128""",
    "linalg": """cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank
        matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm""",
    "fft": "fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift",
}


def test_every_2024_12_name(session):
    for section, names in STANDARD_2024_12.items():
        ns = getattr(mt, section) if section else mt
        missing = [n for n in names.split() if not hasattr(ns, n)]
        assert not missing, (section, missing)
    # the new functions as the standard calls them, keywords only where it says so
    x = mt.asarray(np.arange(12.0).reshape(3, 4), chunks=2)
    a = np.arange(12.0).reshape(3, 4)
    check(mt.take(x, mt.asarray([2, 0]), axis=0), np.take(a, [2, 0], axis=0))
    check(mt.take(mt.reshape(x, (-1,)), mt.asarray([5, 1])), a.ravel()[[5, 1]])
    check(mt.expand_dims(x, axis=-1), a[..., None])
    check(mt.squeeze(mt.expand_dims(x, axis=0), axis=0), a)
    check(mt.roll(x, 1, axis=1), np.roll(a, 1, axis=1))
    check(mt.sign(x - 5), np.sign(a - 5))
    check(mt.round(x / 3), np.round(a / 3))
    check(mt.trunc(x / 5), np.trunc(a / 5))


@pytest.mark.parametrize("chunks", CHUNKS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_elementwise_additions(session, chunks, dtype):
    a, b = floats((5, 7), dtype), floats((5, 7), dtype, nan=False)
    x, y = _x(a, chunks), _x(b, chunks)
    check(mt.reciprocal(mt.where(x == 0, 1, x)), np.reciprocal(np.where(a == 0, 1, a)))
    for got, want in [
        (mt.copysign(x, y), np.copysign(a, b)), (mt.hypot(x, y), np.hypot(a, b)),
        (mt.maximum(x, y), np.maximum(a, b)), (mt.minimum(x, y), np.minimum(a, b)),
        (mt.signbit(x), np.signbit(a)), (mt.nextafter(x, y), np.nextafter(a, b)),
    ]:
        check(got, want)
    # the sign of NaN and of -0.0 is kept bit for bit
    assert mt.signbit(mt.copysign(x, -1.0)).fetch().all()


@pytest.mark.parametrize("chunks", CHUNKS)
def test_python_scalars_in_binary_functions(session, chunks):
    a = floats((4, 5), "float32")
    i = np.arange(-6, 14, dtype="int8").reshape(4, 5)
    x, xi = _x(a, chunks), _x(i, chunks)
    f32 = np.float32
    for got, want in [
        (mt.add(x, 1), a + f32(1)), (mt.add(1.5, x), f32(1.5) + a), (mt.multiply(xi, 3), i * np.int8(3)),
        (mt.maximum(x, 0), np.maximum(a, f32(0))), (mt.minimum(2, xi), np.minimum(np.int8(2), i)),
        (mt.copysign(x, -1.0), np.copysign(a, f32(-1))), (mt.hypot(3.0, x), np.hypot(f32(3), a)),
        (mt.nextafter(x, 0.0), np.nextafter(a, f32(0))),
        (mt.equal(xi, 3), i == 3), (mt.less(1.0, x), f32(1) < a), (mt.pow(x, 2), a ** f32(2)),
        (mt.where(x > 0, x, 0.5), np.where(a > 0, a, f32(0.5))), (mt.where(xi > 0, 7, xi), np.where(i > 0, np.int8(7), i)),
        (mt.clip(x, 0, 1), np.clip(a, f32(0), f32(1))),
    ]:
        check(got, want)
    check(mt.atan2(x, 2.0), np.arctan2(a, f32(2)), 1e-6)  # within an ulp of float32


@pytest.mark.parametrize("chunks", CHUNKS)
def test_clip(session, chunks):
    a = floats((6, 5))
    x = _x(a, chunks)
    lo = floats((6, 5), nan=False) - 1
    check(mt.clip(x, min=-0.5), np.clip(a, -0.5, None))
    check(mt.clip(x, max=0.25), np.clip(a, None, 0.25))
    check(mt.clip(x, min=-0.5, max=0.5), np.clip(a, -0.5, 0.5))
    check(mt.clip(x, _x(lo, chunks), 0.75), np.clip(a, lo, 0.75))
    check(mt.clip(x), a)  # no bounds: x itself
    # the result keeps x's dtype when a bound is wider (the standard's rule)
    f = a.astype("float32")
    check(mt.clip(_x(f, chunks), min=_x(lo, chunks)), np.clip(f, lo, None).astype("float32"))
    i = np.arange(-10, 20, dtype="int16").reshape(6, 5)
    check(mt.clip(_x(i, chunks), 0, 9), np.clip(i, 0, 9))
    check(np.clip(_x(i, chunks), -3, 3), np.clip(i, -3, 3))


@pytest.mark.parametrize("chunks", CHUNKS)
@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64", "complex64", "bool"])
def test_cumulative_sum_and_prod(session, chunks, dtype):
    a = (rng.integers(0, 3, (4, 6)) + (1j if dtype.startswith("complex") else 0)).astype(dtype)
    x = _x(a, chunks)
    for axis in (0, 1, -1):
        for include in (False, True):
            for ours, theirs, one in ((mt.cumulative_sum, np.cumsum, 0), (mt.cumulative_prod, np.cumprod, 1)):
                want = theirs(a, axis=axis)
                if include:
                    shape = list(a.shape)
                    shape[axis] = 1
                    want = np.concatenate([np.full(shape, one, dtype=want.dtype), want], axis=axis)
                check(ours(x, axis=axis, include_initial=include), want)
    v = a[0]
    check(mt.cumulative_sum(_x(v, chunks)), np.cumsum(v))
    check(mt.cumulative_sum(_x(v, chunks), dtype="float64", include_initial=True),
          np.concatenate([[0.0], np.cumsum(v, dtype="float64")]) if dtype[0] != "c" else
          np.concatenate([[0.0], np.cumsum(v.real, dtype="float64")]))
    with pytest.raises(ValueError):
        mt.cumulative_sum(x)  # axis is required beyond 1-d


def test_cumulative_empty(session):
    e = np.zeros((0,), dtype="float32")
    check(mt.cumulative_sum(mt.asarray(e), include_initial=True), np.zeros((1,), dtype="float32"))
    check(mt.cumulative_prod(mt.asarray(e)), e)


@pytest.mark.parametrize("chunks", CHUNKS)
def test_manipulation_additions(session, chunks):
    a = rng.standard_normal((3, 4, 5))
    x = _x(a, chunks)
    check(mt.moveaxis(x, 0, -1), np.moveaxis(a, 0, -1))
    check(mt.moveaxis(x, (0, 1), (2, 0)), np.moveaxis(a, (0, 1), (2, 0)))
    check(mt.tile(x, (2, 1, 3)), np.tile(a, (2, 1, 3)))
    check(mt.tile(x, (2,)), np.tile(a, (2,)))
    check(mt.repeat(x, 2, axis=1), np.repeat(a, 2, axis=1))
    check(mt.repeat(x, 3), np.repeat(a, 3))
    r = np.array([0, 2, 1, 3])
    check(mt.repeat(x, mt.asarray(r), axis=1), np.repeat(a, r, axis=1))
    check(mt.repeat(x, r, axis=1), np.repeat(a, r, axis=1))
    for axis in (0, 1, 2, -1):
        parts = mt.unstack(x, axis=axis)
        want = [np.take(a, i, axis=axis) for i in range(a.shape[axis])]
        assert len(parts) == len(want)
        for p, w in zip(parts, want):
            check(p, w)
    for axis in (0, -1):
        for n in (1, 2):
            check(mt.diff(x, axis=axis, n=n), np.diff(a, axis=axis, n=n))
            check(mt.diff(x, axis=axis, n=n, prepend=None, append=None), np.diff(a, axis=axis, n=n))
    pre = rng.standard_normal((3, 4, 1))
    check(mt.diff(x, prepend=_x(pre, chunks), append=pre), np.diff(a, prepend=pre, append=pre))


@pytest.mark.parametrize("chunks", CHUNKS)
def test_searching_additions(session, chunks):
    a = np.array([5.0, 1.0, 3.0, np.nan, 2.0, 3.0, -1.0])
    v = np.array([[3.0, 0.5], [np.nan, 9.0]])
    sorter = np.argsort(a, kind="stable")
    x = _x(a, chunks)
    for side in ("left", "right"):
        check(mt.searchsorted(x, _x(v, chunks), side=side, sorter=_x(sorter, chunks)),
              np.searchsorted(a, v, side=side, sorter=sorter))
        check(mt.searchsorted(x, v, side=side, sorter=sorter), np.searchsorted(a, v, side=side, sorter=sorter))
        s = np.sort(a)
        check(mt.searchsorted(_x(s, chunks), _x(v, chunks), side=side), np.searchsorted(s, v, side=side))
    m = rng.standard_normal((4, 6))
    idx = np.argsort(m, axis=-1)
    y = _x(m, chunks)
    check(mt.take_along_axis(y, _x(idx, chunks)), np.take_along_axis(m, idx, -1))
    check(mt.take_along_axis(y, _x(idx[:, :2], chunks), axis=1), np.take_along_axis(m, idx[:, :2], 1))
    i0 = np.argsort(m, axis=0)[:3]
    check(mt.take_along_axis(y, i0, axis=0), np.take_along_axis(m, i0, 0))
    z = np.where(m > 0.3, m, 0)
    for axis in (None, 0, 1, (0, 1)):
        for keep in (False, True):
            check(mt.count_nonzero(_x(z, chunks), axis=axis, keepdims=keep),
                  np.count_nonzero(z, axis=axis, keepdims=keep))


@pytest.mark.parametrize("chunks", CHUNKS)
def test_sum_prod_keep_float_dtype(session, chunks):
    """2023.12: sum and prod of a float (or complex) keep its dtype; an
    integer goes to the default integer of its signedness, as NumPy."""
    for dtype in ("float32", "float64", "complex64", "complex128", "int8", "int32", "uint8", "uint32", "bool"):
        a = (rng.integers(1, 3, (3, 5)) * (1 + 1j if dtype[0] == "c" else 1)).astype(dtype)
        x = _x(a, chunks)
        for axis in (None, 0, 1):
            check(mt.sum(x, axis=axis), np.sum(a, axis=axis), rtol=1e-6)
            check(mt.prod(x, axis=axis), np.prod(a, axis=axis), rtol=1e-6)
        if dtype == "float32":
            assert mt.sum(x, dtype="float64").dtype == np.float64


@pytest.mark.parametrize("chunks", CHUNKS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_under_the_standard(session, chunks, dtype):
    a = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(dtype)
    b = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(dtype)
    x, y = _x(a, chunks), _x(b, chunks)
    real = "float32" if dtype == "complex64" else "float64"
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    assert mt.isdtype(x.dtype, "complex floating") and not mt.isdtype(x.dtype, "real floating")
    assert mt.result_type(x, mt.float64) == np.complex128
    assert mt.result_type(mt.float32, mt.complex64) == np.complex64
    assert mt.result_type(x, 1.0) == x.dtype and mt.result_type(x, 1j) == x.dtype
    check(mt.abs(x), np.abs(a), rtol)
    assert mt.abs(x).dtype == np.dtype(real)
    check(mt.real(x), a.real)
    check(mt.imag(x), a.imag)
    check(mt.conj(x), np.conj(a))
    for got, want in [(x + y, a + b), (x * y, a * b), (x / y, a / b), (mt.sqrt(x), np.sqrt(a)), (mt.exp(x), np.exp(a)),
                      (mt.log(x), np.log(a)), (mt.sum(x, axis=0), a.sum(axis=0)), (mt.mean(x), a.mean()),
                      (mt.prod(x, axis=1), a.prod(axis=1)), (x + 1.5, a + 1.5), (mt.multiply(2j, x), 2j * a),
                      (mt.linalg.vecdot(x, y), np.sum(np.conj(a) * b, axis=-1)),
                      (mt.equal(x, x), np.equal(a, a)), (mt.isnan(x), np.isnan(a)),
                      (mt.cumulative_sum(x, axis=1), np.cumsum(a, axis=1))]:
        check(got, np.asarray(want).astype(np.asarray(want).dtype), rtol)


def _np_standard(fn, a, *args, **kw):
    """numpy.fft's result in the dtype the standard asks for (NumPy 1.24
    returns double precision for every input)."""
    r = getattr(np.fft, fn)(a, *args, **kw)
    if a.dtype in (np.float32, np.complex64):
        r = r.astype(np.complex64 if r.dtype.kind == "c" else np.float32)
    return r


@pytest.mark.parametrize("chunks", [1, 3, None])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_fft_extension(session, chunks, dtype):
    a = rng.standard_normal((6, 5)).astype(dtype)
    if dtype[0] == "c":
        a = (a + 1j * rng.standard_normal((6, 5))).astype(dtype)
    x = _x(a, chunks)
    rtol = 2e-5 if dtype in ("float32", "complex64") else 1e-10
    for norm in ("backward", "ortho", "forward"):
        for fn in ("fft", "ifft", "rfft", "ihfft", "irfft", "hfft"):
            if fn in ("rfft", "ihfft") and dtype[0] == "c":
                continue
            check(getattr(mt.fft, fn)(x, norm=norm), _np_standard(fn, a, norm=norm), rtol)
            check(getattr(mt.fft, fn)(x, n=4, axis=0, norm=norm), _np_standard(fn, a, n=4, axis=0, norm=norm), rtol)
        for fn in ("fftn", "ifftn", "rfftn", "irfftn"):
            if fn == "rfftn" and dtype[0] == "c":
                continue
            check(getattr(mt.fft, fn)(x, norm=norm), _np_standard(fn, a, norm=norm), rtol)
            check(getattr(mt.fft, fn)(x, s=(4, 6), axes=(1, 0), norm=norm),
                  _np_standard(fn, a, s=(4, 6), axes=(1, 0), norm=norm), rtol)
    check(mt.fft.fftshift(x), np.fft.fftshift(a))
    check(mt.fft.ifftshift(x, axes=(0,)), np.fft.ifftshift(a, axes=(0,)))
    # numpy.fft on a tensor keeps NumPy 1.24's double precision
    check(np.fft.fft(x), np.fft.fft(a), rtol)


def test_fft_frequencies(session):
    for n in (1, 4, 7):
        for d in (1.0, 0.25):
            check(mt.fft.fftfreq(n, d=d), np.fft.fftfreq(n, d=d))
            check(mt.fft.rfftfreq(n, d=d), np.fft.rfftfreq(n, d=d))
            check(mt.fft.fftfreq(n, d=d, dtype=mt.float32), np.fft.fftfreq(n, d=d).astype("float32"))
            check(mt.fft.rfftfreq(n, d=d, dtype="float32", device="cpu"), np.fft.rfftfreq(n, d=d).astype("float32"))
    with pytest.raises(ValueError):
        mt.fft.fftfreq(4, device="gpu")
    with pytest.raises(TypeError):
        mt.fft.fftfreq(4, dtype="int64")


def test_fft_round_trip(session):
    a = rng.standard_normal((9, 8)).astype("float32")
    x = mt.asarray(a, chunks=4)
    back = mt.fft.irfft(mt.fft.rfft(x), n=8)
    assert back.dtype == np.float32
    np.testing.assert_allclose(back.fetch(), a, rtol=1e-5, atol=1e-5)
    z = mt.fft.ifftn(mt.fft.fftn(x.astype("complex64")))
    assert z.dtype == np.complex64
    np.testing.assert_allclose(z.fetch(), a, rtol=1e-5, atol=1e-5)
