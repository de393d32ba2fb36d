package ndarray

import (
	"fmt"
	"math"
	"strings"
)

// UnaryOp is an elementwise function of one array (a NumPy unary ufunc).
type UnaryOp uint8

// The unary ops, named after the NumPy ufuncs they reproduce.
const (
	Neg UnaryOp = iota + 1
	Abs
	Sign
	Sqrt
	Square
	Exp
	Log
	Log1p
	Sin
	Cos
	Tan
	Tanh
	Floor
	Ceil
	Round
	IsNaN
	IsFinite
	Not
	// The ufuncs of ufunc.go.
	ArcSin
	ArcCos
	ArcTan
	Sinh
	Cosh
	ArcSinh
	ArcCosh
	ArcTanh
	Exp2
	Expm1
	Log2
	Log10
	Cbrt
	Reciprocal
	Rint
	Trunc
	Fix
	Spacing
	SignBit
	Degrees
	Radians
	Deg2Rad
	Rad2Deg
	Fabs
	Positive
	IsInf
	IsNegInf
	IsPosInf
	NanToNum
	Invert
	// Conjugate is np.conjugate (alias conj).
	Conjugate
	// Parts of the two-result ufuncs frexp and modf (np.modf's integral
	// part is trunc). They are ops of their own so each result is a plain
	// one-result elementwise op; UnaryOpNames leaves them out.
	FrexpMantissa
	FrexpExponent
	ModfFrac
	// The complex-number functions np.real, np.imag and np.angle (AngleDeg
	// is angle(x, deg=True)); NumPy has them as functions, not ufuncs, so
	// UnaryOpNames leaves them out too.
	Real
	Imag
	Angle
	AngleDeg
	ewUnaryEnd // one past the last unary op
)

var ewUnaryNames = [...]string{
	Neg: "negative", Abs: "absolute", Sign: "sign", Sqrt: "sqrt", Square: "square",
	Exp: "exp", Log: "log", Log1p: "log1p", Sin: "sin", Cos: "cos", Tan: "tan",
	Tanh: "tanh", Floor: "floor", Ceil: "ceil", Round: "round", IsNaN: "isnan",
	IsFinite: "isfinite", Not: "logical_not",
	ArcSin: "arcsin", ArcCos: "arccos", ArcTan: "arctan", Sinh: "sinh", Cosh: "cosh",
	ArcSinh: "arcsinh", ArcCosh: "arccosh", ArcTanh: "arctanh", Exp2: "exp2", Expm1: "expm1",
	Log2: "log2", Log10: "log10", Cbrt: "cbrt", Reciprocal: "reciprocal", Rint: "rint",
	Trunc: "trunc", Fix: "fix", Spacing: "spacing", SignBit: "signbit", Degrees: "degrees",
	Radians: "radians", Deg2Rad: "deg2rad", Rad2Deg: "rad2deg", Fabs: "fabs", Positive: "positive",
	IsInf: "isinf", IsNegInf: "isneginf", IsPosInf: "isposinf", NanToNum: "nan_to_num", Invert: "invert",
	Conjugate:     "conjugate",
	FrexpMantissa: "frexp_mantissa", FrexpExponent: "frexp_exponent", ModfFrac: "modf_fractional",
	Real: "real", Imag: "imag", Angle: "angle", AngleDeg: "angle_deg",
}

// String is the NumPy ufunc name.
func (op UnaryOp) String() string {
	if op >= Neg && op < ewUnaryEnd {
		return ewUnaryNames[op]
	}
	return fmt.Sprintf("UnaryOp(%d)", uint8(op))
}

// ParseUnaryOp accepts the NumPy names (and the aliases abs, around,
// bitwise_not).
func ParseUnaryOp(name string) (UnaryOp, error) {
	if op, ok := LookupUnaryOp(name); ok {
		return op, nil
	}
	return 0, fmt.Errorf("ndarray: unknown unary op %q", name)
}

// LookupUnaryOp is ParseUnaryOp for a caller that tries other kinds of
// op after: false, and no error made, for a name that is not a unary op.
func LookupUnaryOp(name string) (UnaryOp, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "abs":
		return Abs, true
	case "around", "round_":
		return Round, true
	case "bitwise_not":
		return Invert, true
	case "conj":
		return Conjugate, true
	}
	for op := Neg; op < ewUnaryEnd; op++ {
		if ewUnaryNames[op] == n {
			return op, true
		}
	}
	return 0, false
}

