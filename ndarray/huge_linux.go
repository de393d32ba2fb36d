package ndarray

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeMin is the smallest buffer asked to be backed by transparent huge
// pages. Large arrays are filled once and then streamed or read across
// rows: with 2 MiB pages the first touch costs one fault per 2 MiB instead
// of 512, and reading a transposed chunk column by column no longer misses
// the TLB on every row.
const hugeMin = 4 << 20

// adviseHuge asks the kernel (madvise MADV_HUGEPAGE, effective where
// transparent huge pages are in "madvise" or "always" mode) to back the
// whole 2 MiB pages inside b with huge pages. It is only a hint: errors are
// ignored.
func adviseHuge(b []byte) {
	if len(b) >= hugeMin {
		advise(b, 2<<20, unix.MADV_HUGEPAGE)
	}
}

// adviseFree gives the whole pages inside b back to the kernel
// (madvise MADV_DONTNEED): b's owner lets go of it, but the garbage
// collector may not free it for a while, and until then it would stay
// resident. The caller guarantees nothing reads or writes b again; the
// heap may hand its memory out later, which then faults in zeroed pages.
func adviseFree(b []byte) { advise(b, 4<<10, unix.MADV_DONTNEED) }

// advise applies madvise to the whole pages of the given size inside b,
// if any; errors are ignored (both uses are hints or best effort).
func advise(b []byte, page uintptr, advice int) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(b[lo-start:hi-start], advice)
}
