package ndarray

import "math"

// Typed inner loops. Each takes equal-length contiguous slices (or a scalar)
// so that the compiler sees a plain indexed loop with bounds checks hoisted;
// the op is chosen once per call, never per element.

// ---- binary arithmetic ----

func ewAddVV[T ewNum](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] + y[i]
	}
}

func ewAddVS[T ewNum](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] + y
	}
}

func ewAddSV[T ewNum](d []T, x T, y []T) { ewAddVS(d, y, x) }

func ewSubVV[T ewNum](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] - y[i]
	}
}

func ewSubVS[T ewNum](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] - y
	}
}

func ewSubSV[T ewNum](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = x - y[i]
	}
}

func ewMulVV[T ewNum](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] * y[i]
	}
}

func ewMulVS[T ewNum](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] * y
	}
}

func ewMulSV[T ewNum](d []T, x T, y []T) { ewMulVS(d, y, x) }

func ewDivVV[T ewFloat](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] / y[i]
	}
}

func ewDivVS[T ewFloat](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] / y
	}
}

func ewDivSV[T ewFloat](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = x / y[i]
	}
}

// Bool add and multiply are logical or / and in NumPy.

func ewOrVV(d, x, y []uint8) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] | y[i]
	}
}

func ewOrVS(d, x []uint8, y uint8) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] | y
	}
}

func ewOrSV(d []uint8, x uint8, y []uint8) { ewOrVS(d, y, x) }

func ewAndVV(d, x, y []uint8) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] & y[i]
	}
}

func ewAndVS(d, x []uint8, y uint8) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] & y
	}
}

func ewAndSV(d []uint8, x uint8, y []uint8) { ewAndVS(d, y, x) }

// ---- floor division, remainder, power ----

// ewFloorDivInt is Python's floor division; x//0 is 0 as NumPy returns (with
// a warning), and MinInt//-1 wraps to MinInt as in NumPy.
func ewFloorDivInt[T ewInt](x, y T) T {
	if y == 0 {
		return 0
	}
	q := x / y
	if (x%y != 0) && ((x < 0) != (y < 0)) {
		q--
	}
	return q
}

// ewModInt is Python's remainder (sign of the divisor); x%0 is 0 as in NumPy.
func ewModInt[T ewInt](x, y T) T {
	if y == 0 {
		return 0
	}
	r := x % y
	if r != 0 && ((r < 0) != (y < 0)) {
		r += y
	}
	return r
}

// ewDivmodFloat is npy_divmod from NumPy 1.24 (itself CPython's
// float_divmod): fmod-based, with the quotient snapped to an integer.
func ewDivmodFloat[T ewFloat](a, b T) (floordiv, mod T) {
	mod = T(math.Mod(float64(a), float64(b))) // fmod is exact, so the float32 rounding is too
	if b == 0 {
		return a / b, mod
	}
	div := (a - mod) / b
	if mod != 0 { // true for NaN, as C's if (mod)
		if (b < 0) != (mod < 0) {
			mod += b
			div -= 1
		}
	} else {
		mod = T(math.Copysign(0, float64(b)))
	}
	if div != 0 {
		floordiv = T(math.Floor(float64(div)))
		if div-floordiv > 0.5 {
			floordiv += 1
		}
	} else {
		floordiv = T(math.Copysign(0, float64(a/b)))
	}
	return floordiv, mod
}

func ewFloorDivFloat[T ewFloat](a, b T) T {
	q, _ := ewDivmodFloat(a, b)
	return q
}

func ewModFloat[T ewFloat](a, b T) T {
	if b == 0 {
		return T(math.Mod(float64(a), float64(b)))
	}
	_, m := ewDivmodFloat(a, b)
	return m
}