// ewUnaryTypes gives the type the op computes in (the input is cast to it
// first) and the result type, following NumPy 1.24's ufunc loops (float16
// for bool and 8-bit integers: UfuncFloat).
func ewUnaryTypes(op UnaryOp, in DType) (ct, rt DType, err error) {
	if !in.Valid() {
		return 0, 0, fmt.Errorf("ndarray: %v: invalid input dtype %v", op, in)
	}
	if in.IsComplex() {
		return complexUnaryTypes(op, in)
	}
	switch op {
	case Real, Imag, Angle, AngleDeg, Conjugate:
		return realOnlyUnaryTypes(op, in)
	case Neg:
		if in == Bool {
			return 0, 0, &DTypeError{Msg: "ndarray: negative: not supported for bool (numpy raises); use logical_not"}
		}
		return in, in, nil
	case Sign:
		if in == Bool {
			return 0, 0, &DTypeError{Msg: "ndarray: sign: no loop for bool input (numpy raises)"}
		}
		return in, in, nil
	case Abs:
		return in, in, nil
	case Square:
		if in == Bool {
			return Int8, Int8, nil
		}
		return in, in, nil
	case Sqrt, Exp, Log, Log1p, Sin, Cos, Tan, Tanh, Floor, Ceil:
		f := UfuncFloat(in)
		return f, f, nil
	case Round:
		if in == Bool {
			return Float16, Float16, nil
		}
		return in, in, nil
	case IsNaN, IsFinite, Not:
		return in, Bool, nil
	}
	if op > Not && op < ewUnaryEnd {
		return ufuncUnaryTypes(op, in)
	}
	return 0, 0, fmt.Errorf("ndarray: unknown unary op %d", uint8(op))
}

// UnaryResultType is the dtype of Unary(op, a) for an array a of type in.
func UnaryResultType(op UnaryOp, in DType) (DType, error) {
	_, rt, err := ewUnaryTypes(op, in)
	return rt, err
}

// Unary applies op elementwise, returning a new contiguous array.
func Unary(op UnaryOp, a *Array) (*Array, error) {
	if a == nil {
		return nil, fmt.Errorf("ndarray: %v: nil array", op)
	}
	ct, rt, err := ewUnaryTypes(op, a.dtype)
	if err != nil {
		return nil, fmt.Errorf("%w (array of shape %v)", err, a.shape)
	}
	if ct == Float16 && op == AngleDeg {
		// np.angle(x, deg=True) is arctan2(0, x) *= 180/pi: two float16
		// results, each rounded, the factor a float16 too.
		r, err := Unary(Angle, a)
		if err != nil {
			return nil, err
		}
		return Binary(Mul, r, Scalar(Float16, 180/math.Pi))
	}
	if ct == Float16 {
		// NumPy's half loops: computed in float32, each result rounded once.
		if op == Spacing {
			// Its result depends on the half format itself.
			return halfUnaryBits(a, halfSpacing), nil
		}
		r, err := Unary(op, a.Astype(Float32))
		if err != nil {
			return nil, err
		}
		if op == NanToNum {
			// The infinities become float16's largest finite values, not
			// float32's (which would round back to infinity); every other
			// value is a float16 already.
			const maxHalf = 65504
			d := typed[float32](r)[r.offset : r.offset+r.Size()]
			for i, v := range d {
				d[i] = min(max(v, -maxHalf), maxHalf)
			}
		}
		return toHalf(r, rt), nil
	}
	x := a
	var out *Array
	if a.dtype != ct {
		// The cast is a fresh contiguous array of the output's shape: when
		// the result type matches, compute in place instead of allocating.
		x = a.Astype(ct)
		if rt == ct {
			out = x
		}
	}
	if out == nil {
		out = newArray(rt, a.shape)
	}
	if err := ewUnaryKernel(op, ct, out, x); err != nil {
		return nil, err
	}
	return out, nil
}

