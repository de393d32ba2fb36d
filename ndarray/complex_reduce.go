package ndarray

import "fmt"

// Reductions of complex arrays, as NumPy 1.24 computes them: sum adds the
// real and imaginary parts separately (pairwise, like float sums), prod
// multiplies in order with NumPy's complex product, min/max and nanmin/
// nanmax fold maximum/minimum/fmax/fmin (lexicographic, NaN propagating or
// skipped), nansum and nanprod replace elements with a NaN part by 0 and 1
// (np.isnan of a complex is either part), and any/all/count_nonzero test
// for nonzero.

// complexReduce is Reduce for a complex array, red the reduced axes (at
// least one element per reduced lane for min and max, checked by Reduce),
// keep the result shape with reduced axes kept as 1.
func complexReduce(op ReduceOp, a *Array, red []bool, keep []int) (*Array, error) {
	var axes []int
	for ax, r := range red {
		if r {
			axes = append(axes, ax)
		}
	}
	switch op {
	case Any, All, CountNonzero:
		return Reduce(op, a.Astype(Bool), axes, true)
	case NanSum, NanProd:
		fill := complex(0, 0)
		if op == NanProd {
			fill = 1
		}
		nan, err := Unary(IsNaN, a)
		if err != nil {
			return nil, err
		}
		clean, err := Where(nan, ScalarComplex(a.dtype, fill), a)
		if err != nil {
			return nil, err
		}
		return complexReduce(op-NanSum+Sum, clean, red, keep)
	case Sum:
		if len(axes) == a.NDim() && a.IsContiguous() {
			// The whole array: one pairwise pass over the complex values.
			out := newArray(a.dtype, keep)
			var v complex128
			if a.dtype == Complex64 {
				v = cPairwise(typed[complex64](a)[:a.Size()])
			} else {
				v = cPairwise(typed[complex128](a)[:a.Size()])
			}
			out.SetComplexFlat(0, v)
			return out, nil
		}
		re, err := Reduce(Sum, complexPartView(a, false), axes, true)
		if err != nil {
			return nil, err
		}
		im, err := Reduce(Sum, complexPartView(a, true), axes, true)
		if err != nil {
			return nil, err
		}
		return complexFromParts(a.dtype, re, im), nil
	}
	var f func(x, y complex128) complex128
	r := round64
	if a.dtype == Complex64 {
		r = round32
	}
	first := true // min/max start from each lane's first element
	switch op {
	case Prod:
		first = false
		f = func(x, y complex128) complex128 { return complex(cMul(real(x), imag(x), real(y), imag(y), r)) }
	case Min, Max, NanMin, NanMax:
		bop := map[ReduceOp]BinaryOp{Min: Minimum, Max: Maximum, NanMin: Fmin, NanMax: Fmax}[op]
		f = complexFold(bop)
	default:
		return nil, fmt.Errorf("ndarray: %v: no loop for %v", op, a.dtype)
	}
	// Reduced axes last, then one lane per row.
	var perm []int
	for ax, r := range red {
		if !r {
			perm = append(perm, ax)
		}
	}
	perm = append(perm, axes...)
	t, err := a.Transpose(perm...)
	if err != nil {
		return nil, err
	}
	c := t.Astype(Complex128) // contiguous, in the transposed order
	vals := typed[complex128](c)
	m := Size(keep)
	k := 0
	if m > 0 {
		k = c.Size() / m
	}
	out := newArray(a.dtype, keep)
	for i := range m {
		lane := vals[i*k : (i+1)*k]
		acc := complex(1, 0)
		if first {
			acc, lane = lane[0], lane[1:]
		}
		for _, v := range lane {
			acc = f(acc, v)
		}
		out.SetComplexFlat(i, acc)
	}
	return out, nil
}

// complexFold is the scalar function of maximum, minimum, fmax or fmin on
// complex numbers (nil for other ops): the elementwise loops and the
// min/max reductions both use it.
func complexFold(op BinaryOp) func(x, y complex128) complex128 {
	// NumPy: for maximum/minimum a nan in the first operand propagates,
	// else a nan in the second does (the comparison is false); fmax/fmin
	// take the other operand over a nan.
	switch op {
	case Maximum:
		return func(x, y complex128) complex128 {
			if cIsNaN(x) || cGE(x, y) {
				return x
			}
			return y
		}
	case Minimum:
		return func(x, y complex128) complex128 {
			if cIsNaN(x) || cLE(x, y) {
				return x
			}
			return y
		}
	case Fmax:
		return func(x, y complex128) complex128 {
			if cIsNaN(y) || cGE(x, y) {
				return x
			}
			return y
		}
	case Fmin:
		return func(x, y complex128) complex128 {
			if cIsNaN(y) || cLE(x, y) {
				return x
			}
			return y
		}
	}
	return nil
}

// complexFromParts is the complex array of type dt with real part re and
// imaginary part im (same shape, any real dtype).
func complexFromParts(dt DType, re, im *Array) *Array {
	out := newArray(dt, re.shape)
	r, i := re.Astype(Float64), im.Astype(Float64)
	rs, is := typed[float64](r), typed[float64](i)
	for j := range out.Size() {
		out.SetComplexFlat(j, complex(rs[j], is[j]))
	}
	return out
}

// complexCombine is Combine for complex partials: sums add, products
// multiply, min/max fold as in complexReduce.
func complexCombine(op ReduceOp, parts []*Array) (*Array, error) {
	var bop BinaryOp
	switch op {
	case Sum, NanSum:
		bop = Add
	case Prod, NanProd:
		bop = Mul
	case Min:
		bop = Minimum
	case Max:
		bop = Maximum
	case NanMin:
		bop = Fmin
	case NanMax:
		bop = Fmax
	default:
		return nil, fmt.Errorf("ndarray: combine %v: no loop for %v", op, parts[0].dtype)
	}
	acc := parts[0]
	for _, p := range parts[1:] {
		r, err := Binary(bop, acc, p)
		if err != nil {
			return nil, err
		}
		acc = r
	}
	if len(parts) == 1 {
		acc = acc.Copy()
	}
	return acc, nil
}

// cPairwise is the pairwise sum of s in complex128 (complex64 values too,
// rounded once by the caller, as float32 sums are), each part summed as
// NumPy's pairwise_sum does: eight running sums over blocks of up to 128
// elements, halves of longer runs summed recursively.
func cPairwise[C ewComplex](s []C) complex128 {
	n := len(s)
	switch {
	case n < 8:
		var acc complex128
		for _, v := range s {
			acc += complex128(v)
		}
		return acc
	case n <= 128:
		var r [8]complex128
		for i := range r {
			r[i] = complex128(s[i])
		}
		i := 8
		for ; i+8 <= n; i += 8 {
			for j := range r {
				r[j] += complex128(s[i+j])
			}
		}
		acc := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			acc += complex128(s[i])
		}
		return acc
	}
	h := n / 2
	h -= h % 8
	return cPairwise(s[:h]) + cPairwise(s[h:])
}
