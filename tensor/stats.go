package tensor

import (
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// NaN-aware reductions. On float tensors they are reductions of their own
// (kernels that skip NaN while they read, see ndarray/reduce_nan.go); on
// integer and bool tensors, which hold no NaN, they are the plain ones, as
// in NumPy.

// nanReduce is reduce(fn) on float tensors and reduce(plain) on the others.
func (t *Tensor) nanReduce(fn, plain string, opts []ReduceOption) *Tensor {
	if t.err != nil {
		return t
	}
	if !t.meta.DType.IsFloat() && !t.meta.DType.IsComplex() {
		return t.reduce(plain, opts)
	}
	if t.meta.DType.IsComplex() && (fn == "nanvar" || fn == "nanstd") && t.meta.Unknown == 0 {
		return t.complexNanVar(fn, opts)
	}
	return t.reduce(fn, opts)
}

// complexNanVar is NumPy's nanvar (nanstd) of a complex tensor, its own
// formula: elements with a NaN part count as absent, the mean is the sum of
// the others over their count, and the variance the sum of |x - mean|^2
// over the others over count - ddof (NaN where that is not positive), a
// float of the part type.
func (t *Tensor) complexNanVar(fn string, opts []ReduceOption) *Tensor {
	var c reduceConfig
	for _, o := range opts {
		o(&c)
	}
	var keep, final []ReduceOption
	if c.hasAxes {
		keep = append(keep, Axis(c.axes...))
		final = append(final, Axis(c.axes...))
	}
	keep = append(keep, KeepDims())
	if c.keepdims {
		final = append(final, KeepDims())
	}
	nan := t.IsNaN()
	x := Where(nan, 0, t)
	avg := x.Sum(keep...).Div(nan.Not().Sum(keep...))
	d := Where(nan, 0, x.Sub(avg))
	re, im := Real(d), Imag(d)
	sq := re.Mul(re).Add(im.Mul(im))
	dof := nan.Not().Sum(final...).Sub(int64(c.ddof))
	v := Where(dof.LessEqual(0), math.NaN(), sq.Sum(final...).Div(dof)).Astype(sq.meta.DType)
	if fn == "nanstd" {
		return v.Sqrt()
	}
	return v
}

// NanSum adds over the axes treating NaN as zero: an all-NaN slice sums to 0.
func (t *Tensor) NanSum(opts ...ReduceOption) *Tensor { return t.nanReduce("nansum", "sum", opts) }

// NanProd multiplies over the axes treating NaN as one.
func (t *Tensor) NanProd(opts ...ReduceOption) *Tensor { return t.nanReduce("nanprod", "prod", opts) }

// NanMin is the minimum over the axes ignoring NaN; an all-NaN slice gives
// NaN (NumPy also warns).
func (t *Tensor) NanMin(opts ...ReduceOption) *Tensor { return t.nanReduce("nanmin", "min", opts) }

// NanMax is the maximum over the axes ignoring NaN (see NanMin).
func (t *Tensor) NanMax(opts ...ReduceOption) *Tensor { return t.nanReduce("nanmax", "max", opts) }

// NanMean is the mean of the numbers over the axes; NaN for an all-NaN slice.
//
// It is NumPy's own formula, NanSum over the count of numbers, so infinite
// numbers give an infinite mean (a merge of partial means would give NaN).
func (t *Tensor) NanMean(opts ...ReduceOption) *Tensor {
	if t.err != nil || (!t.meta.DType.IsFloat() && !t.meta.DType.IsComplex()) {
		return t.nanReduce("nanmean", "mean", opts)
	}
	var c reduceConfig
	for _, o := range opts {
		o(&c)
	}
	if c.hasAxes && len(c.axes) == 0 {
		return t.reduce("nanmean", opts)
	}
	count := t.IsNaN().Not().Sum(opts...)
	return t.NanSum(opts...).Div(count).Astype(t.meta.DType)
}

// NanVar is the variance of the numbers over the axes (DDof sets the
// divisor count-ddof); NaN where count-ddof <= 0, all-NaN slices included.
func (t *Tensor) NanVar(opts ...ReduceOption) *Tensor { return t.nanReduce("nanvar", "var", opts) }

// NanStd is the square root of NanVar.
func (t *Tensor) NanStd(opts ...ReduceOption) *Tensor { return t.nanReduce("nanstd", "std", opts) }

// NanArgMin is the index of the minimum ignoring NaN, over one axis or the
// flattened tensor, in a single pass like ArgMin. An all-NaN slice fails the
// computation with an *ndarray.AllNaNError (NumPy's ValueError).
func (t *Tensor) NanArgMin(opts ...ReduceOption) *Tensor {
	return t.nanReduce("nanargmin", "argmin", opts)
}

// NanArgMax is the index of the maximum ignoring NaN (see NanArgMin).
func (t *Tensor) NanArgMax(opts ...ReduceOption) *Tensor {
	return t.nanReduce("nanargmax", "argmax", opts)
}

// NanCumSum is the cumulative sum along axis with NaN counted as zero. It is
// NumPy's own definition, cumsum of where(isnan(x), 0, x): exact, and the
// replacement is an elementwise op the scan reads chunk by chunk.
func (t *Tensor) NanCumSum(axis int) *Tensor {
	if t.err != nil || (!t.meta.DType.IsFloat() && !t.meta.DType.IsComplex()) {
		return t.CumSum(axis)
	}
	return Where(t.IsNaN(), 0, t).CumSum(axis)
}

// NanCumProd is the cumulative product along axis with NaN counted as one.
func (t *Tensor) NanCumProd(axis int) *Tensor {
	if t.err != nil || (!t.meta.DType.IsFloat() && !t.meta.DType.IsComplex()) {
		return t.CumProd(axis)
	}
	return Where(t.IsNaN(), 1, t).CumProd(axis)
}

// nanReduceNothing is a NaN-aware reduction over axis=() of a float tensor:
// each element alone.
func (t *Tensor) nanReduceNothing(fn string, ddof int) *Tensor {
	switch fn {
	case "nansum":
		return Where(t.IsNaN(), 0, t)
	case "nanprod":
		return Where(t.IsNaN(), 1, t)
	case "nanvar", "nanstd":
		if 1-ddof <= 0 {
			return t.Mul(math.NaN())
		}
		v := t.Sub(t).Mul(t.Sub(t)).Div(float64(1 - ddof))
		if fn == "nanstd" {
			return v.Sqrt()
		}
		return v
	}
	return t.Astype(t.meta.DType) // nanmin, nanmax, nanmean: the element, NaN stays NaN
}

// Ptp is the range, maximum minus minimum, over the axes (NumPy's ptp).
func (t *Tensor) Ptp(opts ...ReduceOption) *Tensor {
	if t.err != nil {
		return t
	}
	return t.Max(opts...).Sub(t.Min(opts...))
}

// Average is NumPy's average over the axes (all without Axis): the mean when
// weights is nil, else sum(a*w)/sum(w) computed in NumPy's result type
// (float64 for integer data). Weights have a's shape, or are 1-D along the
// one axis given. It also returns the sum of the weights (NumPy's returned
// result) broadcast to the average's shape. Weights summing to zero give
// NaN or ±Inf where NumPy raises ZeroDivisionError: the sum is only known
// when the graph runs.
func Average(a, weights *Tensor, opts ...ReduceOption) (avg, sumWeights *Tensor) {
	if a == nil || a.err != nil {
		return a, a
	}
	var c reduceConfig
	for _, o := range opts {
		o(&c)
	}
	if weights == nil {
		avg = a.Mean(opts...)
		if avg.err != nil {
			return avg, avg
		}
		ratio := 1.0
		if avg.Size() > 0 {
			ratio = float64(a.Size()) / float64(avg.Size())
		}
		return avg, Full(avg.Shape(), ratio, WithDType(avg.DType()))
	}
	if weights.err != nil {
		return weights, weights
	}
	rt := ndarray.Promote(a.meta.DType, weights.meta.DType)
	if !a.meta.DType.IsFloat() {
		rt = ndarray.Promote(rt, ndarray.Float64)
	}
	w := weights
	if !ndarray.SameShape(a.meta.Shape, w.meta.Shape) {
		if !c.hasAxes {
			e := errorf("average: weights of shape %v differ from a's shape %v: axis must be specified when shapes of a and weights differ", w.meta.Shape, a.meta.Shape)
			return e, e
		}
		if w.NDim() != 1 {
			e := errorf("average: weights of shape %v differ from a's shape %v: 1D weights expected when shapes of a and weights differ", w.meta.Shape, a.meta.Shape)
			return e, e
		}
		if len(c.axes) != 1 {
			e := errorf("average: 1-D weights need one axis, got %v", c.axes)
			return e, e
		}
		ax, err := ndarray.NormAxis(c.axes[0], a.NDim())
		if err != nil {
			e := errorf("average: %w", err)
			return e, e
		}
		if w.meta.Shape[0] != a.meta.Shape[ax] {
			e := errorf("average: %d weights for axis %d of length %d: length of weights not compatible with specified axis", w.meta.Shape[0], ax, a.meta.Shape[ax])
			return e, e
		}
		shape := make([]int, a.NDim())
		for i := range shape {
			shape[i] = 1
		}
		shape[ax] = w.meta.Shape[0]
		w = w.Reshape(shape...).BroadcastTo(a.meta.Shape...)
	}
	w = w.Astype(rt)
	sumWeights = w.Sum(opts...)
	avg = a.Astype(rt).Mul(w).Sum(opts...).Div(sumWeights)
	if avg.err == nil && avg.meta.DType != rt {
		avg = avg.Astype(rt)
	}
	return avg, sumWeights
}

// CovOption configures Cov and Corrcoef.
type CovOption func(*covConfig)

type covConfig struct {
	y                  *Tensor
	colVar, bias       bool
	ddof               *int
	fweights, aweights *Tensor
	dtype              ndarray.DType
}

// CovY adds the variables of y to those of m (NumPy's y argument).
func CovY(y *Tensor) CovOption { return func(c *covConfig) { c.y = y } }

// ColVar makes each column a variable and each row an observation
// (NumPy's rowvar=False).
func ColVar() CovOption { return func(c *covConfig) { c.colVar = true } }

// Bias normalises by N (or the sum of weights) instead of N-1.
func Bias() CovOption { return func(c *covConfig) { c.bias = true } }

// CovDDof overrides the normalisation set by Bias: divide by N-ddof.
func CovDDof(n int) CovOption { return func(c *covConfig) { c.ddof = &n } }

// FWeights are integer frequency weights, one per observation.
func FWeights(w *Tensor) CovOption { return func(c *covConfig) { c.fweights = w } }

// AWeights are observation (reliability) weights, one per observation.
func AWeights(w *Tensor) CovOption { return func(c *covConfig) { c.aweights = w } }

// CovDType computes in dt instead of float64 (NumPy's dtype argument).
func CovDType(dt ndarray.DType) CovOption { return func(c *covConfig) { c.dtype = dt } }

// covVars is m as a 2-D tensor of variables by observations, in dt.
func covVars(m *Tensor, colVar bool, dt ndarray.DType) *Tensor {
	if m.err != nil {
		return m
	}
	m = m.Astype(dt)
	switch m.NDim() {
	case 0:
		m = m.Reshape(1, 1)
	case 1:
		m = m.Reshape(1, m.meta.Shape[0])
	case 2:
	default:
		return errorf("cov: m of shape %v has more than 2 dimensions", m.meta.Shape)
	}
	if colVar && m.meta.Shape[0] != 1 {
		m = m.T()
	}
	return m
}

// Cov is NumPy's cov: the covariance matrix of the variables (rows of m, or
// columns with ColVar, plus those of CovY), squeezed as NumPy squeezes it
// (one variable gives a 0-d tensor), in float64 (or CovDType; weights
// are float64 as in NumPy, so they make the result float64). With weights it divides by
// the weighted count as NumPy does; weights NumPy would reject by value
// (negative, or fractional frequency weights) are not checked, since their
// values are only known when the graph runs (the Python client checks
// weights it is given as arrays).
func Cov(m *Tensor, opts ...CovOption) *Tensor {
	if m == nil {
		return errorf("cov: nil tensor")
	}
	if m.err != nil {
		return m
	}
	var c covConfig
	for _, o := range opts {
		o(&c)
	}
	for _, t := range []*Tensor{m, c.y} {
		if t != nil && t.err == nil && t.meta.DType.IsComplex() {
			// As the other statistics beyond the moments (ops/dtypes.go):
			// complex covariances need conjugate products.
			return errTensor(&ndarray.DTypeError{Msg: fmt.Sprintf("cov: not supported for %v (take the real or imaginary part or the absolute value first)", t.meta.DType)})
		}
	}
	dt := c.dtype
	if dt == ndarray.Invalid {
		dt = ndarray.Float64 // np.result_type(m, y, np.float64)
	}
	x := covVars(m, c.colVar, dt)
	if x.err == nil && x.meta.Shape[0] == 0 {
		return Zeros([]int{0, 0}, WithDType(dt))
	}
	if c.y != nil {
		y := covVars(c.y, c.colVar, dt)
		if y.err == nil && x.err == nil && y.meta.Shape[1] != x.meta.Shape[1] {
			return errorf("cov: y has %d observations but m has %d: all the input array dimensions except for the concatenation axis must match exactly", y.meta.Shape[1], x.meta.Shape[1])
		}
		x = Concatenate(0, x, y)
	}
	if x.err != nil {
		return x
	}
	ddof := 1
	if c.bias {
		ddof = 0
	}
	if c.ddof != nil {
		ddof = *c.ddof
	}
	n := x.meta.Shape[1]
	var w *Tensor
	for _, wt := range []struct {
		name string
		t    *Tensor
	}{{"fweights", c.fweights}, {"aweights", c.aweights}} {
		if wt.t == nil {
			continue
		}
		if wt.t.err != nil {
			return wt.t
		}
		if wt.t.NDim() != 1 {
			return errorf("cov: %s of shape %v: cannot handle multidimensional %s", wt.name, wt.t.meta.Shape, wt.name)
		}
		if wt.t.meta.Shape[0] != n {
			return errorf("cov: %d %s for %d observations: incompatible numbers of samples and %s", wt.t.meta.Shape[0], wt.name, n, wt.name)
		}
		f := wt.t.Astype(ndarray.Float64) // NumPy: asarray(weights, dtype=float)
		if w == nil {
			w = f
		} else {
			w = w.Mul(f)
		}
	}
	avg, wsum := Average(x, w, Axis(1))
	var fact *Tensor
	switch {
	case w == nil:
		fact = Scalar(float64(n - ddof))
	case ddof == 0:
		fact = wsum.Index(At(0))
	case c.aweights == nil:
		fact = wsum.Index(At(0)).Sub(float64(ddof))
	default:
		ws := wsum.Index(At(0))
		fact = ws.Sub(w.Mul(c.aweights.Astype(ndarray.Float64)).Sum().Mul(float64(ddof)).Div(ws))
	}
	// NumPy warns and divides by zero when the degrees of freedom are <= 0.
	fact = Where(fact.LessEqual(0), 0.0, fact)
	xc := x.Sub(avg.Reshape(-1, 1))
	xt := xc.T()
	if w != nil {
		xt = xc.Mul(w).T()
	}
	cv := MatMul(xc, xt).Mul(Div(1.0, fact))
	if cv.err != nil {
		return cv
	}
	return squeezeAll(cv)
}

// squeezeAll drops every axis of length 1, as ndarray.squeeze() does.
func squeezeAll(t *Tensor) *Tensor {
	var axes []int
	for i, d := range t.meta.Shape {
		if d == 1 {
			axes = append(axes, i)
		}
	}
	if len(axes) == 0 {
		return t
	}
	return t.Squeeze(axes...)
}

// Corrcoef is NumPy's corrcoef: the covariance matrix of Cov normalised by
// the standard deviations, clipped to [-1, 1]. Bias and CovDDof do not
// change it (NumPy deprecates them there).
func Corrcoef(x *Tensor, opts ...CovOption) *Tensor {
	c := Cov(x, opts...)
	if c.err != nil {
		return c
	}
	if c.NDim() == 0 {
		return c.Div(c)
	}
	k := c.meta.Shape[0]
	if k == 0 {
		return c
	}
	// The diagonal, exactly: every other term of the row sum is a zero.
	d := Where(Eye(k, k, 0).NotEqual(0), c, 0.0).Sum(Axis(1))
	sd := d.Sqrt()
	r := c.Div(sd.Reshape(-1, 1)).Div(sd.Reshape(1, -1))
	return Clip(r, -1.0, 1.0)
}

// Bincount counts each value of x, a 1-D tensor of non-negative integers,
// into a tensor of the given length (NumPy's bincount with minlength =
// length), or sums weights (nil for counts; float64 result) instead.
//
// NumPy's result is max(x)+1 long when that exceeds minlength. Phobos fixes
// every tensor's shape before anything runs, so the length is the caller's:
// a value at or beyond it fails the computation with an
// *ops.BincountRangeError naming the value. To get NumPy's length, compute
// x.Max() first and call Bincount with max(minlength, max+1), as the Python
// client's bincount does (one extra execution of the maximum only).
func Bincount(x, weights *Tensor, length int) *Tensor {
	if x == nil {
		return errorf("bincount: nil tensor")
	}
	if weights == nil {
		return New(ops.Bincount{Length: length}, x)
	}
	return New(ops.Bincount{Length: length, Weighted: true}, x, weights)
}

// Digitize is NumPy's digitize: the index of the bin of bins (1-D,
// monotonically increasing or decreasing) each element of x falls in; right
// closes the bins on the right. Bins that are not monotonic fail the
// computation, since their values are only known when it runs.
func Digitize(x, bins *Tensor, right bool) *Tensor {
	if x == nil || bins == nil {
		return errorf("digitize: nil tensor")
	}
	return New(ops.Digitize{Right: right}, x, bins)
}

// HistOption configures Histogram and HistogramBinEdges.
type HistOption func(*histConfig)

type histConfig struct {
	hasRange bool
	lo, hi   float64
	weights  *Tensor
	density  bool
}

// HistRange sets the lower and upper edges (NumPy's range); values outside
// are not counted. Without it the edges are the data's minimum and maximum.
func HistRange(lo, hi float64) HistOption {
	return func(c *histConfig) { c.hasRange, c.lo, c.hi = true, lo, hi }
}

// HistWeights weighs each element of the data (weights of its shape).
func HistWeights(w *Tensor) HistOption { return func(c *histConfig) { c.weights = w } }

// HistDensity normalises the histogram to a probability density.
func HistDensity() HistOption { return func(c *histConfig) { c.density = true } }

// Bins says how a histogram bins its data: a number of equal bins, explicit
// edges, or one of NumPy's named rules.
type Bins struct {
	n     int
	edges *Tensor
	rule  string
}

// BinCount is n equal bins between the range's edges.
func BinCount(n int) Bins { return Bins{n: n} }

// BinEdges are explicit, monotonically increasing edges (1-D).
func BinEdges(edges *Tensor) Bins { return Bins{edges: edges} }

// BinRule is one of NumPy's named rules: "sqrt", "sturges", "rice",
// "scott", "doane", "fd" or "auto". Their number of bins depends on the data, so
// Histogram and HistogramBinEdges refuse a rule with an error that says to
// compute HistogramBinCount first and pass BinCount of its value (with the
// same HistRange), which is what the Python client does.
func BinRule(name string) Bins { return Bins{rule: name} }

// histEdges returns the bin edges, whether they come from the data's
// minimum and maximum, and the data's dtype for the edges.
func histEdges(a *Tensor, bins Bins, c histConfig) (*Tensor, bool, error) {
	if a.meta.DType.IsComplex() {
		// As the other statistics beyond the moments (ops/dtypes.go).
		return nil, false, &ndarray.DTypeError{Msg: fmt.Sprintf("histogram: not supported for %v (take the real or imaginary part or the absolute value first)", a.meta.DType)}
	}
	et := ndarray.Float64
	if a.meta.DType == ndarray.Float32 {
		et = ndarray.Float32 // NumPy: result_type of the data and its edges
	}
	switch {
	case bins.rule != "":
		if _, ok := binRules[bins.rule]; !ok {
			return nil, false, fmt.Errorf("histogram: %q is not a valid estimator for `bins` (want sqrt, sturges, rice, scott, doane, fd or auto)", bins.rule)
		}
		return nil, false, fmt.Errorf("histogram: bins rule %q gives a number of bins that depends on the data; compute HistogramBinCount(a, %q) first and pass BinCount of its value", bins.rule, bins.rule)
	case bins.edges != nil:
		e := bins.edges
		if e.err != nil {
			return nil, false, e.err
		}
		if e.NDim() != 1 || e.meta.Shape[0] < 2 {
			return nil, false, fmt.Errorf("histogram: bin edges of shape %v; `bins` must be 1d, with at least 2 edges", e.meta.Shape)
		}
		return e, false, nil
	}
	if bins.n < 1 {
		return nil, false, fmt.Errorf("histogram: %d bins: `bins` must be positive, when an integer", bins.n)
	}
	first, last, auto, err := histOuterEdges(a, c)
	if err != nil {
		return nil, false, err
	}
	// np.linspace(first, last, n+1): i*step + first, the last edge exact.
	n := bins.n
	step := last.Sub(first).Div(float64(n))
	e := ArangeN(n).Astype(ndarray.Float64).Mul(step).Add(first)
	e = Concatenate(0, e, last.Reshape(1))
	return e.Astype(et), auto, nil
}

// histOuterEdges is NumPy's _get_outer_edges as 0-d float64 tensors: the
// range, or the data's minimum and maximum (0 and 1 when it is empty),
// widened by 0.5 each way when equal.
func histOuterEdges(a *Tensor, c histConfig) (first, last *Tensor, auto bool, err error) {
	switch {
	case c.hasRange:
		if c.lo > c.hi {
			return nil, nil, false, fmt.Errorf("histogram: range (%v, %v): max must be larger than min in range parameter", c.lo, c.hi)
		}
		if !isFinite(c.lo) || !isFinite(c.hi) {
			return nil, nil, false, fmt.Errorf("histogram: supplied range of [%v, %v] is not finite", c.lo, c.hi)
		}
		first, last = Scalar(c.lo), Scalar(c.hi)
	case a.Size() == 0:
		first, last = Scalar(0.0), Scalar(1.0)
	default:
		first, last, auto = a.Min().Astype(ndarray.Float64), a.Max().Astype(ndarray.Float64), true
	}
	eq := first.Equal(last)
	return Where(eq, first.Sub(0.5), first), Where(eq, last.Add(0.5), last), auto, nil
}

func isFinite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// HistogramBinEdges is NumPy's histogram_bin_edges: the edges Histogram
// uses for these bins and options.
func HistogramBinEdges(a *Tensor, bins Bins, opts ...HistOption) *Tensor {
	if a == nil {
		return errorf("histogram_bin_edges: nil tensor")
	}
	if a.err != nil {
		return a
	}
	if u := a.needKnown("histogram_bin_edges"); u != nil {
		return u
	}
	var c histConfig
	for _, o := range opts {
		o(&c)
	}
	e, _, err := histEdges(a, bins, c)
	if err != nil {
		return errTensor(err)
	}
	return halfEdges(a, e)
}

// Histogram is NumPy's histogram: the counts of a's elements (flattened) in
// each bin (int64), or the sums of their weights (the weights' dtype), or
// with HistDensity the density (float64), and the bin edges. Each chunk
// counts its own elements and the partial counts are added by a tree, so
// the data is never gathered.
func Histogram(a *Tensor, bins Bins, opts ...HistOption) (hist, edges *Tensor) {
	if a == nil {
		e := errorf("histogram: nil tensor")
		return e, e
	}
	if a.err != nil {
		return a, a
	}
	if u := a.needKnown("histogram"); u != nil {
		return u, u
	}
	var c histConfig
	for _, o := range opts {
		o(&c)
	}
	e, auto, err := histEdges(a, bins, c)
	if err != nil {
		return errTensor(err), errTensor(err)
	}
	nb := e.meta.Shape[0] - 1
	op := ops.Histogram{Bins: nb, AutoRange: auto, Uniform: bins.edges == nil}
	in := []*Tensor{a, e}
	if c.weights != nil {
		op.Weighted = true
		in = append(in, c.weights)
	}
	hist = New(op, in...)
	if c.density && hist.err == nil {
		widths := e.Index(From(1)).Sub(e.Index(To(nb))).Astype(ndarray.Float64)
		h := hist.Astype(ndarray.Float64)
		hist = h.Div(widths).Div(h.Sum())
	}
	return hist, halfEdges(a, e)
}

// halfEdges is edges in float16 for float16 data, as NumPy's result_type
// of the data and its edges gives them (computed in float64, rounded
// once, as NumPy's linspace in float16 is).
func halfEdges(a, edges *Tensor) *Tensor {
	if a.meta.DType == ndarray.Float16 && edges.err == nil {
		return edges.Astype(ndarray.Float16)
	}
	return edges
}

// binRules are NumPy's named bin-width estimators over the (in-range) data
// x as float64, n its count; they return the width as a 0-d tensor.
var binRules = map[string]func(x *Tensor, n *Tensor) *Tensor{
	"sqrt":    func(x, n *Tensor) *Tensor { return nanPtp(x).Div(n.Sqrt()) },
	"sturges": binSturges,
	"rice": func(x, n *Tensor) *Tensor {
		return nanPtp(x).Div(Pow(n, 1.0/3).Mul(2.0)) // n**(1/3), as NumPy writes it
	},
	"scott": func(x, n *Tensor) *Tensor {
		return Pow(Div(24*math.Sqrt(math.Pi), n), 1.0/3).Mul(x.NanStd())
	},
	"doane": func(x, n *Tensor) *Tensor {
		sg1 := (n.Sub(2.0).Mul(6.0).Div(n.Add(1.0).Mul(n.Add(3.0)))).Sqrt()
		sigma := x.NanStd()
		g1 := x.Sub(x.NanMean()).Div(sigma).Pow(3.0).NanMean()
		w := nanPtp(x).Div(Log2(n).Add(1.0).Add(Log2(g1.Abs().Div(sg1).Add(1.0))))
		return Where(n.Greater(2.0).And(sigma.Greater(0.0)), w, 0.0)
	},
	"fd":   binFD,
	"auto": binAuto,
}

func binSturges(x, n *Tensor) *Tensor { return nanPtp(x).Div(Log2(n).Add(1.0)) }

// binFD is the Freedman-Diaconis width, 2 IQR n^(-1/3), the interquartile
// range from the exact percentiles (NaNs, the elements out of range,
// skipped).
func binFD(x, n *Tensor) *Tensor {
	iqr := NanPercentile(x, 75.0, "linear").Sub(NanPercentile(x, 25.0, "linear"))
	return iqr.Mul(2.0).Mul(Pow(n, -1.0/3))
}

// binAuto is NumPy's "auto": the smaller of the Freedman-Diaconis and
// Sturges widths, or Sturges' when the former is 0.
func binAuto(x, n *Tensor) *Tensor {
	fd, st := binFD(x, n), binSturges(x, n)
	return Where(fd.NotEqual(0.0), Minimum(fd, st), st)
}

func nanPtp(x *Tensor) *Tensor { return x.NanMax().Sub(x.NanMin()) }

// HistogramBinCount is the number of equal bins NumPy's named rule
// ("sqrt", "sturges", "rice", "scott", "doane", "fd", "auto") gives for a's elements
// within the range (HistRange, else the data's minimum and maximum): a 0-d
// int64 tensor to execute before Histogram(a, BinCount(n), ...). "fd" and
// "auto" take the interquartile range from the exact percentiles
// (Percentile's radix select). NumPy's "stone" is not offered: it is a
// search over histograms of every bin count up to the data's size.
func HistogramBinCount(a *Tensor, rule string, opts ...HistOption) *Tensor {
	if a == nil {
		return errorf("histogram_bin_count: nil tensor")
	}
	if a.err != nil {
		return a
	}
	f, ok := binRules[rule]
	if !ok {
		return errorf("histogram: %q is not a valid estimator for `bins` (want sqrt, sturges, rice, scott, doane, fd or auto)", rule)
	}
	var c histConfig
	for _, o := range opts {
		o(&c)
	}
	if a.Size() == 0 {
		return Scalar(int64(1)).Astype(ndarray.Int64)
	}
	first, last, _, err := histOuterEdges(a, c)
	if err != nil {
		return errTensor(err)
	}
	x := a.Ravel().Astype(ndarray.Float64)
	if c.hasRange {
		// NumPy estimates from the elements within the range only: the
		// others become NaN, which the NaN-aware reductions skip.
		in := x.GreaterEqual(first).And(x.LessEqual(last))
		x = Where(in, x, math.NaN())
	}
	n := x.IsNaN().Not().Sum().Astype(ndarray.Float64)
	width := f(x, n)
	count := last.Sub(first).Div(width).Ceil()
	return Where(width.Greater(0.0).And(n.Greater(0.0)), count, 1.0).Astype(ndarray.Int64)
}
