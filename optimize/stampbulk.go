package optimize

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// bulkStamp is the state of a chain's consumer tiled with its partials
// stamped as they are made (addStamping): each range of a bulk of
// one-input chunk ops is checked and built into kernels by the goroutine
// that made it, while its nodes are in that core's cache, instead of in
// one more pass over them all once the consumer is tiled (stamp).
type bulkStamp struct {
	on    bool // the tensor op being tiled reads a deferred chain
	bulks int  // bulks stamped as made

	// bad: a chunk op the plan cannot be stamped with (a side op read
	// other than by a bulk's partial, a finish, a root that fails the
	// check); grouped: side ops taken into kernels so far.
	bad     atomic.Bool
	grouped atomic.Int64
}

// watch wraps the fill of a consumer's bulk that is not stamped: a chunk
// op of it that reads side ops, or is a finish, fails the stamp, as it
// fails stamp's.
func (c *bulkStamp) watch(fill ops.BulkFill) ops.BulkFill {
	return func(lo, hi int, put ops.BulkPut) {
		fill(lo, hi, func(i int, op ops.ChunkOp, in []ops.ChunkRef, m ops.Meta) {
			c.added(op, in)
			put(i, op, in, m)
		})
	}
}

// added notes a chunk op of the consumer made outside a stamped bulk.
func (c *bulkStamp) added(op ops.ChunkOp, in []ops.ChunkRef) {
	if _, ok := op.(ops.ReduceFinish); ok || slices.ContainsFunc(in, isSide) {
		c.bad.Store(true)
	}
}

// addStamping adds a bulk of one-input chunk ops of a chain's consumer
// into main and stamps each range of it once made: the reads of side ops
// by its roots are counted into b.uses (from the side ops' own reads at
// the first bulk), then each root is checked and built (stampOne) on a
// builder of the range's own that starts from b.kb's memo. A root's
// check reads the counts as they stand; they only grow, and
// stampedInBulk checks at the end that every side op was read once, so
// the outcome is stamp's on the finished counts.
func (b *fuseTiler) addStamping(s graph.Split, n int, fill ops.BulkFill, refs []ops.ChunkRef) {
	c := &b.consumer
	if c.bulks == 0 {
		uses := slices.Grow(b.uses[:0], b.side.len())[:b.side.len()]
		clear(uses)
		for _, x := range b.side.ins {
			if isSide(x) {
				uses[x-sideBase]++
			}
		}
		b.uses = uses
	}
	c.bulks++
	uses := b.uses
	first := len(b.main.Nodes)
	// The ranges take builders from a free list that starts with b.kb
	// (more are forked from its memo as it stood), so ranges made one
	// after another, as a small bulk's are, share one builder and its
	// memo, and each kernel is boxed once per run of equal ones, as
	// stamp does.
	b.kb.main, b.kb.side = nil, &b.side
	defer func() { b.kb.main, b.kb.side = nil, nil }()
	memo := b.kb.memo
	var mu sync.Mutex
	free := []*kernelBuilder{&b.kb}
	take := func() *kernelBuilder {
		mu.Lock()
		defer mu.Unlock()
		if len(free) == 0 {
			return &kernelBuilder{side: &b.side, memo: memo}
		}
		kb := free[len(free)-1]
		free = free[:len(free)-1]
		return kb
	}
	b.main.AddBulkSplit(s, n, 1, func(lo, hi int, put ops.BulkPut) {
		fill(lo, hi, put)
		if c.bad.Load() {
			return
		}
		nodes := b.main.Nodes[first+lo : first+hi]
		for j := range nodes {
			if _, ok := nodes[j].Op.(ops.ReduceFinish); ok {
				c.bad.Store(true)
				return
			}
			for _, x := range nodes[j].Inputs {
				if isSide(x) {
					atomic.AddInt32(&uses[x-sideBase], 1)
				}
			}
		}
		kb := take()
		defer func() {
			mu.Lock()
			free = append(free, kb)
			mu.Unlock()
		}()
		kb.main = b.main.Nodes
		grouped := 0
		for j := range nodes {
			if !slices.ContainsFunc(nodes[j].Inputs, isSide) {
				continue
			}
			k, ok := kb.stampOne(ops.ChunkRef(first+lo+j), uses)
			if !ok {
				c.bad.Store(true)
				return
			}
			grouped += k
		}
		c.grouped.Add(int64(grouped))
	}, refs)
}

// stampedInBulk reports, once the consumer is tiled, whether its bulks
// stamped it (ok), and whether any did (done): with none, stamp has yet
// to. Stamped, every side op is in one kernel: each read once, and as
// many in kernels as there are.
func (b *fuseTiler) stampedInBulk() (ok, done bool) {
	c := &b.consumer
	if c.bulks == 0 {
		return false, false
	}
	if c.bad.Load() || c.grouped.Load() != int64(b.side.len()) {
		return false, true
	}
	for _, u := range b.uses {
		if u != 1 {
			return false, true
		}
	}
	b.absorbed += b.side.len()
	return true, true
}
