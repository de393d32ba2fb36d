package phobos_test

import (
	"errors"
	"testing"

	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// Ops without float16 kernels refuse float16 when the tensor is built, with
// an ops.DTypeError naming the op and the dtype; none panics.
func TestFloat16RefusedByName(t *testing.T) {
	h := tensor.Ones([]int{4, 4}, tensor.WithDType(ndarray.Float16), tensor.Chunks(2))
	for _, c := range []struct {
		op string
		t  *tensor.Tensor
	}{
		{"sort", h.Sort(0)},
		{"argsort", h.Argsort(0)},
		{"cumsum", h.CumSum(0)},
		{"matmul", h.MatMul(h)},
		{"median", h.Median()},
		{"cholesky", linalg.Cholesky(h)},
		{"take", tensor.Take(h, tensor.ArangeN(2))},
	} {
		var de *ops.DTypeError
		err := c.t.Err()
		if !errors.As(err, &de) || de.DType != ndarray.Float16 {
			t.Errorf("%s of float16: %v, want an ops.DTypeError for float16", c.op, err)
		}
	}
}
