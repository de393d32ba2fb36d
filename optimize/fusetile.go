package optimize

import (
	"slices"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// CompileForRun is CompileWithin with fusion for a graph that is to run,
// not to be explained: a chain of elementwise and fill tensor ops that
// feeds a reduction is fused while the reduction is tiled, so the chain's
// chunk ops never join the chunk graph and the fusion pass has no tables
// to make for them. The plan is the one CompileWithin makes, node for
// node; it has no pass figures (Passes, Graphs).
func CompileForRun(tg *graph.TileableGraph, results []int, maxOps int) (*Plan, error) {
	if err := checkResults(tg, results); err != nil {
		return nil, err
	}
	return compileForRun(tg, results, maxOps, stampSplit{})
}

func compileForRun(tg *graph.TileableGraph, results []int, maxOps int, split stampSplit) (*Plan, error) {
	cg, tiled, err := tileFusing(tg, results, maxOps, split)
	if err != nil {
		return nil, err
	}
	refs := resultRefs(tiled, results)
	cg, refs = Cull(cg, refs)
	cg, refs = Fuse(cg, refs)
	cg, refs = JoinUserBlocks(cg, refs)
	cg, refs = FinishInPlace(cg, refs)
	p := &Plan{Graph: cg}
	p.setResults(tiled, results, refs)
	return p, nil
}

// sideBase is where the refs of deferred chunk ops start: above any graph
// a process may tile.
const sideBase = 1 << 30

// fuseTiler is the builder of tileFusing. The chunk ops of deferred tensor
// ops go to side, with refs from sideBase; the others to main. Once the
// consumer of a deferred chain is tiled, every chunk op of its that reads
// side ops becomes one fused kernel taking them in (stamp), or, when the
// chain does not fuse as Fuse would fuse it, the side ops are put into main
// before the consumer, which is tiled again.
type fuseTiler struct {
	main      *graph.ChunkGraph
	side      sideGraph
	deferring bool
	chainLeft int // deferred ops from the one tiling to the end of its chain (Reserve)
	absorbed  int // side ops taken into kernels: counted against the limit as tiled
	maxOps    int

	kb    kernelBuilder // stamp's first builder, its memo kept from chain to chain
	uses  []int32
	roots []int32
	split stampSplit

	consumer bulkStamp // the stamping of a chain's consumer as it is tiled
}

func isSide(c ops.ChunkRef) bool { return c >= sideBase }

// AddChunk implements ops.Builder.
func (b *fuseTiler) AddChunk(op ops.ChunkOp, inputs []ops.ChunkRef, meta ops.Meta) ops.ChunkRef {
	if b.deferring {
		return b.side.add(op, inputs, meta) + sideBase
	}
	if b.consumer.on {
		b.consumer.added(op, inputs)
	}
	return b.main.AddChunk(op, inputs, meta)
}

// AddBulk implements ops.BulkBuilder: into the side graph or main, shared
// out as the stamp's split says.
func (b *fuseTiler) AddBulk(n, nin int, fill ops.BulkFill, refs []ops.ChunkRef) {
	s := graph.Split{Batch: b.split.batch, Procs: b.split.procs}
	switch {
	case b.deferring:
		b.side.addBulk(s, n, nin, fill, refs)
	case b.consumer.on && nin == 1:
		b.addStamping(s, n, fill, refs)
	case b.consumer.on:
		b.main.AddBulkSplit(s, n, nin, b.consumer.watch(fill), refs)
	default:
		b.main.AddBulkSplit(s, n, nin, fill, refs)
	}
}

// ChunkMeta implements ops.Builder.
func (b *fuseTiler) ChunkMeta(c ops.ChunkRef) ops.Meta {
	if isSide(c) {
		return *b.side.meta(c - sideBase)
	}
	return b.main.Nodes[c].Meta
}

// Reserve implements ops.Reserver. The side ops of a chain are reserved
// for all its ops at the first: an op of a chain mostly makes as many
// chunk ops as the one before it, and a copy of the side graph to grow it
// would cost as much as filling it.
func (b *fuseTiler) Reserve(n int) {
	if b.deferring {
		if n > cap(b.side.nodes)-len(b.side.nodes) {
			b.side.reserve(n * b.chainLeft)
		}
	} else {
		b.main.Reserve(n)
	}
}

// Admit implements ops.Budget: the limit counts every chunk op tiled, as
// graph.TileWithin's does, fused or not.
func (b *fuseTiler) Admit(n float64) error {
	limit := b.maxOps
	if limit <= 0 {
		limit = ops.MaxChunkOps
	}
	have := len(b.main.Nodes) + b.side.len() + b.absorbed
	if float64(have)+n > float64(limit) {
		return &ops.TooManyChunksError{Count: n, Have: have, Limit: limit}
	}
	return nil
}

// tileFusing is graph.TileWithin with the chains deferredOps picks fused
// as they are tiled.
func tileFusing(tg *graph.TileableGraph, results []int, maxOps int, split stampSplit) (*graph.ChunkGraph, []*ops.Tiled, error) {
	b := &fuseTiler{main: &graph.ChunkGraph{MaxOps: maxOps}, maxOps: maxOps, split: split}
	deferred := deferredOps(tg, results, maxOps)
	left := make([]int, len(deferred)+1) // deferred ops from i to the end of its chain
	for i := len(deferred) - 1; i >= 0; i-- {
		if deferred[i] {
			left[i] = left[i+1] + 1
		}
	}
	tiled := make([]*ops.Tiled, len(tg.Nodes))
	ins := make([]*ops.Tiled, 0, 4)
	for i := range tg.Nodes {
		var err error
		if ins, err = graph.TileInputs(tg, i, tiled, ins); err != nil {
			return nil, nil, err
		}
		b.deferring = deferred[i]
		b.chainLeft = left[i]
		mark := len(b.main.Nodes)
		b.consumer = bulkStamp{on: !b.deferring && b.side.len() > 0 && !b.split.afterTiling}
		t, err := graph.TileOp(b, tg, i, ins)
		if err != nil {
			return nil, nil, err
		}
		if !b.deferring && b.side.len() > 0 {
			ok, done := b.stampedInBulk()
			b.consumer = bulkStamp{}
			if !done {
				ok = b.stamp(mark)
			}
			if !ok {
				b.main.Nodes = b.main.Nodes[:mark]
				b.materialise(ins)
				if t, err = graph.TileOp(b, tg, i, ins); err != nil {
					return nil, nil, err
				}
			}
			b.side = sideGraph{} // its ops are in kernels or in main now
		}
		tiled[i] = t
	}
	return b.main, tiled, nil
}

// deferredOps picks the tensor ops whose chunk ops go to the side: an
// elementwise or fill op that is not a result, read by the next tensor op
// alone, which is a reduction or itself deferred. Only the next: the side
// ops, put into main when a chain does not fuse, then stand where tiling
// would have put them, and the graph is the one graph.TileWithin makes.
func deferredOps(tg *graph.TileableGraph, results []int, maxOps int) []bool {
	n := len(tg.Nodes)
	d := make([]bool, n)
	if maxOps >= sideBase {
		return d
	}
	consumer := make([]int, n) // the one distinct consumer, -1 several, -2 none
	for i := range consumer {
		consumer[i] = -2
	}
	for _, r := range results {
		consumer[r] = -1
	}
	for i, nd := range tg.Nodes {
		for _, in := range nd.Inputs {
			if in < 0 || in >= i {
				return d // TileWithin's check reports it
			}
			switch c := consumer[in]; {
			case c == -2:
				consumer[in] = i
			case c != i:
				consumer[in] = -1
			}
		}
	}
	for i := n - 2; i >= 0; i-- {
		if consumer[i] != i+1 {
			continue
		}
		switch tg.Nodes[i].Op.(type) {
		case ops.Elementwise, ops.Full:
		default:
			continue
		}
		switch tg.Nodes[i+1].Op.(type) {
		case ops.Reduction:
			d[i] = true
		case ops.Elementwise:
			d[i] = d[i+1]
		}
	}
	return d
}

// materialise puts the side ops into main, in order, and turns the side
// refs of ins into main refs.
func (b *fuseTiler) materialise(ins []*ops.Tiled) {
	base := ops.ChunkRef(len(b.main.Nodes))
	to := func(c ops.ChunkRef) ops.ChunkRef {
		if isSide(c) {
			return c - sideBase + base
		}
		return c
	}
	b.main.Reserve(b.side.len())
	var slab refSlab
	for i, op := range b.side.ops {
		from := b.side.inputs(ops.ChunkRef(i))
		in := slab.take(len(from))
		for j, c := range from {
			in[j] = to(c)
		}
		b.main.AddChunk(op, in, *b.side.meta(ops.ChunkRef(i)))
	}
	for k, t := range ins {
		if !slices.ContainsFunc(t.Chunks, isSide) {
			continue
		}
		c := *t
		c.Chunks = make([]ops.ChunkRef, len(t.Chunks))
		for j, r := range t.Chunks {
			c.Chunks[j] = to(r)
		}
		ins[k] = &c
	}
}
