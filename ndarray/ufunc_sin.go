package ndarray

import "math"

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

// ewSin is sine within 1 ULP of the exact value for |x| < 2**43 (0.79 ULP
// in TestExpSinAccuracy), the same bits as the AVX-512 loop of
// expsin_amd64.s (Go's math.Sin is up to about 1 ULP off from 2**-26 on).
// x = k*π/2 + r with k the integer nearest x*2/π; r is carried as a
// double-double rh + rl: x - k*A is exact with an FMA (A = π/2 to 53 bits,
// any k), k*B is split exactly by an FMA and subtracted with a
// two-sum, and k*C only enters rl, so the reduction is good to about
// |k|*2**-162 absolute, far below the remainders of doubles in that range
// (the smallest over all doubles is about 2**-61).
// Then fdlibm's __kernel_sin or __kernel_cos of (rh, rl) by k mod 4. NaN,
// infinities and |x| >= 2**43 take math.Sin, whose Payne-Hanek reduction is
// exact there (as NumPy's is).
func ewSin(x float64) float64 {
	if !(math.Abs(x) < ewSinLimit) {
		return math.Sin(x)
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

	z := rh * rh
	w := z * z
	var v float64
	if ki&1 == 0 { // __kernel_sin(rh, rl, 1)
		r := (ewSinS2 + float64(z*(ewSinS3+float64(z*ewSinS4)))) + float64(float64(z*w)*(ewSinS5+float64(z*ewSinS6)))
		s := z * rh
		v = rh - ((float64(z*(float64(0.5*rl)-float64(s*r))) - rl) - float64(s*ewSinS1))
	} else { // __kernel_cos(rh, rl)
		r := float64(z*(ewCosC1+float64(z*(ewCosC2+float64(z*ewCosC3))))) + float64(float64(w*w)*(ewCosC4+float64(z*(ewCosC5+float64(z*ewCosC6)))))
		hz := 0.5 * z
		c := 1 - hz
		v = c + (((1 - c) - hz) + (float64(z*r) - float64(rh*rl)))
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
