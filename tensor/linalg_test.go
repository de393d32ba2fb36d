package tensor

import (
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

func laZeros(dt ndarray.DType, shape ...int) *Tensor {
	return Zeros(shape, WithDType(dt), Chunks(2))
}

func laCheck(t *testing.T, what string, r *Tensor, shape []int, dt ndarray.DType) {
	t.Helper()
	if r.Err() != nil {
		t.Fatalf("%s: %v", what, r.Err())
	}
	if !slices.Equal(r.Shape(), shape) || r.DType() != dt {
		t.Errorf("%s: %v%v, want %v%v", what, r.DType(), r.Shape(), dt, shape)
	}
}

func laCheckErr(t *testing.T, what string, r *Tensor, msgs ...string) {
	t.Helper()
	if r.Err() == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, m := range msgs {
		if !strings.Contains(r.Err().Error(), m) {
			t.Errorf("%s: error %q does not mention %q", what, r.Err(), m)
		}
	}
}

func TestMatMulMeta(t *testing.T) {
	f64, f32, i32, b1 := ndarray.Float64, ndarray.Float32, ndarray.Int32, ndarray.Bool
	laCheck(t, "2-D", MatMul(laZeros(f64, 2, 3), laZeros(f64, 3, 4)), []int{2, 4}, f64)
	laCheck(t, "method", laZeros(f32, 2, 3).MatMul(laZeros(f32, 3, 4)), []int{2, 4}, f32)
	laCheck(t, "int32", MatMul(laZeros(i32, 2, 3), laZeros(i32, 3)), []int{2}, i32)
	laCheck(t, "f32 int32", MatMul(laZeros(f32, 3), laZeros(i32, 3, 5)), []int{5}, f64)
	laCheck(t, "bool vec", MatMul(laZeros(b1, 3), laZeros(b1, 3)), nil, b1)
	laCheck(t, "batch", MatMul(laZeros(f64, 4, 1, 2, 3), laZeros(f64, 5, 3, 2)), []int{4, 5, 2, 2}, f64)
	laCheckErr(t, "mismatch", MatMul(laZeros(f64, 2, 3), laZeros(f64, 2, 3)), "[2 3]", "contracted dimension")
	laCheckErr(t, "0-d", MatMul(Scalar(2.0), laZeros(f64, 3)), "0-d")
	laCheckErr(t, "nil", MatMul(nil, laZeros(f64, 3)), "nil")
}

func TestDotMeta(t *testing.T) {
	f64, i32 := ndarray.Float64, ndarray.Int32
	laCheck(t, "scalar", Dot(FromSlice([]int32{2}, nil), laZeros(i32, 2, 3)), []int{2, 3}, i32)
	laCheck(t, "vec.vec", Dot(laZeros(f64, 4), laZeros(f64, 4)), nil, f64)
	laCheck(t, "mat.vec", Dot(laZeros(f64, 2, 4), laZeros(f64, 4)), []int{2}, f64)
	laCheck(t, "vec.mat", Dot(laZeros(f64, 4), laZeros(f64, 4, 3)), []int{3}, f64)
	laCheck(t, "mat.mat", laZeros(f64, 2, 4).Dot(laZeros(f64, 4, 3)), []int{2, 3}, f64)
	laCheck(t, "N-D", Dot(laZeros(f64, 2, 2, 3), laZeros(f64, 4, 3, 5)), []int{2, 2, 4, 5}, f64)
	laCheck(t, "N-D.vec", Dot(laZeros(f64, 2, 2, 3), laZeros(f64, 3)), []int{2, 2}, f64)
	laCheck(t, "vec.N-D", Dot(laZeros(f64, 3), laZeros(f64, 2, 3, 5)), []int{2, 5}, f64)
	laCheckErr(t, "mismatch", Dot(laZeros(f64, 2, 2, 3), laZeros(f64, 4, 2, 5)), "shape mismatch", "[2 2 3]", "[4 2 5]")
}

func TestTensorDotMeta(t *testing.T) {
	f64, i32 := ndarray.Float64, ndarray.Int32
	a, b := laZeros(f64, 2, 3, 4), laZeros(i32, 4, 3, 5)
	laCheck(t, "negative axes", TensorDot(a, b, []int{-1, -2}, []int{0, 1}), []int{2, 5}, f64)
	laCheck(t, "no axes", TensorDot(a, b, nil, nil), []int{2, 3, 4, 4, 3, 5}, f64)
	laCheck(t, "N=1", TensorDotN(laZeros(f64, 2, 3), laZeros(f64, 3, 5), 1), []int{2, 5}, f64)
	laCheck(t, "N=2", TensorDotN(laZeros(f64, 2, 3, 4), laZeros(f64, 3, 4, 5), 2), []int{2, 5}, f64)
	laCheck(t, "N=0", TensorDotN(laZeros(f64, 2), laZeros(f64, 3), 0), []int{2, 3}, f64)
	laCheckErr(t, "shape mismatch", TensorDot(a, b, []int{0}, []int{0}),
		"shape mismatch", "[2 3 4]", "[4 3 5]", "axis 0 of a", "axis 0 of b")
	laCheckErr(t, "axis range", TensorDot(a, b, []int{3}, []int{0}), "[2 3 4]", "[4 3 5]", "axis 3 is out of bounds")
	laCheckErr(t, "lengths", TensorDot(a, b, []int{0, 1}, []int{0}), "2 axes [0 1] of a but 1 axes [0] of b")
	laCheckErr(t, "repeated", TensorDot(laZeros(f64, 3, 3), laZeros(f64, 3, 3), []int{0, -2}, []int{0, 1}), "repeated axis 0")
	laCheckErr(t, "N too big", TensorDotN(laZeros(f64, 2), laZeros(f64, 2, 2), 2), "cannot sum over 2 axes")
	laCheckErr(t, "N<0", TensorDotN(laZeros(f64, 2), laZeros(f64, 2, 2), -1), "cannot sum over -1 axes")
	bad := FromSlice([]string{"x"}, []int{1})
	laCheckErr(t, "sticky", TensorDot(bad, a, nil, nil), "unsupported data type")
	laCheckErr(t, "sticky outer", Outer(a, bad), "unsupported data type")
}

func TestOuterMeta(t *testing.T) {
	laCheck(t, "outer", Outer(laZeros(ndarray.Int32, 2, 3), laZeros(ndarray.Int64, 4)), []int{6, 4}, ndarray.Int64)
	laCheck(t, "outer bool", Outer(laZeros(ndarray.Bool, 2), laZeros(ndarray.Bool, 2, 2)), []int{2, 4}, ndarray.Bool)
	laCheck(t, "outer scalar", Outer(Scalar(2.0), laZeros(ndarray.Float32, 3)), []int{1, 3}, ndarray.Float64)
}

func TestCumulativeMeta(t *testing.T) {
	laCheck(t, "cumsum int32", laZeros(ndarray.Int32, 2, 3).CumSum(-1), []int{2, 3}, ndarray.Int64)
	laCheck(t, "cumprod bool", laZeros(ndarray.Bool, 2, 3).CumProd(0), []int{2, 3}, ndarray.Int64)
	laCheck(t, "cumsum f32", laZeros(ndarray.Float32, 4).CumSum(0), []int{4}, ndarray.Float32)
	laCheck(t, "cumsum 0-d", Scalar(3.0).CumSum(-1), []int{1}, ndarray.Float64)
	if op := laZeros(ndarray.Float64, 2, 3, 4).CumSum(-2).Op(); op.Type() != "cumsum" {
		t.Errorf("op %s", op.Type())
	}
	laCheckErr(t, "bad axis", laZeros(ndarray.Float64, 2, 3).CumSum(2), "cumsum", "[2 3]", "axis 2 is out of bounds")
	laCheckErr(t, "bad axis 0-d", Scalar(1.0).CumProd(1), "cumprod", "out of bounds")
	var nilT *Tensor
	laCheckErr(t, "nil", nilT.CumSum(0), "nil")
}

// TestMatMulRecognisesGram: x.T @ x, x @ x.T and a centred x.T @ x become
// Gram ops (the centring folded in as its row); other products stay
// products.
func TestMatMulRecognisesGram(t *testing.T) {
	x := laZeros(ndarray.Float64, 9, 4)
	xc := x.Sub(x.Mean(Axis(0)))
	xk := x.Sub(x.Mean(Axis(0), KeepDims()))
	y := laZeros(ndarray.Float64, 9, 4)
	xi := laZeros(ndarray.Int64, 9, 4)
	x32 := laZeros(ndarray.Float32, 9, 4)
	x32c := x32.Sub(x.Mean(Axis(0))) // float64: the row is not folded in
	for _, c := range []struct {
		name   string
		r      *Tensor
		op     string
		inputs int
		shape  []int
	}{
		{"x.T @ x", x.T().MatMul(x), "gram", 1, []int{4, 4}},
		{"x @ x.T", x.MatMul(x.T()), "gram", 1, []int{9, 9}},
		{"centred", xc.T().MatMul(xc), "gram", 2, []int{4, 4}},
		{"centred keepdims", xk.T().MatMul(xk), "gram", 2, []int{4, 4}},
		{"float32 minus a float64 row", x32c.T().MatMul(x32c), "gram", 1, []int{4, 4}},
		{"two tensors", x.T().MatMul(y), "matmul", 2, []int{4, 4}},
		{"ints", xi.T().MatMul(xi), "matmul", 2, []int{4, 4}},
		{"x @ x", laZeros(ndarray.Float64, 4, 4).MatMul(laZeros(ndarray.Float64, 4, 4)), "matmul", 2, []int{4, 4}},
	} {
		laCheck(t, c.name, c.r, c.shape, c.r.DType())
		if c.r.op.Type() != c.op || len(c.r.inputs) != c.inputs {
			t.Errorf("%s: %s of %d inputs, want %s of %d", c.name, c.r.op.Type(), len(c.r.inputs), c.op, c.inputs)
		}
	}
}

// TestMaskedReductionsRunOverWhere: reducing a boolean mask's selection
// over its axis needs no selection: x[m].sum() is where(m, x, 0).sum().
func TestMaskedReductionsRunOverWhere(t *testing.T) {
	x := laZeros(ndarray.Float64, 6, 4)
	m := x.Greater(0.5)
	sel := x.Index(Mask(m))
	for name, r := range map[string]*Tensor{"sum": sel.Sum(), "prod": sel.Prod(), "any": sel.Any(), "count_nonzero": sel.CountNonzero()} {
		_, red := r.op.(ops.Reduction)
		w, ok := r.inputs[0].op.(ops.Elementwise)
		if r.Err() != nil || !red || !ok || w.Kind != "where" {
			t.Errorf("%s: %v of %v (%v), want a reduction of where", name, r.op.Type(), r.inputs[0].op.Type(), r.Err())
		}
	}
	if k := sel.Sum(KeepDims()); k.inputs[0] != sel {
		t.Errorf("keepdims: reduces %s, want the selection", k.inputs[0].op.Type())
	}
	if v := sel.Var(); v.inputs[0] != sel {
		t.Errorf("var: reduces %s, want the selection", v.inputs[0].op.Type())
	}
}

// TestCentredMomentsReadXOnce: (x - x.mean(axes)).var(axes) and .std are
// built as x's own moments, which read x once; other subtractions are
// left as they are.
func TestCentredMomentsReadXOnce(t *testing.T) {
	x := laZeros(ndarray.Float64, 6, 4)
	sq := laZeros(ndarray.Float64, 5, 5)
	x3 := laZeros(ndarray.Float64, 3, 4, 5)
	for name, r := range map[string]*Tensor{
		"std axis 0":           x.Sub(x.Mean(Axis(0))).Std(Axis(0)),
		"var all ddof 1":       x.Sub(x.Mean()).Var(DDof(1)),
		"std axis -1 keepdims": x3.Sub(x3.Mean(Axis(-1), KeepDims())).Std(Axis(-1), KeepDims()),
		"var axes (0, 1)":      x3.Sub(x3.Mean(Axis(0, 1))).Var(Axis(0, 1)),
	} {
		if r.Err() != nil || len(r.inputs) != 1 || r.inputs[0] != x && r.inputs[0] != x3 {
			t.Errorf("%s: %s of %s (%v), want x's own moments", name, r.op.Type(), r.inputs[0].op.Type(), r.Err())
		}
	}
	for name, r := range map[string]*Tensor{
		"row means across columns": sq.Sub(sq.Mean(Axis(1))).Var(Axis(1)),
		"another tensor's mean":    x.Sub(x.Mul(2).Mean(Axis(0))).Var(Axis(0)),
		"mean over other axes":     x3.Sub(x3.Mean(Axis(0))).Var(Axis(0, 1)),
		"int64":                    laZeros(ndarray.Int64, 6, 4).Sub(laZeros(ndarray.Int64, 6, 4).Mean(Axis(0))).Var(Axis(0)),
	} {
		if sub, ok := r.inputs[0].op.(ops.Elementwise); r.Err() != nil || !ok || sub.Name != "subtract" {
			t.Errorf("%s: reduces %s (%v), want the subtraction", name, r.inputs[0].op.Type(), r.Err())
		}
	}
}

// TestGramOfScaledColumns: a Gram product of standardised columns is the
// centred Gram product scaled afterwards, not a product of a scaled copy.
func TestGramOfScaledColumns(t *testing.T) {
	x := laZeros(ndarray.Float64, 8, 3)
	d := laZeros(ndarray.Float64, 3).Add(2)
	z := x.Sub(x.Mean(Axis(0))).Div(x.Std(Axis(0), DDof(1)))
	m, q := d.Mul(x), x.Div(d)
	for name, c := range map[string]struct {
		r       *Tensor
		outerOp string
		inputs  int
	}{
		"standardised":       {z.T().MatMul(z), "true_divide", 2},
		"scaled by a row":    {m.T().MatMul(m), "multiply", 1},
		"divided, uncentred": {q.T().MatMul(q), "true_divide", 1},
	} {
		ew, ok := c.r.op.(ops.Elementwise)
		if c.r.Err() != nil || !ok || ew.Name != c.outerOp {
			t.Errorf("%s: %s (%v), want the Gram product %s by the outer product of the row", name, c.r.op.Type(), c.r.Err(), c.outerOp)
			continue
		}
		g := c.r.inputs[0]
		if _, ok := g.op.(ops.Gram); !ok || len(g.inputs) != c.inputs {
			t.Errorf("%s: scales %s of %d inputs, want a Gram product of %d", name, g.op.Type(), len(g.inputs), c.inputs)
		}
	}
}
