package ndarray

import (
	"fmt"
	"math"
	"math/cmplx"
)

// Complex kernels: casts to and from complex64/complex128, and the ufunc
// loops NumPy 1.24 has for complex operands. Arithmetic that NumPy writes
// out itself (multiplication, Smith's division, reciprocal, integer powers,
// sign, comparisons, maximum/minimum) follows its loops operation for
// operation, in the precision of the parts (complex64 results are rounded
// to float32 after every step, as float32 arithmetic would). The
// transcendental functions NumPy takes from the C library (csqrt, cexp,
// clog, csin, ...) come from Go's math/cmplx, evaluated in complex128 and
// rounded once for complex64; they agree with glibc to a few ulps on finite
// values (the differential suite checks them against NumPy).

// ewComplex are the complex element types.
type ewComplex interface{ complex64 | complex128 }

// ---- casts ----

// ewCastComplex is ewCastInto when src or dst is complex.
func ewCastComplex(out, a *Array) {
	src, dst := a.dtype, out.dtype
	switch {
	case src == Complex64 && dst == Complex128:
		ewUnaryRun(func(d []complex128, x []complex64) {
			for i := range d {
				d[i] = complex128(x[i])
			}
		}, out, a)
	case src == Complex128 && dst == Complex64:
		ewUnaryRun(func(d []complex64, x []complex128) {
			for i := range d {
				d[i] = complex64(x[i])
			}
		}, out, a)
	case dst.IsComplex():
		// Real to complex: the value converted to the part type (NumPy's
		// casts round once, as converting to float32/float64 does), with
		// a zero imaginary part.
		p := ewCast(a, ComplexPart(dst))
		if dst == Complex64 {
			ewUnaryRun(func(d []complex64, x []float32) {
				for i := range d {
					d[i] = complex(x[i], 0)
				}
			}, out, p)
		} else {
			ewUnaryRun(func(d []complex128, x []float64) {
				for i := range d {
					d[i] = complex(x[i], 0)
				}
			}, out, p)
		}
	case dst == Bool:
		// NumPy: nonzero, i.e. either part nonzero (NaN counts as nonzero).
		if src == Complex64 {
			ewUnaryRun(func(d []uint8, x []complex64) {
				for i := range d {
					d[i] = ewB2U(x[i] != 0)
				}
			}, out, a)
		} else {
			ewUnaryRun(func(d []uint8, x []complex128) {
				for i := range d {
					d[i] = ewB2U(x[i] != 0)
				}
			}, out, a)
		}
	default:
		// Complex to real or integer: NumPy drops the imaginary part
		// (ComplexWarning) and casts the real part as a float of the
		// part's type would be cast.
		ewCastInto(out, complexPartView(a, false))
	}
}

// complexPartView is the real (imag false) or imaginary part of the
// complex a as a strided view of the part type on a's buffer: a complex
// element is two floats, so the part's strides are twice a's.
func complexPartView(a *Array, imagPart bool) *Array {
	st := make([]int, len(a.strides))
	for i, s := range a.strides {
		st[i] = 2 * s
	}
	off := 2 * a.offset
	if imagPart {
		off++
	}
	return &Array{dtype: ComplexPart(a.dtype), shape: append([]int(nil), a.shape...), strides: st, offset: off, buf: a.buf}
}

// complexPart is the real (imag false) or imaginary part of a complex
// array, as a new contiguous array of the part type and a's shape.
func complexPart(a *Array, imagPart bool) *Array {
	out := newArray(ComplexPart(a.dtype), a.shape)
	if a.dtype == Complex64 {
		ewUnaryRun(func(d []float32, x []complex64) {
			for i := range d {
				if imagPart {
					d[i] = imag(x[i])
				} else {
					d[i] = real(x[i])
				}
			}
		}, out, a)
	} else {
		ewUnaryRun(func(d []float64, x []complex128) {
			for i := range d {
				if imagPart {
					d[i] = imag(x[i])
				} else {
					d[i] = real(x[i])
				}
			}
		}, out, a)
	}
	return out
}

