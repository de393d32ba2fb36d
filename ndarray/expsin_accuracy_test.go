package ndarray

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The accuracy of the float64 exp and sin loops (the AVX-512 ones where the
// CPU has them, else the scalar ones, which they match bit for bit) against
// double-double references good to about 2**-90 relative. PHOBOS_TRANSC_N
// sets the arguments per function, as for TestTranscAccuracy:
//
//	PHOBOS_TRANSC_N=300000000 go test ./ndarray -run TestExpSinAccuracy -v -timeout 2h

// expSinRef holds ln 2 and π/2 in parts and the Taylor coefficients 1/j!.
type expSinRef struct {
	ln2  [3]float64 // ln 2 = ln2[0] + ln2[1] + ln2[2], 53 bits each
	pio2 [4]float64
	fact [31]dd // 1/j!

	bigPio2, bigTwoOverPi *big.Float // for arguments beyond 2**43, at hugePrec bits
}

// hugePrec is enough bits of π for x*2/π of the largest double with 300
// bits after the point.
const hugePrec = 1400

func newExpSinRef() *expSinRef {
	const prec = hugePrec
	// ln 2 = 2 atanh(1/3); π = 16 atan(1/5) - 4 atan(1/239).
	atanhInv := func(n int64, alt bool) *big.Float {
		x := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(1), new(big.Float).SetPrec(prec).SetInt64(n))
		x2 := new(big.Float).SetPrec(prec).Mul(x, x)
		sum := new(big.Float).SetPrec(prec).Set(x)
		pow := new(big.Float).SetPrec(prec).Set(x)
		for k := int64(1); k < 1000; k++ {
			pow.Mul(pow, x2)
			if alt {
				pow.Neg(pow)
			}
			sum.Add(sum, new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(2*k+1)))
		}
		return sum
	}
	split := func(v *big.Float, parts []float64) {
		v = new(big.Float).SetPrec(prec).Set(v)
		for i := range parts {
			parts[i], _ = v.Float64()
			v.Sub(v, new(big.Float).SetFloat64(parts[i]))
		}
	}
	r := &expSinRef{}
	split(new(big.Float).SetPrec(prec).Mul(atanhInv(3, false), big.NewFloat(2)), r.ln2[:])
	pi := new(big.Float).SetPrec(prec).Sub(
		new(big.Float).SetPrec(prec).Mul(atanhInv(5, true), big.NewFloat(16)),
		new(big.Float).SetPrec(prec).Mul(atanhInv(239, true), big.NewFloat(4)))
	r.bigPio2 = new(big.Float).SetPrec(prec).Quo(pi, big.NewFloat(2))
	r.bigTwoOverPi = new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), r.bigPio2)
	split(r.bigPio2, r.pio2[:])
	f := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range r.fact {
		if j > 0 {
			f.Quo(f, new(big.Float).SetInt64(int64(j)))
		}
		r.fact[j] = ddFromBig(f)
	}
	return r
}

// twoProd is a*b exactly.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

// reduce is x - k*c for c = parts[0] + parts[1] + ...: the first product
// is exact as a double-double, the rest are added as double-doubles, so
// the error is below 2**-100 of the largest k*parts[1], whatever the
// cancellation against x.
func reduce(x, k float64, parts []float64) dd {
	r := ddAdd(dd{x, 0}, ddNeg(twoProd(k, parts[0])))
	for _, c := range parts[1:] {
		r = ddAdd(r, ddNeg(twoProd(k, c)))
	}
	return r
}

// exp is e**x for finite x in [-746, 710], as v*2**e with v in [0.7, 1.5].
func (r *expSinRef) exp(x float64) scaled {
	k := math.Round(x / math.Ln2)
	t := reduce(x, k, r.ln2[:]) // |t| <= 0.35: the series to t**30/30! is good to 2**-110
	p := r.fact[30]
	for j := 29; j >= 0; j-- {
		p = ddAdd(ddMul(p, t), r.fact[j])
	}
	return scaled{p, int(k)}
}

