package calls

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/rng"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

type function struct {
	params   []string
	build    func(*args) (*tensor.Tensor, error)
	required int // the first params a call must give
}

// table is every function by name. Parameter names are NumPy's, so Python
// keyword arguments pass through unchanged; a last parameter "*name"
// collects the remaining positional arguments.
var table = map[string]function{}

func init() {
	for _, name := range ndarray.UnaryOpNames() {
		table[name] = function{params: []string{"x"}, required: 1, build: func(a *args) (*tensor.Tensor, error) {
			x, err := a.operand("x")
			if err != nil {
				return nil, err
			}
			return tensor.Ufunc(name, x), nil
		}}
	}
	for _, name := range ndarray.BinaryOpNames() {
		table[name] = function{params: []string{"x1", "x2"}, required: 2, build: func(a *args) (*tensor.Tensor, error) {
			x1, err := a.operand("x1")
			if err != nil {
				return nil, err
			}
			x2, err := a.operand("x2")
			if err != nil {
				return nil, err
			}
			return tensor.Ufunc(name, x1, x2), nil
		}}
	}
	for _, fn := range []string{"sum", "prod", "mean"} {
		table[fn] = function{[]string{"a", "axis", "dtype", "keepdims"}, reduction(fn), 1}
	}
	for _, fn := range []string{"min", "max", "any", "all", "count_nonzero", "argmin", "argmax"} {
		table[fn] = function{[]string{"a", "axis", "keepdims"}, reduction(fn), 1}
	}
	for _, fn := range []string{"var", "std"} {
		table[fn] = function{[]string{"a", "axis", "dtype", "ddof", "keepdims"}, reduction(fn), 1}
	}
	for _, fn := range []string{"cumsum", "cumprod"} {
		table[fn] = function{[]string{"a", "axis", "dtype"}, cumulative(fn), 1}
	}
	for name, f := range map[string]function{
		// creation
		"zeros":    {[]string{"shape", "dtype", "chunks"}, fill(0), 1},
		"ones":     {[]string{"shape", "dtype", "chunks"}, fill(1), 1},
		"empty":    {[]string{"shape", "dtype", "chunks"}, fill(0), 1},
		"full":     {[]string{"shape", "fill_value", "dtype", "chunks"}, full, 2},
		"arange":   {[]string{"start", "stop", "step", "dtype", "chunks"}, arange, 3},
		"linspace": {[]string{"start", "stop", "num", "dtype", "chunks"}, linspace, 2},
		"eye":      {[]string{"N", "M", "k", "dtype", "chunks"}, eye, 1},
		"random":   {[]string{"seed", "stream", "dist", "p1", "p2", "shape", "dtype", "chunks"}, random, 3},
		// complex numbers (conjugate is a ufunc)
		"real":  {[]string{"val"}, oneOperand("val", tensor.Real), 1},
		"imag":  {[]string{"val"}, oneOperand("val", tensor.Imag), 1},
		"conj":  {[]string{"x"}, oneOperand("x", tensor.Conj), 1},
		"angle": {[]string{"z", "deg"}, angle, 1},
		// elementwise beyond the ufuncs
		"frexp":       {[]string{"x", "out"}, twoOutputs(tensor.Frexp), 2},
		"modf":        {[]string{"x", "out"}, twoOutputs(tensor.Modf), 2},
		"isclose":     {[]string{"a", "b", "rtol", "atol", "equal_nan"}, closeness(tensor.IsClose), 2},
		"allclose":    {[]string{"a", "b", "rtol", "atol", "equal_nan"}, closeness(tensor.AllClose), 2},
		"array_equal": {[]string{"a1", "a2", "equal_nan"}, arrayEqual, 2},
		"array_equiv": {[]string{"a1", "a2"}, arrayEquiv, 2},
		"where":       {[]string{"condition", "x", "y"}, where, 3},
		"clip":        {[]string{"a", "a_min", "a_max"}, clip, 3},
		"astype":      {[]string{"a", "dtype"}, astype, 2},
		// shape
		"reshape":      {[]string{"a", "shape"}, withInts("a", "shape", func(t *tensor.Tensor, v []int, _ bool) *tensor.Tensor { return t.Reshape(v...) }), 2},
		"transpose":    {[]string{"a", "axes"}, withInts("a", "axes", func(t *tensor.Tensor, v []int, _ bool) *tensor.Tensor { return t.Transpose(v...) }), 1},
		"ravel":        {[]string{"a"}, withInts("a", "", func(t *tensor.Tensor, _ []int, _ bool) *tensor.Tensor { return t.Ravel() }), 1},
		"squeeze":      {[]string{"a", "axis"}, withInts("a", "axis", func(t *tensor.Tensor, v []int, _ bool) *tensor.Tensor { return t.Squeeze(v...) }), 1},
		"expand_dims":  {[]string{"a", "axis"}, expandDims, 2},
		"flip":         {[]string{"m", "axis"}, withInts("m", "axis", flipAxes), 1},
		"broadcast_to": {[]string{"array", "shape"}, withShape("array", (*tensor.Tensor).BroadcastTo), 2},
		"concatenate":  {[]string{"arrays", "axis"}, concatenate, 1},
		"stack":        {[]string{"arrays", "axis"}, stack, 1},
		"rechunk":      {[]string{"a", "chunks"}, rechunk, 2},
		"getitem":      {[]string{"a", "key"}, getitem, 2},
		"nonzero":      {[]string{"a", "out"}, nonzero, 1},
		"argwhere":     {[]string{"a"}, oneOf("a", tensor.ArgWhere), 1},
		"flatnonzero":  {[]string{"a"}, oneOf("a", tensor.FlatNonzero), 1},
		"compress":     {[]string{"condition", "a", "axis"}, compress, 2},
		"extract":      {[]string{"condition", "arr"}, extract, 2},
		"take":         {[]string{"a", "indices", "axis"}, take, 2},
		"sort":         {[]string{"a", "axis"}, sortFn, 1},
		"searchsorted": {[]string{"a", "v", "side"}, searchSorted, 2},
		"unique":       {[]string{"ar", "return_index", "return_inverse", "return_counts", "out"}, uniqueFn, 1},
		"isin":         {[]string{"element", "test_elements"}, isin, 2},
		"topk":         {[]string{"a", "k", "axis", "largest", "return_index"}, topK, 2},
		// linear algebra
		"matmul":    {[]string{"x1", "x2"}, pair(tensor.MatMul), 2},
		"dot":       {[]string{"a", "b"}, pair(tensor.Dot), 2},
		"outer":     {[]string{"a", "b"}, pair(tensor.Outer), 2},
		"tensordot": {[]string{"a", "b", "axes"}, tensordot, 2},
		// files on the workers
		"from_npy":  {[]string{"path", "chunks", "dtype"}, fromFile("npy"), 1},
		"from_zarr": {[]string{"path", "chunks", "dtype"}, fromFile("zarr"), 1},
		"to_npy":    {[]string{"a", "path"}, toNpy, 2},
		"to_zarr":   {[]string{"a", "path", "chunks", "compressor", "zarr_format"}, toZarr, 2},
	} {
		table[name] = f
	}
}

