package ndarray

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// The accuracy of the float64 hypot, arctan2 and arctan kernels (the AVX-512
// loops where the CPU has them, else the scalar ones, which they match bit
// for bit) against a double-double reference good to about 2**-70 relative,
// far below the ULP fractions measured. PHOBOS_TRANSC_N sets the arguments
// per function (default 2,000,000, a few seconds):
//
//	PHOBOS_TRANSC_N=300000000 go test ./ndarray -run TestTranscAccuracy -v -timeout 2h

// transcAccuracyN is the number of arguments per function.
func transcAccuracyN(t *testing.T) int {
	n := 2_000_000
	if s := os.Getenv("PHOBOS_TRANSC_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("PHOBOS_TRANSC_N=%q: want a positive count", s)
		}
		n = v
	}
	if testing.Short() {
		n = min(n, 200_000)
	}
	return n
}

// ---- double-double arithmetic (hi + lo, |lo| <= ulp(hi)/2) ----

type dd struct{ hi, lo float64 }

func ddTwoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func ddAdd(a, b dd) dd {
	s := ddTwoSum(a.hi, b.hi)
	t := ddTwoSum(a.lo, b.lo)
	s.lo += t.hi
	s = ddTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return ddTwoSum(s.hi, s.lo)
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += float64(a.hi*b.lo) + float64(a.lo*b.hi)
	return ddTwoSum(p, e)
}

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddNeg(ddMul(b, dd{q1, 0})))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddNeg(ddMul(b, dd{q2, 0})))
	q3 := r.hi / b.hi
	return ddAdd(ddTwoSum(q1, q2), dd{q3, 0})
}

func ddSqrt(a dd) dd {
	r := math.Sqrt(a.hi)
	e := math.FMA(-r, r, a.hi) // exact
	return ddTwoSum(r, (e+a.lo)/(2*r))
}

func ddFromBig(x *big.Float) dd {
	hi, _ := x.Float64()
	lo, _ := new(big.Float).Sub(x, new(big.Float).SetFloat64(hi)).Float64()
	return dd{hi, lo}
}

// bigAtan is atan(x) for 0 <= x <= 1 at prec bits: three halvings of the
// angle (atan x = 2 atan(x / (1 + sqrt(1 + x*x)))), then the Taylor series.
func bigAtan(x *big.Float, prec uint) *big.Float {
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	x = new(big.Float).SetPrec(prec).Set(x)
	for range 3 {
		s := new(big.Float).SetPrec(prec).Mul(x, x)
		s.Add(s, one).Sqrt(s).Add(s, one)
		x.Quo(x, s)
	}
	sum := new(big.Float).SetPrec(prec).Set(x)
	x2 := new(big.Float).SetPrec(prec).Mul(x, x)
	pow := new(big.Float).SetPrec(prec).Set(x)
	eps := new(big.Float).SetPrec(prec).SetMantExp(one, -int(prec))
	for k := int64(1); ; k++ {
		pow.Mul(pow, x2).Neg(pow)
		term := new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(2*k+1))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, 3)
}

// atanRef holds atan(k/64), k = 0..64, and pi/2 and pi in double-double.
type atanRef struct {
	tab      [65]dd
	piO2, pi dd
}

func newAtanRef() *atanRef {
	const prec = 256
	r := &atanRef{}
	for k := range r.tab {
		r.tab[k] = ddFromBig(bigAtan(new(big.Float).SetPrec(prec).SetFloat64(float64(k)/64), prec))
	}
	pi4 := bigAtan(new(big.Float).SetPrec(prec).SetInt64(1), prec)
	r.piO2 = ddFromBig(new(big.Float).SetMantExp(pi4, 1))
	r.pi = ddFromBig(new(big.Float).SetMantExp(pi4, 2))
	return r
}

