package ndarray

import "math"

// float16: IEEE half precision stored as its 16 bits. Conversions are
// exact in one direction and correctly rounded (to nearest, ties to even)
// in the other, from float64 directly so there is no double rounding, as
// NumPy's npy_double_to_half. Kernels compute in float32 and round each
// result once: Unary, Binary, Reduce and the moments convert float16
// operands to float32 on entry and their float16 results back.

// HalfToFloat64 is the value of the half-precision bits h (exact; a NaN
// keeps its sign and the top of its payload).
func HalfToFloat64(h uint16) float64 {
	sign := uint32(h>>15) << 31
	exp, man := uint32(h>>10)&0x1f, uint32(h)&0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return float64(math.Float32frombits(sign | 0x7f800000 | man<<13))
	case exp == 0: // zero or subnormal: man·2^-24
		v := float64(man) * 0x1p-24
		if sign != 0 {
			v = -v
		}
		return v
	}
	return float64(math.Float32frombits(sign | (exp+112)<<23 | man<<13))
}

// Float64ToHalf rounds f to the nearest half-precision value, ties to
// even; beyond the largest half (65504) by half an ULP or more is infinity.
func Float64ToHalf(f float64) uint16 {
	b := math.Float64bits(f)
	sign := uint16(b>>48) & 0x8000
	if f != f {
		// NumPy keeps the top ten payload bits and never makes an infinity.
		m := uint16(b>>42) & 0x3ff
		if m == 0 {
			m = 0x200
		}
		return sign | 0x7c00 | m
	}
	a := math.Abs(f)
	switch {
	case a >= 65520: // rounds up past 65504
		return sign | 0x7c00
	case a < 0x1p-14: // subnormal: a multiple of 2^-24, rounded
		return sign | uint16(math.RoundToEven(a*0x1p24))
	}
	_, e := math.Frexp(a)                              // a = fr·2^e, fr in [0.5, 1)
	m := uint16(math.RoundToEven(math.Ldexp(a, 11-e))) // 1024..2048
	exp := uint16(e - 1 + 15)
	if m == 2048 {
		m, exp = 1024, exp+1
	}
	return sign | exp<<10 | (m - 1024)
}

// float32ToHalf is Float64ToHalf(float64(f)) on the bits of f, a few
// times faster: the float32 rounding kernels' results take this path.
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	e, mant := (b>>23)&0xff, b&0x7fffff
	switch {
	case e == 0xff && mant != 0: // NaN: quiet, the top payload bits kept, as Float64ToHalf after float64(f)
		return sign | 0x7e00 | uint16(mant>>13)
	case e >= 143: // 65536 and beyond, infinity
		return sign | 0x7c00
	case e >= 113: // a normal half; the carry of rounding may reach infinity
		r := (e-112)<<10 | mant>>13
		if rem := mant & 0x1fff; rem > 0x1000 || (rem == 0x1000 && r&1 != 0) {
			r++
		}
		return sign | uint16(r)
	case e >= 102: // a subnormal half (or the smallest normal, rounded up)
		sig, shift := mant|0x800000, 126-e
		r, rem, half := sig>>shift, sig&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || (rem == half && r&1 != 0) {
			r++
		}
		return sign | uint16(r)
	}
	return sign // below half the smallest subnormal: zero
}

func ewHalfToF32Loop(d []float32, x []uint16) {
	x = x[:len(d)]
	for i := range d {
		d[i] = float32(HalfToFloat64(x[i]))
	}
}

func ewF64ToHalfLoop(d []uint16, x []float64) {
	x = x[:len(d)]
	for i := range d {
		d[i] = Float64ToHalf(x[i])
	}
}

func ewF32ToHalfLoop(d []uint16, x []float32) {
	x = x[:len(d)]
	for i := range d {
		d[i] = float32ToHalf(x[i])
	}
}

