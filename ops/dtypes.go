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

// halfReductions are the reductions whose kernels take float16 (computed
// in float32, as NumPy's are).
var halfReductions = []string{"sum", "prod", "min", "max", "any", "all", "count_nonzero", "mean", "var", "std",
	"argmin", "argmax", "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "nanargmin", "nanargmax"}

// reductionKinds are a Reduction's dtype families, by its function.
func reductionKinds(op any) Kinds {
	var k Kinds
	f := op.(Reduction).Func
	if slices.Contains(halfReductions, f) {
		k |= Half
	}
	if slices.Contains(complexReductions, f) {
		k |= Complex
	}
	return k
}

// checkKinds refuses inputs of a dtype family op has no kernels for
// (Descriptor.Kinds): ops move or compute float16 and complex values only
// where they say so; the others fail with a DTypeError before they infer.
func checkKinds(op TensorOp, in []Meta) error {
	for _, m := range in {
		if !supports(op, m.DType) {
			return &DTypeError{Op: op.Type(), DType: m.DType}
		}
	}
	return nil
}
