package tensor

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// ReduceOption configures a reduction.
type ReduceOption func(*reduceConfig)

type reduceConfig struct {
	axes     []int
	hasAxes  bool
	keepdims bool
	ddof     int
	fanIn    int
}

// Axis reduces over the given axes (negative counts from the end) instead of all.
func Axis(axes ...int) ReduceOption {
	return func(c *reduceConfig) { c.axes, c.hasAxes = append([]int(nil), axes...), true }
}

// KeepDims keeps reduced axes with length 1.
func KeepDims() ReduceOption { return func(c *reduceConfig) { c.keepdims = true } }

// DDof sets the delta degrees of freedom of Var and Std.
func DDof(n int) ReduceOption { return func(c *reduceConfig) { c.ddof = n } }

// FanIn sets how many partial results one combine step merges (default 4).
func FanIn(n int) ReduceOption { return func(c *reduceConfig) { c.fanIn = n } }

func (t *Tensor) reduce(fn string, opts []ReduceOption) *Tensor {
	if t.err != nil {
		return t
	}
	var c reduceConfig
	for _, o := range opts {
		o(&c)
	}
	op := ops.Reduction{Func: fn, KeepDims: c.keepdims, DDof: c.ddof, FanIn: c.fanIn}
	if c.hasAxes {
		axes, err := normAxes(c.axes, t.NDim())
		if err != nil {
			return errorf("%s: %w", fn, err)
		}
		if len(axes) == 0 {
			return t.reduceNothing(fn, c.ddof)
		}
		op.Axes = axes
	}
	if isArgFunc(fn) && len(op.Axes) > 1 {
		return errorf("%s: takes one axis, got %v", fn, c.axes)
	}
	if !isArgFunc(fn) && op.Axes == nil {
		op.Axes = make([]int, t.NDim())
		for i := range op.Axes {
			op.Axes[i] = i
		}
	}
	if r := t.maskedReduce(op); r != nil {
		return r
	}
	if r := t.centredMoments(op); r != nil {
		return r
	}
	if t.meta.DType.IsComplex() && (fn == "var" || fn == "std") && t.meta.Unknown == 0 {
		return t.complexVar(op)
	}
	if fn == "mean" {
		return t.mean(op)
	}
	return New(op, t)
}

// centredMoments builds (x - x.mean(axes)).var(axes) and .std(axes) as
// x.var(axes) and x.std(axes): a variance does not change when a value
// constant along its axes is subtracted, and computed from x it reads x
// once instead of twice (its mean, then the deviations), which is what
// costs on data read from a file or regenerated. The moments are those
// of any variance here: two passes per chunk, merged by Chan's formulas,
// so the result equals NumPy's two-pass one up to rounding. Only the
// mean of the same float x over the same axes is recognised: its lanes
// are NaN or infinite exactly when x's lanes hold a NaN or an infinity,
// where both forms give NaN (they part only where summing finite values
// overflows: NumPy's mean is then infinite and its variance NaN).
func (t *Tensor) centredMoments(op ops.Reduction) *Tensor {
	if op.Func != "var" && op.Func != "std" {
		return nil
	}
	sub, ok := t.op.(ops.Elementwise)
	if !ok || sub.Kind != "binary" || sub.Name != "subtract" || len(sub.Consts) != 0 || len(t.inputs) != 2 {
		return nil
	}
	x, c := t.inputs[0], t.inputs[1]
	if dt := x.meta.DType; (dt != ndarray.Float64 && dt != ndarray.Float32) || x.meta.Unknown != 0 ||
		t.meta.DType != dt || !slices.Equal(t.meta.Shape, x.meta.Shape) {
		return nil
	}
	// c is sum(x, axes) / n, as mean builds it for a float x.
	div, ok := c.op.(ops.Elementwise)
	if !ok || div.Kind != "binary" || div.Name != "true_divide" || len(c.inputs) != 1 || len(div.Consts) != 1 || div.Consts[0].Pos != 1 {
		return nil
	}
	s := c.inputs[0]
	sum, ok := s.op.(ops.Reduction)
	if !ok || sum.Func != "sum" || len(s.inputs) != 1 || s.inputs[0] != x || !slices.Equal(sum.Axes, op.Axes) {
		return nil
	}
	n := 1
	for _, a := range op.Axes {
		n *= x.meta.Shape[a]
	}
	if div.Consts[0].Value != float64(n) {
		return nil
	}
	// Constant along the axes once broadcast against x: kept as ones, or
	// dropped from the front (a dropped later axis would align c's
	// values with other axes of x).
	if !sum.KeepDims {
		for i, a := range op.Axes {
			if a != i {
				return nil
			}
		}
	}
	return New(op, x)
}

