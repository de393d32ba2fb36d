package ops

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

// DTypeError is an op refusing a dtype it has no kernel for.
type DTypeError struct {
	Op    string
	DType ndarray.DType
}

func (e *DTypeError) Error() string {
	if e.DType.IsComplex() {
		return fmt.Sprintf("%s: not supported for %v (take the real or imaginary part or the absolute value first)", e.Op, e.DType)
	}
	return fmt.Sprintf("%s: not supported for %v (cast to float32 first)", e.Op, e.DType)
}

// complexReductions are the reductions whose kernels take complex
// operands; mean, var and std of complex tensors are built from sums by
// package tensor, as NumPy computes them.
var complexReductions = []string{"sum", "prod", "min", "max", "any", "all", "count_nonzero",
	"nansum", "nanprod", "nanmin", "nanmax"}

// complexSupported reports whether op has complex64/complex128 kernels:
// creation from values and .npy files, elementwise ops (the ufuncs NumPy
// has complex loops for; the others fail with ndarray's DTypeError), the
// reductions above, cumsum/cumprod, matmul and tensordot, sort (NumPy's
// lexicographic order, lanes made whole), the FFT, and the ops that only
// move elements. Everything else (argsort, set operations,
// linear algebra decompositions, statistics, random numbers, ...) refuses
// complex operands and results with a DTypeError.
func complexSupported(op TensorOp) bool {
	switch o := op.(type) {
	case Full, Literal, Uploaded, NpyRead, NpyWrite, ZarrRead, ZarrWrite,
		Elementwise, Transpose, Flip, Squeeze, ExpandDims, BroadcastTo, Concatenate, Reshape, Rechunk, Index,
		Take, BooleanMask, MaskPlace, Scatter, Repeat, Tri, Diagonal, ArgWhere,
		Cumulative, MatMul, TensorDot, Sort, FFT:
		return true
	case Reduction:
		return slices.Contains(complexReductions, o.Func)
	}
	return false
}

// checkComplex refuses complex inputs of ops without complex kernels.
func checkComplex(op TensorOp, in []Meta) error {
	for _, m := range in {
		if m.DType.IsComplex() && !complexSupported(op) {
			return &DTypeError{Op: op.Type(), DType: m.DType}
		}
	}
	return nil
}

// halfReductions are the reductions whose kernels take float16 (computed
// in float32, as NumPy's are).
var halfReductions = []string{"sum", "prod", "min", "max", "any", "all", "count_nonzero", "mean", "var", "std",
	"argmin", "argmax", "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "nanargmin", "nanargmax"}

// halfSupported reports whether op has float16 kernels: creation, literals
// and files, elementwise ops, the reductions above, and the ops that only
// move elements (views, reshapes, rechunks, concatenation, basic indexing).
// Everything else (sorting, linear algebra, cumulative sums, ...) refuses
// float16 operands and results with a DTypeError.
func halfSupported(op TensorOp) bool {
	switch o := op.(type) {
	case Full, Arange, Literal, Uploaded, NpyRead, NpyWrite, ZarrRead, ZarrWrite,
		Elementwise, Transpose, Flip, Squeeze, ExpandDims, BroadcastTo, Concatenate, Reshape, Rechunk, Index:
		return true
	case Reduction:
		return slices.Contains(halfReductions, o.Func)
	}
	return false
}

// checkHalf refuses float16 inputs of ops without float16 kernels.
func checkHalf(op TensorOp, in []Meta) error {
	for _, m := range in {
		if m.DType == ndarray.Float16 && !halfSupported(op) {
			return &DTypeError{Op: op.Type(), DType: ndarray.Float16}
		}
	}
	return nil
}
