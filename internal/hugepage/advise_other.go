//go:build !linux

package hugepage

// advise does nothing where there is no madvise of huge pages.
func advise([]byte) {}
