package ndarray

import (
	"math"
	"math/rand/v2"
	"testing"
)

// RowMoments over tiles of rows equals Moments over all the rows at once.
func TestRowMomentsMatchesMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ rows, k, tile int }{
		{1, 1, 1}, {7, 3, 2}, {64, 5, 64}, {130, 17, 64}, {1000, 2, 7}, {5, 1000, 3},
	} {
		x := make([]float64, tc.rows*tc.k)
		for i := range x {
			x[i] = 1e6 + rng.NormFloat64()*3 // a large mean: the merge must not cancel
		}
		// The reference is Moments' pairwise path: the same values as
		// columns of a wider array, a view that is not contiguous (a
		// contiguous one would take RowMoments itself).
		wide := make([]float64, 2*len(x))
		for r := range tc.rows {
			copy(wide[2*r*tc.k:], x[r*tc.k:(r+1)*tc.k])
		}
		w2, err := FromFloat64s([]int{tc.rows, 2 * tc.k}, wide)
		if err != nil {
			t.Fatal(err)
		}
		a, err := w2.Slice([]Range{{Start: 0, Step: 1, Len: tc.rows}, {Start: 0, Step: 1, Len: tc.k}})
		if err != nil {
			t.Fatal(err)
		}
		if a.IsContiguous() && tc.rows > 1 {
			t.Fatalf("%+v: the reference view is contiguous", tc)
		}
		want, err := Moments(a, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		acc := make([]float64, 3*tc.k)
		scratch := make([]float64, 4*tc.k)
		for r := 0; r < tc.rows; r += tc.tile {
			n := min(tc.tile, tc.rows-r)
			RowMoments(acc, x[r*tc.k:(r+n)*tc.k], scratch, n, tc.k)
		}
		w := want.Float64s()
		for i := range acc {
			if d := math.Abs(acc[i] - w[i]); d > 1e-9*math.Max(1, math.Abs(w[i])) {
				t.Fatalf("%+v: element %d (count, mean, M2 by column): got %v, want %v", tc, i, acc[i], w[i])
			}
		}
	}
}

// Infinite and NaN values merge as CombineMoments merges them.
func TestRowMomentsNonFinite(t *testing.T) {
	inf := math.Inf(1)
	x := []float64{inf, 1, inf, 2, inf, math.NaN(), inf, 4}
	a, err := FromFloat64s([]int{4, 2}, x)
	if err != nil {
		t.Fatal(err)
	}
	top, err := a.Slice([]Range{{Start: 0, Step: 1, Len: 2}})
	if err != nil {
		t.Fatal(err)
	}
	bottom, err := a.Slice([]Range{{Start: 2, Step: 1, Len: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := Moments(top, []int{0})
	p2, _ := Moments(bottom, []int{0})
	want, err := CombineMoments([]*Array{p1, p2})
	if err != nil {
		t.Fatal(err)
	}
	acc := make([]float64, 6)
	scratch := make([]float64, 8)
	RowMoments(acc, x[:4], scratch, 2, 2)
	RowMoments(acc, x[4:], scratch, 2, 2)
	for i, w := range want.Float64s() {
		if g := acc[i]; !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
			t.Errorf("element %d: got %v, want %v", i, g, w)
		}
	}
}
