package ops

import (
	"context"
	"math/rand"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// mpBuilder is an in-memory chunk graph that the tests execute in order.
type mpBuilder struct {
	ops    []ChunkOp
	inputs [][]ChunkRef
	metas  []Meta
}

func (b *mpBuilder) AddChunk(op ChunkOp, in []ChunkRef, meta Meta) ChunkRef {
	b.ops = append(b.ops, op)
	b.inputs = append(b.inputs, in)
	b.metas = append(b.metas, meta)
	return ChunkRef(len(b.ops) - 1)
}

func (b *mpBuilder) ChunkMeta(c ChunkRef) Meta { return b.metas[c] }

type mpConst struct{ a *ndarray.Array }

func (mpConst) Type() string { return "mp_const" }
func (c mpConst) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	return c.a, nil
}

// mpArange is a float64 array 0, 1, 2, ... of the given shape.
func mpArange(t *testing.T, shape ...int) *ndarray.Array {
	t.Helper()
	v := make([]float64, ndarray.Size(shape))
	for i := range v {
		v[i] = float64(i)
	}
	a, err := ndarray.FromFloat64s(shape, v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mpTile(t *testing.T, b *mpBuilder, a *ndarray.Array, nsplits [][]int) *Tiled {
	t.Helper()
	tl := &Tiled{Meta: Meta{Shape: a.Shape(), DType: a.DType()}, NSplits: nsplits}
	offs := AxisOffsets(nsplits)
	ForEachGrid(tl.Grid(), func(idx []int) {
		shape := ChunkShape(nsplits, idx)
		c, err := a.Slice(unitRanges(ChunkOffset(offs, idx), shape))
		if err != nil {
			t.Fatal(err)
		}
		tl.Chunks = append(tl.Chunks, b.AddChunk(mpConst{c.Copy()}, nil, Meta{Shape: shape, DType: a.DType()}))
	})
	return tl
}

// mpRun executes the graph, checking every chunk against its planned meta,
// and assembles res.
func mpRun(t *testing.T, b *mpBuilder, res *Tiled) (*ndarray.Array, []*ndarray.Array) {
	t.Helper()
	vals := make([]*ndarray.Array, len(b.ops))
	for i, op := range b.ops {
		in := make([]*ndarray.Array, len(b.inputs[i]))
		for k, c := range b.inputs[i] {
			in[k] = vals[c]
		}
		out, err := op.Exec(context.Background(), in)
		if err != nil {
			t.Fatalf("chunk op %d (%s): %v", i, op.Type(), err)
		}
		if m := b.metas[i]; out.DType() != m.DType || !ndarray.SameShape(out.Shape(), m.Shape) {
			t.Fatalf("chunk op %d (%s) produced %v%v, planned %v", i, op.Type(), out.DType(), out.Shape(), m)
		}
		vals[i] = out
	}
	out, err := ndarray.New(res.Meta.DType, res.Meta.Shape...)
	if err != nil {
		t.Fatal(err)
	}
	offs := AxisOffsets(res.NSplits)
	ForEachGrid(res.Grid(), func(idx []int) {
		c := vals[res.At(idx)]
		if !ndarray.SameShape(c.Shape(), ChunkShape(res.NSplits, idx)) {
			t.Fatalf("chunk %v has shape %v, nsplits say %v", idx, c.Shape(), ChunkShape(res.NSplits, idx))
		}
		dst, err := out.Slice(unitRanges(ChunkOffset(offs, idx), c.Shape()))
		if err != nil {
			t.Fatal(err)
		}
		ndarray.CopyInto(dst, c)
	})
	return out, vals
}

func mpEqual(t *testing.T, what string, got, want *ndarray.Array) {
	t.Helper()
	if !ndarray.SameShape(got.Shape(), want.Shape()) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
	}
	if g, w := got.ToFloat64s(), want.ToFloat64s(); !slices.Equal(g, w) {
		t.Fatalf("%s: got %v, want %v", what, g, w)
	}
}

func mpRandSplits(r *rand.Rand, n int) []int {
	if n == 0 {
		return []int{0}
	}
	var sp []int
	for n > 0 {
		s := min(n, 1+r.Intn(4))
		sp = append(sp, s)
		n -= s
	}
	return sp
}

func TestSelectAxisMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for it := 0; it < 2000; it++ {
		n := 1 + r.Intn(20)
		splits := mpRandSplits(r, n)
		offs := Offsets(splits)
		step := r.Intn(7) - 3
		if step == 0 {
			step = 1
		}
		rg, err := ndarray.SliceRange(n, r.Intn(2*n+2)-n-1, r.Intn(2*n+2)-n-1, step, r.Intn(2) == 0, r.Intn(2) == 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, s := range selectAxis(offs, rg) {
			if s.r.Len <= 0 {
				t.Fatalf("empty selection in chunk %d", s.chunk)
			}
			for k := range s.r.Len {
				p := s.r.Start + k*s.r.Step
				if p < 0 || p >= splits[s.chunk] {
					t.Fatalf("local index %d outside chunk %d of length %d", p, s.chunk, splits[s.chunk])
				}
				got = append(got, offs[s.chunk]+p)
			}
		}
		var want []int
		for k := range rg.Len {
			want = append(want, rg.Start+k*rg.Step)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("splits %v range %+v: got %v want %v", splits, rg, got, want)
		}
	}
}

// The chunk kernels must be views of their input where NumPy's are.
func TestChunkKernelsAreViews(t *testing.T) {
	a := mpArange(t, 4, 1, 6)
	ctx := context.Background()
	kernels := []ChunkOp{
		Transpose{Perm: []int{2, 0, 1}},
		Flip{Axes: []int{0, 2}},
		Squeeze{Axes: []int{1}},
		ExpandDims{Axis: 3},
		BroadcastChunk{Shape: []int{2, 4, 5, 6}},
		ReshapeChunk{Shape: []int{1, 4, 6, 1}},
		ReshapeChunk{Shape: []int{24}},
		Index{Items: []IndexItem{
			{Kind: IndexSlice, Range: ndarray.Range{Start: 3, Step: -2, Len: 2}},
			{Kind: IndexInt, Index: 0},
			{Kind: IndexNewAxis},
			{Kind: IndexSlice, Range: ndarray.Range{Start: 1, Step: 3, Len: 2}},
		}},
	}
	for _, k := range kernels {
		out, err := k.Exec(ctx, []*ndarray.Array{a})
		if err != nil {
			t.Fatalf("%s: %v", k.Type(), err)
		}
		if !out.SharesBuffer(a) {
			t.Errorf("%s copied its input", k.Type())
		}
	}
	// Adding length-1 axes to a non-contiguous chunk is still a view.
	tr, _ := a.Transpose()
	out, err := ReshapeChunk{Shape: []int{6, 4}}.Exec(ctx, []*ndarray.Array{tr})
	if err != nil {
		t.Fatal(err)
	}
	if !out.SharesBuffer(a) {
		t.Error("reshape_chunk copied a non-contiguous chunk when only length-1 axes changed")
	}
	want, _ := tr.Reshape(6, 4)
	mpEqual(t, "reshape_chunk", out, want)
}

func TestReshapeRowsMatchesNdarray(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	shapes := [][2][]int{
		{{6, 4}, {8, 3}}, {{6, 4}, {24}}, {{24}, {2, 3, 4}}, {{2, 3, 4}, {4, 6}},
		{{5, 7}, {7, 5}}, {{3, 5, 2}, {5, 6}}, {{30}, {5, 6}}, {{4, 9}, {3, 12}},
		{{2, 3, 4}, {4, 3, 2}}, {{12, 1, 2}, {1, 24}},
	}
	for it := 0; it < 300; it++ {
		pair := shapes[it%len(shapes)]
		a := mpArange(t, pair[0]...)
		ns := make([][]int, a.NDim())
		for ax, d := range a.Shape() {
			ns[ax] = mpRandSplits(r, d)
		}
		b := &mpBuilder{}
		in := mpTile(t, b, a, ns)
		out := Meta{Shape: pair[1], DType: ndarray.Float64}
		before := len(b.ops)
		res, err := Reshape{Shape: pair[1]}.Tile(b, []*Tiled{in}, out)
		if err != nil {
			t.Fatal(err)
		}
		// Linear: at most a rechunk of every chunk plus one op per output chunk.
		if added := len(b.ops) - before; added > 2*len(in.Chunks)+len(res.Chunks)+4 {
			t.Errorf("reshape %v -> %v over %v added %d ops for %d input chunks", pair[0], pair[1], ns, added, len(in.Chunks))
		}
		got, _ := mpRun(t, b, res)
		want, _ := a.Reshape(pair[1]...)
		mpEqual(t, "reshape", got, want)
	}
}

func TestIndexTileTouchesOnlySelectedChunks(t *testing.T) {
	a := mpArange(t, 1000)
	b := &mpBuilder{}
	ns := [][]int{SplitEven(1000, 1)}
	in := mpTile(t, b, a, ns)
	op := Index{Items: []IndexItem{{Kind: IndexSlice, Range: ndarray.Range{Start: 998, Step: -300, Len: 4}}}}
	out, err := op.Infer([]Meta{in.Meta})
	if err != nil {
		t.Fatal(err)
	}
	before := len(b.ops)
	res, err := op.Tile(b, []*Tiled{in}, out)
	if err != nil {
		t.Fatal(err)
	}
	// Each touched one-element chunk is reused as it is.
	if added := len(b.ops) - before; added != 0 || len(res.Chunks) != 4 {
		t.Fatalf("index added %d ops and made %d chunks", added, len(res.Chunks))
	}
	got, _ := mpRun(t, b, res)
	if v := got.ToFloat64s(); !slices.Equal(v, []float64{998, 698, 398, 98}) {
		t.Fatalf("got %v", v)
	}
}

func TestConcatenateReusesChunks(t *testing.T) {
	b := &mpBuilder{}
	x := mpTile(t, b, mpArange(t, 3, 4), [][]int{{1, 2}, {2, 2}})
	y := mpTile(t, b, mpArange(t, 5, 4), [][]int{{5}, {2, 2}})
	op := Concatenate{Axis: 0}
	out, err := op.Infer([]Meta{x.Meta, y.Meta})
	if err != nil {
		t.Fatal(err)
	}
	before := len(b.ops)
	res, err := op.Tile(b, []*Tiled{x, y}, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.ops) != before {
		t.Fatalf("concatenate of aligned inputs added %d ops", len(b.ops)-before)
	}
	if !slices.Equal(res.NSplits[0], []int{1, 2, 5}) {
		t.Fatalf("nsplits %v", res.NSplits)
	}
	got, _ := mpRun(t, b, res)
	want := make([]float64, 0, 32)
	want = append(want, mpArange(t, 12).ToFloat64s()...)
	want = append(want, mpArange(t, 20).ToFloat64s()...)
	if !slices.Equal(got.ToFloat64s(), want) {
		t.Fatalf("got %v", got.ToFloat64s())
	}
}

func TestBroadcastToSplitsLargeAxes(t *testing.T) {
	b := &mpBuilder{}
	x := mpTile(t, b, mpArange(t, 1, 4), [][]int{{1}, {2, 2}})
	op := BroadcastTo{Shape: []int{3, 1 << 26, 4}}
	out, err := op.Infer([]Meta{x.Meta})
	if err != nil {
		t.Fatal(err)
	}
	res, err := op.Tile(b, []*Tiled{x}, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Chunks {
		if m := b.ChunkMeta(c); m.Nbytes() > DefaultChunkBytes {
			t.Fatalf("chunk %v is larger than the auto target", m)
		}
	}
	if !slices.Equal(res.NSplits[2], []int{2, 2}) {
		t.Fatalf("spanned axis rechunked: %v", res.NSplits[2])
	}
}