// ewPowInt is NumPy's integer power by squaring, wrapping on overflow. The
// caller has rejected negative exponents.
func ewPowInt[T ewInt](x, y T) T {
	if y == 0 || x == 1 {
		return 1
	}
	r := T(1)
	if y&1 != 0 {
		r = x
	}
	y >>= 1
	for y > 0 {
		x *= x
		if y&1 != 0 {
			r *= x
		}
		y >>= 1
	}
	return r
}

// ewPowFloat computes in float64 for float32 too: the double result rounded
// once more is, but for vanishingly rare ties, the correctly rounded powf.
func ewPowFloat[T ewFloat](x, y T) T { return T(ewPow(float64(x), float64(y))) }

func ewFloorDivIntVV[T ewInt](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewFloorDivInt(x[i], y[i])
	}
}

func ewFloorDivIntVS[T ewInt](d, x []T, y T) {
	x = x[:len(d)]
	if y == 0 {
		clear(d)
		return
	}
	for i := range d {
		d[i] = ewFloorDivInt(x[i], y)
	}
}

func ewFloorDivIntSV[T ewInt](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = ewFloorDivInt(x, y[i])
	}
}

func ewModIntVV[T ewInt](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewModInt(x[i], y[i])
	}
}

func ewModIntVS[T ewInt](d, x []T, y T) {
	x = x[:len(d)]
	if y == 0 {
		clear(d)
		return
	}
	for i := range d {
		d[i] = ewModInt(x[i], y)
	}
}

func ewModIntSV[T ewInt](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = ewModInt(x, y[i])
	}
}

func ewPowIntVV[T ewInt](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewPowInt(x[i], y[i])
	}
}

func ewPowIntVS[T ewInt](d, x []T, y T) {
	x = x[:len(d)]
	switch y {
	case 2: // the common square, kept multiply-only
		for i := range d {
			d[i] = x[i] * x[i]
		}
		return
	}
	for i := range d {
		d[i] = ewPowInt(x[i], y)
	}
}

func ewPowIntSV[T ewInt](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = ewPowInt(x, y[i])
	}
}

func ewFloorDivFloatVV[T ewFloat](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewFloorDivFloat(x[i], y[i])
	}
}

func ewFloorDivFloatVS[T ewFloat](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewFloorDivFloat(x[i], y)
	}
}

func ewFloorDivFloatSV[T ewFloat](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = ewFloorDivFloat(x, y[i])
	}
}

func ewModFloatVV[T ewFloat](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewModFloat(x[i], y[i])
	}
}

func ewModFloatVS[T ewFloat](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewModFloat(x[i], y)
	}
}

func ewModFloatSV[T ewFloat](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = ewModFloat(x, y[i])
	}
}

func ewPowFloatVV[T ewFloat](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewPowFloat(x[i], y[i])
	}
}

func ewPowFloatVS[T ewFloat](d, x []T, y T) {
	x = x[:len(d)]
	if y == 2 { // x*x is the correctly rounded pow(x, 2), specials included
		for i := range d {
			d[i] = x[i] * x[i]
		}
		return
	}
	for i := range d {
		d[i] = ewPowFloat(x[i], y)
	}
}

func ewPowFloatSV[T ewFloat](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		d[i] = ewPowFloat(x, y[i])
	}
}

// ---- maximum / minimum ----
// NumPy: maximum(x, y) = x if x > y or x is NaN, else y. So NaN propagates
// from either side and ties (0 vs -0) give y. For uint8 bools this is or/and.

func ewMaxVV[T ewElem](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		a, b := x[i], y[i]
		if a > b || a != a {
			b = a
		}
		d[i] = b
	}
}

func ewMaxVS[T ewElem](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		a, b := x[i], y
		if a > b || a != a {
			b = a
		}
		d[i] = b
	}
}

func ewMaxSV[T ewElem](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		a, b := x, y[i]
		if a > b || a != a {
			b = a
		}
		d[i] = b
	}
}

func ewMinVV[T ewElem](d, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		a, b := x[i], y[i]
		if a < b || a != a {
			b = a
		}
		d[i] = b
	}
}

