package ops_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/tensor"
)

// w5Kernels builds W5's graph, (ones(n)+1).sum() in chunks of chunk, and
// returns one of its fused partial kernels and one of its combines of
// four partials, as the worker runs them.
func w5Kernels(tb testing.TB, n, chunk int) (ops.Fused, ops.ChunkOp) {
	tb.Helper()
	r := tensor.Ones([]int{n}, tensor.Chunks(chunk)).Add(1).Sum()
	fg := fusedGraph(tb, r)
	var fused ops.Fused
	var combine ops.ChunkOp
	found := false
	for _, nd := range fg.Nodes {
		switch op := nd.Op.(type) {
		case ops.Fused:
			fused, found = op, true
		case ops.ReduceCombine:
			if len(nd.Inputs) == 4 && op.Finish == nil {
				combine = op
			}
		}
	}
	if !found || combine == nil {
		tb.Fatalf("no fused partial or combine of four in W5's graph (%d chunk ops)", len(fg.Nodes))
	}
	return fused, combine
}

// BenchmarkW5FusedExec is one of W5's chunk kernels: a fill, an add and a
// sum of 100 elements, run as the worker runs it (the kernel shared by
// every chunk of the op).
func BenchmarkW5FusedExec(b *testing.B) {
	op, _ := w5Kernels(b, 1000, 100)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := op.Exec(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkW5Combine is one of W5's combines: four scalar partial sums.
func BenchmarkW5Combine(b *testing.B) {
	_, op := w5Kernels(b, 1600, 100)
	ctx := context.Background()
	in := make([]*ndarray.Array, 4)
	for i := range in {
		a, err := ndarray.FromFloat64s(nil, []float64{float64(i) + 0.5})
		if err != nil {
			b.Fatal(err)
		}
		in[i] = a
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := op.Exec(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFusedMapExec is a small elementwise kernel without a reduction
// (ones(100)+1 of a chunk of 100): its output is the one array it makes.
func BenchmarkFusedMapExec(b *testing.B) {
	r := tensor.Ones([]int{1000}, tensor.Chunks(100)).Add(1)
	fg := fusedGraph(b, r)
	op, ok := fg.Nodes[0].Op.(ops.Fused)
	if !ok {
		b.Fatalf("chunk op 0 is %s, not a fused kernel", ops.Label(fg.Nodes[0].Op))
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := op.Exec(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// fusedGraph is r's chunk graph as the fusion pass leaves it: tiled, culled
// to r's chunks and fused.
func fusedGraph(tb testing.TB, r *tensor.Tensor) *graph.ChunkGraph {
	tb.Helper()
	tg, ids, err := tensor.Build(r)
	if err != nil {
		tb.Fatal(err)
	}
	cg, tiled, err := graph.Tile(tg)
	if err != nil {
		tb.Fatal(err)
	}
	cg, refs := optimize.Cull(cg, tiled[ids[0]].Chunks)
	fg, _ := optimize.Fuse(cg, refs)
	return fg
}
