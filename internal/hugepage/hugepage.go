// Package hugepage asks the kernel to back a large array with huge pages
// before it is first written.
//
// A graph of ten million chunk ops keeps per-op arrays of hundreds of
// megabytes (the graph's nodes, a run's states, a plan's priorities),
// written op by op the first time. With pages of 4 KiB that is a fault per
// page, each costly on a virtual machine whose host backs guest memory
// lazily; where the kernel offers transparent huge pages on request
// (Linux's "madvise" mode, the common default) one fault maps 2 MiB.
package hugepage

import "unsafe"

// Size is the huge page size asked for: 2 MiB, x86-64's and arm64's.
const Size = 2 << 20

// MinBytes is the smallest array worth advising: a few huge pages.
const MinBytes = 4 * Size

// Advise asks that the memory of s, a slice just made and not yet written,
// be backed by huge pages where the system allows it. Only the whole huge
// pages inside s are advised; s smaller than MinBytes is left alone. It
// is advice: where it is refused or unsupported nothing changes, so it
// reports nothing.
func Advise[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	s = s[:cap(s)]
	var zero T
	n := uintptr(len(s)) * unsafe.Sizeof(zero)
	if n < MinBytes {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	start := (uintptr(p) + Size - 1) &^ (Size - 1)
	end := (uintptr(p) + n) &^ (Size - 1)
	if end <= start {
		return
	}
	advise(unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start))
}

// Make is make([]T, n, c) advised (Advise) before anything writes it: for
// the arrays of one element per chunk op that a big graph's compile and
// run make.
func Make[T any](n, c int) []T {
	s := make([]T, n, c)
	Advise(s)
	return s
}
