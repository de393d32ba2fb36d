// Package linalg is numpy.linalg for Phobos's chunked tensors, as package
// tensor is numpy: the same names and semantics, lazy like every tensor.
//
// QR and SVD of tall-skinny matrices are distributed: a 2-D tensor chunked
// along its rows is factored chunk by chunk and the R factors are combined
// up a tree (TSQR); Q (or U) is formed block by block from the top of the
// tree down, never gathered. A tensor in several column chunks is first
// rechunked to one column chunk when it has at most ops.MaxTSQRColumns
// (4096) columns; wider ones are refused with an error saying so. Row
// chunks shorter than the width are merged with their neighbours first.
//
// Lstsq of a tall matrix is distributed too (TSQR, then a chunked Qᵀ b and
// the SVD of the small R), and so is RandomizedSVD (products with a and
// TSQR; Halko et al.'s range finder). Cholesky, LU, Solve, SolveTriangular, Inv, Det,
// Slogdet and Lstsq of a wide matrix compute each matrix whole in one chunk
// (LAPACK through package ndarray), after rechunking it into a single
// chunk: matrices of up to ops.MaxDenseElems (2^26, e.g. 8192×8192)
// elements; larger ones are refused with an error. Stacks of matrices (...,
// M, M) are supported by Cholesky, Inv, Det and Slogdet, whose ops take
// them whole; QR, SVD, SVDVals, Pinv, MatrixRank and Solve take stacks
// (..., M, N) as a graph of one 2-D op per matrix (see stacked), so each
// matrix keeps its own path (TSQR for a tall one). SolveTriangular and
// Lstsq take a 2-D a. Norm, Einsum, MatrixRank, Pinv,
// Cond, MultiDot and MatrixPower are compositions of tensor operations and
// of the functions above.
//
// Results are float32 for float32 input and float64 otherwise, as in
// NumPy. Mistakes (wrong shapes, a non-2-D input) ride along as the
// tensors' errors; a singular matrix ("Singular matrix") or one that is not
// positive definite ("Matrix is not positive definite") is an error of
// Execute, as NumPy raises LinAlgError while computing.
package linalg

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// bad returns an error tensor when t is nil or carries an error.
func bad(name string, t *tensor.Tensor) *tensor.Tensor {
	if t == nil {
		return tensor.Error(fmt.Errorf("%s: nil tensor", name))
	}
	if t.Err() != nil {
		return t
	}
	return nil
}

// matrix checks that a is a usable 2-D tensor, as numpy.linalg's
// functions that take only matrices check.
func matrix(name string, a *tensor.Tensor) *tensor.Tensor {
	if e := bad(name, a); e != nil {
		return e
	}
	if a.NDim() != 2 {
		return tensor.Error(fmt.Errorf("%s: %d-dimensional array given. Array must be two-dimensional", name, a.NDim()))
	}
	return nil
}

// QR is numpy.linalg.qr(a, mode) for a 2-D tensor a of shape (M, N), K =
// min(M, N):
//
//	"reduced" (or "")  q (M, K) with orthonormal columns, r (K, N) upper triangular
//	"complete"         q (M, M) orthogonal, r (M, N)
//	"r"                r only (q is nil)
//
// Reduced QR is TSQR over a's row chunks (see the package comment), and
// for a wide matrix wider than ops.MaxTSQRColumns, the QR of its first M
// columns followed by r = [R₁, qᵀ a[:, M:]]. Complete QR of a tall matrix
// needs its M×M q to fit one chunk (ops.MaxDenseElems); NumPy's mode "raw"
// is not supported.
func QR(a *tensor.Tensor, mode string) (q, r *tensor.Tensor) {
	if a != nil && a.Err() == nil && a.NDim() > 2 {
		rs := stacked("qr", a, 2, func(m *tensor.Tensor) []*tensor.Tensor {
			q, r := QR(m, mode)
			if mode == "r" {
				return []*tensor.Tensor{r, r}
			}
			return []*tensor.Tensor{q, r}
		})
		if mode == "r" {
			return nil, rs[1]
		}
		return rs[0], rs[1]
	}
	if e := matrix("qr", a); e != nil {
		return e, e
	}
	m, n := a.Shape()[0], a.Shape()[1]
	k := min(m, n)
	switch mode {
	case "", "reduced", "r":
		if m < n && n > ops.MaxTSQRColumns {
			q, r1 := QR(a.Index(tensor.All(), tensor.To(m)), "reduced")
			r = tensor.Concatenate(1, r1, tensor.MatMul(q.T(), a.Index(tensor.All(), tensor.From(m))))
			if mode == "r" {
				return nil, r
			}
			return q, r
		}
		f := tensor.New(ops.QR{}, a)
		if f.Err() != nil {
			return f, f
		}
		r = f.Index(tensor.From(m))
		if mode == "r" {
			return nil, r
		}
		return f.Index(tensor.To(m), tensor.To(k)), r
	case "complete":
		f := tensor.New(ops.QR{Complete: true}, a)
		if f.Err() != nil {
			return f, f
		}
		return f.Index(tensor.To(m), tensor.To(m)), f.Index(tensor.From(m), tensor.To(n))
	}
	e := tensor.Error(fmt.Errorf("qr: unrecognized mode %q: use \"reduced\", \"complete\" or \"r\" (mode \"raw\" is not supported)", mode))
	return e, e
}

