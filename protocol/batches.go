package protocol

import "sync"

// ResultBatchCap is the capacity of the slices NewResultBatch returns: a
// worker's batch of results (ReportBatch) holds at most about this many.
const ResultBatchCap = 64

// resultBatches keeps the backing arrays of applied batches for the next
// ones: a graph of a million tiny ops reports tens of thousands of
// batches, each otherwise a fresh allocation of several kilobytes of
// garbage. It is a cache, not state: any batch may be made anew.
var resultBatches = sync.Pool{New: func() any { return new([ResultBatchCap]Result) }}

// NewResultBatch returns an empty slice of capacity ResultBatchCap for a
// batch of results, reusing a batch a receiver gave back
// (RecycleResultBatch) when there is one.
func NewResultBatch() []Result {
	return resultBatches.Get().(*[ResultBatchCap]Result)[:0]
}

// RecycleResultBatch gives a batch received through ReportBatch back for
// reuse by NewResultBatch. The receiver calls it once it has applied the
// batch and keeps no reference into the slice (copies of its results are
// fine); the sender gave the slice up when it reported it. A slice of
// another capacity is left to the garbage collector.
func RecycleResultBatch(rs []Result) {
	if cap(rs) != ResultBatchCap {
		return
	}
	a := (*[ResultBatchCap]Result)(rs[:ResultBatchCap])
	clear(a[:]) // no errors or lost keys kept alive
	resultBatches.Put(a)
}
