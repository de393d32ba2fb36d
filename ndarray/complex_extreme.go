package ndarray

import (
	"math"
	"math/cmplx"
)

// Complex functions where math/cmplx overflows or cancels and glibc (whose
// csin, cacosh, ... NumPy calls) does not: sin, cos, sinh, cosh and exp of
// a part past exp's range (an infinite factor times sin or cos of zero is
// NaN in math/cmplx, zero in glibc), tan and tanh of a part past tanh's
// saturation (inf/inf), and the inverse functions, whose math/cmplx forms
// (log(iz + sqrt(1 - z²)) and kin) lose digits near the axes and overflow
// in z² from |z| = 1e154 on. The inverse functions here are Kahan's
// ("Branch cuts for complex elementary functions", 1987): real parts
// through asinh and atan2 of products of square roots, and log(2z) where
// 1 ± z² is z² to the last bit.

// expOverflow is the largest argument whose exp is finite, rounded down.
const expOverflow = 709

// halfExpTimes is s·exp(a)/2 for a >= 0, by steps so that exp(a) alone
// overflowing does not make it infinite, nor s = 0 make it NaN: what
// sinh(a) or cosh(a) times s is once a is past exp's range.
func halfExpTimes(a, s float64) float64 {
	if s == 0 {
		return s
	}
	if a <= expOverflow {
		return s * (math.Exp(a) / 2)
	}
	et := math.Exp(expOverflow)
	s *= et / 2
	a -= expOverflow
	if a > expOverflow {
		a -= expOverflow
		s *= et
	}
	if a > expOverflow {
		return s * math.MaxFloat64 // ±inf, with s's sign
	}
	return s * math.Exp(a)
}

// finite reports whether both parts of z are finite.
func finite(z complex128) bool {
	x, y := real(z), imag(z)
	return !math.IsInf(x, 0) && !math.IsNaN(x) && !math.IsInf(y, 0) && !math.IsNaN(y)
}

func cSinh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) || math.Abs(x) <= expOverflow {
		return cmplx.Sinh(z)
	}
	s, c := math.Sincos(y)
	return complex(math.Copysign(1, x)*halfExpTimes(math.Abs(x), c), halfExpTimes(math.Abs(x), s))
}

func cCosh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) || math.Abs(x) <= expOverflow {
		return cmplx.Cosh(z)
	}
	s, c := math.Sincos(y)
	return complex(halfExpTimes(math.Abs(x), c), math.Copysign(1, x)*halfExpTimes(math.Abs(x), s))
}

// sin z = -i sinh(iz), cos z = cosh(iz).
func cSin(z complex128) complex128 {
	if !finite(z) {
		return cmplx.Sin(z)
	}
	w := cSinh(complex(-imag(z), real(z)))
	return complex(imag(w), -real(w))
}

func cCos(z complex128) complex128 {
	if !finite(z) {
		return cmplx.Cos(z)
	}
	return cCosh(complex(-imag(z), real(z)))
}

func cExp(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) || x <= expOverflow {
		return cmplx.Exp(z)
	}
	s, c := math.Sincos(y)
	if y == 0 {
		s = y // exp(x ± 0i) keeps the zero's sign
	}
	return complex(halfExpTimes(x, 2*c), halfExpTimes(x, 2*s))
}

// tanhSaturated is the bound on |x| past which tanh(x + iy) is ±1 +
// i·4 sin y cos y e^(-2|x|), within a rounding of double: where cosh(2x)
// of math/cmplx's formula starts to overflow.
const tanhSaturated = 354

func cTanhFinite(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) {
		return cmplx.Tanh(z)
	}
	s, c := math.Sincos(y)
	if math.Abs(x) <= tanhSaturated {
		// (sinh x cosh x + i sin y cos y) / (sinh² x + cos² y): no 2y to
		// overflow, as math/cmplx's cosh 2x + cos 2y has.
		sh, ch := math.Sinh(x), math.Cosh(x)
		den := sh*sh + c*c
		return complex(sh*ch/den, s*c/den)
	}
	ax := math.Abs(x)
	im := 4 * s * c * math.Exp(-2*tanhSaturated)
	ax -= tanhSaturated
	if ax > tanhSaturated {
		im *= math.Exp(-2 * tanhSaturated)
	} else {
		im *= math.Exp(-2 * ax)
	}
	return complex(math.Copysign(1, x), im)
}

// large is the magnitude from which the inverse functions take their
// asymptotic forms: 1 ± z² rounds to z², and products of square roots
// of 1 ± z could overflow.
const large = 1 << 28

