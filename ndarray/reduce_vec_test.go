package ndarray

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPairwiseDevF64MatchesGeneric checks the float64 path of M2 (vector
// blocks where the CPU has them) against the generic pairwise loop, bit for
// bit, across the block and recursion boundaries.
func TestPairwiseDevF64MatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 600 {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()*1e3 + 7
		}
		if n > 3 && n%7 == 0 {
			x[r.IntN(n)] = math.Inf(-1)
		}
		for _, m := range []float64{0, 7.25, -1e300} {
			got, want := redPairwiseDevF64(x, m), redPairwiseDev(x, 0, n, 1, m)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("n=%d m=%v: %v, generic %v", n, m, got, want)
			}
		}
	}
}
