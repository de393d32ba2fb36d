package cluster

import (
	"fmt"
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
		if n := chunkCount(spec, nd.Meta); n > MaxChunksPerTensor {
			return fmt.Errorf("tensor %d (%s %v): chunks %+v make %.3g chunks, more than the limit of %d; use larger chunks", i, nd.Op.Type(), nd.Meta, spec, n, MaxChunksPerTensor)
		}
	}
	return nil
}

// chunkCount is how many chunks spec makes of a tensor (as ChunkSpec.Resolve
// would), as a float so it cannot overflow.
func chunkCount(spec ops.ChunkSpec, m ops.Meta) float64 {
	shape := m.Shape
	count := 1.0
	switch {
	case len(spec.Splits) > 0:
		for _, sp := range spec.Splits {
			count *= float64(max(len(sp), 1))
		}
	case len(spec.Size) > 0:
		for ax, n := range shape {
			s := spec.Size[0]
			if len(spec.Size) == len(shape) {
				s = spec.Size[ax]
			}
			if s > 0 && s < n {
				count *= float64((n + s - 1) / s)
			}
		}
	default:
		target := spec.Bytes
		if target <= 0 {
			target = ops.DefaultChunkBytes
		}
		budget := max(target/int64(max(m.DType.Size(), 1)), 1)
		for ax := len(shape) - 1; ax >= 0; ax-- {
			n := int64(shape[ax])
			switch {
			case n == 0:
			case n <= budget:
				budget /= n
			default:
				count *= float64((n + budget - 1) / budget)
				budget = 1
			}
		}
	}
	return count
}

// Compile is optimize.Compile for graphs that come from clients: a panic in
// a tile rule (hostile parameters) becomes an error instead of taking the
// scheduler down.
func Compile(tg *graph.TileableGraph, results []int, fuse bool) (cg *graph.ChunkGraph, out []*ops.Tiled, err error) {
	defer func() {
		if p := recover(); p != nil {
			cg, out, err = nil, nil, fmt.Errorf("compile: %v\n%s", p, debug.Stack())
		}
	}()
	plan, err := optimize.Compile(tg, results, fuse)
	if err != nil {
		return nil, nil, err
	}
	return plan.Graph, plan.Results, nil
}
