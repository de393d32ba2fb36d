package ndarray

import (
	"fmt"
	"math"
)

// The NumPy 1.24 ufuncs beyond the arithmetic, comparison and logical core of
// elementwise.go: inverse trigonometric and hyperbolic functions, more
// exponentials and logarithms, rounding, floating-point manipulation
// (copysign, nextafter, spacing, ldexp, frexp, modf), NaN-ignoring
// maximum/minimum, gcd/lcm and the bitwise ops. Type resolution follows
// NumPy's loops, with the substitution of elementwise.go where NumPy
// computes in float16 (UfuncFloat). The scalar math is in ufunc_math.go, the loops
// in ufunc_loops.go.

// ufuncUnaryTypes is ewUnaryTypes for the ops of this file.
func ufuncUnaryTypes(op UnaryOp, in DType) (ct, rt DType, err error) {
	switch op {
	case ArcSin, ArcCos, ArcTan, Sinh, Cosh, ArcSinh, ArcCosh, ArcTanh, Exp2, Expm1, Log2, Log10,
		Cbrt, Rint, Trunc, Fix, Spacing, Degrees, Radians, Deg2Rad, Rad2Deg, Fabs, FrexpMantissa, ModfFrac:
		f := UfuncFloat(in)
		return f, f, nil
	case FrexpExponent:
		return UfuncFloat(in), Int32, nil
	case Reciprocal:
		if in == Bool {
			return Bool, Int8, nil
		}
		return in, in, nil
	case Positive:
		if in == Bool {
			return 0, 0, &DTypeError{Msg: "ndarray: positive: not supported for bool (numpy raises)"}
		}
		return in, in, nil
	case NanToNum:
		return in, in, nil
	case SignBit, IsInf, IsNegInf, IsPosInf:
		// NumPy casts integers to float64 first; the sign and finiteness
		// of an integer are those of its float64 value, so integers are
		// tested as they are.
		return in, Bool, nil
	case Invert:
		if in.IsFloat() {
			return 0, 0, &DTypeError{Msg: fmt.Sprintf("ndarray: invert: not supported for %v (numpy raises; bitwise ops take integers and bools)", in)}
		}
		return in, in, nil
	}
	return 0, 0, fmt.Errorf("ndarray: unknown unary op %d", uint8(op))
}

// ufuncBinaryTypes is ewBinaryTypes for the ops of this file. Both inputs are
// cast to ct; for ldexp that is the float type of the mantissa, which holds
// every exponent that does not over- or underflow anyway exactly.
func ufuncBinaryTypes(op BinaryOp, a, b DType) (ct, rt DType, err error) {
	p := Promote(a, b)
	switch op {
	case ArcTan2, Hypot, LogAddExp, LogAddExp2, CopySign, NextAfter, Heaviside:
		f := ufuncFloat2(a, b)
		return f, f, nil
	case FloatPower:
		return Float64, Float64, nil
	case Ldexp:
		if b.IsFloat() {
			return 0, 0, &DTypeError{Msg: fmt.Sprintf("ndarray: ldexp: the exponent must be an integer, not %v (numpy raises)", b)}
		}
		f := UfuncFloat(a)
		return f, f, nil
	case Fmod:
		if p == Bool {
			return Int8, Int8, nil
		}
		return p, p, nil
	case Fmax, Fmin:
		return p, p, nil
	case Gcd, Lcm:
		if p.IsFloat() || p == Bool {
			return 0, 0, &DTypeError{Msg: fmt.Sprintf("ndarray: %v: not supported for %v and %v (numpy raises; it takes integers)", op, a, b)}
		}
		return p, p, nil
	case BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift, RightShift:
		if p.IsFloat() {
			return 0, 0, &DTypeError{Msg: fmt.Sprintf("ndarray: %v: not supported for %v and %v (numpy raises; bitwise ops take integers and bools)", op, a, b)}
		}
		if p == Bool && (op == LeftShift || op == RightShift) {
			return Int8, Int8, nil
		}
		return p, p, nil
	}
	return 0, 0, fmt.Errorf("ndarray: unknown binary op %d", uint8(op))
}

// ufuncFloat2 is the float type of NumPy's first loop of a binary float
// ufunc that both a and b cast to safely: the wider of their UfuncFloat
// types (int8 and uint8 meet in float16), a bool taking the other's.
func ufuncFloat2(a, b DType) DType {
	switch {
	case a == Bool:
		return UfuncFloat(b)
	case b == Bool:
		return UfuncFloat(a)
	}
	return Promote(UfuncFloat(a), UfuncFloat(b))
}