func ewMinVS[T ewElem](d, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		a, b := x[i], y
		if a < b || a != a {
			b = a
		}
		d[i] = b
	}
}

func ewMinSV[T ewElem](d []T, x T, y []T) {
	y = y[:len(d)]
	for i := range d {
		a, b := x, y[i]
		if a < b || a != a {
			b = a
		}
		d[i] = b
	}
}

// ---- comparisons (result bool) ----

func ewLtVV[T ewElem](d []uint8, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] < y[i])
	}
}

func ewLtVS[T ewElem](d []uint8, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] < y)
	}
}

func ewLeVV[T ewElem](d []uint8, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] <= y[i])
	}
}

func ewLeVS[T ewElem](d []uint8, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] <= y)
	}
}

func ewGtVS[T ewElem](d []uint8, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] > y)
	}
}

func ewGeVS[T ewElem](d []uint8, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] >= y)
	}
}

func ewEqVV[T ewElem](d []uint8, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] == y[i])
	}
}

func ewEqVS[T ewElem](d []uint8, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] == y)
	}
}

func ewNeVV[T ewElem](d []uint8, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] != y[i])
	}
}

func ewNeVS[T ewElem](d []uint8, x []T, y T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] != y)
	}
}

// ---- logical (nonzero, including NaN, is true) ----

func ewLAndVV[T ewElem](d []uint8, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] != 0) & ewB2U(y[i] != 0)
	}
}

func ewLAndVS[T ewElem](d []uint8, x []T, y T) {
	if y == 0 {
		clear(d)
		return
	}
	ewNeVS(d, x, 0)
}

func ewLOrVV[T ewElem](d []uint8, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] != 0) | ewB2U(y[i] != 0)
	}
}

func ewLOrVS[T ewElem](d []uint8, x []T, y T) {
	if y != 0 {
		ewFill(d, 1)
		return
	}
	ewNeVS(d, x, 0)
}

func ewLXorVV[T ewElem](d []uint8, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] != 0) ^ ewB2U(y[i] != 0)
	}
}

func ewLXorVS[T ewElem](d []uint8, x []T, y T) {
	if y != 0 {
		ewEqVS(d, x, 0)
		return
	}
	ewNeVS(d, x, 0)
}

// ---- unary ----

func ewNegLoop[T ewNum](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = -x[i]
	}
}

func ewAbsIntLoop[T ewInt](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		v := x[i]
		if v < 0 {
			v = -v // MinInt wraps to itself, as in NumPy
		}
		d[i] = v
	}
}

func ewAbsF64Loop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = math.Abs(x[i])
	}
}

func ewAbsF32Loop(d, x []float32) {
	x = x[:len(d)]
	for i := range d {
		d[i] = math.Float32frombits(math.Float32bits(x[i]) &^ (1 << 31))
	}
}

func ewSignIntLoop[T ewInt](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = T(ewB2U(x[i] > 0)) - T(ewB2U(x[i] < 0))
	}
}

// ewSignFloatLoop is NumPy's sign: NaN stays NaN and -0 gives +0.
func ewSignFloatLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		v := x[i]
		switch {
		case v > 0:
			v = 1
		case v < 0:
			v = -1
		case v == 0:
			v = 0
		}
		d[i] = v
	}
}

func ewSquareLoop[T ewNum](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] * x[i]
	}
}

func ewSqrtLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = T(math.Sqrt(float64(x[i]))) // correctly rounded for float32 too
	}
}

