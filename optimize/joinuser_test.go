package optimize

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

const joinTestFunc = "optimize-join-test"

func init() {
	// out = a*100 + the first rows of b, element by element.
	if err := ops.RegisterBlockFunc(joinTestFunc, func(_ context.Context, in []*ndarray.Array, info ops.BlockInfo) (*ndarray.Array, error) {
		if len(in) != 2 {
			return nil, fmt.Errorf("%d blocks", len(in))
		}
		a, b := in[0].Contiguous().Float64s(), in[1].Contiguous().Float64s()
		out := make([]float64, len(a))
		for i := range a {
			out[i] = a[i]*100 + b[i]
		}
		return ndarray.FromFloat64s(info.Shape, out)
	}); err != nil {
		panic(err)
	}
}

// run executes every node of g in order, as a worker would.
func run(t *testing.T, g *graph.ChunkGraph) []*ndarray.Array {
	t.Helper()
	out := make([]*ndarray.Array, len(g.Nodes))
	for i, nd := range g.Nodes {
		in := make([]*ndarray.Array, len(nd.Inputs))
		for k, c := range nd.Inputs {
			in[k] = out[c]
		}
		a, err := nd.Op.Exec(context.Background(), in)
		if err != nil {
			t.Fatalf("node %d (%s): %v", i, nd.Op.Type(), err)
		}
		out[i] = a
	}
	return out
}

func TestJoinUserBlocks(t *testing.T) {
	v := make([]float64, 6*7)
	for i := range v {
		v[i] = float64(i)
	}
	src, err := ndarray.FromFloat64s([]int{6, 7}, v)
	if err != nil {
		t.Fatal(err)
	}
	f64 := func(shape ...int) ops.Meta { return ops.Meta{Shape: shape, DType: ndarray.Float64} }
	rng := func(start, n int) ndarray.Range { return ndarray.Range{Start: start, Step: 1, Len: n} }
	g := &graph.ChunkGraph{}
	s := g.AddChunk(ops.LiteralChunk{Data: src}, nil, f64(6, 7))
	top := g.AddChunk(ops.Flip{Axes: []int{0}}, []ops.ChunkRef{g.AddChunk(ops.SliceView{Ranges: []ndarray.Range{rng(0, 2), rng(0, 7)}}, []ops.ChunkRef{s}, f64(2, 7))}, f64(2, 7))
	bottom := g.AddChunk(ops.SliceView{Ranges: []ndarray.Range{rng(1, 5), rng(0, 7)}}, []ops.ChunkRef{s}, f64(5, 7))
	// A block of 5 x 7: the flipped top two rows, then three rows of
	// the bottom piece taken from its middle (Src not at zero).
	joined := g.AddChunk(ops.Assemble{Pieces: []ops.Piece{
		{Src: []int{0, 0}, Dst: []int{0, 0}, Len: []int{2, 7}},
		{Src: []int{1, 0}, Dst: []int{2, 0}, Len: []int{3, 7}},
	}}, []ops.ChunkRef{top, bottom}, f64(5, 7))
	// Pieces with a gap are not folded: the executor's memory is not cleared.
	gap := g.AddChunk(ops.Assemble{Pieces: []ops.Piece{
		{Src: []int{0, 0}, Dst: []int{0, 0}, Len: []int{2, 7}},
		{Src: []int{0, 0}, Dst: []int{3, 0}, Len: []int{3, 7}},
	}}, []ops.ChunkRef{top, bottom}, f64(6, 7))
	ub := func(in ...ops.ChunkRef) ops.ChunkRef {
		return g.AddChunk(ops.UserBlock{Func: "f", GoFunc: joinTestFunc, DType: ndarray.Float64, Shape: []int{5, 7}}, in, f64(5, 7))
	}
	r1 := ub(joined, s)
	// An Assemble read twice is not folded either.
	shared := g.AddChunk(ops.Assemble{Pieces: []ops.Piece{
		{Src: []int{0, 0}, Dst: []int{0, 0}, Len: []int{2, 7}},
		{Src: []int{0, 0}, Dst: []int{2, 0}, Len: []int{3, 7}},
	}}, []ops.ChunkRef{top, bottom}, f64(5, 7))
	r2 := ub(shared, s)
	r3 := ub(shared, gap)
	results := []ops.ChunkRef{r1, r2, r3}

	want := run(t, g)
	jg, jres := JoinUserBlocks(g, results)
	if len(jg.Nodes) != len(g.Nodes)-1 {
		t.Fatalf("%d nodes after the pass, want %d (one Assemble folded)", len(jg.Nodes), len(g.Nodes)-1)
	}
	op := jg.Nodes[jres[0]].Op.(ops.UserBlock)
	if len(op.Joined) != 2 || op.Joined[0] == nil || op.Joined[1] != nil || len(jg.Nodes[jres[0]].Inputs) != 3 {
		t.Fatalf("the first block's op: joined %v, inputs %v", op.Joined, jg.Nodes[jres[0]].Inputs)
	}
	for _, r := range jres[1:] {
		if o := jg.Nodes[r].Op.(ops.UserBlock); o.Joined != nil {
			t.Fatalf("an Assemble read twice or with a gap was folded: %v", o.Joined)
		}
	}
	// The op survives the wire (JSON) as the worker gets it.
	b, err := ops.MarshalOp(op)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ops.UnmarshalChunkOp(b)
	if err != nil {
		t.Fatal(err)
	}
	jg.Nodes[jres[0]].Op = back
	got := run(t, jg)
	for i, r := range results {
		w, g := want[r].Contiguous().Float64s(), got[jres[i]].Contiguous().Float64s()
		if !slices.Equal(w, g) || !slices.Equal(want[r].Shape(), got[jres[i]].Shape()) {
			t.Fatalf("result %d: got %v, want %v", i, g, w)
		}
	}
	// Nothing to fold: the graph is kept as it is.
	if g2, _ := JoinUserBlocks(jg, jres); g2 != jg {
		t.Fatal("a graph with nothing to fold was rebuilt")
	}
}
