package calls

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/phobos-tensor/phobos/tensor"
)

// Statistics: the NaN-aware reductions, ptp, average, cov, corrcoef,
// bincount, digitize and histograms.
func init() {
	for fn, f := range map[string]func(*tensor.Tensor, ...tensor.ReduceOption) *tensor.Tensor{
		"nansum": (*tensor.Tensor).NanSum, "nanprod": (*tensor.Tensor).NanProd,
		"nanmean": (*tensor.Tensor).NanMean, "nanvar": (*tensor.Tensor).NanVar,
		"nanstd": (*tensor.Tensor).NanStd, "nanmin": (*tensor.Tensor).NanMin,
		"nanmax": (*tensor.Tensor).NanMax, "nanargmin": (*tensor.Tensor).NanArgMin,
		"nanargmax": (*tensor.Tensor).NanArgMax, "ptp": (*tensor.Tensor).Ptp,
	} {
		reductions[fn] = f
	}
	for _, fn := range []string{"nansum", "nanprod", "nanmean"} {
		table[fn] = function{[]string{"a", "axis", "dtype", "keepdims"}, reduction(fn), 1}
	}
	for _, fn := range []string{"nanmin", "nanmax", "nanargmin", "nanargmax", "ptp"} {
		table[fn] = function{[]string{"a", "axis", "keepdims"}, reduction(fn), 1}
	}
	for _, fn := range []string{"nanvar", "nanstd"} {
		table[fn] = function{[]string{"a", "axis", "dtype", "ddof", "keepdims"}, reduction(fn), 1}
	}
	cumulatives["nancumsum"] = (*tensor.Tensor).NanCumSum
	cumulatives["nancumprod"] = (*tensor.Tensor).NanCumProd
	for _, fn := range []string{"nancumsum", "nancumprod"} {
		table[fn] = function{[]string{"a", "axis", "dtype"}, cumulative(fn), 1}
	}
	for name, f := range map[string]function{
		"average":             {[]string{"a", "axis", "weights", "returned", "keepdims", "out"}, average, 1},
		"cov":                 {[]string{"m", "y", "rowvar", "bias", "ddof", "fweights", "aweights", "dtype"}, covariance(tensor.Cov), 1},
		"corrcoef":            {[]string{"x", "y", "rowvar", "bias", "ddof", "dtype"}, covariance(tensor.Corrcoef), 1},
		"bincount":            {[]string{"x", "weights", "minlength"}, bincount, 1},
		"digitize":            {[]string{"x", "bins", "right"}, digitize, 2},
		"histogram":           {[]string{"a", "bins", "range", "weights", "density", "out"}, histogram(false), 1},
		"histogram_bin_edges": {[]string{"a", "bins", "range", "weights"}, histogram(true), 1},
		// Not NumPy's: the number of bins of a named rule, which clients
		// compute first (the shape of a histogram must be known).
		"histogram_bin_count": {[]string{"a", "bins", "range"}, histogramBinCount, 2},
	} {
		table[name] = f
	}
}

func average(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, w, opts := p.tensor("a"), p.optTensor("weights"), p.reduceOpts()
	if p.err != nil {
		return nil, p.err
	}
	if w != nil && w.Err() == nil && t.Err() == nil && !sameShape(w.Shape(), t.Shape()) {
		// NumPy raises TypeError for these two (ValueError for a length
		// that does not fit the axis, which tensor.Average reports).
		if axes, ok, _ := a.ints("axis"); !ok {
			return nil, &Error{Kind: "TypeError", Err: errors.New("Axis must be specified when shapes of a and weights differ.")}
		} else if w.NDim() != 1 && len(axes) == 1 {
			return nil, &Error{Kind: "TypeError", Err: errors.New("1D weights expected when shapes of a and weights differ.")}
		}
	}
	returned, err := a.bool("returned")
	if err != nil {
		return nil, err
	}
	avg, scl := tensor.Average(t, w, opts...)
	if !returned {
		return pick(a, avg)
	}
	return pick(a, avg, scl)
}

