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
	return fmt.Sprintf("%s: not supported for %v (cast to float32 first)", e.Op, e.DType)
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
