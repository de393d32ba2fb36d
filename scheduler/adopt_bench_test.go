package scheduler_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// BenchmarkRebuild rebuilds the states of a graph of about a million chunk
// ops (leaves summed by a tree of fan-in 4) from an inventory holding
// every other leaf and the first level of sums: the pure part of a
// failover, O(V+E).
func BenchmarkRebuild(b *testing.B) {
	g := &graph.ChunkGraph{}
	meta := ops.Meta{DType: ndarray.Float64}
	level := make([]ops.ChunkRef, 1<<19)
	for i := range level {
		level[i] = g.AddChunk(ops.FullChunk{DType: ndarray.Float64, Value: 1}, nil, meta)
	}
	inv := scheduler.Inventory{}
	for i := 0; i < len(level); i += 2 {
		inv[i%3] = append(inv[i%3], scheduler.HeldChunk{Node: int32(level[i]), Nbytes: 8})
	}
	for depth := 0; len(level) > 1; depth++ {
		var next []ops.ChunkRef
		for i := 0; i < len(level); i += 4 {
			r := g.AddChunk(ops.FullChunk{DType: ndarray.Float64, Value: 1}, level[i:min(i+4, len(level))], meta)
			next = append(next, r)
			if depth == 0 && i%8 == 0 {
				inv[i%3] = append(inv[i%3], scheduler.HeldChunk{Node: int32(r), Nbytes: 8})
			}
		}
		level = next
	}
	results := []int32{int32(level[0])}
	for b.Loop() {
		if _, err := scheduler.Rebuild(g, results, inv); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(g.Nodes)), "ns/chunk-op")
}

// BenchmarkFailover compares, on 3 in-process workers, running W4 (n=1200,
// chunks of 150: 64 chunks a side) from scratch with adopting it once it
// had succeeded (fence, inventory, recompile, rebuild, results located):
// what a failover costs a finished graph.
func BenchmarkFailover(b *testing.B) {
	w, _ := workloads.Get("W4")
	tg, results, err := tensor.Build(w.Build(workloads.Params{"n": 1200, "chunk": 150}, 1))
	if err != nil {
		b.Fatal(err)
	}
	js, err := graph.EncodeTileable(tg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("clean", func(b *testing.B) {
		ws := newWorkerSet(b, 3)
		s := ws.scheduler(b, protocol.Fence{}, scheduler.TestingKnobs{})
		ws.to.Store(s)
		for b.Loop() {
			g, nodes := compileJSON(b, js, results, true)
			run, err := s.Submit(ctx, g, nodes)
			if err != nil {
				b.Fatal(err)
			}
			if err := run.Wait(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := run.ResultLocations(ctx, nodes); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			run.Release()
			b.StartTimer()
		}
	})
	b.Run("adopt-finished", func(b *testing.B) {
		ws := newWorkerSet(b, 3)
		token := uint64(1)
		for b.Loop() {
			b.StopTimer()
			old := ws.scheduler(b, protocol.Fence{Scope: "s", Token: token}, scheduler.TestingKnobs{})
			ws.to.Store(old)
			g, nodes := compileJSON(b, js, results, true)
			run, err := old.Submit(ctx, g, nodes)
			if err != nil {
				b.Fatal(err)
			}
			if err := run.Wait(ctx); err != nil {
				b.Fatal(err)
			}
			old.Close()
			token++
			fence := protocol.Fence{Scope: "s", Token: token}
			adopter := ws.scheduler(b, fence, scheduler.TestingKnobs{})
			ws.to.Store(adopter)
			b.StartTimer()

			inv := ws.inventory(b, fence, run.ID())
			g2, nodes2 := compileJSON(b, js, results, true)
			adopted, err := adopter.Adopt(ctx, scheduler.AdoptRequest{ID: run.ID(), Graph: g2, Results: nodes2, Inventory: inv, Fence: fence})
			if err != nil {
				b.Fatal(err)
			}
			if err := adopted.Wait(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := adopted.ResultLocations(ctx, nodes2); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			adopted.Release()
			adopter.Close()
			b.StartTimer()
		}
	})
}