// ---- type resolution ----

// complexUnaryTypes is ewUnaryTypes for a complex input: NumPy 1.24's
// complex loops, and a DTypeError for the ufuncs that have none.
func complexUnaryTypes(op UnaryOp, in DType) (ct, rt DType, err error) {
	switch op {
	case Neg, Positive, Sign, Square, Reciprocal, Sqrt, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p,
		Sin, Cos, Tan, Sinh, Cosh, Tanh, ArcSin, ArcCos, ArcTan, ArcSinh, ArcCosh, ArcTanh,
		Rint, Round, NanToNum, Conjugate:
		return in, in, nil
	case Abs, Real, Imag, Angle, AngleDeg:
		return in, ComplexPart(in), nil
	case IsNaN, IsFinite, IsInf, Not:
		return in, Bool, nil
	case IsNegInf, IsPosInf:
		return 0, 0, &DTypeError{Msg: fmt.Sprintf("ndarray: %v: not supported for %v values because it would be ambiguous (numpy raises)", op, in)}
	}
	return 0, 0, &DTypeError{Msg: fmt.Sprintf("ndarray: %v: not supported for %v (numpy raises; it has no complex loop)", op, in)}
}

// realOnlyUnaryTypes types the complex-number functions (real, imag,
// angle, conjugate) for a real input, as NumPy's np.real, np.imag,
// np.angle and np.conjugate do.
func realOnlyUnaryTypes(op UnaryOp, in DType) (ct, rt DType, err error) {
	switch op {
	case Conjugate:
		if in == Bool {
			return Int8, Int8, nil // NumPy's conjugate has no bool loop
		}
		return in, in, nil
	case Real, Imag:
		return in, in, nil
	case Angle, AngleDeg:
		// np.angle is arctan2(0, x): float16 for 8-bit integers, float32
		// for 16-bit ones and float32, float64 otherwise (bool included).
		// (np.angle of bool is float64: its 0 meets the bools by value.)
		if in == Bool {
			return Float64, Float64, nil
		}
		f := UfuncFloat(in)
		return f, f, nil
	}
	return 0, 0, fmt.Errorf("ndarray: unknown unary op %d", uint8(op))
}

// complexBinaryTypes is ewBinaryTypes when the promoted type p is complex.
func complexBinaryTypes(op BinaryOp, p DType) (ct, rt DType, err error) {
	switch op {
	case Add, Sub, Mul, Div, Pow, Maximum, Minimum, Fmax, Fmin:
		return p, p, nil
	case FloatPower:
		return Complex128, Complex128, nil
	case Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual, And, Or, Xor:
		return p, Bool, nil
	}
	return 0, 0, &DTypeError{Msg: fmt.Sprintf("ndarray: %v: not supported for %v (numpy raises; it has no complex loop)", op, p)}
}

// ---- scalar arithmetic as NumPy writes it ----

// cRound is the rounding of one arithmetic step: identity for complex128,
// to float32 for complex64 (a float64 operation on float32 values rounded
// to float32 is the float32 operation, double rounding being harmless for
// +, -, *, / at these widths).
type cRound func(float64) float64

func round64(x float64) float64 { return x }
func round32(x float64) float64 { return float64(float32(x)) }

// cDiv is NumPy's complex division (loops.c.src and npy_math's cdiv):
// Smith's method, with division by a zero denominator giving the parts over
// |0| (inf or nan, signed as the numerator's parts).
func cDiv(ar, ai, br, bi float64, r cRound) (float64, float64) {
	abr, abi := math.Abs(br), math.Abs(bi)
	if abr >= abi {
		if abr == 0 && abi == 0 {
			return r(ar / abr), r(ai / abr)
		}
		rat := r(bi / br)
		scl := r(1 / r(br+r(bi*rat)))
		return r(r(ar+r(ai*rat)) * scl), r(r(ai-r(ar*rat)) * scl)
	}
	rat := r(br / bi)
	scl := r(1 / r(bi+r(br*rat)))
	return r(r(r(ar*rat)+ai) * scl), r(r(r(ai*rat)-ar) * scl)
}