// atan is atan(t) for t >= 0 in [2**-960, 2**960]: t or 1/t reduced to
// d = (t-c)/(1+t*c) with c = k/64 nearest, atan(c) from the table plus
// atan(d) = d + d*p(d*d), p's Taylor terms to d**18 (|d| <= 1/128, so the
// first term left out is below 2**-130 relative and p's rounding adds
// about 2**-70).
func (r *atanRef) atan(t dd) dd {
	inv := t.hi > 1
	if inv {
		t = ddDiv(dd{1, 0}, t)
	}
	k := math.Round(t.hi * 64)
	c := k / 64
	d := ddDiv(ddAdd(t, dd{-c, 0}), ddAdd(ddMul(t, dd{c, 0}), dd{1, 0}))
	z := d.hi * d.hi
	p := 0.0
	for j := 9; j >= 1; j-- {
		cj := 1 / float64(2*j+1)
		if j%2 == 1 {
			cj = -cj
		}
		p = (p + cj) * z
	}
	v := ddAdd(r.tab[int(k)], ddAdd(d, dd{d.hi * p, 0}))
	if inv {
		v = ddAdd(r.piO2, ddNeg(v))
	}
	return v
}

// scaled is a reference value v*2**e, v about 1 in magnitude, so that
// results in the subnormals and beyond the float64 range have one too.
type scaled struct {
	v dd
	e int
}

// ulpErr is |got - want| in ULPs of want (the spacing of float64 at want,
// 2**-1074 in the subnormals). Infinite when got is but want is not.
func ulpErr(got float64, want scaled) float64 {
	if math.IsInf(got, 0) || got != got {
		return math.Inf(1)
	}
	g := math.Ldexp(got, -want.e) // exact: got is within a few binades of 2**e
	diff := ddAdd(dd{g, 0}, ddNeg(want.v))
	_, ex := math.Frexp(want.v.hi)
	if math.Abs(want.v.hi) == math.Ldexp(1, ex-1) && (want.v.lo < 0) == (want.v.hi > 0) {
		ex-- // just below a power of two: the lower binade's spacing
	}
	ulp := max(ex-53+want.e, -1074) - want.e
	return math.Abs(diff.hi) / math.Ldexp(1, ulp)
}

// hypotRef is hypot(x, y) for finite x, y: both scaled by the larger's
// binade, squares summed and rooted in double-double.
func hypotRef(x, y float64) scaled {
	a, b := math.Abs(x), math.Abs(y)
	if a < b {
		a, b = b, a
	}
	if a == 0 {
		return scaled{}
	}
	_, e := math.Frexp(a)
	a, b = math.Ldexp(a, -e), math.Ldexp(b, -e) // b may lose bits below 2**-1074: far under a's ULP
	s := ddAdd(ddMul(dd{a, 0}, dd{a, 0}), ddMul(dd{b, 0}, dd{b, 0}))
	return scaled{ddSqrt(s), e}
}

// atan2Ref is atan2(y, x) for finite nonzero x and y.
func (r *atanRef) atan2Ref(y, x float64) scaled {
	my, ey := math.Frexp(math.Abs(y))
	mx, ex := math.Frexp(math.Abs(x))
	m := ddDiv(dd{my, 0}, dd{mx, 0})
	e := ey - ex
	var v scaled
	switch {
	case e < -960: // atan t = t(1 - t*t/3 ...) = t to far more than 2**-106
		v = scaled{m, e}
		if x < 0 {
			v = scaled{r.pi, 0} // pi - t: t is below pi's ULP by 2**900
		}
	case e > 960:
		v = scaled{r.piO2, 0}
	default:
		tt := dd{math.Ldexp(m.hi, e), math.Ldexp(m.lo, e)}
		v = scaled{r.atan(tt), 0}
		if x < 0 {
			v.v = ddAdd(r.pi, ddNeg(v.v))
		}
	}
	if y < 0 {
		v.v = ddNeg(v.v)
	}
	return v
}

// anyFinite is a float64 with uniformly random bits, NaN and Inf redrawn.
func anyFinite(r *rand.Rand) float64 {
	for {
		v := math.Float64frombits(r.Uint64())
		if !math.IsInf(v, 0) && v == v {
			return v
		}
	}
}

// nearBy is v moved by up to m ULPs either way.
func nearBy(r *rand.Rand, v float64, m int) float64 {
	b := int64(math.Float64bits(v)) + int64(r.IntN(2*m+1)-m)
	return math.Float64frombits(uint64(max(b, 0)))
}

func randSign(r *rand.Rand, v float64) float64 {
	if r.IntN(2) == 0 {
		return -v
	}
	return v
}

// logUniform is |v| in [2**lo, 2**hi), uniform in the exponent.
func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp2(lo + (hi-lo)*r.Float64())
}

