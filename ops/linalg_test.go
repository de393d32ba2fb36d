package ops

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// laBuilder is an in-memory chunk graph that tests execute in order.
type laBuilder struct {
	ops    []ChunkOp
	inputs [][]ChunkRef
	metas  []Meta
}

func (b *laBuilder) AddChunk(op ChunkOp, in []ChunkRef, meta Meta) ChunkRef {
	b.ops = append(b.ops, op)
	b.inputs = append(b.inputs, in)
	b.metas = append(b.metas, meta)
	return ChunkRef(len(b.ops) - 1)
}

func (b *laBuilder) ChunkMeta(c ChunkRef) Meta { return b.metas[c] }

func (b *laBuilder) count(typ string) int {
	n := 0
	for _, op := range b.ops {
		if op.Type() == typ {
			n++
		}
	}
	return n
}

// laConst is a source chunk holding data.
type laConst struct{ a *ndarray.Array }

func (laConst) Type() string { return "const" }
func (c laConst) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	return c.a, nil
}

// laTile splits a into const chunks along nsplits.
func laTile(t *testing.T, b *laBuilder, a *ndarray.Array, nsplits [][]int) *Tiled {
	t.Helper()
	tl := &Tiled{Meta: Meta{Shape: a.Shape(), DType: a.DType()}, NSplits: nsplits}
	offs := AxisOffsets(nsplits)
	ForEachGrid(tl.Grid(), func(idx []int) {
		shape := ChunkShape(nsplits, idx)
		c, err := a.Slice(unitRanges(ChunkOffset(offs, idx), shape))
		if err != nil {
			t.Fatal(err)
		}
		tl.Chunks = append(tl.Chunks, b.AddChunk(laConst{c.Copy()}, nil, Meta{Shape: shape, DType: a.DType()}))
	})
	return tl
}

// laExec runs every chunk op, checking each against its planned meta as
// the worker does, and assembles res.
func laExec(t *testing.T, b *laBuilder, res *Tiled) *ndarray.Array {
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
		dst, err := out.Slice(unitRanges(ChunkOffset(offs, idx), c.Shape()))
		if err != nil {
			t.Fatal(err)
		}
		ndarray.CopyInto(dst, c)
	})
	return out
}

func laRand(t *testing.T, r *rand.Rand, dt ndarray.DType, shape ...int) *ndarray.Array {
	t.Helper()
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Size() {
		switch {
		case dt == ndarray.Bool:
			a.SetFlat(i, float64(r.Intn(3)/2)) // mostly false, so or-ing matters
		case dt.IsInt():
			a.SetFlat(i, float64(r.Intn(11)-5))
		default:
			a.SetFlat(i, r.Float64()*2-1)
		}
	}
	return a
}

// laUnravel is the C-order multi-index of flat index i.
func laUnravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for ax := len(shape) - 1; ax >= 0; ax-- {
		idx[ax] = i % shape[ax]
		i /= shape[ax]
	}
	return idx
}

func laFlat(idx, shape []int) int {
	f := 0
	for ax, d := range shape {
		f = f*d + idx[ax]
	}
	return f
}

// laNaiveTensorDot is a loop-per-element tensordot in float64 (bool: or of ands).
func laNaiveTensorDot(a, b *ndarray.Array, aAxes, bAxes []int) []float64 {
	aFree, bFree := dotFreeAxes(a.NDim(), aAxes), dotFreeAxes(b.NDim(), bAxes)
	var oshape, kshape []int
	for _, ax := range aFree {
		oshape = append(oshape, a.Shape()[ax])
	}
	for _, ax := range bFree {
		oshape = append(oshape, b.Shape()[ax])
	}
	for _, ax := range aAxes {
		kshape = append(kshape, a.Shape()[ax])
	}
	out := make([]float64, ndarray.Size(oshape))
	ia, ib := make([]int, a.NDim()), make([]int, b.NDim())
	for o := range out {
		oi := laUnravel(o, oshape)
		for i, ax := range aFree {
			ia[ax] = oi[i]
		}
		for i, ax := range bFree {
			ib[ax] = oi[len(aFree)+i]
		}
		s := 0.0
		for k := range ndarray.Size(kshape) {
			ki := laUnravel(k, kshape)
			for i := range ki {
				ia[aAxes[i]], ib[bAxes[i]] = ki[i], ki[i]
			}
			p := a.AtFlat(laFlat(ia, a.Shape())) * b.AtFlat(laFlat(ib, b.Shape()))
			if a.DType() == ndarray.Bool && b.DType() == ndarray.Bool {
				s = math.Max(s, p)
			} else {
				s += p
			}
		}
		out[o] = s
	}
	return out
}

