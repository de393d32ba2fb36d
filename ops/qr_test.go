package ops

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

func TestTallSplits(t *testing.T) {
	for _, c := range []struct {
		rows []int
		n    int
		want []int
	}{
		{[]int{10, 10}, 5, nil},
		{[]int{1, 1, 1, 1, 1, 1, 1}, 3, []int{3, 4}},
		{[]int{2, 9, 1}, 3, []int{12}},
		{[]int{1, 1}, 5, []int{2}},
		{[]int{4}, 5, nil},
		{[]int{5, 2, 5}, 5, []int{5, 7}},
	} {
		if got := tallSplits(c.rows, c.n); (got == nil) != (c.want == nil) || !slices.Equal(got, c.want) {
			t.Errorf("tallSplits(%v, %d) = %v, want %v", c.rows, c.n, got, c.want)
		}
	}
}

// TestQRTile tiles QR over many row and column chunkings, runs the chunk
// ops in order (checking each output against its planned meta) and checks
// the stacked result: Qᵀ Q = I and Q R = A. Row chunks
// shorter than the width are merged first: one-row chunks do not make a
// factorisation per row.
func TestQRTile(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	const m, n = 60, 5
	a := laRand(t, r, ndarray.Float64, m, n)
	for _, rows := range [][]int{{60}, {7, 7, 7, 7, 7, 7, 7, 7, 4}, onesSplits(m), {1, 59}, {30, 1, 1, 28}} {
		for _, cols := range [][]int{{5}, {2, 3}} {
			b := &laBuilder{}
			in := laTile(t, b, a, [][]int{rows, cols})
			out, err := QR{}.Infer([]Meta{in.Meta})
			if err != nil {
				t.Fatal(err)
			}
			res, err := QR{}.Tile(b, []*Tiled{in}, out)
			if err != nil {
				t.Fatal(err)
			}
			if leaves := b.count("qr_factor"); len(rows) == m && leaves > 2*m/n {
				t.Errorf("rows %v: %d factorisations for %d rows of %d columns", rows, leaves, m, n)
			}
			f := laExec(t, b, res)
			q, _ := f.Slice(unitRanges([]int{0, 0}, []int{m, n}))
			rr, _ := f.Slice(unitRanges([]int{m, 0}, []int{n, n}))
			qt, _ := q.Transpose(1, 0)
			qtq, _ := ndarray.MatMul(qt, q)
			qr, _ := ndarray.MatMul(q, rr)
			for i := range n * n {
				want := 0.0
				if i%(n+1) == 0 {
					want = 1
				}
				if d := math.Abs(qtq.AtFlat(i) - want); d > 1e-13 {
					t.Fatalf("rows %v cols %v: QᵀQ differs from I by %g", rows, cols, d)
				}
			}
			for i := range m * n {
				if d := math.Abs(qr.AtFlat(i) - a.AtFlat(i)); d > 1e-13 {
					t.Fatalf("rows %v cols %v: QR differs from A by %g", rows, cols, d)
				}
			}
		}
	}
}
