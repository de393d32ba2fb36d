//go:build !phobos_noopenblas && (linux || darwin || freebsd || netbsd)

package ndarray

import (
	"fmt"
	"runtime"

	"github.com/ebitengine/purego"
)

type fSyevd[T any] func(jobz, uplo *byte, n *int32, a *T, lda *int32, w, work *T, lwork, iwork, liwork, info *int32, jobzLen, uploLen uintptr)

// openblasEighBackend binds dsyevd_ and ssyevd_ of ob's library.
func openblasEighBackend(ob *mmOpenBLAS) (*eighBackend, error) {
	d, err := bindSyevd[float64](ob, "dsyevd_")
	if err != nil {
		return nil, err
	}
	s, err := bindSyevd[float32](ob, "ssyevd_")
	if err != nil {
		return nil, err
	}
	return &eighBackend{d: d, s: s}, nil
}

func bindSyevd[T float32 | float64](ob *mmOpenBLAS, name string) (syevFunc[T], error) {
	sym, err := purego.Dlsym(ob.handle, name)
	if err != nil {
		return nil, fmt.Errorf("%s: no LAPACK symbol %s", ob.path, name)
	}
	var syevd fSyevd[T]
	purego.RegisterFunc(&syevd, sym)
	return func(vectors, upper bool, n int, a []T, lda int, w []T) int {
		if n == 0 {
			return 0
		}
		jobz, uplo := byte('N'), byte('L')
		if vectors {
			jobz = 'V'
		}
		if upper {
			uplo = 'U'
		}
		N, LDA := i32(n), i32(lda)
		var info int32
		// Workspace query first: the sizes depend on jobz and n.
		var wq T
		var iq int32
		lw, liw := int32(-1), int32(-1)
		ob.sem <- struct{}{}
		defer func() { <-ob.sem }()
		syevd(&jobz, &uplo, &N, &a[0], &LDA, &w[0], &wq, &lw, &iq, &liw, &info, 1, 1)
		if info != 0 {
			return int(info)
		}
		work := make([]T, max(1, int(wq)))
		iwork := make([]int32, max(1, int(iq)))
		lw, liw = i32(len(work)), i32(len(iwork))
		syevd(&jobz, &uplo, &N, &a[0], &LDA, &w[0], &work[0], &lw, &iwork[0], &liw, &info, 1, 1)
		runtime.KeepAlive(a)
		runtime.KeepAlive(w)
		runtime.KeepAlive(work)
		runtime.KeepAlive(iwork)
		return int(info)
	}, nil
}
