package scheduler

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// nop is a chunk op for graph-shape tests.
type nop struct{}

func (nop) Type() string { return "nop" }
func (nop) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.Scalar(ndarray.Float64, 0), nil
}

var scalarMeta = ops.Meta{DType: ndarray.Float64}

// leavesAndReducers builds nl leaves feeding nr reducers, consecutive leaves
// feeding the same reducer.
func leavesAndReducers(nl, nr int) *graph.ChunkGraph {
	g := &graph.ChunkGraph{}
	var leaves []ops.ChunkRef
	for range nl {
		leaves = append(leaves, g.AddChunk(nop{}, nil, scalarMeta))
	}
	per := nl / nr
	for r := range nr {
		g.AddChunk(nop{}, leaves[r*per:(r+1)*per], scalarMeta)
	}
	return g
}

func TestAssignInitialKeepsSiblingsTogether(t *testing.T) {
	g := leavesAndReducers(12, 6)
	adj := g.Successors()
	var results []int32
	for i := 12; i < 18; i++ {
		results = append(results, int32(i))
	}
	order := DepthFirstOrder(g, results)
	assign := AssignInitial(g, adj, order, []int{1, 1, 1})
	count := map[int16]int{}
	for leaf := 0; leaf < 12; leaf++ {
		if assign[leaf] < 0 {
			t.Fatalf("leaf %d unassigned", leaf)
		}
		count[assign[leaf]]++
	}
	for r := 0; r < 6; r++ {
		if assign[2*r] != assign[2*r+1] {
			t.Errorf("reducer %d: leaves on workers %d and %d", r, assign[2*r], assign[2*r+1])
		}
	}
	for w := int16(0); w < 3; w++ {
		if count[w] != 4 {
			t.Errorf("worker %d got %d leaves, want 4 (balance): %v", w, count[w], assign[:12])
		}
	}
	for i := 12; i < 18; i++ {
		if assign[i] != -1 {
			t.Errorf("non-source op %d assigned", i)
		}
	}
}

func TestAssignInitialProportionalToSlots(t *testing.T) {
	g := leavesAndReducers(30, 15)
	adj := g.Successors()
	order := DepthFirstOrder(g, nil)
	assign := AssignInitial(g, adj, order, []int{2, 1})
	count := map[int16]int{}
	for leaf := 0; leaf < 30; leaf++ {
		count[assign[leaf]]++
	}
	if count[0] != 20 || count[1] != 10 {
		t.Errorf("got %v, want 20 and 10 leaves for 2:1 slots", count)
	}
}

func TestDepthFirstOrderInterleavesSiblings(t *testing.T) {
	// a0 a1 b0 b1 built tensor by tensor; add0 = a0+b0, add1 = a1+b1.
	g := &graph.ChunkGraph{}
	a0 := g.AddChunk(nop{}, nil, scalarMeta)
	a1 := g.AddChunk(nop{}, nil, scalarMeta)
	b0 := g.AddChunk(nop{}, nil, scalarMeta)
	b1 := g.AddChunk(nop{}, nil, scalarMeta)
	s0 := g.AddChunk(nop{}, []ops.ChunkRef{a0, b0}, scalarMeta)
	s1 := g.AddChunk(nop{}, []ops.ChunkRef{a1, b1}, scalarMeta)
	order := DepthFirstOrder(g, []int32{int32(s0), int32(s1)})
	// b0 must come before a1: the first sum's inputs are made together.
	if !(order[a0] < order[b0] && order[b0] < order[s0] && order[s0] < order[a1]) {
		t.Errorf("order %v does not finish the first subtree first", order)
	}
}

func TestPriorityDeeperFirst(t *testing.T) {
	deep := protocol.Priority{Depth: 2, Order: 9, Succ: 3}
	shallow := protocol.Priority{Depth: 1, Order: 0}
	if !deep.Less(shallow) {
		t.Error("deeper op should run first")
	}
	// A shared input early in depth-first order beats a later source even
	// with many more successors.
	shared := protocol.Priority{Depth: 0, Order: 1, Succ: 20}
	later := protocol.Priority{Depth: 0, Order: 2, Succ: 1}
	if !shared.Less(later) {
		t.Error("earlier depth-first order should run first")
	}
	small := protocol.Priority{Depth: 1, Order: 1, Bytes: 1, Succ: 5}
	big := protocol.Priority{Depth: 1, Order: 1, Bytes: 100, Succ: 1}
	if !small.Less(big) {
		t.Error("smaller output should run first")
	}
	few := protocol.Priority{Depth: 1, Order: 1, Bytes: 1, Succ: 1}
	if !few.Less(small) {
		t.Error("fewer successors should break the last ties")
	}
}

func TestDepths(t *testing.T) {
	g := leavesAndReducers(4, 2)
	g.AddChunk(nop{}, []ops.ChunkRef{4, 5}, scalarMeta)
	d := Depths(g)
	want := []int32{0, 0, 0, 0, 1, 1, 2}
	for i := range want {
		if d[i] != want[i] {
			t.Fatalf("depths %v, want %v", d, want)
		}
	}
}

func TestChooseWorker(t *testing.T) {
	cases := []struct {
		bytes []int64
		busy  []int
		slots []int
		want  int
	}{
		{[]int64{10, 20, 5}, []int{0, 0, 0}, []int{1, 1, 1}, 1},
		{[]int64{10, 10}, []int{3, 1}, []int{2, 2}, 1},        // tie: lighter load
		{[]int64{10, 10}, []int{2, 1}, []int{4, 1}, 0},        // 2/4 < 1/1
		{[]int64{0, 0, 0}, []int{1, 1, 1}, []int{1, 1, 1}, 0}, // full tie: lowest index
	}
	for i, c := range cases {
		if got := ChooseWorker(c.bytes, c.busy, c.slots); got != c.want {
			t.Errorf("case %d: got %d want %d", i, got, c.want)
		}
	}
}

func TestAssignInitialSkipsWorkersWithoutSlots(t *testing.T) {
	g := leavesAndReducers(12, 6)
	assign := AssignInitial(g, g.Successors(), DepthFirstOrder(g, nil), []int{1, 0, 1})
	for leaf := 0; leaf < 12; leaf++ {
		if assign[leaf] == 1 {
			t.Fatalf("leaf %d assigned to a worker with no slots: %v", leaf, assign[:12])
		}
	}
}

// TestPrepareLargeGraph: a graph large enough for Prepare's walks to run
// at once gets the plan the walks give one after another.
func TestPrepareLargeGraph(t *testing.T) {
	g := leavesAndReducers(3*parallelPrepare, parallelPrepare/4)
	root := g.AddChunk(nop{}, []ops.ChunkRef{ops.ChunkRef(g.Len() - 1), ops.ChunkRef(g.Len() - 2)}, scalarMeta)
	results := []int32{int32(root)}
	p := Prepare(g, results, []int{2, 2})
	depth, order, adj := Depths(g), DepthFirstOrder(g, results), g.Successors()
	for i := range g.Nodes {
		want := protocol.Priority{Depth: depth[i], Order: order[i], Bytes: scalarMeta.Nbytes(), Succ: int32(len(adj.Of(i)))}
		if p.Priority[i] != want {
			t.Fatalf("op %d: priority %+v, want %+v", i, p.Priority[i], want)
		}
	}
	if len(p.Adj.Succ) != len(adj.Succ) {
		t.Fatalf("%d successor edges, want %d", len(p.Adj.Succ), len(adj.Succ))
	}
}