func laClose(t *testing.T, what string, got *ndarray.Array, want []float64) {
	t.Helper()
	g := got.ToFloat64s()
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	tol := 1e-9
	if got.DType() == ndarray.Float32 {
		tol = 1e-4
	}
	for i := range g {
		if math.Abs(g[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, g[i], want[i])
		}
	}
}

// laSplits chunks n by a chunk size (0 means one chunk) or a random split.
func laSplits(r *rand.Rand, n, size int) []int {
	if size < 0 && n > 0 { // random boundaries
		var s []int
		for left := n; left > 0; {
			k := 1 + r.Intn(left)
			s = append(s, k)
			left -= k
		}
		return s
	}
	return SplitEven(n, size)
}

func TestTensorDotInfer(t *testing.T) {
	f64, i32, f32, b1 := ndarray.Float64, ndarray.Int32, ndarray.Float32, ndarray.Bool
	cases := []struct {
		a, b         Meta
		aAxes, bAxes []int
		want         Meta
	}{
		{Meta{Shape: []int{2, 3, 4}, DType: f64}, Meta{Shape: []int{4, 3, 5}, DType: f64}, []int{1, 2}, []int{1, 0}, Meta{Shape: []int{2, 5}, DType: f64}},
		{Meta{Shape: []int{2, 3}, DType: i32}, Meta{Shape: []int{3, 2}, DType: i32}, []int{1}, []int{0}, Meta{Shape: []int{2, 2}, DType: i32}},
		{Meta{Shape: []int{2, 3}, DType: f32}, Meta{Shape: []int{3}, DType: i32}, []int{1}, []int{0}, Meta{Shape: []int{2}, DType: f64}},
		{Meta{Shape: []int{2, 3}, DType: b1}, Meta{Shape: []int{3, 2}, DType: b1}, nil, nil, Meta{Shape: []int{2, 3, 3, 2}, DType: b1}},
		{Meta{Shape: []int{3}, DType: f64}, Meta{Shape: []int{3}, DType: f64}, []int{0}, []int{0}, Meta{Shape: nil, DType: f64}},
		{Meta{Shape: nil, DType: f64}, Meta{Shape: []int{3}, DType: f64}, nil, nil, Meta{Shape: []int{3}, DType: f64}},
	}
	for _, c := range cases {
		got, err := TensorDot{AAxes: c.aAxes, BAxes: c.bAxes}.Infer([]Meta{c.a, c.b})
		if err != nil {
			t.Fatalf("%v . %v: %v", c.a, c.b, err)
		}
		if got.DType != c.want.DType || !slices.Equal(got.Shape, c.want.Shape) {
			t.Errorf("tensordot %v, %v over %v, %v: %v, want %v", c.a, c.b, c.aAxes, c.bAxes, got, c.want)
		}
	}
	bad := []struct {
		a, b         []int
		aAxes, bAxes []int
		msg          []string
	}{
		{[]int{2, 3}, []int{4, 5}, []int{1}, []int{0}, []string{"shape mismatch", "[2 3]", "[4 5]", "axis 1 of a", "axis 0 of b"}},
		{[]int{2, 3}, []int{3, 5}, []int{1}, nil, []string{"1 axes [1] of a but 0 axes"}},
		{[]int{2, 3}, []int{3, 5}, []int{2}, []int{0}, []string{"out of bounds"}},
		{[]int{3, 3}, []int{3, 3}, []int{0, 0}, []int{0, 1}, []string{"repeated axis 0"}},
	}
	for _, c := range bad {
		_, err := TensorDot{AAxes: c.aAxes, BAxes: c.bAxes}.Infer([]Meta{{Shape: c.a, DType: f64}, {Shape: c.b, DType: f64}})
		if err == nil {
			t.Fatalf("tensordot %v, %v over %v, %v: no error", c.a, c.b, c.aAxes, c.bAxes)
		}
		for _, m := range c.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("error %q does not mention %q", err, m)
			}
		}
	}
}

