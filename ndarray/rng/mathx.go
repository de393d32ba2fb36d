package rng

import "math"

// Box-Muller needs a logarithm and a cosine. math.Log and math.Cos are slow
// here (math.Log is 60% of a normal draw on amd64) and are not guaranteed to
// round identically on every architecture, which would break the promise
// that a seed gives bit-identical tensors on any worker. These are fdlibm's
// algorithms (as in musl and Go's own pure-Go math), specialised to the
// arguments Box-Muller produces, branch-free, with every product rounded by
// an explicit conversion so that no compiler fuses it into an FMA (the Go
// spec allows fusing x*y+z, even across statements, unless a conversion
// forces the rounding). Both are accurate to about one ulp.

// logUnit is ln(x) for x a positive normal float64 (Box-Muller passes
// x in [2^-53, 1]).
func logUnit(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
		ln2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
		lg1   = 6.666666666666735130e-01
		lg2   = 3.999999999940941908e-01
		lg3   = 2.857142874366239149e-01
		lg4   = 2.222219843214978396e-01
		lg5   = 1.818357216161805012e-01
		lg6   = 1.531383769920937332e-01
		lg7   = 1.479819860511658591e-01
	)
	// x = 2^k * (1+f) with 1+f in [sqrt(2)/2, sqrt(2)), found by integer
	// arithmetic on the bits instead of a data-dependent branch.
	ix := math.Float64bits(x)
	ix += (0x3ff00000 - 0x3fe6a09e) << 32
	k := int64(ix>>52) - 0x3ff
	ix = ix&0x000fffffffffffff + 0x3fe6a09e<<32
	f := math.Float64frombits(ix) - 1

	hfsq := float64(float64(0.5*f) * f)
	s := f / (2 + f)
	z := float64(s * s)
	w := float64(z * z)
	t1 := float64(w * (lg2 + float64(w*(lg4+float64(w*lg6)))))
	t2 := float64(z * (lg1 + float64(w*(lg3+float64(w*(lg5+float64(w*lg7)))))))
	r := t2 + t1
	dk := float64(k)
	return float64(float64(float64(float64(s*(hfsq+r))+float64(dk*ln2Lo))-hfsq)+f) + float64(dk*ln2Hi)
}

// cos2pi is cos(2π m/2^53) for m < 2^53, reduced exactly in integers to an
// angle in [-π/4, π/4] around the nearest quarter turn.
func cos2pi(m uint64) float64 {
	const (
		s1 = -1.66666666666666324348e-01
		s2 = 8.33333333332248946124e-03
		s3 = -1.98412698298579493134e-04
		s4 = 2.75573137070700676789e-06
		s5 = -2.50507602534068634195e-08
		s6 = 1.58969099521155010221e-10
		c1 = 4.16666666666666019037e-02
		c2 = -1.38888888888741095749e-03
		c3 = 2.48015872894767294178e-05
		c4 = -2.75573143513906633035e-07
		c5 = 2.08757232129817482790e-09
		c6 = -1.13596475577881948265e-11
		// 2π/2^53: the angle of one unit of m.
		unit = 2 * math.Pi / (1 << 53)
	)
	q := (m + 1<<50) >> 51          // nearest quarter turn, 0..4
	r := int64(m) - int64(q<<51)    // remainder in [-2^50, 2^50]
	x := float64(float64(r) * unit) // |x| <= π/4
	z := float64(x * x)
	w := float64(z * z)
	// fdlibm __kernel_sin(x, 0, 0)
	sr := s2 + float64(z*(s3+float64(z*(s4+float64(z*(s5+float64(z*s6)))))))
	v := float64(z * x)
	sin := x + float64(v*(s1+float64(z*sr)))
	// fdlibm __kernel_cos(x, 0)
	cr := float64(z*(c1+float64(z*(c2+float64(z*c3))))) + float64(float64(w*w)*(c4+float64(z*(c5+float64(z*c6)))))
	hz := float64(0.5 * z)
	w = 1 - hz
	cos := w + ((1 - w - hz) + float64(z*cr))
	// cos(qπ/2 + x) is cos x, -sin x, -cos x, sin x for q = 0, 1, 2, 3:
	// select and negate on the bits, without branches.
	cb, sb := math.Float64bits(cos), math.Float64bits(sin)
	pick := -(q & 1) // all ones for odd q
	b := cb ^ (cb^sb)&pick
	b ^= ((q + 1) >> 1 & 1) << 63
	return math.Float64frombits(b)
}
