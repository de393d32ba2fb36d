package phobos_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// The FFT differential suite: numpy.fft (NumPy 1.24's pocketfft) against
// Phobos's transforms over every chunking (one-element chunks, odd sizes,
// one chunk larger than the array, irregular splits), lengths 1, 2, 7, 97,
// 1009 and 4096, n shorter and longer than the axis, every norm, 1-D to 3-D,
// real, integer, bool, float32, complex64 and complex128 inputs, and the
// errors NumPy raises.

// fftTol bounds every element's error by the result's largest magnitude:
// an FFT's rounding error is spread over its outputs (about 1e-16 log n
// relative to the whole), so small outputs cannot be held to a relative
// error of their own.
const fftTol = 1e-13

// fftCompare checks dtype, shape and |got - want| <= fftTol * max|want|
// elementwise (NaNs matching NaNs), for float64 and complex128 results.
func fftCompare(got, want *ndarray.Array) error {
	if got.DType() != want.DType() {
		return fmt.Errorf("dtype %v, want %v", got.DType(), want.DType())
	}
	if !ndarray.SameShape(got.Shape(), want.Shape()) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), want.Shape())
	}
	if dt := want.DType(); dt != ndarray.Float64 && dt != ndarray.Complex128 {
		return fmt.Errorf("fftCompare of %v", dt)
	}
	n := want.Size()
	scale := 0.0
	for i := range n {
		if v := cmplx.Abs(want.ComplexAtFlat(i)); !math.IsNaN(v) && !math.IsInf(v, 0) {
			scale = max(scale, v)
		}
	}
	bad, first := 0, -1
	for i := range n {
		g, w := got.ComplexAtFlat(i), want.ComplexAtFlat(i)
		ok := cmplx.Abs(g-w) <= fftTol*scale
		if cmplx.IsNaN(w) || cmplx.IsNaN(g) {
			ok = cmplx.IsNaN(w) && cmplx.IsNaN(g)
		}
		if !ok {
			bad++
			if first < 0 {
				first = i
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d elements differ by more than %g x max|want| = %g; first at flat %d: got %v, want %v",
			bad, n, fftTol, fftTol*scale, first, got.ComplexAtFlat(first), want.ComplexAtFlat(first))
	}
	return nil
}

// fftC is a complex array whose real and imaginary parts are npR values.
func fftC(dt ndarray.DType, seed uint64, shape ...int) *ndarray.Array {
	re, im := npR(ndarray.Float64, seed, shape...), npR(ndarray.Float64, seed+1000, shape...)
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		panic(err)
	}
	for i := range a.Size() {
		a.SetComplexFlat(i, complex(re.AtFlat(i), im.AtFlat(i)))
	}
	return a
}

