package ndarray

import "fmt"

// CumSum is NumPy's cumsum along axis (negative counts from the end; a 0-d
// array is treated as one element of a 1-D array, as NumPy does). Bool and
// signed integer inputs accumulate in int64, unsigned ones in uint64 (both
// wrapping, so the uint64 result is computed as int64); floats keep their type and
// accumulate sequentially in it, exactly as NumPy's add.accumulate.
func CumSum(a *Array, axis int) (*Array, error) { return cumulate("cumsum", false, a, axis) }

// CumProd is CumSum with multiplication.
func CumProd(a *Array, axis int) (*Array, error) { return cumulate("cumprod", true, a, axis) }

func cumulate(name string, prod bool, a *Array, axis int) (*Array, error) {
	if a == nil || !a.dtype.Valid() {
		return nil, fmt.Errorf("ndarray: %s: nil or invalid array", name)
	}
	if a.dtype == Float16 {
		// NumPy rounds the running value to float16 at every step.
		return nil, &DTypeError{Msg: fmt.Sprintf("ndarray: %s: not supported for float16; cast to float32 first", name)}
	}
	if a.NDim() == 0 {
		if axis != 0 && axis != -1 {
			return nil, fmt.Errorf("ndarray: %s: axis %d is out of bounds for array of dimension 1 (0-d input)", name, axis)
		}
		a = a.view([]int{1}, []int{0}, a.offset)
	}
	ax, err := NormAxis(axis, a.NDim())
	if err != nil {
		return nil, fmt.Errorf("ndarray: %s of array of shape %v: %w", name, a.shape, err)
	}
	odt := ReduceResultType(Sum, a.dtype)
	out := newArray(odt, a.shape)
	if out.Size() == 0 {
		return out, nil
	}
	switch a.dtype {
	case Float64:
		cumT[float64, float64](prod, a, ax, out)
	case Float32:
		cumT[float32, float32](prod, a, ax, out)
	case Int64:
		cumT[int64, int64](prod, a, ax, out)
	case Int32:
		cumT[int32, int64](prod, a, ax, out)
	case Int8:
		cumT[int8, int64](prod, a, ax, out)
	case Int16:
		cumT[int16, int64](prod, a, ax, out)
	case Uint8:
		cumT[uint8, int64](prod, a, ax, out)
	case Uint16:
		cumT[uint16, int64](prod, a, ax, out)
	case Uint32:
		cumT[uint32, int64](prod, a, ax, out)
	case Uint64:
		cumT[uint64, int64](prod, a, ax, out)
	case Bool:
		cumT[uint8, int64](prod, a, ax, out)
	case Complex64:
		cumC[complex64](prod, a, ax, out, round32)
	case Complex128:
		cumC[complex128](prod, a, ax, out, round64)
	}
	return out, nil
}

// cumC is cumT for complex types: products are NumPy's textbook one with
// each step rounded by r to the parts' precision (cMul: Go computes a
// complex64 product in float64, which does not overflow where NumPy's
// float32 steps do), and sums add part by part.
func cumC[C ewComplex](prod bool, a *Array, ax int, out *Array, r cRound) {
	in, o := typedAll[C](a), typedAll[C](out)
	L, st := a.shape[ax], a.strides[ax]
	base, _ := a.Index(ax, 0)
	obase, _ := out.Index(ax, 0)
	ost := out.strides[ax]
	ForEachRun([]*Array{base, obase}, base.shape, func(offs []int, n int, sts []int) {
		for i := 0; i < n; i++ {
			io, oo := base.offset+offs[0]+i*sts[0], obase.offset+offs[1]+i*sts[1]
			acc := in[io]
			o[oo] = acc
			for j := 1; j < L; j++ {
				if prod {
					x := in[io+j*st]
					re, im := cMul(real(complex128(acc)), imag(complex128(acc)), real(complex128(x)), imag(complex128(x)), r)
					acc = C(complex(re, im))
				} else {
					acc += in[io+j*st]
				}
				o[oo+j*ost] = acc
			}
		}
	})
}

// cumT writes the running sum or product of a along ax into the contiguous
// out. Along the last axis each lane is scanned in turn; along any other axis
// whole slices out[..., j, ...] = out[..., j-1, ...] op a[..., j, ...] are
// swept, so memory is read and written in order rather than with a stride.
func cumT[T redNum, A float64 | float32 | int64](prod bool, a *Array, ax int, out *Array) {
	in, o := typedAll[T](a), typedAll[A](out)
	L, st, ost := a.shape[ax], a.strides[ax], out.strides[ax]
	base, _ := a.Index(ax, 0)
	obase, _ := out.Index(ax, 0)
	if ax == a.NDim()-1 {
		ForEachRun([]*Array{base, obase}, base.shape, func(offs []int, n int, sts []int) {
			for i := 0; i < n; i++ {
				io, oo := base.offset+offs[0]+i*sts[0], obase.offset+offs[1]+i*sts[1]
				lane := o[oo : oo+L]
				acc := A(in[io])
				lane[0] = acc
				for j := 1; j < L; j++ {
					if prod {
						acc *= A(in[io+j*st])
					} else {
						acc += A(in[io+j*st])
					}
					lane[j] = acc
				}
			}
		})
		return
	}
	for j := 0; j < L; j++ {
		sj := base.view(base.shape, base.strides, base.offset+j*st)
		oj := obase.view(obase.shape, obase.strides, obase.offset+j*ost)
		ForEachRun([]*Array{sj, oj}, base.shape, func(offs []int, n int, sts []int) {
			io, oo := sj.offset+offs[0], oj.offset+offs[1]
			for i := 0; i < n; i++ {
				v, k := A(in[io+i*sts[0]]), oo+i*sts[1]
				switch {
				case j == 0:
				case prod:
					v = o[k-ost] * v
				default:
					v = o[k-ost] + v
				}
				o[k] = v
			}
		})
	}
}
