package rng

import (
	"math"
	"testing"
)

// TestUniformVectorMatchesScalar checks the AVX-512 loops against the
// portable ones, bit for bit, over keys, starts, lengths (including
// non-multiples of 8 and counters that wrap around 2^64) and bounds.
func TestUniformVectorMatchesScalar(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU: FillUniform uses the portable loop only")
	}
	starts := []uint64{0, 1, 7, 1 << 20, 1<<63 - 5, math.MaxUint64 - 40}
	bounds := [][2]float64{{0, 1}, {-1, 1}, {-3.5, 1e300}, {1e-300, 2e-300}, {5, 5}}
	for seed := range uint64(5) {
		k := NewKey(seed, seed*3+1)
		g := k.gamma()
		for _, start := range starts {
			for _, b := range bounds {
				for n := range 70 {
					x := uint64(k) + start*g
					got, want := make([]float64, n), make([]float64, n)
					FillUniform(got, k, start, b[0], b[1])
					uniform64Scalar(want, x, g, b[0], (b[1]-b[0])*inv53)
					for i := range want {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("float64 key %d start %d n %d bounds %v: [%d] = %v, scalar %v", k, start, n, b, i, got[i], want[i])
						}
					}
					got32, want32 := make([]float32, n), make([]float32, n)
					FillUniform32(got32, k, start, b[0], b[1])
					uniform32Scalar(want32, x, g, float32(b[0]), float32(b[1]-b[0])*inv24)
					for i := range want32 {
						if math.Float32bits(got32[i]) != math.Float32bits(want32[i]) {
							t.Fatalf("float32 key %d start %d n %d bounds %v: [%d] = %v, scalar %v", k, start, n, b, i, got32[i], want32[i])
						}
					}
				}
			}
		}
	}
}

func BenchmarkUniformScalar(b *testing.B) {
	dst := make([]float64, 4096)
	k := NewKey(1, 2)
	b.SetBytes(8 * 4096)
	for b.Loop() {
		uniform64Scalar(dst, uint64(k), k.gamma(), 0, inv53)
	}
}

// TestNormalVectorMatchesScalar checks the AVX-512 Box-Muller loop against
// the portable one, bit for bit, over keys, starts (wrapping counters
// included), lengths and parameters, and over a million consecutive draws
// (which reach every quarter turn and the whole range of logarithms).
func TestNormalVectorMatchesScalar(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU: FillNormal uses the portable loop only")
	}
	check := func(k Key, start uint64, n int, mean, std float64) {
		t.Helper()
		g := k.gamma()
		got, want := make([]float64, n), make([]float64, n)
		FillNormal(got, k, start, mean, std)
		normalScalar(want, uint64(k)+2*start*g, g, mean, std)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("key %d start %d n %d mean %v std %v: [%d] = %v, scalar %v", k, start, n, mean, std, i, got[i], want[i])
			}
		}
	}
	for seed := range uint64(4) {
		k := NewKey(seed, 7*seed+3)
		for _, start := range []uint64{0, 5, 1 << 40, math.MaxUint64 / 2, math.MaxUint64 - 33} {
			for n := range 41 {
				check(k, start, n, 0, 1)
				check(k, start, n, -3.25, 1e-3)
			}
		}
		check(k, 0, 1<<20, 0, 1)
	}
}
