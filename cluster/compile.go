package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/phobos-tensor/phobos/execution"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
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
		spec, ok := ops.ChunkSpecOf(nd.Op)
		if !ok {
			continue
		}
		if n := spec.Count(nd.Meta); n > MaxChunksPerTensor {
			return fmt.Errorf("tensor %d (%s %v): chunks %+v make %.3g chunks, more than the limit of %d; use larger chunks", i, nd.Op.Type(), nd.Meta, spec, n, MaxChunksPerTensor)
		}
	}
	return nil
}

// compile compiles a graph from a client for running (execution.Compile)
// and pre-encodes its chunk ops for the wire. A panic while compiling is
// the graph's error; its stack goes to the log, not into the error users
// see.
func (p *SchedulerProc) compile(ctx context.Context, tg *graph.TileableGraph, results []int, fuse bool) (*execution.Execution, error) {
	ex, err := execution.Compile(tg, results, fuse)
	if err != nil {
		if pe, ok := errors.AsType[*execution.PanicError](err); ok {
			p.log.Error("compile panicked", "op", pe.Op, "panic", pe.Value, "stack", string(pe.Stack))
		}
		return nil, err
	}
	// Workers of this process take the ops as they are (their batches
	// travel in process, rpc.WithDispatchBatch); a worker elsewhere that
	// joined such a scheduler gets its ops encoded as they are sent.
	if p.cfg.Loopback == nil {
		if err := preEncode(ctx, ex.Graph); err != nil {
			return nil, err
		}
	}
	return ex, nil
}
