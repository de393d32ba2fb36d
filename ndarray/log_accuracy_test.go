package ndarray

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// log is log(x) for finite x > 0 in double-double (logOf).
func (r *expSinRef) log(x float64) scaled { return r.logOf(dd{x, 0}) }

// log1p is log(1+x) for finite x > -1, of the exact sum 1 + x.
func (r *expSinRef) log1p(x float64) scaled { return r.logOf(ddTwoSum(1, x)) }

// logOf is log(v) for a positive double-double v: v = m*2**e with m in
// [√2/2, √2), log m = 2 atanh(u) with u = (m-1)/(m+1), |u| <= 0.172, whose
// series to u**61 is good to far below 2**-106 of the result.
func (r *expSinRef) logOf(v dd) scaled {
	_, e := math.Frexp(v.hi) // subnormals too: Frexp normalises
	m := dd{math.Ldexp(v.hi, -e), math.Ldexp(v.lo, -e)}
	if m.hi < math.Sqrt2/2 {
		m = dd{2 * m.hi, 2 * m.lo}
		e--
	}
	u := ddDiv(ddAdd(m, dd{-1, 0}), ddAdd(m, dd{1, 0}))
	u2 := ddMul(u, u)
	sum, pow := u, u
	for j := 1; j <= 30; j++ {
		pow = ddMul(pow, u2)
		sum = ddAdd(sum, ddDiv(pow, dd{float64(2*j + 1), 0}))
	}
	w := ddMul(sum, dd{2, 0})
	if e != 0 {
		ek := dd{float64(e), 0}
		w = ddAdd(ddAdd(ddAdd(ddMul(ek, dd{r.ln2[0], 0}), ddMul(ek, dd{r.ln2[1], 0})), ddMul(ek, dd{r.ln2[2], 0})), w)
	}
	return scaled{w, 0}
}

var log1pClasses = []transcClass{
	{"ordinary", func(r *rand.Rand) (float64, float64) { return r.Float64()*2.5 - 0.5, 0 }},
	{"near 0", func(r *rand.Rand) (float64, float64) { return randSign(r, logUniform(r, -56, -1)), 0 }},
	{"near -1", func(r *rand.Rand) (float64, float64) { return -1 + logUniform(r, -53, -1), 0 }},
	{"near the reduction bounds √2 - 1 and √2/2 - 1", func(r *rand.Rand) (float64, float64) {
		return nearBy(r, []float64{math.Sqrt2 - 1, math.Sqrt2/2 - 1}[r.IntN(2)], 1<<r.IntN(40)), 0
	}},
	{"tiny to huge", func(r *rand.Rand) (float64, float64) { return logUniform(r, -1074, 1023.9), 0 }},
	{"whole range", func(r *rand.Rand) (float64, float64) { return math.Abs(anyFinite(r)), 0 }},
	{"-1 and below, infinite, NaN, zeros", func(r *rand.Rand) (float64, float64) {
		return []float64{-1, -1 - r.Float64(), -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1)}[r.IntN(8)], 0
	}},
}

var logClasses = []transcClass{
	{"ordinary", func(r *rand.Rand) (float64, float64) { return r.Float64() * 2, 0 }},
	{"near 1", func(r *rand.Rand) (float64, float64) {
		return 1 + randSign(r, logUniform(r, -53, -1)), 0
	}},
	{"near the reduction bound √2 (of any binade)", func(r *rand.Rand) (float64, float64) {
		return math.Ldexp(nearBy(r, math.Sqrt2, 1<<r.IntN(40)), r.IntN(2000)-1000), 0
	}},
	{"whole range", func(r *rand.Rand) (float64, float64) { return math.Abs(anyFinite(r)), 0 }},
	{"tiny to huge", func(r *rand.Rand) (float64, float64) { return logUniform(r, -1022, 1023.9), 0 }},
	{"subnormal", func(r *rand.Rand) (float64, float64) { return logUniform(r, -1074, -1022), 0 }},
	{"zero, negative, infinite, NaN", func(r *rand.Rand) (float64, float64) {
		return []float64{0, math.Copysign(0, -1), -r.Float64(), -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(7)], 0
	}},
}

