package cluster

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
)

// MaxChunksPerTensor bounds how many chunks one tensor of a submitted graph
// may have, so a hostile or mistaken chunk size (a billion chunks of one
// element) is refused before tiling exhausts the scheduler's memory.
const MaxChunksPerTensor = 1 << 22

// CheckChunkCounts refuses a graph whose chunk specs ask for more than
// MaxChunksPerTensor chunks in one tensor. It counts without building the
// splits (which would itself be the allocation to avoid).
func CheckChunkCounts(tg *graph.TileableGraph) error {
	for i, nd := range tg.Nodes {
		var spec ops.ChunkSpec
		switch op := nd.Op.(type) {
		case ops.Full:
			spec = op.Chunks
		case ops.Arange:
			spec = op.Chunks
		case ops.Eye:
			spec = op.Chunks
		case ops.Random:
			spec = op.Chunks
		case ops.Literal:
			spec = op.Chunks
		case ops.Rechunk:
			spec = op.Chunks
		default:
			continue
		}
		if n := spec.Count(nd.Meta); n > MaxChunksPerTensor {
			return fmt.Errorf("tensor %d (%s %v): chunks %+v make %.3g chunks, more than the limit of %d; use larger chunks", i, nd.Op.Type(), nd.Meta, spec, n, MaxChunksPerTensor)
		}
	}
	return nil
}

// Compile is optimize.Compile for graphs that come from clients: a panic in
// a tile rule (hostile parameters) becomes an error instead of taking the
// scheduler down. The stack goes to log, not into the error users see.
func Compile(log *slog.Logger, tg *graph.TileableGraph, results []int, fuse bool) (cg *graph.ChunkGraph, out []*ops.Tiled, err error) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("compile panicked", "panic", p, "stack", string(debug.Stack()))
			cg, out, err = nil, nil, fmt.Errorf("compile: internal error: %v", p)
		}
	}()
	plan, err := optimize.Compile(tg, results, fuse)
	if err != nil {
		return nil, nil, err
	}
	return plan.Graph, plan.Results, nil
}
