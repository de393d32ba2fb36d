package optimize

import (
	"fmt"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// Plan is a tiled and optimised chunk graph ready to run.
type Plan struct {
	Graph   *graph.ChunkGraph
	Results []*ops.Tiled // per requested tensor; chunks refer to Graph
	// Passes describe the graph after tiling and after each optimisation.
	Passes []Stats
	// Graphs are the chunk graphs after each pass, in the order of Passes.
	Graphs []*graph.ChunkGraph
}

// Compile tiles a TileableGraph and optimises the chunk graph: it culls what
// the results do not need and, if fuse, fuses. The local session and the
// cluster's scheduler both compile through here, so a graph runs the same
// chunk kernels, and gives the same numbers, wherever it runs.
func Compile(tg *graph.TileableGraph, results []int, fuse bool) (*Plan, error) {
	return CompileWithin(tg, results, fuse, 0)
}

// CompileWithin is Compile with at most maxOps chunk ops in the tiled
// graph (0: ops.MaxChunkOps).
func CompileWithin(tg *graph.TileableGraph, results []int, fuse bool, maxOps int) (*Plan, error) {
	if err := checkResults(tg, results); err != nil {
		return nil, err
	}
	cg, tiled, err := graph.TileWithin(tg, maxOps)
	if err != nil {
		return nil, err
	}
	refs := resultRefs(tiled, results)
	p := &Plan{}
	p.record("tile", cg)
	cg, refs = Cull(cg, refs)
	p.record("cull", cg)
	if fuse {
		cg, refs = Fuse(cg, refs)
		p.record("fuse", cg)
	}
	cg, refs = JoinUserBlocks(cg, refs)
	p.record("join", cg)
	cg, refs = FinishInPlace(cg, refs)
	p.record("finish", cg)
	p.Graph = cg
	p.setResults(tiled, results, refs)
	return p, nil
}

func checkResults(tg *graph.TileableGraph, results []int) error {
	for _, r := range results {
		if r < 0 || r >= len(tg.Nodes) {
			return fmt.Errorf("compile: result %d is not a tensor of the graph (%d tensors)", r, len(tg.Nodes))
		}
	}
	return nil
}

// resultRefs are the chunks of the results, in order.
func resultRefs(tiled []*ops.Tiled, results []int) []ops.ChunkRef {
	var refs []ops.ChunkRef
	for _, id := range results {
		refs = append(refs, tiled[id].Chunks...)
	}
	return refs
}

// setResults sets p.Results from the tiled results, their chunks now refs
// (in resultRefs's order) into p.Graph.
func (p *Plan) setResults(tiled []*ops.Tiled, results []int, refs []ops.ChunkRef) {
	k := 0
	for _, id := range results {
		t := *tiled[id]
		t.Chunks = refs[k : k+len(t.Chunks)]
		t.Resplit = nil // it would add to the tiling's graph, not to p.Graph
		k += len(t.Chunks)
		p.Results = append(p.Results, &t)
	}
}

func (p *Plan) record(pass string, g *graph.ChunkGraph) {
	if n := len(p.Graphs); n > 0 && p.Graphs[n-1] == g {
		// The pass changed nothing (a cull that cut nothing): the same
		// figures, not another walk over millions of ops.
		s := p.Passes[n-1]
		s.Pass = pass
		p.Passes = append(p.Passes, s)
		p.Graphs = append(p.Graphs, g)
		return
	}
	p.Passes = append(p.Passes, Summarize(pass, g))
	p.Graphs = append(p.Graphs, g)
}