// sin is sin x for finite x: reduced with double-doubles below 2**43, with
// big.Float beyond.
func (r *expSinRef) sin(x float64) scaled { return r.sinQ(x, 0) }

// cos is sin a quarter turn on: the quadrant k + 1.
func (r *expSinRef) cos(x float64) scaled { return r.sinQ(x, 1) }

// sinQ is sin(x + q*π/2), q*π/2 added exactly (to the quadrant).
func (r *expSinRef) sinQ(x float64, q int64) scaled {
	k := math.Round(x * (2 / math.Pi))
	var t dd
	if math.Abs(x) < ewSinLimit {
		t = reduce(x, k, r.pio2[:])
	} else {
		bx := new(big.Float).SetPrec(hugePrec).SetFloat64(x)
		q := new(big.Float).SetPrec(hugePrec).Mul(bx, r.bigTwoOverPi)
		q.Add(q, big.NewFloat(0.5))
		qi, _ := q.Int(nil) // floor for q > 0, ceil below: fixed next
		if q.Sign() < 0 && !q.IsInt() {
			qi.Sub(qi, big.NewInt(1))
		}
		bt := new(big.Float).SetPrec(hugePrec).SetInt(qi)
		bt.Mul(bt, r.bigPio2).Sub(bx, bt)
		t = ddFromBig(bt)
		k = float64(new(big.Int).And(qi, big.NewInt(3)).Int64()) // k mod 4 is all that is used
	}
	k += float64(q)
	z := ddMul(t, t)
	var p dd
	if int64(k)&1 == 0 { // sin t = t(1 - t²/3! + ...)
		p = r.fact[29]
		for j := 27; j >= 1; j -= 2 {
			p = ddAdd(ddNeg(ddMul(p, z)), r.fact[j])
		}
		p = ddMul(p, t)
	} else { // cos t
		p = r.fact[30]
		for j := 28; j >= 0; j -= 2 {
			p = ddAdd(ddNeg(ddMul(p, z)), r.fact[j])
		}
	}
	if int64(k)&2 != 0 {
		p = ddNeg(p)
	}
	return scaled{p, 0}
}

var expClasses = []transcClass{
	{"whole range", func(r *rand.Rand) (float64, float64) { return anyFinite(r), 0 }},
	{"ordinary", func(r *rand.Rand) (float64, float64) { return r.Float64()*2 - 1, 0 }},
	{"-x*x of ordinary", func(r *rand.Rand) (float64, float64) { x := r.Float64()*2 - 1; return -x * x, 0 }},
	{"results of any size", func(r *rand.Rand) (float64, float64) { return r.Float64()*1460 - 750, 0 }},
	{"overflow and underflow edges", func(r *rand.Rand) (float64, float64) {
		return nearBy(r, []float64{709.782712893384, -708.3964185322641, -745.1332191019411, 512, -512}[r.IntN(5)], 1<<r.IntN(30)), 0
	}},
	{"tiny", func(r *rand.Rand) (float64, float64) { return randSign(r, logUniform(r, -60, -20)), 0 }},
}

var sinClasses = []transcClass{
	{"ordinary", func(r *rand.Rand) (float64, float64) { return r.Float64()*2 - 1, 0 }},
	{"up to 2**43", func(r *rand.Rand) (float64, float64) { return randSign(r, logUniform(r, -30, 43)), 0 }},
	{"near multiples of pi/2", func(r *rand.Rand) (float64, float64) {
		k := math.Round(logUniform(r, 0, 42.6))
		return randSign(r, nearBy(r, k*math.Pi/2, 1<<r.IntN(20))), 0
	}},
	{"tiny and subnormal", func(r *rand.Rand) (float64, float64) { return randSign(r, logUniform(r, -1074, -20)), 0 }},
	{"whole range", func(r *rand.Rand) (float64, float64) { return anyFinite(r), 0 }},
	{"2**43 to 2**1024, near multiples of pi/2", func(r *rand.Rand) (float64, float64) {
		return randSign(r, nearBy(r, math.Ldexp(float64(r.Uint64()>>11)*(math.Pi/2), r.IntN(920)), 1<<r.IntN(20))), 0
	}},
	{"hard reductions and the 2**43 bound", func(r *rand.Rand) (float64, float64) {
		x := []float64{6381956970095103 * 0x1p797, 1e22, math.MaxFloat64, 0x1p43}[r.IntN(4)]
		return randSign(r, min(nearBy(r, x, 1<<r.IntN(12)), math.MaxFloat64)), 0
	}},
}