// SVD is numpy.linalg.svd(a, full_matrices=fullMatrices) for a 2-D tensor
// a of shape (M, N), K = min(M, N): u (M, K), s (K,) in descending order
// and vt (K, N) with a = u diag(s) vt. It runs TSQR over the row chunks of
// a tall a (a wide one is decomposed through its transpose, so it should
// be chunked along its columns), then the SVD of the small R.
// fullMatrices, NumPy's default, makes U (M, M) and Vᵀ (N, N) of a
// non-square a through its complete QR (see svdFull), which needs the
// square factor to fit one chunk; pass false for a tall-skinny a. A stack
// (..., M, N) gives the stacked factors, one SVD per matrix.
func SVD(a *tensor.Tensor, fullMatrices bool) (u, s, vt *tensor.Tensor) {
	if a != nil && a.Err() == nil && a.NDim() > 2 {
		rs := stacked("svd", a, 3, func(m *tensor.Tensor) []*tensor.Tensor {
			u, s, vt := SVD(m, fullMatrices)
			return []*tensor.Tensor{u, s, vt}
		})
		return rs[0], rs[1], rs[2]
	}
	if e := matrix("svd", a); e != nil {
		return e, e, e
	}
	m, n := a.Shape()[0], a.Shape()[1]
	if fullMatrices && m != n {
		return svdFull(a)
	}
	k := min(m, n)
	if m < n {
		// aᵀ = U' diag(s) V'ᵀ, so a = V' diag(s) U'ᵀ.
		g := tensor.New(ops.SVD{}, a.T())
		if g.Err() != nil {
			return g, g, g
		}
		return g.Index(tensor.From(n + 1)).T(), g.Index(tensor.At(n), tensor.To(k)), g.Index(tensor.To(n), tensor.To(k)).T()
	}
	g := tensor.New(ops.SVD{}, a)
	if g.Err() != nil {
		return g, g, g
	}
	return g.Index(tensor.To(m), tensor.To(k)), g.Index(tensor.At(m), tensor.To(k)), g.Index(tensor.From(m + 1))
}

// svdFull is SVD with full_matrices of a non-square 2-D a (M, N): U (M, M)
// and Vᵀ (N, N). For a tall a, its complete QR a = [Q₁ Q₂] [R; 0] and the
// SVD of the small R = Uᵣ diag(s) Vᵀ give U = [Q₁Uᵣ Q₂]: Q₂ spans the
// complement of a's columns, which is what the extra columns of U must
// span. A wide a goes through its transpose. The complete Q is one chunk
// (ops.MaxDenseElems), as complete QR's is.
func svdFull(a *tensor.Tensor) (u, s, vt *tensor.Tensor) {
	m, n := a.Shape()[0], a.Shape()[1]
	if m < n {
		ut, st, vtt := svdFull(a.T())
		return vtt.T(), st, ut.T()
	}
	dt := ndarray.LinalgFloat(a.DType())
	if n == 0 {
		return tensor.Eye(m, m, 0, tensor.WithDType(dt)), tensor.Zeros([]int{0}, tensor.WithDType(dt)), tensor.Zeros([]int{0, 0}, tensor.WithDType(dt))
	}
	f := tensor.New(ops.QR{Complete: true}, a)
	if f.Err() != nil {
		return f, f, f
	}
	q := f.Index(tensor.To(m), tensor.To(m))
	r := f.Index(tensor.Range(m, m+n), tensor.To(n))
	ur, s, vt := SVD(r, false)
	u = tensor.Concatenate(1, q.Index(tensor.All(), tensor.To(n)).MatMul(ur), q.Index(tensor.All(), tensor.From(n)))
	for _, t := range []*tensor.Tensor{u, s, vt} {
		if t.Err() != nil {
			return t, t, t
		}
	}
	return u, s, vt
}

