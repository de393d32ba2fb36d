// Package execution is the one way a graph goes from submitted to result,
// for the local session (package phobos) and the scheduler process
// (package cluster) alike: compile (tile, cull, fuse), list the result
// chunk ops once each, submit them to the scheduler, follow the run to
// its end, and assemble the results, axes of unknown length included,
// either into arrays (locally) or into the layout clients fetch chunks
// by (a cluster). A panic while compiling or assembling becomes a
// *PanicError, in one place (guard).
package execution

import (
	"context"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
)

// Execution is one graph on its way: compiled, then submitted.
type Execution struct {
	Graph   *graph.ChunkGraph // the optimised chunk graph
	Results []*ops.Tiled      // per requested tensor; chunks refer to Graph
	// Nodes are the result chunk ops, each once, in the order of Results:
	// what the scheduler keeps when the run ends.
	Nodes []int32
	Run   *scheduler.Run // set by Submit
}

// Plan compiles a tileable graph as optimize.Compile does, keeping the
// graph after each pass (for explain); a panic in a tile rule or a pass
// becomes a *PanicError.
func Plan(tg *graph.TileableGraph, results []int, fuse bool) (plan *optimize.Plan, err error) {
	err = guard("compile", func() error {
		plan, err = optimize.Compile(tg, results, fuse)
		return err
	})
	return plan, err
}

// PlanTensors builds the graph of the tensors and compiles it (Plan).
// They were built in this process, so the graph may have up to
// ops.MaxLocalChunkOps chunk ops.
func PlanTensors(fuse bool, ts []*tensor.Tensor) (plan *optimize.Plan, err error) {
	err = guard("compile", func() error {
		tg, ids, err := tensor.Build(ts...)
		if err != nil {
			return err
		}
		plan, err = optimize.CompileWithin(tg, ids, fuse, ops.MaxLocalChunkOps)
		return err
	})
	return plan, err
}

// Compile compiles a tileable graph for running: the plan's last graph,
// its results and their chunk ops once each. With fuse it compiles as
// CompileTensors does (optimize.CompileForRun), so the cluster's
// scheduler and the local session make a graph's plan the same way;
// the graph came over the network, so it is bounded by ops.MaxChunkOps.
func Compile(tg *graph.TileableGraph, results []int, fuse bool) (*Execution, error) {
	if !fuse {
		plan, err := Plan(tg, results, false)
		if err != nil {
			return nil, err
		}
		return fromPlan(plan), nil
	}
	var plan *optimize.Plan
	err := guard("compile", func() (err error) {
		plan, err = optimize.CompileForRun(tg, results, 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	return fromPlan(plan), nil
}

// CompileTensors is Compile for the graph of the tensors. With fuse it
// compiles for running only (optimize.CompileForRun: the same plan, fused
// in part while tiled, without the figures of each pass).
func CompileTensors(fuse bool, ts []*tensor.Tensor) (*Execution, error) {
	if !fuse {
		plan, err := PlanTensors(false, ts)
		if err != nil {
			return nil, err
		}
		return fromPlan(plan), nil
	}
	var plan *optimize.Plan
	err := guard("compile", func() error {
		tg, ids, err := tensor.Build(ts...)
		if err != nil {
			return err
		}
		plan, err = optimize.CompileForRun(tg, ids, ops.MaxLocalChunkOps)
		return err
	})
	if err != nil {
		return nil, err
	}
	return fromPlan(plan), nil
}

// fromPlan keeps of a plan what a run needs: not the graphs of the passes
// before the last, which are for explaining (a graph of a million chunks
// holds hundreds of megabytes in each).
func fromPlan(plan *optimize.Plan) *Execution {
	return &Execution{Graph: plan.Graph, Results: plan.Results, Nodes: ResultNodes(plan.Results)}
}

// ResultNodes are the chunk ops of the results, each once, in order: two
// results may share chunks (the same tensor asked twice, or a view).
func ResultNodes(results []*ops.Tiled) []int32 {
	seen := make(map[ops.ChunkRef]bool)
	var nodes []int32
	for _, t := range results {
		for _, c := range t.Chunks {
			if !seen[c] {
				seen[c] = true
				nodes = append(nodes, int32(c))
			}
		}
	}
	return nodes
}

// Submit hands the compiled graph to the scheduler, its dispatches
// carrying fence (the zero Fence outside a ring of schedulers).
func (e *Execution) Submit(ctx context.Context, s *scheduler.Scheduler, fence protocol.Fence) error {
	run, err := s.SubmitFenced(ctx, e.Graph, e.Nodes, fence)
	if err != nil {
		return err
	}
	e.Run = run
	return nil
}

// Follow waits for a run to end. If ctx ends first the run is cancelled
// and Follow returns once its running ops have stopped. With report, it
// passes the run's ops per state to report every interval while it waits,
// and once at the end.
func Follow(ctx context.Context, run *scheduler.Run, every time.Duration, report func(map[scheduler.State]int64)) error {
	if report == nil {
		return run.Wait(ctx)
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				report(run.Counts())
			case <-done:
				report(run.Counts())
				return
			}
		}
	}()
	err := run.Wait(ctx)
	close(done)
	<-stopped
	return err
}