// TestExpSinAccuracy measures the largest error of exp and sin per class
// of arguments and fails at 1 ULP or more: exp is glibc's algorithm with
// a 16-entry table (0.57 ULP), sin fdlibm's kernels after our reductions;
// exp overflowing or underflowing is checked against the rounded reference.
func TestExpSinAccuracy(t *testing.T) {
	n := transcAccuracyN(t)
	ref := newExpSinRef()
	ex, sn, cs := loop64(Exp, ewExpLoop), loop64(Sin, ewSinLoop), loop64(Cos, ewCosLoop)
	funcs := []struct {
		name    string
		classes []transcClass
		f       func(d, x, y []float64)
		scalar  func(x, y float64) float64
		ref     func(x, y float64) (scaled, bool)
		check   func(got, x, y float64) string
	}{
		{"exp", expClasses, func(d, x, _ []float64) { ex(d, x) }, func(x, _ float64) float64 { return ewExp(x) },
			func(x, _ float64) (scaled, bool) {
				if x > 709.8 || x < -746 {
					return scaled{}, false
				}
				w := ref.exp(x)
				return w, math.Ldexp(w.v.hi, w.e) < math.MaxFloat64
			}, func(got, x, _ float64) string {
				if x > 709 && math.IsInf(got, 1) || x < -746 && got == 0 && !math.Signbit(got) {
					return ""
				}
				return fmt.Sprintf("exp(%v) = %v, want +Inf or +0", x, got)
			}},
		{"sin", sinClasses, func(d, x, _ []float64) { sn(d, x) }, func(x, _ float64) float64 { return ewSin(x) },
			func(x, _ float64) (scaled, bool) {
				if math.IsInf(x, 0) || x != x || x == 0 {
					return scaled{}, false
				}
				return ref.sin(x), true
			}, func(got, x, _ float64) string {
				if got == x || x != x && got != got {
					return "" // ±0 and NaN
				}
				return fmt.Sprintf("sin(%v) = %v", x, got)
			}},
		{"cos", sinClasses, func(d, x, _ []float64) { cs(d, x) }, func(x, _ float64) float64 { return ewCos(x) },
			func(x, _ float64) (scaled, bool) {
				if math.IsInf(x, 0) || x != x {
					return scaled{}, false
				}
				return ref.cos(x), true
			}, func(got, x, _ float64) string {
				if got != got && (x != x || math.IsInf(x, 0)) {
					return "" // NaN
				}
				return fmt.Sprintf("cos(%v) = %v", x, got)
			}},
	}
	for fi, fn := range funcs {
		checkClasses(t, fn.name, n, uint64(1000+100*fi), fn.classes, fn.f, fn.scalar, fn.ref, fn.check)
	}
}

