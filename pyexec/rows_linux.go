package pyexec

import (
	"fmt"
	"io"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxIov is how many pieces one process_vm_readv takes (the kernel's
// IOV_MAX).
const maxIov = 1024

// readRemoteRows copies an array of shape and strides (in bytes) whose
// first element is at addr in process pid into dst, in C order: its
// trailing axes, as far as they are contiguous, are one row, read in one
// piece; up to maxIov rows a call.
func readRemoteRows(pid int, dst []byte, addr uint64, shape, strides []int, itemSize int) error {
	if len(shape) != len(strides) || itemSize <= 0 {
		return fmt.Errorf("strides %v for shape %v", strides, shape)
	}
	row, k := itemSize, len(shape)
	for k > 0 && strides[k-1] == row {
		row *= shape[k-1]
		k--
	}
	rows := 1
	for _, d := range shape[:k] {
		rows *= d
	}
	if rows*row != len(dst) {
		return fmt.Errorf("%d rows of %d bytes for %d bytes", rows, row, len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	idx := make([]int, k)
	at := int64(addr) // the current row's address
	remote := make([]unix.RemoteIovec, 0, maxIov)
	done := 0
	for r := 0; r < rows; {
		remote = remote[:0]
		start := done
		for ; r < rows && len(remote) < maxIov; r++ {
			remote = append(remote, unix.RemoteIovec{Base: uintptr(at), Len: row})
			done += row
			// The next row: the outer index counts up in C order.
			for ax := k - 1; ax >= 0; ax-- {
				idx[ax]++
				at += int64(strides[ax])
				if idx[ax] < shape[ax] {
					break
				}
				at -= int64(strides[ax]) * int64(shape[ax])
				idx[ax] = 0
			}
		}
		local := []unix.Iovec{{Base: (*byte)(unsafe.Pointer(&dst[start]))}}
		local[0].SetLen(done - start)
		n, err := unix.ProcessVMReadv(pid, local, remote, 0)
		if err != nil {
			return err
		}
		if n != done-start {
			return fmt.Errorf("%d of %d bytes: %w", n, done-start, io.ErrUnexpectedEOF)
		}
	}
	return nil
}