// ewUnaryKernel runs op over x, already of the computation type ct, into out.
func ewUnaryKernel(op UnaryOp, ct DType, out, x *Array) error {
	switch {
	case ct.IsComplex():
		return complexUnaryKernel(op, ct, out, x)
	case op == Real || op == Imag || op == Angle || op == AngleDeg || op == Conjugate:
		return realOnlyKernel(op, ct, out, x)
	}
	if op > Not {
		return ufuncUnaryKernel(op, ct, out, x)
	}
	switch ct {
	case Float64:
		if f, ok := vecUnary64(op); ok {
			ewUnaryRun(f, out, x)
			return nil
		}
		ewUnaryFloat[float64](op, out, x)
	case Float32:
		ewUnaryFloat[float32](op, out, x)
	case Int64:
		ewUnaryInt[int64](op, out, x)
	case Int32:
		ewUnaryInt[int32](op, out, x)
	case Int8:
		ewUnaryInt[int8](op, out, x)
	case Int16:
		ewUnaryInt[int16](op, out, x)
	case Uint8:
		ewUnaryInt[uint8](op, out, x)
	case Uint16:
		ewUnaryInt[uint16](op, out, x)
	case Uint32:
		ewUnaryInt[uint32](op, out, x)
	case Uint64:
		ewUnaryInt[uint64](op, out, x)
	case Bool:
		ewUnaryBool(op, out, x)
	}
	return nil
}

func ewUnaryFloat[T ewFloat](op UnaryOp, out, x *Array) {
	switch op {
	case Neg:
		ewUnaryRun(ewNegLoop[T], out, x)
	case Abs:
		var z T
		switch any(z).(type) {
		case float64:
			ewUnaryRun(ewAbsF64Loop, out, x)
		case float32:
			ewUnaryRun(ewAbsF32Loop, out, x)
		}
	case Sign:
		ewUnaryRun(ewSignFloatLoop[T], out, x)
	case Square:
		ewUnaryRun(ewSquareLoop[T], out, x)
	case Sqrt, Exp, Log, Log1p, Sin, Cos, Tan, Tanh, Floor, Ceil, Round:
		ewUnaryRun(ewFloatFuncLoop[T](op), out, x)
	default:
		ewUnaryPredicate[T](op, out, x)
	}
}

func ewUnaryInt[T ewInt](op UnaryOp, out, x *Array) {
	switch op {
	case Neg:
		ewUnaryRun(ewNegLoop[T], out, x)
	case Abs:
		ewUnaryRun(ewAbsIntLoop[T], out, x)
	case Sign:
		ewUnaryRun(ewSignIntLoop[T], out, x)
	case Square:
		ewUnaryRun(ewSquareLoop[T], out, x)
	case Round:
		ewUnaryRun(ewCopyLoop[T], out, x)
	default:
		ewUnaryPredicate[T](op, out, x)
	}
}

func ewUnaryBool(op UnaryOp, out, x *Array) {
	switch op {
	case Abs:
		ewUnaryRun(ewCopyLoop[uint8], out, x)
	default:
		ewUnaryPredicate[uint8](op, out, x)
	}
}

func ewUnaryPredicate[T ewElem](op UnaryOp, out, x *Array) {
	switch op {
	case IsNaN:
		ewUnaryRun(ewIsNaNLoop[T], out, x)
	case IsFinite:
		ewUnaryRun(ewIsFiniteLoop[T], out, x)
	case Not:
		ewUnaryRun(ewNotLoop[T], out, x)
	}
}

// BinaryOp is an elementwise function of two broadcast arrays (a NumPy
// binary ufunc).
type BinaryOp uint8

// The binary ops, named after the NumPy ufuncs they reproduce.
const (
	Add BinaryOp = iota + 1
	Sub
	Mul
	Div
	FloorDiv
	Mod
	Pow
	Maximum
	Minimum
	Less
	LessEqual
	Greater
	GreaterEqual
	Equal
	NotEqual
	And
	Or
	Xor
	// The ufuncs of ufunc.go.
	ArcTan2
	Hypot
	LogAddExp
	LogAddExp2
	CopySign
	NextAfter
	Ldexp
	Fmod
	Heaviside
	FloatPower
	Fmax
	Fmin
	Gcd
	Lcm
	BitwiseAnd
	BitwiseOr
	BitwiseXor
	LeftShift
	RightShift
	ewBinaryEnd // one past the last binary op
)

