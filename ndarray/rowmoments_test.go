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
		a, err := FromFloat64s([]int{tc.rows, tc.k}, x)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Moments(a, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		acc := make([]float64, 3*tc.k)
		scratch := make([]float64, 2*tc.k)
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
