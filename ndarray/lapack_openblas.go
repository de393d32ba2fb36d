//go:build !phobos_noopenblas && (linux || darwin || freebsd || netbsd)

package ndarray

import (
	"fmt"
	"math"
	"runtime"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"
)

// OpenBLAS's LAPACK through purego: the Fortran symbols (dgeqrf_, ...) of
// the library MatMul loaded. Fortran passes every argument by reference;
// a CHARACTER argument is followed, at the end of the list, by its hidden
// length (gfortran's ABI), which is passed even though LAPACK reads only
// the first character, because omitting it is undefined behaviour that
// recent gfortran builds do trip over.

type (
	fGeqrt[T any] func(m, n, nb *int32, a *T, lda *int32, t *T, ldt *int32, work *T, info *int32)
	fGeqrf[T any] func(m, n *int32, a *T, lda *int32, tau, work *T, lwork, info *int32)
	fOrgqr[T any] func(m, n, k *int32, a *T, lda *int32, tau, work *T, lwork, info *int32)
	fGesdd[T any] func(jobz *byte, m, n *int32, a *T, lda *int32, s, u *T, ldu *int32, vt *T, ldvt *int32, work *T, lwork, iwork, info *int32, jobzLen uintptr)
	fPotrf[T any] func(uplo *byte, n *int32, a *T, lda, info *int32, uploLen uintptr)
	fGetrf[T any] func(m, n *int32, a *T, lda, ipiv, info *int32)
	fGetrs[T any] func(trans *byte, n, nrhs *int32, a *T, lda, ipiv *int32, b *T, ldb, info *int32, transLen uintptr)
)

// openblasLapackBackend binds the LAPACK routines of ob's library; it fails
// when any is missing (an OpenBLAS built without LAPACK).
func openblasLapackBackend(ob *mmOpenBLAS) (*lapackBackend, error) {
	if ob.dtrsm == nil || ob.strsm == nil {
		return nil, fmt.Errorf("%s: no cblas_dtrsm/cblas_strsm", ob.path)
	}
	d, err := bindLapack[float64](ob, "d")
	if err != nil {
		return nil, err
	}
	s, err := bindLapack[float32](ob, "s")
	if err != nil {
		return nil, err
	}
	d.gemm, d.trsm = ob.Dgemm, ob.Dtrsm
	s.gemm, s.trsm = ob.Sgemm, ob.Strsm
	name := "openblas (" + ob.path + ")"
	if ob.core != "" {
		name = "openblas " + ob.core + " (" + ob.path + ")"
	}
	return &lapackBackend{name: name, d: d, s: s}, nil
}

// i32 converts LAPACK sizes; the kernels keep every matrix they hand to
// LAPACK far below 2^31 elements per dimension, so a larger one is a bug.
func i32(v int) int32 {
	if v < 0 || v > math.MaxInt32 {
		panic(fmt.Sprintf("ndarray: LAPACK size %d does not fit a 32-bit integer", v))
	}
	return int32(v)
}