// mean is NumPy's: the sum in float64 (float32 stays float32) over the
// count, so integer data averages exactly as NumPy's does.
func (t *Tensor) mean(op ops.Reduction) *Tensor {
	if t.meta.Unknown != 0 {
		// The count is known only from the data: the moments' counts.
		return New(op, t)
	}
	acc := ndarray.MeanResultType(t.meta.DType)
	n := 1
	for _, a := range op.Axes {
		n *= t.meta.Shape[a]
	}
	op.Func = "sum"
	s := New(op, t.Astype(acc))
	return s.Div(float64(n)).Astype(acc)
}

// complexVar is NumPy's variance (or standard deviation) of a complex
// tensor: the mean of |x - mean(x)|^2 over N - ddof, a float of the part
// type, |d|^2 computed as re*re + im*im as NumPy's x * conj(x) does.
func (t *Tensor) complexVar(op ops.Reduction) *Tensor {
	n := 1
	for _, a := range op.Axes {
		n *= t.meta.Shape[a]
	}
	mop := op
	mop.Func, mop.KeepDims = "mean", true
	d := t.Sub(t.mean(mop))
	re, im := Real(d), Imag(d)
	sq := re.Mul(re).Add(im.Mul(im))
	sop := op
	sop.Func = "sum"
	v := New(sop, sq).Div(float64(max(n-op.DDof, 0))).Astype(sq.meta.DType)
	if op.Func == "std" {
		return v.Sqrt()
	}
	return v
}

// reduceNothing is a reduction over axis=(): NumPy applies the op to each
// element alone.
func (t *Tensor) reduceNothing(fn string, ddof int) *Tensor {
	switch fn {
	case "count_nonzero":
		return t.NotEqual(0).Astype(ndarray.Int64)
	case "any", "all":
		return t.NotEqual(0)
	case "mean":
		return t.Astype(ndarray.MeanResultType(t.meta.DType))
	case "var", "std":
		// one element per group: sum of squared deviations is 0, over 1-ddof
		x := t.Astype(ndarray.MeanResultType(t.meta.DType))
		if x.meta.DType.IsComplex() {
			x = x.Abs()
		}
		v := x.Sub(x).Mul(x.Sub(x)).Div(float64(1 - ddof))
		if fn == "std" {
			return v.Sqrt()
		}
		return v
	case "argmin", "argmax", "nanargmin", "nanargmax":
		return errorf("%s: takes one axis, got ()", fn)
	case "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd":
		return t.nanReduceNothing(fn, ddof)
	}
	m, err := ops.Reduction{Func: fn, Axes: nil}.Infer([]ops.Meta{{Shape: t.meta.Shape, DType: t.meta.DType}})
	if err != nil {
		return errTensor(err)
	}
	return t.Astype(m.DType)
}

func isArgFunc(fn string) bool {
	return fn == "argmin" || fn == "argmax" || fn == "nanargmin" || fn == "nanargmax"
}

// normAxes normalises axes, sorts them and rejects repeats.
func normAxes(axes []int, nd int) ([]int, error) {
	out := make([]int, len(axes))
	for i, a := range axes {
		n, err := ndarray.NormAxis(a, nd)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	slices.Sort(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			return nil, fmt.Errorf("repeated axis %d in %v", out[i], axes)
		}
	}
	return out, nil
}

// Sum adds over all axes, or those given by Axis.
func (t *Tensor) Sum(opts ...ReduceOption) *Tensor { return t.reduce("sum", opts) }

