package optimize

import (
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// JoinUserBlocks folds each Assemble read only by a user's function
// (ops.UserBlock) into that function's chunk op: the pieces' chunks become
// its inputs and the op says where each goes (UserBlock.Joined), so the
// worker writes them straight into the memory its Python executor reads
// (map_overlap's block and its neighbours' borders: one copy instead of
// an assembled chunk copied again). Only Assembles that cover their chunk
// exactly are folded, as that memory is not cleared first. Order is kept;
// O(V+E).
func JoinUserBlocks(g *graph.ChunkGraph, results []ops.ChunkRef) (*graph.ChunkGraph, []ops.ChunkRef) {
	n := len(g.Nodes)
	users := make([]int32, n)
	for _, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			users[in]++
		}
	}
	for _, r := range results {
		users[r]++
	}
	joinable := func(c ops.ChunkRef) (ops.Assemble, bool) {
		a, ok := g.Nodes[c].Op.(ops.Assemble)
		return a, ok && users[c] == 1 && a.Covers()
	}
	merged := make(map[ops.ChunkRef]bool)
	for _, nd := range g.Nodes {
		if ub, ok := nd.Op.(ops.UserBlock); ok && ub.Joined == nil {
			for _, in := range nd.Inputs {
				if _, ok := joinable(in); ok {
					merged[in] = true
				}
			}
		}
	}
	if len(merged) == 0 {
		return g, append([]ops.ChunkRef(nil), results...)
	}
	remap := make([]ops.ChunkRef, n)
	out := &graph.ChunkGraph{Nodes: make([]graph.ChunkNode, 0, n-len(merged)), MaxOps: g.MaxOps}
	for i, nd := range g.Nodes {
		if merged[ops.ChunkRef(i)] {
			remap[i] = -1
			continue
		}
		op, ins := nd.Op, nd.Inputs
		if ub, ok := op.(ops.UserBlock); ok && ub.Joined == nil && anyMerged(ins, merged) {
			ub.Joined = make([]*ops.Assemble, len(ins))
			var flat []ops.ChunkRef
			for k, in := range ins {
				if merged[in] {
					a := g.Nodes[in].Op.(ops.Assemble)
					ub.Joined[k] = &a
					flat = append(flat, g.Nodes[in].Inputs...)
				} else {
					flat = append(flat, in)
				}
			}
			op, ins = ub, flat
		}
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

func anyMerged(ins []ops.ChunkRef, merged map[ops.ChunkRef]bool) bool {
	for _, in := range ins {
		if merged[in] {
			return true
		}
	}
	return false
}
