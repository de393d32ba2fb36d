package optimize

import (
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// maxFinishedKernel bounds the iteration shape of a fused kernel that takes
// its reduction's finish in (FinishInPlace): what the worker reads of a
// kernel to size and report it looks at the kernel, so only kernels too
// small for either to matter are wrapped.
const maxFinishedKernel = 1 << 14

// FinishInPlace runs each reduction finish whose input is the only partial
// of its chunk (a ReducePartial, or a small fused kernel ending in one,
// read by nothing else and not a result itself) in the same chunk op as
// that partial (ops.Finished). A reduction within one chunk then costs one
// chunk op: one dispatch and one report, which is most of what a small
// graph costs on a cluster. Order is kept; O(V+E).
func FinishInPlace(g *graph.ChunkGraph, results []ops.ChunkRef) (*graph.ChunkGraph, []ops.ChunkRef) {
	// The finishes of one input whose partial may take them in; readers
	// are counted only when there are some (most large graphs finish in
	// their trees' roots).
	var cands []ops.ChunkRef
	for _, nd := range g.Nodes {
		if _, ok := nd.Op.(ops.ReduceFinish); ok && len(nd.Inputs) == 1 && finishable(g.Nodes[nd.Inputs[0]].Op) {
			cands = append(cands, nd.Inputs[0])
		}
	}
	// merged[p]: partial p is taken into the finish that reads it.
	merged := make(map[ops.ChunkRef]bool)
	if len(cands) > 0 {
		users := readers(g, results)
		for _, p := range cands {
			if users[p] == 1 {
				merged[p] = true
			}
		}
	}
	return foldInto(g, results, merged, func(op ops.ChunkOp, ins []ops.ChunkRef) (ops.ChunkOp, []ops.ChunkRef) {
		if fin, ok := op.(ops.ReduceFinish); ok && len(ins) == 1 && merged[ins[0]] {
			p := g.Nodes[ins[0]]
			return ops.Finished{Op: p.Op, Finish: fin}, p.Inputs
		}
		return op, ins
	})
}

// finishable: op makes a reduction's partial and may take its finish in.
func finishable(op ops.ChunkOp) bool {
	if ops.FusionOf(op) == ops.FuseReduce {
		return true
	}
	if o, ok := op.(ops.Fused); ok {
		if len(o.Nodes) == 0 || len(o.Shape1) > 0 || ndarray.Size(o.Shape) > maxFinishedKernel {
			return false
		}
		return ops.FusionOf(o.Nodes[len(o.Nodes)-1].Op) == ops.FuseReduce
	}
	return false
}
