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
		{"quantile", tensor.Quantile(h, 0.25, "")},
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

// Ops without complex kernels refuse complex64 and complex128 when the
// tensor is built, with an ops.DTypeError naming the dtype; ufuncs NumPy
// has no complex loop for fail with ndarray's DTypeError. None panics or
// computes a result.
func TestComplexRefusedByName(t *testing.T) {
	for _, dt := range []ndarray.DType{ndarray.Complex64, ndarray.Complex128} {
		c := tensor.Ones([]int{4, 4}, tensor.WithDType(dt), tensor.Chunks(2))
		_, _, _, counts := tensor.UniqueAll(c)
		for _, k := range []struct {
			op string
			t  *tensor.Tensor
		}{
			{"argsort", c.Argsort(0)},
			{"median", c.Median()},
			{"unique with counts", counts},
			{"cholesky", linalg.Cholesky(c)},
			{"nanargmax", c.NanArgMax()},
			{"arange", tensor.Arange(0, 4, 1, tensor.WithDType(dt))},
		} {
			var de *ops.DTypeError
			err := k.t.Err()
			if !errors.As(err, &de) || de.DType != dt {
				t.Errorf("%s of %v: %v, want an ops.DTypeError for %v", k.op, dt, err, dt)
			}
		}
		for _, f := range []string{"floor", "fabs", "signbit", "isposinf"} {
			var de *ndarray.DTypeError
			if err := tensor.Ufunc(f, c).Err(); !errors.As(err, &de) {
				t.Errorf("%s of %v: %v, want an ndarray.DTypeError", f, dt, err)
			}
		}
		for _, f := range []string{"floor_divide", "remainder", "arctan2", "hypot", "bitwise_and"} {
			var de *ndarray.DTypeError
			if err := tensor.Ufunc(f, c, c).Err(); !errors.As(err, &de) {
				t.Errorf("%s of %v: %v, want an ndarray.DTypeError", f, dt, err)
			}
		}
	}
}
