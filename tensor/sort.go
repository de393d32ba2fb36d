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

// SearchSorted is numpy.searchsorted(a, v, side): for each element of v,
// the index at which it would go into the sorted 1-D a, before equal
// elements (side "left", or "") or after them ("right"). v is cast to a's
// dtype if they differ, as NumPy compares in a common type.
func SearchSorted(a, v *Tensor, side string) *Tensor {
	for _, t := range []*Tensor{a, v} {
		if u := t.needKnown("searchsorted"); u != nil {
			return u
		}
	}
	var right bool
	switch side {
	case "", "left":
	case "right":
		right = true
	default:
		return errorf("searchsorted: side must be 'left' or 'right' (got %q)", side)
	}
	dt := ndarray.Promote(a.DType(), v.DType())
	return New(ops.SearchSorted{Right: right}, a.Astype(dt), v.Astype(dt))
}

// Unique is numpy.unique(t): the sorted distinct values of t (flattened),
// NaNs as one value (NumPy 1.24's default equal_nan). Its length is known only once
// computed (an axis of unknown length): for dtypes with an order key, read
// from t's unique table (UniqueAll); otherwise t is sorted (PSRS) and each
// element kept where it differs from the one before.
func Unique(t *Tensor) *Tensor {
	if u := t.needKnown("unique"); u != nil {
		return u
	}
	if x := t.Ravel(); x.Size() > 0 && ndarray.UniqueKinds(x.DType()) {
		return uniqueValues(x)
	}
	s := t.Ravel().Sort(0)
	if s.Size() == 0 {
		return s
	}
	return s.Index(Mask(uniqueFlags(s)))
}

// Isin is numpy.isin(element, testElements): whether each element of
// element is among testElements, in element's shape. testElements is
// sorted (PSRS) and each element looked up in it (SearchSorted, Take), so
// neither is gathered. NaN is never in anything, as NumPy has it.
func Isin(element, testElements *Tensor) *Tensor {
	for _, t := range []*Tensor{element, testElements} {
		if u := t.needKnown("isin"); u != nil {
			return u
		}
	}
	dt := ndarray.Promote(element.DType(), testElements.DType())
	e, s := element.Astype(dt), testElements.Ravel().Astype(dt).Sort(0)
	n := s.Size()
	if n == 0 {
		return Full(element.Shape(), 0, WithDType(ndarray.Bool))
	}
	at := SearchSorted(s, e, "left").Clip(0, n-1)
	return Take(s, at).Equal(e)
}

// TopK is Mars's topk(t, k, axis): the k largest elements of every lane
// along axis (the k smallest with largest false), best first, ties in
// order of position; NaNs count as the largest values, as in Sort. It is a
// reduction (each chunk's best k merged up a tree), never a full sort.
func TopK(t *Tensor, k, axis int, largest bool) *Tensor { return topK(t, k, axis, largest, false) }

// ArgTopK is TopK's positions along axis (int64).
func ArgTopK(t *Tensor, k, axis int, largest bool) *Tensor { return topK(t, k, axis, largest, true) }

func topK(t *Tensor, k, axis int, largest, indices bool) *Tensor {
	if u := t.needKnown("topk"); u != nil {
		return u
	}
	if t.NDim() == 0 {
		return errorf("topk: a 0-d tensor has no axis")
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errTensor(fmt.Errorf("topk: %w", err))
	}
	op := ops.TopK{K: k, Largest: largest, Indices: indices}
	if ax == t.NDim()-1 {
		return New(op, t)
	}
	return New(op, t.MoveAxis([]int{ax}, []int{-1})).MoveAxis([]int{-1}, []int{ax})
}