// largeAtanh is where atanh takes its asymptotic form: 1/z in its real
// part, ±π/2 to the last bit in the other.
const largeAtanh = 0x1p500

// atan2 is math.Atan2 with the sign of y kept when y/x underflows (Go's
// Atan2 divides first and loses it); C99 gives atan2 y's sign always.
func atan2(y, x float64) float64 { return math.Copysign(math.Atan2(y, x), y) }

// cLog is math/cmplx's Log with atan2's sign kept.
func cLog(z complex128) complex128 {
	return complex(math.Log(cmplx.Abs(z)), atan2(imag(z), real(z)))
}

// logTwice is log(2z) for a z of large magnitude, without overflow.
func logTwice(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex(math.Log(math.Hypot(x/2, y/2))+2*math.Ln2, atan2(y, x))
}

func cAsinhKahan(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) {
		return cAsinh(z)
	}
	if math.Abs(x) > large || math.Abs(y) > large {
		// asinh is odd: log(2z) on the right half-plane, -log(-2z) on the
		// left, the sign of a zero real part choosing.
		if math.Signbit(x) {
			w := logTwice(-z)
			return complex(-real(w), -imag(w))
		}
		return logTwice(z)
	}
	s1 := cmplx.Sqrt(complex(1+y, -x)) // sqrt(1 - iz)
	s2 := cmplx.Sqrt(complex(1-y, x))  // sqrt(1 + iz)
	re := math.Asinh(real(s1)*imag(s2) - real(s2)*imag(s1))
	im := atan2(y, real(s1)*real(s2)-imag(s1)*imag(s2))
	return complex(re, im)
}

// asin z = -i asinh(iz).
func cAsinKahan(z complex128) complex128 {
	w := cAsinhKahan(complex(-imag(z), real(z)))
	return complex(imag(w), -real(w))
}

func cAcosKahan(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) {
		return cmplx.Acos(z)
	}
	if math.Abs(x) > large || math.Abs(y) > large {
		// acos z = -i acosh(z) above the real axis, i acosh(z) below.
		w := logTwice(z)
		re, im := math.Abs(imag(w)), real(w)
		if !math.Signbit(y) {
			im = -im
		}
		return complex(re, im)
	}
	s1 := cmplx.Sqrt(complex(1-x, -y)) // sqrt(1 - z)
	s2 := cmplx.Sqrt(complex(1+x, y))  // sqrt(1 + z)
	re := 2 * atan2(real(s1), real(s2))
	im := math.Asinh(real(s2)*imag(s1) - imag(s2)*real(s1))
	return complex(re, im)
}

func cAcoshKahan(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) {
		return cAcosh(z)
	}
	if math.Abs(x) > large || math.Abs(y) > large {
		return logTwice(z)
	}
	s1 := cmplx.Sqrt(complex(x-1, y)) // sqrt(z - 1)
	s2 := cmplx.Sqrt(complex(x+1, y)) // sqrt(z + 1)
	re := math.Asinh(real(s1)*real(s2) + imag(s1)*imag(s2))
	im := 2 * atan2(imag(s1), real(s2))
	return complex(re, im)
}

func cAtanhKahan(z complex128) complex128 {
	x, y := real(z), imag(z)
	if !finite(z) {
		return cAtanh(z)
	}
	if math.Signbit(x) {
		w := cAtanhKahan(complex(-x, -y)) // atanh is odd
		return complex(-real(w), -imag(w))
	}
	ay := math.Abs(y)
	switch {
	case x > largeAtanh || ay > largeAtanh:
		// atanh z = 1/z + ... in its real part; ±π/2 in the other.
		h := math.Hypot(x/2, y/2)
		return complex(x/4/h/h, math.Copysign(math.Pi/2, y))
	case x == 1 && ay == 0:
		return cAtanh(z) // the pole: +inf, as math/cmplx and glibc have it
	case x == 1 && ay < 0x1p-511:
		// (1 - x)² + y² underflows: the real part is -log(sqrt(y/2))
		// to the last bit.
		re := -math.Log(math.Sqrt(ay) / math.Sqrt(math.Hypot(ay, 2)))
		return complex(re, math.Copysign(atan2(2, -ay)/2, y))
	}
	re := math.Log1p(4*x/((1-x)*(1-x)+ay*ay)) / 4
	im := -atan2(-2*y, (1-x)*(1+x)-ay*ay) / 2
	return complex(re, im)
}

// atan z = -i atanh(iz).
func cAtanKahan(z complex128) complex128 {
	w := cAtanhKahan(complex(-imag(z), real(z)))
	return complex(imag(w), -real(w))
}
