package linalg

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// LU is scipy.linalg.lu(a) (NumPy has none; Mars's mt.linalg.lu is
// SciPy's) for every matrix of a (..., M, N), K = min(M, N): the
// permutation matrix p (..., M, M), the unit lower-trapezoidal l (..., M,
// K) and the upper-trapezoidal u (..., K, N) with a = p l u, by partial
// pivoting (LAPACK's getrf). Like Cholesky, each matrix is factored whole
// in one chunk (ops.MaxDenseElems for p, l and u side by side). A singular
// matrix is no error: u then has a zero on its diagonal.
func LU(a *tensor.Tensor) (p, l, u *tensor.Tensor) {
	if e := bad("lu", a); e != nil {
		return e, e, e
	}
	if a.NDim() < 2 {
		e := tensor.Error(fmt.Errorf("lu: %d-dimensional array given. Array must be at least two-dimensional", a.NDim()))
		return e, e, e
	}
	f := tensor.New(ops.LU{}, a)
	if f.Err() != nil {
		return f, f, f
	}
	nd := a.NDim()
	m, n := a.Shape()[nd-2], a.Shape()[nd-1]
	k := min(m, n)
	part := func(rows, c0, c1 int) *tensor.Tensor {
		idx := make([]tensor.Idx, nd)
		idx[nd-2] = tensor.To(rows)
		idx[nd-1] = tensor.Range(c0, c1)
		return f.Index(idx...)
	}
	return part(m, 0, m), part(m, m, m+k), part(k, m+k, m+k+n)
}

// LUPermuted is scipy.linalg.lu(a, permute_l=True): p l as one matrix
// (..., M, K) beside u, with a = (p l) u.
func LUPermuted(a *tensor.Tensor) (pl, u *tensor.Tensor) {
	p, l, u := LU(a)
	if p.Err() != nil {
		return p, p
	}
	return tensor.MatMul(p, l), u
}