// SVDVals is numpy.linalg.svd(a, compute_uv=False) (numpy.linalg.svdvals):
// the singular values of a 2-D tensor, in descending order. U is not formed.
func SVDVals(a *tensor.Tensor) *tensor.Tensor {
	_, s, _ := SVD(a, false)
	return s
}

// Cholesky is numpy.linalg.cholesky: the lower-triangular L with a = L Lᵀ
// for every matrix of a (..., M, M); only the lower triangle of a is read.
// A matrix that is not positive definite fails Execute ("Matrix is not
// positive definite").
func Cholesky(a *tensor.Tensor) *tensor.Tensor { return tensor.New(ops.Cholesky{}, a) }

// Inv is numpy.linalg.inv for every matrix of a (..., M, M). A singular
// matrix fails Execute ("Singular matrix").
func Inv(a *tensor.Tensor) *tensor.Tensor { return tensor.New(ops.Inv{}, a) }

// Det is numpy.linalg.det: the determinants of the matrices of a (..., M,
// M), of shape a.shape[:-2] (0-d for a 2-D a).
func Det(a *tensor.Tensor) *tensor.Tensor { return tensor.New(ops.Det{}, a) }

// Slogdet is numpy.linalg.slogdet: the sign (1, -1, or 0 when singular) and
// the natural log of the absolute value (-inf when singular) of the
// determinant of every matrix of a (..., M, M).
func Slogdet(a *tensor.Tensor) (sign, logAbsDet *tensor.Tensor) {
	f := tensor.New(ops.Slogdet{}, a)
	if f.Err() != nil {
		return f, f
	}
	return f.Index(tensor.At(0)), f.Index(tensor.At(1))
}

// Solve is numpy.linalg.solve for a 2-D a (M, M) and b (M,) or (M, K): x
// with a x = b. A singular a fails Execute ("Singular matrix"). For a
// stack a (..., M, M), or b (..., M, K), it follows the Array API standard
// (and NumPy 2): a 1-D b is one vector for every matrix, any other b is a
// stack of matrices whose stack broadcasts with a's (NumPy 1.24 read a b of
// a.ndim-1 dimensions as a stack of vectors instead).
func Solve(a, b *tensor.Tensor) *tensor.Tensor {
	if a != nil && b != nil && a.Err() == nil && b.Err() == nil && (a.NDim() > 2 || b.NDim() > 2) {
		return solveStacked(a, b)
	}
	return tensor.New(ops.Solve{}, a, b)
}

// Triangular describes the matrix of SolveTriangular, as
// scipy.linalg.solve_triangular's keywords do.
type Triangular struct {
	Lower        bool // read a's lower triangle (default: the upper)
	Trans        bool // solve aᵀ x = b
	UnitDiagonal bool // take a's diagonal as ones, without reading it
}

// SolveTriangular is scipy.linalg.solve_triangular(a, b, lower, trans,
// unit_diagonal) for a 2-D a (M, M) and b (M,) or (M, K): x with a x = b (or
// aᵀ x = b), reading only one triangle of a. A zero on the diagonal fails
// Execute ("singular matrix: resolution failed at diagonal i").
func SolveTriangular(a, b *tensor.Tensor, t Triangular) *tensor.Tensor {
	return tensor.New(ops.SolveTriangular{Lower: t.Lower, Trans: t.Trans, UnitDiagonal: t.UnitDiagonal}, a, b)
}

