package ops_test

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestSharedFusedKernels runs the chunks of one tensor op, which share one
// fused kernel and its working memory, at once and in turn, and checks
// every chunk against the same kernel without shared memory: reusing a
// previous chunk's buffers and constant tiles must not leak its values
// into the next chunk, whether the kernel reduces or not.
func TestSharedFusedKernels(t *testing.T) {
	data := make([]float64, 1000)
	for i := range data {
		data[i] = math.Sin(float64(i))
	}
	a, err := ndarray.FromFloat64s([]int{len(data)}, data)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.FromArray(a, tensor.Chunks(100))
	// x feeds two ops of each group, so it is each kernel's input, not
	// part of it; the constant tensor is a generator inside every kernel.
	y := x.Mul(2).Add(tensor.Full([]int{len(data)}, 0.5, tensor.Chunks(100))).Add(x)
	for _, r := range []*tensor.Tensor{y, y.Sum()} {
		fg := fusedGraph(t, r)
		programs := map[*ops.FusedNode]int{}
		for _, nd := range fg.Nodes {
			if f, ok := nd.Op.(ops.Fused); ok {
				programs[&f.Nodes[0]]++
			}
		}
		if len(programs) != 1 {
			t.Fatalf("%d fused programs for the chunks of one tensor op: %v", len(programs), programs)
		}
		want := runGraph(t, fg, false, true)
		for range 3 { // later rounds reuse the working sets of earlier ones
			got := runGraph(t, fg, true, false)
			for i := range fg.Nodes {
				if !sameValues(got[i], want[i]) {
					t.Fatalf("chunk op %d (%s): shared kernel gave %v, want %v", i, ops.Label(fg.Nodes[i].Op), got[i], want[i])
				}
			}
		}
	}
}

// runGraph executes g level by level (ops of one depth at once if
// parallel), with every fused kernel unshared if asked.
func runGraph(t *testing.T, g *graph.ChunkGraph, parallel, unshare bool) []*ndarray.Array {
	t.Helper()
	out := make([]*ndarray.Array, len(g.Nodes))
	depth := make([]int, len(g.Nodes))
	maxDepth := 0
	for i, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			depth[i] = max(depth[i], depth[in]+1)
		}
		maxDepth = max(maxDepth, depth[i])
	}
	errs := make([]error, len(g.Nodes))
	for d := 0; d <= maxDepth; d++ {
		var wg sync.WaitGroup
		for i, nd := range g.Nodes {
			if depth[i] != d {
				continue
			}
			run := func() {
				op := nd.Op
				if f, ok := op.(ops.Fused); ok && unshare {
					op = f.Unshared()
				}
				ins := make([]*ndarray.Array, len(nd.Inputs))
				for j, in := range nd.Inputs {
					ins[j] = out[in]
				}
				out[i], errs[i] = op.Exec(context.Background(), ins)
			}
			if parallel {
				wg.Go(run)
			} else {
				run()
			}
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("chunk op %d (%s): %v", i, ops.Label(g.Nodes[i].Op), err)
			}
		}
	}
	return out
}

// sameValues reports whether two float64 arrays hold the same shape and bits.
func sameValues(a, b *ndarray.Array) bool {
	if !ndarray.SameShape(a.Shape(), b.Shape()) {
		return false
	}
	x, y := a.Contiguous().Float64s(), b.Contiguous().Float64s()
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}