func TestMatMulInfer(t *testing.T) {
	f64, i32, b1 := ndarray.Float64, ndarray.Int32, ndarray.Bool
	cases := []struct {
		a, b, want Meta
	}{
		{Meta{Shape: []int{2, 3}, DType: f64}, Meta{Shape: []int{3, 4}, DType: f64}, Meta{Shape: []int{2, 4}, DType: f64}},
		{Meta{Shape: []int{3}, DType: i32}, Meta{Shape: []int{3, 4}, DType: i32}, Meta{Shape: []int{4}, DType: i32}},
		{Meta{Shape: []int{2, 3}, DType: f64}, Meta{Shape: []int{3}, DType: i32}, Meta{Shape: []int{2}, DType: f64}},
		{Meta{Shape: []int{3}, DType: b1}, Meta{Shape: []int{3}, DType: b1}, Meta{Shape: nil, DType: b1}},
		{Meta{Shape: []int{5, 1, 2, 3}, DType: f64}, Meta{Shape: []int{4, 3, 6}, DType: f64}, Meta{Shape: []int{5, 4, 2, 6}, DType: f64}},
		{Meta{Shape: []int{3}, DType: f64}, Meta{Shape: []int{7, 3, 2}, DType: f64}, Meta{Shape: []int{7, 2}, DType: f64}},
		{Meta{Shape: []int{7, 2, 3}, DType: f64}, Meta{Shape: []int{3}, DType: f64}, Meta{Shape: []int{7, 2}, DType: f64}},
	}
	for _, c := range cases {
		got, err := MatMul{}.Infer([]Meta{c.a, c.b})
		if err != nil {
			t.Fatalf("%v @ %v: %v", c.a, c.b, err)
		}
		if got.DType != c.want.DType || !slices.Equal(got.Shape, c.want.Shape) {
			t.Errorf("%v @ %v: %v, want %v", c.a, c.b, got, c.want)
		}
	}
	bad := []struct {
		a, b []int
		msg  string
	}{
		{[]int{2, 3}, []int{4, 5}, "mismatch in the contracted dimension (3 in a, 4 in b)"},
		{nil, []int{3}, "operand 0 is 0-d"},
		{[]int{2, 2, 3}, []int{3, 3, 1}, "batch axes"},
	}
	for _, c := range bad {
		_, err := MatMul{}.Infer([]Meta{{Shape: c.a, DType: f64}, {Shape: c.b, DType: f64}})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v @ %v: error %v, want one mentioning %q", c.a, c.b, err, c.msg)
		}
	}
}

func TestTensorDotTile(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	type tc struct {
		a, b         []int
		aAxes, bAxes []int
	}
	cases := []tc{
		{[]int{5, 7}, []int{7, 3}, []int{1}, []int{0}},
		{[]int{3, 4, 5}, []int{5, 4, 2}, []int{1, 2}, []int{1, 0}},
		{[]int{4, 3}, []int{5}, nil, nil},
		{[]int{9}, []int{9}, []int{0}, []int{0}},
		{[]int{2, 0}, []int{0, 3}, []int{1}, []int{0}},
		{[]int{0, 4}, []int{4, 3}, []int{1}, []int{0}},
		{[]int{6, 2, 5}, []int{5, 3, 6}, []int{0, 2}, []int{2, 0}},
	}
	dtypes := [][2]ndarray.DType{
		{ndarray.Float64, ndarray.Float64}, {ndarray.Float32, ndarray.Float32},
		{ndarray.Int32, ndarray.Int32}, {ndarray.Int64, ndarray.Float32}, {ndarray.Bool, ndarray.Bool},
	}
	sizes := []int{0, 1, 2, 3, -1, 100}
	for _, c := range cases {
		for _, dts := range dtypes {
			for trial := range 6 {
				a := laRand(t, r, dts[0], c.a...)
				b := laRand(t, r, dts[1], c.b...)
				var ns [2][][]int
				for k, sh := range [][]int{c.a, c.b} {
					for _, n := range sh {
						ns[k] = append(ns[k], laSplits(r, n, sizes[(trial+r.Intn(len(sizes)))%len(sizes)]))
					}
				}
				op := TensorDot{AAxes: c.aAxes, BAxes: c.bAxes}
				out, err := op.Infer([]Meta{{Shape: a.Shape(), DType: a.DType()}, {Shape: b.Shape(), DType: b.DType()}})
				if err != nil {
					t.Fatal(err)
				}
				bl := &laBuilder{}
				ta, tb := laTile(t, bl, a, ns[0]), laTile(t, bl, b, ns[1])
				res, err := op.Tile(bl, []*Tiled{ta, tb}, out)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("tensordot %v%v %v . %v%v %v over %v,%v", dts[0], c.a, ns[0], dts[1], c.b, ns[1], c.aAxes, c.bAxes)
				got := laExec(t, bl, res)
				if !slices.Equal(got.Shape(), out.Shape) || got.DType() != out.DType {
					t.Fatalf("%s: got %v%v", what, got.DType(), got.Shape())
				}
				laClose(t, what, got, laNaiveTensorDot(a, b, c.aAxes, c.bAxes))
			}
		}
	}
}

