package linalg

import (
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// Eigh is numpy.linalg.eigh for every matrix of a (..., M, M): the
// eigenvalues w (..., M), ascending, and the orthonormal eigenvectors v
// (..., M, M), v[..., :, i] belonging to w[..., i]. Each matrix is
// computed whole in one chunk (LAPACK's xSYEVD). Only the lower triangle
// is read, or the upper one when upper (NumPy's UPLO='U').
func Eigh(a *tensor.Tensor, upper bool) (w, v *tensor.Tensor) {
	if e := bad("eigh", a); e != nil {
		return e, e
	}
	f := tensor.New(ops.Eigh{Upper: upper}, a)
	if f.Err() != nil {
		return f, f
	}
	nd := f.NDim()
	m := f.Shape()[nd-1]
	wi := make([]tensor.Idx, nd)
	wi[nd-2] = tensor.At(0)
	vi := make([]tensor.Idx, nd)
	vi[nd-2] = tensor.Range(1, m+1)
	return f.Index(wi...), f.Index(vi...)
}

// EigvalsH is numpy.linalg.eigvalsh: Eigh's eigenvalues alone, the
// eigenvectors never formed.
func EigvalsH(a *tensor.Tensor, upper bool) *tensor.Tensor {
	if e := bad("eigvalsh", a); e != nil {
		return e
	}
	return tensor.New(ops.EigvalsH{Upper: upper}, a)
}
