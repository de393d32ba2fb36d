// Package optimize rewrites chunk graphs before scheduling. Every pass is a
// pure function from a ChunkGraph (plus the requested results) to a new one,
// or to the same one when it changes nothing (graphs are never mutated).
package optimize

import (
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"slices"
)

// Cull removes chunk ops with no dependency path to a result (the Block
// Graph's Sink). It returns the new graph and the new position of each result;
// kept ops stay in their original relative order, so the graph stays
// topologically sorted. O(V+E).
func Cull(g *graph.ChunkGraph, results []ops.ChunkRef) (*graph.ChunkGraph, []ops.ChunkRef) {
	n := len(g.Nodes)
	keep := make([]bool, n)
	for _, r := range results {
		keep[r] = true
	}
	// Inputs precede their consumers: one backward sweep marks every op
	// a kept op reads, with no stack (for a graph of millions of ops, one
	// as large as the graph).
	// A node's readers all come after it, so it is settled when the sweep
	// reaches it: the sweep counts what it keeps.
	kept, edges := 0, 0
	for v := n - 1; v >= 0; v-- {
		if keep[v] {
			in := g.Nodes[v].Inputs
			kept++
			edges += len(in)
			for _, c := range in {
				keep[c] = true
			}
		}
	}
	if kept == n {
		// Nothing to cut: the graph is its own culled form, and a graph of
		// millions of ops is not copied.
		return g, slices.Clone(results)
	}
	remap := make([]ops.ChunkRef, n)
	out := &graph.ChunkGraph{Nodes: make([]graph.ChunkNode, 0, kept)}
	inBuf := make([]ops.ChunkRef, edges) // one allocation for every node's inputs
	for i, nd := range g.Nodes {
		if !keep[i] {
			remap[i] = -1
			continue
		}
		ins := inBuf[:len(nd.Inputs):len(nd.Inputs)]
		inBuf = inBuf[len(nd.Inputs):]
		for j, in := range nd.Inputs {
			ins[j] = remap[in]
		}
		remap[i] = out.AddChunk(nd.Op, ins, nd.Meta)
	}
	res := make([]ops.ChunkRef, len(results))
	for i, r := range results {
		res[i] = remap[r]
	}
	return out, res
}
