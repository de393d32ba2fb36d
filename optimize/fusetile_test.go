package optimize

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// fuseTileCase is a graph to compile both ways; stamps says whether
// tiling must fuse some of it (its tiled graph smaller than TileWithin's).
type fuseTileCase struct {
	name   string
	ts     func() []*tensor.Tensor
	stamps bool
}

func fuseTileCases() []fuseTileCase {
	var cs []fuseTileCase
	vals := make([]float64, 1000)
	for i := range vals {
		vals[i] = float64(i)
	}
	data, err := ndarray.FromFloat64s([]int{1000}, vals)
	if err != nil {
		panic(err)
	}
	one := func(t *tensor.Tensor) func() []*tensor.Tensor {
		return func() []*tensor.Tensor { return []*tensor.Tensor{t} }
	}
	for _, c := range []int{1, 7, 100, 999, 1000, 5000} {
		ch := tensor.Chunks(c)
		multi := c < 1000 // one chunk: the partial's reader is a finish
		cs = append(cs,
			fuseTileCase{fmt.Sprintf("w5/%d", c), one(tensor.Ones([]int{1000}, ch).Add(1).Sum()), multi},
			fuseTileCase{fmt.Sprintf("chain/%d", c), one(tensor.Full([]int{1000}, 2, ch).Mul(3).Sqrt().Add(1).Mean()), multi},
			fuseTileCase{fmt.Sprintf("fill-sum/%d", c), one(tensor.Zeros([]int{1000}, ch).Max()), multi},
			fuseTileCase{fmt.Sprintf("moments/%d", c), one(tensor.Ones([]int{1000}, ch).Mul(2).Std()), multi},
			fuseTileCase{fmt.Sprintf("argmax/%d", c), one(tensor.Ones([]int{1000}, ch).Mul(2).ArgMax()), false},
			fuseTileCase{fmt.Sprintf("arange/%d", c), one(tensor.Arange(0, 1000, 1, ch).Add(1).Sum()), false},
			fuseTileCase{fmt.Sprintf("shared/%d", c), func() []*tensor.Tensor {
				x := tensor.Ones([]int{1000}, ch).Add(1)
				return []*tensor.Tensor{x.Sum(), x.Mul(2).Sum()}
			}, false},
			fuseTileCase{fmt.Sprintf("read-twice/%d", c), func() []*tensor.Tensor {
				x := tensor.Ones([]int{1000}, ch).Add(1)
				return []*tensor.Tensor{x.Mul(x).Sum()}
			}, false},
			fuseTileCase{fmt.Sprintf("mid-result/%d", c), func() []*tensor.Tensor {
				x := tensor.Ones([]int{1000}, ch).Add(1)
				return []*tensor.Tensor{x, x.Sum()}
			}, false},
			fuseTileCase{fmt.Sprintf("two-fills/%d", c), one(tensor.Ones([]int{1000}, ch).Add(tensor.Full([]int{1000}, 3, tensor.Chunks(c+1))).Sum()), false},
			// Client data is a kernel's input, never in it.
			fuseTileCase{fmt.Sprintf("data/%d", c), one(tensor.FromArray(data, ch).Add(tensor.Ones([]int{1000}, ch)).Sum()), multi},
		)
	}
	for _, c := range [][]int{{1, 1}, {7, 6}, {30, 20}, {4, 50}, {64, 64}} {
		ch := tensor.Chunks(c...)
		multi := c[0] < 30 || c[1] < 20
		cs = append(cs,
			fuseTileCase{fmt.Sprintf("2d-all/%v", c), one(tensor.Ones([]int{30, 20}, ch).Mul(2).Sum()), multi},
			fuseTileCase{fmt.Sprintf("2d-axis0/%v", c), one(tensor.Ones([]int{30, 20}, ch).Add(1).Sum(tensor.Axis(0))), c[0] < 30},
			fuseTileCase{fmt.Sprintf("2d-axis1-keep/%v", c), one(tensor.Ones([]int{30, 20}, ch).Exp().Mean(tensor.Axis(1), tensor.KeepDims())), c[1] < 20},
			fuseTileCase{fmt.Sprintf("2d-broadcast/%v", c), one(tensor.Ones([]int{30, 20}, ch).Add(tensor.Ones([]int{20})).Sum()), false},
			fuseTileCase{fmt.Sprintf("2d-then-elementwise/%v", c), one(tensor.Ones([]int{30, 20}, ch).Add(1).Sum(tensor.Axis(1)).Mul(2)), c[1] < 20},
		)
	}
	return cs
}