// TestLogAccuracy measures the largest error of log, log2 and log1p per
// class of arguments and fails at 1 ULP or more; log(1) must be +0, and
// zeros, negative numbers (below -1 for log1p), infinities and NaN give
// what NumPy gives; log1p of |x| < 2**-54 is x.
func TestLogAccuracy(t *testing.T) {
	n := transcAccuracyN(t)
	ref := newExpSinRef()
	invLn2 := ddDiv(dd{1, 0}, ddAdd(dd{ref.ln2[0], ref.ln2[1]}, dd{ref.ln2[2], 0}))
	logRef := func(x float64) (scaled, bool) { return ref.log(x), x > 0 && !math.IsInf(x, 1) && x != 1 }
	logCheck := func(name string) func(got, x float64) bool {
		return func(got, x float64) bool {
			return x == 1 && got == 0 && !math.Signbit(got) || x == 0 && math.IsInf(got, -1) ||
				(x < 0 || x != x) && got != got || math.IsInf(x, 1) && math.IsInf(got, 1)
		}
	}
	funcs := []struct {
		name    string
		op      UnaryOp
		loop    func(d, x []float64)
		scalar  func(float64) float64
		ref     func(float64) (scaled, bool)
		check   func(got, x float64) bool
		classes []transcClass
	}{
		{"log", Log, ewLogLoop, ewLog, logRef, logCheck("log"), logClasses},
		{"log2", Log2, ewLog2Loop, ewLog2, func(x float64) (scaled, bool) {
			w, ok := logRef(x)
			return scaled{ddMul(w.v, invLn2), 0}, ok
		}, logCheck("log2"), logClasses},
		{"log1p", Log1p, ewLog1pLoop, ewLog1p, func(x float64) (scaled, bool) {
			return ref.log1p(x), x > -1 && !math.IsInf(x, 1) && math.Abs(x) >= 0x1p-54
		}, func(got, x float64) bool {
			return math.Abs(x) < 0x1p-54 && math.Float64bits(got) == math.Float64bits(x) || x == -1 && math.IsInf(got, -1) ||
				(x < -1 || x != x) && got != got || math.IsInf(x, 1) && math.IsInf(got, 1)
		}, log1pClasses},
	}
	for fi, fn := range funcs {
		lg := loop64(fn.op, fn.loop)
		checkClasses(t, fn.name, n, uint64(3000+100*fi), fn.classes, func(d, x, _ []float64) { lg(d, x) },
			func(x, _ float64) float64 { return fn.scalar(x) },
			func(x, _ float64) (scaled, bool) { return fn.ref(x) },
			func(got, x, _ float64) string {
				if fn.check(got, x) {
					return ""
				}
				return fmt.Sprintf("%s(%v) = %v", fn.name, x, got)
			})
	}
}

// TestLogSpecialValues checks log, log2 and log1p against the bits NumPy
// 1.24 gives on zeros, infinities, NaN, powers of two, the ends of the
// normal and subnormal ranges and √2, each at every position of a block of
// ordinary values, so the vector loop's fallback is exercised.
func TestLogSpecialValues(t *testing.T) {
	lg, l2, l1 := loop64(Log, ewLogLoop), loop64(Log2, ewLog2Loop), loop64(Log1p, ewLog1pLoop)
	h := func(s string) float64 { return hexFloat(t, s) }
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		name    string
		f       func(d, x []float64)
		scalar  func(float64) float64
		x, want float64
	}{
		{"log2", l2, ewLog2, 1, 0}, {"log2", l2, ewLog2, 0, -inf}, {"log2", l2, ewLog2, -1, nan}, {"log2", l2, ewLog2, inf, inf},
		{"log2", l2, ewLog2, nan, nan}, {"log2", l2, ewLog2, 3, h("0x1.95c01a39fbd68p+0")}, {"log2", l2, ewLog2, 10, h("0x1.a934f0979a371p+1")},
		{"log2", l2, ewLog2, 0.1, h("-0x1.a934f0979a371p+1")}, {"log2", l2, ewLog2, 5e-324, -1074}, {"log2", l2, ewLog2, 2.2250738585072014e-308, -1022},
		{"log2", l2, ewLog2, math.MaxFloat64, 1024}, {"log2", l2, ewLog2, math.Sqrt2, h("0x1.0000000000001p-1")},
		{"log1p", l1, ewLog1p, 0, 0}, {"log1p", l1, ewLog1p, math.Copysign(0, -1), math.Copysign(0, -1)},
		{"log1p", l1, ewLog1p, -1, -inf}, {"log1p", l1, ewLog1p, -2, nan}, {"log1p", l1, ewLog1p, inf, inf},
		{"log1p", l1, ewLog1p, -inf, nan}, {"log1p", l1, ewLog1p, nan, nan}, {"log1p", l1, ewLog1p, 5e-324, 5e-324},
		{"log1p", l1, ewLog1p, 1, h("0x1.62e42fefa39efp-1")}, {"log1p", l1, ewLog1p, -0.5, h("-0x1.62e42fefa39efp-1")},
		{"log1p", l1, ewLog1p, 1e-20, h("0x1.79ca10c924223p-67")}, {"log1p", l1, ewLog1p, 1e-10, h("0x1.b7cdfd9d1d693p-34")},
		{"log1p", l1, ewLog1p, math.MaxFloat64, h("0x1.62e42fefa39efp+9")},
		{"log1p", l1, ewLog1p, -0.9999999999999999, h("-0x1.25e4f7b2737fap+5")},
	}
	for _, c := range []struct{ x, want float64 }{
		{0, -inf}, {math.Copysign(0, -1), -inf}, {inf, inf}, {-inf, nan}, {nan, nan}, {-1, nan}, {-5e-324, nan},
		{1, 0}, {2, h("0x1.62e42fefa39efp-1")}, {0.5, h("-0x1.62e42fefa39efp-1")},
		{5e-324, h("-0x1.74385446d71c3p+9")}, {2.2250738585072014e-308, h("-0x1.6232bdd7abcd2p+9")},
		{math.MaxFloat64, h("0x1.62e42fefa39efp+9")}, {1024, h("0x1.bb9d3beb8c86bp+2")},
		{math.Sqrt2, h("0x1.62e42fefa39f0p-2")},
	} {
		cases = append(cases, struct {
			name    string
			f       func(d, x []float64)
			scalar  func(float64) float64
			x, want float64
		}{"log", lg, ewLog, c.x, c.want})
	}
	for _, c := range cases {
		checkSpecialLanes(t, c.name, c.f, c.scalar, c.x, c.want)
	}
}
