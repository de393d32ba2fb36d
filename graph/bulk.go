package graph

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/phobos-tensor/phobos/internal/hugepage"
	"github.com/phobos-tensor/phobos/ops"
)

// BulkBatch is how many chunk ops of a bulk a goroutine makes at a time;
// a bulk of fewer than two batches is made on the caller's goroutine.
const BulkBatch = 16384

// Split is how a bulk of chunk ops is shared out between goroutines:
// Batch ops at a time (0: BulkBatch), on at most Procs goroutines (0:
// GOMAXPROCS). Tests split small graphs with it.
type Split struct{ Batch, Procs int }

func (s Split) batch() int {
	if s.Batch <= 0 {
		return BulkBatch
	}
	return s.Batch
}

// Batches is how many ranges Ranges cuts n into.
func (s Split) Batches(n int) int {
	b := s.batch()
	return (n + b - 1) / b
}

// Range is the k-th batch [lo, hi) of 0 to n-1.
func (s Split) Range(n, k int) (lo, hi int) {
	b := s.batch()
	return k * b, min(n, (k+1)*b)
}

// Ranges calls fn(k, lo, hi) for the k-th batch [lo, hi) of 0 to n-1,
// each once, on up to Procs goroutines that take batches as they go (a
// goroutine that gets no core holds up none). A bulk of fewer than two
// batches runs on the caller's goroutine. A panic in any fn is raised
// again on the caller's goroutine once all have returned.
func (s Split) Ranges(n int, fn func(k, lo, hi int)) {
	batch := s.batch()
	procs := s.Procs
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	procs = max(1, min(procs, n/batch))
	if procs == 1 {
		for k := range s.Batches(n) {
			lo, hi := s.Range(n, k)
			fn(k, lo, hi)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1)) - 1
			lo := k * batch
			if lo >= n {
				return
			}
			fn(k, lo, min(n, lo+batch))
		}
	}
	var wg sync.WaitGroup
	panics := make([]any, procs)
	for i := 1; i < procs; i++ {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			work()
		})
	}
	func() {
		defer func() { panics[0] = recover() }()
		work()
	}()
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// AddBulk implements ops.BulkBuilder, shared out as Split{} shares.
func (g *ChunkGraph) AddBulk(n, nin int, fill ops.BulkFill, refs []ops.ChunkRef) {
	g.AddBulkSplit(Split{}, n, nin, fill, refs)
}

// AddBulkSplit is AddBulk shared out as s says: the bulk's nodes are
// reserved at once and each range of it written in place.
func (g *ChunkGraph) AddBulkSplit(s Split, n, nin int, fill ops.BulkFill, refs []ops.ChunkRef) {
	g.Reserve(n)
	first := len(g.Nodes)
	g.Nodes = g.Nodes[:first+n]
	nodes := g.Nodes[first:]
	var ins []ops.ChunkRef
	if nin > 0 {
		ins = hugepage.Make[ops.ChunkRef](n*nin, n*nin)
	}
	put := func(i int, op ops.ChunkOp, inputs []ops.ChunkRef, meta ops.Meta) {
		var in []ops.ChunkRef
		if nin > 0 {
			in = ins[i*nin : (i+1)*nin : (i+1)*nin]
			copy(in, inputs)
		}
		nodes[i] = ChunkNode{Op: op, Inputs: in, Meta: meta}
		refs[i] = ops.ChunkRef(first + i)
	}
	s.Ranges(n, func(_, lo, hi int) { fill(lo, hi, put) })
}