func fftCases() []npCase {
	one := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		c := npOne(name, expr, in, f)
		c.compare = fftCompare
		return c
	}
	exact := npOne // results NumPy and Phobos compute exactly alike (shifts, frequencies)
	type fn func(*tensor.Tensor, ...tensor.FFTOption) *tensor.Tensor
	f64 := ndarray.Float64
	var cases []npCase
	seed := uint64(9000)
	next := func() uint64 { seed++; return seed }

	// 1-D, every length, default arguments.
	for _, n := range []int{1, 2, 7, 97, 1009, 4096} {
		r := npR(f64, next(), n)
		c := fftC(ndarray.Complex128, next(), n)
		cases = append(cases,
			one(fmt.Sprintf("fft n=%d", n), "np.fft.fft(a)", ins("a", r), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a")) }),
			one(fmt.Sprintf("ifft complex n=%d", n), "np.fft.ifft(a)", ins("a", c), func(e *npEnv) *tensor.Tensor { return tensor.IFFT(e.v("a")) }),
			one(fmt.Sprintf("rfft n=%d", n), "np.fft.rfft(a)", ins("a", r), func(e *npEnv) *tensor.Tensor { return tensor.RFFT(e.v("a")) }),
			one(fmt.Sprintf("ihfft n=%d", n), "np.fft.ihfft(a)", ins("a", r), func(e *npEnv) *tensor.Tensor { return tensor.IHFFT(e.v("a")) }),
		)
		if n >= 2 {
			cases = append(cases,
				one(fmt.Sprintf("irfft n=%d", n), "np.fft.irfft(a)", ins("a", c), func(e *npEnv) *tensor.Tensor { return tensor.IRFFT(e.v("a")) }),
				one(fmt.Sprintf("hfft n=%d", n), "np.fft.hfft(a)", ins("a", c), func(e *npEnv) *tensor.Tensor { return tensor.HFFT(e.v("a")) }),
			)
		}
	}

	// n shorter and longer than the axis, even and odd, every norm.
	r97 := npR(f64, next(), 97)
	c40 := fftC(ndarray.Complex128, next(), 40)
	for _, norm := range []string{"backward", "ortho", "forward"} {
		for _, k := range []struct {
			name string
			f    fn
			in   *ndarray.Array
			ns   []int
		}{
			{"fft", tensor.FFT, c40, []int{5, 40, 131}},
			{"ifft", tensor.IFFT, c40, []int{6, 97}},
			{"rfft", tensor.RFFT, r97, []int{10, 97, 211}},
			{"irfft", tensor.IRFFT, c40, []int{7, 78, 79, 200}},
			{"hfft", tensor.HFFT, c40, []int{9, 100}},
			{"ihfft", tensor.IHFFT, r97, []int{12, 150}},
		} {
			for _, n := range k.ns {
				f, n := k.f, n
				cases = append(cases, one(fmt.Sprintf("%s n=%d norm=%s", k.name, n, norm),
					fmt.Sprintf("np.fft.%s(a, n=%d, norm=%q)", k.name, n, norm), ins("a", k.in),
					func(e *npEnv) *tensor.Tensor { return f(e.v("a"), tensor.FFTLen(n), tensor.FFTNorm(norm)) }))
			}
		}
	}

	// Input dtypes: NumPy computes in float64 and returns complex128.
	for _, in := range []struct {
		name string
		arr  *ndarray.Array
	}{
		{"float32", npR(ndarray.Float32, next(), 33)},
		{"int64", npI(ndarray.Int64, next(), -50, 50, 33)},
		{"int32", npI(ndarray.Int32, next(), -50, 50, 30)},
		{"uint8", npI(ndarray.Uint8, next(), 0, 255, 30)},
		{"bool", npB(next(), 31)},
		{"float16", npR(ndarray.Float16, next(), 30)},
		{"complex64", fftC(ndarray.Complex64, next(), 33)},
		{"special values", npSpecial(f64, next(), 20)},
	} {
		cases = append(cases,
			one("fft "+in.name, "np.fft.fft(a)", ins("a", in.arr), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a")) }),
			one("ifft "+in.name, "np.fft.ifft(a, norm='ortho')", ins("a", in.arr), func(e *npEnv) *tensor.Tensor {
				return tensor.IFFT(e.v("a"), tensor.FFTNorm("ortho"))
			}),
			one("irfft "+in.name, "np.fft.irfft(a)", ins("a", in.arr), func(e *npEnv) *tensor.Tensor { return tensor.IRFFT(e.v("a")) }),
		)
		if !in.arr.DType().IsComplex() { // rfft of complex input warns and drops the imaginary part
			cases = append(cases, one("rfft "+in.name, "np.fft.rfft(a)", ins("a", in.arr), func(e *npEnv) *tensor.Tensor { return tensor.RFFT(e.v("a")) }))
		}
	}

	// 2-D and 3-D, along each axis and over several.
	a2 := npR(f64, next(), 6, 9)
	c2 := fftC(ndarray.Complex128, next(), 7, 5)
	a3 := npR(f64, next(), 3, 4, 5)
	c3 := fftC(ndarray.Complex128, next(), 4, 3, 6)
	i3 := npI(ndarray.Int64, next(), -9, 9, 2, 5, 4)
	cases = append(cases,
		one("fft 2-d axis 0", "np.fft.fft(a, axis=0)", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a"), tensor.FFTAxis(0)) }),
		one("fft 2-d last axis n=4", "np.fft.fft(a, n=4)", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a"), tensor.FFTLen(4)) }),
		one("rfft 3-d axis 1 n=7", "np.fft.rfft(a, n=7, axis=1)", ins("a", a3), func(e *npEnv) *tensor.Tensor {
			return tensor.RFFT(e.v("a"), tensor.FFTLen(7), tensor.FFTAxis(1))
		}),
		one("irfft 3-d axis 0", "np.fft.irfft(a, axis=0)", ins("a", c3), func(e *npEnv) *tensor.Tensor { return tensor.IRFFT(e.v("a"), tensor.FFTAxis(0)) }),
		one("hfft 2-d axis -2 ortho", "np.fft.hfft(a, axis=-2, norm='ortho')", ins("a", c2), func(e *npEnv) *tensor.Tensor {
			return tensor.HFFT(e.v("a"), tensor.FFTAxis(-2), tensor.FFTNorm("ortho"))
		}),
		one("fft2", "np.fft.fft2(a)", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.FFT2(e.v("a")) }),
		one("fft2 s", "np.fft.fft2(a, s=(4, 12))", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.FFT2(e.v("a"), tensor.FFTShape(4, 12)) }),
		one("ifft2 complex forward", "np.fft.ifft2(a, norm='forward')", ins("a", c2), func(e *npEnv) *tensor.Tensor {
			return tensor.IFFT2(e.v("a"), tensor.FFTNorm("forward"))
		}),
		one("fft2 3-d axes (0, 2)", "np.fft.fft2(a, axes=(0, 2))", ins("a", a3), func(e *npEnv) *tensor.Tensor {
			return tensor.FFT2(e.v("a"), tensor.FFTAxes(0, 2))
		}),
		one("fftn 3-d", "np.fft.fftn(a)", ins("a", a3), func(e *npEnv) *tensor.Tensor { return tensor.FFTN(e.v("a")) }),
		one("fftn 3-d ints", "np.fft.fftn(a)", ins("a", i3), func(e *npEnv) *tensor.Tensor { return tensor.FFTN(e.v("a")) }),
		one("fftn s only", "np.fft.fftn(a, s=(3, 8))", ins("a", a3), func(e *npEnv) *tensor.Tensor { return tensor.FFTN(e.v("a"), tensor.FFTShape(3, 8)) }),
		one("fftn repeated axis", "np.fft.fftn(a, axes=(1, 1))", ins("a", c2), func(e *npEnv) *tensor.Tensor { return tensor.FFTN(e.v("a"), tensor.FFTAxes(1, 1)) }),
		one("ifftn 3-d ortho", "np.fft.ifftn(a, norm='ortho')", ins("a", c3), func(e *npEnv) *tensor.Tensor {
			return tensor.IFFTN(e.v("a"), tensor.FFTNorm("ortho"))
		}),
		one("ifftn s axes", "np.fft.ifftn(a, s=(5, 2), axes=(2, 0))", ins("a", c3), func(e *npEnv) *tensor.Tensor {
			return tensor.IFFTN(e.v("a"), tensor.FFTShape(5, 2), tensor.FFTAxes(2, 0))
		}),
		one("rfft2", "np.fft.rfft2(a)", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.RFFT2(e.v("a")) }),
		one("irfft2", "np.fft.irfft2(a)", ins("a", c2), func(e *npEnv) *tensor.Tensor { return tensor.IRFFT2(e.v("a")) }),
		one("irfft2 s", "np.fft.irfft2(a, s=(6, 9))", ins("a", c2), func(e *npEnv) *tensor.Tensor { return tensor.IRFFT2(e.v("a"), tensor.FFTShape(6, 9)) }),
		one("rfftn 3-d", "np.fft.rfftn(a)", ins("a", a3), func(e *npEnv) *tensor.Tensor { return tensor.RFFTN(e.v("a")) }),
		one("rfftn axes (2, 0) forward", "np.fft.rfftn(a, axes=(2, 0), norm='forward')", ins("a", a3), func(e *npEnv) *tensor.Tensor {
			return tensor.RFFTN(e.v("a"), tensor.FFTAxes(2, 0), tensor.FFTNorm("forward"))
		}),
		one("irfftn 3-d", "np.fft.irfftn(a)", ins("a", c3), func(e *npEnv) *tensor.Tensor { return tensor.IRFFTN(e.v("a")) }),
		one("irfftn s", "np.fft.irfftn(a, s=(2, 3, 11))", ins("a", c3), func(e *npEnv) *tensor.Tensor {
			return tensor.IRFFTN(e.v("a"), tensor.FFTShape(2, 3, 11))
		}),
		one("irfftn of rfftn round trip", "np.fft.irfftn(np.fft.rfftn(a), s=a.shape)", ins("a", a3), func(e *npEnv) *tensor.Tensor {
			return tensor.IRFFTN(tensor.RFFTN(e.v("a")), tensor.FFTShape(e.v("a").Shape()...))
		}),
		one("ifft of fft of an expression", "np.fft.ifft(np.fft.fft(a * 2 + 1), axis=0)", ins("a", a2), func(e *npEnv) *tensor.Tensor {
			return tensor.IFFT(tensor.FFT(e.v("a").Mul(2).Add(1)), tensor.FFTAxis(0))
		}),
		one("power spectrum", "np.abs(np.fft.rfft(a, axis=0)) ** 2", ins("a", a2), func(e *npEnv) *tensor.Tensor {
			p := tensor.Abs(tensor.RFFT(e.v("a"), tensor.FFTAxis(0)))
			return p.Mul(p)
		}),
		one("real part of an inverse of a conjugate", "np.fft.ifft(np.conj(a)).real", ins("a", c2), func(e *npEnv) *tensor.Tensor {
			return tensor.IFFT(e.v("a").Conj()).Real()
		}),
		one("fft of a transposed tensor", "np.fft.fft(a.T)", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a").T()) }),
		one("fft of an empty lane set", "np.fft.fft(a, axis=1)", ins("a", npR(f64, next(), 0, 5)), func(e *npEnv) *tensor.Tensor {
			return tensor.FFT(e.v("a"), tensor.FFTAxis(1))
		}),
		one("fft of an empty axis with n", "np.fft.fft(a, n=4)", ins("a", npR(f64, next(), 3, 0)), func(e *npEnv) *tensor.Tensor {
			return tensor.FFT(e.v("a"), tensor.FFTLen(4))
		}),
	)

	// Shifts and frequencies.
	for _, n := range []int{1, 8, 9} {
		x := npArange(ndarray.Int64, n)
		cases = append(cases,
			exact(fmt.Sprintf("fftshift n=%d", n), "np.fft.fftshift(a)", ins("a", x), func(e *npEnv) *tensor.Tensor { return tensor.FFTShift(e.v("a")) }),
			exact(fmt.Sprintf("ifftshift n=%d", n), "np.fft.ifftshift(a)", ins("a", x), func(e *npEnv) *tensor.Tensor { return tensor.IFFTShift(e.v("a")) }),
			exact(fmt.Sprintf("fftfreq n=%d", n), fmt.Sprintf("np.fft.fftfreq(%d, 0.1)", n), nil, func(e *npEnv) *tensor.Tensor {
				return tensor.FFTFreq(n, 0.1, e.chunks(n))
			}).tol(0, 0, "the same integers times the same float: exact"),
			exact(fmt.Sprintf("rfftfreq n=%d", n), fmt.Sprintf("np.fft.rfftfreq(%d, d=3)", n), nil, func(e *npEnv) *tensor.Tensor {
				return tensor.RFFTFreq(n, 3, e.chunks(n/2+1))
			}).tol(0, 0, "the same integers times the same float: exact"),
		)
	}
	sh := npArange(ndarray.Int64, 5, 6)
	cases = append(cases,
		exact("fftshift 2-d", "np.fft.fftshift(a)", ins("a", sh), func(e *npEnv) *tensor.Tensor { return tensor.FFTShift(e.v("a")) }),
		exact("fftshift 2-d axis 0", "np.fft.fftshift(a, axes=0)", ins("a", sh), func(e *npEnv) *tensor.Tensor { return tensor.FFTShift(e.v("a"), 0) }),
		exact("ifftshift 2-d axes (-1,)", "np.fft.ifftshift(a, axes=(-1,))", ins("a", sh), func(e *npEnv) *tensor.Tensor { return tensor.IFFTShift(e.v("a"), -1) }),
		one("fftshift of fft2", "np.fft.fftshift(np.fft.fft2(a))", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.FFTShift(tensor.FFT2(e.v("a"))) }),
	)

	// What NumPy refuses.
	bad := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		return npOne(name, expr, in, f).fails()
	}
	cases = append(cases,
		bad("fft n=0", "np.fft.fft(a, n=0)", ins("a", r97), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a"), tensor.FFTLen(0)) }),
		bad("fft n=-1", "np.fft.fft(a, n=-1)", ins("a", r97), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a"), tensor.FFTLen(-1)) }),
		bad("fft bad norm", "np.fft.fft(a, norm='bogus')", ins("a", r97), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a"), tensor.FFTNorm("bogus")) }),
		bad("fft axis out of range", "np.fft.fft(a, n=3, axis=2)", ins("a", a2), func(e *npEnv) *tensor.Tensor {
			return tensor.FFT(e.v("a"), tensor.FFTLen(3), tensor.FFTAxis(2))
		}),
		bad("irfft of one element", "np.fft.irfft(a)", ins("a", npR(f64, next(), 1)), func(e *npEnv) *tensor.Tensor { return tensor.IRFFT(e.v("a")) }),
		bad("fft of an empty axis", "np.fft.fft(a)", ins("a", npR(f64, next(), 0)), func(e *npEnv) *tensor.Tensor { return tensor.FFT(e.v("a")) }),
		bad("fft2 of 1-d", "np.fft.fft2(a)", ins("a", r97), func(e *npEnv) *tensor.Tensor { return tensor.FFT2(e.v("a")) }),
		bad("fftn s and axes lengths", "np.fft.fftn(a, s=(3,), axes=(0, 1))", ins("a", a2), func(e *npEnv) *tensor.Tensor {
			return tensor.FFTN(e.v("a"), tensor.FFTShape(3), tensor.FFTAxes(0, 1))
		}),
		bad("rfftn s of zero", "np.fft.rfftn(a, s=(0, 3))", ins("a", a2), func(e *npEnv) *tensor.Tensor { return tensor.RFFTN(e.v("a"), tensor.FFTShape(0, 3)) }),
		bad("fftfreq n=0", "np.fft.fftfreq(0)", nil, func(e *npEnv) *tensor.Tensor { return tensor.FFTFreq(0, 1) }),
		bad("rfftfreq d=0", "np.fft.rfftfreq(4, 0.0)", nil, func(e *npEnv) *tensor.Tensor { return tensor.RFFTFreq(4, 0) }),
	)
	return cases
}

// TestFFTNumpyDifferential is the FFT differential suite.
func TestFFTNumpyDifferential(t *testing.T) {
	npSuite(t, "fft", fftCases(), npChunkAll, npSuiteModes)
}
