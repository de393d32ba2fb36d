package ops

// BulkBuilder is a Builder that takes a run of chunk ops at once and may
// have them made on several goroutines: the tiling of a tensor op of a
// million chunks need not run on one core.
type BulkBuilder interface {
	Builder
	// AddBulk appends n chunk ops of nin inputs each and sets refs[i]
	// to the ref of the i-th; the graph is the one n AddChunk calls in
	// order of i would make. It calls fill over ranges [lo, hi) that
	// cover 0 to n-1 once each, possibly at once on several goroutines.
	AddBulk(n, nin int, fill BulkFill, refs []ChunkRef)
}

// BulkFill makes chunk ops lo to hi-1 of a bulk, calling put once for
// each in increasing order. It may run beside other ranges' fills: it
// may read the builder (ChunkMeta of chunks added before the bulk) but
// must keep its own scratch.
type BulkFill func(lo, hi int, put BulkPut)

// BulkPut takes the i-th chunk op of a bulk. The inputs are copied (the
// fill may reuse its slice); the meta's slices are kept.
type BulkPut func(i int, op ChunkOp, inputs []ChunkRef, meta Meta)

// addBulk is b's AddBulk when b takes bulks, n AddChunk calls in order
// otherwise, their input lists cut from one block.
func addBulk(b Builder, n, nin int, fill BulkFill, refs []ChunkRef) {
	if bb, ok := b.(BulkBuilder); ok {
		bb.AddBulk(n, nin, fill, refs)
		return
	}
	var block []ChunkRef
	if nin > 0 {
		block = make([]ChunkRef, n*nin)
	}
	fill(0, n, func(i int, op ChunkOp, inputs []ChunkRef, meta Meta) {
		var in []ChunkRef
		if nin > 0 {
			in = block[i*nin : (i+1)*nin : (i+1)*nin]
			copy(in, inputs)
		}
		refs[i] = b.AddChunk(op, in, meta)
	})
}

// gridAt writes the C-order multi-index of flat position f of grid into
// idx.
func gridAt(grid []int, f int, idx []int) {
	for ax := len(grid) - 1; ax >= 0; ax-- {
		if grid[ax] > 0 {
			idx[ax] = f % grid[ax]
			f /= grid[ax]
		}
	}
}

// gridNext advances idx to the next multi-index of grid in C order.
func gridNext(grid []int, idx []int) {
	for ax := len(grid) - 1; ax >= 0; ax-- {
		idx[ax]++
		if idx[ax] < grid[ax] {
			return
		}
		idx[ax] = 0
	}
}