// cArith is the kernel of a complex arithmetic function: the loops call
// f directly, so a small f (cMul64, cDiv128, ...) inlines into them.
func cArith[C ewComplex](f func(a, b C) C) ewBinKernel[C, C] {
	return ewBinKernel[C, C]{
		vv: func(d, x, y []C) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = f(x[i], y[i])
			}
		},
		vs: func(d, x []C, y C) {
			x = x[:len(d)]
			for i := range d {
				d[i] = f(x[i], y)
			}
		},
		sv: func(d []C, x C, y []C) {
			y = y[:len(d)]
			for i := range d {
				d[i] = f(x, y[i])
			}
		},
	}
}

// cMul64 and cMul128 are cMul in each precision; the conversions keep
// every product rounded on its own (no fused multiply-add), as NumPy's C.
func cMul64(a, b complex64) complex64 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float32(ar*br)-float32(ai*bi), float32(ar*bi)+float32(ai*br))
}

func cMul128(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float64(ar*br)-float64(ai*bi), float64(ar*bi)+float64(ai*br))
}

// smith is cDiv in the precision F itself.
func smith[F ewFloat](ar, ai, br, bi F) (F, F) {
	// |x| by math.Abs, which clears the sign of -0 too (exact in float32).
	abr, abi := F(math.Abs(float64(br))), F(math.Abs(float64(bi)))
	if abr >= abi {
		if abr == 0 && abi == 0 {
			return ar / abr, ai / abr
		}
		rat := bi / br
		scl := 1 / (br + F(bi*rat))
		return F(ar+F(ai*rat)) * scl, F(ai-F(ar*rat)) * scl
	}
	rat := br / bi
	scl := 1 / (bi + F(br*rat))
	return F(F(ar*rat)+ai) * scl, F(F(ai*rat)-ar) * scl
}

func cDiv64(a, b complex64) complex64 {
	re, im := smith(real(a), imag(a), real(b), imag(b))
	return complex(re, im)
}

func cDiv128(a, b complex128) complex128 {
	re, im := smith(real(a), imag(a), real(b), imag(b))
	return complex(re, im)
}

// cRecip is NumPy's complex reciprocal loop.
func cRecip(ar, ai float64, r cRound) (float64, float64) {
	if math.Abs(ai) <= math.Abs(ar) {
		rat := r(ai / ar)
		d := r(ar + r(ai*rat))
		return r(1 / d), r(-rat / d)
	}
	rat := r(ar / ai)
	d := r(r(ar*rat) + ai)
	return r(rat / d), r(-1 / d)
}

// cMul is the textbook product NumPy's cmul computes (no C99 Annex G
// recovery of infinities).
func cMul(ar, ai, br, bi float64, r cRound) (float64, float64) {
	return r(r(ar*br) - r(ai*bi)), r(r(ar*bi) + r(ai*br))
}

// cPow is NumPy 1.24's npy_cpow: 1 for a zero exponent, 0 or nan+nanj
// for a zero base, repeated multiplication for integer exponents below 100
// in magnitude (so small powers are exact where they can be), and
// exp(b*log(a)) (glibc's cpow) otherwise.
func cPow(a, b complex128, r cRound) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	if br == 0 && bi == 0 {
		return 1
	}
	if ar == 0 && ai == 0 {
		if br > 0 && bi == 0 {
			return 0
		}
		return complex(math.NaN(), math.NaN())
	}
	if bi == 0 && br == math.Trunc(br) && math.Abs(br) < 100 {
		n := int(br)
		switch n {
		case 1:
			return a
		case 2:
			return complex(cMul(ar, ai, ar, ai, r))
		case 3:
			pr, pi := cMul(ar, ai, ar, ai, r)
			return complex(cMul(ar, ai, pr, pi, r))
		}
		if n < 0 {
			n = -n
		}
		accR, accI := 1.0, 0.0
		pr, pi := ar, ai
		for mask := 1; ; mask <<= 1 {
			if n&mask != 0 {
				accR, accI = cMul(accR, accI, pr, pi, r)
			}
			if n < mask<<1 {
				break
			}
			pr, pi = cMul(pr, pi, pr, pi, r)
		}
		if br < 0 {
			return complex(cDiv(1, 0, accR, accI, r))
		}
		return complex(accR, accI)
	}
	return cmplx.Exp(b * cmplx.Log(a))
}

