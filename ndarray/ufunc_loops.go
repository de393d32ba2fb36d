package ndarray

import "math"

// Loops of the ufuncs of ufunc.go, in the style of elementwise_loops.go.

// ewBinFunc makes the three loops of a binary kernel from a scalar function.
// The call through f is not inlined; ops whose speed matters have loops of
// their own below.
func ewBinFunc[T, R any](f func(x, y T) R) ewBinKernel[T, R] {
	return ewBinKernel[T, R]{
		vv: func(d []R, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = f(x[i], y[i])
			}
		},
		vs: func(d []R, x []T, y T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = f(x[i], y)
			}
		},
		sv: func(d []R, x T, y []T) {
			y = y[:len(d)]
			for i := range d {
				d[i] = f(x, y[i])
			}
		},
	}
}

// ewMapLoop is the loop of a float function computed in float64: for
// float32 the float64 result rounded once, which is correctly rounded but
// for rare near-ties (NumPy's float32 routines are within a few ULPs).
func ewMapLoop[T ewFloat](f func(float64) float64) func(d, x []T) {
	return func(d, x []T) {
		x = x[:len(d)]
		for i := range d {
			d[i] = T(f(float64(x[i])))
		}
	}
}

// ufuncFloatLoop returns the loop of a float -> same-float unary op, or
// nil when op has none.
func ufuncFloatLoop[T ewFloat](op UnaryOp) func(d, x []T) {
	switch op {
	case ArcSin:
		return ewMapLoop[T](ewAsin)
	case ArcCos:
		return ewMapLoop[T](ewAcos)
	case ArcTan:
		if f, ok := vecAtan(); ok {
			if f, ok := any(f).(func(d, x []T)); ok { // float64
				return f
			}
		}
		return ewMapLoop[T](ewAtan)
	case Sinh:
		return ewMapLoop[T](ewSinh)
	case Cosh:
		return ewMapLoop[T](ewCosh)
	case ArcSinh:
		return ewMapLoop[T](math.Asinh)
	case ArcCosh:
		return ewMapLoop[T](math.Acosh)
	case ArcTanh:
		return ewMapLoop[T](math.Atanh)
	case Exp2:
		return ewMapLoop[T](math.Exp2)
	case Expm1:
		return ewMapLoop[T](math.Expm1)
	case Log2:
		if f, ok := vecUnary64(Log2); ok {
			if f, ok := any(f).(func(d, x []T)); ok { // float64
				return f
			}
		}
		return ewMapLoop[T](ewLog2)
	case Log10:
		return ewMapLoop[T](ewLog10)
	case Cbrt:
		return ewMapLoop[T](math.Cbrt)
	case Reciprocal:
		return ewReciprocalLoop[T]
	case Rint:
		return ewRoundLoop[T]
	case Trunc, Fix:
		// np.fix is ceil below zero and floor from zero up: trunc, -0.0
		// included (fix(-0.5) = ceil(-0.5) = -0.0).
		return ewTruncLoop[T]
	case Degrees, Rad2Deg:
		return ewScaleLoop(ewRad2Deg[T]())
	case Radians, Deg2Rad:
		return ewScaleLoop(ewDeg2Rad[T]())
	case Fabs:
		return ewFabsLoop[T]
	case Spacing:
		return ewSpacingLoop[T]
	case NanToNum:
		return ewNanToNumLoop[T]
	case FrexpMantissa:
		return ewFrexpFracLoop[T]
	case ModfFrac:
		return ewModfFracLoop[T]
	}
	return nil
}

func ewReciprocalLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = 1 / x[i]
	}
}

func ewTruncLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = T(math.Trunc(float64(x[i])))
	}
}

// The factors of degrees and radians, as NumPy's C computes them in each
// precision: 180.0/NPY_PI and NPY_PI/180.0 (NPY_PIf in float32), each one
// rounded division of the rounded pi (which typed constants give too).
const (
	ewRad2Deg64 = float64(180) / float64(math.Pi)
	ewDeg2Rad64 = float64(math.Pi) / float64(180)
	ewRad2Deg32 = float32(180) / float32(math.Pi)
	ewDeg2Rad32 = float32(math.Pi) / float32(180)
)

