package ndarray

import (
	"fmt"
	"testing"
)

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

func BenchmarkZZTile(b *testing.B) {
	x := FillScalar(Float64, []int{3000, 3000}, 1.5)
	xt := must2(x.Transpose())
	for _, nt := range []bool{false, true, false, true} {
		name := "tile"
		if nt {
			name = "notile"
		}
		b.Run(name, func(b *testing.B) {
			ewNoTile = nt
			out := newArray(Float64, []int{3000, 3000})
			b.SetBytes(3 * 8 * 9_000_000)
			for b.Loop() {
				ewBinaryRun(ewBinKernel[float64, float64]{ewAddVV[float64], ewAddVS[float64], ewAddSV[float64]}, out, xt, x)
			}
		})
	}
	ewNoTile = false
}

func BenchmarkZZTileSize(b *testing.B) {
	x := FillScalar(Float64, []int{3000, 3000}, 1.5)
	xt := must2(x.Transpose())
	for _, ts := range [][2]int{{64, 64}, {256, 256}, {256, 512}, {128, 1024}, {512, 256}, {64, 512}, {32, 1024}, {1024, 1024}, {3000, 3000}} {
		b.Run(fmt.Sprint(ts), func(b *testing.B) {
			ewTile, ewTileC = ts[0], ts[1]
			out := newArray(Float64, []int{3000, 3000})
			b.SetBytes(3 * 8 * 9_000_000)
			for b.Loop() {
				ewBinaryRun(ewBinKernel[float64, float64]{ewAddVV[float64], ewAddVS[float64], ewAddSV[float64]}, out, xt, x)
			}
		})
	}
	ewTile, ewTileC = 64, 64
}
