//go:build !linux

package rpc

import "github.com/phobos-tensor/phobos/ndarray"

func copyIntoFile(string, ndarray.DType, []int, []int, *ndarray.Array) error {
	return ErrIntoUnsupported
}