func ewRad2Deg[T ewFloat]() T {
	var z T
	if _, ok := any(z).(float32); ok {
		return T(ewRad2Deg32)
	}
	return T(ewRad2Deg64)
}

func ewDeg2Rad[T ewFloat]() T {
	var z T
	if _, ok := any(z).(float32); ok {
		return T(ewDeg2Rad32)
	}
	return T(ewDeg2Rad64)
}

func ewScaleLoop[T ewFloat](c T) func(d, x []T) {
	return func(d, x []T) { ewMulVS(d, x, c) }
}

func ewFabsLoop[T ewFloat](d, x []T) {
	switch d := any(d).(type) {
	case []float64:
		ewAbsF64Loop(d, any(x).([]float64))
	case []float32:
		ewAbsF32Loop(d, any(x).([]float32))
	}
}

func ewSpacingLoop[T ewFloat](d, x []T) {
	switch d := any(d).(type) {
	case []float64:
		x := any(x).([]float64)[:len(d)]
		for i := range d {
			d[i] = ewSpacing64(x[i])
		}
	case []float32:
		x := any(x).([]float32)[:len(d)]
		for i := range d {
			d[i] = ewSpacing32(x[i])
		}
	}
}

// Variables, as T(constant) must fit every type of T's set.
var (
	ewMaxFloat64 = math.MaxFloat64
	ewMinInt64   = int64(math.MinInt64)
)

// ewNanToNumLoop is np.nan_to_num with its defaults: NaN -> 0, +Inf -> the
// largest finite value, -Inf -> the most negative one.
func ewNanToNumLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	big := T(math.MaxFloat32)
	if _, ok := any(big).(float64); ok {
		big = T(ewMaxFloat64)
	}
	for i := range d {
		v := x[i]
		switch {
		case v != v:
			v = 0
		case v > big:
			v = big
		case v < -big:
			v = -big
		}
		d[i] = v
	}
}

// ewFrexpFracLoop is frexp's mantissa: in [0.5, 1) with x's sign, x itself
// for zeros, infinities and NaN.
func ewFrexpFracLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		f, _ := math.Frexp(float64(x[i]))
		d[i] = T(f)
	}
}

// ewFrexpExpLoop is frexp's exponent (0 for zeros, infinities and NaN, as
// glibc gives it).
func ewFrexpExpLoop[T ewFloat](d []int32, x []T) {
	x = x[:len(d)]
	for i := range d {
		_, e := math.Frexp(float64(x[i]))
		d[i] = int32(e)
	}
}

// ewModfFracLoop is C modf's fractional part: x - trunc(x) (exact) with x's
// sign, so modf(-2.0) gives -0.0 and modf(±Inf) gives ±0.0. (Go's math.Modf
// gives NaN for infinities.)
func ewModfFracLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		v := float64(x[i])
		f := v - math.Trunc(v)
		if math.IsInf(v, 0) {
			f = 0
		}
		d[i] = T(math.Copysign(f, v))
	}
}

func ewSignBitLoop[T ewFloat](d []uint8, x []T) {
	switch x := any(x).(type) {
	case []float64:
		x = x[:len(d)]
		for i := range d {
			d[i] = uint8(math.Float64bits(x[i]) >> 63)
		}
	case []float32:
		x = x[:len(d)]
		for i := range d {
			d[i] = uint8(math.Float32bits(x[i]) >> 31)
		}
	}
}

func ewIsInfLoop[T ewFloat](d []uint8, x []T) {
	x = x[:len(d)]
	for i := range d {
		f := float64(x[i])
		d[i] = ewB2U(f > math.MaxFloat64) | ewB2U(f < -math.MaxFloat64)
	}
}

func ewIsPosInfLoop[T ewFloat](d []uint8, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(float64(x[i]) > math.MaxFloat64)
	}
}

func ewIsNegInfLoop[T ewFloat](d []uint8, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(float64(x[i]) < -math.MaxFloat64)
	}
}

func ewIsNegIntLoop[T ewInt](d []uint8, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] < 0)
	}
}

func ewFalseLoop[T any](d []uint8, _ []T) { clear(d) }

