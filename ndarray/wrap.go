package ndarray

import (
	"fmt"
	"unsafe"
)

// Wrap views b, which must hold exactly the contiguous little-endian
// elements of a dtype array of shape and be 8-byte aligned, as an Array
// without copying. The caller keeps b valid (and, for memory it maps
// itself, mapped) for as long as the Array or any view of it is used; it
// is meant for short-lived views of shared memory (a user function's
// executor reading a chunk), never for arrays that reach a store.
func Wrap(dtype DType, shape []int, b []byte) (*Array, error) {
	if err := checkShape(shape); err != nil {
		return nil, err
	}
	sh := append([]int(nil), shape...)
	n := Size(sh) * dtype.Size()
	if len(b) != n {
		return nil, fmt.Errorf("ndarray: Wrap: %d bytes for %v%v (want %d)", len(b), dtype, shape, n)
	}
	if n > 0 && uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
		return nil, fmt.Errorf("ndarray: Wrap: buffer not 8-byte aligned")
	}
	return &Array{dtype: dtype, shape: sh, strides: ContiguousStrides(sh), buf: b}, nil
}

// NewUninit is New whose elements may hold a reused buffer's old bytes,
// for an output that is written whole before anything reads it.
func NewUninit(dtype DType, shape ...int) (*Array, error) {
	if err := checkShape(shape); err != nil {
		return nil, err
	}
	return newArrayUninit(dtype, shape), nil
}

// RawBytes is the contiguous array's whole element bytes in place (no
// copy), for writing into it from outside (a read from another process's
// memory). It fails for a view that is not contiguous from its offset.
func (a *Array) RawBytes() ([]byte, error) {
	if !a.IsContiguous() {
		return nil, fmt.Errorf("ndarray: RawBytes of a non-contiguous array")
	}
	off := a.offset * a.dtype.Size()
	return a.buf[off : off+a.Nbytes()], nil
}
