package ndarray

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorExpSinMatchesScalar checks the AVX-512 exp, sin, cos, log,
// log2 and log1p loops against their scalar twins bit for bit, over lengths around the block width,
// operands mixing ordinary values with every kind of lane the loops leave to
// the scalar functions (so blocks fall back at every position, alone and in
// runs), and long runs of ordinary values.
func TestVectorExpSinMatchesScalar(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU: the scalar loops are the only ones")
	}
	r := rand.New(rand.NewPCG(9, 10))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0xfff8000000000001), 5e-324, -2.5e-310, math.MaxFloat64, -math.MaxFloat64,
		0x1p-54, -0x1p-54, 0x1p-55, 511.99999999999994, 512, -512, 709.78, 709.79, -745.1, -745.2, -708.5,
		0x1p29, -0x1p29, 0x1p29 - 64, 1e22, math.Pi / 2, math.Pi, 3 * math.Pi / 4, 1e-300,
		2.2250738585072014e-308, 2.225073858507201e-308, math.Sqrt2, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2, 0),
		2, 0.5, math.Nextafter(-1, 0), -0.5, math.Sqrt2 - 1}
	val := func(p int) float64 {
		if r.IntN(p) == 0 {
			return special[r.IntN(len(special))]
		}
		switch r.IntN(5) {
		case 0:
			return math.Float64frombits(r.Uint64()) // any exponent, NaN included
		case 1:
			return (r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(31)))
		case 2:
			return 1 + (r.Float64()*2-1)*math.Exp2(-float64(r.IntN(53))) // logarithms near 0
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(8)-4))
	}
	loops := []struct {
		name        string
		vec, scalar func(d, x []float64)
	}{{"exp", expVec, ewExpLoop}, {"sin", sinVec, ewSinLoop}, {"cos", cosVec, ewCosLoop},
		{"log", logVec, ewLogLoop}, {"log2", log2Vec, ewLog2Loop}, {"log1p", log1pVec, ewLog1pLoop}}
	check := func(name string, got, want, x []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s n=%d: [%d] f(%v) = %v (%#x), scalar %v (%#x)", name, len(got), i,
					x[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
	}
	for _, p := range []int{1 << 30, 50, 4} { // no, few and many special lanes
		for n := range 90 {
			x := make([]float64, n)
			for i := range x {
				x[i] = val(p)
			}
			got, want := make([]float64, n), make([]float64, n)
			for _, l := range loops {
				l.vec(got, x)
				l.scalar(want, x)
				check(l.name, got, want, x)
			}
		}
	}
	n := 1 << 16
	x, got, want := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = (r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(12)))
	}
	for _, l := range loops {
		l.vec(got, x)
		l.scalar(want, x)
		check(l.name+" long", got, want, x)
		copy(got, x)
		l.vec(got, got) // in place
		check(l.name+" in place", got, want, x)
	}
}

// BenchmarkExpSinKernels times the float64 exp and sin loops, vector and
// scalar (and Go's math.Exp and math.Sin), over in-cache slices in [-1, 1).
func BenchmarkExpSinKernels(b *testing.B) {
	const n = 4096
	r := rand.New(rand.NewPCG(5, 6))
	x, d := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = r.Float64()*2 - 1
	}
	for _, c := range []struct {
		name string
		ok   bool
		f    func()
	}{
		{"exp/math", true, func() {
			for i := range d {
				d[i] = math.Exp(x[i])
			}
		}},
		{"exp/scalar", true, func() { ewExpLoop(d, x) }},
		{"exp/avx512", hasAVX512, func() { expVec(d, x) }},
		{"sin/math", true, func() {
			for i := range d {
				d[i] = math.Sin(x[i])
			}
		}},
		{"sin/scalar", true, func() { ewSinLoop(d, x) }},
		{"sin/avx512", hasAVX512, func() { sinVec(d, x) }},
	} {
		if !c.ok {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
		})
	}
}
