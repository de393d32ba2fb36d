package tensor

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// checkPair returns an error tensor if a or b is nil or in error, so
// functions that read operand shapes before New can stop early.
func checkPair(name string, a, b *Tensor) *Tensor {
	for i, t := range []*Tensor{a, b} {
		if t == nil {
			return errorf("%s: operand %d is nil", name, i)
		}
		if t.err != nil {
			return errTensor(t.err)
		}
	}
	return nil
}

// MatMul is numpy.matmul (a @ b): matrix products over the last two axes,
// broadcasting leading batch axes; a 1-D operand is a vector whose added
// axis is dropped from the result. 0-d operands are an error, as in NumPy.
func MatMul(a, b *Tensor) *Tensor {
	if g := gramOf(a, b); g != nil {
		return g
	}
	return New(ops.MatMul{}, a, b)
}

// gramOf is a @ b as a Gram product (ops.Gram: SYRK, half the work of a
// product, with a centring folded in) when it is one: x.T @ x, x @ x.T
// (the Gram of the view x.T) or (y - s).T @ (y - s) for a row s broadcast
// over y's rows, each also with its columns scaled by a row (standardised
// columns: ((y - s) / d).T @ ((y - s) / d)), all of one float dtype; nil
// otherwise.
func gramOf(a, b *Tensor) *Tensor {
	if a == nil || b == nil || a.err != nil || b.err != nil || a.NDim() != 2 || b.NDim() != 2 || !a.meta.DType.IsFloat() {
		return nil
	}
	transposeOf := func(t *Tensor) *Tensor {
		if tr, ok := t.op.(ops.Transpose); ok && len(t.inputs) == 1 && slices.Equal(tr.Perm, []int{1, 0}) {
			return t.inputs[0]
		}
		return nil
	}
	var x *Tensor
	switch {
	case transposeOf(a) == b:
		x = b
	case transposeOf(b) == a:
		return New(ops.Gram{}, b)
	default:
		return nil
	}
	n := x.meta.Shape[1]
	// row: t is a row of x's n columns, broadcast over its rows.
	row := func(t *Tensor) bool {
		return (t.NDim() == 1 || (t.NDim() == 2 && t.meta.Shape[0] == 1)) && t.Size() == n && t.meta.Unknown == 0 && t.meta.DType == x.meta.DType
	}
	binOf := func(t *Tensor, name string) (a, b *Tensor, ok bool) {
		ew, isEw := t.op.(ops.Elementwise)
		if !isEw || ew.Kind != "binary" || ew.Name != name || len(ew.Consts) != 0 || len(t.inputs) != 2 {
			return nil, nil, false
		}
		return t.inputs[0], t.inputs[1], true
	}
	// Columns scaled by a row, (x * c) or (x / c) with x as below: the
	// Gram of x, each element (i, j) then scaled by c_i c_j, so the
	// scaled copy of x (a standardised matrix) is never made.
	var scale *Tensor
	divide := false
	if a, c, ok := binOf(x, "true_divide"); ok && row(c) && slices.Equal(a.meta.Shape, x.meta.Shape) && a.meta.DType == x.meta.DType {
		x, scale, divide = a, c, true
	} else if a, c, ok := binOf(x, "multiply"); ok {
		if row(a) {
			a, c = c, a
		}
		if row(c) && slices.Equal(a.meta.Shape, x.meta.Shape) && a.meta.DType == x.meta.DType {
			x, scale = a, c
		}
	}
	g := New(ops.Gram{}, x)
	if y, s, ok := binOf(x, "subtract"); ok && slices.Equal(y.meta.Shape, x.meta.Shape) && row(s) && y.meta.DType == x.meta.DType {
		g = New(ops.Gram{}, y, s.Reshape(n))
	}
	if scale == nil {
		return g
	}
	outer := scale.Reshape(n, 1).Mul(scale.Reshape(1, n))
	if divide {
		return g.Div(outer)
	}
	return g.Mul(outer)
}

