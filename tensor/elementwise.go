package tensor

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Operands of binary functions are *Tensor, Go numbers or bools; numbers and
// bools act as NumPy scalars.

func binary(name string, x, y any) *Tensor {
	ts := operands(x, y)
	if floatBinary[name] {
		for i, o := range []any{x, y} {
			s, other := asTensor(o), ts[1-i]
			if s.err == nil && s.weak && s.meta.DType == ndarray.Int64 && other.err == nil && !other.weak &&
				other.NDim() > 0 && other.DType().IsInt() {
				ts[i] = scalarTensor(ndarray.MinScalarInt(s.scalarInt), s.scalar, 0, s.scalarInt)
			}
		}
	}
	return elementwise(ops.Elementwise{Kind: "binary", Name: name}, ts)
}

// floatBinary are the binary float ufuncs whose loop NumPy 1.24 picks as
// the first one both operands cast to safely, a Python int by its
// smallest type: a uint8 array with -2 computes in float16, where the
// promotion of the two (int16) would say float32.
var floatBinary = map[string]bool{"arctan2": true, "hypot": true, "logaddexp": true, "logaddexp2": true,
	"copysign": true, "nextafter": true, "heaviside": true}

// elementwise makes the op, folding scalar operands into it as constants so
// they are not chunk ops (and not inputs every chunk op must wait for).
func elementwise(op ops.Elementwise, ts []*Tensor) *Tensor {
	var inputs []*Tensor
	for i, t := range ts {
		if t.err == nil && t.isScalarLiteral() {
			op.Consts = append(op.Consts, ops.Const{Pos: i, Value: t.scalar, Imag: t.scalarIm, Int: t.scalarInt, DType: t.meta.DType})
			continue
		}
		inputs = append(inputs, t)
	}
	if len(inputs) == 0 {
		// All operands are scalars: keep one as an input so the op has a chunk grid.
		op.Consts = op.Consts[1:]
		inputs = ts[:1]
	}
	return New(op, inputs...)
}

func unary(name string, x any) *Tensor {
	return New(ops.Elementwise{Kind: "unary", Name: name}, asTensor(x))
}

// Add is x + y.
func Add(x, y any) *Tensor { return binary("add", x, y) }

// Sub is x - y.
func Sub(x, y any) *Tensor { return binary("subtract", x, y) }

// Mul is x * y.
func Mul(x, y any) *Tensor { return binary("multiply", x, y) }

// Div is true division x / y (float result).
func Div(x, y any) *Tensor { return binary("true_divide", x, y) }

// FloorDiv is x // y.
func FloorDiv(x, y any) *Tensor { return binary("floor_divide", x, y) }

// Mod is x % y with the sign of y (np.remainder).
func Mod(x, y any) *Tensor { return binary("remainder", x, y) }

// Pow is x ** y.
func Pow(x, y any) *Tensor { return binary("power", x, y) }

// Maximum is the elementwise maximum (NaN propagates).
func Maximum(x, y any) *Tensor { return binary("maximum", x, y) }

// Minimum is the elementwise minimum (NaN propagates).
func Minimum(x, y any) *Tensor { return binary("minimum", x, y) }

// Less is x < y.
func Less(x, y any) *Tensor { return binary("less", x, y) }

// LessEqual is x <= y.
func LessEqual(x, y any) *Tensor { return binary("less_equal", x, y) }

// Greater is x > y.
func Greater(x, y any) *Tensor { return binary("greater", x, y) }

// GreaterEqual is x >= y.
func GreaterEqual(x, y any) *Tensor { return binary("greater_equal", x, y) }

// Equal is x == y.
func Equal(x, y any) *Tensor { return binary("equal", x, y) }

// NotEqual is x != y.
func NotEqual(x, y any) *Tensor { return binary("not_equal", x, y) }

// And is logical and.
func And(x, y any) *Tensor { return binary("logical_and", x, y) }

// Or is logical or.
func Or(x, y any) *Tensor { return binary("logical_or", x, y) }

// Xor is logical xor.
func Xor(x, y any) *Tensor { return binary("logical_xor", x, y) }

// Where picks x where cond is true, else y.
func Where(cond, x, y any) *Tensor {
	ts := append([]*Tensor{asTensor(cond)}, operands(x, y)...)
	return elementwise(ops.Elementwise{Kind: "where"}, ts)
}

// Clip limits x to [lo, hi] (np.clip).
func Clip(x, lo, hi any) *Tensor {
	return elementwise(ops.Elementwise{Kind: "clip"}, operands(x, lo, hi))
}

// Methods, for chaining: a.Add(b).Mul(2).Sum().

// Add is t + y.
func (t *Tensor) Add(y any) *Tensor { return Add(t, y) }

// Sub is t - y.
func (t *Tensor) Sub(y any) *Tensor { return Sub(t, y) }

// Mul is t * y.
func (t *Tensor) Mul(y any) *Tensor { return Mul(t, y) }