// ewCastHalf converts between float16 and any other dtype (one of src and
// out is float16, not both): through float32, which holds every half
// exactly, and from float64 directly. Integers convert to float64 first,
// exact below 2^53 and far beyond the half range anyway.
func ewCastHalf(out, a *Array) {
	switch {
	case a.dtype == Float16 && out.dtype == Float32:
		ewUnaryRun(ewHalfToF32Loop, out, a)
	case a.dtype == Float16:
		f := newArray(Float32, a.shape)
		ewUnaryRun(ewHalfToF32Loop, f, a)
		ewCastInto(out, f)
	case a.dtype == Float64:
		ewUnaryRun(ewF64ToHalfLoop, out, a)
	case a.dtype == Float32:
		ewUnaryRun(ewF32ToHalfLoop, out, a)
	default:
		f := newArray(Float64, a.shape)
		ewCastInto(f, a)
		ewUnaryRun(ewF64ToHalfLoop, out, f)
	}
}

// single is a itself, or its float32 copy when it is float16: what the
// float16 kernels compute on.
func single(a *Array) *Array {
	if a.dtype == Float16 {
		return a.Astype(Float32)
	}
	return a
}

// toHalf rounds a float32 (or float64) result to float16 when want is
// float16, and returns it unchanged otherwise.
func toHalf(r *Array, want DType) *Array {
	if want == Float16 && r.dtype != Float16 {
		return r.Astype(Float16)
	}
	return r
}

// halfNextAfter is the float16 next to x toward y, on the bits, as
// NumPy's half loop of nextafter gives it.
func halfNextAfter(x, y uint16) uint16 {
	fx, fy := HalfToFloat64(x), HalfToFloat64(y)
	switch {
	case fx != fx || fy != fy:
		return 0x7e00
	case fx == fy:
		return y
	case fx == 0:
		if fy > 0 {
			return 1
		}
		return 0x8001
	}
	if (fx < fy) == (fx > 0) {
		return x + 1 // away from zero
	}
	return x - 1
}

// halfSpacing is np.spacing of a float16 as NumPy's half loop has it: the
// distance to the next half up (toward +inf, so positive for negative
// values too, unlike the float loops), 2**-24 for -0, NaN for NaN and
// the infinities, +inf past the largest half.
func halfSpacing(h uint16) uint16 {
	switch {
	case h&0x7c00 == 0x7c00:
		return 0x7e00
	case h == 0x7bff:
		return 0x7c00
	case h == 0x8000:
		return 0x0001
	case h&0x8000 != 0:
		return Float64ToHalf(HalfToFloat64(h-1) - HalfToFloat64(h))
	}
	return Float64ToHalf(HalfToFloat64(h+1) - HalfToFloat64(h))
}

// halfUnaryBits maps f over the float16 values of a (cast first) into a
// new float16 array.
func halfUnaryBits(a *Array, f func(uint16) uint16) *Array {
	x := a.Astype(Float16).Contiguous()
	out := newArray(Float16, a.shape)
	xs, d := typed[uint16](x)[x.offset:x.offset+x.Size()], typed[uint16](out)[:out.Size()]
	for i, v := range xs {
		d[i] = f(v)
	}
	return out
}

// halfBinaryBits maps f over the broadcast float16 values of a and b.
func halfBinaryBits(a, b *Array, shape []int, f func(x, y uint16) uint16) (*Array, error) {
	ab, err := a.Astype(Float16).BroadcastTo(shape)
	if err != nil {
		return nil, err
	}
	bb, err := b.Astype(Float16).BroadcastTo(shape)
	if err != nil {
		return nil, err
	}
	x, y := ab.Contiguous(), bb.Contiguous()
	out := newArray(Float16, shape)
	n := out.Size()
	xs, ys, d := typed[uint16](x)[x.offset:x.offset+n], typed[uint16](y)[y.offset:y.offset+n], typed[uint16](out)[:n]
	for i := range d {
		d[i] = f(xs[i], ys[i])
	}
	return out, nil
}