// MatMul is t @ b.
func (t *Tensor) MatMul(b *Tensor) *Tensor { return MatMul(t, b) }

// Dot is numpy.dot: a product with a 0-d operand is elementwise, 1-D and
// 2-D operands multiply as vectors and matrices, and otherwise it sums over
// a's last axis and b's second-to-last (its last if b is 1-D).
func Dot(a, b *Tensor) *Tensor {
	if e := checkPair("dot", a, b); e != nil {
		return e
	}
	switch {
	case a.NDim() == 0 || b.NDim() == 0:
		// NumPy's dot types a 0-d operand (a Python number too) by its
		// dtype, not by value as multiply does.
		dt := ndarray.Promote(a.DType(), b.DType())
		return Mul(a.Astype(dt), b.Astype(dt))
	case a.NDim() <= 2 && b.NDim() <= 2:
		return MatMul(a, b) // same as dot here, and reads strided blocks in place
	case b.NDim() == 1:
		return TensorDot(a, b, []int{-1}, []int{0})
	}
	return TensorDot(a, b, []int{-1}, []int{-2})
}

// Dot is numpy.dot(t, b).
func (t *Tensor) Dot(b *Tensor) *Tensor { return Dot(t, b) }

// TensorDot is numpy.tensordot(a, b, axes=(aAxes, bAxes)): the products
// summed over each pair of axes (aAxes[i], bAxes[i]), which must have equal
// lengths; the result has a's remaining axes, then b's. Negative axes count
// from the end.
func TensorDot(a, b *Tensor, aAxes, bAxes []int) *Tensor {
	if e := checkPair("tensordot", a, b); e != nil {
		return e
	}
	if len(aAxes) != len(bAxes) {
		return errorf("tensordot of shapes %v and %v: %d axes %v of a but %d axes %v of b",
			a.meta.Shape, b.meta.Shape, len(aAxes), aAxes, len(bAxes), bAxes)
	}
	norm := func(axes []int, t *Tensor) ([]int, error) {
		out := make([]int, len(axes))
		for i, ax := range axes {
			n, err := ndarray.NormAxis(ax, t.NDim())
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	na, err := norm(aAxes, a)
	if err != nil {
		return errorf("tensordot of shapes %v and %v with axes %v and %v: a: %w", a.meta.Shape, b.meta.Shape, aAxes, bAxes, err)
	}
	nb, err := norm(bAxes, b)
	if err != nil {
		return errorf("tensordot of shapes %v and %v with axes %v and %v: b: %w", a.meta.Shape, b.meta.Shape, aAxes, bAxes, err)
	}
	return New(ops.TensorDot{AAxes: na, BAxes: nb}, a, b)
}

// TensorDotN is numpy.tensordot(a, b, axes=n): it sums over the last n axes
// of a and the first n axes of b.
func TensorDotN(a, b *Tensor, n int) *Tensor {
	if e := checkPair("tensordot", a, b); e != nil {
		return e
	}
	if n < 0 || n > a.NDim() || n > b.NDim() {
		return errorf("tensordot of shapes %v and %v: cannot sum over %d axes", a.meta.Shape, b.meta.Shape, n)
	}
	aAxes := make([]int, n)
	bAxes := make([]int, n)
	for i := range n {
		aAxes[i] = a.NDim() - n + i
		bAxes[i] = i
	}
	return TensorDot(a, b, aAxes, bAxes)
}

// Outer is numpy.outer: both operands are flattened and the result has
// shape (a.Size(), b.Size()). It is a tensordot with nothing summed.
func Outer(a, b *Tensor) *Tensor {
	if e := checkPair("outer", a, b); e != nil {
		return e
	}
	r := TensorDot(a.Ravel(), b.Ravel(), nil, nil)
	if r.err != nil {
		return errTensor(fmt.Errorf("outer: %w", r.err))
	}
	return r
}