// cSign is NumPy 1.24's complex sign: the sign of the real part, or of the
// imaginary part when the real part is zero, as a complex number with a
// zero imaginary part; nan when either part is nan.
func cSign(z complex128) complex128 {
	re, im := real(z), imag(z)
	switch {
	case re != re || im != im:
		return complex(math.NaN(), 0)
	case re > 0:
		return 1
	case re < 0:
		return -1
	case im > 0:
		return 1
	case im < 0:
		return -1
	}
	return 0
}

// NumPy 1.24's lexicographic complex comparisons (loops.c.src's CLT and
// friends): the real parts decide unless they are equal, and a nan
// imaginary part makes an ordering by the real parts false.
func cLT(x, y complex128) bool {
	xr, xi, yr, yi := real(x), imag(x), real(y), imag(y)
	return (xr < yr && xi == xi && yi == yi) || (xr == yr && xi < yi)
}

func cLE(x, y complex128) bool {
	xr, xi, yr, yi := real(x), imag(x), real(y), imag(y)
	return (xr < yr && xi == xi && yi == yi) || (xr == yr && xi <= yi)
}

func cGT(x, y complex128) bool {
	xr, xi, yr, yi := real(x), imag(x), real(y), imag(y)
	return (xr > yr && xi == xi && yi == yi) || (xr == yr && xi > yi)
}

func cGE(x, y complex128) bool {
	xr, xi, yr, yi := real(x), imag(x), real(y), imag(y)
	return (xr > yr && xi == xi && yi == yi) || (xr == yr && xi >= yi)
}

func cIsNaN(z complex128) bool { return real(z) != real(z) || imag(z) != imag(z) }

// cRint rounds both parts half to even (np.rint and np.round of a complex).
func cRint(z complex128) complex128 {
	return complex(math.RoundToEven(real(z)), math.RoundToEven(imag(z)))
}

// cExpm1, cLog1p, cExp2, cLog2 and cLog10 are NumPy's own definitions
// (funcs.inc.src), not the C library's.
func cExpm1(z complex128) complex128 {
	x, y := real(z), imag(z)
	a := math.Sin(y / 2)
	return complex(math.Expm1(x)*math.Cos(y)-2*a*a, math.Exp(x)*math.Sin(y))
}

func cLog1p(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex(math.Log(math.Hypot(x+1, y)), atan2(y, x+1))
}

func cExp2(z complex128) complex128 {
	return cExp(complex(real(z)*math.Ln2, imag(z)*math.Ln2))
}

func cLog2(z complex128) complex128 {
	l := cLog(z)
	return complex(real(l)*math.Log2E, imag(l)*math.Log2E)
}

func cLog10(z complex128) complex128 {
	l := cLog(z)
	return complex(real(l)*math.Log10E, imag(l)*math.Log10E)
}

// Where math/cmplx and glibc (C99 Annex G, which NumPy's npy_c* functions
// call) part on special values and branch cuts, these wrappers take
// glibc's side: a NaN real part makes csqrt NaN+NaNi; ctanh(±0 + i inf or
// NaN) is ±0+NaNi (and ctan follows through ctan(z) = -i ctanh(iz)); on
// the cuts of catanh, catan, casinh and cacosh the sign of a zero part
// picks the side, as C99 has it. Left as math/cmplx gives them: the signs
// of an infinite or zero part next to a NaN part of sin, cos, sinh, cosh,
// arcsin, arccos and arcsinh, which C99 leaves unspecified and glibc
// settles its own way.

