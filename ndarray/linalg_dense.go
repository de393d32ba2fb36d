package ndarray

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
)

// Dense linear algebra on whole matrices, with numpy.linalg's semantics:
// stacks of matrices where NumPy takes them (..., M, M), results in float32
// for float32 input and float64 otherwise, and NumPy's error messages.
// Everything runs on the LAPACK backend (lapack.go).

// LinAlgError is a matrix a kernel cannot handle: singular, not positive
// definite, not square, a failed convergence (NumPy raises
// numpy.linalg.LinAlgError with the same message).
type LinAlgError struct{ Msg string }

func (e *LinAlgError) Error() string { return e.Msg }

func linAlgErrorf(format string, args ...any) error {
	return &LinAlgError{Msg: fmt.Sprintf(format, args...)}
}

// laCheck checks that a is a (stack of) matrix, square if asked, as NumPy
// checks before calling LAPACK.
func laCheck(a *Array, square bool) error {
	if a == nil || !a.dtype.Valid() {
		return fmt.Errorf("nil or invalid array")
	}
	if a.NDim() < 2 {
		return linAlgErrorf("%d-dimensional array given. Array must be at least two-dimensional", a.NDim())
	}
	if nd := a.NDim(); square && a.shape[nd-1] != a.shape[nd-2] {
		return linAlgErrorf("Last 2 dimensions of the array must be square")
	}
	return nil
}

// laInput is a in dtype dt, C-contiguous (a itself when it already is).
func laInput(a *Array, dt DType) *Array {
	if a.dtype != dt {
		return redConvert(a, dt)
	}
	return a.Contiguous()
}

// toCol copies the row-major m×n matrix src into dst, column-major with
// leading dimension ld.
func toCol[T float32 | float64](src []T, m, n int, dst []T, ld int) {
	for i := range m {
		row := src[i*n : (i+1)*n]
		for j, v := range row {
			dst[j*ld+i] = v
		}
	}
}

// fromCol copies the column-major m×n matrix src (leading dimension ld)
// into the row-major dst.
func fromCol[T float32 | float64](src []T, m, n, ld int, dst []T) {
	for i := range m {
		row := dst[i*n : (i+1)*n]
		for j := range row {
			row[j] = src[j*ld+i]
		}
	}
}

// Cholesky is numpy.linalg.cholesky: the lower-triangular L with a = L Lᵀ
// for every matrix of a (..., M, M). Only the lower triangle of a is read.
func Cholesky(a *Array) (*Array, error) { return choleskyWith(laDefault(), a) }

func choleskyWith(lb *lapackBackend, a *Array) (*Array, error) {
	if err := laCheck(a, true); err != nil {
		return nil, fmt.Errorf("cholesky: %w", err)
	}
	dt := LinalgFloat(a.dtype)
	src := laInput(a, dt)
	out := newArray(dt, a.shape)
	var err error
	if dt == Float64 {
		err = choleskyT(laFuncs[float64](lb), src, out)
	} else {
		err = choleskyT(laFuncs[float32](lb), src, out)
	}
	if err != nil {
		return nil, fmt.Errorf("cholesky: %w", err)
	}
	return out, nil
}

func choleskyT[T float32 | float64](lf *lapackFuncs[T], src, out *Array) error {
	n := src.shape[src.NDim()-1]
	if n == 0 {
		return nil
	}
	s, o := typed[T](src), typed[T](out)
	buf := make([]T, n*n)
	for b := range src.Size() / (n * n) {
		toCol(s[b*n*n:(b+1)*n*n], n, n, buf, n)
		if info := lf.potrf(n, buf, n); info > 0 {
			return linAlgErrorf("Matrix is not positive definite")
		}
		om := o[b*n*n : (b+1)*n*n]
		for i := range n {
			for j := 0; j <= i; j++ {
				om[i*n+j] = buf[j*n+i]
			}
		}
	}
	return nil
}

// luDet is the determinant's sign and log|det| from an LU factorisation
// (column-major, leading dimension n) and its 1-based pivots.
func luDet[T float32 | float64](lu []T, n int, ipiv []int32) (sign, logAbs float64) {
	sign = 1
	for i := range n {
		d := float64(lu[i*n+i])
		if d == 0 {
			return 0, math.Inf(-1)
		}
		if d < 0 {
			sign = -sign
		}
		if int(ipiv[i]) != i+1 {
			sign = -sign
		}
		logAbs += math.Log(math.Abs(d))
	}
	return sign, logAbs
}

