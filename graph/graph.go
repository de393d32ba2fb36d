// Package graph holds the two DAGs of a computation: the TileableGraph of
// tensor ops the user built, and the ChunkGraph of chunk ops that tiling
// makes of it. Both are append-only slices in topological order: a node's
// inputs always come before it, so iteration order is a valid execution order.
package graph

import (
	"fmt"

	"github.com/phobos-tensor/phobos/internal/hugepage"
	"github.com/phobos-tensor/phobos/ops"
)

// ChunkNode is one chunk op and the chunk it produces.
type ChunkNode struct {
	Op     ops.ChunkOp
	Inputs []ops.ChunkRef
	Meta   ops.Meta
}

// ChunkGraph is a DAG of chunk ops in topological order. It implements
// ops.Builder.
type ChunkGraph struct {
	Nodes []ChunkNode
	// MaxOps bounds the chunk ops tiling may make (0: ops.MaxChunkOps).
	MaxOps int
}

// AddChunk appends a node; its inputs must already be in the graph.
func (g *ChunkGraph) AddChunk(op ops.ChunkOp, inputs []ops.ChunkRef, meta ops.Meta) ops.ChunkRef {
	// Tiling reserves room (Reserve, estimateChunkOps) for the ops whose
	// count it knows; append's growth covers the rest.
	g.Nodes = append(g.Nodes, ChunkNode{Op: op, Inputs: inputs, Meta: meta})
	return ops.ChunkRef(len(g.Nodes) - 1)
}

// Reserve implements ops.Reserver: room for n more nodes, so the tiling
// of one tensor op into many chunk ops copies the graph at most once.
func (g *ChunkGraph) Reserve(n int) {
	if n > cap(g.Nodes)-len(g.Nodes) {
		// Exactly: append's growth would round a million-node graph up
		// by a fifth or more, all of it memory the collector scans.
		nodes := hugepage.Make[ChunkNode](len(g.Nodes), len(g.Nodes)+n)
		copy(nodes, g.Nodes)
		g.Nodes = nodes
	}
}

// ChunkMeta is the meta of a node's output.
func (g *ChunkGraph) ChunkMeta(c ops.ChunkRef) ops.Meta { return g.Nodes[c].Meta }

// Len is the number of chunk ops.
func (g *ChunkGraph) Len() int { return len(g.Nodes) }

// Adjacency is the successor lists of a ChunkGraph in compressed form:
// the successors of node i are Succ[Off[i]:Off[i+1]].
type Adjacency struct {
	Off  []int32
	Succ []int32
}

// Of returns the successors of node i.
func (a *Adjacency) Of(i int) []int32 { return a.Succ[a.Off[i]:a.Off[i+1]] }

// Successors computes the successor lists in O(V+E). A node that uses the
// same input twice appears twice in that input's list.
func (g *ChunkGraph) Successors() *Adjacency {
	n := len(g.Nodes)
	off := hugepage.Make[int32](n+1, n+1)
	for _, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			off[in+1]++
		}
	}
	for i := 0; i < n; i++ {
		off[i+1] += off[i]
	}
	succ := hugepage.Make[int32](int(off[n]), int(off[n]))
	fill := append([]int32(nil), off[:n]...)
	for i, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			succ[fill[in]] = int32(i)
			fill[in]++
		}
	}
	return &Adjacency{Off: off, Succ: succ}
}

// Validate checks that inputs precede their consumers.
func (g *ChunkGraph) Validate() error {
	for i, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			if int(in) >= i || in < 0 {
				return fmt.Errorf("graph: chunk op %d (%s) has input %d that does not precede it", i, nd.Op.Type(), in)
			}
		}
	}
	return nil
}

// TensorNode is one tensor op in a TileableGraph.
type TensorNode struct {
	Op     ops.TensorOp
	Inputs []int
	Meta   ops.Meta
}

// TileableGraph is the DAG of tensor ops, in topological order.
type TileableGraph struct {
	Nodes []TensorNode
}

// Add appends a tensor node whose inputs are already in the graph and
// returns its index.
func (g *TileableGraph) Add(op ops.TensorOp, inputs []int, meta ops.Meta) int {
	g.Nodes = append(g.Nodes, TensorNode{Op: op, Inputs: inputs, Meta: meta})
	return len(g.Nodes) - 1
}

// Admit implements ops.Budget: a graph holds at most MaxOps chunk ops
// (ops.MaxChunkOps when 0).
func (g *ChunkGraph) Admit(n float64) error {
	limit := g.MaxOps
	if limit <= 0 {
		limit = ops.MaxChunkOps
	}
	if float64(len(g.Nodes))+n > float64(limit) {
		return &ops.TooManyChunksError{Count: n, Have: len(g.Nodes), Limit: limit}
	}
	return nil
}

