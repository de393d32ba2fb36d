package ops

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// laLiteral tiles a as client data (Literal) along nsplits.
func laLiteral(t *testing.T, b *laBuilder, a *ndarray.Array, nsplits [][]int) *Tiled {
	t.Helper()
	out := Meta{Shape: a.Shape(), DType: a.DType()}
	tl, err := Literal{Data: a, Chunks: ChunkSpec{Splits: nsplits}}.Tile(b, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Resplit == nil {
		t.Fatal("client data tiled without Resplit")
	}
	return tl
}

// TestRechunkLiteralCutsViews checks that rechunking client data cuts new
// views of it, whatever the splits (odd sizes, single elements, one
// chunk), and assembles nothing.
func TestRechunkLiteralCutsViews(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	a := laRand(t, r, ndarray.Float64, 7, 5)
	sizes := []int{0, 1, 2, 3, -1, 100}
	for trial := range 30 {
		from := [][]int{laSplits(r, 7, sizes[trial%6]), laSplits(r, 5, sizes[(trial/6)%6])}
		to := [][]int{laSplits(r, 7, sizes[r.Intn(6)]), laSplits(r, 5, sizes[r.Intn(6)])}
		bl := &laBuilder{}
		src := laLiteral(t, bl, a, from)
		n := len(bl.ops)
		got := RechunkTiled(bl, src, to)
		what := fmt.Sprintf("%v -> %v", from, to)
		if !sameSplits(got.NSplits, to) {
			t.Fatalf("%s: splits %v", what, got.NSplits)
		}
		for _, op := range bl.ops[n:] {
			if op.Type() != "literal_chunk" {
				t.Fatalf("%s: a %s op, want views of the data only", what, op.Type())
			}
		}
		laClose(t, what, laExec(t, bl, got), a.ToFloat64s())
	}
}

// TestMatMulLiteralBands checks that a float product of client data runs
// one gemm per row block of a, over all of the contraction and all of b's
// columns, with the product's values for every chunking of the operands;
// and that the same product of computed operands keeps their blocks.
func TestMatMulLiteralBands(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	sizes := []int{0, 1, 2, 3, -1, 100}
	for _, dt := range []ndarray.DType{ndarray.Float64, ndarray.Float32} {
		for trial := range 24 {
			a := laRand(t, r, dt, 9, 7)
			b := laRand(t, r, dt, 7, 5)
			na := [][]int{laSplits(r, 9, sizes[trial%6]), laSplits(r, 7, sizes[r.Intn(6)])}
			nb := [][]int{laSplits(r, 7, sizes[r.Intn(6)]), laSplits(r, 5, sizes[(trial/6)%6])}
			what := fmt.Sprintf("%v %v @ %v", dt, na, nb)
			out, err := MatMul{}.Infer([]Meta{{Shape: a.Shape(), DType: dt}, {Shape: b.Shape(), DType: dt}})
			if err != nil {
				t.Fatal(err)
			}
			bl := &laBuilder{}
			res, err := MatMul{}.Tile(bl, []*Tiled{laLiteral(t, bl, a, na), laLiteral(t, bl, b, nb)}, out)
			if err != nil {
				t.Fatal(err)
			}
			if want := [][]int{na[0], {5}}; !sameSplits(res.NSplits, want) {
				t.Errorf("%s: product splits %v, want %v", what, res.NSplits, want)
			}
			// One row block of 5 columns is one narrow op: there the
			// contraction's splits stay, as its only parallelism.
			if len(na[0]) > 1 {
				if n := bl.count("matmul"); n != len(na[0]) {
					t.Errorf("%s: %d product ops, want one per row block of a (%d)", what, n, len(na[0]))
				}
				for i, op := range bl.ops {
					if op.Type() == "matmul" && len(bl.inputs[i]) != 2 {
						t.Errorf("%s: a product op of %d inputs, want one pair", what, len(bl.inputs[i]))
					}
				}
			}
			want, err := ndarray.MatMul(a, b)
			if err != nil {
				t.Fatal(err)
			}
			laClose(t, what, laExec(t, bl, res), want.ToFloat64s())

			// Computed operands (no Resplit) keep their blocks.
			bl = &laBuilder{}
			res, err = MatMul{}.Tile(bl, []*Tiled{laTile(t, bl, a, na), laTile(t, bl, b, nb)}, out)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.NSplits[1], nb[1]) {
				t.Errorf("%s of computed operands: column splits %v, want b's %v", what, res.NSplits[1], nb[1])
			}
			laClose(t, what+" (computed)", laExec(t, bl, res), want.ToFloat64s())
		}
	}
}

// TestWideBlocks checks the blocks a product of client data picks: whole
// contraction and columns while the blocks stay within DefaultChunkBytes,
// and a split contraction kept for a narrow product of one row block.
func TestWideBlocks(t *testing.T) {
	cases := []struct {
		name           string
		rows, ks, cols []int
		item           int64
		wantK, wantC   []int
	}{
		{"square 4000, 2000-blocks", []int{2000, 2000}, []int{2000, 2000}, []int{2000, 2000}, 8, []int{4000}, []int{4000}},
		{"b too big whole: contraction joined, columns kept", []int{1000}, []int{3000, 3000}, []int{2000, 2000, 2000}, 8, []int{6000}, []int{2000, 2000, 2000}},
		{"a band too big whole: contraction kept, columns joined", []int{20000}, []int{500, 500}, []int{100, 100}, 8, []int{500, 500}, []int{200}},
		{"float32 fits where float64 does not", []int{5000}, []int{3000, 3000}, []int{4000}, 4, []int{6000}, []int{4000}},
		{"narrow single op keeps the contraction split", []int{100}, []int{25000, 25000, 25000, 25000}, []int{100}, 8, []int{25000, 25000, 25000, 25000}, []int{100}},
		{"narrow, two row blocks: joined", []int{50, 50}, []int{25000, 25000}, []int{100}, 8, []int{50000}, []int{100}},
		{"empty contraction", []int{3}, []int{0}, []int{4}, 8, []int{0}, []int{4}},
	}
	for _, c := range cases {
		k, cols := wideBlocks(c.rows, c.ks, c.cols, c.item)
		if !slices.Equal(k, c.wantK) || !slices.Equal(cols, c.wantC) {
			t.Errorf("%s: contraction %v, columns %v; want %v, %v", c.name, k, cols, c.wantK, c.wantC)
		}
	}
}
