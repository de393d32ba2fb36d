//go:build phobos_noopenblas || !(linux || darwin || freebsd || netbsd)

package ndarray

import (
	"errors"

	"gonum.org/v1/gonum/blas/gonum"
)

// mmOpenBLAS stands in for the OpenBLAS binding when it is built out
// (-tags phobos_noopenblas, or a platform purego does not dlopen on): MatMul
// then always uses gonum's pure-Go BLAS and binaries stay statically linked.
type mmOpenBLAS struct {
	gonum.Implementation
	path string
	core string
}

func mmOpenOpenBLAS() (*mmOpenBLAS, error) {
	return nil, errors.New("ndarray: built without OpenBLAS support (tag phobos_noopenblas)")
}

func openblasLapackBackend(*mmOpenBLAS) (*lapackBackend, error) {
	return nil, errors.New("ndarray: built without OpenBLAS support (tag phobos_noopenblas)")
}