func valueErr(format string, a ...any) error {
	return &Error{Kind: "ValueError", Err: fmt.Errorf(format, a...)}
}

// reductions are the tensor methods behind the reduction functions.
var reductions = map[string]func(*tensor.Tensor, ...tensor.ReduceOption) *tensor.Tensor{
	"sum": (*tensor.Tensor).Sum, "prod": (*tensor.Tensor).Prod, "mean": (*tensor.Tensor).Mean,
	"min": (*tensor.Tensor).Min, "max": (*tensor.Tensor).Max, "any": (*tensor.Tensor).Any,
	"all": (*tensor.Tensor).All, "count_nonzero": (*tensor.Tensor).CountNonzero,
	"argmin": (*tensor.Tensor).ArgMin, "argmax": (*tensor.Tensor).ArgMax,
	"var": (*tensor.Tensor).Var, "std": (*tensor.Tensor).Std,
}

func reduction(fn string) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		t, opts, ddof := p.tensor("a"), p.reduceOpts(), p.int("ddof", 0)
		dt, ok := p.dtype("dtype")
		if p.err != nil {
			return nil, p.err
		}
		if axes, given := p.ints("axis"); given && len(axes) != 1 && (fn == "argmin" || fn == "argmax" || fn == "nanargmin" || fn == "nanargmax") {
			return nil, &Error{Kind: "TypeError", Err: fmt.Errorf("axis must be an integer, got %v", axes)}
		}
		if ddof != 0 {
			opts = append(opts, tensor.DDof(ddof))
		}
		if ok {
			// NumPy accumulates in dtype: the cast comes first.
			t = t.Astype(dt)
		}
		r := reductions[fn](t, opts...)
		if ok && fn != "argmin" && fn != "argmax" && r.Err() == nil && r.DType() != dt {
			// NumPy reduces in dtype and answers in it: a sum of int32 in
			// int64 cast back wraps as NumPy's int32 sum does.
			r = r.Astype(dt)
		}
		return r, nil
	}
}

