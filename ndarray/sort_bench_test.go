package ndarray

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSort1e7 sorts 1e7 uniform float64 (a copy each time, timed too).
func BenchmarkSort1e7(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]float64, 10_000_000)
	for i := range src {
		src[i] = r.Float64()
	}
	a, _ := FromFloat64s([]int{len(src)}, src)
	b.ResetTimer()
	for range b.N {
		c := a.Copy()
		sortInPlace(c)
	}
}
