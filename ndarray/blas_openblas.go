//go:build !phobos_noopenblas && (linux || darwin || freebsd || netbsd)

// OpenBLAS through purego. Note that importing purego makes every binary
// dynamically linked against libc, even with CGO_ENABLED=0; build with
// -tags phobos_noopenblas for a static, pure-Go BLAS (blas_openblas_stub.go).

package ndarray

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// mmOpenBLASPaths are tried in order with dlopen.
var mmOpenBLASPaths = []string{
	"libopenblas.so.0",
	"libopenblas.so",
	"/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
	"/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
	"libopenblas.dylib",
}

// CBLAS enum values (cblas.h).
const (
	mmCblasRowMajor = 101
	mmCblasNoTrans  = 111
	mmCblasTrans    = 112
)

// mmOpenBLAS calls cblas_dgemm/cblas_sgemm of a dlopen'ed OpenBLAS (LP64
// build: 32-bit blasint). OpenBLAS is set to one thread because Phobos
// parallelises over chunks; sem bounds how many goroutines are inside
// OpenBLAS at once (each holds an OS thread and an OpenBLAS buffer).
type mmOpenBLAS struct {
	path  string
	core  string // the kernels OpenBLAS chose (openblas_get_corename), if it says
	dgemm func(order, tA, tB, m, n, k int32, alpha float64, a *float64, lda int32, b *float64, ldb int32, beta float64, c *float64, ldc int32)
	sgemm func(order, tA, tB, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)
	// dtrsm and strsm are cblas_dtrsm/cblas_strsm, nil if the library
	// lacks them (then the linear-algebra kernels use gonum's).
	dtrsm func(order, side, uplo, tA, diag, m, n int32, alpha float64, a *float64, lda int32, b *float64, ldb int32)
	strsm func(order, side, uplo, tA, diag, m, n int32, alpha float32, a *float32, lda int32, b *float32, ldb int32)
	// dsyrk and ssyrk are cblas_dsyrk/cblas_ssyrk, nil if the library lacks them.
	dsyrk  func(order, uplo, tA, n, k int32, alpha float64, a *float64, lda int32, beta float64, c *float64, ldc int32)
	ssyrk  func(order, uplo, tA, n, k int32, alpha float32, a *float32, lda int32, beta float32, c *float32, ldc int32)
	handle uintptr // the dlopen handle, for the LAPACK symbols (lapack_openblas.go)
	sem    chan struct{}
	pure   gonum.Implementation // argument checking and degenerate sizes
}

// mmStartupCore is the OpenBLAS core named in the C environment at process
// start-up, or "".
//
// OpenBLAS picks its kernels when it is loaded, from CPUID; on virtual CPUs
// that hide their model it falls back to Haswell's AVX2 kernels even where
// AVX-512 is there, which makes dgemm markedly slower than SkylakeX's
// kernels would. Unless the user chose with
// OPENBLAS_CORETYPE, the core for the instructions the CPU has is named in
// OPENBLAS_CORETYPE, which OpenBLAS reads with getenv when it loads. That
// is the C environment (without cgo, os.Setenv does not reach it), and
// setenv is not safe while other threads may read the environment: so it
// is set once, during package initialisation, before main and before any
// goroutine of the program runs C code, and never changed again. Go's own
// environment, which child processes get, is untouched.
var mmStartupCore = mmNameCoreAtStartup()

func mmNameCoreAtStartup() string {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("PHOBOS_BLAS")), "gonum") || os.Getenv("OPENBLAS_CORETYPE") != "" {
		return ""
	}
	hint := mmCoreHint()
	if hint == "" || !mmSetCEnv("OPENBLAS_CORETYPE", hint) {
		return ""
	}
	return hint
}

func mmOpenOpenBLAS() (*mmOpenBLAS, error) {
	var errs []error
	for _, path := range mmOpenBLASPaths {
		h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		d, err1 := purego.Dlsym(h, "cblas_dgemm")
		s, err2 := purego.Dlsym(h, "cblas_sgemm")
		if err1 != nil || err2 != nil {
			errs = append(errs, fmt.Errorf("%s: no cblas_dgemm/cblas_sgemm", path))
			_ = purego.Dlclose(h)
			continue
		}
		ob := &mmOpenBLAS{path: path, handle: h, sem: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))}
		purego.RegisterFunc(&ob.dgemm, d)
		purego.RegisterFunc(&ob.sgemm, s)
		dt, err1 := purego.Dlsym(h, "cblas_dtrsm")
		st, err2 := purego.Dlsym(h, "cblas_strsm")
		if err1 == nil && err2 == nil {
			purego.RegisterFunc(&ob.dtrsm, dt)
			purego.RegisterFunc(&ob.strsm, st)
		}
		dy, err1 := purego.Dlsym(h, "cblas_dsyrk")
		sy, err2 := purego.Dlsym(h, "cblas_ssyrk")
		if err1 == nil && err2 == nil {
			purego.RegisterFunc(&ob.dsyrk, dy)
			purego.RegisterFunc(&ob.ssyrk, sy)
		}
		if t, err := purego.Dlsym(h, "openblas_set_num_threads"); err == nil {
			var setThreads func(n int32)
			purego.RegisterFunc(&setThreads, t)
			setThreads(1)
		}
		if c, err := purego.Dlsym(h, "openblas_get_corename"); err == nil {
			var corename func() string
			purego.RegisterFunc(&corename, c)
			ob.core = corename()
		}
		if real := mmMappedPath("libopenblas"); real != "" {
			ob.path = real
		}
		return ob, nil
	}
	return nil, errors.Join(errs...)
}