func bindLapack[T float32 | float64](ob *mmOpenBLAS, p string) (lapackFuncs[T], error) {
	var (
		geqrt fGeqrt[T]
		geqrf fGeqrf[T]
		orgqr fOrgqr[T]
		gesdd fGesdd[T]
		potrf fPotrf[T]
		getrf fGetrf[T]
		getrs fGetrs[T]
	)
	for _, f := range []struct {
		name string
		fn   any
	}{
		{p + "geqrt_", &geqrt}, {p + "geqrf_", &geqrf}, {p + "orgqr_", &orgqr}, {p + "gesdd_", &gesdd},
		{p + "potrf_", &potrf}, {p + "getrf_", &getrf}, {p + "getrs_", &getrs},
	} {
		sym, err := purego.Dlsym(ob.handle, f.name)
		if err != nil {
			return lapackFuncs[T]{}, fmt.Errorf("%s: no LAPACK symbol %s", ob.path, f.name)
		}
		purego.RegisterFunc(f.fn, sym)
	}
	// call runs fn holding one of the library's slots (see mmOpenBLAS.sem).
	call := func(fn func()) {
		ob.sem <- struct{}{}
		defer func() { <-ob.sem }()
		fn()
	}
	// query is a workspace query's answer.
	query := func(w T) int { return max(1, int(w)) }
	return lapackFuncs[T]{
		geqrt: func(m, n int, a []T, lda int, t []T, ldt int) int {
			k := min(m, n)
			if k == 0 {
				return 0
			}
			M, N, NB, LDA, LDT := i32(m), i32(n), i32(k), i32(lda), i32(ldt)
			work := make([]T, k*n)
			var info int32
			call(func() { geqrt(&M, &N, &NB, &a[0], &LDA, &t[0], &LDT, &work[0], &info) })
			runtime.KeepAlive(a)
			runtime.KeepAlive(t)
			return int(info)
		},
		geqrf: func(m, n int, a []T, lda int, tau []T) int {
			if min(m, n) == 0 {
				return 0
			}
			M, N, LDA, LW := i32(m), i32(n), i32(lda), int32(-1)
			var info int32
			var w [1]T
			call(func() { geqrf(&M, &N, &a[0], &LDA, &tau[0], &w[0], &LW, &info) })
			work := make([]T, query(w[0]))
			LW = i32(len(work))
			call(func() { geqrf(&M, &N, &a[0], &LDA, &tau[0], &work[0], &LW, &info) })
			runtime.KeepAlive(a)
			runtime.KeepAlive(tau)
			return int(info)
		},
		orgqr: func(m, n, k int, a []T, lda int, tau []T) int {
			if n == 0 {
				return 0
			}
			M, N, K, LDA, LW := i32(m), i32(n), i32(k), i32(lda), int32(-1)
			var info int32
			var w [1]T
			tp := &w[0] // tau may be empty when k == 0
			if k > 0 {
				tp = &tau[0]
			}
			call(func() { orgqr(&M, &N, &K, &a[0], &LDA, tp, &w[0], &LW, &info) })
			work := make([]T, query(w[0]))
			LW = i32(len(work))
			call(func() { orgqr(&M, &N, &K, &a[0], &LDA, tp, &work[0], &LW, &info) })
			runtime.KeepAlive(a)
			runtime.KeepAlive(tau)
			return int(info)
		},
		gesdd: func(m, n int, a []T, lda int, s, u []T, ldu int, vt []T, ldvt int) int {
			k := min(m, n)
			if k == 0 {
				return 0
			}
			jobz := byte('S')
			M, N, LDA, LDU, LDVT, LW := i32(m), i32(n), i32(lda), i32(ldu), i32(ldvt), int32(-1)
			iwork := make([]int32, 8*k)
			var info int32
			var w [1]T
			call(func() {
				gesdd(&jobz, &M, &N, &a[0], &LDA, &s[0], &u[0], &LDU, &vt[0], &LDVT, &w[0], &LW, &iwork[0], &info, 1)
			})
			work := make([]T, query(w[0]))
			LW = i32(len(work))
			call(func() {
				gesdd(&jobz, &M, &N, &a[0], &LDA, &s[0], &u[0], &LDU, &vt[0], &LDVT, &work[0], &LW, &iwork[0], &info, 1)
			})
			runtime.KeepAlive(a)
			runtime.KeepAlive(s)
			runtime.KeepAlive(u)
			runtime.KeepAlive(vt)
			return int(info)
		},
		potrf: func(n int, a []T, lda int) int {
			if n == 0 {
				return 0
			}
			uplo := byte('L')
			N, LDA := i32(n), i32(lda)
			var info int32
			call(func() { potrf(&uplo, &N, &a[0], &LDA, &info, 1) })
			runtime.KeepAlive(a)
			return int(info)
		},
		getrf: func(m, n int, a []T, lda int, ipiv []int32) int {
			if min(m, n) == 0 {
				return 0
			}
			M, N, LDA := i32(m), i32(n), i32(lda)
			var info int32
			call(func() { getrf(&M, &N, &a[0], &LDA, &ipiv[0], &info) })
			runtime.KeepAlive(a)
			runtime.KeepAlive(ipiv)
			return int(info)
		},
		getrs: func(trans bool, n, nrhs int, a []T, lda int, ipiv []int32, b []T, ldb int) int {
			if n == 0 || nrhs == 0 {
				return 0
			}
			tr := byte('N')
			if trans {
				tr = 'T'
			}
			N, NRHS, LDA, LDB := i32(n), i32(nrhs), i32(lda), i32(ldb)
			var info int32
			call(func() { getrs(&tr, &N, &NRHS, &a[0], &LDA, &ipiv[0], &b[0], &LDB, &info, 1) })
			runtime.KeepAlive(a)
			runtime.KeepAlive(ipiv)
			runtime.KeepAlive(b)
			return int(info)
		},
	}, nil
}