func cSqrt(z complex128) complex128 {
	if math.IsNaN(real(z)) && !math.IsInf(imag(z), 0) {
		return complex(math.NaN(), math.NaN())
	}
	return cmplx.Sqrt(z)
}

func cTanh(z complex128) complex128 {
	if x, y := real(z), imag(z); x == 0 && (math.IsInf(y, 0) || math.IsNaN(y)) {
		return complex(x, math.NaN())
	}
	return cTanhFinite(z)
}

func cTan(z complex128) complex128 {
	x, y := real(z), imag(z)
	if math.IsInf(x, 0) || math.IsNaN(x) || math.IsInf(y, 0) || math.IsNaN(y) {
		w := cTanh(complex(-y, x)) // tan z = -i tanh(iz)
		return complex(imag(w), -real(w))
	}
	w := cTanhFinite(complex(-y, x)) // tan z = -i tanh(iz)
	return complex(imag(w), -real(w))
}

func cAtanh(z complex128) complex128 {
	r := cmplx.Atanh(z)
	if x, y := real(z), imag(z); y == 0 && math.Abs(x) > 1 {
		return complex(real(r), math.Copysign(math.Pi/2, y))
	}
	return r
}

func cAtan(z complex128) complex128 {
	if x, y := real(z), imag(z); x == 0 && math.Abs(y) > 1 {
		w := cAtanh(complex(-y, x)) // atan z = -i atanh(iz)
		return complex(imag(w), -real(w))
	}
	return cmplx.Atan(z)
}

func cAsinh(z complex128) complex128 {
	r := cmplx.Asinh(z)
	if x, y := real(z), imag(z); y == 0 && !math.IsNaN(x) {
		return complex(real(r), y)
	}
	return r
}

func cAcosh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if x == 0 && math.IsNaN(y) {
		return complex(math.NaN(), math.Pi/2)
	}
	r := cmplx.Acosh(z)
	if math.IsNaN(y) || math.IsNaN(real(r)) {
		return r
	}
	return complex(math.Abs(real(r)), math.Copysign(imag(r), y))
}

// cNanToNum replaces nan by 0 and infinities by the part type's largest
// finite values, in each part separately (np.nan_to_num).
func cNanToNum(z complex128, big float64) complex128 {
	f := func(v float64) float64 {
		switch {
		case v != v:
			return 0
		case math.IsInf(v, 1):
			return big
		case math.IsInf(v, -1):
			return -big
		}
		return v
	}
	return complex(f(real(z)), f(imag(z)))
}

// complexFunc is the complex128 function of a unary op that maps complex to
// complex, or nil. r rounds arithmetic steps to the part precision.
func complexFunc(op UnaryOp, r cRound, big float64) func(complex128) complex128 {
	switch op {
	case Neg:
		return func(z complex128) complex128 { return -z }
	case Positive:
		return func(z complex128) complex128 { return z }
	case Conjugate:
		return cmplx.Conj
	case Sign:
		return cSign
	case Square:
		return func(z complex128) complex128 { return complex(cMul(real(z), imag(z), real(z), imag(z), r)) }
	case Reciprocal:
		return func(z complex128) complex128 { return complex(cRecip(real(z), imag(z), r)) }
	case Sqrt:
		return cSqrt
	case Exp:
		return cExp
	case Exp2:
		return cExp2
	case Expm1:
		return cExpm1
	case Log:
		return cLog
	case Log2:
		return cLog2
	case Log10:
		return cLog10
	case Log1p:
		return cLog1p
	case Sin:
		return cSin
	case Cos:
		return cCos
	case Tan:
		return cTan
	case Sinh:
		return cSinh
	case Cosh:
		return cCosh
	case Tanh:
		return cTanh
	case ArcSin:
		return cAsinKahan
	case ArcCos:
		return cAcosKahan
	case ArcTan:
		return cAtanKahan
	case ArcSinh:
		return cAsinhKahan
	case ArcCosh:
		return cAcoshKahan
	case ArcTanh:
		return cAtanhKahan
	case Rint, Round:
		return cRint
	case NanToNum:
		return func(z complex128) complex128 { return cNanToNum(z, big) }
	}
	return nil
}

