package ndarray

import "math"

// Scalar math for the ufuncs of ufunc.go. Where Go's math package is less
// accurate than the C library NumPy calls, or wrong (asin and acos near ±1,
// log2 near 1, log10 of powers of ten, exp, sinh and cosh just below
// overflow, atan2 when y/x underflows, hypot's last bit), the functions here
// follow the C algorithms instead. Explicit float64(...) conversions keep
// products from being fused into FMAs, so the results are the same on every
// platform.

// ---- inverse trigonometric (fdlibm e_asin.c, e_acos.c, as in FreeBSD's libm) ----

const (
	ewPio2Hi = 1.57079632679489655800e+00 // 0x3FF921FB54442D18
	ewPio2Lo = 6.12323399573676603587e-17 // 0x3C91A62633145C07
	ewPio4Hi = 7.85398163397448278999e-01 // 0x3FE921FB54442D18
	ewPiHi   = 3.14159265358979311600e+00 // 0x400921FB54442D18
)

// ewAsinR is fdlibm's rational approximation of (asin(x)-x)/x in t = x*x.
func ewAsinR(t float64) float64 {
	const (
		pS0 = 1.66666666666666657415e-01
		pS1 = -3.25565818622400915405e-01
		pS2 = 2.01212532134862925881e-01
		pS3 = -4.00555345006794114027e-02
		pS4 = 7.91534994289814532176e-04
		pS5 = 3.47933107596021167570e-05
		qS1 = -2.40339491173441421878e+00
		qS2 = 2.02094576023350569471e+00
		qS3 = -6.88283971605453293030e-01
		qS4 = 7.70381505559019352791e-02
	)
	p := t * (pS0 + t*(pS1+t*(pS2+t*(pS3+t*(pS4+t*pS5)))))
	q := 1 + t*(qS1+t*(qS2+t*(qS3+t*qS4)))
	return p / q
}

// ewAsin is arcsin, within 1 ULP (Go's math.Asin loses up to hundreds of ULPs
// near ±1, where it takes sqrt(1 - x*x)).
func ewAsin(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case ax >= 1:
		if ax == 1 {
			return float64(x*ewPio2Hi) + float64(x*ewPio2Lo)
		}
		return math.NaN() // |x| > 1 and NaN
	case ax < 0.5:
		if ax < 0x1p-26 {
			return x
		}
		return x + float64(x*ewAsinR(x*x))
	}
	t := (1 - ax) * 0.5
	r := ewAsinR(t)
	s := math.Sqrt(t)
	var v float64
	if ax >= 0.9749999046325684 { // fdlibm's 0x3FEF3333
		v = ewPio2Hi - (2*(s+float64(s*r)) - ewPio2Lo)
	} else {
		w := math.Float64frombits(math.Float64bits(s) &^ 0xffffffff)
		c := (t - float64(w*w)) / (s + w)
		p := float64(2*s*r) - (ewPio2Lo - 2*c)
		q := ewPio4Hi - 2*w
		v = ewPio4Hi - (p - q)
	}
	if x < 0 {
		return -v
	}
	return v
}

// ewAcos is arccos, within 1 ULP (Go's math.Acos is pi/2 - asin(x), which
// cancels near 1).
func ewAcos(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case ax >= 1:
		if x == 1 {
			return 0
		}
		if x == -1 {
			return ewPiHi + 2*ewPio2Lo
		}
		return math.NaN()
	case ax < 0.5:
		if ax < 6.938900521352129e-18 { // fdlibm's high word <= 0x3c600000
			return ewPio2Hi + ewPio2Lo
		}
		r := ewAsinR(x * x)
		return ewPio2Hi - (x - (ewPio2Lo - float64(x*r)))
	case x < 0:
		z := (1 + x) * 0.5
		r := ewAsinR(z)
		s := math.Sqrt(z)
		w := float64(r*s) - ewPio2Lo
		return ewPiHi - 2*(s+w)
	}
	z := (1 - x) * 0.5
	s := math.Sqrt(z)
	df := math.Float64frombits(math.Float64bits(s) &^ 0xffffffff)
	c := (z - float64(df*df)) / (s + df)
	r := ewAsinR(z)
	w := float64(r*s) + c
	return 2 * (df + w)
}

