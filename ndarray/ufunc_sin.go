package ndarray

import (
	"math"
	"math/bits"
)

// ---- sine (fdlibm's kernels after a Cody-Waite reduction with FMAs) ----

// π/2 in three parts (53 bits each, the first two adjacent) and 2/π.
const (
	ewSinPio2A  = 1.5707963267948966      // 0x3FF921FB54442D18
	ewSinPio2B  = 6.123233995736766e-17   // 0x3C91A62633145C07
	ewSinPio2C  = -1.4973849048591698e-33 // 0xB91F1976B7ED8FBC
	ewSinInvPio = 0.6366197723675814      // 0x3FE45F306DC9C883, 2/π
	ewSinShift  = 0x1.8p52                // x + shift rounds x to an integer, held in the low bits

	// ewSinLimit bounds the reduction here: below it x*2/π rounds to
	// within 2**-9 of its value (so |r| <= π/4 + 0.004, where fdlibm's
	// polynomials still hold) and the reduction's error, about |k|*2**-162,
	// stays far below the remainders' ULPs; beyond it math.Sin's
	// Payne-Hanek reduction takes over.
	ewSinLimit = 0x1p43
)

// fdlibm's k_sin.c and k_cos.c polynomials, for |r| <= π/4.
const (
	ewSinS1 = -1.66666666666666324348e-01 // 0xBFC5555555555549
	ewSinS2 = 8.33333333332248946124e-03  // 0x3F8111111110F8A6
	ewSinS3 = -1.98412698298579493134e-04 // 0xBF2A01A019C161D5
	ewSinS4 = 2.75573137070700676789e-06  // 0x3EC71DE357B1FE7D
	ewSinS5 = -2.50507602534068634195e-08 // 0xBE5AE5E68A2B9CEB
	ewSinS6 = 1.58969099521155010221e-10  // 0x3DE5D93A5ACFD57C
	ewCosC1 = 4.16666666666666019037e-02  // 0x3FA555555555554C
	ewCosC2 = -1.38888888888741095749e-03 // 0xBF56C16C16C15177
	ewCosC3 = 2.48015872894767294178e-05  // 0x3EFA01A019CB1590
	ewCosC4 = -2.75573143513906633035e-07 // 0xBE927E4F809C52AD
	ewCosC5 = 2.08757232129817482790e-09  // 0x3E21EE9EBDB4B1C4
	ewCosC6 = -1.13596475577881948265e-11 // 0xBDA8FAE9BE8838D4
)

// ewSin is sine within 1 ULP of the exact value, 0.7921 ULP at most over
// 3e8 arguments of TestExpSinAccuracy (huge ones included); for |x| < 2**43
// the same bits as the AVX-512 loop of expsin_amd64.s. Go's math.Sin is
// not within 1 ULP for huge x (25 ULPs off at MaxFloat64).
// x = k*π/2 + r with k the integer nearest x*2/π; r is carried as a
// double-double rh + rl: x - k*A is exact with an FMA (A = π/2 to 53 bits,
// any k), k*B is split exactly by an FMA and subtracted with a
// two-sum, and k*C only enters rl, so the reduction is good to about
// |k|*2**-162 absolute, far below the remainders of doubles in that range
// (the smallest over all doubles is about 2**-61).
// Then fdlibm's __kernel_sin or __kernel_cos of (rh, rl) by k mod 4, with
// FMAs where a product meets a sum (fewer roundings, and fewer operations
// for the vector loop).
// |x| >= 2**43 is reduced by ewSinReduceHuge (Payne-Hanek) and goes through
// the same kernels, scalar only.
func ewSin(x float64) float64 { return ewSinQ(x, 0) }

// ewCos is cosine as sine a quarter turn on, cos x = sin(x + π/2): the
// same reduction with k + 1 (no rounding of x + π/2), so the same kernels,
// bound and vector loop as ewSin (0.7930 ULP at most over 3e8 arguments
// of TestExpSinAccuracy).
func ewCos(x float64) float64 { return ewSinQ(x, 1) }

// ewSinQ is sin(x + q*π/2).
func ewSinQ(x float64, q uint64) float64 {
	if !(math.Abs(x) < ewSinLimit) {
		if math.IsInf(x, 0) || x != x {
			return x - x // NaN
		}
		k, rh, rl := ewSinReduceHuge(x)
		return ewSinKernel(k+q, rh, rl)
	}
	kd := float64(x*ewSinInvPio) + ewSinShift
	ki := math.Float64bits(kd)
	kd -= ewSinShift
	r1 := math.FMA(-kd, ewSinPio2A, x) // exact
	p := kd * ewSinPio2B
	pl := math.FMA(kd, ewSinPio2B, -p) // p + pl = kd*B exactly
	rh := r1 - p
	bb := rh - r1
	rl := (r1 - (rh - bb)) - (p + bb) // rh + rl = r1 - p exactly
	rl = (rl - pl) - float64(kd*ewSinPio2C)
	return ewSinKernel(ki+q, rh, rl)
}

