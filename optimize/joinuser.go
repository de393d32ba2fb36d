package optimize

import (
	"slices"

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
	if !anyUnjoined(g) {
		// No block to join into: the graph is its own joined form, and
		// one of millions of ops is neither counted nor copied.
		return g, slices.Clone(results)
	}
	users := readers(g, results)
	joinable := func(c ops.ChunkRef) bool {
		a, ok := g.Nodes[c].Op.(ops.Assemble)
		return ok && users[c] == 1 && a.Covers()
	}
	merged := make(map[ops.ChunkRef]bool)
	for _, nd := range g.Nodes {
		if ub, ok := nd.Op.(ops.UserBlock); ok && ub.Joined == nil {
			for _, in := range nd.Inputs {
				if joinable(in) {
					merged[in] = true
				}
			}
		}
	}
	return foldInto(g, results, merged, func(op ops.ChunkOp, ins []ops.ChunkRef) (ops.ChunkOp, []ops.ChunkRef) {
		ub, ok := op.(ops.UserBlock)
		if !ok || ub.Joined != nil || !anyMerged(ins, merged) {
			return op, ins
		}
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
		return ub, flat
	})
}

// anyUnjoined reports whether g has a user block whose inputs are not
// joined.
func anyUnjoined(g *graph.ChunkGraph) bool {
	for i := range g.Nodes {
		if ub, ok := g.Nodes[i].Op.(ops.UserBlock); ok && ub.Joined == nil {
			return true
		}
	}
	return false
}

func anyMerged(ins []ops.ChunkRef, merged map[ops.ChunkRef]bool) bool {
	for _, in := range ins {
		if merged[in] {
			return true
		}
	}
	return false
}
