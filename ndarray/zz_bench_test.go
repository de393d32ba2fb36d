package ndarray

import "testing"

func BenchmarkZZLoopOnly(b *testing.B) {
	const n = 10_000_000
	x, y, d := make([]float64, n), make([]float64, n), make([]float64, n)
	b.SetBytes(24 * n)
	for b.Loop() {
		ewAddVV(d, x, y)
	}
}

func BenchmarkZZAllocOnly(b *testing.B) {
	const n = 10_000_000
	b.SetBytes(24 * n)
	for b.Loop() {
		_ = newArray(Float64, []int{n})
	}
}

func BenchmarkZZCopy(b *testing.B) {
	const n = 10_000_000
	x, d := make([]float64, n), make([]float64, n)
	b.SetBytes(16 * n)
	for b.Loop() {
		copy(d, x)
	}
}

func BenchmarkZZAddNoAllocAPI(b *testing.B) {
	const n = 10_000_000
	x, y := FillScalar(Float64, []int{n}, 1.5), FillScalar(Float64, []int{n}, 2.5)
	out := newArray(Float64, []int{n})
	b.SetBytes(24 * n)
	for b.Loop() {
		ewBinaryRun(ewBinKernel[float64, float64]{ewAddVV[float64], ewAddVS[float64], ewAddSV[float64]}, out, x, y)
	}
}
