//go:build phobos_noopenblas || !(linux || darwin || freebsd || netbsd)

package ndarray

import "errors"

func openblasEighBackend(*mmOpenBLAS) (*eighBackend, error) {
	return nil, errors.New("ndarray: built without OpenBLAS support (tag phobos_noopenblas)")
}