func sameShape(x, y []int) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func covariance(f func(*tensor.Tensor, ...tensor.CovOption) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		first := "m"
		if _, ok := a.vals["x"]; ok {
			first = "x"
		}
		m, err := a.tensor(first)
		if err != nil {
			return nil, err
		}
		var opts []tensor.CovOption
		p := a.params()
		y := p.optTensor("y")
		if p.err != nil {
			return nil, p.err
		}
		if y != nil {
			opts = append(opts, tensor.CovY(y))
		}
		if a.has("rowvar") {
			rowvar, err := a.bool("rowvar")
			if err != nil {
				return nil, err
			}
			if !rowvar {
				opts = append(opts, tensor.ColVar())
			}
		}
		bias, err := a.bool("bias")
		if err != nil {
			return nil, err
		}
		if bias {
			opts = append(opts, tensor.Bias())
		}
		if a.has("ddof") {
			ddof, err := a.int("ddof", 0)
			if err != nil {
				return nil, err
			}
			opts = append(opts, tensor.CovDDof(ddof))
		}
		for _, w := range []struct {
			name string
			opt  func(*tensor.Tensor) tensor.CovOption
		}{{"fweights", tensor.FWeights}, {"aweights", tensor.AWeights}} {
			if _, ok := a.vals[w.name]; !ok {
				continue
			}
			t := p.optTensor(w.name)
			if p.err != nil {
				return nil, p.err
			}
			if t != nil {
				opts = append(opts, w.opt(t))
			}
		}
		dt, ok, err := a.dtype("dtype")
		if err != nil {
			return nil, err
		}
		if ok {
			opts = append(opts, tensor.CovDType(dt))
		}
		return f(m, opts...), nil
	}
}

func bincount(a *args) (*tensor.Tensor, error) {
	p := a.params()
	x, w, n := p.tensor("x"), p.optTensor("weights"), p.int("minlength", 0)
	if p.err != nil {
		return nil, p.err
	}
	if n < 0 {
		return nil, valueErr("minlength must be non-negative, got %d", n)
	}
	if x.Err() == nil && x.DType().IsFloat() {
		return nil, &Error{Kind: "TypeError", Err: fmt.Errorf("Cannot cast array data from dtype('%v') to dtype('int64') according to the rule 'safe'", x.DType())}
	}
	return tensor.Bincount(x, w, n), nil
}

func digitize(a *args) (*tensor.Tensor, error) {
	p := a.params()
	ts, right := p.tensorArgs("x", "bins"), p.bool("right")
	if p.err != nil {
		return nil, p.err
	}
	return tensor.Digitize(ts[0], ts[1], right), nil
}

// histBins reads bins: a count, a rule's name or a tensor of edges.
func histBins(a *args) (tensor.Bins, error) {
	if !a.has("bins") {
		return tensor.BinCount(10), nil
	}
	raw := bytes.TrimSpace(a.vals["bins"])
	switch raw[0] {
	case '"':
		var s string
		if err := jsonString(a, "bins", &s); err != nil {
			return tensor.Bins{}, err
		}
		return tensor.BinRule(s), nil
	case '{':
		t, err := a.tensor("bins")
		if err != nil {
			return tensor.Bins{}, err
		}
		return tensor.BinEdges(t), nil
	case '[':
		var edges []float64
		if err := json.Unmarshal(raw, &edges); err != nil {
			return tensor.Bins{}, typeErr("bins", fmt.Errorf("want a count, a rule's name, a tensor or a list of edges: %s", raw))
		}
		return tensor.BinEdges(tensor.FromSlice(edges, []int{len(edges)})), nil
	}
	n, err := a.int("bins", 10)
	if err != nil {
		return tensor.Bins{}, err
	}
	return tensor.BinCount(n), nil
}

// histOpts reads range and weights (and density when the function has it).
func histOpts(a *args) ([]tensor.HistOption, error) {
	var opts []tensor.HistOption
	if a.has("range") {
		var r []float64
		if err := json.Unmarshal(a.vals["range"], &r); err != nil || len(r) != 2 {
			return nil, valueErr("range: want a pair (min, max), got %s", a.vals["range"])
		}
		opts = append(opts, tensor.HistRange(r[0], r[1]))
	}
	p := a.params()
	if w := p.optTensor("weights"); w != nil {
		opts = append(opts, tensor.HistWeights(w))
	}
	if p.bool("density") {
		opts = append(opts, tensor.HistDensity())
	}
	return opts, p.err
}

// histogram is histogram (out 0: the counts, 1: the edges) or, with
// edgesOnly, histogram_bin_edges.
func histogram(edgesOnly bool) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		bins, err := histBins(a)
		if err != nil {
			return nil, err
		}
		opts, err := histOpts(a)
		if err != nil {
			return nil, err
		}
		if edgesOnly {
			return tensor.HistogramBinEdges(t, bins, opts...), nil
		}
		h, e := tensor.Histogram(t, bins, opts...)
		return pick(a, h, e)
	}
}

func histogramBinCount(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	var rule string
	if err := jsonString(a, "bins", &rule); err != nil {
		return nil, err
	}
	opts, err := histOpts(a)
	if err != nil {
		return nil, err
	}
	return tensor.HistogramBinCount(t, rule, opts...), nil
}