// ufuncUnaryKernel runs a unary op of this file over x, already of the
// computation type ct, into out. Type resolution admits only the pairs
// that have a loop; one that has none is an error, never a silent output.
func ufuncUnaryKernel(op UnaryOp, ct DType, out, x *Array) error {
	var ran bool
	switch ct {
	case Float64:
		ran = ufuncUnaryFloat[float64](op, out, x)
	case Float32:
		ran = ufuncUnaryFloat[float32](op, out, x)
	case Int64:
		ran = ufuncUnaryInt[int64](op, out, x)
	case Int32:
		ran = ufuncUnaryInt[int32](op, out, x)
	case Int8:
		ran = ufuncUnaryInt[int8](op, out, x)
	case Int16:
		ran = ufuncUnaryInt[int16](op, out, x)
	case Uint8:
		ran = ufuncUnaryInt[uint8](op, out, x)
	case Uint16:
		ran = ufuncUnaryInt[uint16](op, out, x)
	case Uint32:
		ran = ufuncUnaryInt[uint32](op, out, x)
	case Uint64:
		ran = ufuncUnaryInt[uint64](op, out, x)
	case Bool:
		ran = ufuncUnaryBool(op, out, x)
	}
	if !ran {
		return fmt.Errorf("ndarray: %v: no loop for %v", op, ct)
	}
	return nil
}

func ufuncUnaryFloat[T ewFloat](op UnaryOp, out, x *Array) bool {
	switch op {
	case SignBit:
		ewUnaryRun(ewSignBitLoop[T], out, x)
	case IsInf:
		ewUnaryRun(ewIsInfLoop[T], out, x)
	case IsNegInf:
		ewUnaryRun(ewIsNegInfLoop[T], out, x)
	case IsPosInf:
		ewUnaryRun(ewIsPosInfLoop[T], out, x)
	case FrexpExponent:
		ewUnaryRun(ewFrexpExpLoop[T], out, x)
	case Positive:
		ewUnaryRun(ewCopyLoop[T], out, x)
	default:
		f := ufuncFloatLoop[T](op)
		if f == nil {
			return false
		}
		ewUnaryRun(f, out, x)
	}
	return true
}

func ufuncUnaryInt[T ewInt](op UnaryOp, out, x *Array) bool {
	switch op {
	case Reciprocal:
		ewUnaryRun(ewReciprocalIntLoop[T], out, x)
	case Positive, NanToNum:
		ewUnaryRun(ewCopyLoop[T], out, x)
	case SignBit:
		ewUnaryRun(ewIsNegIntLoop[T], out, x)
	case IsInf, IsNegInf, IsPosInf:
		ewUnaryRun(ewFalseLoop[T], out, x)
	case Invert:
		ewUnaryRun(ewInvertLoop[T], out, x)
	default:
		return false
	}
	return true
}

func ufuncUnaryBool(op UnaryOp, out, x *Array) bool {
	switch op {
	case Reciprocal:
		// NumPy's int8 loop computes (int8)(1.0/x): 1 for true and, for
		// false, the low byte of x86's integer indefinite (0x80000000): 0.
		ewUnaryRun(ewConvLoop[uint8, int8], out, x)
	case NanToNum:
		ewUnaryRun(ewCopyLoop[uint8], out, x)
	case SignBit, IsInf, IsNegInf, IsPosInf:
		ewUnaryRun(ewFalseLoop[uint8], out, x)
	case Invert:
		ewUnaryRun(ewNotLoop[uint8], out, x)
	default:
		return false
	}
	return true
}

// ufuncBinaryKernel runs a binary op of this file over x and y, already of
// the computation type ct and broadcast to out's shape, into out; a pair
// with no loop is an error, as in ufuncUnaryKernel.
func ufuncBinaryKernel(op BinaryOp, ct DType, out, x, y *Array) error {
	var ran bool
	switch ct {
	case Float64:
		ran = ufuncBinaryFloat64(op, out, x, y)
	case Float32:
		ran = ufuncBinaryFloat32(op, out, x, y)
	case Int64:
		ran = ufuncBinaryInt[int64](op, out, x, y)
	case Int32:
		ran = ufuncBinaryInt[int32](op, out, x, y)
	case Int8:
		ran = ufuncBinaryInt[int8](op, out, x, y)
	case Int16:
		ran = ufuncBinaryInt[int16](op, out, x, y)
	case Uint8:
		ran = ufuncBinaryInt[uint8](op, out, x, y)
	case Uint16:
		ran = ufuncBinaryInt[uint16](op, out, x, y)
	case Uint32:
		ran = ufuncBinaryInt[uint32](op, out, x, y)
	case Uint64:
		ran = ufuncBinaryInt[uint64](op, out, x, y)
	case Bool:
		ran = ufuncBinaryBool(op, out, x, y)
	}
	if !ran {
		return fmt.Errorf("ndarray: %v: no loop for %v", op, ct)
	}
	return nil
}

func ufuncBinaryFloat64(op BinaryOp, out, x, y *Array) bool {
	switch op {
	case Hypot:
		if k, ok := vecHypot(); ok {
			ewBinaryRun(k, out, x, y)
			return true
		}
		ewBinaryRun(ewBinKernel[float64, float64]{ewHypotVV, ewHypotVS, ewHypotSV}, out, x, y)
	case ArcTan2:
		if k, ok := vecAtan2(); ok {
			ewBinaryRun(k, out, x, y)
			return true
		}
		ewBinaryRun(ewBinKernel[float64, float64]{ewAtan2VV, ewAtan2VS, ewAtan2SV}, out, x, y)
	case FloatPower:
		// The loops of power, whose float64 kernel is float_power's.
		if k, ok := vecKernel64(Pow); ok {
			ewBinaryRun(k, out, x, y)
			return true
		}
		ewBinaryRun(ewBinKernel[float64, float64]{ewPowFloatVV[float64], ewPowFloatVS[float64], ewPowFloatSV[float64]}, out, x, y)
	default:
		return ufuncBinaryFloat[float64](op, out, x, y)
	}
	return true
}