// Det is numpy.linalg.det for every matrix of a (..., M, M): the result has
// a's leading shape. It is the product of the LU factorisation's diagonal,
// signed by the row exchanges.
func Det(a *Array) (*Array, error) { return detWith(laDefault(), a) }

func detWith(lb *lapackBackend, a *Array) (*Array, error) {
	if err := laCheck(a, true); err != nil {
		return nil, fmt.Errorf("det: %w", err)
	}
	dt := LinalgFloat(a.dtype)
	src := laInput(a, dt)
	out := newArray(dt, a.shape[:a.NDim()-2])
	if dt == Float64 {
		luEach(laFuncs[float64](lb), src, func(i int, lu []float64, n int, ipiv []int32) {
			typed[float64](out)[i] = luDetProduct(lu, n, ipiv)
		})
	} else {
		luEach(laFuncs[float32](lb), src, func(i int, lu []float32, n int, ipiv []int32) {
			typed[float32](out)[i] = luDetProduct(lu, n, ipiv)
		})
	}
	return out, nil
}

// luDetProduct multiplies out the determinant in T, as LAPACK-based NumPy
// does (so that it overflows where NumPy's does).
func luDetProduct[T float32 | float64](lu []T, n int, ipiv []int32) T {
	d := T(1)
	for i := range n {
		d *= lu[i*n+i]
		if int(ipiv[i]) != i+1 {
			d = -d
		}
	}
	return d
}

// luEach LU-factors every matrix of the contiguous src (..., n, n) in T and
// calls fn with the factors (column-major) and pivots.
func luEach[T float32 | float64](lf *lapackFuncs[T], src *Array, fn func(i int, lu []T, n int, ipiv []int32)) {
	n := src.shape[src.NDim()-1]
	s := typed[T](src)
	buf := make([]T, n*n)
	ipiv := make([]int32, max(n, 1))
	count := 1
	for _, d := range src.shape[:src.NDim()-2] {
		count *= d
	}
	for b := range count {
		if n > 0 {
			toCol(s[b*n*n:(b+1)*n*n], n, n, buf, n)
			lf.getrf(n, n, buf, n, ipiv)
		}
		fn(b, buf, n, ipiv)
	}
}

// Slogdet is numpy.linalg.slogdet: the sign (1, -1, or 0 for a singular
// matrix) and the natural log of the absolute determinant (-inf when
// singular) of every matrix of a (..., M, M).
func Slogdet(a *Array) (sign, logAbsDet *Array, err error) { return slogdetWith(laDefault(), a) }

func slogdetWith(lb *lapackBackend, a *Array) (sign, logAbsDet *Array, err error) {
	if err := laCheck(a, true); err != nil {
		return nil, nil, fmt.Errorf("slogdet: %w", err)
	}
	dt := LinalgFloat(a.dtype)
	src := laInput(a, dt)
	bs := a.shape[:a.NDim()-2]
	sign, logAbsDet = newArray(dt, bs), newArray(dt, bs)
	set := func(i int, s, l float64) {
		sign.SetFlat(i, s)
		logAbsDet.SetFlat(i, l)
	}
	if dt == Float64 {
		luEach(laFuncs[float64](lb), src, func(i int, lu []float64, n int, ipiv []int32) {
			s, l := luDet(lu, n, ipiv)
			set(i, s, l)
		})
	} else {
		luEach(laFuncs[float32](lb), src, func(i int, lu []float32, n int, ipiv []int32) {
			s, l := luDet(lu, n, ipiv)
			set(i, s, l)
		})
	}
	return sign, logAbsDet, nil
}

// Inv is numpy.linalg.inv for every matrix of a (..., M, M): LU with
// partial pivoting, then the solve of A X = I. A singular matrix (an
// exactly zero pivot) is an error, "Singular matrix", as in NumPy.
func Inv(a *Array) (*Array, error) { return invWith(laDefault(), a) }

func invWith(lb *lapackBackend, a *Array) (*Array, error) {
	if err := laCheck(a, true); err != nil {
		return nil, fmt.Errorf("inv: %w", err)
	}
	dt := LinalgFloat(a.dtype)
	src := laInput(a, dt)
	out := newArray(dt, a.shape)
	var err error
	if dt == Float64 {
		err = invT(laFuncs[float64](lb), src, out)
	} else {
		err = invT(laFuncs[float32](lb), src, out)
	}
	if err != nil {
		return nil, fmt.Errorf("inv: %w", err)
	}
	return out, nil
}