var ewBinaryNames = [...]string{
	Add: "add", Sub: "subtract", Mul: "multiply", Div: "true_divide",
	FloorDiv: "floor_divide", Mod: "remainder", Pow: "power", Maximum: "maximum",
	Minimum: "minimum", Less: "less", LessEqual: "less_equal", Greater: "greater",
	GreaterEqual: "greater_equal", Equal: "equal", NotEqual: "not_equal",
	And: "logical_and", Or: "logical_or", Xor: "logical_xor",
	ArcTan2: "arctan2", Hypot: "hypot", LogAddExp: "logaddexp", LogAddExp2: "logaddexp2",
	CopySign: "copysign", NextAfter: "nextafter", Ldexp: "ldexp", Fmod: "fmod", Heaviside: "heaviside",
	FloatPower: "float_power", Fmax: "fmax", Fmin: "fmin", Gcd: "gcd", Lcm: "lcm",
	BitwiseAnd: "bitwise_and", BitwiseOr: "bitwise_or", BitwiseXor: "bitwise_xor",
	LeftShift: "left_shift", RightShift: "right_shift",
}

// String is the NumPy ufunc name.
func (op BinaryOp) String() string {
	if op >= Add && op < ewBinaryEnd {
		return ewBinaryNames[op]
	}
	return fmt.Sprintf("BinaryOp(%d)", uint8(op))
}

// ParseBinaryOp accepts the NumPy names (and the aliases divide, mod).
func ParseBinaryOp(name string) (BinaryOp, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "divide":
		return Div, nil
	case "mod":
		return Mod, nil
	}
	for op := Add; op < ewBinaryEnd; op++ {
		if ewBinaryNames[op] == n {
			return op, nil
		}
	}
	return 0, fmt.Errorf("ndarray: unknown binary op %q", name)
}

// ewBinaryTypes gives the type both inputs are cast to and the result type,
// following NumPy 1.24 for arrays.
func ewBinaryTypes(op BinaryOp, a, b DType) (ct, rt DType, err error) {
	if !a.Valid() || !b.Valid() {
		return 0, 0, fmt.Errorf("ndarray: %v: invalid input dtypes %v and %v", op, a, b)
	}
	p := Promote(a, b)
	if p.IsComplex() {
		return complexBinaryTypes(op, p)
	}
	switch op {
	case Add, Mul, Maximum, Minimum:
		return p, p, nil
	case Sub:
		if p == Bool {
			return 0, 0, &DTypeError{Msg: "ndarray: subtract: not supported for bool and bool (numpy raises); use logical_xor"}
		}
		return p, p, nil
	case FloorDiv, Mod, Pow:
		if p == Bool {
			return Int8, Int8, nil
		}
		return p, p, nil
	case Div:
		f := FloatFor(p)
		return f, f, nil
	case Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual, And, Or, Xor:
		return p, Bool, nil
	}
	if op > Xor && op < ewBinaryEnd {
		return ufuncBinaryTypes(op, a, b)
	}
	return 0, 0, fmt.Errorf("ndarray: unknown binary op %d", uint8(op))
}

// BinaryResultType is the dtype of Binary(op, a, b) for arrays of types a, b.
func BinaryResultType(op BinaryOp, a, b DType) (DType, error) {
	_, rt, err := ewBinaryTypes(op, a, b)
	return rt, err
}

// Binary applies op elementwise with NumPy broadcasting. Both inputs are cast
// to the computation type first (as NumPy's ufunc machinery does), so mixed
// dtypes cost one conversion pass.
func Binary(op BinaryOp, a, b *Array) (*Array, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("ndarray: %v: nil array", op)
	}
	ct, rt, err := ewBinaryTypes(op, a.dtype, b.dtype)
	if err != nil {
		return nil, fmt.Errorf("%w (shapes %v and %v)", err, a.shape, b.shape)
	}
	shape, err := BroadcastShapes(a.shape, b.shape)
	if err != nil {
		return nil, fmt.Errorf("ndarray: %v: operands could not be broadcast together with shapes %v (%v) and %v (%v)",
			op, a.shape, a.dtype, b.shape, b.dtype)
	}
	if ct == Float16 {
		// NumPy's half loops: computed in float32, each result rounded
		// once. ldexp's exponent stays an integer.
		if op == NextAfter {
			// Its result depends on the half format itself.
			return halfBinaryBits(a, b, shape, halfNextAfter)
		}
		y := b
		if op != Ldexp {
			y = b.Astype(Float32)
		}
		r, err := Binary(op, a.Astype(Float32), y)
		if err != nil {
			return nil, err
		}
		return toHalf(r, rt), nil
	}
	// Cast before broadcasting so a broadcast operand is converted once, not
	// once per repetition. A cast of output shape doubles as the output.
	x, y := a, b
	var out *Array
	if x.dtype != ct {
		x = x.Astype(ct)
		if rt == ct && SameShape(x.shape, shape) {
			out = x
		}
	}
	if y.dtype != ct {
		y = y.Astype(ct)
		if out == nil && rt == ct && SameShape(y.shape, shape) {
			out = y
		}
	}
	if err := ewCheckPow(op, ct, a, b, y, shape); err != nil {
		return nil, err
	}
	if out == nil {
		out = newArray(rt, shape)
	}
	return out, ewBinaryKernel(op, ct, out, x, y)
}