// Lstsq is numpy.linalg.lstsq(a, b, rcond) for a 2-D a (M, N) and b (M,)
// or (M, K): the least-squares solution x ((N,) or (N, K); of least norm
// when a is rank deficient), the squared residual norms ((K,), or (1,) for
// a 1-D b, when M > N, else (0,)), a's effective rank (an int32 0-d tensor,
// as NumPy's) and its singular values (min(M, N),). Singular values at most
// rcond times the largest count as zero; without rcond it is NumPy 2's
// default, machine epsilon times max(M, N) (NumPy 1.x's rcond=-1, machine
// epsilon, is any negative rcond).
//
// It goes through QR. A tall (or square) a is distributed: a = Q R by TSQR
// over its row chunks, c = Qᵀ b by a chunked matrix product, and the SVD of
// the small R = U diag(s) Vᵀ gives the singular values, the rank and x = V
// diag(1/s) Uᵀ c over the singular values above the cutoff (R⁻¹ Qᵀ b at
// full rank), so a has no size limit. A wide a is solved whole in one
// chunk (ops.MaxDenseElems) through the QR of aᵀ. One difference: NumPy's
// residuals are empty when a turns out rank deficient, but a tensor's
// shape is fixed before it runs, so Phobos returns the residuals of its x
// then too.
func Lstsq(a, b *tensor.Tensor, rcond ...float64) (x, residuals, rank, s *tensor.Tensor) {
	if e := matrix("lstsq", a); e != nil {
		return e, e, e, e
	}
	if e := bad("lstsq", b); e != nil {
		return e, e, e, e
	}
	var rc *float64
	switch len(rcond) {
	case 0:
	case 1:
		rc = &rcond[0]
	default:
		e := tensor.Error(fmt.Errorf("lstsq: %d rcond values given; want at most one", len(rcond)))
		return e, e, e, e
	}
	m, n := a.Shape()[0], a.Shape()[1]
	if m >= n && n > 0 && (b.NDim() == 1 || b.NDim() == 2) && b.Shape()[0] == m {
		return lstsqTall(a, b, rc)
	}
	f := tensor.New(ops.Lstsq{RCond: rc}, a, b)
	if f.Err() != nil {
		return f, f, f, f
	}
	k := 1
	if b.NDim() == 2 {
		k = b.Shape()[1]
	}
	resAt, nres, rankAt, sAt, size := ops.LstsqLayout(m, n, k)
	x = f.Index(tensor.To(n * k))
	if b.NDim() == 2 {
		x = x.Reshape(n, k)
	}
	return x, f.Index(tensor.Range(resAt, resAt+nres)), f.Index(tensor.At(rankAt)).Astype(ndarray.Int32), f.Index(tensor.Range(sAt, size))
}

// lstsqTall is Lstsq of a tall or square a (M >= N > 0), as tensor ops.
func lstsqTall(a, b *tensor.Tensor, rcond *float64) (x, residuals, rank, s *tensor.Tensor) {
	m, n := a.Shape()[0], a.Shape()[1]
	dt := ndarray.LinalgFloat(ndarray.Promote(a.DType(), b.DType()))
	cut := ndarray.LstsqRcondDefault(m, n, dt)
	if rcond != nil {
		cut = *rcond
		if cut < 0 {
			cut = ndarray.LstsqRcondDefault(1, 1, dt)
		}
	}
	b2 := b
	if b.NDim() == 1 {
		b2 = b.Reshape(m, 1)
	}
	q, r := QR(a, "")
	c := q.T().MatMul(b2.Astype(dt)) // Qᵀ b, (N, K)
	u, sv, vt := SVD(r, false)
	s = sv.Astype(dt)
	keep := s.Greater(s.Max().Mul(cut))
	inv := tensor.Where(keep, tensor.Div(1, s), 0)
	x = vt.T().MatMul(u.T().MatMul(c).Mul(inv.Reshape(n, 1))).Astype(dt)
	rank = keep.Sum().Astype(ndarray.Int32)
	if m > n {
		residuals = b2.Astype(dt).Sub(a.Astype(dt).MatMul(x)).Square().Sum(tensor.Axis(0))
	} else {
		residuals = tensor.Zeros([]int{0}, tensor.WithDType(dt))
	}
	if b.NDim() == 1 {
		x = x.Reshape(n)
	}
	for _, t := range []*tensor.Tensor{x, residuals, rank, s} {
		if t.Err() != nil {
			return t, t, t, t
		}
	}
	return x, residuals, rank, s
}