// cumulatives are the tensor methods behind the cumulative functions.
var cumulatives = map[string]func(*tensor.Tensor, int) *tensor.Tensor{
	"cumsum": (*tensor.Tensor).CumSum, "cumprod": (*tensor.Tensor).CumProd,
}

func cumulative(fn string) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		dt, hasDT, err := a.dtype("dtype")
		if err != nil {
			return nil, err
		}
		if hasDT {
			if strings.HasPrefix(fn, "nan") && (t.DType().IsFloat() || t.DType().IsComplex()) {
				// NumPy replaces the NaNs before it casts to dtype (a NaN
				// cast to an integer first would be its minimum).
				ident := 0.0
				if fn == "nancumprod" {
					ident = 1
				}
				t = tensor.Where(t.IsNaN(), ident, t)
			}
			t = t.Astype(dt)
		}
		axis := 0
		if a.has("axis") {
			if axis, err = a.int("axis", 0); err != nil {
				return nil, err
			}
		} else {
			t = t.Ravel() // NumPy: axis=None works on the flattened array
		}
		r := cumulatives[fn](t, axis)
		if hasDT && r.Err() == nil && r.DType() != dt {
			r = r.Astype(dt)
		}
		return r, nil
	}
}

func fill(v float64) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		shape, opts := p.shape("shape"), p.opts(ndarray.Float64)
		if p.err != nil {
			return nil, p.err
		}
		return tensor.Full(shape, v, opts...), nil
	}
}

func full(a *args) (*tensor.Tensor, error) {
	shape, err := a.shape("shape")
	if err != nil {
		return nil, err
	}
	x, err := a.operand("fill_value")
	if err != nil {
		return nil, err
	}
	var v float64
	def := ndarray.Float64
	switch x := x.(type) {
	case bool:
		def = ndarray.Bool
		if x {
			v = 1
		}
	case int64:
		def, v = ndarray.Int64, float64(x)
	case float64:
		v = x
	default:
		return nil, typeErr("fill_value", errors.New("want a number or a bool"))
	}
	opts, err := a.opts(def)
	if err != nil {
		return nil, err
	}
	return tensor.Full(shape, v, opts...), nil
}

