package hugepage

import "syscall"

// advise marks b, whole huge pages, for transparent huge pages.
func advise(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice: a refusal changes nothing
}
