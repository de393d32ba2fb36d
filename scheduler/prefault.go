package scheduler

import "unsafe"

// prefaultOps is the graph size from which a run's arrays are faulted in
// when they are made: an array of a few pages costs nothing either way.
const prefaultOps = 1 << 16

// prefaultPage is the page size assumed: on a system with larger pages
// more writes than needed are made, which is harmless.
const prefaultPage = 4096

// prefault writes the zero value into one element of every page of s, a
// slice just made (all zero), so that its page faults are taken now. A
// fresh large slice is memory the kernel maps only when first written;
// on a virtual machine whose host backs guest memory lazily each such
// fault is costly, and the event loop, the one goroutine every chunk op
// passes through, would otherwise take them op by op.
func prefault[T any](s []T) {
	var zero T
	step := max(prefaultPage/int(unsafe.Sizeof(zero)), 1)
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
}
