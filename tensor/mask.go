package tensor

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Selections by data: their length is known only once computed, so the
// tensors they return have an axis of unknown length (Shape reports -1
// there; ops.Meta.Unknown). Elementwise ops between tensors of the same
// selection and reductions over that axis work on them directly; anything
// else needs them executed first (the error says so).

// asBool is t as a bool tensor (nonzero is true), as NumPy reads a
// condition.
func asBool(t *Tensor) *Tensor {
	if t.err != nil || t.meta.DType == ndarray.Bool {
		return t
	}
	return t.NotEqual(0)
}

// ArgWhere is numpy.argwhere(t): the (n, t.NDim()) int64 coordinates of
// t's nonzero elements in C order.
func ArgWhere(t *Tensor) *Tensor {
	if t != nil && t.err == nil && t.NDim() == 0 {
		// NumPy's is (n, 0), n in {0, 1}: rows of no bytes, whose count a
		// cluster cannot tell from the bytes its workers report.
		return errorf("argwhere of a 0-d tensor (an (n, 0) result) is not supported: use argwhere(atleast_1d(t)), which has its one column")
	}
	return New(ops.ArgWhere{Column: -1}, t)
}

// ArgWhere is numpy.argwhere(t).
func (t *Tensor) ArgWhere() *Tensor { return ArgWhere(t) }

// Nonzero is numpy.nonzero(t): for each axis of t, the int64 indices along
// it of t's nonzero elements, in C order.
func Nonzero(t *Tensor) []*Tensor {
	if u := t.needKnown("nonzero"); u != nil {
		return []*Tensor{u}
	}
	if t.NDim() == 0 {
		return []*Tensor{errorf("nonzero: calling nonzero on 0d arrays is not allowed; use atleast_1d(t).Nonzero()")}
	}
	out := make([]*Tensor, t.NDim())
	for ax := range out {
		out[ax] = New(ops.ArgWhere{Column: ax}, t)
	}
	return out
}

// Nonzero is numpy.nonzero(t).
func (t *Tensor) Nonzero() []*Tensor { return Nonzero(t) }

// FlatNonzero is numpy.flatnonzero(t): the indices of t's nonzero elements
// in the flattened t.
func FlatNonzero(t *Tensor) *Tensor {
	if u := t.needKnown("flatnonzero"); u != nil {
		return u
	}
	return New(ops.ArgWhere{Column: 0}, t.Ravel())
}

// Compress is numpy.compress(condition, a, axis): the slices of a along
// axis where the 1-D condition is nonzero; without axis, of the flattened
// a. A condition shorter than the axis leaves out the slices beyond it.
func Compress(condition, a *Tensor, axis ...int) *Tensor {
	for _, t := range []*Tensor{condition, a} {
		if u := t.needKnown("compress"); u != nil {
			return u
		}
	}
	if condition.NDim() != 1 {
		return errorf("compress: condition must be a 1-d array, got %d dimensions", condition.NDim())
	}
	if len(axis) > 1 {
		return errorf("compress: at most one axis, got %v", axis)
	}
	ax := 0
	if len(axis) == 0 {
		a = a.Ravel()
	} else {
		var err error
		if ax, err = ndarray.NormAxis(axis[0], a.NDim()); err != nil {
			return errTensor(fmt.Errorf("compress: %w", err))
		}
	}
	n, c := a.Shape()[ax], condition.Shape()[0]
	if c > n {
		return errorf("compress: index %d is out of bounds for axis %d with size %d", n, ax, n)
	}
	idx := make([]Idx, ax+1)
	idx[ax] = Mask(asBool(condition))
	if c < n {
		cut := make([]Idx, ax+1)
		cut[ax] = To(c)
		a = a.Index(cut...)
	}
	return a.Index(idx...)
}

// Extract is numpy.extract(condition, arr): the elements of the flattened
// arr where the flattened condition is nonzero (condition may be shorter).
func Extract(condition, arr *Tensor) *Tensor {
	for _, t := range []*Tensor{condition, arr} {
		if u := t.needKnown("extract"); u != nil {
			return u
		}
	}
	return Compress(condition.Ravel(), arr.Ravel())
}

// Take is numpy.take(x, indices, axis): the sub-arrays of x along axis at
// the positions indices (an integer tensor; tensor.FromSlice for a Go
// slice) holds, negative counting from the end, in the shape
// x.shape[:axis] + indices.shape + x.shape[axis+1:]; without axis, of the
// flattened x. An index out of range fails Execute (NumPy's IndexError).
func Take(x, indices *Tensor, axis ...int) *Tensor {
	if u := x.needKnown("take"); u != nil {
		return u
	}
	if indices == nil {
		return errorf("take: nil indices")
	}
	if len(axis) > 1 {
		return errorf("take: at most one axis, got %v", axis)
	}
	ax := 0
	if len(axis) == 0 {
		x = x.Ravel()
	} else {
		var err error
		if ax, err = ndarray.NormAxis(axis[0], x.NDim()); err != nil {
			return errTensor(fmt.Errorf("take: %w", err))
		}
	}
	return New(ops.Take{Axis: ax}, x, indices)
}

// Take is numpy.take(t, indices, axis).
func (t *Tensor) Take(indices *Tensor, axis ...int) *Tensor { return Take(t, indices, axis...) }