// ewCheckPow refuses integer powers with negative exponents, as NumPy does.
func ewCheckPow(op BinaryOp, ct DType, a, b, y *Array, shape []int) error {
	if op == Pow && ct.IsInt() && Size(shape) > 0 && ewAnyNegative(y) {
		return fmt.Errorf("ndarray: power: integers to negative integer powers are not allowed (%v and %v arrays of shapes %v and %v)",
			a.dtype, b.dtype, a.shape, b.shape)
	}
	return nil
}

// ewBinaryKernel broadcasts x and y, already of the computation type ct,
// to out's shape and runs op into out.
func ewBinaryKernel(op BinaryOp, ct DType, out, x, y *Array) error {
	xb, err := x.BroadcastTo(out.shape)
	if err != nil {
		return fmt.Errorf("ndarray: %v: %w", op, err)
	}
	yb, err := y.BroadcastTo(out.shape)
	if err != nil {
		return fmt.Errorf("ndarray: %v: %w", op, err)
	}
	if ct.IsComplex() {
		return complexBinaryKernel(op, ct, out, xb, yb)
	}
	if op > Xor {
		return ufuncBinaryKernel(op, ct, out, xb, yb)
	}
	switch ct {
	case Float64:
		if k, ok := vecKernel64(op); ok {
			ewBinaryRun(k, out, xb, yb)
			break
		}
		if k, ok := vecCmp64(op); ok {
			ewBinaryRun(k, out, xb, yb)
			break
		}
		ewBinaryFloat[float64](op, out, xb, yb)
	case Float32:
		if k, ok := vecKernel32(op); ok {
			ewBinaryRun(k, out, xb, yb)
			break
		}
		ewBinaryFloat[float32](op, out, xb, yb)
	case Int64:
		ewBinaryInt[int64](op, out, xb, yb)
	case Int32:
		ewBinaryInt[int32](op, out, xb, yb)
	case Int8:
		ewBinaryInt[int8](op, out, xb, yb)
	case Int16:
		ewBinaryInt[int16](op, out, xb, yb)
	case Uint8:
		ewBinaryInt[uint8](op, out, xb, yb)
	case Uint16:
		ewBinaryInt[uint16](op, out, xb, yb)
	case Uint32:
		ewBinaryInt[uint32](op, out, xb, yb)
	case Uint64:
		ewBinaryInt[uint64](op, out, xb, yb)
	case Bool:
		ewBinaryBool(op, out, xb, yb)
	}
	return nil
}

// ewAnyNegative reports whether an integer array holds a negative element.
func ewAnyNegative(a *Array) bool {
	switch a.dtype {
	case Int64:
		return ewAnyNegativeTyped[int64](a)
	case Int32:
		return ewAnyNegativeTyped[int32](a)
	case Int8:
		return ewAnyNegativeTyped[int8](a)
	case Int16:
		return ewAnyNegativeTyped[int16](a)
	case Uint8:
		return ewAnyNegativeTyped[uint8](a)
	case Uint16:
		return ewAnyNegativeTyped[uint16](a)
	case Uint32:
		return ewAnyNegativeTyped[uint32](a)
	case Uint64:
		return ewAnyNegativeTyped[uint64](a)
	}
	return false
}

func ewAnyNegativeTyped[T ewInt](a *Array) bool {
	xs := typedAll[T](a)
	found := false
	ForEachRun([]*Array{a}, a.shape, func(offs []int, m int, st []int) {
		if found {
			return
		}
		o, s := a.offset+offs[0], st[0]
		for i := 0; i < m; i++ {
			if xs[o+i*s] < 0 {
				found = true
				return
			}
		}
	})
	return found
}

