package tensor

import (
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// The NumPy ufuncs beyond the arithmetic core (see ndarray/ufunc.go), as
// functions and methods, and the NumPy functions built on them: frexp, modf
// and divmod (two results), isclose, allclose, array_equal, array_equiv.
// Every function takes tensors, Go numbers or bools, like Add.

// ArcSin is the inverse sine (np.arcsin); NaN outside [-1, 1].
func ArcSin(x any) *Tensor { return unary("arcsin", x) }

// ArcCos is the inverse cosine (np.arccos); NaN outside [-1, 1].
func ArcCos(x any) *Tensor { return unary("arccos", x) }

// ArcTan is the inverse tangent (np.arctan).
func ArcTan(x any) *Tensor { return unary("arctan", x) }

// Sinh is the hyperbolic sine.
func Sinh(x any) *Tensor { return unary("sinh", x) }

// Cosh is the hyperbolic cosine.
func Cosh(x any) *Tensor { return unary("cosh", x) }

// ArcSinh is the inverse hyperbolic sine (np.arcsinh).
func ArcSinh(x any) *Tensor { return unary("arcsinh", x) }

// ArcCosh is the inverse hyperbolic cosine (np.arccosh); NaN below 1.
func ArcCosh(x any) *Tensor { return unary("arccosh", x) }

// ArcTanh is the inverse hyperbolic tangent (np.arctanh); ±Inf at ±1, NaN
// beyond.
func ArcTanh(x any) *Tensor { return unary("arctanh", x) }

// Exp2 is 2**x.
func Exp2(x any) *Tensor { return unary("exp2", x) }

// Expm1 is exp(x) - 1, accurate for small x.
func Expm1(x any) *Tensor { return unary("expm1", x) }

// Log2 is the base-2 logarithm.
func Log2(x any) *Tensor { return unary("log2", x) }

// Log10 is the base-10 logarithm.
func Log10(x any) *Tensor { return unary("log10", x) }

// Cbrt is the cube root.
func Cbrt(x any) *Tensor { return unary("cbrt", x) }

// Reciprocal is 1/x (np.reciprocal): for integers the truncated quotient,
// so 0 unless x is ±1 (and MinInt for 0, as NumPy gives on x86).
func Reciprocal(x any) *Tensor { return unary("reciprocal", x) }

// Rint rounds to the nearest integer, halves to even (np.rint).
func Rint(x any) *Tensor { return unary("rint", x) }

// Trunc rounds toward zero (np.trunc).
func Trunc(x any) *Tensor { return unary("trunc", x) }

// Fix rounds toward zero (np.fix, float result as in NumPy).
func Fix(x any) *Tensor { return unary("fix", x) }

// Spacing is the distance from x to the next float away from zero, with
// x's sign (np.spacing).
func Spacing(x any) *Tensor { return unary("spacing", x) }

// SignBit is true where the sign bit is set, -0.0 and negative NaN included.
func SignBit(x any) *Tensor { return unary("signbit", x) }

// Degrees converts radians to degrees.
func Degrees(x any) *Tensor { return unary("degrees", x) }

// Rad2Deg converts radians to degrees (NumPy's other name for degrees).
func Rad2Deg(x any) *Tensor { return unary("rad2deg", x) }

// Radians converts degrees to radians.
func Radians(x any) *Tensor { return unary("radians", x) }

// Deg2Rad converts degrees to radians (NumPy's other name for radians).
func Deg2Rad(x any) *Tensor { return unary("deg2rad", x) }

// Fabs is the absolute value as a float (np.fabs; integers give float64).
func Fabs(x any) *Tensor { return unary("fabs", x) }

// Positive is +x (a copy; NumPy refuses bools).
func Positive(x any) *Tensor { return unary("positive", x) }

// IsInf is true where x is +Inf or -Inf.
func IsInf(x any) *Tensor { return unary("isinf", x) }

// IsPosInf is true where x is +Inf.
func IsPosInf(x any) *Tensor { return unary("isposinf", x) }

// IsNegInf is true where x is -Inf.
func IsNegInf(x any) *Tensor { return unary("isneginf", x) }

// NanToNum replaces NaN by 0 and ±Inf by the largest finite values of the
// dtype (np.nan_to_num with its defaults); integers and bools are copied.
func NanToNum(x any) *Tensor { return unary("nan_to_num", x) }

// Invert is bitwise not (np.invert, np.bitwise_not); logical not for bools.
func Invert(x any) *Tensor { return unary("invert", x) }

// ArcTan2 is the angle of the point (x, y), arctan(y/x) in the right
// quadrant: np.arctan2(y, x).
func ArcTan2(y, x any) *Tensor { return binary("arctan2", y, x) }

// Hypot is sqrt(x*x + y*y) without undue overflow or underflow.
func Hypot(x, y any) *Tensor { return binary("hypot", x, y) }

// LogAddExp is log(exp(x) + exp(y)) without overflow.
func LogAddExp(x, y any) *Tensor { return binary("logaddexp", x, y) }

// LogAddExp2 is log2(2**x + 2**y) without overflow.
func LogAddExp2(x, y any) *Tensor { return binary("logaddexp2", x, y) }

// CopySign is x with the sign of y.
func CopySign(x, y any) *Tensor { return binary("copysign", x, y) }

// NextAfter is the next float after x toward y.
func NextAfter(x, y any) *Tensor { return binary("nextafter", x, y) }

// Ldexp is x * 2**e for an integer (or bool) exponent e; the result has the
// float type of x.
func Ldexp(x, e any) *Tensor {
	ts := operands(x, e)
	switch et := e.(type) {
	case int, int32, int64, bool:
		// NumPy's ldexp loops take int32 and int64 exponents, so a Python
		// int stays an integer rather than taking x's float type.
		ts[1] = asTensor(e)
	case *Tensor:
		// Nor does a 0-d integer tensor take x's float type, as other
		// 0-d operands do (operands): the exponent is not cast.
		if et != nil && et.err == nil && et.NDim() == 0 && (et.DType().IsInt() || et.DType() == ndarray.Bool) {
			ts[1] = et
		}
	}
	return elementwise(ops.Elementwise{Kind: "binary", Name: "ldexp"}, ts)
}

// Fmod is the C remainder of x / y, with the sign of x (np.fmod); 0 for
// integer division by zero, as NumPy gives.
func Fmod(x, y any) *Tensor { return binary("fmod", x, y) }

// Heaviside is the step function: 0 below zero, h0 at zero, 1 above, NaN for
// NaN.
func Heaviside(x, h0 any) *Tensor { return binary("heaviside", x, h0) }

// FloatPower is x ** y computed in float64 whatever the inputs (so negative
// integer powers work).
func FloatPower(x, y any) *Tensor { return binary("float_power", x, y) }

// Fmax is the elementwise maximum ignoring NaN (NaN only where both are).
func Fmax(x, y any) *Tensor { return binary("fmax", x, y) }

// Fmin is the elementwise minimum ignoring NaN (NaN only where both are).
func Fmin(x, y any) *Tensor { return binary("fmin", x, y) }

// Gcd is the greatest common divisor of integers (non-negative, but
// gcd(MinInt, 0) = MinInt as in NumPy).
func Gcd(x, y any) *Tensor { return binary("gcd", x, y) }

// Lcm is the least common multiple of integers (wrapping on overflow).
func Lcm(x, y any) *Tensor { return binary("lcm", x, y) }

// BitwiseAnd is x & y for integers and bools.
func BitwiseAnd(x, y any) *Tensor { return binary("bitwise_and", x, y) }

// BitwiseOr is x | y for integers and bools.
func BitwiseOr(x, y any) *Tensor { return binary("bitwise_or", x, y) }

// BitwiseXor is x ^ y for integers and bools.
func BitwiseXor(x, y any) *Tensor { return binary("bitwise_xor", x, y) }

// LeftShift is x << y; 0 for shifts by the bit width or more, or by a
// negative count, as NumPy gives.
func LeftShift(x, y any) *Tensor { return binary("left_shift", x, y) }

// RightShift is the arithmetic shift x >> y; -1 or 0 for shifts by the bit
// width or more, or by a negative count.
func RightShift(x, y any) *Tensor { return binary("right_shift", x, y) }

// Frexp splits x into a mantissa in [0.5, 1) (with x's sign) and an int32
// exponent, x = mantissa * 2**exponent; zeros, infinities and NaN give
// themselves and 0 (np.frexp).
func Frexp(x any) (mantissa, exponent *Tensor) {
	return unary("frexp_mantissa", x), unary("frexp_exponent", x)
}

// Modf splits x into its fractional and integral parts, both with x's sign
// (np.modf): modf(-2.0) is (-0.0, -2.0), modf(Inf) is (0.0, Inf).
func Modf(x any) (frac, integral *Tensor) {
	return unary("modf_fractional", x), unary("trunc", x)
}

// DivMod is (x // y, x % y), the quotient and remainder NumPy's divmod
// gives: the same as FloorDiv and Mod.
func DivMod(x, y any) (quotient, remainder *Tensor) {
	return FloorDiv(x, y), Mod(x, y)
}

// IsClose is np.isclose(a, b, rtol, atol, equal_nan): where both are finite,
// |a - b| <= atol + rtol*|b| (computed in the dtypes NumPy uses, b made a
// float first); elsewhere a == b, or both NaN when equalNaN. NumPy's
// defaults are rtol 1e-5, atol 1e-8, equalNaN false.
func IsClose(a, b any, rtol, atol float64, equalNaN bool) *Tensor {
	x, y := asTensor(a), asTensor(b)
	if y.err == nil && !y.meta.DType.IsFloat() && !y.meta.DType.IsComplex() {
		// NumPy: y = asanyarray(y, dtype=result_type(y, 1.0)), which
		// keeps float and complex types.
		y = y.Astype(ndarray.Float64)
	}
	within := LessEqual(Sub(x, y).Abs(), Add(atol, Mul(rtol, y.Abs())))
	finite := And(x.IsFinite(), y.IsFinite())
	res := Where(finite, within, Equal(x, y))
	if equalNaN {
		res = Or(res, And(x.IsNaN(), y.IsNaN()))
	}
	return res
}

// AllClose is np.allclose: whether IsClose holds everywhere (a 0-d bool).
func AllClose(a, b any, rtol, atol float64, equalNaN bool) *Tensor {
	return IsClose(a, b, rtol, atol, equalNaN).All()
}

// ArrayEqual is np.array_equal: whether a and b have the same shape and
// elements (NaN equal to NaN when equalNaN), as a 0-d bool.
func ArrayEqual(a, b any, equalNaN bool) *Tensor {
	x, y := asTensor(a), asTensor(b)
	if x.err != nil {
		return x
	}
	if y.err != nil {
		return y
	}
	if !slices.Equal(x.meta.Shape, y.meta.Shape) {
		return Scalar(false)
	}
	eq := Equal(x, y)
	if equalNaN {
		eq = Or(eq, And(x.IsNaN(), y.IsNaN()))
	}
	return eq.All()
}

// ArrayEquiv is np.array_equiv: whether a and b broadcast together and are
// equal everywhere, as a 0-d bool.
func ArrayEquiv(a, b any) *Tensor {
	x, y := asTensor(a), asTensor(b)
	if x.err != nil {
		return x
	}
	if y.err != nil {
		return y
	}
	if _, err := ndarray.BroadcastShapes(x.meta.Shape, y.meta.Shape); err != nil {
		return Scalar(false)
	}
	return Equal(x, y).All()
}

// Methods, for chaining.

// ArcSin is the inverse sine.
func (t *Tensor) ArcSin() *Tensor { return ArcSin(t) }

// ArcCos is the inverse cosine.
func (t *Tensor) ArcCos() *Tensor { return ArcCos(t) }

// ArcTan is the inverse tangent.
func (t *Tensor) ArcTan() *Tensor { return ArcTan(t) }

// Sinh is the hyperbolic sine.
func (t *Tensor) Sinh() *Tensor { return Sinh(t) }

// Cosh is the hyperbolic cosine.
func (t *Tensor) Cosh() *Tensor { return Cosh(t) }

// ArcSinh is the inverse hyperbolic sine.
func (t *Tensor) ArcSinh() *Tensor { return ArcSinh(t) }

// ArcCosh is the inverse hyperbolic cosine.
func (t *Tensor) ArcCosh() *Tensor { return ArcCosh(t) }

// ArcTanh is the inverse hyperbolic tangent.
func (t *Tensor) ArcTanh() *Tensor { return ArcTanh(t) }

// Exp2 is 2**t.
func (t *Tensor) Exp2() *Tensor { return Exp2(t) }

// Expm1 is exp(t) - 1.
func (t *Tensor) Expm1() *Tensor { return Expm1(t) }

// Log2 is the base-2 logarithm.
func (t *Tensor) Log2() *Tensor { return Log2(t) }

// Log10 is the base-10 logarithm.
func (t *Tensor) Log10() *Tensor { return Log10(t) }

// Cbrt is the cube root.
func (t *Tensor) Cbrt() *Tensor { return Cbrt(t) }

// Reciprocal is 1/t.
func (t *Tensor) Reciprocal() *Tensor { return Reciprocal(t) }

// Rint rounds to the nearest integer, halves to even.
func (t *Tensor) Rint() *Tensor { return Rint(t) }

// Trunc rounds toward zero.
func (t *Tensor) Trunc() *Tensor { return Trunc(t) }

// Fix rounds toward zero (np.fix).
func (t *Tensor) Fix() *Tensor { return Fix(t) }

// Spacing is the distance to the next float away from zero.
func (t *Tensor) Spacing() *Tensor { return Spacing(t) }

// SignBit is true where the sign bit is set.
func (t *Tensor) SignBit() *Tensor { return SignBit(t) }

// Degrees converts radians to degrees.
func (t *Tensor) Degrees() *Tensor { return Degrees(t) }

// Rad2Deg converts radians to degrees.
func (t *Tensor) Rad2Deg() *Tensor { return Rad2Deg(t) }

// Radians converts degrees to radians.
func (t *Tensor) Radians() *Tensor { return Radians(t) }

// Deg2Rad converts degrees to radians.
func (t *Tensor) Deg2Rad() *Tensor { return Deg2Rad(t) }

// Fabs is the absolute value as a float.
func (t *Tensor) Fabs() *Tensor { return Fabs(t) }

// Positive is +t.
func (t *Tensor) Positive() *Tensor { return Positive(t) }

// IsInf is true where t is infinite.
func (t *Tensor) IsInf() *Tensor { return IsInf(t) }

// IsPosInf is true where t is +Inf.
func (t *Tensor) IsPosInf() *Tensor { return IsPosInf(t) }

// IsNegInf is true where t is -Inf.
func (t *Tensor) IsNegInf() *Tensor { return IsNegInf(t) }

// NanToNum replaces NaN and infinities by finite numbers.
func (t *Tensor) NanToNum() *Tensor { return NanToNum(t) }

// Invert is bitwise not.
func (t *Tensor) Invert() *Tensor { return Invert(t) }

// ArcTan2 is arctan2(t, x): the angle of the point (x, t).
func (t *Tensor) ArcTan2(x any) *Tensor { return ArcTan2(t, x) }

// Hypot is sqrt(t*t + y*y).
func (t *Tensor) Hypot(y any) *Tensor { return Hypot(t, y) }

// LogAddExp is log(exp(t) + exp(y)).
func (t *Tensor) LogAddExp(y any) *Tensor { return LogAddExp(t, y) }

// LogAddExp2 is log2(2**t + 2**y).
func (t *Tensor) LogAddExp2(y any) *Tensor { return LogAddExp2(t, y) }

// CopySign is t with the sign of y.
func (t *Tensor) CopySign(y any) *Tensor { return CopySign(t, y) }

// NextAfter is the next float after t toward y.
func (t *Tensor) NextAfter(y any) *Tensor { return NextAfter(t, y) }

// Ldexp is t * 2**e.
func (t *Tensor) Ldexp(e any) *Tensor { return Ldexp(t, e) }

// Fmod is the C remainder of t / y.
func (t *Tensor) Fmod(y any) *Tensor { return Fmod(t, y) }

// Heaviside is the step function of t with value h0 at zero.
func (t *Tensor) Heaviside(h0 any) *Tensor { return Heaviside(t, h0) }

// FloatPower is t ** y in float64.
func (t *Tensor) FloatPower(y any) *Tensor { return FloatPower(t, y) }

// Fmax is the maximum of t and y ignoring NaN.
func (t *Tensor) Fmax(y any) *Tensor { return Fmax(t, y) }

// Fmin is the minimum of t and y ignoring NaN.
func (t *Tensor) Fmin(y any) *Tensor { return Fmin(t, y) }

// Gcd is the greatest common divisor of t and y.
func (t *Tensor) Gcd(y any) *Tensor { return Gcd(t, y) }

// Lcm is the least common multiple of t and y.
func (t *Tensor) Lcm(y any) *Tensor { return Lcm(t, y) }

// BitwiseAnd is t & y.
func (t *Tensor) BitwiseAnd(y any) *Tensor { return BitwiseAnd(t, y) }

// BitwiseOr is t | y.
func (t *Tensor) BitwiseOr(y any) *Tensor { return BitwiseOr(t, y) }

// BitwiseXor is t ^ y.
func (t *Tensor) BitwiseXor(y any) *Tensor { return BitwiseXor(t, y) }

// LeftShift is t << y.
func (t *Tensor) LeftShift(y any) *Tensor { return LeftShift(t, y) }

// RightShift is t >> y.
func (t *Tensor) RightShift(y any) *Tensor { return RightShift(t, y) }

// Frexp splits t into mantissa and exponent.
func (t *Tensor) Frexp() (mantissa, exponent *Tensor) { return Frexp(t) }

// Modf splits t into fractional and integral parts.
func (t *Tensor) Modf() (frac, integral *Tensor) { return Modf(t) }

// DivMod is (t // y, t % y).
func (t *Tensor) DivMod(y any) (quotient, remainder *Tensor) { return DivMod(t, y) }

// IsClose is np.isclose(t, y, rtol, atol, equalNaN).
func (t *Tensor) IsClose(y any, rtol, atol float64, equalNaN bool) *Tensor {
	return IsClose(t, y, rtol, atol, equalNaN)
}

// AllClose is np.allclose(t, y, rtol, atol, equalNaN).
func (t *Tensor) AllClose(y any, rtol, atol float64, equalNaN bool) *Tensor {
	return AllClose(t, y, rtol, atol, equalNaN)
}
