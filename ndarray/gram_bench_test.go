package ndarray

import "testing"

// BenchmarkGram is the centred Gram kernel over one 1e5 x 50 row chunk,
// the shape of the Gram benchmark's chunks.
func BenchmarkGram(b *testing.B) {
	v := make([]float64, 100_000*50)
	for i := range v {
		v[i] = float64(i%977) / 977
	}
	x, _ := FromFloat64s([]int{100_000, 50}, v)
	s, _ := New(Float64, 50)
	for i := range s.Float64s() {
		s.Float64s()[i] = 0.5
	}
	b.Run("shifted", func(b *testing.B) {
		for range b.N {
			if _, err := Gram(x, s, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for range b.N {
			if _, err := Gram(x, nil, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gemm", func(b *testing.B) {
		xt, _ := x.Transpose(1, 0)
		for range b.N {
			if _, err := MatMul(xt, x); err != nil {
				b.Fatal(err)
			}
		}
	})
}