// ewFloatFuncLoop returns the loop of a float-only math function, with a
// direct call per element. float32 goes through float64, which is at least
// as accurate as NumPy's float32 routines.
func ewFloatFuncLoop[T ewFloat](op UnaryOp) func(d, x []T) {
	switch op {
	case Sqrt:
		return ewSqrtLoop[T]
	case Exp:
		return func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(ewExp(float64(x[i]))) // not math.Exp: see ewExp
			}
		}
	case Log:
		return func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(ewLog(float64(x[i]))) // the AVX-512 loop's bits: see ewLog
			}
		}
	case Log1p:
		return func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(ewLog1p(float64(x[i]))) // the AVX-512 loop's bits: see ewLog1p
			}
		}
	case Sin:
		return func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(ewSin(float64(x[i]))) // the AVX-512 loop's bits: see ewSin
			}
		}
	case Cos:
		return func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(ewCos(float64(x[i]))) // the AVX-512 loop's bits: see ewCos
			}
		}
	case Tan:
		return func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(math.Tan(float64(x[i])))
			}
		}
	case Tanh:
		return func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(math.Tanh(float64(x[i])))
			}
		}
	case Floor:
		return ewFloorLoop[T]
	case Ceil:
		return ewCeilLoop[T]
	case Round:
		return ewRoundLoop[T]
	}
	return nil
}

func ewFloorLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = T(math.Floor(float64(x[i])))
	}
}

func ewCeilLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = T(math.Ceil(float64(x[i])))
	}
}

func ewRoundLoop[T ewFloat](d, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = T(math.RoundToEven(float64(x[i])))
	}
}

func ewIsNaNLoop[T ewElem](d []uint8, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] != x[i])
	}
}

// ewIsFiniteLoop uses x-x == 0, false exactly for ±Inf and NaN.
func ewIsFiniteLoop[T ewElem](d []uint8, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i]-x[i] == 0)
	}
}

func ewNotLoop[T ewElem](d []uint8, x []T) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] == 0)
	}
}

func ewCopyLoop[T any](d, x []T) { copy(d, x) }

// ---- where / clip ----

func ewWhereLoop[T any](d []T, c []uint8, x, y []T) {
	c, x, y = c[:len(d)], x[:len(d)], y[:len(d)]
	for i := range d {
		v := y[i]
		if c[i] != 0 {
			v = x[i]
		}
		d[i] = v
	}
}

// ewClipLoop is NumPy's clip: minimum(maximum(x, lo), hi) with NumPy's
// NaN-propagating maximum/minimum, so lo > hi gives hi.
func ewClipLoop[T ewElem](d, x, lo, hi []T) {
	x, lo, hi = x[:len(d)], lo[:len(d)], hi[:len(d)]
	for i := range d {
		v, l, h := x[i], lo[i], hi[i]
		if !(v > l || v != v) {
			v = l
		}
		if !(v < h || v != v) {
			v = h
		}
		d[i] = v
	}
}

func ewClipScalarLoop[T ewElem](d, x []T, l, h T) {
	x = x[:len(d)]
	for i := range d {
		v := x[i]
		if !(v > l || v != v) {
			v = l
		}
		if !(v < h || v != v) {
			v = h
		}
		d[i] = v
	}
}

// ---- casts ----

func ewConvLoop[S, D ewElem](d []D, x []S) {
	x = x[:len(d)]
	for i := range d {
		d[i] = D(x[i])
	}
}

// ewToBoolLoop: nonzero (and NaN) is true.
func ewToBoolLoop[S ewElem](d []uint8, x []S) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewB2U(x[i] != 0)
	}
}

// ewFloatToIntLoop truncates toward zero; NaN, ±Inf and out-of-range values
// give MinInt, which is what NumPy produces on x86 (cvttsd2si). Go leaves the
// out-of-range conversion implementation-defined, hence the explicit check.
// lo and hi are the exclusive bounds of values whose truncation fits.
func ewFloatToIntLoop[S ewFloat, D ewInt](lo, hi float64, minv D) func(d []D, x []S) {
	return func(d []D, x []S) {
		x = x[:len(d)]
		for i := range d {
			f := float64(x[i])
			v := minv
			if f > lo && f < hi {
				v = D(f)
			}
			d[i] = v
		}
	}
}
