package ndarray

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// The symmetric eigendecomposition (numpy.linalg.eigh, eigvalsh) runs on
// xSYEVD, the divide-and-conquer driver NumPy calls, from the same backend
// as the other dense kernels (lapack.go): OpenBLAS's LAPACK when it is the
// backend in use and has the symbols (eigh_openblas.go), else gonum's
// Dsyev (QL/QR iteration; float32 computed in float64). It is kept apart
// from lapackFuncs so the shared table stays as it is.

// syevFunc is xSYEVD in LAPACK's convention: a column-major n×n (leading
// dimension lda), the triangle named by upper read; w gets the eigenvalues
// in ascending order and, when vectors, a's columns the orthonormal
// eigenvectors. The result is LAPACK's info (> 0: no convergence).
type syevFunc[T float32 | float64] func(vectors, upper bool, n int, a []T, lda int, w []T) int

type eighBackend struct {
	d syevFunc[float64]
	s syevFunc[float32]
}

var eighImpl struct {
	once sync.Once
	b    *eighBackend
}

// eighDefault is the backend matching laDefault.
func eighDefault() *eighBackend {
	eighImpl.once.Do(func() {
		eighImpl.b = gonumEighBackend()
		lb := laDefault()
		if laImpl.openblas == nil || lb != laImpl.openblas {
			return
		}
		if ob, ok := mmBLAS.get().(*mmOpenBLAS); ok {
			if b, err := openblasEighBackend(ob); err == nil {
				eighImpl.b = b
			}
		}
	})
	return eighImpl.b
}

func gonumEighBackend() *eighBackend {
	return &eighBackend{d: gonumSyev[float64](), s: gonumSyev[float32]()}
}

func gonumSyev[T float32 | float64]() syevFunc[T] {
	var impl gonumlapack.Implementation
	return func(vectors, upper bool, n int, a []T, lda int, w []T) int {
		if n == 0 {
			return 0
		}
		m := colToRow64(a, n, n, lda)
		ul := blas.Lower
		if upper {
			ul = blas.Upper
		}
		job := lapack.EVNone
		if vectors {
			job = lapack.EVCompute
		}
		ww := make([]float64, n)
		work := gonumWork(func(work []float64, lwork int) { impl.Dsyev(job, ul, n, m, n, ww, work, lwork) })
		if !impl.Dsyev(job, ul, n, m, n, ww, work, len(work)) {
			return 1
		}
		for i, v := range ww {
			w[i] = T(v)
		}
		if vectors {
			// Dsyev leaves the eigenvectors in the row-major columns.
			rowToCol(m, n, n, n, a, lda)
		}
		return 0
	}
}

func syevFor[T float32 | float64](b *eighBackend) syevFunc[T] {
	var z T
	if _, ok := any(z).(float64); ok {
		return any(b.d).(syevFunc[T])
	}
	return any(b.s).(syevFunc[T])
}

// Eigh is numpy.linalg.eigh for every matrix of a (..., M, M): the
// eigenvalues w (..., M), ascending, and the eigenvectors v (..., M, M),
// v[..., :, i] belonging to w[..., i]. Only the lower triangle of each
// matrix is read, or the upper one when upper. float32 stays float32;
// other dtypes compute in float64.
func Eigh(a *Array, upper bool) (w, v *Array, err error) {
	return eighWith(eighDefault(), a, upper, true)
}

// EigvalsH is numpy.linalg.eigvalsh: Eigh's eigenvalues, without the
// eigenvectors.
func EigvalsH(a *Array, upper bool) (*Array, error) {
	w, _, err := eighWith(eighDefault(), a, upper, false)
	return w, err
}

func eighWith(b *eighBackend, a *Array, upper, vectors bool) (w, v *Array, err error) {
	name := "eigvalsh"
	if vectors {
		name = "eigh"
	}
	if err := laCheck(a, true); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	dt := LinalgFloat(a.dtype)
	src := laInput(a, dt)
	w = newArray(dt, a.shape[:a.NDim()-1])
	if vectors {
		v = newArray(dt, a.shape)
	}
	if dt == Float64 {
		err = eighT(syevFor[float64](b), src, w, v, upper)
	} else {
		err = eighT(syevFor[float32](b), src, w, v, upper)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return w, v, nil
}

func eighT[T float32 | float64](syev syevFunc[T], src, w, v *Array, upper bool) error {
	n := src.shape[src.NDim()-1]
	if n == 0 {
		return nil
	}
	s, ws := typed[T](src), typed[T](w)
	buf := make([]T, n*n)
	for k := range src.Size() / (n * n) {
		toCol(s[k*n*n:(k+1)*n*n], n, n, buf, n)
		if info := syev(v != nil, upper, n, buf, n, ws[k*n:(k+1)*n]); info != 0 {
			return linAlgErrorf("Eigenvalues did not converge")
		}
		if v != nil {
			fromCol(buf, n, n, n, typed[T](v)[k*n*n:(k+1)*n*n])
		}
	}
	return nil
}