// TestCompileForRunSamePlan: compiling for a run fuses part of the graph
// while tiling, and must make CompileWithin's plan node for node (the
// same kernels, inputs, metas and results) across chunkings: odd sizes,
// single-element chunks, chunks larger than the array, shared and
// mid-chain results, broadcasts, data inputs.
func TestCompileForRunSamePlan(t *testing.T) {
	for _, c := range fuseTileCases() {
		t.Run(c.name, func(t *testing.T) {
			tg, ids, err := tensor.Build(c.ts()...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := CompileWithin(tg, ids, true, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := CompileForRun(tg, ids, 0)
			if err != nil {
				t.Fatal(err)
			}
			samePlan(t, want, got)
			// The kernels stamped on several goroutines, down to a root
			// a batch, as the consumer is tiled or once it is, make the
			// same plan.
			for _, split := range []stampSplit{{1, 2, false}, {1, 3, false}, {2, 7, false}, {1, 1000, false},
				{0, 0, true}, {1, 2, true}, {2, 7, true}} {
				got, err := compileForRun(tg, ids, 0, split)
				if err != nil {
					t.Fatal(err)
				}
				samePlan(t, want, got)
			}
			tiled, _, err := graph.TileWithin(tg, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, split := range []stampSplit{{}, {1, 2, false}, {afterTiling: true}} {
				stamped, _, err := tileFusing(tg, ids, 0, split)
				if err != nil {
					t.Fatal(err)
				}
				if smaller := stamped.Len() < tiled.Len(); smaller != c.stamps {
					t.Errorf("split %+v: tiled while fusing: %d chunk ops, tiled alone %d; want fused while tiling: %v", split, stamped.Len(), tiled.Len(), c.stamps)
				}
			}
		})
	}
}

func samePlan(t *testing.T, want, got *Plan) {
	t.Helper()
	if want.Graph.Len() != got.Graph.Len() {
		t.Fatalf("%d chunk ops, want %d", got.Graph.Len(), want.Graph.Len())
	}
	for i := range want.Graph.Nodes {
		w, g := &want.Graph.Nodes[i], &got.Graph.Nodes[i]
		if !slices.Equal(w.Inputs, g.Inputs) || !sameMeta(w.Meta, g.Meta) {
			t.Fatalf("chunk op %d: inputs %v meta %v, want %v %v", i, g.Inputs, g.Meta, w.Inputs, w.Meta)
		}
		wf, wok := w.Op.(ops.Fused)
		gf, gok := g.Op.(ops.Fused)
		switch {
		case wok != gok:
			t.Fatalf("chunk op %d: %s, want %s", i, g.Op.Type(), w.Op.Type())
		case wok:
			// sameFused knows the common ops only; a kernel of others is
			// compared field by field (its fresh scratch pools alike).
			if !sameFused(wf, gf) && !reflect.DeepEqual(wf, gf) {
				t.Fatalf("chunk op %d: kernel %s, want %s", i, gf.Label(), wf.Label())
			}
		case !reflect.DeepEqual(w.Op, g.Op):
			t.Fatalf("chunk op %d: %#v, want %#v", i, g.Op, w.Op)
		}
	}
	if len(want.Results) != len(got.Results) {
		t.Fatalf("%d results, want %d", len(got.Results), len(want.Results))
	}
	for i := range want.Results {
		w, g := want.Results[i], got.Results[i]
		if !slices.Equal(w.Chunks, g.Chunks) || !reflect.DeepEqual(w.NSplits, g.NSplits) || !sameMeta(w.Meta, g.Meta) {
			t.Fatalf("result %d: %v %v, want %v %v", i, g.Chunks, g.NSplits, w.Chunks, w.NSplits)
		}
	}
}

// TestCompileForRunLimit: the chunk ops fused while tiling count against
// the graph's limit as tiled ones do.
func TestCompileForRunLimit(t *testing.T) {
	tg, ids, err := tensor.Build(tensor.Ones([]int{1000}, tensor.Chunks(10)).Add(1).Sum())
	if err != nil {
		t.Fatal(err)
	}
	tiled, _, err := graph.TileWithin(tg, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{tiled.Len() - 1, tiled.Len()} {
		_, werr := CompileWithin(tg, ids, true, limit)
		_, gerr := CompileForRun(tg, ids, limit)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("limit %d: %v, want %v", limit, gerr, werr)
		}
	}
}

// TestEachPanics: a panic on one of stamp's goroutines reaches the
// caller, where the compile's guard recovers it, after every goroutine
// has returned.
func TestEachPanics(t *testing.T) {
	for _, bad := range []int{0, 1, 3} {
		var done [4]bool
		func() {
			defer func() {
				if r := recover(); r != fmt.Sprint("bad ", bad) {
					t.Errorf("panic %v, want bad %d", r, bad)
				}
			}()
			each(4, func(i int) {
				done[i] = true
				if i == bad {
					panic(fmt.Sprint("bad ", i))
				}
			})
		}()
		if done != [4]bool{true, true, true, true} {
			t.Errorf("bad %d: ran %v, want all", bad, done)
		}
	}
}