// CBLAS enums of trsm (cblas.h).
const (
	mmCblasLeft    = 141
	mmCblasRight   = 142
	mmCblasUpper   = 121
	mmCblasLower   = 122
	mmCblasNonUnit = 131
	mmCblasUnit    = 132
)

// mmTrsmOK checks trsm arguments as reference BLAS does (row-major B m×n,
// triangular A of order m on the left or n on the right).
func mmTrsmOK(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n, la, lda, lb, ldb int) bool {
	if m <= 0 || n <= 0 {
		return false
	}
	if (s != blas.Left && s != blas.Right) || (ul != blas.Upper && ul != blas.Lower) ||
		(tA != blas.NoTrans && tA != blas.Trans) || (d != blas.Unit && d != blas.NonUnit) {
		return false
	}
	k := n
	if s == blas.Left {
		k = m
	}
	const lim = 1<<31 - 1
	for _, v := range []int{m, n, lda, ldb} {
		if v > lim {
			return false
		}
	}
	return lda >= k && la >= lda*(k-1)+k && ldb >= n && lb >= ldb*(m-1)+n
}

func mmTrsmEnums(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag) (side, uplo, trans, diag int32) {
	side, uplo, diag = mmCblasRight, mmCblasLower, mmCblasNonUnit
	if s == blas.Left {
		side = mmCblasLeft
	}
	if ul == blas.Upper {
		uplo = mmCblasUpper
	}
	if d == blas.Unit {
		diag = mmCblasUnit
	}
	return side, uplo, mmCblasTranspose(tA), diag
}

// Dtrsm is cblas_dtrsm in row-major order (gonum's Dtrsm convention).
func (o *mmOpenBLAS) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if o.dtrsm == nil || !mmTrsmOK(s, ul, tA, d, m, n, len(a), lda, len(b), ldb) {
		o.pure.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	side, uplo, trans, diag := mmTrsmEnums(s, ul, tA, d)
	o.sem <- struct{}{}
	o.dtrsm(mmCblasRowMajor, side, uplo, trans, diag, int32(m), int32(n), alpha, &a[0], int32(lda), &b[0], int32(ldb))
	<-o.sem
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}

// Strsm is Dtrsm for float32.
func (o *mmOpenBLAS) Strsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int) {
	if o.strsm == nil || !mmTrsmOK(s, ul, tA, d, m, n, len(a), lda, len(b), ldb) {
		o.pure.Strsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	side, uplo, trans, diag := mmTrsmEnums(s, ul, tA, d)
	o.sem <- struct{}{}
	o.strsm(mmCblasRowMajor, side, uplo, trans, diag, int32(m), int32(n), alpha, &a[0], int32(lda), &b[0], int32(ldb))
	<-o.sem
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}