// transcClass is a class of arguments: (x, y) of hypot, (y, x) of arctan2,
// (x, unused) of arctan.
type transcClass struct {
	name string
	gen  func(r *rand.Rand) (x, y float64)
}

var hypotClasses = []transcClass{
	{"whole range", func(r *rand.Rand) (float64, float64) { return anyFinite(r), anyFinite(r) }},
	{"ordinary", func(r *rand.Rand) (float64, float64) { return r.Float64()*2 - 1, r.Float64()*6 - 3 }},
	{"x near y", func(r *rand.Rand) (float64, float64) {
		x := randSign(r, logUniform(r, -1000, 1000))
		return x, randSign(r, nearBy(r, x, 1<<r.IntN(40)))
	}},
	{"tiny and subnormal", func(r *rand.Rand) (float64, float64) {
		return randSign(r, logUniform(r, -1074, -900)), randSign(r, logUniform(r, -1074, -900))
	}},
	{"huge", func(r *rand.Rand) (float64, float64) {
		return randSign(r, logUniform(r, 900, 1023.9)), randSign(r, logUniform(r, 900, 1023.9))
	}},
	{"near the common-path bounds", func(r *rand.Rand) (float64, float64) {
		a := randSign(r, nearBy(r, []float64{0x1p511, 0x1p-459, 1}[r.IntN(3)], 4)) * math.Exp2(float64(r.IntN(3)-1))
		b := a * math.Exp2(-54+float64(r.IntN(5)-2)) * (1 + r.Float64())
		return a, b
	}},
	{"ratio 1 to 2**60", func(r *rand.Rand) (float64, float64) {
		return randSign(r, logUniform(r, -300, 300)), randSign(r, logUniform(r, -300, 300))
	}},
}

var atan2Classes = []transcClass{
	{"whole range", func(r *rand.Rand) (float64, float64) { return anyFinite(r), anyFinite(r) }},
	{"ordinary", func(r *rand.Rand) (float64, float64) { return r.Float64()*6 - 3, r.Float64()*2 - 1 }},
	{"ratio near the reduction bounds", func(r *rand.Rand) (float64, float64) {
		x := randSign(r, logUniform(r, -900, 900))
		t := []float64{0.66, 2.414213562373095, 1, 0x1p60, 0x1p-60}[r.IntN(5)]
		return randSign(r, nearBy(r, float64(x*t), 1<<r.IntN(30))), x
	}},
	{"near 0 and ±pi", func(r *rand.Rand) (float64, float64) {
		x := randSign(r, logUniform(r, -900, 900))
		return randSign(r, x*logUniform(r, -80, -20)), x
	}},
	{"near ±pi/2", func(r *rand.Rand) (float64, float64) {
		x := randSign(r, logUniform(r, -900, 900))
		return randSign(r, x*logUniform(r, 20, 80)), x
	}},
	{"tiny and subnormal", func(r *rand.Rand) (float64, float64) {
		return randSign(r, logUniform(r, -1074, -900)), randSign(r, logUniform(r, -1074, -900))
	}},
	{"results near and in the subnormals", func(r *rand.Rand) (float64, float64) {
		x := randSign(r, logUniform(r, -100, 200))
		return randSign(r, math.Abs(x)*logUniform(r, -1074, -960)), x
	}},
	{"ratio 2**-300 to 2**300", func(r *rand.Rand) (float64, float64) {
		return randSign(r, logUniform(r, -300, 300)), randSign(r, logUniform(r, -300, 300))
	}},
}

var atanClasses = []transcClass{
	{"whole range", func(r *rand.Rand) (float64, float64) { return anyFinite(r), 0 }},
	{"ordinary", func(r *rand.Rand) (float64, float64) { return r.Float64()*8 - 4, 0 }},
	{"near the reduction bounds", func(r *rand.Rand) (float64, float64) {
		return randSign(r, nearBy(r, []float64{0.66, 2.414213562373095, 1}[r.IntN(3)], 1<<r.IntN(40))), 0
	}},
	{"tiny to huge", func(r *rand.Rand) (float64, float64) { return randSign(r, logUniform(r, -1074, 1023.9)), 0 }},
}

// transcWorst is the largest error of one class and its arguments.
type transcWorst struct {
	ulps float64
	x, y float64
}