// mmCLibs are the C libraries whose setenv mmSetCEnv uses.
var mmCLibs = []string{"libc.so.6", "libc.so", "/usr/lib/libSystem.B.dylib", "libc.so.7"}

// mmSetCEnv sets a variable in the C library's environment (not
// overwriting it) and reports whether it could.
func mmSetCEnv(name, value string) bool {
	for _, lib := range mmCLibs {
		h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			continue
		}
		set, err := purego.Dlsym(h, "setenv")
		if err != nil {
			continue
		}
		var setenv func(name, value string, overwrite int32) int32
		purego.RegisterFunc(&setenv, set)
		return setenv(name, value, 0) == 0
	}
	return false
}

// mmMappedPath returns the file of the first mapping in /proc/self/maps
// whose base name starts with prefix (the library dlopen actually resolved
// to), or "" where there is no /proc.
func mmMappedPath(prefix string) string {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		path := f[len(f)-1]
		if i := strings.LastIndexByte(path, '/'); i >= 0 && strings.HasPrefix(path[i+1:], prefix) {
			return path
		}
	}
	return ""
}

func mmCblasTranspose(t blas.Transpose) int32 {
	if t == blas.NoTrans {
		return mmCblasNoTrans
	}
	return mmCblasTrans
}

// mmGemmOK checks gemm arguments the way reference BLAS does, so that a bad
// call reaches gonum (which panics with a message) instead of letting C read
// past a slice; it also requires every size to fit OpenBLAS's 32-bit ints.
func mmGemmOK(tA, tB blas.Transpose, m, n, k, la, lda, lb, ldb, lc, ldc int) bool {
	if m <= 0 || n <= 0 || k <= 0 {
		return false
	}
	okT := func(t blas.Transpose) bool { return t == blas.NoTrans || t == blas.Trans }
	if !okT(tA) || !okT(tB) {
		return false
	}
	ra, ca := m, k
	if tA != blas.NoTrans {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tB != blas.NoTrans {
		rb, cb = n, k
	}
	const lim = 1<<31 - 1
	for _, v := range []int{m, n, k, lda, ldb, ldc} {
		if v > lim {
			return false
		}
	}
	return lda >= ca && la >= lda*(ra-1)+ca &&
		ldb >= cb && lb >= ldb*(rb-1)+cb &&
		ldc >= n && lc >= ldc*(m-1)+n
}

func (o *mmOpenBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !mmGemmOK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		o.pure.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	o.sem <- struct{}{}
	o.dgemm(mmCblasRowMajor, mmCblasTranspose(tA), mmCblasTranspose(tB), int32(m), int32(n), int32(k),
		alpha, &a[0], int32(lda), &b[0], int32(ldb), beta, &c[0], int32(ldc))
	<-o.sem
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
}

func (o *mmOpenBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !mmGemmOK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		o.pure.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	o.sem <- struct{}{}
	o.sgemm(mmCblasRowMajor, mmCblasTranspose(tA), mmCblasTranspose(tB), int32(m), int32(n), int32(k),
		alpha, &a[0], int32(lda), &b[0], int32(ldb), beta, &c[0], int32(ldc))
	<-o.sem
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
}

// mmSyrkOK reports whether a row-major SYRK call's sizes are in range for
// cblas (gonum's checks and degenerate sizes go to the pure implementation).
func mmSyrkOK(tA blas.Transpose, n, k, la, lda, lc, ldc int) bool {
	const lim = 1<<31 - 1
	if n <= 0 || k <= 0 || n > lim || k > lim || lda > lim || ldc > lim || (tA != blas.NoTrans && tA != blas.Trans) {
		return false
	}
	ra, ca := n, k
	if tA != blas.NoTrans {
		ra, ca = k, n
	}
	return lda >= ca && la >= lda*(ra-1)+ca && ldc >= n && lc >= ldc*(n-1)+n
}

// Dsyrk is cblas_dsyrk in row-major order (gonum's Dsyrk convention).
func (o *mmOpenBLAS) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if o.dsyrk == nil || !mmSyrkOK(tA, n, k, len(a), lda, len(c), ldc) {
		o.pure.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	uplo := int32(mmCblasLower)
	if ul == blas.Upper {
		uplo = mmCblasUpper
	}
	o.sem <- struct{}{}
	o.dsyrk(mmCblasRowMajor, uplo, mmCblasTranspose(tA), int32(n), int32(k), alpha, &a[0], int32(lda), beta, &c[0], int32(ldc))
	<-o.sem
	runtime.KeepAlive(a)
	runtime.KeepAlive(c)
}

// Ssyrk is Dsyrk for float32.
func (o *mmOpenBLAS) Ssyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int) {
	if o.ssyrk == nil || !mmSyrkOK(tA, n, k, len(a), lda, len(c), ldc) {
		o.pure.Ssyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	uplo := int32(mmCblasLower)
	if ul == blas.Upper {
		uplo = mmCblasUpper
	}
	o.sem <- struct{}{}
	o.ssyrk(mmCblasRowMajor, uplo, mmCblasTranspose(tA), int32(n), int32(k), alpha, &a[0], int32(lda), beta, &c[0], int32(ldc))
	<-o.sem
	runtime.KeepAlive(a)
	runtime.KeepAlive(c)
}