// ewAtanP are the coefficients of P, atan(u) = u + u**3 P(u*u) for
// |u| <= 1/2: the degree-13 interpolant at Chebyshev nodes of
// (atan(u) - u)/u**3 in u*u, computed at 300 bits and rounded: within
// 0.05 * 2**-53 of atan(u), relative, coefficients rounded.
var ewAtanP = [14]float64{
	-0.3333333333333333,   // 0xbfd5555555555555
	0.19999999999999968,   // 0x3fc999999999998e
	-0.14285714285706202,  // 0xbfc2492492491932
	0.11111111110278944,   // 0x3fbc71c71c68a0c5
	-0.0909090904607358,   // 0xbfb745d172701e87
	0.07692306240562284,   // 0x3fb3b13ad5571f07
	-0.06666636087824868,  // 0xbfb1110befb7253c
	0.05881913328517996,   // 0x3fae1d8a9bad8600
	-0.05258718904277028,  // 0xbfaaecb542412942
	0.04729953834332562,   // 0x3fa837a52499d8b8
	-0.041833386159884724, // 0xbfa56b2f82e012dd
	0.03398634344047341,   // 0x3fa166a8732cc738
	-0.021682234961125823, // 0xbf9633de283fb773
	0.007656295362176976,  // 0x3f7f5c3523066ab0
}

// The angle atan2 adds to ±atan(u), double-double, by case: k = (x < 0) +
// 2*swap (|y| > |x|) + 4*reduced (min/max > 1/2, where u = (max-min)/(max+min)
// and atan(min/max) = pi/4 - atan(u)); ewAtanNeg says when atan(u) is
// subtracted.
var (
	ewAtanBaseHi = [8]float64{0, ewPiHi, ewPio2Hi, ewPio2Hi, ewPio4Hi, ew3Pio4Hi, ewPio4Hi, ew3Pio4Hi}
	ewAtanBaseLo = [8]float64{0, ewAtanPiLo, ewAtanPiO2Lo, ewAtanPiO2Lo, ewAtanPiO4Lo, ew3Pio4Lo, ewAtanPiO4Lo, ew3Pio4Lo}
	ewAtanNeg    = [8]bool{false, true, true, false, true, false, false, true}
)

// pi/2, pi, pi/4 and 3pi/4 in double-double.
const (
	ewAtanPiO2Lo = 6.123233995736766e-17  // 0x3C91A62633145C07
	ewAtanPiLo   = 1.2246467991473532e-16 // 0x3CA1A62633145C07
	ewAtanPiO4Lo = 3.061616997868383e-17  // 0x3C81A62633145C07
	ew3Pio4Hi    = 2.356194490192345      // 0x4002D97C7F3321D2
	ew3Pio4Lo    = 9.184850993605148e-17  // 0x3C9A79394C9E8A0A
)

