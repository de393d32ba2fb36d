package linalg

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Inner is numpy.inner(a, b): the sum product over the last axes of a and
// b (a tensordot over them), of shape a.shape[:-1] + b.shape[:-1]; a 0-d
// operand multiplies the other.
func Inner(a, b *tensor.Tensor) *tensor.Tensor {
	for _, t := range []*tensor.Tensor{a, b} {
		if e := bad("inner", t); e != nil {
			return e
		}
	}
	if a.NDim() == 0 || b.NDim() == 0 {
		// NumPy's inner types a 0-d operand by its dtype, not its value
		// as multiply does.
		dt := ndarray.Promote(a.DType(), b.DType())
		return tensor.Mul(a.Astype(dt), b.Astype(dt))
	}
	if na, nb := a.Shape()[a.NDim()-1], b.Shape()[b.NDim()-1]; na != nb {
		return tensor.Error(fmt.Errorf("inner: shapes %v and %v not aligned: %d (dim %d) != %d (dim %d)", a.Shape(), b.Shape(), na, a.NDim()-1, nb, b.NDim()-1))
	}
	return tensor.TensorDot(a, b, []int{a.NDim() - 1}, []int{b.NDim() - 1})
}

// Vdot is numpy.vdot(a, b): the dot product of a (conjugated) and b
// flattened, which must have the same number of elements.
func Vdot(a, b *tensor.Tensor) *tensor.Tensor {
	for _, t := range []*tensor.Tensor{a, b} {
		if e := bad("vdot", t); e != nil {
			return e
		}
	}
	if a.Size() != b.Size() {
		return tensor.Error(fmt.Errorf("vdot: cannot reshape array of size %d into shape (%d,)", b.Size(), a.Size()))
	}
	if a.DType().IsComplex() {
		a = a.Conj() // vdot conjugates its first argument
	}
	return tensor.Dot(a.Ravel(), b.Ravel())
}

// Trace is numpy.linalg.trace (NumPy 2): the sum of the main diagonal of
// every matrix of a (..., M, N), of shape a.shape[:-2].
func Trace(a *tensor.Tensor) *tensor.Tensor {
	if e := bad("trace", a); e != nil {
		return e
	}
	if a.NDim() < 2 {
		return tensor.Error(fmt.Errorf("trace: %d-dimensional array given. Array must be at least two-dimensional", a.NDim()))
	}
	return a.Trace(0, -2, -1)
}

// Diagonal is numpy.linalg.diagonal (NumPy 2): the main diagonal of every
// matrix of a (..., M, N), of shape a.shape[:-2] + (min(M, N),).
func Diagonal(a *tensor.Tensor) *tensor.Tensor {
	if e := bad("diagonal", a); e != nil {
		return e
	}
	if a.NDim() < 2 {
		return tensor.Error(fmt.Errorf("diagonal: %d-dimensional array given. Array must be at least two-dimensional", a.NDim()))
	}
	return a.Diagonal(0, -2, -1)
}