// Prod multiplies over the axes.
func (t *Tensor) Prod(opts ...ReduceOption) *Tensor { return t.reduce("prod", opts) }

// Min is the minimum over the axes.
func (t *Tensor) Min(opts ...ReduceOption) *Tensor { return t.reduce("min", opts) }

// Max is the maximum over the axes.
func (t *Tensor) Max(opts ...ReduceOption) *Tensor { return t.reduce("max", opts) }

// Mean is the arithmetic mean over the axes.
func (t *Tensor) Mean(opts ...ReduceOption) *Tensor { return t.reduce("mean", opts) }

// Var is the variance over the axes (DDof sets the divisor N - ddof).
func (t *Tensor) Var(opts ...ReduceOption) *Tensor { return t.reduce("var", opts) }

// Std is the standard deviation over the axes.
func (t *Tensor) Std(opts ...ReduceOption) *Tensor { return t.reduce("std", opts) }

// Any is true where any element over the axes is nonzero.
func (t *Tensor) Any(opts ...ReduceOption) *Tensor { return t.reduce("any", opts) }

// All is true where every element over the axes is nonzero.
func (t *Tensor) All(opts ...ReduceOption) *Tensor { return t.reduce("all", opts) }

// CountNonzero counts nonzero elements over the axes.
func (t *Tensor) CountNonzero(opts ...ReduceOption) *Tensor { return t.reduce("count_nonzero", opts) }

// ArgMin is the index of the minimum over one axis, or of the flattened
// tensor when no Axis is given.
func (t *Tensor) ArgMin(opts ...ReduceOption) *Tensor { return t.reduce("argmin", opts) }

// ArgMax is the index of the maximum (see ArgMin).
func (t *Tensor) ArgMax(opts ...ReduceOption) *Tensor { return t.reduce("argmax", opts) }

// maskedReduce is a reduction over the selection of a boolean mask (x[m],
// ops.BooleanMask) that reduces the selection's axis, as the same
// reduction of where(m, x, identity) over the mask's axes of x: no
// selection of unknown length is made, and it fuses into one kernel with
// whatever makes x and m. nil when the reduction is not one of those
// (sum, prod, count_nonzero, any, all, mean without keepdims).
func (t *Tensor) maskedReduce(op ops.Reduction) *Tensor {
	bm, ok := t.op.(ops.BooleanMask)
	if !ok || op.KeepDims || len(t.inputs) != 2 || !slices.Contains(op.Axes, bm.Axis) {
		return nil
	}
	var fill any
	switch op.Func {
	case "sum", "count_nonzero", "any", "mean":
		fill = 0
	case "prod", "all":
		fill = 1
	default:
		return nil
	}
	x, m := t.inputs[0], t.inputs[1]
	k, nd := m.NDim(), x.NDim()
	if x.meta.Unknown != 0 || m.meta.Unknown != 0 || k == 0 || bm.Axis+k > nd {
		return nil
	}
	// The selection's axis a stands for x's axes a..a+k-1; later axes shift.
	var axes []int
	for _, a := range op.Axes {
		switch {
		case a < bm.Axis:
			axes = append(axes, a)
		case a == bm.Axis:
			axes = append(axes, axesFrom(a, k)...)
		default:
			axes = append(axes, a+k-1)
		}
	}
	shape := make([]int, nd)
	for i := range shape {
		shape[i] = 1
	}
	copy(shape[bm.Axis:], m.meta.Shape)
	mb := m.Reshape(shape...)
	vals := Where(mb, x, fill)
	opts := []ReduceOption{Axis(axes...)}
	if op.FanIn > 0 {
		opts = append(opts, FanIn(op.FanIn))
	}
	if op.Func != "mean" {
		return vals.reduce(op.Func, opts)
	}
	acc := ndarray.MeanResultType(x.meta.DType)
	sum := vals.Astype(acc).Sum(opts...)
	count := Where(mb, 1, 0).BroadcastTo(x.meta.Shape...).Sum(opts...)
	return sum.Div(count.Astype(acc)).Astype(acc)
}