// arange is NumPy's with start, stop and step all given: int64 when all
// three are integers, float64 otherwise, unless dtype says.
func arange(a *args) (*tensor.Tensor, error) {
	def := ndarray.Int64
	var vals [3]float64
	for i, name := range []string{"start", "stop", "step"} {
		x, err := a.operand(name)
		if err != nil {
			return nil, err
		}
		switch x := x.(type) {
		case int64:
			vals[i] = float64(x)
		case float64:
			vals[i], def = x, ndarray.Float64
		default:
			return nil, typeErr(name, errors.New("want a number"))
		}
	}
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, valueErr("arange: cannot compute length (%s is %v)", []string{"start", "stop", "step"}[i], v)
		}
	}
	if vals[2] == 0 {
		return nil, &Error{Kind: "ZeroDivisionError", Err: errors.New("division by zero (step 0)")}
	}
	if n := math.Ceil((vals[1] - vals[0]) / vals[2]); n > math.MaxInt64/16 {
		return nil, valueErr("arange of %v elements is too large", n)
	}
	opts, err := a.opts(def)
	if err != nil {
		return nil, err
	}
	return tensor.Arange(vals[0], vals[1], vals[2], opts...), nil
}

func linspace(a *args) (*tensor.Tensor, error) {
	p := a.params()
	start, stop, num := p.float("start", 0), p.float("stop", 0), p.int("num", 50)
	if p.err != nil {
		return nil, p.err
	}
	if num < 0 {
		return nil, valueErr("Number of samples, %d, must be non-negative.", num)
	}
	opts, err := a.opts(ndarray.Float64)
	if err != nil {
		return nil, err
	}
	return tensor.Linspace(start, stop, num, opts...), nil
}

func eye(a *args) (*tensor.Tensor, error) {
	p := a.params()
	n := p.int("N", 0)
	m, k := p.int("M", n), p.int("k", 0)
	if p.err != nil {
		return nil, p.err
	}
	if err := checkShape([]int{n, m}); err != nil {
		return nil, err
	}
	opts, err := a.opts(ndarray.Float64)
	if err != nil {
		return nil, err
	}
	return tensor.Eye(n, m, k, opts...), nil
}

// random is a random tensor of a seed and a stream: the client numbers the
// tensors of one seed as the Go Generator does, so a program gets the same
// numbers from Go and from Python.
func random(a *args) (*tensor.Tensor, error) {
	var seed, stream uint64
	for _, p := range []struct {
		name string
		v    *uint64
	}{{"seed", &seed}, {"stream", &stream}} {
		if err := json.Unmarshal(a.vals[p.name], p.v); err != nil {
			return nil, typeErr(p.name, fmt.Errorf("want an integer in [0, 2**64), got %s", a.vals[p.name]))
		}
	}
	var distName string
	if err := json.Unmarshal(a.vals["dist"], &distName); err != nil {
		return nil, typeErr("dist", errors.New("want uniform, normal or randint"))
	}
	p1, err := a.float("p1", 0)
	if err != nil {
		return nil, err
	}
	p2, err := a.float("p2", 1)
	if err != nil {
		return nil, err
	}
	if _, ok := a.vals["shape"]; !ok {
		return nil, &Error{Kind: "TypeError", Err: errors.New(`missing required argument "shape"`)}
	}
	shape, err := a.shape("shape")
	if err != nil {
		return nil, err
	}
	var dist rng.Dist
	def := ndarray.Float64
	switch distName {
	case "uniform":
		dist = rng.Uniform
		if math.IsInf(p1, 0) || math.IsInf(p2, 0) || math.IsNaN(p1) || math.IsNaN(p2) {
			return nil, valueErr("uniform: bounds %v and %v must be finite", p1, p2)
		}
	case "normal":
		dist = rng.Normal
		if p2 < 0 {
			return nil, valueErr("scale < 0")
		}
	case "randint":
		dist, def = rng.Intn, ndarray.Int64
		if p2 <= p1 {
			return nil, valueErr("low >= high")
		}
		if p1 != math.Trunc(p1) || p2 != math.Trunc(p2) {
			return nil, typeErr("p1", errors.New("randint bounds are integers"))
		}
		if p1 < math.MinInt64 || p2 > math.MaxInt64 {
			return nil, valueErr("randint bounds [%v, %v) are out of bounds for int64", p1, p2)
		}
	default:
		return nil, valueErr("unknown distribution %q (uniform, normal, randint)", distName)
	}
	opts, err := a.opts(def)
	if err != nil {
		return nil, err
	}
	if dt, _, _ := a.dtype("dtype"); dist == rng.Intn && a.has("dtype") && !dt.IsInt() {
		return nil, typeErr("dtype", fmt.Errorf("randint makes integers, not %v", dt))
	}
	return tensor.RandomStream(seed, stream, dist, p1, p2, shape, opts...), nil
}