// Div is t / y.
func (t *Tensor) Div(y any) *Tensor { return Div(t, y) }

// FloorDiv is t // y.
func (t *Tensor) FloorDiv(y any) *Tensor { return FloorDiv(t, y) }

// Mod is t % y.
func (t *Tensor) Mod(y any) *Tensor { return Mod(t, y) }

// Pow is t ** y.
func (t *Tensor) Pow(y any) *Tensor { return Pow(t, y) }

// Maximum is the elementwise maximum of t and y.
func (t *Tensor) Maximum(y any) *Tensor { return Maximum(t, y) }

// Minimum is the elementwise minimum of t and y.
func (t *Tensor) Minimum(y any) *Tensor { return Minimum(t, y) }

// Less is t < y.
func (t *Tensor) Less(y any) *Tensor { return Less(t, y) }

// LessEqual is t <= y.
func (t *Tensor) LessEqual(y any) *Tensor { return LessEqual(t, y) }

// Greater is t > y.
func (t *Tensor) Greater(y any) *Tensor { return Greater(t, y) }

// GreaterEqual is t >= y.
func (t *Tensor) GreaterEqual(y any) *Tensor { return GreaterEqual(t, y) }

// Equal is t == y.
func (t *Tensor) Equal(y any) *Tensor { return Equal(t, y) }

// NotEqual is t != y.
func (t *Tensor) NotEqual(y any) *Tensor { return NotEqual(t, y) }

// And is logical and.
func (t *Tensor) And(y any) *Tensor { return And(t, y) }

// Or is logical or.
func (t *Tensor) Or(y any) *Tensor { return Or(t, y) }

// Xor is logical xor.
func (t *Tensor) Xor(y any) *Tensor { return Xor(t, y) }

// Clip limits t to [lo, hi].
func (t *Tensor) Clip(lo, hi any) *Tensor { return Clip(t, lo, hi) }

// Neg is -t.
func (t *Tensor) Neg() *Tensor { return unary("negative", t) }

// Abs is |t|.
func (t *Tensor) Abs() *Tensor { return unary("absolute", t) }

// Sign is -1, 0 or 1 by the sign of t.
func (t *Tensor) Sign() *Tensor { return unary("sign", t) }

// Sqrt is the square root.
func (t *Tensor) Sqrt() *Tensor { return unary("sqrt", t) }

// Square is t * t.
func (t *Tensor) Square() *Tensor { return unary("square", t) }

// Exp is e**t.
func (t *Tensor) Exp() *Tensor { return unary("exp", t) }

// Log is the natural logarithm.
func (t *Tensor) Log() *Tensor { return unary("log", t) }

// Log1p is log(1 + t), accurate for small t.
func (t *Tensor) Log1p() *Tensor { return unary("log1p", t) }

// Sin is the sine.
func (t *Tensor) Sin() *Tensor { return unary("sin", t) }

// Cos is the cosine.
func (t *Tensor) Cos() *Tensor { return unary("cos", t) }

// Tan is the tangent.
func (t *Tensor) Tan() *Tensor { return unary("tan", t) }

// Tanh is the hyperbolic tangent.
func (t *Tensor) Tanh() *Tensor { return unary("tanh", t) }

// Floor rounds down.
func (t *Tensor) Floor() *Tensor { return unary("floor", t) }

// Ceil rounds up.
func (t *Tensor) Ceil() *Tensor { return unary("ceil", t) }

// Round rounds half to even (np.round).
func (t *Tensor) Round() *Tensor { return unary("round", t) }

// IsNaN is true where t is NaN.
func (t *Tensor) IsNaN() *Tensor { return unary("isnan", t) }

// IsFinite is true where t is neither infinite nor NaN.
func (t *Tensor) IsFinite() *Tensor { return unary("isfinite", t) }

// Not is logical not.
func (t *Tensor) Not() *Tensor { return unary("logical_not", t) }

// Astype converts to another element type.
func (t *Tensor) Astype(dt ndarray.DType) *Tensor {
	if t.err == nil && t.meta.DType == dt {
		return t
	}
	return New(ops.Elementwise{Kind: "astype", To: dt}, t)
}

// Ufunc applies the NumPy ufunc of that name (a unary or binary op of
// ndarray, by name or alias) to its operands: tensors, Go numbers or bools.
func Ufunc(name string, args ...any) *Tensor {
	if op, ok := ndarray.LookupUnaryOp(name); ok {
		if len(args) != 1 {
			return errorf("%s takes 1 operand, got %d", op, len(args))
		}
		return unary(op.String(), args[0])
	}
	op, err := ndarray.ParseBinaryOp(name)
	if err != nil {
		return errorf("no ufunc %q", name)
	}
	if len(args) != 2 {
		return errorf("%s takes 2 operands, got %d", op, len(args))
	}
	if op == ndarray.Ldexp {
		return Ldexp(args[0], args[1]) // an integer exponent stays one
	}
	return binary(op.String(), args[0], args[1])
}
