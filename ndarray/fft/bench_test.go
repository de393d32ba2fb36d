package fft

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkForward times one unnormalised complex transform per op for a
// power of two, a smooth length and a prime (Bluestein).
func BenchmarkForward(b *testing.B) {
	for _, n := range []int{1 << 12, 1 << 20, 1 << 24, 3 * 5 * 5 * 7 * 1024, 1000003} {
		b.Run(itoa(n), func(b *testing.B) {
			p, err := NewPlan(n)
			if err != nil {
				b.Fatal(err)
			}
			x := randomComplex(rand.New(rand.NewPCG(1, 1)), n)
			b.SetBytes(int64(16 * n))
			b.ResetTimer()
			for b.Loop() {
				p.Forward(x, x)
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