func where(a *args) (*tensor.Tensor, error) {
	x, err := a.operands("condition", "x", "y")
	if err != nil {
		return nil, err
	}
	return tensor.Where(x[0], x[1], x[2]), nil
}

func clip(a *args) (*tensor.Tensor, error) {
	x, err := a.operands("a", "a_min", "a_max")
	if err != nil {
		return nil, err
	}
	return tensor.Clip(x[0], x[1], x[2]), nil
}

func astype(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t := p.tensor("a")
	dt, ok := p.dtype("dtype")
	switch {
	case p.err != nil:
		return nil, p.err
	case !ok:
		return nil, typeErr("dtype", errors.New("missing"))
	}
	return t.Astype(dt), nil
}

// withInts is a function of a tensor (parameter tname) and an integer or a
// list of them (iname; given says whether it was).
func withInts(tname, iname string, f func(t *tensor.Tensor, v []int, given bool) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		t := p.tensor(tname)
		var v []int
		var given bool
		if iname != "" {
			v, given = p.ints(iname)
		}
		if p.err != nil {
			return nil, p.err
		}
		return f(t, v, given), nil
	}
}

// withShape is a function of a tensor and a checked shape.
func withShape(tname string, f func(t *tensor.Tensor, shape ...int) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		t, shape := p.tensor(tname), p.shape("shape")
		if p.err != nil {
			return nil, p.err
		}
		return f(t, shape...), nil
	}
}

// flipAxes is np.flip: every axis unless some are given.
func flipAxes(t *tensor.Tensor, axes []int, given bool) *tensor.Tensor {
	if !given {
		axes = make([]int, t.NDim())
		for i := range axes {
			axes[i] = i
		}
	}
	return t.Flip(axes...)
}

func expandDims(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t := p.tensor("a")
	axes, ok := p.ints("axis")
	switch {
	case p.err != nil:
		return nil, p.err
	case !ok:
		return nil, typeErr("axis", errors.New("missing"))
	}
	// NumPy places several new axes at their positions in the result.
	nd := t.NDim() + len(axes)
	norm := make([]int, len(axes))
	for i, ax := range axes {
		n, err := ndarray.NormAxis(ax, nd)
		if err != nil {
			return nil, &Error{Kind: "AxisError", Err: err}
		}
		norm[i] = n
	}
	slices.Sort(norm)
	for i := 1; i < len(norm); i++ {
		if norm[i] == norm[i-1] {
			return nil, valueErr("repeated axis")
		}
	}
	for _, ax := range norm {
		t = t.ExpandDims(ax)
	}
	return t, nil
}

func concatenate(a *args) (*tensor.Tensor, error) {
	ts, err := joinedArrays(a, "concatenate")
	if err != nil {
		return nil, err
	}
	if !a.has("axis") && a.vals["axis"] != nil {
		// axis=None: NumPy flattens every array first.
		for i := range ts {
			ts[i] = ts[i].Ravel()
		}
		return tensor.Concatenate(0, ts...), nil
	}
	axis, err := a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	return tensor.Concatenate(axis, ts...), nil
}

// joinedArrays are the arrays of a join (concatenate, stack), at least one.
func joinedArrays(a *args, what string) ([]*tensor.Tensor, error) {
	ts, err := a.tensors("arrays")
	if err == nil && len(ts) == 0 {
		err = valueErr("need at least one array to %s", what)
	}
	return ts, err
}

func stack(a *args) (*tensor.Tensor, error) {
	ts, err := joinedArrays(a, "stack")
	if err != nil {
		return nil, err
	}
	axis, err := a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	return tensor.Stack(axis, ts...), nil
}

