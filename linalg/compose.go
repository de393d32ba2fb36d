package linalg

import (
	"fmt"
	"math"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Functions of numpy.linalg composed from the others and package tensor.

// MatrixRank is numpy.linalg.matrix_rank of a 2-D tensor (of each matrix of
// a stack (..., M, N), giving a.shape[:-2]): the number of
// singular values above tol, by default the largest singular value times
// max(M, N) times machine epsilon. It is an int64 0-d tensor.
func MatrixRank(a *tensor.Tensor, tol ...float64) *tensor.Tensor {
	if a != nil && a.Err() == nil && a.NDim() > 2 {
		return stacked("matrix_rank", a, 1, func(m *tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{MatrixRank(m, tol...)}
		})[0]
	}
	if e := matrix("matrix_rank", a); e != nil {
		return e
	}
	if len(tol) > 1 {
		return tensor.Error(fmt.Errorf("matrix_rank: %d tolerances given; want at most one", len(tol)))
	}
	s := SVDVals(a)
	if s.Err() != nil {
		return s
	}
	var cut *tensor.Tensor
	if len(tol) == 1 {
		cut = tensor.Full(nil, tol[0], tensor.WithDType(s.DType()))
	} else {
		m, n := a.Shape()[0], a.Shape()[1]
		cut = s.Max().Mul(ndarray.LstsqRcondDefault(m, n, s.DType()))
	}
	return s.Greater(cut).Sum().Astype(ndarray.Int64)
}

// Pinv is numpy.linalg.pinv(a, rcond) of a 2-D tensor (of each matrix of a
// stack (..., M, N), giving (..., N, M)): the Moore-Penrose
// pseudo-inverse (N, M) through the SVD, where singular values at most
// rcond (default 1e-15, NumPy's) times the largest count as zero. The SVD is
// TSQR over the row chunks of a tall a (the column chunks of a wide one).
func Pinv(a *tensor.Tensor, rcond ...float64) *tensor.Tensor {
	if a != nil && a.Err() == nil && a.NDim() > 2 {
		return stacked("pinv", a, 1, func(m *tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{Pinv(m, rcond...)}
		})[0]
	}
	if e := matrix("pinv", a); e != nil {
		return e
	}
	rc := 1e-15
	switch len(rcond) {
	case 0:
	case 1:
		rc = rcond[0]
	default:
		return tensor.Error(fmt.Errorf("pinv: %d rcond values given; want at most one", len(rcond)))
	}
	u, s, vt := SVD(a, false)
	if s.Err() != nil {
		return s
	}
	k := s.Shape()[0]
	if k == 0 {
		// NumPy returns an empty matrix of a's own dtype.
		return tensor.Zeros([]int{a.Shape()[1], a.Shape()[0]}, tensor.WithDType(a.DType()))
	}
	inv := tensor.Where(s.Greater(s.Max().Mul(rc)), tensor.Div(1, s), 0).Astype(s.DType())
	return vt.T().MatMul(u.T().Mul(inv.Reshape(k, 1)))
}

// Cond is numpy.linalg.cond(x, p) of a 2-D tensor: with p nil, 2 or -2
// the ratio of its largest and smallest singular values (or the inverse);
// with "fro", "nuc", 1, -1, inf or -inf (a square x) norm(x, p) times
// norm(inv(x), p). A singular matrix gives +inf for the singular-value
// orders, as in NumPy, and fails Execute for the others.
func Cond(x *tensor.Tensor, p any) *tensor.Tensor {
	if e := matrix("cond", x); e != nil {
		return e
	}
	o, err := normOrd(p)
	if err != nil {
		return tensor.Error(fmt.Errorf("cond: %w", err))
	}
	if o.none || (o.name == "" && (o.p == 2 || o.p == -2)) {
		s := SVDVals(x)
		if s.Err() != nil {
			return s
		}
		if o.p == -2 {
			return s.Min().Div(s.Max())
		}
		return s.Max().Div(s.Min())
	}
	return Norm(x, p).Mul(Norm(Inv(x), p))
}

// MultiDot is numpy.linalg.multi_dot: the product of two or more tensors,
// evaluated in the order of fewest multiplications (the classic matrix
// chain order, from the shapes). The first may be 1-D (a row vector) and
// the last 1-D (a column vector); the others are 2-D.
func MultiDot(ts ...*tensor.Tensor) *tensor.Tensor {
	if len(ts) < 2 {
		return tensor.Error(fmt.Errorf("multi_dot: expecting at least two arrays, got %d", len(ts)))
	}
	for i, t := range ts {
		if e := bad(fmt.Sprintf("multi_dot: array %d", i), t); e != nil {
			return e
		}
		first, last := i == 0, i == len(ts)-1
		if slices.Contains(t.Shape(), -1) {
			// Its order of products is chosen from the lengths.
			return tensor.Error(fmt.Errorf("multi_dot: array %d has an axis of unknown length (a boolean mask's or a set operation's result): execute it first", i))
		}
		if !(t.NDim() == 2 || t.NDim() == 1 && (first || last)) {
			return tensor.Error(fmt.Errorf("multi_dot: array %d is %d-dimensional; only the first and last may be 1-D, the others must be 2-D", i, t.NDim()))
		}
	}
	// As NumPy: a 1-D first operand is a row, a 1-D last one a column,
	// and the dimensions they add are dropped at the end.
	mats := make([]*tensor.Tensor, len(ts))
	copy(mats, ts)
	rowVec, colVec := ts[0].NDim() == 1, ts[len(ts)-1].NDim() == 1
	if rowVec {
		mats[0] = ts[0].Reshape(1, ts[0].Shape()[0])
	}
	if colVec {
		last := ts[len(ts)-1]
		mats[len(ts)-1] = last.Reshape(last.Shape()[0], 1)
	}
	dims := make([]float64, len(mats)+1)
	for i, t := range mats {
		if i > 0 && t.Shape()[0] != mats[i-1].Shape()[1] {
			return tensor.Error(fmt.Errorf("multi_dot: shapes %v and %v of arrays %d and %d are not aligned", ts[i-1].Shape(), ts[i].Shape(), i-1, i))
		}
		dims[i] = float64(t.Shape()[0])
	}
	dims[len(mats)] = float64(mats[len(mats)-1].Shape()[1])
	// cost[i][j], split[i][j]: the cheapest product of mats[i..j].
	n := len(mats)
	cost := make([][]float64, n)
	split := make([][]int, n)
	for i := range n {
		cost[i], split[i] = make([]float64, n), make([]int, n)
	}
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			cost[i][j] = math.Inf(1)
			for k := i; k < j; k++ {
				c := cost[i][k] + cost[k+1][j] + dims[i]*dims[k+1]*dims[j+1]
				if c < cost[i][j] {
					cost[i][j], split[i][j] = c, k
				}
			}
		}
	}
	var product func(i, j int) *tensor.Tensor
	product = func(i, j int) *tensor.Tensor {
		if i == j {
			return mats[i]
		}
		k := split[i][j]
		return tensor.MatMul(product(i, k), product(k+1, j))
	}
	out := product(0, n-1)
	switch {
	case rowVec && colVec:
		return out.Reshape()
	case rowVec:
		return out.Reshape(out.Shape()[1])
	case colVec:
		return out.Reshape(out.Shape()[0])
	}
	return out
}