// ewAtan2 is arctan2(y, x) within 1 ULP of the exact value: 0.75 ULP at
// most over 1e8 arguments of TestTranscAccuracy (0.76 for arctan; against
// a double-double reference), where Go's math.Atan (Cephes) is up to 1.14 ULPs off and
// fdlibm's atan2 around it up to 1.58. The AVX-512 loop of transc_amd64.s does these operations
// lane by lane, with the same bits.
//
// n/d = min(|x|,|y|)/max(|x|,|y|), or (d-n)/(d+n) when n > d/2 (then
// atan(n/d) = pi/4 - atan of it), is formed as a double-double t + tl from
// a reciprocal, a product and an FMA residual, with n and d scaled by
// 2**∓600 where 1/d or the residual would leave the normal range. With
// |t| <= 1/2, atan(t + tl) = t + s, s = t*z*P(z) + tl/(1+z) and z = t*t,
// where |s| <= t/12 keeps s's own roundings below 0.3 ULP; t + s is carried
// as a double-double into the addition of the case's multiple of pi/4
// (double-double too), so the last rounding is the only large one. Signed
// zeros, infinities and NaN follow C99 Annex F, as NumPy's do
// (ewAtan2Special).
func ewAtan2(y, x float64) float64 {
	ay, ax := math.Abs(y), math.Abs(x)
	if !(ax > 0 && ay > 0 && ax <= math.MaxFloat64 && ay <= math.MaxFloat64) {
		return ewAtan2Special(y, x) // zeros, infinities, NaN
	}
	n, d := ay, ax
	k := 0
	if x < 0 {
		k = 1
	}
	if ay > ax {
		n, d = ax, ay
		k += 2
	}
	if d > 0x1p900 {
		n, d = n*0x1p-600, d*0x1p-600
	}
	if n < 0x1p-900 && d < 0x1p300 { // else n/d < 2**-1200: 0 once rounded
		n, d = n*0x1p600, d*0x1p600
	}
	// u = num/(den + dl), |u| <= 1/2: n/d, or (d-n)/(d+n) above 1/2.
	num, den, dl := n, d, 0.0
	if n > 0.5*d {
		num, den = d-n, d+n // d-n exact: d/2 < n <= d
		dl = (d - den) + n  // exact
		k += 4
	}
	if ewAtanNeg[k] {
		// atan is odd and every operation below is symmetric in sign, so
		// negating the numerator negates t, tl and atan(u) = h1 + lo exactly.
		num = -num
	}
	inv := 1 / den
	t := num * inv
	tl := math.FMA(-t, dl, math.FMA(-t, den, num)) * inv // the inner FMA is exact
	// atan(t + tl) = t + s, s = t*z*P(z) + tl/(1+z) with z = t*t: |s| <=
	// |t|/12, so the roundings in s cost at most 0.2 ULP. tl needs only a
	// few correct bits: tl*(1-z) is within z*z <= 1/16 of tl/(1+z), under
	// 0.03 ULP of the result.
	z := t * t
	w := z * z // P(z) = even(w) + z*odd(w), two short chains
	po, pe := ewAtanP[13], ewAtanP[12]
	for i := 11; i >= 1; i -= 2 {
		po = math.FMA(po, w, ewAtanP[i])
		pe = math.FMA(pe, w, ewAtanP[i-1])
	}
	p := math.FMA(po, z, pe)
	s := math.FMA(float64(t*z), p, math.FMA(-tl, z, tl))
	h1 := t + s
	lo := (t - h1) + s // exact: |s| < |t|; atan(u) = h1 + lo
	bh := ewAtanBaseHi[k]
	h := bh + h1
	e := (bh - h) + h1 // exact: |bh| >= |h1| or bh = 0
	return math.Copysign(h+((e+ewAtanBaseLo[k])+lo), y)
}

// ewAtan is arctan: atan2(x, 1), which the same function computes within
// 1 ULP (Go's math.Atan is up to 1.14 ULPs off).
func ewAtan(x float64) float64 { return ewAtan2(x, 1) }

// ewAtan2Special is ewAtan2 where x or y is zero, infinite or NaN.
func ewAtan2Special(y, x float64) float64 {
	const (
		piO4 = 7.8539816339744827900e-01
		piO2 = 1.5707963267948965580e+00
	)
	if x != x || y != y {
		return x + y
	}
	var z float64 // the angle for y >= 0
	switch ay, ax := math.Abs(y), math.Abs(x); {
	case ay == 0:
		if !math.Signbit(x) {
			return y // atan2(±0, x >= +0) = ±0
		}
		z = ewPiHi
	case ax == 0:
		z = piO2
	case math.IsInf(ax, 0):
		switch {
		case math.IsInf(ay, 0) && x > 0:
			z = piO4
		case math.IsInf(ay, 0):
			z = 3 * piO4
		case x > 0:
			z = 0
		default:
			z = ewPiHi
		}
	default: // y infinite, x finite
		z = piO2
	}
	if math.Signbit(y) {
		return -z
	}
	return z
}

// ---- exponential ----