func TestMatMulTile(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	cases := [][2][]int{
		{{5, 7}, {7, 3}},
		{{7}, {7, 4}},
		{{4, 7}, {7}},
		{{6}, {6}},
		{{3, 1, 4, 5}, {2, 5, 3}},
		{{2, 4, 5}, {5, 3}},
		{{5}, {3, 5, 2}},
		{{1, 4, 5}, {3, 5, 2}},
		{{0, 4, 5}, {1, 5, 2}},
		{{3, 0}, {0, 2}},
	}
	dtypes := [][2]ndarray.DType{
		{ndarray.Float64, ndarray.Float64}, {ndarray.Float32, ndarray.Float32},
		{ndarray.Int32, ndarray.Int32}, {ndarray.Int32, ndarray.Float64}, {ndarray.Bool, ndarray.Bool},
	}
	sizes := []int{0, 1, 2, 3, -1, 100}
	for _, c := range cases {
		for _, dts := range dtypes {
			for trial := range 6 {
				a := laRand(t, r, dts[0], c[0]...)
				b := laRand(t, r, dts[1], c[1]...)
				var ns [2][][]int
				for k, sh := range c {
					for _, n := range sh {
						ns[k] = append(ns[k], laSplits(r, n, sizes[(trial+r.Intn(len(sizes)))%len(sizes)]))
					}
				}
				out, err := MatMul{}.Infer([]Meta{{Shape: a.Shape(), DType: a.DType()}, {Shape: b.Shape(), DType: b.DType()}})
				if err != nil {
					t.Fatal(err)
				}
				bl := &laBuilder{}
				ta, tb := laTile(t, bl, a, ns[0]), laTile(t, bl, b, ns[1])
				res, err := MatMul{}.Tile(bl, []*Tiled{ta, tb}, out)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("matmul %v%v %v @ %v%v %v", dts[0], c[0], ns[0], dts[1], c[1], ns[1])
				got := laExec(t, bl, res)
				want, err := ndarray.MatMul(a, b)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Shape(), want.Shape()) || got.DType() != want.DType() {
					t.Fatalf("%s: got %v%v, want %v%v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
				}
				laClose(t, what, got, want.ToFloat64s())
			}
		}
	}
}

// TestMatMulTileCount checks that tiling makes one float product op per
// output chunk and group of up to 4 contraction chunks (accumulated in
// gemm), plus a fan-in-4 tree over the groups, and one op per block
// product for other dtypes: linear in the chunks either way.
func TestMatMulTileCount(t *testing.T) {
	cases := []struct {
		dt                      ndarray.DType
		products, pairs, combos int
	}{
		// 9 contraction chunks: groups of 3, 3, 3, then one combine.
		{ndarray.Float64, 4 * 3 * 3, 3, 4 * 3},
		{ndarray.Float32, 4 * 3 * 3, 3, 4 * 3},
		// One product per pair, then a level of 3 combines and the root.
		{ndarray.Int64, 4 * 3 * 9, 1, 4 * 3 * 4},
	}
	for _, c := range cases {
		bl := &laBuilder{}
		a := &Tiled{Meta: Meta{Shape: []int{40, 90}, DType: c.dt}, NSplits: [][]int{SplitEven(40, 10), SplitEven(90, 10)}}
		b := &Tiled{Meta: Meta{Shape: []int{90, 30}, DType: c.dt}, NSplits: [][]int{SplitEven(90, 10), SplitEven(30, 10)}}
		for _, x := range []*Tiled{a, b} {
			ForEachGrid(x.Grid(), func(idx []int) {
				x.Chunks = append(x.Chunks, bl.AddChunk(laConst{}, nil, Meta{Shape: ChunkShape(x.NSplits, idx), DType: c.dt}))
			})
		}
		out, _ := MatMul{}.Infer([]Meta{a.Meta, b.Meta})
		if _, err := (MatMul{}).Tile(bl, []*Tiled{a, b}, out); err != nil {
			t.Fatal(err)
		}
		if n := bl.count("matmul"); n != c.products {
			t.Errorf("%v: %d block product ops, want %d", c.dt, n, c.products)
		}
		for i, op := range bl.ops {
			if op.Type() == "matmul" && len(bl.inputs[i]) != 2*c.pairs {
				t.Errorf("%v: a product op of %d inputs, want %d", c.dt, len(bl.inputs[i]), 2*c.pairs)
				break
			}
		}
		if n := bl.count("sum_combine"); n != c.combos {
			t.Errorf("%v: %d combines, want %d", c.dt, n, c.combos)
		}
		if n := bl.count("assemble") + bl.count("slice_view"); n != 0 {
			t.Errorf("%v: %d rechunk ops for aligned inputs", c.dt, n)
		}
	}
}

