package tensor

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Sort is numpy.sort(t, axis) (negative axes count from the end; NaNs
// last): a new tensor with every lane along axis in ascending order, in
// t's chunking. A 1-D tensor in several chunks is sorted by PSRS over a
// shuffle between workers (ops.Sort); along an axis of a tensor of more
// dimensions, that axis is made whole and each chunk sorts its lanes. For
// numpy.sort(t, axis=None), sort t.Ravel() along 0.
func Sort(t *Tensor, axis int) *Tensor {
	if u := t.needKnown("sort"); u != nil {
		return u
	}
	if t.NDim() == 0 {
		return errorf("sort: axis %d is out of bounds for array of dimension 0", axis)
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errTensor(fmt.Errorf("sort: %w", err))
	}
	return New(ops.Sort{Axis: ax}, t)
}

// Sort is numpy.sort(t, axis).
func (t *Tensor) Sort(axis int) *Tensor { return Sort(t, axis) }