func ewBinaryArith[T ewNum](op BinaryOp, out, x, y *Array) bool {
	switch op {
	case Add:
		ewBinaryRun(ewBinKernel[T, T]{ewAddVV[T], ewAddVS[T], ewAddSV[T]}, out, x, y)
	case Sub:
		ewBinaryRun(ewBinKernel[T, T]{ewSubVV[T], ewSubVS[T], ewSubSV[T]}, out, x, y)
	case Mul:
		ewBinaryRun(ewBinKernel[T, T]{ewMulVV[T], ewMulVS[T], ewMulSV[T]}, out, x, y)
	default:
		return false
	}
	return true
}

func ewBinaryFloat[T ewFloat](op BinaryOp, out, x, y *Array) {
	if ewBinaryArith[T](op, out, x, y) {
		return
	}
	switch op {
	case Div:
		ewBinaryRun(ewBinKernel[T, T]{ewDivVV[T], ewDivVS[T], ewDivSV[T]}, out, x, y)
	case FloorDiv:
		ewBinaryRun(ewBinKernel[T, T]{ewFloorDivFloatVV[T], ewFloorDivFloatVS[T], ewFloorDivFloatSV[T]}, out, x, y)
	case Mod:
		ewBinaryRun(ewBinKernel[T, T]{ewModFloatVV[T], ewModFloatVS[T], ewModFloatSV[T]}, out, x, y)
	case Pow:
		ewBinaryRun(ewBinKernel[T, T]{ewPowFloatVV[T], ewPowFloatVS[T], ewPowFloatSV[T]}, out, x, y)
	default:
		ewBinaryCommon[T](op, out, x, y)
	}
}

func ewBinaryInt[T ewInt](op BinaryOp, out, x, y *Array) {
	if ewBinaryArith[T](op, out, x, y) {
		return
	}
	switch op {
	case FloorDiv:
		ewBinaryRun(ewBinKernel[T, T]{ewFloorDivIntVV[T], ewFloorDivIntVS[T], ewFloorDivIntSV[T]}, out, x, y)
	case Mod:
		ewBinaryRun(ewBinKernel[T, T]{ewModIntVV[T], ewModIntVS[T], ewModIntSV[T]}, out, x, y)
	case Pow:
		ewBinaryRun(ewBinKernel[T, T]{ewPowIntVV[T], ewPowIntVS[T], ewPowIntSV[T]}, out, x, y)
	default:
		ewBinaryCommon[T](op, out, x, y)
	}
}

func ewBinaryBool(op BinaryOp, out, x, y *Array) {
	switch op {
	case Add: // numpy: logical or
		ewBinaryRun(ewBinKernel[uint8, uint8]{ewOrVV, ewOrVS, ewOrSV}, out, x, y)
	case Mul: // numpy: logical and
		ewBinaryRun(ewBinKernel[uint8, uint8]{ewAndVV, ewAndVS, ewAndSV}, out, x, y)
	default:
		ewBinaryCommon[uint8](op, out, x, y)
	}
}

// ewBinaryCommon holds the ops whose loops are the same for every element
// type: maximum/minimum, comparisons and logical ops.
func ewBinaryCommon[T ewElem](op BinaryOp, out, x, y *Array) {
	type cmp = ewBinKernel[T, uint8]
	switch op {
	case Maximum:
		ewBinaryRun(ewBinKernel[T, T]{ewMaxVV[T], ewMaxVS[T], ewMaxSV[T]}, out, x, y)
	case Minimum:
		ewBinaryRun(ewBinKernel[T, T]{ewMinVV[T], ewMinVS[T], ewMinSV[T]}, out, x, y)
	case Less:
		ewBinaryRun(cmp{ewLtVV[T], ewLtVS[T], func(d []uint8, s T, v []T) { ewGtVS(d, v, s) }}, out, x, y)
	case LessEqual:
		ewBinaryRun(cmp{ewLeVV[T], ewLeVS[T], func(d []uint8, s T, v []T) { ewGeVS(d, v, s) }}, out, x, y)
	case Greater:
		ewBinaryRun(cmp{func(d []uint8, u, v []T) { ewLtVV(d, v, u) }, ewGtVS[T],
			func(d []uint8, s T, v []T) { ewLtVS(d, v, s) }}, out, x, y)
	case GreaterEqual:
		ewBinaryRun(cmp{func(d []uint8, u, v []T) { ewLeVV(d, v, u) }, ewGeVS[T],
			func(d []uint8, s T, v []T) { ewLeVS(d, v, s) }}, out, x, y)
	case Equal:
		ewBinaryRun(cmp{ewEqVV[T], ewEqVS[T], func(d []uint8, s T, v []T) { ewEqVS(d, v, s) }}, out, x, y)
	case NotEqual:
		ewBinaryRun(cmp{ewNeVV[T], ewNeVS[T], func(d []uint8, s T, v []T) { ewNeVS(d, v, s) }}, out, x, y)
	case And:
		ewBinaryRun(cmp{ewLAndVV[T], ewLAndVS[T], func(d []uint8, s T, v []T) { ewLAndVS(d, v, s) }}, out, x, y)
	case Or:
		ewBinaryRun(cmp{ewLOrVV[T], ewLOrVS[T], func(d []uint8, s T, v []T) { ewLOrVS(d, v, s) }}, out, x, y)
	case Xor:
		ewBinaryRun(cmp{ewLXorVV[T], ewLXorVS[T], func(d []uint8, s T, v []T) { ewLXorVS(d, v, s) }}, out, x, y)
	}
}