// complexRealFunc is the function of a unary op that maps complex to its
// part type, or nil.
func complexRealFunc(op UnaryOp) func(complex128) float64 {
	switch op {
	case Abs:
		return cmplx.Abs // npy_cabs is hypot, as cmplx.Abs is
	case Real:
		return func(z complex128) float64 { return real(z) }
	case Imag:
		return func(z complex128) float64 { return imag(z) }
	case Angle:
		return func(z complex128) float64 { return atan2(imag(z), real(z)) }
	case AngleDeg:
		return func(z complex128) float64 { return atan2(imag(z), real(z)) * (180 / math.Pi) }
	}
	return nil
}

// complexPredicate is the bool function of a unary op on complex, or nil.
func complexPredicate(op UnaryOp) func(complex128) bool {
	switch op {
	case IsNaN:
		return cIsNaN
	case IsInf:
		return func(z complex128) bool { return math.IsInf(real(z), 0) || math.IsInf(imag(z), 0) }
	case IsFinite:
		return func(z complex128) bool {
			return !math.IsInf(real(z), 0) && !math.IsInf(imag(z), 0) && !cIsNaN(z)
		}
	case Not:
		return func(z complex128) bool { return z == 0 }
	}
	return nil
}

// complexUnaryKernel runs op over x, of the complex type ct, into out.
func complexUnaryKernel(op UnaryOp, ct DType, out, x *Array) error {
	if ct == Complex64 {
		return complexUnaryTyped[complex64, float32](op, out, x, round32, math.MaxFloat32)
	}
	return complexUnaryTyped[complex128, float64](op, out, x, round64, math.MaxFloat64)
}

func complexUnaryTyped[C ewComplex, F ewFloat](op UnaryOp, out, x *Array, r cRound, big float64) error {
	switch op {
	case Real, Imag:
		ewCopyInto(out, complexPartView(x, op == Imag))
		return nil
	case Abs:
		// npy_cabs is hypot of the parts: the float hypot loops on views.
		return ufuncBinaryKernel(Hypot, out.dtype, out, complexPartView(x, false), complexPartView(x, true))
	case Neg:
		ewUnaryRun(func(d, v []C) {
			for i := range d {
				d[i] = -v[i]
			}
		}, out, x)
		return nil
	case Positive:
		ewUnaryRun(ewCopyLoop[C], out, x)
		return nil
	}
	if f := complexFunc(op, r, big); f != nil {
		ewUnaryRun(func(d, v []C) {
			for i := range d {
				d[i] = C(f(complex128(v[i])))
			}
		}, out, x)
		return nil
	}
	if f := complexRealFunc(op); f != nil {
		ewUnaryRun(func(d []F, v []C) {
			for i := range d {
				d[i] = F(f(complex128(v[i])))
			}
		}, out, x)
		return nil
	}
	if f := complexPredicate(op); f != nil {
		ewUnaryRun(func(d []uint8, v []C) {
			for i := range d {
				d[i] = ewB2U(f(complex128(v[i])))
			}
		}, out, x)
		return nil
	}
	return fmt.Errorf("ndarray: %v: no loop for %v", op, out.dtype)
}