func rechunk(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	opts, err := chunkOpts(a.vals["chunks"])
	if err != nil {
		return nil, err
	}
	return t.Rechunk(opts...), nil
}

// getitem is basic indexing; key is a list whose items are an integer,
// {"slice": [start, stop, step]} (nulls where Python has None), null
// (numpy.newaxis) or "..." (Ellipsis).
func getitem(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, idx := p.tensor("a"), p.index("key")
	if p.err != nil {
		return nil, p.err
	}
	return t.Index(idx...), nil
}

func (p *params) index(name string) []tensor.Idx {
	idx, err := p.a.index(name)
	p.keep(err)
	return idx
}

// index is the argument name as an index: a list of items, each null
// (numpy.newaxis), "...", an integer, {"slice": [start, stop, step]} or a
// reference to a boolean or integer tensor.
func (a *args) index(name string) ([]tensor.Idx, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(a.vals[name], &items); err != nil {
		return nil, &Error{Kind: "IndexError", Err: fmt.Errorf("%s: want a list of index items, got %s", name, a.vals[name])}
	}
	if len(items) > maxRank {
		return nil, &Error{Kind: "IndexError", Err: fmt.Errorf("too many indices: %d", len(items))}
	}
	idx := make([]tensor.Idx, len(items))
	for i, raw := range items {
		var s string
		var n int
		var sl struct {
			Slice []*int `json:"slice"`
		}
		switch {
		case string(raw) == "null":
			idx[i] = tensor.NewAxis()
		case json.Unmarshal(raw, &s) == nil && s == "...":
			idx[i] = tensor.Ellipsis()
		case json.Unmarshal(raw, &n) == nil:
			idx[i] = tensor.At(n)
		case bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{\"ref\"")):
			v, err := a.value(name, raw)
			if err != nil {
				return nil, err
			}
			m, ok := v.(*tensor.Tensor)
			switch {
			case ok && m.DType() == ndarray.Bool:
				idx[i] = tensor.Mask(m)
			case ok && m.DType().IsInt():
				idx[i] = tensor.Array(m)
			default:
				return nil, &Error{Kind: "IndexError", Err: fmt.Errorf("arrays used as indices must be of integer (or boolean) type; got %v", v)}
			}
		case json.Unmarshal(raw, &sl) == nil && len(sl.Slice) == 3:
			x, err := sliceIdx(sl.Slice)
			if err != nil {
				return nil, err
			}
			idx[i] = x
		default:
			return nil, &Error{Kind: "IndexError", Err: fmt.Errorf("only integers, slices (`:`), ellipsis (`...`) and numpy.newaxis (`None`) are valid indices; got %s", raw)}
		}
	}
	return idx, nil
}

// sliceIdx is the index item of {"slice": [start, stop, step]}: nulls
// where Python has None.
func sliceIdx(bounds []*int) (tensor.Idx, error) {
	x := tensor.All()
	if bounds[0] != nil {
		x = x.From(*bounds[0])
	}
	if bounds[1] != nil {
		x = x.To(*bounds[1])
	}
	if bounds[2] != nil {
		if *bounds[2] == 0 {
			return x, valueErr("slice step cannot be zero")
		}
		x = x.Step(*bounds[2])
	}
	return x, nil
}

func pair(f func(a, b *tensor.Tensor) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		names := []string{"a", "b"}
		if _, ok := a.vals["x1"]; ok {
			names = []string{"x1", "x2"}
		}
		x, err := a.tensorArgs(names...)
		if err != nil {
			return nil, err
		}
		return f(x[0], x[1]), nil
	}
}

