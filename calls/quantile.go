package calls

import (
	"encoding/json"
	"errors"

	"github.com/phobos-tensor/phobos/tensor"
)

// Medians and quantiles by NumPy's names and parameters. out is refused
// (tensors are immutable); overwrite_input is accepted and changes nothing,
// as inputs are never overwritten; interpolation, NumPy's old name of
// method, is refused with a pointer to method.
func init() {
	median := []string{"a", "axis", "out", "overwrite_input", "keepdims"}
	quant := []string{"a", "q", "axis", "out", "overwrite_input", "method", "keepdims", "interpolation"}
	for name, f := range map[string]function{
		"median":        {median, medianCall((*tensor.Tensor).Median), 1},
		"nanmedian":     {median, medianCall((*tensor.Tensor).NanMedian), 1},
		"quantile":      {quant, quantileCall(tensor.Quantile[float64], tensor.Quantile[[]float64]), 2},
		"percentile":    {quant, quantileCall(tensor.Percentile[float64], tensor.Percentile[[]float64]), 2},
		"nanquantile":   {quant, quantileCall(tensor.NanQuantile[float64], tensor.NanQuantile[[]float64]), 2},
		"nanpercentile": {quant, quantileCall(tensor.NanPercentile[float64], tensor.NanPercentile[[]float64]), 2},
	} {
		table[name] = f
	}
}

// quantileOpts are the axis and keepdims options, after refusing out.
func quantileOpts(a *args) ([]tensor.ReduceOption, error) {
	if a.has("out") {
		return nil, typeErr("out", errors.New("tensors are immutable; use the result"))
	}
	p := a.params()
	p.bool("overwrite_input")
	opts := p.reduceOpts()
	return opts, p.err
}

func medianCall(f func(*tensor.Tensor, ...tensor.ReduceOption) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		opts, err := quantileOpts(a)
		if err != nil {
			return nil, err
		}
		return f(t, opts...), nil
	}
}

type quantileFunc[Q float64 | []float64] func(*tensor.Tensor, Q, string, ...tensor.ReduceOption) *tensor.Tensor

func quantileCall(one quantileFunc[float64], many quantileFunc[[]float64]) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		if a.has("interpolation") {
			return nil, typeErr("interpolation", errors.New("renamed method= in NumPy 1.22; pass method instead"))
		}
		opts, err := quantileOpts(a)
		if err != nil {
			return nil, err
		}
		method := ""
		if a.has("method") {
			if err := jsonString(a, "method", &method); err != nil {
				return nil, err
			}
		}
		raw := a.vals["q"]
		var q float64
		if json.Unmarshal(raw, &q) == nil {
			return one(t, q, method, opts...), nil
		}
		var qs []float64
		if err := json.Unmarshal(raw, &qs); err != nil {
			return nil, typeErr("q", errors.New("want a number or a list of numbers in [0, 1] (percentile: [0, 100])"))
		}
		return many(t, qs, method, opts...), nil
	}
}