// ewReciprocalIntLoop is NumPy's integer reciprocal, (T)(1.0/x): 1/x
// truncated, and for 1/0 what x86 makes of +Inf converted to T (MinInt for
// 32 and 64 bits, 0 for the narrower and the unsigned types).
func ewReciprocalIntLoop[T ewInt](d, x []T) {
	x = x[:len(d)]
	inf := ewFloatToInt[float64, T](math.Inf(1))
	for i := range d {
		v := x[i]
		switch {
		case v == 0:
			v = inf
		case v == 1 || (v < 0 && v+1 == 0): // 1 and, for signed types, -1
		default:
			v = 0
		}
		d[i] = v
	}
}

func ewInvertLoop[T ewInt](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ^x[i]
	}
}

// ---- hypot and arctan2 in float64, with direct calls ----

// ewHypotVV and ewHypotVS take the common case (no scaling, neither
// operand negligible; NaN fails the test) straight to the kernel, a quarter
// faster than ewHypot per element.
func ewHypotVV(d, x, y []float64) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		a, b := math.Abs(x[i]), math.Abs(y[i])
		if a < b {
			a, b = b, a
		}
		if a <= 0x1p+511 && b >= 0x1p-459 && b > a*0x1p-54 {
			d[i] = ewHypotKernel(a, b)
		} else {
			d[i] = ewHypot(x[i], y[i])
		}
	}
}

func ewHypotVS(d, x []float64, y float64) {
	x = x[:len(d)]
	ay := math.Abs(y)
	for i := range d {
		a, b := math.Abs(x[i]), ay
		if a < b {
			a, b = b, a
		}
		if a <= 0x1p+511 && b >= 0x1p-459 && b > a*0x1p-54 {
			d[i] = ewHypotKernel(a, b)
		} else {
			d[i] = ewHypot(x[i], y)
		}
	}
}

func ewHypotSV(d []float64, x float64, y []float64) { ewHypotVS(d, y, x) }

// ewAtanLoop is the float64 arctan loop, with direct calls.
func ewAtanLoop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewAtan(x[i])
	}
}

func ewAtan2VV(d, y, x []float64) {
	y, x = y[:len(d)], x[:len(d)]
	for i := range d {
		d[i] = ewAtan2(y[i], x[i])
	}
}

func ewAtan2VS(d, y []float64, x float64) {
	y = y[:len(d)]
	for i := range d {
		d[i] = ewAtan2(y[i], x)
	}
}

func ewAtan2SV(d []float64, y float64, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewAtan2(y, x[i])
	}
}

// ---- fmax / fmin ----
// NumPy: fmax(x, y) = x if x > y or y is NaN, else y. So NaN is ignored
// unless both are NaN, and ties (0 vs -0) give y, as in maximum.

func ewFmaxVV[T ewFloat](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		a, b := x[i], y[i]
		if a > b || b != b {
			b = a
		}
		d[i] = b
	}
}

func ewFmaxVS[T ewFloat](d, x []T, y T) {
	x = x[:len(d)]
	if y != y {
		copy(d, x)
		return
	}
	for i := range d {
		a := x[i]
		if !(a > y) {
			a = y
		}
		d[i] = a
	}
}

func ewFmaxSV[T ewFloat](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		b := y[i]
		if x > b || b != b {
			b = x
		}
		d[i] = b
	}
}

func ewFminVV[T ewFloat](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		a, b := x[i], y[i]
		if a < b || b != b {
			b = a
		}
		d[i] = b
	}
}

func ewFminVS[T ewFloat](d, x []T, y T) {
	x = x[:len(d)]
	if y != y {
		copy(d, x)
		return
	}
	for i := range d {
		a := x[i]
		if !(a < y) {
			a = y
		}
		d[i] = a
	}
}

func ewFminSV[T ewFloat](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		b := y[i]
		if x < b || b != b {
			b = x
		}
		d[i] = b
	}
}

// ---- bitwise ----

func ewBitAndVV[T ewInt | uint8](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] & y[i]
	}
}

func ewBitAndVS[T ewInt | uint8](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] & y
	}
}

func ewBitOrVV[T ewInt | uint8](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] | y[i]
	}
}

func ewBitOrVS[T ewInt | uint8](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] | y
	}
}

func ewBitXorVV[T ewInt | uint8](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] ^ y[i]
	}
}

func ewBitXorVS[T ewInt | uint8](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] ^ y
	}
}

// ewExpLoop is the float64 exp loop, with direct calls.
func ewExpLoop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewExp(x[i])
	}
}