// TestExpSinSpecialValues checks exp, sin and cos on zeros, infinities, NaN,
// the edges of overflow and underflow and huge arguments against the bits
// NumPy 1.24 gives (for ordinary arguments NumPy's SVML loops are not
// always correctly rounded, so those are left to the accuracy test), each
// at every position of a block of ordinary values,
// so the vector loops' fallback is exercised where it exists.
func TestExpSinSpecialValues(t *testing.T) {
	ex, sn, cs := loop64(Exp, ewExpLoop), loop64(Sin, ewSinLoop), loop64(Cos, ewCosLoop)
	h := func(s string) float64 { return hexFloat(t, s) }
	inf, nan, negz := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	cases := []struct {
		name    string
		f       func(d, x []float64)
		x, want float64
	}{
		{"exp", ex, 0, 1}, {"exp", ex, negz, 1},
		{"exp", ex, inf, inf}, {"exp", ex, -inf, 0}, {"exp", ex, nan, nan},
		{"exp", ex, 709.78, h("0x1.fe9ce5c4c52b4p+1023")}, {"exp", ex, 709.79, inf},
		{"exp", ex, 709.782712893384, h("0x1.fffffffffff2ap+1023")}, {"exp", ex, 709.7827128933841, inf},
		{"exp", ex, -708.3964185322641, h("0x1.000000000007cp-1022")}, {"exp", ex, -708.4, h("0x0.ff15b469edf89p-1022")},
		{"exp", ex, -744.4400719213812, 5e-324}, {"exp", ex, -745.1332191019411, 5e-324},
		{"exp", ex, -745.1332191019412, 0}, {"exp", ex, -746, 0}, {"exp", ex, 1e-300, 1}, {"exp", ex, 5e-324, 1},
		{"exp", ex, 0x1p-54, 1}, {"exp", ex, -0x1p-54, 1}, {"exp", ex, 512, h("0x1.9476504ba852ep+738")},
		{"exp", ex, -512, h("0x1.44109edb20931p-739")},
		{"sin", sn, 0, 0}, {"sin", sn, negz, negz}, {"sin", sn, inf, nan}, {"sin", sn, -inf, nan}, {"sin", sn, nan, nan},
		{"sin", sn, 5e-324, 5e-324}, {"sin", sn, -5e-324, -5e-324}, {"sin", sn, 1e-300, 1e-300}, {"sin", sn, 0x1p-27, 0x1p-27},
		{"sin", sn, math.Pi, h("0x1.1a62633145c07p-53")}, {"sin", sn, -math.Pi, h("-0x1.1a62633145c07p-53")},
		{"sin", sn, math.Pi / 2, 1}, {"sin", sn, 0x1p29, h("0x1.4e67c0e2622dep-2")}, {"sin", sn, 0x1p29 - 64, h("0x1.febf3132bdf4ep-1")},
		{"sin", sn, math.MaxFloat64, h("0x1.452fc98b34e97p-8")}, {"sin", sn, -math.MaxFloat64, h("-0x1.452fc98b34e97p-8")},
		{"sin", sn, 1e22, h("-0x1.b453ab76bf397p-1")}, {"sin", sn, -1e22, h("0x1.b453ab76bf397p-1")}, {"sin", sn, 355, h("-0x1.f9bd0307d1de3p-16")},
		{"sin", sn, 0x1p28 + 0.5, h("-0x1.e3c329b9ac56ap-1")},
		{"cos", cs, 0, 1}, {"cos", cs, negz, 1}, {"cos", cs, inf, nan}, {"cos", cs, -inf, nan}, {"cos", cs, nan, nan},
		{"cos", cs, 5e-324, 1}, {"cos", cs, 1e-300, 1}, {"cos", cs, math.Pi, -1}, {"cos", cs, -math.Pi, -1},
		{"cos", cs, math.Pi / 2, h("0x1.1a62633145c07p-54")}, {"cos", cs, -math.Pi / 2, h("0x1.1a62633145c07p-54")},
		{"cos", cs, 0x1p29, h("-0x1.e3edd2dfeef90p-1")}, {"cos", cs, 0x1p29 - 64, h("-0x1.1e66ff4934731p-4")},
		{"cos", cs, math.MaxFloat64, h("-0x1.fffe62ecfab75p-1")}, {"cos", cs, -math.MaxFloat64, h("-0x1.fffe62ecfab75p-1")},
		{"cos", cs, 1e22, h("0x1.0be2cef01c8f4p-1")}, {"cos", cs, -1e22, h("0x1.0be2cef01c8f4p-1")},
		{"cos", cs, 0x1p28 + 0.5, h("0x1.4f5e4c8c289dfp-2")}, {"cos", cs, 0x1p43, h("-0x1.f5c0a8dda3078p-1")},
	}
	scalar := map[string]func(float64) float64{"exp": ewExp, "sin": ewSin, "cos": ewCos}
	for _, c := range cases {
		checkSpecialLanes(t, c.name, c.f, scalar[c.name], c.x, c.want)
	}
}