// ewExp is e**x by glibc's algorithm (the exp core of pow, ewPowExp) with a
// table of 2^(j/16) instead of 2^(j/128) and a polynomial of degree 7
// instead of 5: sixteen entries fit in two vector registers, so the AVX-512
// loop looks them up with permutes instead of gathers, which cost it two
// thirds of its time. Within 0.57 ULP (TestExpSinAccuracy). Go's math.Exp on
// amd64 returns +Inf from x = 709.44 on, although results up to x = 709.78
// are finite (NumPy's exp(709.5) is 1.35e308).
func ewExp(x float64) float64 {
	const (
		invLn2N   = 0x1.71547652b82fep0 * 16
		negLn2hiN = -0x1.62e42fefa0000p-5 // 36 bits: kd*negLn2hiN is exact
		negLn2loN = -0x1.cf79abc9e3b3ap-44
		shift     = 0x1.8p52
		// Taylor's 1/j!: for |r| <= ln2/32 the first omitted term is below
		// 2**-59 of the result.
		c2 = 0.5
		c3 = 0x1.5555555555555p-3
		c4 = 0x1.5555555555555p-5
		c5 = 0x1.1111111111111p-7
		c6 = 0x1.6c16c16c16c17p-10
		c7 = 0x1.a01a01a01a01ap-13
	)
	if x != x {
		return x
	}
	res, large, done := ewExpEdges(x)
	if done {
		return res
	}
	// exp(x) = 2^(k/16) * exp(r), |r| <= ln2/32.
	kd := math.FMA(x, invLn2N, shift)
	ki := math.Float64bits(kd)
	kd -= shift
	r := math.FMA(kd, negLn2hiN, x)
	r = math.FMA(kd, negLn2loN, r)
	idx := ki % 16
	tail := math.Float64frombits(ewExp16[idx])
	sbits := ewExp16[16+idx] + ki<<48
	r2 := r * r
	q := math.FMA(r2, math.FMA(r, c7, c6), math.FMA(r, c5, c4))
	tmp := math.FMA(r2, math.FMA(r, c3, c2), tail+r)
	tmp = math.FMA(r2*r2, q, tmp)
	if large {
		return ewPowExpSpecial(tmp, sbits, ki)
	}
	scale := math.Float64frombits(sbits)
	return math.FMA(scale, tmp, scale)
}

// ewExp16 is ewExp's table: the tails of 2^(j/16) for j = 0..15, then
// their scale bits, which are the entries 8j of ewExpTab's 2^(k/128).
var ewExp16 = func() (t [32]uint64) {
	for j := range 16 {
		t[j], t[16+j] = ewExpTab[16*j], ewExpTab[16*j+1]
	}
	return t
}()

// ---- hyperbolic (fdlibm e_sinh.c, e_cosh.c) ----

// ewSinh is sinh, finite up to the true overflow threshold (Go's math.Sinh
// overflows from exp(x) at 709.78 although sinh(710) is finite).
func ewSinh(x float64) float64 {
	ax := math.Abs(x)
	h := 0.5
	if math.Signbit(x) {
		h = -0.5
	}
	switch {
	case ax != ax || math.IsInf(ax, 0):
		return x + x
	case ax < 22:
		if ax < 0x1p-28 {
			return x
		}
		t := math.Expm1(ax)
		if ax < 1 {
			return h * (2*t - float64(t*t)/(t+1))
		}
		return h * (t + t/(t+1))
	case ax < 709.7822265625: // fdlibm's 0x40862E42, just below log(MaxFloat64)
		return h * ewExp(ax)
	case ax <= 710.4758600739439: // the overflow threshold
		w := ewExp(0.5 * ax)
		return float64(h*w) * w
	}
	return x * 1e307 // overflow
}

// ewCosh is cosh, finite up to the true overflow threshold.
func ewCosh(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case ax != ax || math.IsInf(ax, 0):
		return x * x
	case ax < 0.3465735912322998: // about 0.5*ln2, fdlibm's 0x3fd62e43
		t := math.Expm1(ax)
		w := 1 + t
		if ax < 0x1p-55 {
			return w
		}
		return 1 + float64(t*t)/(w+w)
	case ax < 22:
		t := ewExp(ax)
		return 0.5*t + 0.5/t
	case ax < 709.7822265625:
		return 0.5 * ewExp(ax)
	case ax <= 710.4758600739439:
		w := ewExp(0.5 * ax)
		return float64(0.5*w) * w
	}
	return math.Inf(1)
}

// ---- logarithms ----

// ewLogScaled returns log(x)*(chi+clo) for finite x > 0, from the
// double-double log of pow (about 68 bits) times a double-double constant:
// correctly rounded but for rare near-ties, and exact where the result is
// an integer (log2 of a power of two, log10 of a power of ten).
func ewLogScaled(x, chi, clo float64) float64 {
	ix := math.Float64bits(x)
	if ix>>52 == 0 { // subnormal: normalise, as pow does
		ix = math.Float64bits(x * 0x1p52)
		ix -= 52 << 52
	}
	hi, lo := ewPowLog(ix)
	p := hi * chi
	e := math.FMA(hi, chi, -p)
	return p + (e + float64(lo*chi) + float64(hi*clo))
}

