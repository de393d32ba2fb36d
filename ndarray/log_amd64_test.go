package ndarray

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorLogMatchesScalar checks the AVX-512 log, log2 and log1p loops
// against ewLog, ewLog2 and ewLog1p bit for bit, over lengths around the block width, operands mixing ordinary
// values with every kind of lane the loop leaves to the scalar function
// (blocks fall back at every position, alone and in runs), long runs of
// ordinary values, and in place.
func TestVectorLogMatchesScalar(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU: the scalar loop is the only one")
	}
	r := rand.New(rand.NewPCG(11, 12))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, math.MaxFloat64, -math.MaxFloat64,
		math.Sqrt2, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2, 0), 0.7071067811865476, 2, 0.5, 1e-300,
		0x1p-54, -0x1p-54, 0x1p-55, math.Nextafter(-1, 0), -0.5, math.Sqrt2 - 1}
	val := func(p int) float64 {
		if r.IntN(p) == 0 {
			return special[r.IntN(len(special))]
		}
		switch r.IntN(4) {
		case 0:
			return math.Float64frombits(r.Uint64()) // any sign and exponent, NaN included
		case 1:
			return 1 + (r.Float64()*2-1)*math.Exp2(-float64(r.IntN(53)))
		}
		return r.Float64() * math.Exp2(float64(r.IntN(200)-100))
	}
	loops := []struct {
		name        string
		vec, scalar func(d, x []float64)
	}{{"log", logVec, ewLogLoop}, {"log2", log2Vec, ewLog2Loop}, {"log1p", log1pVec, ewLog1pLoop}}
	check := func(name string, got, want, x []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s n=%d: [%d] f(%v) = %v (%#x), scalar %v (%#x)", name, len(got), i,
					x[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
	}
	for _, p := range []int{1 << 30, 50, 4} {
		for n := range 90 {
			x := make([]float64, n)
			for i := range x {
				x[i] = val(p)
			}
			got, want := make([]float64, n), make([]float64, n)
			for _, l := range loops {
				l.vec(got, x)
				l.scalar(want, x)
				check(l.name+" mixed", got, want, x)
			}
		}
	}
	n := 1 << 16
	x, got, want := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = r.Float64() * math.Exp2(float64(r.IntN(40)-20))
	}
	for _, l := range loops {
		l.vec(got, x)
		l.scalar(want, x)
		check(l.name+" long", got, want, x)
		copy(got, x)
		l.vec(got, got)
		check(l.name+" in place", got, want, x)
	}
}
