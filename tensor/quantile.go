package tensor

import (
	"math"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Quantiles are exact, as NumPy 1.24 computes them: a lane split over
// chunks is radix-selected across them, never gathered, and never merged
// from per-chunk estimates (see ops.Quantile).

// Median is numpy.median over all axes, or those given by Axis (KeepDims
// keeps them with length 1): the middle element, or the mean of the two
// middle ones; float64, float32 for float32 data; NaN where a lane holds a
// NaN.
func (t *Tensor) Median(opts ...ReduceOption) *Tensor {
	return t.quantile(ops.Quantile{Median: true}, "median", opts)
}

// NanMedian is numpy.nanmedian: Median ignoring NaNs (NaN for a lane of
// NaNs only).
func (t *Tensor) NanMedian(opts ...ReduceOption) *Tensor {
	return t.quantile(ops.Quantile{Median: true, IgnoreNaN: true}, "nanmedian", opts)
}

// Quantile is numpy.quantile(t, q, method=method): q is one quantile in [0, 1]
// or a slice of them, whose length then leads the result's shape. method is
// one of NumPy's thirteen (ndarray.QuantileMethods; "" is linear). Methods
// that pick an element (lower, higher, nearest, inverted_cdf,
// closest_observation) keep the dtype; the others give float64.
func Quantile[Q float64 | []float64](t *Tensor, q Q, method string, opts ...ReduceOption) *Tensor {
	return quantileOf(t, q, method, "quantile", 1, false, opts)
}

// Percentile is numpy.percentile: Quantile of q/100, q in [0, 100].
func Percentile[Q float64 | []float64](t *Tensor, q Q, method string, opts ...ReduceOption) *Tensor {
	return quantileOf(t, q, method, "percentile", 100, false, opts)
}

// NanQuantile is numpy.nanquantile: Quantile ignoring NaNs.
func NanQuantile[Q float64 | []float64](t *Tensor, q Q, method string, opts ...ReduceOption) *Tensor {
	return quantileOf(t, q, method, "nanquantile", 1, true, opts)
}

// NanPercentile is numpy.nanpercentile: Percentile ignoring NaNs.
func NanPercentile[Q float64 | []float64](t *Tensor, q Q, method string, opts ...ReduceOption) *Tensor {
	return quantileOf(t, q, method, "nanpercentile", 100, true, opts)
}

func quantileOf[Q float64 | []float64](t *Tensor, q Q, method, name string, scale float64, nan bool, opts []ReduceOption) *Tensor {
	op := ops.Quantile{Method: method, IgnoreNaN: nan}
	switch v := any(q).(type) {
	case float64:
		op.Q, op.QScalar = []float64{v}, true
	case []float64:
		op.Q = append([]float64(nil), v...)
	}
	if len(op.Q) == 0 {
		return errorf("%s: no q given", name)
	}
	for i, x := range op.Q {
		if !(x >= 0 && x <= scale) {
			what := "Quantiles"
			if scale != 1 {
				what = "Percentiles"
			}
			return errorf("%s: q = %v: %s must be in the range [0, %v]", name, x, what, scale)
		}
		// NumPy divides by 100 (true_divide), so do the same rounding.
		op.Q[i] = x / scale
	}
	if method != "" && !slices.Contains(ndarray.QuantileMethods, method) {
		return errorf("%s: method %q is not one of %v", name, method, ndarray.QuantileMethods)
	}
	return t.quantile(op, name, opts)
}

func (t *Tensor) quantile(op ops.Quantile, name string, opts []ReduceOption) *Tensor {
	if t == nil {
		return errorf("%s: nil tensor", name)
	}
	if t.err != nil {
		return t
	}
	if t.meta.DType.IsComplex() {
		// Quantiles order the values; complex ones have no order to
		// interpolate in (ops/dtypes.go).
		return errTensor(&ops.DTypeError{Op: name, DType: t.meta.DType})
	}
	if op.Median && t.meta.DType == ndarray.Float16 {
		// NumPy's median of float16 is a mean of the middle elements,
		// accumulated in float32 and rounded once to float16: the median
		// of the float32 values, rounded.
		return t.Astype(ndarray.Float32).quantile(op, name, opts).Astype(ndarray.Float16)
	}
	var c reduceConfig
	for _, o := range opts {
		o(&c)
	}
	op.KeepDims, op.FanIn = c.keepdims, c.fanIn
	x := t
	switch {
	case t.NDim() == 0 && !c.hasAxes:
		// A 0-d tensor is its one element's lane; keepdims keeps no axes.
		x = t.Reshape(1)
		op.Axes, op.KeepDims = []int{0}, false
	case c.hasAxes:
		axes, err := normAxes(c.axes, t.NDim())
		if err != nil {
			return errorf("%s: %w", name, err)
		}
		if len(axes) == 0 {
			return errorf("%s: axis=() reduces nothing; give at least one axis or none", name)
		}
		op.Axes = axes
	default:
		op.Axes = make([]int, t.NDim())
		for i := range op.Axes {
			op.Axes[i] = i
		}
	}
	if op.IgnoreNaN && !op.Median && x.Size() == 0 {
		// NumPy's nanquantile of an empty array is its nanmean along the
		// axes, NaN, whatever q is (a q of several values adds no axis).
		shape := withOnes(x.meta.Shape, op.Axes)
		if !op.KeepDims {
			shape = shape[:0]
			for i, d := range x.meta.Shape {
				if !slices.Contains(op.Axes, i) {
					shape = append(shape, d)
				}
			}
		}
		return Full(shape, math.NaN(), WithDType(ndarray.FloatFor(x.meta.DType)))
	}
	if op.Median {
		n := 1
		for _, a := range op.Axes {
			n *= x.meta.Shape[a]
		}
		if n == 0 {
			// NumPy: the mean of nothing, NaN (with a warning). Infer
			// refuses empty lanes, so it sees lanes of one.
			m, err := op.Infer([]ops.Meta{{Shape: withOnes(x.meta.Shape, op.Axes), DType: x.meta.DType}})
			if err != nil {
				return errTensor(err)
			}
			return Full(m.Shape, math.NaN(), WithDType(m.DType))
		}
	}
	// Infer's errors name the op (median, quantile, ...) already.
	return New(op, x)
}

// withOnes is shape with the given axes set to 1.
func withOnes(shape, axes []int) []int {
	s := append([]int(nil), shape...)
	for _, a := range axes {
		s[a] = 1
	}
	return s
}