func ufuncBinaryFloat32(op BinaryOp, out, x, y *Array) bool {
	switch op {
	case Hypot:
		ewBinaryRun(ewBinFunc(ewHypot32), out, x, y)
	case ArcTan2:
		ewBinaryRun(ewBinFunc(func(a, b float32) float32 { return float32(ewAtan2(float64(a), float64(b))) }), out, x, y)
	case CopySign:
		ewBinaryRun(ewBinFunc(ewCopySign32), out, x, y)
	case NextAfter:
		ewBinaryRun(ewBinFunc(ewNextAfter32), out, x, y)
	default:
		return ufuncBinaryFloat[float32](op, out, x, y)
	}
	return true
}

func ufuncBinaryFloat[T ewFloat](op BinaryOp, out, x, y *Array) bool {
	switch op {
	case CopySign:
		ewBinaryRun(ewBinFunc(func(a, b T) T { return T(ewCopySign64(float64(a), float64(b))) }), out, x, y)
	case NextAfter:
		ewBinaryRun(ewBinFunc(func(a, b T) T { return T(ewNextAfter64(float64(a), float64(b))) }), out, x, y)
	case LogAddExp:
		ewBinaryRun(ewBinFunc(ewLogAddExp[T]), out, x, y)
	case LogAddExp2:
		ewBinaryRun(ewBinFunc(ewLogAddExp2[T]), out, x, y)
	case Ldexp:
		ewBinaryRun(ewBinFunc(ewLdexp[T]), out, x, y)
	case Fmod:
		ewBinaryRun(ewBinFunc(func(a, b T) T { return T(math.Mod(float64(a), float64(b))) }), out, x, y) // fmod is exact, so float32 is too
	case Heaviside:
		ewBinaryRun(ewBinFunc(ewHeaviside[T]), out, x, y)
	case Fmax:
		ewBinaryRun(ewBinKernel[T, T]{ewFmaxVV[T], ewFmaxVS[T], ewFmaxSV[T]}, out, x, y)
	case Fmin:
		ewBinaryRun(ewBinKernel[T, T]{ewFminVV[T], ewFminVS[T], ewFminSV[T]}, out, x, y)
	default:
		return false
	}
	return true
}

func ufuncBinaryInt[T ewInt](op BinaryOp, out, x, y *Array) bool {
	switch op {
	case Fmod:
		ewBinaryRun(ewBinFunc(ewFmodInt[T]), out, x, y)
	case Fmax:
		ewBinaryCommon[T](Maximum, out, x, y)
	case Fmin:
		ewBinaryCommon[T](Minimum, out, x, y)
	case Gcd:
		ewBinaryRun(ewBinFunc(ewGcd[T]), out, x, y)
	case Lcm:
		ewBinaryRun(ewBinFunc(ewLcm[T]), out, x, y)
	case LeftShift:
		ewBinaryRun(ewBinFunc(ewLeftShift[T]), out, x, y)
	case RightShift:
		ewBinaryRun(ewBinFunc(ewRightShift[T]), out, x, y)
	default:
		return ewBitwise[T](op, out, x, y)
	}
	return true
}

func ufuncBinaryBool(op BinaryOp, out, x, y *Array) bool {
	switch op {
	case Fmax: // numpy: logical or
		ewBinaryCommon[uint8](Maximum, out, x, y)
	case Fmin: // numpy: logical and
		ewBinaryCommon[uint8](Minimum, out, x, y)
	default:
		return ewBitwise[uint8](op, out, x, y)
	}
	return true
}

// ewBitwise runs bitwise_and/or/xor; bools are 0/1 bytes, so the byte ops
// are NumPy's logical ones.
func ewBitwise[T ewInt | uint8](op BinaryOp, out, x, y *Array) bool {
	switch op {
	case BitwiseAnd:
		ewBinaryRun(ewBinKernel[T, T]{ewBitAndVV[T], ewBitAndVS[T], func(d []T, s T, v []T) { ewBitAndVS(d, v, s) }}, out, x, y)
	case BitwiseOr:
		ewBinaryRun(ewBinKernel[T, T]{ewBitOrVV[T], ewBitOrVS[T], func(d []T, s T, v []T) { ewBitOrVS(d, v, s) }}, out, x, y)
	case BitwiseXor:
		ewBinaryRun(ewBinKernel[T, T]{ewBitXorVV[T], ewBitXorVS[T], func(d []T, s T, v []T) { ewBitXorVS(d, v, s) }}, out, x, y)
	default:
		return false
	}
	return true
}
