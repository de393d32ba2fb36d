package ops

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// TestTriTilesOnlyTheDiagonalBlocks: tril of an 8 x 8 matrix in 2 x 2
// blocks reuses the blocks below the diagonal, makes zeros above it, and
// masks only the four blocks it crosses.
func TestTriTilesOnlyTheDiagonalBlocks(t *testing.T) {
	b := &mpBuilder{}
	a := mpArange(t, 8, 8)
	in := mpTile(t, b, a, [][]int{{2, 2, 2, 2}, {2, 2, 2, 2}})
	before := len(b.ops)
	out, err := Tri{K: 0, Lower: true}.Tile(b, []*Tiled{in}, in.Meta)
	if err != nil {
		t.Fatal(err)
	}
	masked, zeros, reused := 0, 0, 0
	for i, ref := range out.Chunks {
		switch {
		case ref == in.Chunks[i]:
			reused++
		case b.ops[ref].Type() == "tri_chunk":
			masked++
		case b.ops[ref].Type() == "full_chunk":
			zeros++
		}
	}
	if masked != 4 || zeros != 6 || reused != 6 || len(b.ops)-before != 10 {
		t.Errorf("masked %d, zeros %d, reused %d, %d new ops; want 4, 6, 6, 10", masked, zeros, reused, len(b.ops)-before)
	}
	got, _ := mpRun(t, b, out)
	for i := range 8 {
		for j := range 8 {
			want := 0.0
			if j <= i {
				want = float64(i*8 + j)
			}
			if v := got.AtFlat(i*8 + j); v != want {
				t.Fatalf("(%d, %d) = %v, want %v", i, j, v, want)
			}
		}
	}
}

// TestDiagonalReadsOneChunkPerPiece: the diagonal at offset 1 of a 7 x 7
// matrix in irregular blocks is cut where it crosses a block boundary, and
// each piece reads one block.
func TestDiagonalReadsOneChunkPerPiece(t *testing.T) {
	b := &mpBuilder{}
	a := mpArange(t, 7, 7)
	in := mpTile(t, b, a, [][]int{{3, 1, 3}, {2, 5}})
	m, err := Diagonal{Offset: 1}.Infer([]Meta{in.Meta})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Diagonal{Offset: 1}.Tile(b, []*Tiled{in}, m)
	if err != nil {
		t.Fatal(err)
	}
	// (0,1) in block (0,0); (1,2) (2,3) in (0,1); (3,4) in (1,1); (4,5) (5,6) in (2,1).
	if want := []int{1, 2, 1, 2}; !slices.Equal(out.NSplits[0], want) {
		t.Errorf("pieces %v, want %v", out.NSplits[0], want)
	}
	for _, ref := range out.Chunks {
		if len(b.inputs[ref]) != 1 {
			t.Errorf("a diagonal piece reads %d chunks", len(b.inputs[ref]))
		}
	}
	got, _ := mpRun(t, b, out)
	for d := range 6 {
		if v := got.AtFlat(d); v != float64(d*8+1) {
			t.Errorf("element %d = %v, want %v", d, v, float64(d*8+1))
		}
	}
}

// TestManipChunkOpsRefuseBadParameters: chunk ops decoded from the wire
// check what they are given instead of indexing out of range.
func TestManipChunkOpsRefuseBadParameters(t *testing.T) {
	a := mpArange(t, 3, 4)
	for _, c := range []struct {
		op  ChunkOp
		msg string
	}{
		{RepeatChunk{Axis: 2, Counts: []int{1}}, "axis 2"},
		{RepeatChunk{Axis: 0, Counts: []int{1, 2}}, "2 counts for 3 elements"},
		{RepeatChunk{Axis: 1, Counts: []int{-1}}, "negative repeat count"},
		{DiagonalChunk{Row: 2, Col: 0, Len: 2}, "do not fit"},
		{DiagonalChunk{Row: 0, Col: -1, Len: 1}, "do not fit"},
	} {
		_, err := c.op.Exec(context.Background(), []*ndarray.Array{a})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%T%+v: error %v, want one saying %q", c.op, c.op, err, c.msg)
		}
	}
	if _, err := (Repeat{Axis: 0, Repeats: []int{1, 2}}).Infer([]Meta{{Shape: []int{3, 4}, DType: ndarray.Float64}}); err == nil {
		t.Error("repeat: 2 counts for an axis of 3 accepted")
	}
	if _, err := (Tri{Lower: true}).Infer([]Meta{{Shape: []int{3}, DType: ndarray.Float64}}); err == nil {
		t.Error("tril of a 1-d tensor accepted at the op level")
	}
}

// TestTriExtremeK: diagonals far outside the matrix, up to the integer
// limits a decoded graph may hold, keep everything or nothing.
func TestTriExtremeK(t *testing.T) {
	a := mpArange(t, 4, 5)
	for _, c := range []struct {
		k     int
		lower bool
		kept  int
	}{{math.MaxInt, true, 20}, {math.MinInt, true, 0}, {math.MaxInt, false, 0}, {math.MinInt, false, 20}} {
		b := &mpBuilder{}
		in := mpTile(t, b, a, [][]int{{3, 1}, {2, 3}})
		out, err := Tri{K: c.k, Lower: c.lower}.Tile(b, []*Tiled{in}, in.Meta)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := mpRun(t, b, out)
		kept := 0
		for i := range got.Size() {
			if got.AtFlat(i) == a.AtFlat(i) && (i == 0 || got.AtFlat(i) != 0) {
				kept++
			}
		}
		if c.kept == 20 && kept != 20 || c.kept == 0 && kept > 1 {
			t.Errorf("k %d lower %v: kept %d elements, want %d", c.k, c.lower, kept, c.kept)
		}
		chunk, err := TriChunk{K: c.k, Lower: c.lower}.Exec(context.Background(), []*ndarray.Array{a})
		if err != nil {
			t.Fatal(err)
		}
		if s := chunk.ToFloat64s(); (c.kept == 20) != (s[19] == 19) {
			t.Errorf("tri_chunk k %d lower %v: last element %v", c.k, c.lower, s[19])
		}
	}
}