// realOnlyKernel runs real, imag, conjugate and angle over a real x of type
// ct into out.
func realOnlyKernel(op UnaryOp, ct DType, out, x *Array) error {
	switch op {
	case Real, Conjugate:
		ewCopyInto(out, x)
	case Imag:
		// out is fresh and zeroed, or (through UnaryInto) a reused tile.
		clear(out.buf[out.offset*out.dtype.Size() : (out.offset+out.Size())*out.dtype.Size()])
	case Angle, AngleDeg:
		zero := newArray(ct, nil)
		if err := ewBinaryKernel(ArcTan2, ct, out, zero, x); err != nil {
			return err
		}
		if op == AngleDeg {
			k := Scalar(ct, 180/math.Pi)
			return ewBinaryKernel(Mul, ct, out, out, k)
		}
	default:
		return fmt.Errorf("ndarray: unknown unary op %d", uint8(op))
	}
	return nil
}

// complexBinaryKernel runs op over x and y, of the complex type ct and
// broadcast to out's shape, into out.
func complexBinaryKernel(op BinaryOp, ct DType, out, x, y *Array) error {
	if ct == Complex64 {
		return complexBinaryTyped[complex64](op, out, x, y, round32)
	}
	return complexBinaryTyped[complex128](op, out, x, y, round64)
}

func complexBinaryTyped[C ewComplex](op BinaryOp, out, x, y *Array, r cRound) error {
	var f func(a, b complex128) complex128
	var p func(a, b complex128) bool
	switch op {
	case Add:
		ewBinaryRun(cArith[C](func(a, b C) C { return a + b }), out, x, y)
		return nil
	case Sub:
		ewBinaryRun(cArith[C](func(a, b C) C { return a - b }), out, x, y)
		return nil
	case Mul, Div:
		var z C
		switch any(z).(type) {
		case complex64:
			k := cArith(cMul64)
			if op == Div {
				k = cArith(cDiv64)
			}
			ewBinaryRun(k, out, x, y)
		case complex128:
			k := cArith(cMul128)
			if op == Div {
				k = cArith(cDiv128)
			}
			ewBinaryRun(k, out, x, y)
		}
		return nil
	case Pow, FloatPower:
		f = func(a, b complex128) complex128 { return cPow(a, b, r) }
	case Maximum, Minimum, Fmax, Fmin:
		f = complexFold(op)
	case Less:
		p = cLT
	case LessEqual:
		p = cLE
	case Greater:
		p = cGT
	case GreaterEqual:
		p = cGE
	case Equal:
		p = func(a, b complex128) bool { return a == b }
	case NotEqual:
		p = func(a, b complex128) bool { return a != b }
	case And:
		p = func(a, b complex128) bool { return a != 0 && b != 0 }
	case Or:
		p = func(a, b complex128) bool { return a != 0 || b != 0 }
	case Xor:
		p = func(a, b complex128) bool { return (a != 0) != (b != 0) }
	default:
		return fmt.Errorf("ndarray: %v: no loop for %v", op, out.dtype)
	}
	if p != nil {
		ewBinaryRun(ewBinFunc(func(a, b C) uint8 { return ewB2U(p(complex128(a), complex128(b))) }), out, x, y)
		return nil
	}
	ewBinaryRun(ewBinFunc(func(a, b C) C { return C(f(complex128(a), complex128(b))) }), out, x, y)
	return nil
}

// cSortCmp is NumPy's sort order of complex numbers (npysort's CLT):
// lexicographic by real then imaginary part among numbers without NaN,
// then those with a NaN imaginary part only (by real part), then those
// with a NaN real part (by imaginary part), then NaN+NaNj. Complex arrays
// sort with a comparison sort: their order has no 64-bit key.
func cSortCmp(x, y complex128) int {
	class := func(z complex128) int {
		c := 0
		if imag(z) != imag(z) {
			c = 1
		}
		if real(z) != real(z) {
			c += 2
		}
		return c
	}
	cx, cy := class(x), class(y)
	if cx != cy {
		return cx - cy
	}
	cmp := func(a, b float64) int {
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0 // equal, or both NaN (same class)
	}
	if c := cmp(real(x), real(y)); c != 0 {
		return c
	}
	return cmp(imag(x), imag(y))
}