func ewLogSpecial(x float64) (float64, bool) {
	switch {
	case x != x:
		return x, true
	case x < 0:
		return math.NaN(), true
	case x == 0:
		return math.Inf(-1), true
	case math.IsInf(x, 1):
		return x, true
	}
	return 0, false
}

// ewLog10 is log10 (Go's math.Log10(1000) is 2.9999999999999996).
func ewLog10(x float64) float64 {
	if v, ok := ewLogSpecial(x); ok {
		return v
	}
	return ewLogScaled(x, 0x1.bcb7b1526e50ep-2, 0x1.95355baaafad3p-57)
}

// NumPy's logaddexp and logaddexp2 (npy_math_internal.h), rounding to T
// where NumPy's float and double versions do: each elementary function's
// result, and the sums. (So float32 logaddexp2(0, -150) is 0, as exp2f(-150)
// is.)

func ewLogAddExp[T ewFloat](x, y T) T {
	if x == y { // also infinities of one sign
		return x + T(math.Ln2)
	}
	t := x - y
	switch {
	case t > 0:
		return x + T(math.Log1p(float64(T(ewExp(-float64(t))))))
	case t <= 0:
		return y + T(math.Log1p(float64(T(ewExp(float64(t))))))
	}
	return t // NaN
}

func ewLogAddExp2[T ewFloat](x, y T) T {
	if x == y {
		return x + 1
	}
	t := x - y
	switch {
	case t > 0:
		return x + T(math.Log2E)*T(math.Log1p(float64(T(math.Exp2(-float64(t))))))
	case t <= 0:
		return y + T(math.Log2E)*T(math.Log1p(float64(T(math.Exp2(float64(t))))))
	}
	return t
}

// ---- hypot (glibc 2.35+ e_hypot.c and e_hypotf.c, which NumPy calls) ----

// ewHypotKernel needs ax >= ay >= 0 with ax*ax, ay*ay and (ax-ay)^2 in
// range; it is glibc's correction of sqrt(ax*ax + ay*ay) without FMA
// (Borges, "An Improved Algorithm for hypot(a,b)", 2019).
func ewHypotKernel(ax, ay float64) float64 {
	h := math.Sqrt(float64(ax*ax) + float64(ay*ay))
	var t1, t2 float64
	if h <= 2*ay {
		delta := h - ay
		t1 = ax * (2*delta - ax)
		t2 = float64((delta - 2*(ax-ay)) * delta)
	} else {
		delta := h - ax
		t1 = 2 * delta * (ax - 2*ay)
		t2 = float64((4*delta-ay)*ay) + float64(delta*delta)
	}
	return h - (t1+t2)/(2*h)
}

// ewHypot is sqrt(x*x + y*y) without undue overflow or underflow, bit for
// bit glibc's (Go's math.Hypot is up to an ULP off).
func ewHypot(x, y float64) float64 {
	const (
		scale = 0x1p-600
		large = 0x1p+511
		tiny  = 0x1p-459
		eps   = 0x1p-54
	)
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	if x != x || y != y {
		return x + y
	}
	x, y = math.Abs(x), math.Abs(y)
	ax, ay := x, y
	if x < y {
		ax, ay = y, x
	}
	switch {
	case ax > large:
		if ay <= ax*eps {
			return ax + ay
		}
		return ewHypotKernel(ax*scale, ay*scale) / scale
	case ay < tiny:
		if ax >= ay/eps {
			return ax + ay
		}
		return ewHypotKernel(ax/scale, ay/scale) * scale
	case ay <= ax*eps:
		return ax + ay
	}
	return ewHypotKernel(ax, ay)
}

// ewHypot32 is glibc's hypotf: the float64 sum of squares, which is exact
// but for one rounding, rooted and rounded to float32.
func ewHypot32(x, y float32) float32 {
	if math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) {
		return float32(math.Inf(1))
	}
	if x != x || y != y {
		return x + y
	}
	a, b := float64(x), float64(y)
	return float32(math.Sqrt(float64(a*a) + float64(b*b)))
}

// ---- floating-point manipulation ----

func ewCopySign64(x, y float64) float64 { return math.Copysign(x, y) }

func ewCopySign32(x, y float32) float32 {
	return math.Float32frombits(math.Float32bits(x)&^(1<<31) | math.Float32bits(y)&(1<<31))
}

