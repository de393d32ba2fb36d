package ndarray

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorTranscMatchesScalar checks the AVX-512 hypot, arctan2 and
// arctan loops against the scalar functions bit for bit, in all three forms,
// over lengths around the block width and operands mixing ordinary values
// with every kind of special lane (so blocks go to the scalar fallback at
// every position, alone and in runs).
func TestVectorTranscMatchesScalar(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU: the scalar loops are the only ones")
	}
	r := rand.New(rand.NewPCG(3, 4))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0xfff8000000000001), 5e-324, -2.5e-310, math.MaxFloat64, -math.MaxFloat64,
		1e-300, 0x1p511, 0x1p512, 0x1p-459, 0x1p-460, 0x1p60, 0x1p-60, 0x1p61, 0x1p-61, 0.66, 2.414213562373095}
	val := func(p int) float64 {
		if r.IntN(p) == 0 {
			return special[r.IntN(len(special))]
		}
		if r.IntN(3) == 0 {
			return math.Float64frombits(r.Uint64()) // any exponent, NaN included
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	}
	vh, _ := vecHypot()
	va, _ := vecAtan2()
	vt, _ := vecAtan()
	kernels := []struct {
		name        string
		vec, scalar ewBinKernel[float64, float64]
	}{
		{"hypot", vh, ewBinKernel[float64, float64]{ewHypotVV, ewHypotVS, ewHypotSV}},
		{"arctan2", va, ewBinKernel[float64, float64]{ewAtan2VV, ewAtan2VS, ewAtan2SV}},
	}
	check := func(name, form string, got, want, x, y []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s %s n=%d: [%d] f(%v, %v) = %v (%#x), scalar %v (%#x)", name, form, len(got), i,
					x[i], y[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
	}
	for _, p := range []int{1 << 30, 50, 4} { // no, few and many special lanes
		for n := range 90 {
			x, y := make([]float64, n), make([]float64, n)
			for i := range n {
				x[i], y[i] = val(p), val(p)
			}
			s := val(4)
			ss := make([]float64, n)
			for i := range ss {
				ss[i] = s
			}
			got, want := make([]float64, n), make([]float64, n)
			for _, k := range kernels {
				k.vec.vv(got, x, y)
				k.scalar.vv(want, x, y)
				check(k.name, "vv", got, want, x, y)
				k.vec.vs(got, x, s)
				k.scalar.vs(want, x, s)
				check(k.name, "vs", got, want, x, ss)
				k.vec.sv(got, s, y)
				k.scalar.sv(want, s, y)
				check(k.name, "sv", got, want, ss, y)
			}
			vt(got, x)
			ewAtanLoop(want, x)
			check("arctan", "v", got, want, x, x)
		}
	}
	// Long runs of ordinary values: the assembly's own loop, many blocks.
	n := 1 << 16
	x, y, got := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = r.Float64()*4-2, r.NormFloat64()*3
	}
	want := make([]float64, n)
	for _, k := range kernels {
		k.vec.vv(got, x, y)
		k.scalar.vv(want, x, y)
		check(k.name, "long vv", got, want, x, y)
	}
}

// BenchmarkTranscKernels times the float64 hypot, arctan2 and arctan loops,
// vector and scalar, over in-cache slices of ordinary values.
func BenchmarkTranscKernels(b *testing.B) {
	const n = 4096
	r := rand.New(rand.NewPCG(5, 6))
	x, y, d := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = r.Float64()*2-1, r.Float64()*6-3
	}
	vh, okh := vecHypot()
	va, oka := vecAtan2()
	vt, okt := vecAtan()
	for _, c := range []struct {
		name string
		ok   bool
		f    func()
	}{
		{"hypot/scalar", true, func() { ewHypotVV(d, x, y) }},
		{"hypot/avx512", okh, func() { vh.vv(d, x, y) }},
		{"arctan2/scalar", true, func() { ewAtan2VV(d, y, x) }},
		{"arctan2/avx512", oka, func() { va.vv(d, y, x) }},
		{"arctan/scalar", true, func() { ewAtanLoop(d, y) }},
		{"arctan/avx512", okt, func() { vt(d, y) }},
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