// Tile tiles every tensor node in order into one ChunkGraph. Tiling is linear
// in the number of chunks: each op sees only its inputs' tiled form.
func Tile(tg *TileableGraph) (*ChunkGraph, []*ops.Tiled, error) {
	return TileWithin(tg, 0)
}

// TileWithin is Tile with at most maxOps chunk ops (0: ops.MaxChunkOps).
func TileWithin(tg *TileableGraph, maxOps int) (*ChunkGraph, []*ops.Tiled, error) {
	cg := &ChunkGraph{MaxOps: maxOps}
	cg.Reserve(estimateChunkOps(tg, maxOps))
	tiled := make([]*ops.Tiled, len(tg.Nodes))
	ins := make([]*ops.Tiled, 0, 4)
	for i := range tg.Nodes {
		var err error
		if ins, err = TileInputs(tg, i, tiled, ins); err != nil {
			return nil, nil, err
		}
		if tiled[i], err = TileOp(cg, tg, i, ins); err != nil {
			return nil, nil, err
		}
	}
	return cg, tiled, nil
}

// TileInputs is the tilings of tensor op i's inputs, from tiled (the ops
// before it), in buf's room; an input that does not precede it is an
// error.
func TileInputs(tg *TileableGraph, i int, tiled, buf []*ops.Tiled) ([]*ops.Tiled, error) {
	buf = buf[:0]
	nd := tg.Nodes[i]
	for _, in := range nd.Inputs {
		if in < 0 || in >= i {
			return nil, fmt.Errorf("graph: tensor op %d (%s) has input %d that does not precede it", i, nd.Op.Type(), in)
		}
		buf = append(buf, tiled[in])
	}
	return buf, nil
}

// TileTarget is what a tensor op is tiled into: a builder with a bound on
// the chunk ops it takes.
type TileTarget interface {
	ops.Builder
	ops.Budget
}

// TileOp tiles tensor op i into b and checks what it made: a chunk per
// place of its grid, and the chunk ops within b's bound.
func TileOp(b TileTarget, tg *TileableGraph, i int, ins []*ops.Tiled) (*ops.Tiled, error) {
	nd := tg.Nodes[i]
	t, err := nd.Op.Tile(b, ins, nd.Meta)
	if err != nil {
		return nil, fmt.Errorf("tile %s (tensor %d, %v): %w", nd.Op.Type(), i, nd.Meta, err)
	}
	if n := len(t.Chunks); n != gridSize(t.NSplits) {
		return nil, fmt.Errorf("tile %s (tensor %d): %d chunks for grid %v", nd.Op.Type(), i, n, t.Grid())
	}
	// Tile rules ask the budget before each grid they allocate; what
	// they add besides (reduction trees, rechunk pieces) is a small
	// multiple of that, checked here.
	if err := b.Admit(0); err != nil {
		return nil, fmt.Errorf("tile %s (tensor %d, %v): %w", nd.Op.Type(), i, nd.Meta, err)
	}
	return t, nil
}

// estimateChunkOps adds up the chunk ops the tensor ops that can say
// (ops.ChunkEstimator) will make: the room a graph is made with before
// tiling (none past the graph's limit, which tiling will refuse). An op that cannot say leaves its
// consumers unestimated too.
func estimateChunkOps(tg *TileableGraph, maxOps int) int {
	limit := maxOps
	if limit <= 0 {
		limit = ops.MaxChunkOps
	}
	out := make([]int, len(tg.Nodes)) // chunks of each tensor, -1 unknown
	total := 0
	var ins []int
	var metas []ops.Meta
	for i, nd := range tg.Nodes {
		out[i] = -1
		e, ok := nd.Op.(ops.ChunkEstimator)
		if !ok {
			continue
		}
		ins, metas = ins[:0], metas[:0]
		for _, in := range nd.Inputs {
			if in < 0 || in >= i || out[in] < 0 {
				ok = false
				break
			}
			ins = append(ins, out[in])
			metas = append(metas, tg.Nodes[in].Meta)
		}
		if !ok {
			continue
		}
		n, o := e.EstimateChunks(ins, metas)
		if n < 0 {
			continue
		}
		out[i] = o
		if total += n; total > limit {
			return 0 // the budget will refuse the graph: reserve nothing for it
		}
	}
	return total
}

func gridSize(nsplits [][]int) int {
	n := 1
	for _, s := range nsplits {
		n *= len(s)
	}
	return n
}