// ewNextAfter64 is C's nextafter: unlike Go's math.Nextafter it returns y
// when x == y, so nextafter(0.0, -0.0) is -0.0.
func ewNextAfter64(x, y float64) float64 {
	switch {
	case x != x || y != y:
		return x + y
	case x == y:
		return y
	case x == 0:
		return math.Copysign(math.Float64frombits(1), y)
	case (y > x) == (x > 0):
		return math.Float64frombits(math.Float64bits(x) + 1)
	}
	return math.Float64frombits(math.Float64bits(x) - 1)
}

// ewNextAfter32 is C's nextafterf.
func ewNextAfter32(x, y float32) float32 {
	switch {
	case x != x || y != y:
		return x + y
	case x == y:
		return y
	case x == 0:
		return ewCopySign32(math.Float32frombits(1), y)
	case (y > x) == (x > 0):
		return math.Float32frombits(math.Float32bits(x) + 1)
	}
	return math.Float32frombits(math.Float32bits(x) - 1)
}

// ewSpacing64 is NumPy's npy_spacing: the distance from x to the next
// float of larger magnitude, with x's sign (+min subnormal for ±0), NaN
// for infinities and NaN, ±Inf at ±MaxFloat64.
func ewSpacing64(x float64) float64 {
	b := math.Float64bits(x)
	switch {
	case math.IsInf(x, 0):
		return math.NaN()
	case x != x:
		return x
	case b&^(1<<63) == 0:
		return math.Float64frombits(1)
	}
	return math.Float64frombits(b+1) - x
}

func ewSpacing32(x float32) float32 {
	b := math.Float32bits(x)
	switch {
	case math.IsInf(float64(x), 0):
		return float32(math.NaN())
	case x != x:
		return x
	case b&^(1<<31) == 0:
		return math.Float32frombits(1)
	}
	return math.Float32frombits(b+1) - x
}

// ewLdexp is x * 2**e with e an integer carried in T (ldexp's inputs are
// cast to the mantissa's float type): exact but for one rounding into the
// subnormals. Exponents beyond ±2**20 give the same result as ±2**20.
func ewLdexp[T ewFloat](x, e T) T {
	f := float64(e)
	f = max(min(f, 1<<20), -(1 << 20))
	return T(math.Ldexp(float64(x), int(f)))
}

// ewHeaviside is NumPy's npy_heaviside: NaN for NaN, h0 at zero.
func ewHeaviside[T ewFloat](x, h0 T) T {
	switch {
	case x != x:
		return x
	case x == 0:
		return h0
	case x < 0:
		return 0
	}
	return 1
}

// ---- integers ----

// ewFmodInt is C's %, which NumPy's fmod is for integers, with x fmod 0 = 0.
// Go's % already gives MinInt % -1 = 0.
func ewFmodInt[T ewInt](x, y T) T {
	if y == 0 {
		return 0
	}
	return x % y
}

// ewUabs is |x| as an unsigned magnitude (2**63 for MinInt64).
func ewUabs[T ewInt](x T) uint64 {
	if x < 0 {
		return -uint64(int64(x))
	}
	return uint64(x)
}

func ewGcdU(a, b uint64) uint64 {
	for a != 0 {
		a, b = b%a, a
	}
	return b
}

// ewGcd is NumPy's npy_gcd: Euclid on the unsigned magnitudes, so
// gcd(MinInt, 0) is MinInt.
func ewGcd[T ewInt](x, y T) T { return T(ewGcdU(ewUabs(x), ewUabs(y))) }

// ewLcm is NumPy's npy_lcm: |x| / gcd * |y| in unsigned arithmetic,
// wrapping on overflow.
func ewLcm[T ewInt](x, y T) T {
	a, b := ewUabs(x), ewUabs(y)
	g := ewGcdU(a, b)
	if g == 0 {
		return 0
	}
	return T(a / g * b)
}

// ewLeftShift is NumPy's npy_lshift: 0 for shifts of the bit width or more,
// and for negative shifts (which C sees as huge unsigned ones). Go defines
// shifts by large unsigned counts the same way.
func ewLeftShift[T ewInt](x, y T) T { return x << uint64(y) }

// ewRightShift is npy_rshift: arithmetic, so -1 or 0 for large shifts.
func ewRightShift[T ewInt](x, y T) T { return x >> uint64(y) }