// tensordot takes axes as NumPy does: an integer n, or a pair of axis lists
// (or of single axes).
func tensordot(a *args) (*tensor.Tensor, error) {
	ts, err := a.tensorArgs("a", "b")
	if err != nil {
		return nil, err
	}
	x, y := ts[0], ts[1]
	if !a.has("axes") {
		return tensor.TensorDotN(x, y, 2), nil
	}
	raw := a.vals["axes"]
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return tensor.TensorDotN(x, y, n), nil
	}
	var two []json.RawMessage
	if err := json.Unmarshal(raw, &two); err != nil || len(two) != 2 {
		return nil, typeErr("axes", fmt.Errorf("want an integer or a pair of axis lists, got %s", raw))
	}
	var lists [2][]int
	for i, r := range two {
		if json.Unmarshal(r, &n) == nil {
			lists[i] = []int{n}
		} else if err := json.Unmarshal(r, &lists[i]); err != nil {
			return nil, typeErr("axes", fmt.Errorf("want an integer or a pair of axis lists, got %s", raw))
		}
	}
	return tensor.TensorDot(x, y, lists[0], lists[1]), nil
}

// fromFile is a file source, opened by the program's Opener; its chunks
// follow the stored ones unless chunks says otherwise, and dtype casts.
func fromFile(kind string) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		path, err := pathArg(a)
		if err != nil {
			return nil, err
		}
		spec, err := chunkSpec(a.vals["chunks"])
		if err != nil {
			return nil, err
		}
		dt, hasDT, err := a.dtype("dtype")
		if err != nil {
			return nil, err
		}
		op, err := a.open(a.ctx, kind, path, spec)
		if err != nil {
			var ce *Error
			var fae *ops.FileAccessError
			switch {
			case errors.As(err, &ce):
				return nil, ce
			case errors.As(err, &fae):
				return nil, &Error{Kind: "PermissionError", Err: err}
			case errors.Is(err, fs.ErrNotExist):
				return nil, &Error{Kind: "FileNotFoundError", Err: err}
			}
			return nil, &Error{Kind: "OSError", Err: err}
		}
		t := tensor.New(op)
		if hasDT && t.Err() == nil && t.DType() != dt {
			t = t.Astype(dt)
		}
		return t, nil
	}
}

// pathArg is the "path" argument: a file's path.
func pathArg(a *args) (string, error) {
	var path string
	if err := json.Unmarshal(a.vals["path"], &path); err != nil || path == "" {
		return "", typeErr("path", errors.New("want a path"))
	}
	return path, nil
}

func toNpy(a *args) (*tensor.Tensor, error) {
	t, path, err := sinkArgs(a)
	if err != nil {
		return nil, err
	}
	return t.ToNpy(path), nil
}

// sinkArgs are a file sink's tensor ("a") and path.
func sinkArgs(a *args) (*tensor.Tensor, string, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, "", err
	}
	path, err := pathArg(a)
	return t, path, err
}

func toZarr(a *args) (*tensor.Tensor, error) {
	t, path, err := sinkArgs(a)
	if err != nil {
		return nil, err
	}
	opts, err := chunkOpts(a.vals["chunks"])
	if err != nil {
		return nil, err
	}
	if a.has("compressor") {
		var c string
		if err := json.Unmarshal(a.vals["compressor"], &c); err != nil {
			return nil, typeErr("compressor", errors.New("want a codec name"))
		}
		opts = append(opts, tensor.ZarrCodec(c))
	}
	if a.has("zarr_format") {
		f, err := a.int("zarr_format", 2)
		if err != nil {
			return nil, err
		}
		opts = append(opts, tensor.ZarrFormat(f))
	}
	return t.ToZarr(path, opts...), nil
}

// twoOutputs is one result of a two-result function (np.frexp, np.modf):
// out says which, 0 or 1. A client asks for each; the cluster computes
// each once.
func twoOutputs(f func(x any) (*tensor.Tensor, *tensor.Tensor)) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		x, out := p.operand("x"), p.int("out", -1)
		if p.err != nil {
			return nil, p.err
		}
		r0, r1 := f(x)
		switch out {
		case 0:
			return r0, nil
		case 1:
			return r1, nil
		}
		return nil, valueErr("out %d: 0 or 1", out)
	}
}

// closeness is isclose or allclose with NumPy's defaults.
// oneOperand is a function of one operand (a tensor or a number).
func oneOperand(param string, f func(x any) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		x, err := a.operand(param)
		if err != nil {
			return nil, err
		}
		return f(x), nil
	}
}