// runTranscClass evaluates f over n arguments of class c in batches, on
// every CPU, and returns the largest error against ref (which returns false
// for arguments it does not cover, checked by check instead). Every result
// must also be the scalar function's, bit for bit.
func runTranscClass(n int, seed uint64, c transcClass, f func(d, x, y []float64), scalar func(x, y float64) float64,
	ref func(x, y float64) (scaled, bool), check func(got, x, y float64) string) (transcWorst, string) {
	const batch = 4096
	workers := max(1, min(8, runtime.NumCPU()))
	var mu sync.Mutex
	var worst transcWorst
	var bad string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			x, y, d := make([]float64, batch), make([]float64, batch), make([]float64, batch)
			var my transcWorst
			var mybad string
			for done := w * batch; done < n && mybad == ""; done += workers * batch {
				m := min(batch, n-done)
				for i := range m {
					x[i], y[i] = c.gen(r)
				}
				f(d[:m], x[:m], y[:m])
				for i := range m {
					if s := scalar(x[i], y[i]); math.Float64bits(s) != math.Float64bits(d[i]) {
						mybad = fmt.Sprintf("(%v, %v) = %v, the scalar function %v", x[i], y[i], d[i], s)
						break
					}
					want, ok := ref(x[i], y[i])
					if !ok {
						if s := check(d[i], x[i], y[i]); s != "" {
							mybad = s
							break
						}
						continue
					}
					if e := ulpErr(d[i], want); e > my.ulps {
						my = transcWorst{e, x[i], y[i]}
					}
				}
			}
			mu.Lock()
			if my.ulps > worst.ulps {
				worst = my
			}
			if bad == "" {
				bad = mybad
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return worst, bad
}

// TestTranscAccuracy measures the largest error of hypot, arctan2 and
// arctan per class of arguments and fails above the documented bounds:
// hypot within 1 ULP (glibc's kernel is about 0.5), arctan and arctan2
// within 1 ULP of the exact value, so within 1 ULP of the correctly rounded
// one.
func TestTranscAccuracy(t *testing.T) {
	n := transcAccuracyN(t)
	ar := newAtanRef()
	hyp := ewBinKernel[float64, float64]{ewHypotVV, ewHypotVS, ewHypotSV}
	if k, ok := vecHypot(); ok {
		hyp = k
	}
	at2 := ewBinKernel[float64, float64]{ewAtan2VV, ewAtan2VS, ewAtan2SV}
	if k, ok := vecAtan2(); ok {
		at2 = k
	}
	at := ewAtanLoop
	if f, ok := vecAtan(); ok {
		at = f
	}
	hypRef := func(x, y float64) (scaled, bool) {
		w := hypotRef(x, y)
		if w.v.hi == 0 {
			return w, false
		}
		// Beyond MaxFloat64 once rounded: checked to be +Inf instead.
		return w, math.Ldexp(w.v.hi, w.e) < math.MaxFloat64
	}
	hypCheck := func(got, x, y float64) string {
		if w := hypotRef(x, y); w.v.hi == 0 && got == 0 && !math.Signbit(got) || math.IsInf(got, 1) {
			return ""
		}
		return fmt.Sprintf("hypot(%v, %v) = %v, want +Inf (or +0 for zeros)", x, y, got)
	}
	funcs := []struct {
		name    string
		classes []transcClass
		f       func(d, x, y []float64)
		scalar  func(x, y float64) float64
		ref     func(x, y float64) (scaled, bool)
		check   func(got, x, y float64) string
	}{
		{"hypot", hypotClasses, hyp.vv, ewHypot, hypRef, hypCheck},
		{"arctan2", atan2Classes, at2.vv, ewAtan2, func(y, x float64) (scaled, bool) {
			return ar.atan2Ref(y, x), x != 0 && y != 0
		}, func(got, y, x float64) string {
			if w := ewAtan2(y, x); math.Float64bits(got) != math.Float64bits(w) {
				return fmt.Sprintf("arctan2(%v, %v) = %v, want %v", y, x, got, w)
			}
			return ""
		}},
		{"arctan", atanClasses, func(d, x, _ []float64) { at(d, x) }, func(x, _ float64) float64 { return ewAtan(x) }, func(x, _ float64) (scaled, bool) {
			if x == 0 {
				return scaled{}, false
			}
			mx, ex := math.Frexp(math.Abs(x))
			var v scaled
			switch {
			case ex < -960:
				v = scaled{dd{mx, 0}, ex}
			case ex > 960:
				v = scaled{ar.piO2, 0}
			default:
				v = scaled{ar.atan(dd{math.Abs(x), 0}), 0}
			}
			if x < 0 {
				v.v = ddNeg(v.v)
			}
			return v, true
		}, func(got, x, _ float64) string {
			if math.Float64bits(got) == math.Float64bits(x) {
				return ""
			}
			return fmt.Sprintf("arctan(%v) = %v", x, got)
		}},
	}
	for fi, fn := range funcs {
		overall := 0.0
		for ci, c := range fn.classes {
			w, bad := runTranscClass(n/len(fn.classes)+1, uint64(100*fi+ci), c, fn.f, fn.scalar, fn.ref, fn.check)
			if bad != "" {
				t.Errorf("%s, %s: %s", fn.name, c.name, bad)
			}
			t.Logf("%-8s %-32s max %.4f ULP at (%v, %v)", fn.name, c.name, w.ulps, w.x, w.y)
			if w.ulps >= 1 {
				t.Errorf("%s, %s: %.4f ULPs at (%v, %v), want < 1", fn.name, c.name, w.ulps, w.x, w.y)
			}
			overall = max(overall, w.ulps)
		}
		t.Logf("%-8s over %d arguments: max %.4f ULP", fn.name, n, overall)
	}
}

// TestTranscSpecialValues checks the float64 hypot and arctan2 kernels on
// zeros, infinities, NaN and subnormals against C99 Annex F (what NumPy
// gives), each special pair at every position of a block of ordinary
// values, so the vector loops' fallback is exercised where it exists.
func TestTranscSpecialValues(t *testing.T) {
	inf, nan, negz := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	pi, pio2, pio4 := math.Pi, math.Pi/2, math.Pi/4
	hyp := ewBinKernel[float64, float64]{ewHypotVV, ewHypotVS, ewHypotSV}
	if k, ok := vecHypot(); ok {
		hyp = k
	}
	at2 := ewBinKernel[float64, float64]{ewAtan2VV, ewAtan2VS, ewAtan2SV}
	if k, ok := vecAtan2(); ok {
		at2 = k
	}
	cases := []struct {
		name       string
		k          ewBinKernel[float64, float64]
		a, b, want float64
	}{
		{"hypot", hyp, inf, nan, inf}, {"hypot", hyp, nan, -inf, inf}, {"hypot", hyp, -inf, 3, inf},
		{"hypot", hyp, nan, 1, nan}, {"hypot", hyp, 0, negz, 0}, {"hypot", hyp, negz, negz, 0},
		{"hypot", hyp, 3 * 0x1p-1074, 4 * 0x1p-1074, 5 * 0x1p-1074}, {"hypot", hyp, -3, 4, 5},
		{"hypot", hyp, math.MaxFloat64, math.MaxFloat64, inf}, {"hypot", hyp, 0x1p1023, 0x1p1023, 0x1p1023 * math.Sqrt2},
		// arctan2(y, x)
		{"arctan2", at2, 0, 0, 0}, {"arctan2", at2, negz, 0, negz}, {"arctan2", at2, 0, negz, pi}, {"arctan2", at2, negz, negz, -pi},
		{"arctan2", at2, 0, -2, pi}, {"arctan2", at2, negz, -2, -pi}, {"arctan2", at2, 0, 2, 0}, {"arctan2", at2, negz, 2, negz},
		{"arctan2", at2, 2, 0, pio2}, {"arctan2", at2, 2, negz, pio2}, {"arctan2", at2, -2, 0, -pio2}, {"arctan2", at2, -2, negz, -pio2},
		{"arctan2", at2, 2, inf, 0}, {"arctan2", at2, -2, inf, negz}, {"arctan2", at2, 2, -inf, pi}, {"arctan2", at2, -2, -inf, -pi},
		{"arctan2", at2, inf, 2, pio2}, {"arctan2", at2, -inf, -2, -pio2}, {"arctan2", at2, inf, inf, pio4},
		{"arctan2", at2, -inf, inf, -pio4}, {"arctan2", at2, inf, -inf, 3 * pio4}, {"arctan2", at2, -inf, -inf, -3 * pio4},
		{"arctan2", at2, nan, 1, nan}, {"arctan2", at2, 1, nan, nan}, {"arctan2", at2, nan, inf, nan},
		{"arctan2", at2, 0x1p-1074, 1, 0x1p-1074}, {"arctan2", at2, -0x1p-1074, -1, -pi}, {"arctan2", at2, 1, 1, pio4},
		{"arctan2", at2, -0x1p-1074, 0x1p-1074, -pio4}, {"arctan2", at2, 0x1p-1074, -0x1p-1074, 3 * pio4},
		{"arctan2", at2, math.MaxFloat64, -math.MaxFloat64, 3 * pio4}, {"arctan2", at2, 1e-300, 1e300, 0},
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
	const n = 19 // two blocks and a tail
	for _, c := range cases {
		for pos := range n {
			x, y, d := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range n {
				x[i], y[i] = 0.5+float64(i), 1.25-float64(i)/8
			}
			x[pos], y[pos] = c.a, c.b
			c.k.vv(d, x, y)
			if !same(d[pos], c.want) {
				t.Fatalf("%s(%v, %v) at %d of %d = %v, want %v", c.name, c.a, c.b, pos, n, d[pos], c.want)
			}
			for i := range n {
				if i != pos && (d[i] != d[i] || math.IsInf(d[i], 0)) {
					t.Fatalf("%s: ordinary lane %d = %v beside (%v, %v)", c.name, i, d[i], c.a, c.b)
				}
			}
			c.k.vs(d, x, c.b)
			if !same(d[pos], c.want) {
				t.Fatalf("%s vs(%v, %v) = %v, want %v", c.name, c.a, c.b, d[pos], c.want)
			}
			c.k.sv(d, c.a, y)
			if !same(d[pos], c.want) {
				t.Fatalf("%s sv(%v, %v) = %v, want %v", c.name, c.a, c.b, d[pos], c.want)
			}
		}
	}
}

// checkSpecialLanes runs the loop f with x at every position of 19
// ordinary arguments (two blocks of 8 and a tail, so a vector loop's
// fallback runs alone and beside vector blocks): x's result must be want
// (the bits NumPy gives; any NaN for NaN), every other lane the scalar
// function's.
func checkSpecialLanes(t *testing.T, name string, f func(d, x []float64), scalar func(float64) float64, x, want float64) {
	t.Helper()
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
	const n = 19
	for pos := range n {
		xs, d := make([]float64, n), make([]float64, n)
		for i := range n {
			xs[i] = 0.25 + float64(i)/8
		}
		xs[pos] = x
		f(d, xs)
		if !same(d[pos], want) {
			t.Fatalf("%s(%v) at %d of %d = %v (%x), NumPy %v (%x)", name, x, pos, n, d[pos], d[pos], want, want)
		}
		for i := range n {
			if i != pos && !same(d[i], scalar(xs[i])) {
				t.Fatalf("%s: ordinary lane %d = %v beside %v", name, i, d[i], x)
			}
		}
	}
}

// checkClasses runs runTranscClass over each class (n arguments in all),
// logs each class's largest error and the overall one, and fails a class
// that errs by 1 ULP or more or breaks check or bit-identity.
func checkClasses(t *testing.T, name string, n int, seed uint64, classes []transcClass, f func(d, x, y []float64),
	scalar func(x, y float64) float64, ref func(x, y float64) (scaled, bool), check func(got, x, y float64) string) {
	t.Helper()
	overall := 0.0
	for ci, c := range classes {
		w, bad := runTranscClass(n/len(classes)+1, seed+uint64(ci), c, f, scalar, ref, check)
		if bad != "" {
			t.Errorf("%s, %s: %s", name, c.name, bad)
		}
		t.Logf("%-5s %-44s max %.4f ULP at %v", name, c.name, w.ulps, w.x)
		if w.ulps >= 1 {
			t.Errorf("%s, %s: %.4f ULPs at %v, want < 1", name, c.name, w.ulps, w.x)
		}
		overall = max(overall, w.ulps)
	}
	t.Logf("%-5s over %d arguments: max %.4f ULP", name, n, overall)
}

// loop64 is op's AVX-512 float64 loop where this CPU has one, else the
// scalar loop.
func loop64(op UnaryOp, scalar func(d, x []float64)) func(d, x []float64) {
	if f, ok := vecUnary64(op); ok {
		return f
	}
	return scalar
}

// hexFloat parses a float literal (hexadecimal ones included) of a test.
func hexFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