// ewSinKernel is sin(q*π/2 + rh + rl) for |rh + rl| <= π/4 (a little more
// is fine), rl below half an ULP of rh.
func ewSinKernel(ki uint64, rh, rl float64) float64 {
	z := rh * rh
	w := z * z
	var v float64
	if ki&1 == 0 { // __kernel_sin(rh, rl, 1)
		a := math.FMA(z, math.FMA(z, ewSinS4, ewSinS3), ewSinS2)
		r := math.FMA(z*w, math.FMA(z, ewSinS6, ewSinS5), a)
		s := z * rh
		u := math.FMA(-s, r, 0.5*rl)
		u = math.FMA(z, u, -rl)
		v = rh - math.FMA(-s, ewSinS1, u)
	} else { // __kernel_cos(rh, rl)
		a := z * math.FMA(z, math.FMA(z, ewCosC3, ewCosC2), ewCosC1)
		r := math.FMA(w*w, math.FMA(z, math.FMA(z, ewCosC6, ewCosC5), ewCosC4), a)
		hz := float64(0.5 * z)
		c := 1 - hz
		v = c + (((1 - c) - hz) + math.FMA(z, r, -(rh*rl)))
	}
	if ki&2 != 0 {
		v = -v
	}
	return v
}

// ewSinLoop is the float64 sin loop, with direct calls.
func ewSinLoop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewSin(x[i])
	}
}

// ewCosLoop is the float64 cos loop, with direct calls.
func ewCosLoop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewCos(x[i])
	}
}

// ewTwoOverPi holds the bits of 2/π after the binary point, 64 a word,
// first bit first; 1280 bits cover the window of the largest double.
var ewTwoOverPi = [20]uint64{
	0xa2f9836e4e441529, 0xfc2757d1f534ddc0, 0xdb6295993c439041, 0xfe5163abdebbc561,
	0xb7246e3a424dd2e0, 0x06492eea09d1921c, 0xfe1deb1cb129a73e, 0xe88235f52ebb4484,
	0xe99c7026b45f7e41, 0x3991d639835339f4, 0x9c845f8bbdf9283b, 0x1ff897ffde05980f,
	0xef2f118b5a0a6d1f, 0x6d367ecf27cb09b7, 0x4f463f669e5fea2d, 0x7527bac7ebe5f17b,
	0x3d0739f78a5292ea, 0x6bfb5fb11f8d5d08, 0x56033046fc7b6bab, 0xf0cfbc209af4361d,
}

// ewTwoOverPiBits is the 64 bits of 2/π starting at bit j (bit 1 is the
// first after the binary point; bits at j <= 0 are the integer part, 0).
func ewTwoOverPiBits(j int) uint64 {
	p := j + 63 // position in the table preceded by one word of zeros
	word := func(i int) uint64 {
		if i == 0 {
			return 0
		}
		return ewTwoOverPi[i-1]
	}
	i, sh := p/64, uint(p%64)
	if sh == 0 {
		return word(i)
	}
	return word(i)<<sh | word(i+1)>>(64-sh)
}

// ewSinReduceHuge is Payne-Hanek's reduction of a finite |x| >= 2**43: q
// with x*2/π = q + f (mod 4), |f| <= 1/2, and rh + rl = f*π/2. With x =
// m*2**e, bits of 2/π before bit e-1 add multiples of 4 to x*2/π; the 192
// from there, times m, give its value mod 4 with 190 bits after the point,
// good to 2**-137 (the bits left out weigh less than m*2**(e-1-192)), and
// f keeps more than 120 bits however close x is to a multiple of π/2.
func ewSinReduceHuge(x float64) (q uint64, rh, rl float64) {
	b := math.Float64bits(x)
	e := int(b>>52&0x7ff) - 1075
	m := b&(1<<52-1) | 1<<52
	s := e - 1
	w2, w1, w0 := ewTwoOverPiBits(s), ewTwoOverPiBits(s+64), ewTwoOverPiBits(s+128)
	h0, l0 := bits.Mul64(m, w0)
	h1, l1 := bits.Mul64(m, w1)
	_, l2 := bits.Mul64(m, w2)
	r1, c := bits.Add64(l1, h0, 0)
	r2 := l2 + h1 + c
	// q: the two integer bits; f as a 192-bit fraction u2:u1:u0.
	q = r2 >> 62
	u2, u1, u0 := r2<<2|r1>>62, r1<<2|l0>>62, l0<<2
	neg := u2>>63 != 0 // f >= 1/2: round q up, f - 1 < 0
	if neg {
		q++
		var br uint64
		u0, br = bits.Sub64(0, u0, 0)
		u1, br = bits.Sub64(0, u1, br)
		u2, _ = bits.Sub64(0, u2, br)
	}
	// |f| as a double-double: its six 32-bit pieces, each exact, summed
	// from the top with two-sums.
	var fh, fl float64
	for i, w := range [6]uint64{u2 >> 32, u2 & (1<<32 - 1), u1 >> 32, u1 & (1<<32 - 1), u0 >> 32, u0 & (1<<32 - 1)} {
		v := math.Ldexp(float64(w), -32*(i+1))
		t := fh + v
		bv := t - fh
		fl += (fh - (t - bv)) + (v - bv)
		fh = t
	}
	fh, fl = fh+fl, fl-((fh+fl)-fh)
	// r = |f|*π/2
	rh = fh * ewSinPio2A
	e1 := math.FMA(fh, ewSinPio2A, -rh) + (float64(fh*ewSinPio2B) + float64(fl*ewSinPio2A))
	t := rh + e1
	rl = e1 - (t - rh)
	rh = t
	if neg {
		rh, rl = -rh, -rl
	}
	if x < 0 { // sin is odd: q and r of -x are those of x negated
		q, rh, rl = -q, -rh, -rl
	}
	return q, rh, rl
}
