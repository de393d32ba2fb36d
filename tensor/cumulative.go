package tensor

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// CumSum is numpy.cumsum along axis (negative counts from the end): bool and
// integer tensors accumulate in int64, floats keep their type. A 0-d tensor
// gives a 1-element 1-D result, as in NumPy.
func (t *Tensor) CumSum(axis int) *Tensor { return t.cumulative("cumsum", axis) }

// CumProd is numpy.cumprod along axis, with CumSum's dtypes.
func (t *Tensor) CumProd(axis int) *Tensor { return t.cumulative("cumprod", axis) }

func (t *Tensor) cumulative(fn string, axis int) *Tensor {
	if t == nil {
		return errorf("%s: nil tensor", fn)
	}
	if t.err != nil {
		return t
	}
	ax, err := ndarray.NormAxis(axis, max(t.NDim(), 1))
	if err != nil {
		return errorf("%s of tensor of shape %v: %w", fn, t.meta.Shape, err)
	}
	return New(ops.Cumulative{Func: fn, Axis: ax}, t)
}
