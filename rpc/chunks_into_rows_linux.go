package rpc

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/phobos-tensor/phobos/ndarray"
)

// minWriteRun is the shortest run of a chunk's bytes written to a result
// file with one pwrite; shorter runs go through a mapping instead.
const minWriteRun = 4096

// writeRuns writes a, a contiguous chunk, into its box (at start) of the
// result file fd, of dt and shape, with one pwrite per run of bytes that
// are adjacent in both: no mapping, so none of the page faults a fresh
// shared-memory file costs on first touch, and pages written whole are not
// cleared first. It reports false, writing nothing, when a is not
// contiguous or its runs are short; the caller then copies through a
// mapping.
func writeRuns(fd int, dt ndarray.DType, shape, start []int, a *ndarray.Array) (bool, error) {
	nd := len(shape)
	cs := a.Shape()
	if nd == 0 || len(cs) != nd || len(start) != nd || !a.IsContiguous() {
		return false, nil
	}
	item := dt.Size()
	// The run: the last axis, and the axes before it as long as the chunk
	// spans the result's whole extent after them.
	k := nd - 1
	run := item * cs[k]
	for k > 0 && cs[k] == shape[k] {
		k--
		run *= cs[k]
	}
	if run < minWriteRun {
		return false, nil
	}
	raw, err := a.RawBytes()
	if err != nil {
		return false, nil
	}
	strides := make([]int, nd) // the file's, in bytes
	s := item
	for ax := nd - 1; ax >= 0; ax-- {
		strides[ax] = s
		s *= shape[ax]
	}
	at := 0
	for ax := range nd {
		at += start[ax] * strides[ax]
	}
	idx := make([]int, k)
	for src := 0; src < len(raw); src += run {
		if err := pwriteAll(fd, raw[src:src+run], int64(at)); err != nil {
			return true, err
		}
		for ax := k - 1; ax >= 0; ax-- {
			idx[ax]++
			at += strides[ax]
			if idx[ax] < cs[ax] {
				break
			}
			at -= strides[ax] * cs[ax]
			idx[ax] = 0
		}
	}
	return true, nil
}

// fitsBox checks that a chunk of cshape at start lies within a result of
// shape, as resultBox does.
func fitsBox(shape, start, cshape []int) error {
	if len(start) != len(shape) || len(cshape) != len(shape) {
		return fmt.Errorf("a chunk of %d axes at %v in a result of %d", len(cshape), start, len(shape))
	}
	for ax, s := range start {
		if s < 0 || s+cshape[ax] > shape[ax] {
			return fmt.Errorf("a chunk %v at %v does not fit in a result %v", cshape, start, shape)
		}
	}
	return nil
}

func pwriteAll(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := unix.Pwrite(fd, b, off)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("wrote nothing at %d", off)
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}
