package tensor

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Argsort is numpy.argsort(t, axis, kind='stable') (negative axes count
// from the end; NaNs last): the int64 positions along axis that sort
// every lane, equal elements in the order of their positions (a valid
// answer for NumPy's other kinds too), in t's chunking. A 1-D tensor in
// several chunks goes through the sort's PSRS shuffle with positions
// carried beside the keys (ops.Argsort). For numpy.argsort(t, axis=None),
// argsort t.Ravel() along 0.
func Argsort(t *Tensor, axis int) *Tensor {
	if u := t.needKnown("argsort"); u != nil {
		return u
	}
	if t.NDim() == 0 {
		return errorf("argsort: axis %d is out of bounds for array of dimension 0", axis)
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errTensor(fmt.Errorf("argsort: %w", err))
	}
	return New(ops.Argsort{Axis: ax}, t)
}

// Argsort is numpy.argsort(t, axis, kind='stable').
func (t *Tensor) Argsort(axis int) *Tensor { return Argsort(t, axis) }

// Partition is numpy.partition(t, kth, axis): every lane rearranged so
// that the element at each kth position is the one a sort puts there,
// smaller ones before it and larger ones after. NumPy allows any such
// arrangement; Phobos gives the sorted one (Sort), which is one of them
// and costs the distributed sort rather than a selection.
func Partition(t *Tensor, kth []int, axis int) *Tensor {
	if u := checkKth("partition", t, kth, axis); u != nil {
		return u
	}
	return Sort(t, axis)
}

// Argpartition is numpy.argpartition(t, kth, axis): the positions that
// partition every lane, here those of the stable sort (Argsort).
func Argpartition(t *Tensor, kth []int, axis int) *Tensor {
	if u := checkKth("argpartition", t, kth, axis); u != nil {
		return u
	}
	return Argsort(t, axis)
}

// checkKth refuses kth positions out of the axis' bounds as NumPy does
// (negative ones count from the end); nil when they are fine.
func checkKth(name string, t *Tensor, kth []int, axis int) *Tensor {
	if u := t.needKnown(name); u != nil {
		return u
	}
	if t.NDim() == 0 {
		return errorf("%s: axis %d is out of bounds for array of dimension 0", name, axis)
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errTensor(fmt.Errorf("%s: %w", name, err))
	}
	n := t.Shape()[ax]
	for _, k := range kth {
		if k < -n || k >= n {
			return errorf("%s: kth(=%d) out of bounds (%d)", name, k, n)
		}
	}
	return nil
}
