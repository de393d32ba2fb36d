package optimize

import (
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// readers counts each chunk op's readers: the ops that take it in, and
// the client for a result.
func readers(g *graph.ChunkGraph, results []ops.ChunkRef) []int32 {
	users := make([]int32, len(g.Nodes))
	for _, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			users[in]++
		}
	}
	for _, r := range results {
		users[r]++
	}
	return users
}

// foldInto is g without the chunk ops in merged, each taken into its one
// reader: rewrite gets every other op with its inputs (in g's numbering)
// and gives the op and inputs to keep in its place, the merged ops'
// inputs in place of them where it took one in. Passes that fold an op
// into its consumer (FinishInPlace, JoinUserBlocks) share it. Order is
// kept; O(V+E).
func foldInto(g *graph.ChunkGraph, results []ops.ChunkRef, merged map[ops.ChunkRef]bool,
	rewrite func(op ops.ChunkOp, ins []ops.ChunkRef) (ops.ChunkOp, []ops.ChunkRef)) (*graph.ChunkGraph, []ops.ChunkRef) {
	if len(merged) == 0 {
		return g, append([]ops.ChunkRef(nil), results...)
	}
	n := len(g.Nodes)
	remap := make([]ops.ChunkRef, n)
	out := &graph.ChunkGraph{Nodes: make([]graph.ChunkNode, 0, n-len(merged)), MaxOps: g.MaxOps}
	for i, nd := range g.Nodes {
		if merged[ops.ChunkRef(i)] {
			remap[i] = -1
			continue
		}
		op, ins := rewrite(nd.Op, nd.Inputs)
		mapped := make([]ops.ChunkRef, len(ins))
		for j, in := range ins {
			mapped[j] = remap[in]
		}
		remap[i] = out.AddChunk(op, mapped, nd.Meta)
	}
	res := make([]ops.ChunkRef, len(results))
	for i, r := range results {
		res[i] = remap[r]
	}
	return out, res
}