func invT[T float32 | float64](lf *lapackFuncs[T], src, out *Array) error {
	n := src.shape[src.NDim()-1]
	if n == 0 {
		return nil
	}
	s, o := typed[T](src), typed[T](out)
	lu := make([]T, n*n)
	x := make([]T, n*n)
	ipiv := make([]int32, n)
	for b := range src.Size() / (n * n) {
		toCol(s[b*n*n:(b+1)*n*n], n, n, lu, n)
		if info := lf.getrf(n, n, lu, n, ipiv); info > 0 {
			return linAlgErrorf("Singular matrix")
		}
		clear(x)
		for i := range n {
			x[i*n+i] = 1
		}
		lf.getrs(false, n, n, lu, n, ipiv, x, n)
		fromCol(x, n, n, n, o[b*n*n:(b+1)*n*n])
	}
	return nil
}

// laRHS checks the right-hand side b of a solve with the n×n matrix a: a
// vector (n,) or a matrix (n, k), as numpy.linalg.solve takes them for a
// 2-D a. It returns b's column count.
func laRHS(name string, a, b *Array) (int, error) {
	if b == nil || !b.dtype.Valid() {
		return 0, fmt.Errorf("%s: nil or invalid right-hand side", name)
	}
	n := a.shape[0]
	switch {
	case b.NDim() == 1 && b.shape[0] == n:
		return 1, nil
	case b.NDim() == 2 && b.shape[0] == n:
		return b.shape[1], nil
	}
	return 0, fmt.Errorf("%s: a of shape %v and b of shape %v: b must be (%d,) or (%d, K)", name, a.shape, b.shape, n, n)
}

// Solve is numpy.linalg.solve for a 2-D a (M, M) and b (M,) or (M, K): x
// with a x = b, by LU with partial pivoting. A singular a is an error,
// "Singular matrix".
func Solve(a, b *Array) (*Array, error) { return solveWith(laDefault(), a, b) }

func solveWith(lb *lapackBackend, a, b *Array) (*Array, error) {
	if err := laCheck(a, true); err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	if a.NDim() != 2 {
		return nil, fmt.Errorf("solve: a of shape %v: only a 2-D a is supported", a.shape)
	}
	k, err := laRHS("solve", a, b)
	if err != nil {
		return nil, err
	}
	dt := LinalgFloat(Promote(a.dtype, b.dtype))
	sa, sb := laInput(a, dt), laInput(b, dt)
	out := newArray(dt, b.shape)
	if dt == Float64 {
		err = solveT(laFuncs[float64](lb), sa, sb, out, k)
	} else {
		err = solveT(laFuncs[float32](lb), sa, sb, out, k)
	}
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	return out, nil
}

func solveT[T float32 | float64](lf *lapackFuncs[T], a, b, out *Array, k int) error {
	n := a.shape[0]
	if n == 0 || k == 0 {
		return nil
	}
	lu := make([]T, n*n)
	ipiv := make([]int32, n)
	toCol(typed[T](a)[:n*n], n, n, lu, n)
	if info := lf.getrf(n, n, lu, n, ipiv); info > 0 {
		return linAlgErrorf("Singular matrix")
	}
	x := make([]T, n*k)
	toCol(typed[T](b)[:n*k], n, k, x, n)
	lf.getrs(false, n, k, lu, n, ipiv, x, n)
	fromCol(x, n, k, n, typed[T](out)[:n*k])
	return nil
}

// SolveTriangular is scipy.linalg.solve_triangular for a 2-D a (M, M) and
// b (M,) or (M, K): x with op(a) x = b, op(a) being a or (trans) aᵀ, where
// only a's lower (lower) or upper triangle is read and its diagonal is
// taken as ones when unitDiag. A zero on the diagonal is an error, as in
// SciPy ("singular matrix: resolution failed at diagonal i", 0-based).
func SolveTriangular(a, b *Array, lower, trans, unitDiag bool) (*Array, error) {
	return solveTriangularWith(laDefault(), a, b, lower, trans, unitDiag)
}