func TestCumulativeInfer(t *testing.T) {
	cases := []struct {
		in   Meta
		op   Cumulative
		want Meta
	}{
		{Meta{Shape: []int{2, 3}, DType: ndarray.Int32}, Cumulative{"cumsum", 1}, Meta{Shape: []int{2, 3}, DType: ndarray.Int64}},
		{Meta{Shape: []int{2, 3}, DType: ndarray.Bool}, Cumulative{"cumprod", 0}, Meta{Shape: []int{2, 3}, DType: ndarray.Int64}},
		{Meta{Shape: []int{4}, DType: ndarray.Float32}, Cumulative{"cumsum", 0}, Meta{Shape: []int{4}, DType: ndarray.Float32}},
		{Meta{Shape: nil, DType: ndarray.Float64}, Cumulative{"cumsum", 0}, Meta{Shape: []int{1}, DType: ndarray.Float64}},
	}
	for _, c := range cases {
		got, err := c.op.Infer([]Meta{c.in})
		if err != nil {
			t.Fatal(err)
		}
		if got.DType != c.want.DType || !slices.Equal(got.Shape, c.want.Shape) {
			t.Errorf("%s %v: %v, want %v", c.op.Func, c.in, got, c.want)
		}
	}
	if _, err := (Cumulative{"cumsum", 2}).Infer([]Meta{{Shape: []int{2, 3}, DType: ndarray.Float64}}); err == nil || !strings.Contains(err.Error(), "axis 2 is out of bounds") {
		t.Errorf("bad axis: %v", err)
	}
	if _, err := (Cumulative{"cummax", 0}).Infer([]Meta{{Shape: []int{2}, DType: ndarray.Float64}}); err == nil {
		t.Error("unknown function accepted")
	}
}

func laNaiveCum(a *ndarray.Array, axis int, prod bool) []float64 {
	shape := a.Shape()
	out := make([]float64, a.Size())
	for i := range out {
		idx := laUnravel(i, shape)
		v := a.AtFlat(i)
		if idx[axis] > 0 {
			idx[axis]--
			p := out[laFlat(idx, shape)]
			if prod {
				v *= p
			} else {
				v += p
			}
		}
		out[i] = v
	}
	return out
}

func TestCumulativeTile(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	shapes := [][]int{{7}, {5, 6}, {3, 4, 5}, {4, 0}, {1}}
	for _, shape := range shapes {
		for _, dt := range []ndarray.DType{ndarray.Float64, ndarray.Float32, ndarray.Int32, ndarray.Bool} {
			for _, fn := range []string{"cumsum", "cumprod"} {
				for axis := range shape {
					for trial := range 4 {
						a := laRand(t, r, dt, shape...)
						var ns [][]int
						for _, n := range shape {
							ns = append(ns, laSplits(r, n, []int{1, 2, -1, 0}[trial]))
						}
						op := Cumulative{Func: fn, Axis: axis}
						out, err := op.Infer([]Meta{{Shape: a.Shape(), DType: a.DType()}})
						if err != nil {
							t.Fatal(err)
						}
						bl := &laBuilder{}
						res, err := op.Tile(bl, []*Tiled{laTile(t, bl, a, ns)}, out)
						if err != nil {
							t.Fatal(err)
						}
						got := laExec(t, bl, res)
						what := fmt.Sprintf("%s %v%v %v axis %d", fn, dt, shape, ns, axis)
						if got.DType() != out.DType {
							t.Fatalf("%s: dtype %v, want %v", what, got.DType(), out.DType)
						}
						laClose(t, what, got, laNaiveCum(a, axis, fn == "cumprod"))
						// One local scan per chunk, one carry per chunk after the first along the axis.
						g := res.Grid()
						carries := len(res.Chunks) - len(res.Chunks)/g[axis]
						if n := bl.count(fn + "_carry"); n != carries {
							t.Errorf("%s: %d carries, want %d", what, n, carries)
						}
					}
				}
			}
		}
	}
}

