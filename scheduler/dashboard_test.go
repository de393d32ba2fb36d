package scheduler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// labelled is a nop with a label, as fused kernels have.
type labelled struct {
	nop
	label string
}

func (l labelled) Label() string { return l.label }

func TestDashboardCountsTimesAndTaskRing(t *testing.T) {
	s, _ := startFake(t, 2, Config{}, nil)
	g, root := treeGraph(64)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	tc := run.TypeCounts()
	if len(tc) != 1 || tc[0].Type != "nop" {
		t.Fatalf("types %+v, want one: nop", tc)
	}
	for st, n := range run.Counts() {
		if tc[0].Counts[st] != n {
			t.Errorf("%v: %d by type, %d in all", st, tc[0].Counts[st], n)
		}
	}
	infos, err := run.Ops(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != len(g.Nodes) {
		t.Fatalf("%d ops described, want %d", len(infos), len(g.Nodes))
	}
	for _, oi := range infos {
		if oi.Started.IsZero() || oi.Ended.Before(oi.Started) || oi.Worker < 0 || oi.Nbytes != 8 {
			t.Errorf("op %d: %+v: want a start, an end after it, a worker and 8 bytes", oi.Node, oi)
		}
	}
	one, err := run.Ops([]int32{root}, "")
	if err != nil || len(one) != 1 || len(one[0].Inputs) != 2 {
		t.Fatalf("Ops(root) = %+v, %v: want the root with its two inputs", one, err)
	}
	if _, err := run.Ops([]int32{int32(len(g.Nodes))}, ""); err == nil {
		t.Error("Ops of a node past the graph: no error")
	}
	total := 0
	for w := range 2 {
		a, err := s.Tasks(w)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Running) != 0 || a.Queued != 0 {
			t.Errorf("worker %d: %d running, %d queued after the run", w, len(a.Running), a.Queued)
		}
		for _, e := range a.Recent {
			if e.Worker != w || e.Outcome != protocol.Succeeded || e.Graph != run.ID() {
				t.Errorf("worker %d: event %+v", w, e)
			}
		}
		total += len(a.Recent)
	}
	if total != len(g.Nodes) || s.OpsDone() != int64(len(g.Nodes)) {
		t.Errorf("%d task events, %d ops done; want %d", total, s.OpsDone(), len(g.Nodes))
	}
	if _, err := s.Tasks(2); err == nil {
		t.Error("Tasks of worker 2 of 2: no error")
	}
	// The ring keeps the last TaskRing tasks.
	g2, root2 := treeGraph(TaskRing * 2)
	run2, err := s.Submit(context.Background(), g2, []int32{root2})
	if err != nil {
		t.Fatal(err)
	}
	if err := run2.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, err := s.Tasks(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Recent) != TaskRing {
		t.Fatalf("%d events kept, want %d", len(a.Recent), TaskRing)
	}
	for i := 1; i < len(a.Recent); i++ {
		if a.Recent[i].Ended.Before(a.Recent[i-1].Ended) {
			t.Fatalf("events %d and %d out of order", i-1, i)
		}
	}
	if last := a.Recent[len(a.Recent)-1]; last.Graph != run2.ID() {
		t.Errorf("newest event of graph %d, want %d", last.Graph, run2.ID())
	}
}

func TestDashboardTypesBounded(t *testing.T) {
	g := &graph.ChunkGraph{}
	var refs []ops.ChunkRef
	for i := range MaxOpTypes + 10 {
		refs = append(refs, g.AddChunk(labelled{label: fmt.Sprintf("fuse(k%d)", i)}, nil, scalarMeta))
	}
	g.AddChunk(nop{}, refs[:2], scalarMeta)
	r := newRun(nil, 1, g, Prepare(g, nil, []int{1}), nil)
	tc := r.TypeCounts()
	if len(tc) != MaxOpTypes || tc[len(tc)-1].Type != OtherOpType {
		t.Fatalf("%d types, last %q; want %d, the last %q", len(tc), tc[len(tc)-1].Type, MaxOpTypes, OtherOpType)
	}
	var n int64
	for _, c := range tc {
		n += c.Counts[Unscheduled]
	}
	if n != int64(len(g.Nodes)) {
		t.Errorf("%d ops counted, want %d", n, len(g.Nodes))
	}
}

// typed is an op of the given type.
type typed struct{ name string }

func (o typed) Type() string { return o.name }
func (typed) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.Scalar(ndarray.Float64, 0), nil
}

// TestDashboardFusedTypes checks the types of fused kernels: runs of one
// shared kernel, kernels alike but not shared, and another kind between,
// each counted under its label.
func TestDashboardFusedTypes(t *testing.T) {
	addOne := []ops.FusedNode{{Op: nop{}}, {Op: typed{"add"}, Args: []int{0}}}
	sumOf := []ops.FusedNode{{Op: nop{}}, {Op: typed{"sum"}, Args: []int{0}}}
	g := &graph.ChunkGraph{}
	kernels := [][]ops.FusedNode{addOne, addOne, addOne, sumOf, addOne, slices.Clone(addOne), sumOf, sumOf}
	for _, k := range kernels {
		g.AddChunk(ops.Fused{Nodes: k}, nil, scalarMeta)
	}
	g.AddChunk(nop{}, []ops.ChunkRef{0}, scalarMeta)
	r := newRun(nil, 1, g, Prepare(g, nil, []int{1}), nil)
	got := map[string]int64{}
	for _, c := range r.TypeCounts() {
		got[c.Type] = c.Counts[Unscheduled]
	}
	want := map[string]int64{
		cutLabel(ops.Label(ops.Fused{Nodes: addOne})): 5,
		cutLabel(ops.Label(ops.Fused{Nodes: sumOf})):  3,
		"nop": 1,
	}
	if !maps.Equal(got, want) {
		t.Fatalf("type counts %v, want %v", got, want)
	}
}