func solveTriangularWith(lb *lapackBackend, a, b *Array, lower, trans, unitDiag bool) (*Array, error) {
	if err := laCheck(a, true); err != nil {
		return nil, fmt.Errorf("solve_triangular: %w", err)
	}
	if a.NDim() != 2 {
		return nil, fmt.Errorf("solve_triangular: a of shape %v: only a 2-D a is supported", a.shape)
	}
	k, err := laRHS("solve_triangular", a, b)
	if err != nil {
		return nil, err
	}
	dt := LinalgFloat(Promote(a.dtype, b.dtype))
	sa := laInput(a, dt)
	out := newArray(dt, b.shape)
	CopyInto(out, laInput(b, dt))
	n := a.shape[0]
	if !unitDiag {
		for i := range n {
			if sa.AtFlat(i*n+i) == 0 {
				return nil, fmt.Errorf("solve_triangular: %w", linAlgErrorf("singular matrix: resolution failed at diagonal %d", i))
			}
		}
	}
	if n == 0 || k == 0 {
		return out, nil
	}
	ul, tA, d := blas.Upper, blas.NoTrans, blas.NonUnit
	if lower {
		ul = blas.Lower
	}
	if trans {
		tA = blas.Trans
	}
	if unitDiag {
		d = blas.Unit
	}
	if dt == Float64 {
		laFuncs[float64](lb).trsm(blas.Left, ul, tA, d, n, k, 1, typed[float64](sa)[:n*n], n, typed[float64](out)[:n*k], k)
	} else {
		laFuncs[float32](lb).trsm(blas.Left, ul, tA, d, n, k, 1, typed[float32](sa)[:n*n], n, typed[float32](out)[:n*k], k)
	}
	return out, nil
}

// SVD is numpy.linalg.svd(a, full_matrices=False) for a 2-D a (M, N): u
// (M, K), s (K,) in descending order and vt (K, N), K = min(M, N), with
// a = u diag(s) vt (LAPACK's gesdd, as NumPy; gesvd on gonum).
func SVD(a *Array) (u, s, vt *Array, err error) { return svdWith(laDefault(), a) }

func svdWith(lb *lapackBackend, a *Array) (u, s, vt *Array, err error) {
	if err := laCheck(a, false); err != nil {
		return nil, nil, nil, fmt.Errorf("svd: %w", err)
	}
	if a.NDim() != 2 {
		return nil, nil, nil, fmt.Errorf("svd: a of shape %v: only a 2-D a is supported", a.shape)
	}
	dt := LinalgFloat(a.dtype)
	m, n := a.shape[0], a.shape[1]
	k := min(m, n)
	src := laInput(a, dt)
	u, s, vt = newArray(dt, []int{m, k}), newArray(dt, []int{k}), newArray(dt, []int{k, n})
	if k == 0 {
		return u, s, vt, nil
	}
	if dt == Float64 {
		err = svdT(laFuncs[float64](lb), src, u, s, vt)
	} else {
		err = svdT(laFuncs[float32](lb), src, u, s, vt)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("svd: %w", err)
	}
	return u, s, vt, nil
}

func svdT[T float32 | float64](lf *lapackFuncs[T], a, u, s, vt *Array) error {
	m, n := a.shape[0], a.shape[1]
	k := min(m, n)
	buf := make([]T, m*n)
	toCol(typed[T](a)[:m*n], m, n, buf, m)
	ub, vb := make([]T, m*k), make([]T, k*n)
	if info := lf.gesdd(m, n, buf, m, typed[T](s)[:k], ub, m, vb, k); info != 0 {
		return linAlgErrorf("SVD did not converge")
	}
	fromCol(ub, m, k, m, typed[T](u)[:m*k])
	fromCol(vb, k, n, k, typed[T](vt)[:k*n])
	return nil
}

// QR is numpy.linalg.qr for a 2-D a (M, N), K = min(M, N): mode "reduced"
// (or "") gives q (M, K) and r (K, N); "complete" q (M, M) and r (M, N);
// "r" only r (q is nil). The reduced form comes from the blocked tree of
// QRFactor, the complete one from geqrf and orgqr.
func QR(a *Array, mode string) (q, r *Array, err error) { return qrWith(laDefault(), a, mode) }

func qrWith(lb *lapackBackend, a *Array, mode string) (q, r *Array, err error) {
	if err := laCheck(a, false); err != nil {
		return nil, nil, fmt.Errorf("qr: %w", err)
	}
	if a.NDim() != 2 {
		return nil, nil, fmt.Errorf("qr: a of shape %v: only a 2-D a is supported", a.shape)
	}
	dt := LinalgFloat(a.dtype)
	m, n := a.shape[0], a.shape[1]
	switch mode {
	case "", "reduced", "r":
		f, err := qrFactorWith(lb, []*Array{a}, dt)
		if err != nil {
			return nil, nil, err
		}
		if r, err = QRFactorR(f, m, n); err != nil {
			return nil, nil, err
		}
		if mode == "r" {
			return nil, r, nil
		}
		q, err = qrApplyWith(lb, f, m, n, nil, min(m, n))
		return q, r, err
	case "complete":
		q, r = newArray(dt, []int{m, m}), newArray(dt, []int{m, n})
		if m == 0 {
			return q, r, nil
		}
		src := laInput(a, dt)
		if dt == Float64 {
			qrCompleteT(laFuncs[float64](lb), src, q, r)
		} else {
			qrCompleteT(laFuncs[float32](lb), src, q, r)
		}
		return q, r, nil
	}
	return nil, nil, fmt.Errorf("qr: unrecognized mode %q (reduced, complete or r)", mode)
}

