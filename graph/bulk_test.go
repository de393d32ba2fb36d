package graph_test

import (
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// serialGraph is a ChunkGraph that takes no bulks: every tiling adds its
// chunk ops one AddChunk at a time, in order, on one goroutine.
type serialGraph struct{ g *graph.ChunkGraph }

func (s serialGraph) AddChunk(op ops.ChunkOp, in []ops.ChunkRef, m ops.Meta) ops.ChunkRef {
	return s.g.AddChunk(op, in, m)
}
func (s serialGraph) ChunkMeta(c ops.ChunkRef) ops.Meta { return s.g.ChunkMeta(c) }
func (s serialGraph) Admit(n float64) error             { return s.g.Admit(n) }

// splitGraph is a ChunkGraph that takes bulks shared out as s says.
type splitGraph struct {
	*graph.ChunkGraph
	s     graph.Split
	bulks *int
}

func (g splitGraph) AddBulk(n, nin int, fill ops.BulkFill, refs []ops.ChunkRef) {
	*g.bulks++
	g.AddBulkSplit(g.s, n, nin, fill, refs)
}

func tileInto(t *testing.T, b graph.TileTarget, tg *graph.TileableGraph) []*ops.Tiled {
	t.Helper()
	tiled := make([]*ops.Tiled, len(tg.Nodes))
	for i := range tg.Nodes {
		ins, err := graph.TileInputs(tg, i, tiled, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tiled[i], err = graph.TileOp(b, tg, i, ins); err != nil {
			t.Fatal(err)
		}
	}
	return tiled
}

// TestBulkTilingSameGraph: tiling in bulks on several goroutines, down
// to one chunk op a batch, makes the graph a serial tiling makes, node
// for node (ops, inputs, metas) with the same tilings, across chunkings
// of odd sizes, single elements and chunks larger than the array, and
// ops whose inputs are rechunked or broadcast first.
func TestBulkTilingSameGraph(t *testing.T) {
	type tcase struct {
		name string
		x    *tensor.Tensor
	}
	var cs []tcase
	for _, c := range []int{1, 7, 100, 999, 1000, 5000} {
		ch := tensor.Chunks(c)
		cs = append(cs,
			tcase{fmt.Sprintf("w5/%d", c), tensor.Ones([]int{1000}, ch).Add(1).Sum()},
			tcase{fmt.Sprintf("moments/%d", c), tensor.Full([]int{1000}, 2, ch).Mul(3).Std()},
			tcase{fmt.Sprintf("argmax/%d", c), tensor.Arange(0, 1000, 1, ch).Mul(2).ArgMax()},
			tcase{fmt.Sprintf("rechunked/%d", c), tensor.Ones([]int{1000}, ch).Add(tensor.Full([]int{1000}, 3, tensor.Chunks(c+3))).Max()},
		)
	}
	for _, c := range [][]int{{1, 1}, {7, 6}, {30, 20}, {4, 50}, {64, 64}} {
		ch := tensor.Chunks(c...)
		x := tensor.Ones([]int{30, 20}, ch)
		cs = append(cs,
			tcase{fmt.Sprintf("2d-axis0/%v", c), x.Add(1).Sum(tensor.Axis(0))},
			tcase{fmt.Sprintf("2d-axis1-keep/%v", c), x.Exp().Mean(tensor.Axis(1), tensor.KeepDims())},
			tcase{fmt.Sprintf("2d-argmin-axis1/%v", c), x.Mul(tensor.Arange(0, 20, 1, tensor.Chunks(3))).ArgMin(tensor.Axis(1))},
			tcase{fmt.Sprintf("2d-broadcast/%v", c), x.Add(tensor.Ones([]int{30, 1}, tensor.Chunks(4, 1))).Var()},
		)
	}
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) {
			tg, _, err := tensor.Build(c.x)
			if err != nil {
				t.Fatal(err)
			}
			want := &graph.ChunkGraph{}
			wantTiled := tileInto(t, serialGraph{want}, tg)
			for _, s := range []graph.Split{{Batch: 1, Procs: 2}, {Batch: 1, Procs: 1000}, {Batch: 3, Procs: 7}, {}} {
				got := &graph.ChunkGraph{}
				bulks := 0
				gotTiled := tileInto(t, splitGraph{got, s, &bulks}, tg)
				if bulks == 0 {
					t.Fatal("no bulk was added")
				}
				sameGraph(t, want, got)
				for i := range wantTiled {
					w, g := wantTiled[i], gotTiled[i]
					if !slices.Equal(w.Chunks, g.Chunks) || !reflect.DeepEqual(w.NSplits, g.NSplits) {
						t.Fatalf("split %+v: tensor op %d tiled to %v %v, want %v %v", s, i, g.Chunks, g.NSplits, w.Chunks, w.NSplits)
					}
				}
			}
		})
	}
}

func sameGraph(t *testing.T, want, got *graph.ChunkGraph) {
	t.Helper()
	if want.Len() != got.Len() {
		t.Fatalf("%d chunk ops, want %d", got.Len(), want.Len())
	}
	for i := range want.Nodes {
		w, g := &want.Nodes[i], &got.Nodes[i]
		if !slices.Equal(w.Inputs, g.Inputs) || !reflect.DeepEqual(w.Meta, g.Meta) || !reflect.DeepEqual(w.Op, g.Op) {
			t.Fatalf("chunk op %d: %#v %v %v, want %#v %v %v", i, g.Op, g.Inputs, g.Meta, w.Op, w.Inputs, w.Meta)
		}
	}
}

// TestSplitRanges: every position is in one range, the k-th as Range
// says, on as many goroutines as asked or fewer; a panic in a range
// comes back to the caller.
func TestSplitRanges(t *testing.T) {
	for _, s := range []graph.Split{{Batch: 1, Procs: 2}, {Batch: 3, Procs: 4}, {Batch: 5, Procs: 1}, {}} {
		for _, n := range []int{0, 1, 2, 5, 17, 100} {
			seen := make([]atomic.Int32, n)
			var calls atomic.Int32
			s.Ranges(n, func(k, lo, hi int) {
				calls.Add(1)
				if l, h := s.Range(n, k); l != lo || h != hi {
					t.Errorf("%+v n=%d: batch %d is [%d, %d), Range says [%d, %d)", s, n, k, lo, hi, l, h)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			if int(calls.Load()) != s.Batches(n) {
				t.Errorf("%+v n=%d: %d ranges, want %d", s, n, calls.Load(), s.Batches(n))
			}
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("%+v n=%d: position %d in %d ranges", s, n, i, c)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a panic in a range did not reach the caller")
		}
	}()
	graph.Split{Batch: 1, Procs: 4}.Ranges(16, func(k, _, _ int) {
		if k == 9 {
			panic("range 9")
		}
	})
}