// angle is np.angle(z, deg=False).
func angle(a *args) (*tensor.Tensor, error) {
	p := a.params()
	z, deg := p.operand("z"), p.bool("deg")
	if p.err != nil {
		return nil, p.err
	}
	return tensor.Angle(z, deg), nil
}

func closeness(f func(a, b any, rtol, atol float64, equalNaN bool) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		x, rtol, atol, eq := p.operands("a", "b"), p.float("rtol", 1e-5), p.float("atol", 1e-8), p.bool("equal_nan")
		if p.err != nil {
			return nil, p.err
		}
		return f(x[0], x[1], rtol, atol, eq), nil
	}
}

func arrayEqual(a *args) (*tensor.Tensor, error) {
	p := a.params()
	x, eq := p.operands("a1", "a2"), p.bool("equal_nan")
	if p.err != nil {
		return nil, p.err
	}
	return tensor.ArrayEqual(x[0], x[1], eq), nil
}

func arrayEquiv(a *args) (*tensor.Tensor, error) {
	x, err := a.operands("a1", "a2")
	if err != nil {
		return nil, err
	}
	return tensor.ArrayEquiv(x[0], x[1]), nil
}

// nonzero is numpy.nonzero(a)[out].
func nonzero(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	return pick(a, tensor.Nonzero(t)...)
}

func compress(a *args) (*tensor.Tensor, error) {
	return tensorsAndAxis(a, tensor.Compress, "condition", "a")
}

// tensorsAndAxis is f of two tensors and an optional single axis
// (compress, take).
func tensorsAndAxis(a *args, f func(x, y *tensor.Tensor, axis ...int) *tensor.Tensor, names ...string) (*tensor.Tensor, error) {
	p := a.params()
	x := p.tensorArgs(names...)
	axes, ok := p.ints("axis")
	switch {
	case p.err != nil:
		return nil, p.err
	case ok && len(axes) != 1:
		return nil, typeErr("axis", fmt.Errorf("want one integer, got %v", axes))
	}
	return f(x[0], x[1], axes...), nil
}

func extract(a *args) (*tensor.Tensor, error) {
	x, err := a.tensorArgs("condition", "arr")
	if err != nil {
		return nil, err
	}
	return tensor.Extract(x[0], x[1]), nil
}

func take(a *args) (*tensor.Tensor, error) {
	return tensorsAndAxis(a, tensor.Take, "a", "indices")
}

// sortFn is numpy.sort(a, axis=-1) (clients sort the flattened tensor
// for NumPy's axis=None).
func sortFn(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t := p.tensor("a")
	if p.err == nil && a.flatAxis("axis") {
		return t.Ravel().Sort(0), nil
	}
	ax := p.int("axis", -1)
	if p.err != nil {
		return nil, p.err
	}
	return t.Sort(ax), nil
}

func searchSorted(a *args) (*tensor.Tensor, error) {
	p := a.params()
	x := p.tensorArgs("a", "v")
	side := "left"
	p.str("side", &side)
	if p.err != nil {
		return nil, p.err
	}
	return tensor.SearchSorted(x[0], x[1], side), nil
}

func isin(a *args) (*tensor.Tensor, error) {
	x, err := a.tensorArgs("element", "test_elements")
	if err != nil {
		return nil, err
	}
	return tensor.Isin(x[0], x[1]), nil
}

// topK is Mars's topk(a, k, axis=-1, largest=True, return_index=False):
// with return_index, the positions instead of the values.
func topK(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, k, ax := p.tensor("a"), p.int("k", 0), p.int("axis", -1)
	largest := true
	if a.has("largest") {
		largest = p.bool("largest")
	}
	idx := p.bool("return_index")
	switch {
	case p.err != nil:
		return nil, p.err
	case idx:
		return tensor.ArgTopK(t, k, ax, largest), nil
	}
	return tensor.TopK(t, k, ax, largest), nil
}