func qrCompleteT[T float32 | float64](lf *lapackFuncs[T], a, q, r *Array) {
	m, n := a.shape[0], a.shape[1]
	k := min(m, n)
	w := max(m, n)
	buf := make([]T, m*w) // m×max(m, n), column-major: orgqr fills all m columns
	toCol(typed[T](a)[:m*n], m, n, buf, m)
	tau := make([]T, max(k, 1))
	lf.geqrf(m, n, buf, m, tau)
	rr := typed[T](r)[:m*n]
	for i := range k {
		for j := i; j < n; j++ {
			rr[i*n+j] = buf[j*m+i]
		}
	}
	lf.orgqr(m, m, k, buf, m, tau)
	fromCol(buf, m, m, m, typed[T](q)[:m*m])
}

// LstsqRcondDefault is NumPy's default rcond for lstsq of an m×n matrix
// (NumPy 2, and NumPy 1.14+ with rcond=None): machine epsilon times
// max(m, n).
func LstsqRcondDefault(m, n int, dt DType) float64 {
	eps := 0x1p-52
	if dt == Float32 {
		eps = 0x1p-23
	}
	return eps * float64(max(m, n))
}

// Lstsq is numpy.linalg.lstsq for a 2-D a (M, N) and b (M,) or (M, K): the
// x minimising ||b - a x||₂ (the one of least norm when a is rank
// deficient), the squared residual norms ((K,), or (1,) for a 1-D b, when
// M > N; (0,) otherwise), a's effective rank (int64) and its singular
// values (min(M, N),). Singular values at most rcond times the largest
// count as zero; rcond < 0 means machine epsilon.
//
// It goes through QR: a = Q R (a tall one; aᵀ's for a wide one), then the
// SVD of the small R gives the singular values and rank. At full rank x is
// R⁻¹ Qᵀ b (wide: Q R⁻ᵀ b); otherwise the pseudo-inverse through R's SVD.
// Unlike NumPy, whose residuals are empty when a is rank deficient, the
// residuals are computed whenever M > N.
func Lstsq(a, b *Array, rcond float64) (x, residuals, rank, s *Array, err error) {
	return lstsqWith(laDefault(), a, b, rcond)
}

func lstsqWith(lb *lapackBackend, a, b *Array, rcond float64) (x, residuals, rank, s *Array, err error) {
	if err := laCheck(a, false); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("lstsq: %w", err)
	}
	if a.NDim() != 2 {
		return nil, nil, nil, nil, fmt.Errorf("lstsq: a of shape %v: only a 2-D a is supported", a.shape)
	}
	if b == nil || !b.dtype.Valid() || b.NDim() < 1 || b.NDim() > 2 || b.shape[0] != a.shape[0] {
		var bs []int
		if b != nil {
			bs = b.shape
		}
		return nil, nil, nil, nil, fmt.Errorf("lstsq: a of shape %v and b of shape %v: Incompatible dimensions", a.shape, bs)
	}
	dt := LinalgFloat(Promote(a.dtype, b.dtype))
	if rcond < 0 {
		rcond = LstsqRcondDefault(1, 1, dt)
	}
	m, n := a.shape[0], a.shape[1]
	b2 := b
	if b.NDim() == 1 {
		if b2, err = b.Reshape(m, 1); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	kk := b2.shape[1]
	if dt == Float64 {
		x, s, rank, err = lstsqT[float64](lb, a, laInput(b2, dt), rcond)
	} else {
		x, s, rank, err = lstsqT[float32](lb, a, laInput(b2, dt), rcond)
	}
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("lstsq: %w", err)
	}
	// Residuals b - a x, summed squared per column, when M > N.
	residuals = newArray(dt, []int{0})
	if m > n {
		ax, err := MatMul(laInput(a, dt), x)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		bc := laInput(b2, dt)
		residuals = newArray(dt, []int{kk})
		for j := range kk {
			acc := 0.0
			for i := range m {
				d := bc.AtFlat(i*kk+j) - ax.AtFlat(i*kk+j)
				acc += d * d
			}
			residuals.SetFlat(j, acc)
		}
	}
	if b.NDim() == 1 {
		if x, err = x.Reshape(n); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	return x, residuals, rank, s, nil
}