func TestCumulativeScalar(t *testing.T) {
	bl := &laBuilder{}
	a := ndarray.Scalar(ndarray.Int32, 5)
	op := Cumulative{Func: "cumsum"}
	out, err := op.Infer([]Meta{{Shape: nil, DType: ndarray.Int32}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := op.Tile(bl, []*Tiled{laTile(t, bl, a, nil)}, out)
	if err != nil {
		t.Fatal(err)
	}
	got := laExec(t, bl, res)
	if got.DType() != ndarray.Int64 || !slices.Equal(got.Shape(), []int{1}) || got.AtFlat(0) != 5 {
		t.Errorf("cumsum of 0-d 5: %v", got)
	}
}

// TestTensorDotTileCount checks that float tensordot groups up to 4
// contraction chunks per product op, like matmul, and ints keep one per pair.
func TestTensorDotTileCount(t *testing.T) {
	for _, c := range []struct {
		dt               ndarray.DType
		products, combos int
	}{{ndarray.Float64, 2 * 3 * 3, 2 * 3}, {ndarray.Int32, 2 * 3 * 9, 2 * 3 * 4}} {
		bl := &laBuilder{}
		// a (20, 3, 30) · b (30, 3, 15) over axes (1, 2) / (1, 0): 3×3 = 9
		// contraction chunks; output chunks 2 × 3.
		a := &Tiled{Meta: Meta{Shape: []int{20, 3, 30}, DType: c.dt}, NSplits: [][]int{SplitEven(20, 10), SplitEven(3, 1), SplitEven(30, 10)}}
		b := &Tiled{Meta: Meta{Shape: []int{30, 3, 15}, DType: c.dt}, NSplits: [][]int{SplitEven(30, 10), SplitEven(3, 1), SplitEven(15, 5)}}
		for _, x := range []*Tiled{a, b} {
			ForEachGrid(x.Grid(), func(idx []int) {
				x.Chunks = append(x.Chunks, bl.AddChunk(laConst{}, nil, Meta{Shape: ChunkShape(x.NSplits, idx), DType: c.dt}))
			})
		}
		op := TensorDot{AAxes: []int{1, 2}, BAxes: []int{1, 0}}
		out, err := op.Infer([]Meta{a.Meta, b.Meta})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Tile(bl, []*Tiled{a, b}, out); err != nil {
			t.Fatal(err)
		}
		if n := bl.count("tensordot"); n != c.products {
			t.Errorf("%v: %d product ops, want %d", c.dt, n, c.products)
		}
		if n := bl.count("sum_combine"); n != c.combos {
			t.Errorf("%v: %d combines, want %d", c.dt, n, c.combos)
		}
	}
}

// TestProductMaxThreads: float products ask for as many threads as they
// can make column bands of, others (and narrow outputs) for one.
func TestProductMaxThreads(t *testing.T) {
	f64, i32 := ndarray.Float64, ndarray.Int32
	cases := []struct {
		op   Threaded
		out  Meta
		want int
	}{
		{MatMul{}, Meta{Shape: []int{4000, 4000}, DType: f64}, 4000 / 192},
		{MatMul{}, Meta{Shape: []int{3, 2000, 400}, DType: ndarray.Float32}, 2},
		{MatMul{}, Meta{Shape: []int{4000, 300}, DType: f64}, 1},
		{MatMul{}, Meta{Shape: []int{4000}, DType: f64}, 4000 / 192}, // v @ M: its columns (M @ v makes one band: the kernel decides)
		{MatMul{}, Meta{Shape: []int{}, DType: f64}, 1},
		{MatMul{}, Meta{Shape: []int{4000, 4000}, DType: i32}, 1},
		{TensorDot{}, Meta{Shape: []int{4000, 4000}, DType: i32}, 1},
		{TensorDot{}, Meta{Shape: []int{4000, 4000}, DType: f64}, ndarray.MaxGemmThreads},
	}
	for i, c := range cases {
		if got := c.op.MaxThreads(c.out); got != c.want {
			t.Errorf("case %d: %s MaxThreads(%v) = %d, want %d", i, c.op.Type(), c.out, got, c.want)
		}
	}
}