// MatrixPower is numpy.linalg.matrix_power: a (..., M, M) raised to the
// integer power n by repeated squaring; n = 0 is the identity (in a's
// dtype) and a negative n the power of Inv(a).
func MatrixPower(a *tensor.Tensor, n int) *tensor.Tensor {
	if e := bad("matrix_power", a); e != nil {
		return e
	}
	nd := a.NDim()
	if nd < 2 {
		return tensor.Error(fmt.Errorf("matrix_power: %d-dimensional array given. Array must be at least two-dimensional", nd))
	}
	m := a.Shape()[nd-1]
	if a.Shape()[nd-2] != m {
		return tensor.Error(fmt.Errorf("matrix_power: Last 2 dimensions of the array must be square (shape %v)", a.Shape()))
	}
	if n == 0 {
		return tensor.Eye(m, m, 0, tensor.WithDType(a.DType())).BroadcastTo(a.Shape()...)
	}
	if n < 0 {
		a, n = Inv(a), -n
	}
	var result *tensor.Tensor
	for sq := a; ; sq = tensor.MatMul(sq, sq) {
		if n&1 == 1 {
			if result == nil {
				result = sq
			} else {
				result = tensor.MatMul(result, sq)
			}
		}
		n >>= 1
		if n == 0 {
			return result
		}
	}
}