// Where is np.where(cond, x, y): x where cond is nonzero (NaN counts as
// true), else y, with three-way broadcasting; the result is Promote(x, y).
func Where(cond, x, y *Array) (*Array, error) {
	if cond == nil || x == nil || y == nil {
		return nil, fmt.Errorf("ndarray: where: nil array")
	}
	if !cond.dtype.Valid() || !x.dtype.Valid() || !y.dtype.Valid() {
		return nil, fmt.Errorf("ndarray: where: invalid dtypes %v, %v, %v", cond.dtype, x.dtype, y.dtype)
	}
	shape, err := BroadcastShapes(cond.shape, x.shape, y.shape)
	if err != nil {
		return nil, fmt.Errorf("ndarray: where: operands could not be broadcast together with shapes %v, %v and %v",
			cond.shape, x.shape, y.shape)
	}
	dt := Promote(x.dtype, y.dtype)
	if dt == Float16 {
		// A selection: float16 values move as their bits, after the
		// operands are converted to float16.
		x, y = ewCast(x, Float16), ewCast(y, Float16)
	}
	c := cond
	if c.dtype != Bool {
		c = c.Astype(Bool)
	}
	xc, yc := ewCast(x, dt), ewCast(y, dt)
	ops, err := ewBroadcastAll(shape, c, xc, yc)
	if err != nil {
		return nil, fmt.Errorf("ndarray: where: %w", err)
	}
	out := newArray(dt, shape)
	switch dt {
	case Float64:
		ewTernaryRun(ewWhereLoop[float64], out, ops[0], ops[1], ops[2])
	case Float32:
		ewTernaryRun(ewWhereLoop[float32], out, ops[0], ops[1], ops[2])
	case Int64:
		ewTernaryRun(ewWhereLoop[int64], out, ops[0], ops[1], ops[2])
	case Int32:
		ewTernaryRun(ewWhereLoop[int32], out, ops[0], ops[1], ops[2])
	case Int8:
		ewTernaryRun(ewWhereLoop[int8], out, ops[0], ops[1], ops[2])
	case Int16:
		ewTernaryRun(ewWhereLoop[int16], out, ops[0], ops[1], ops[2])
	case Uint8:
		ewTernaryRun(ewWhereLoop[uint8], out, ops[0], ops[1], ops[2])
	case Uint16:
		ewTernaryRun(ewWhereLoop[uint16], out, ops[0], ops[1], ops[2])
	case Uint32:
		ewTernaryRun(ewWhereLoop[uint32], out, ops[0], ops[1], ops[2])
	case Uint64:
		ewTernaryRun(ewWhereLoop[uint64], out, ops[0], ops[1], ops[2])
	case Bool:
		ewTernaryRun(ewWhereLoop[uint8], out, ops[0], ops[1], ops[2])
	case Float16:
		ewTernaryRun(ewWhereLoop[uint16], out, ops[0], ops[1], ops[2])
	case Complex64:
		ewTernaryRun(ewWhereLoop[complex64], out, ops[0], ops[1], ops[2])
	case Complex128:
		ewTernaryRun(ewWhereLoop[complex128], out, ops[0], ops[1], ops[2])
	}
	return out, nil
}

