package ndarray

import "math"

// ---- natural logarithm (fdlibm's e_log.c, with FMAs) ----

// fdlibm's ln 2 in two parts (the first with its low 32 bits zero, so k*hi
// is exact for the k of any double) and its polynomial for
// log(1+f) = 2s + s*R(s²), s = f/(2+f).
const (
	ewLogLn2Hi = 6.93147180369123816490e-01 // 0x3FE62E42FEE00000
	ewLogLn2Lo = 1.90821492927058770002e-10 // 0x3DEA39EF35793C76
	ewLogL1    = 6.666666666666735130e-01   // 0x3FE5555555555593
	ewLogL2    = 3.999999999940941908e-01   // 0x3FD999999997FA04
	ewLogL3    = 2.857142874366239149e-01   // 0x3FD2492494229359
	ewLogL4    = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
	ewLogL5    = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
	ewLogL6    = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
	ewLogL7    = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244
)

// ewLog is the natural logarithm within 1 ULP of the exact value (fdlibm's
// bound for its algorithm; TestLogAccuracy measures it: 0.8388 ULP at most
// over 3e8 arguments), for normal positive x the same bits as the AVX-512
// loop of log_amd64.s: e_log.c's log(1+f) = f - (f²/2 - s(f²/2 + R)) after
// ewLogParts, k*ln2 added in two parts, an FMA joining s*(f²/2 + R) with
// k*ln2_lo.
func ewLog(x float64) float64 {
	if v, ok := ewLogSpecial(x); ok {
		return v
	}
	dk, f, s, hfsq, r := ewLogParts(x)
	return float64(dk*ewLogLn2Hi) - ((hfsq - math.FMA(s, hfsq+r, float64(dk*ewLogLn2Lo))) - f)
}

// ewLog1p is log(1+x) within 1 ULP of the exact value (TestLogAccuracy:
// 0.8470 ULP at most over 3e8 arguments), for x > -1 with |x| >= 2**-54
// and finite the same bits as the AVX-512 loop of log_amd64.s. u = 1 + x is rounded, c = 1 + x - u exactly (a
// two-sum), and log(1+x) = log u + log(1 + c/u) = log u + c/u to far below
// an ULP (|c/u| <= 2**-53): ewLog's evaluation of log u with c/u joined to
// k*ln2_lo, as FreeBSD's s_log1p.c joins its correction. For |x| < 2**-54
// log1p(x) rounds to x itself (±0 included).
func ewLog1p(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x == -1:
		return math.Inf(-1)
	case x < -1:
		return math.NaN()
	case math.Abs(x) < 0x1p-54:
		return x
	}
	u := 1 + x
	bb := u - 1
	c := (1 - (u - bb)) + (x - bb)
	dk, f, s, hfsq, r := ewLogParts(u)
	return float64(dk*ewLogLn2Hi) - ((hfsq - math.FMA(s, hfsq+r, float64(dk*ewLogLn2Lo)+c/u)) - f)
}

// ewLog1pLoop is the float64 log1p loop, with direct calls.
func ewLog1pLoop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewLog1p(x[i])
	}
}

// ewLogParts splits a positive finite x as fdlibm's logarithms do:
// x = 2**k * m with m in [√2/2, √2), taken from the bits (the high word
// plus 1 - √2/2 carries into the exponent exactly when m would be √2 or
// more; subnormals are normalised first), f = m - 1, s = f/(2+f),
// hfsq = f²/2 and R = R(s²) of log(1+f) = f - hfsq + s(hfsq + R), R
// evaluated with FMAs. The conversions round each product, as the vector
// loops do: the compiler may not fuse them into the sums.
func ewLogParts(x float64) (dk, f, s, hfsq, r float64) {
	ix := math.Float64bits(x)
	k := 0
	if ix < 0x0010000000000000 {
		ix = math.Float64bits(x * 0x1p52)
		k = -52
	}
	ix += 0x3ff0000000000000 - 0x3fe6a09e00000000
	k += int(ix>>52) - 0x3ff
	f = math.Float64frombits(ix&(1<<52-1)+0x3fe6a09e00000000) - 1
	s = f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	tz := float64(s2 * math.FMA(s4, math.FMA(s4, math.FMA(s4, ewLogL7, ewLogL5), ewLogL3), ewLogL1))
	tw := float64(s4 * math.FMA(s4, math.FMA(s4, ewLogL6, ewLogL4), ewLogL2))
	return float64(k), f, s, float64(float64(0.5*f) * f), tz + tw
}

// 1/ln 2 in two parts, the first with its low 32 bits zero (FreeBSD's
// e_log2.c).
const (
	ewLog2InvHi = 1.44269504072144627571e+00 // 0x3FF7154765200000
	ewLog2InvLo = 1.67517131648865118353e-10 // 0x3DE705FC2EEFA200
)

// ewLog2 is log2 within 1 ULP of the exact value (0.8387 ULP at most over
// 3e8 arguments) and exact at powers of two (TestLogAccuracy,
// TestUfuncExactValues), for normal positive x the
// same bits as the AVX-512 loop of log_amd64.s. It is FreeBSD's e_log2.c
// after ewLogParts: log(1+f) = hi + lo with hi the high word of f - f²/2,
// each part times 1/ln2 in two parts, and k added by a two-sum, so no
// cancellation near 1 and k + 0 exactly at powers of two. (Go's math.Log2
// cancels near 1.)
func ewLog2(x float64) float64 {
	if v, ok := ewLogSpecial(x); ok {
		return v
	}
	dk, f, s, hfsq, r := ewLogParts(x)
	r = float64(s * (hfsq + r))
	hi := math.Float64frombits(math.Float64bits(f-hfsq) &^ (1<<32 - 1))
	lo := ((f - hi) - hfsq) + r
	valHi := float64(hi * ewLog2InvHi)
	valLo := float64((lo+hi)*ewLog2InvLo) + float64(lo*ewLog2InvHi)
	w := dk + valHi
	valLo += (dk - w) + valHi
	return valLo + w
}

// ewLog2Loop is the float64 log2 loop, with direct calls.
func ewLog2Loop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewLog2(x[i])
	}
}

// ewLogLoop is the float64 log loop, with direct calls.
func ewLogLoop(d, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewLog(x[i])
	}
}
