package ndarray

import (
	"os"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// The dense linear-algebra kernels (QR, SVD, Cholesky, LU solves) run on one
// of two LAPACK backends, chosen once like the BLAS of MatMul: the LAPACK
// inside the OpenBLAS library MatMul already loaded (its Fortran symbols,
// called through purego: lapack_openblas.go), or gonum's pure-Go LAPACK.
// PHOBOS_BLAS=gonum forces gonum; so does a library without the symbols.
//
// A backend is a table of routines in LAPACK's own convention: column-major
// matrices with leading dimensions, info returned (0 success, > 0 the
// routine's own failure such as a zero pivot). gonum's LAPACK is row-major,
// so its adapters transpose in and out; the kernels transpose row-major
// arrays into column-major scratch once, which costs O(mn) next to the
// O(mn·min(m,n)) of the factorisations. gemm and trsm are row-major, as in
// MatMul. gonum has no float32 LAPACK: its float32 routines compute in
// float64 and round the results.

// lapackFuncs are one backend's routines for element type T.
type lapackFuncs[T float32 | float64] struct {
	// geqrt is xGEQRT with NB = min(m, n): the QR factorisation with R on
	// and above the diagonal of a, the Householder vectors V below it
	// (unit diagonal implied) and the k×k upper-triangular T of the
	// compact WY form Q = I - V T Vᵀ in t (k = min(m, n)).
	geqrt func(m, n int, a []T, lda int, t []T, ldt int) int
	// geqrf and orgqr are xGEQRF and xORGQR.
	geqrf func(m, n int, a []T, lda int, tau []T) int
	orgqr func(m, n, k int, a []T, lda int, tau []T) int
	// gesdd is xGESDD with JOBZ = 'S' (xGESVD in gonum): a is destroyed,
	// s gets the min(m, n) singular values in descending order, u the
	// m×k left and vt the k×n right singular vectors.
	gesdd func(m, n int, a []T, lda int, s, u []T, ldu int, vt []T, ldvt int) int
	// potrf is xPOTRF with UPLO = 'L'.
	potrf func(n int, a []T, lda int) int
	// getrf is xGETRF; ipiv is 1-based, as LAPACK's.
	getrf func(m, n int, a []T, lda int, ipiv []int32) int
	// getrs is xGETRS (TRANS = 'N', or 'T' if trans).
	getrs func(trans bool, n, nrhs int, a []T, lda int, ipiv []int32, b []T, ldb int) int
	// gemm and trsm are row-major BLAS (gonum's convention).
	gemm mmGemmFunc[T]
	trsm func(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha T, a []T, lda int, b []T, ldb int)
}

// lapackBackend is a LAPACK for both float types.
type lapackBackend struct {
	name string
	d    lapackFuncs[float64]
	s    lapackFuncs[float32]
}

// laFuncs returns b's routines for T.
func laFuncs[T float32 | float64](b *lapackBackend) *lapackFuncs[T] {
	var z T
	if _, ok := any(z).(float64); ok {
		return any(&b.d).(*lapackFuncs[T])
	}
	return any(&b.s).(*lapackFuncs[T])
}

var laImpl struct {
	once     sync.Once
	b        *lapackBackend
	openblas *lapackBackend // nil when OpenBLAS or its LAPACK is not there
}

func laLoad() {
	laImpl.b = gonumLapackBackend()
	if strings.EqualFold(strings.TrimSpace(os.Getenv("PHOBOS_BLAS")), "gonum") {
		return
	}
	if ob, ok := mmBLAS.get().(*mmOpenBLAS); ok {
		if b, err := openblasLapackBackend(ob); err == nil {
			laImpl.b, laImpl.openblas = b, b
		}
	}
}

// laDefault is the backend the kernels use.
func laDefault() *lapackBackend {
	laImpl.once.Do(laLoad)
	return laImpl.b
}

// LAPACKBackend names the LAPACK the linear-algebra kernels use:
// "openblas <core> (<library path>)" when the OpenBLAS library MatMul loaded
// has LAPACK's symbols, else "gonum (pure Go)".
func LAPACKBackend() string { return laDefault().name }

// gonumLapackBackend is gonum's LAPACK and BLAS.
func gonumLapackBackend() *lapackBackend {
	var bl gonumblas.Implementation
	b := &lapackBackend{name: "gonum (pure Go)", d: gonumLapack[float64](), s: gonumLapack[float32]()}
	b.d.gemm, b.d.trsm = bl.Dgemm, bl.Dtrsm
	b.s.gemm, b.s.trsm = bl.Sgemm, bl.Strsm
	return b
}

// colToRow64 copies the column-major m×n matrix a (leading dimension lda)
// into a new row-major float64 matrix.
func colToRow64[T float32 | float64](a []T, m, n, lda int) []float64 {
	w := make([]float64, m*n)
	for j := range n {
		col := a[j*lda : j*lda+m]
		for i, v := range col {
			w[i*n+j] = float64(v)
		}
	}
	return w
}

// rowToCol copies the row-major float64 m×n matrix w (leading dimension
// ldw) into the column-major a (leading dimension lda).
func rowToCol[T float32 | float64](w []float64, m, n, ldw int, a []T, lda int) {
	for i := range m {
		row := w[i*ldw : i*ldw+n]
		for j, v := range row {
			a[j*lda+i] = T(v)
		}
	}
}

// The QR adapters call gonum's unblocked Dgeqr2 and Dorg2r, not Dgeqrf and
// Dorgqr, whose blocked paths (over 128 columns) build their block
// reflectors with that Dlarft.
//
// larftForward is LAPACK's DLARFT (forward, columnwise) on the reflectors
// that Dgeqrf left in the row-major m×n w (leading dimension ld): the k×k
// upper-triangular T (row-major) with H_0 H_1 ... H_{k-1} = I - V T Vᵀ.
// gonum's own Dlarft is not used: in v0.17 it translates LAPACK's 1-based
// "IF (I > 1)" as "i > 1" with a 0-based i, so after the second reflector
// it forgets where the first one's nonzeros end, and its T is wrong when
// reflectors end in zeros, as those of stacked R factors and
// rank-deficient blocks do (TestQRTreeRankDeficient).
func larftForward(m, k int, w []float64, ld int, tau []float64) []float64 {
	t := make([]float64, k*k)
	z := make([]float64, k)
	for i := range k {
		if tau[i] == 0 {
			continue // H_i = I: column i of T is zero
		}
		// z = -tau_i Vᵀ v_i over the reflectors before i (v_i is 0 above
		// row i and 1 at it; V is unit lower trapezoidal).
		for j := range i {
			s := w[i*ld+j]
			for l := i + 1; l < m; l++ {
				s += w[l*ld+j] * w[l*ld+i]
			}
			z[j] = -tau[i] * s
		}
		for r := range i {
			acc := 0.0
			for c := r; c < i; c++ {
				acc += t[r*k+c] * z[c]
			}
			t[r*k+i] = acc
		}
		t[i*k+i] = tau[i]
	}
	return t
}

// gonumWork runs a gonum routine's workspace query and returns the work slice.
func gonumWork(query func(work []float64, lwork int)) []float64 {
	w := make([]float64, 1)
	query(w, -1)
	return make([]float64, max(1, int(w[0])))
}

// gonumLapack adapts gonum's row-major float64 LAPACK to the column-major
// convention of lapackFuncs, for float64 and (computing in float64) float32.
func gonumLapack[T float32 | float64]() lapackFuncs[T] {
	var impl gonumlapack.Implementation
	return lapackFuncs[T]{
		geqrt: func(m, n int, a []T, lda int, t []T, ldt int) int {
			k := min(m, n)
			if k == 0 {
				return 0
			}
			w := colToRow64(a, m, n, lda)
			tau := make([]float64, k)
			impl.Dgeqr2(m, n, w, n, tau, make([]float64, n))
			tt := larftForward(m, k, w, n, tau)
			rowToCol(w, m, n, n, a, lda)
			rowToCol(tt, k, k, k, t, ldt)
			return 0
		},
		geqrf: func(m, n int, a []T, lda int, tau []T) int {
			k := min(m, n)
			if k == 0 {
				return 0
			}
			w := colToRow64(a, m, n, lda)
			tw := make([]float64, k)
			impl.Dgeqr2(m, n, w, n, tw, make([]float64, n))
			rowToCol(w, m, n, n, a, lda)
			for i, v := range tw {
				tau[i] = T(v)
			}
			return 0
		},
		orgqr: func(m, n, k int, a []T, lda int, tau []T) int {
			if n == 0 {
				return 0
			}
			w := colToRow64(a, m, n, lda)
			tw := make([]float64, k)
			for i := range tw {
				tw[i] = float64(tau[i])
			}
			impl.Dorg2r(m, n, k, w, n, tw, make([]float64, n))
			rowToCol(w, m, n, n, a, lda)
			return 0
		},
		gesdd: func(m, n int, a []T, lda int, s, u []T, ldu int, vt []T, ldvt int) int {
			k := min(m, n)
			if k == 0 {
				return 0
			}
			w := colToRow64(a, m, n, lda)
			sw := make([]float64, k)
			uw := make([]float64, m*k)
			vw := make([]float64, k*n)
			work := gonumWork(func(work []float64, lwork int) {
				impl.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, w, n, sw, uw, k, vw, n, work, lwork)
			})
			if !impl.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, w, n, sw, uw, k, vw, n, work, len(work)) {
				return 1
			}
			for i, v := range sw {
				s[i] = T(v)
			}
			rowToCol(uw, m, k, k, u, ldu)
			rowToCol(vw, k, n, n, vt, ldvt)
			return 0
		},
		potrf: func(n int, a []T, lda int) int {
			if n == 0 {
				return 0
			}
			w := colToRow64(a, n, n, lda)
			if !impl.Dpotrf(blas.Lower, n, w, n) {
				return 1
			}
			rowToCol(w, n, n, n, a, lda)
			return 0
		},
		getrf: func(m, n int, a []T, lda int, ipiv []int32) int {
			k := min(m, n)
			if k == 0 {
				return 0
			}
			w := colToRow64(a, m, n, lda)
			iw := make([]int, k)
			ok := impl.Dgetrf(m, n, w, n, iw)
			rowToCol(w, m, n, n, a, lda)
			for i, p := range iw {
				ipiv[i] = int32(p + 1)
			}
			if !ok {
				// LAPACK's info: the first zero diagonal element of U (1-based).
				for i := range k {
					if w[i*n+i] == 0 {
						return i + 1
					}
				}
				return k
			}
			return 0
		},
		getrs: func(trans bool, n, nrhs int, a []T, lda int, ipiv []int32, b []T, ldb int) int {
			if n == 0 || nrhs == 0 {
				return 0
			}
			w := colToRow64(a, n, n, lda)
			bw := colToRow64(b, n, nrhs, ldb)
			iw := make([]int, n)
			for i := range iw {
				iw[i] = int(ipiv[i]) - 1
			}
			t := blas.NoTrans
			if trans {
				t = blas.Trans
			}
			impl.Dgetrs(t, n, nrhs, w, n, iw, bw, nrhs)
			rowToCol(bw, n, nrhs, nrhs, b, ldb)
			return 0
		},
	}
}