// Clip is np.clip(a, lo, hi) with array bounds (0-d for scalars), computed as
// NumPy does: minimum(maximum(a, lo), hi), so NaN anywhere gives NaN and
// lo > hi gives hi. The result type is the promotion of all three.
func Clip(a, lo, hi *Array) (*Array, error) {
	if a == nil || lo == nil || hi == nil {
		return nil, fmt.Errorf("ndarray: clip: nil array")
	}
	if !a.dtype.Valid() || !lo.dtype.Valid() || !hi.dtype.Valid() {
		return nil, fmt.Errorf("ndarray: clip: invalid dtypes %v, %v, %v", a.dtype, lo.dtype, hi.dtype)
	}
	shape, err := BroadcastShapes(a.shape, lo.shape, hi.shape)
	if err != nil {
		return nil, fmt.Errorf("ndarray: clip: operands could not be broadcast together with shapes %v, %v and %v",
			a.shape, lo.shape, hi.shape)
	}
	dt := Promote(Promote(a.dtype, lo.dtype), hi.dtype)
	if Size(shape) == 0 {
		// Nothing to clip; an empty bound has no value to read either.
		return newArray(dt, shape), nil
	}
	if dt == Float16 {
		r, err := Clip(a.Astype(Float32), lo.Astype(Float32), hi.Astype(Float32))
		if err != nil {
			return nil, err
		}
		return toHalf(r, Float16), nil
	}
	if dt.IsComplex() {
		// NumPy's clip is minimum(maximum(a, lo), hi), with complex
		// numbers ordered lexicographically.
		m, err := Binary(Maximum, a, lo)
		if err != nil {
			return nil, fmt.Errorf("ndarray: clip: %w", err)
		}
		r, err := Binary(Minimum, m, hi)
		if err != nil {
			return nil, fmt.Errorf("ndarray: clip: %w", err)
		}
		return r, nil
	}
	ops, err := ewBroadcastAll(shape, ewCast(a, dt), ewCast(lo, dt), ewCast(hi, dt))
	if err != nil {
		return nil, fmt.Errorf("ndarray: clip: %w", err)
	}
	out := newArray(dt, shape)
	switch dt {
	case Float64:
		ewClipTyped[float64](out, ops[0], ops[1], ops[2])
	case Float32:
		ewClipTyped[float32](out, ops[0], ops[1], ops[2])
	case Int64:
		ewClipTyped[int64](out, ops[0], ops[1], ops[2])
	case Int32:
		ewClipTyped[int32](out, ops[0], ops[1], ops[2])
	case Int8:
		ewClipTyped[int8](out, ops[0], ops[1], ops[2])
	case Int16:
		ewClipTyped[int16](out, ops[0], ops[1], ops[2])
	case Uint8:
		ewClipTyped[uint8](out, ops[0], ops[1], ops[2])
	case Uint16:
		ewClipTyped[uint16](out, ops[0], ops[1], ops[2])
	case Uint32:
		ewClipTyped[uint32](out, ops[0], ops[1], ops[2])
	case Uint64:
		ewClipTyped[uint64](out, ops[0], ops[1], ops[2])
	case Bool:
		ewClipTyped[uint8](out, ops[0], ops[1], ops[2])
	}
	return out, nil
}

func ewClipTyped[T ewElem](out, x, lo, hi *Array) {
	if ewIsConst(lo) && ewIsConst(hi) {
		l, h := typedAll[T](lo)[lo.offset], typedAll[T](hi)[hi.offset]
		ewUnaryRun(func(d, v []T) { ewClipScalarLoop(d, v, l, h) }, out, x)
		return
	}
	ewTernaryRun(ewClipLoop[T], out, x, lo, hi)
}

// ewCast returns a itself when it already has type dt, else a converted copy.
func ewCast(a *Array, dt DType) *Array {
	if a.dtype == dt {
		return a
	}
	return a.Astype(dt)
}

func ewBroadcastAll(shape []int, arrs ...*Array) ([]*Array, error) {
	out := make([]*Array, len(arrs))
	for i, a := range arrs {
		b, err := a.BroadcastTo(shape)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// UnaryOpNames are the NumPy names of the unary ops, in order: the ufuncs
// and the one-array functions (fix, isneginf, isposinf, nan_to_num), but not
// the parts of frexp and modf, which NumPy computes as one function.
func UnaryOpNames() []string { return append([]string(nil), ewUnaryNames[Neg:FrexpMantissa]...) }

// BinaryOpNames are the NumPy names of the binary ops, in order.
func BinaryOpNames() []string { return append([]string(nil), ewBinaryNames[Add:ewBinaryEnd]...) }