// lstsqT solves in T; b is contiguous (m, K). It returns x (n, K), the
// singular values and the rank.
func lstsqT[T float32 | float64](lb *lapackBackend, a, b *Array, rcond float64) (x, s, rank *Array, err error) {
	lf := laFuncs[T](lb)
	m, n := a.shape[0], a.shape[1]
	kk := b.shape[1]
	k := min(m, n)
	dt := b.dtype
	x = newArray(dt, []int{n, kk})
	s = newArray(dt, []int{k})
	rank = newArray(Int64, nil)
	if k == 0 || kk == 0 {
		return x, s, rank, nil
	}
	tall := m >= n
	fa := a
	if !tall {
		if fa, err = a.Transpose(1, 0); err != nil {
			return nil, nil, nil, err
		}
	}
	fm, fn := fa.shape[0], fa.shape[1] // fa = Q R, fm >= fn = k
	f, err := qrFactorWith(lb, []*Array{fa}, dt)
	if err != nil {
		return nil, nil, nil, err
	}
	r, err := QRFactorR(f, fm, fn)
	if err != nil {
		return nil, nil, nil, err
	}
	ur, sr, vtr, err := svdWith(lb, r)
	if err != nil {
		return nil, nil, nil, err
	}
	CopyInto(s, sr)
	sv := typed[T](sr)[:k]
	cut := rcond * float64(sv[0])
	nr := 0
	for _, v := range sv {
		if float64(v) > cut {
			nr++
		}
	}
	rank.SetFlat(0, float64(nr))
	rr := typed[T](r)[:k*k]
	// pinvSmall returns V S⁺ Uᵀ c for R = U S Vᵀ (c is k×K): R⁺ c.
	pinvSmall := func(c []T, transR bool) []T {
		u, vt := typed[T](ur)[:k*k], typed[T](vtr)[:k*k]
		if transR { // Rᵀ = V S Uᵀ: (Rᵀ)⁺ = U S⁺ Vᵀ
			u, vt = transposeSquare(vt, k), transposeSquare(u, k)
		}
		t := make([]T, k*kk)
		lf.gemm(blas.Trans, blas.NoTrans, k, kk, k, 1, u, k, c, kk, 0, t, kk)
		for i := range k {
			inv := T(0)
			if i < nr {
				inv = 1 / sv[i]
			}
			for j := range kk {
				t[i*kk+j] *= inv
			}
		}
		out := make([]T, k*kk)
		lf.gemm(blas.Trans, blas.NoTrans, k, kk, k, 1, vt, k, t, kk, 0, out, kk)
		return out
	}
	if tall {
		// x = R⁻¹ Qᵀ b (or R⁺ Qᵀ b)
		c, err := qrApplyTWith(lb, f, fm, fn, b)
		if err != nil {
			return nil, nil, nil, err
		}
		cs := typed[T](c)[:k*kk]
		if nr == k {
			lf.trsm(blas.Left, blas.Upper, blas.NoTrans, blas.NonUnit, k, kk, 1, rr, k, cs, kk)
			copy(typed[T](x)[:n*kk], cs)
		} else {
			copy(typed[T](x)[:n*kk], pinvSmall(cs, false))
		}
		return x, s, rank, nil
	}
	// Wide: a = Rᵀ Qᵀ, x = Q (Rᵀ)⁻¹ b (or Q (Rᵀ)⁺ b), of least norm.
	z := make([]T, k*kk)
	copy(z, typed[T](b)[:k*kk])
	if nr == k {
		lf.trsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, k, kk, 1, rr, k, z, kk)
	} else {
		z = pinvSmall(z, true)
	}
	za := newArray(dt, []int{k, kk})
	copy(typed[T](za)[:k*kk], z)
	xq, err := qrApplyWith(lb, f, fm, fn, za, kk)
	if err != nil {
		return nil, nil, nil, err
	}
	return xq, s, rank, nil
}

// transposeSquare is the transpose of the row-major k×k matrix a.
func transposeSquare[T float32 | float64](a []T, k int) []T {
	t := make([]T, k*k)
	for i := range k {
		for j := range k {
			t[j*k+i] = a[i*k+j]
		}
	}
	return t
}
