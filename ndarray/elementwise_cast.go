package ndarray

import (
	"fmt"
	"math"
)

// Astype returns a new contiguous array of type dt holding a's elements
// converted as NumPy's astype does: float to int truncates toward zero, with
// NaN, ±Inf and out-of-range values giving the integer minimum (NumPy's
// result on x86); integer narrowing wraps; nonzero (and NaN) becomes true.
// dt must be valid: an invalid dtype is a programming error and panics.
func (a *Array) Astype(dt DType) *Array {
	if !dt.Valid() {
		panic(fmt.Sprintf("ndarray: Astype to invalid dtype %v", dt))
	}
	out := newArray(dt, a.shape)
	ewCastInto(out, a)
	return out
}

// ewCastInto converts a into the new contiguous array out of the same shape.
func ewCastInto(out, a *Array) {
	src, dst := a.dtype, out.dtype
	switch {
	case src == dst:
		switch src.Size() {
		case 16:
			ewUnaryRun(ewCopyLoop[complex128], out, a)
		case 8:
			ewUnaryRun(ewCopyLoop[uint64], out, a)
		case 4:
			ewUnaryRun(ewCopyLoop[uint32], out, a)
		case 2:
			ewUnaryRun(ewCopyLoop[uint16], out, a)
		case 1:
			ewUnaryRun(ewCopyLoop[uint8], out, a)
		}
	case src.IsComplex() || dst.IsComplex():
		ewCastComplex(out, a)
	case src == Float16 || dst == Float16:
		ewCastHalf(out, a)
	case dst == Bool:
		switch src {
		case Float64:
			ewUnaryRun(ewToBoolLoop[float64], out, a)
		case Float32:
			ewUnaryRun(ewToBoolLoop[float32], out, a)
		case Int64:
			ewUnaryRun(ewToBoolLoop[int64], out, a)
		case Int32:
			ewUnaryRun(ewToBoolLoop[int32], out, a)
		case Int8:
			ewUnaryRun(ewToBoolLoop[int8], out, a)
		case Int16:
			ewUnaryRun(ewToBoolLoop[int16], out, a)
		case Uint8:
			ewUnaryRun(ewToBoolLoop[uint8], out, a)
		case Uint16:
			ewUnaryRun(ewToBoolLoop[uint16], out, a)
		case Uint32:
			ewUnaryRun(ewToBoolLoop[uint32], out, a)
		case Uint64:
			ewUnaryRun(ewToBoolLoop[uint64], out, a)
		}
	case src.IsFloat() && (dst == Int32 || dst == Int64):
		// Exclusive bounds of the values whose truncation fits: for int64
		// the float just below -2^63, since -2^63 itself fits.
		switch {
		case src == Float64 && dst == Int64:
			ewUnaryRun(ewFloatToIntLoop[float64, int64](ewLo64, ewHi64, math.MinInt64), out, a)
		case src == Float64 && dst == Int32:
			ewUnaryRun(ewFloatToIntLoop[float64, int32](ewLo32, ewHi32, math.MinInt32), out, a)
		case src == Float32 && dst == Int64:
			ewUnaryRun(ewFloatToIntLoop[float32, int64](ewLo64, ewHi64, math.MinInt64), out, a)
		case src == Float32 && dst == Int32:
			ewUnaryRun(ewFloatToIntLoop[float32, int32](ewLo32, ewHi32, math.MinInt32), out, a)
		}
	case src == Float64 && dst.IsInt():
		ewFloatToNarrow[float64](out, a)
	case src == Float32 && dst.IsInt():
		ewFloatToNarrow[float32](out, a)
	default:
		switch src {
		case Float64:
			ewCastFrom[float64](out, a)
		case Float32:
			ewCastFrom[float32](out, a)
		case Int64:
			ewCastFrom[int64](out, a)
		case Int32:
			ewCastFrom[int32](out, a)
		case Int8:
			ewCastFrom[int8](out, a)
		case Int16:
			ewCastFrom[int16](out, a)
		case Uint8:
			ewCastFrom[uint8](out, a)
		case Uint16:
			ewCastFrom[uint16](out, a)
		case Uint32:
			ewCastFrom[uint32](out, a)
		case Uint64:
			ewCastFrom[uint64](out, a)
		case Bool:
			ewCastFrom[uint8](out, a)
		}
	}
}

// Exclusive bounds of the floats whose truncation fits int32 and int64.
const (
	ewLo32, ewHi32 = -2147483649.0, 2147483648.0
	ewLo64, ewHi64 = -9223372036854777856.0, 9223372036854775808.0
)

// ewCvt32 and ewCvt64 are x86's cvttsd2si: truncation, and MinInt for NaN,
// infinities and values out of range.
func ewCvt32(f float64) int32 {
	if f > ewLo32 && f < ewHi32 {
		return int32(f)
	}
	return math.MinInt32
}

func ewCvt64(f float64) int64 {
	if f > ewLo64 && f < ewHi64 {
		return int64(f)
	}
	return math.MinInt64
}

// ewFloatToInt converts as NumPy 1.24's C casts do on x86-64 (checked
// against it, NaN and out-of-range values included): 8-, 16- and 32-bit
// types go through int32 and keep the low bits, int64 is cvttsd2si, and the
// unsigned 32- and 64-bit types use the compilers' sequence, which subtracts
// 2^31 (2^63) from values at or above it and flips the top bit back.
func ewFloatToInt[S ewFloat, D ewInt](x S) D {
	f := float64(x)
	var z D
	switch any(z).(type) {
	case int64:
		return D(ewCvt64(f))
	case uint64:
		if f >= 0x1p63 {
			return D(uint64(ewCvt64(f-0x1p63)) ^ 1<<63)
		}
		return D(uint64(ewCvt64(f)))
	case uint32:
		if f >= 0x1p31 {
			return D(uint32(ewCvt32(f-0x1p31)) ^ 1<<31)
		}
		return D(uint32(ewCvt32(f)))
	}
	return D(ewCvt32(f))
}

// ewFloatToNarrow converts a float array to any integer type by ewFloatToInt.
func ewFloatToNarrow[S ewFloat](out, a *Array) {
	switch out.dtype {
	case Int8:
		ewUnaryRun(ewFloatToIntFunc[S, int8], out, a)
	case Int16:
		ewUnaryRun(ewFloatToIntFunc[S, int16], out, a)
	case Uint8:
		ewUnaryRun(ewFloatToIntFunc[S, uint8], out, a)
	case Uint16:
		ewUnaryRun(ewFloatToIntFunc[S, uint16], out, a)
	case Uint32:
		ewUnaryRun(ewFloatToIntFunc[S, uint32], out, a)
	case Uint64:
		ewUnaryRun(ewFloatToIntFunc[S, uint64], out, a)
	}
}

func ewFloatToIntFunc[S ewFloat, D ewInt](d []D, x []S) {
	x = x[:len(d)]
	for i := range d {
		d[i] = ewFloatToInt[S, D](x[i])
	}
}

// ewCastFrom handles the conversions Go's own conversion gets right: to
// float (correctly rounded), int to int (wrapping) and bool to anything.
func ewCastFrom[S ewElem](out, a *Array) {
	switch out.dtype {
	case Float64:
		ewUnaryRun(ewConvLoop[S, float64], out, a)
	case Float32:
		ewUnaryRun(ewConvLoop[S, float32], out, a)
	case Int64:
		ewUnaryRun(ewConvLoop[S, int64], out, a)
	case Int32:
		ewUnaryRun(ewConvLoop[S, int32], out, a)
	case Int8:
		ewUnaryRun(ewConvLoop[S, int8], out, a)
	case Int16:
		ewUnaryRun(ewConvLoop[S, int16], out, a)
	case Uint8:
		ewUnaryRun(ewConvLoop[S, uint8], out, a)
	case Uint16:
		ewUnaryRun(ewConvLoop[S, uint16], out, a)
	case Uint32:
		ewUnaryRun(ewConvLoop[S, uint32], out, a)
	case Uint64:
		ewUnaryRun(ewConvLoop[S, uint64], out, a)
	}
}

// FillScalar returns a contiguous array of type dt and the given shape with
// every element v converted as Astype converts (used by ones and full).
// shape must be valid (non-negative; see New) and dt valid: violating either
// is a programming error and panics.
func FillScalar(dt DType, shape []int, v float64) *Array {
	if !dt.Valid() {
		panic(fmt.Sprintf("ndarray: FillScalar with invalid dtype %v", dt))
	}
	if err := checkShape(shape); err != nil {
		panic(fmt.Sprintf("ndarray: FillScalar: %v", err))
	}
	src := newArray(Float64, nil)
	typedAll[float64](src)[0] = v
	one := newArray(dt, nil)
	ewCastInto(one, src)
	out := newArray(dt, shape)
	switch dt.Size() {
	case 16:
		ewFill(typedAll[complex128](out), typedAll[complex128](one)[0])
	case 8:
		ewFill(typedAll[uint64](out), typedAll[uint64](one)[0])
	case 4:
		ewFill(typedAll[uint32](out), typedAll[uint32](one)[0])
	case 2:
		ewFill(typedAll[uint16](out), typedAll[uint16](one)[0])
	case 1:
		ewFill(typedAll[uint8](out), typedAll[uint8](one)[0])
	}
	return out
}

// Concat is np.concatenate along axis for arrays of one dtype (cast them
// first with Astype; NumPy would promote). The result is a new contiguous array.
func Concat(axis int, arrs []*Array) (*Array, error) {
	if len(arrs) == 0 {
		return nil, fmt.Errorf("ndarray: concatenate: need at least one array to concatenate")
	}
	for i, a := range arrs {
		if a == nil {
			return nil, fmt.Errorf("ndarray: concatenate: array at index %d is nil", i)
		}
	}
	first := arrs[0]
	nd := first.NDim()
	if nd == 0 {
		return nil, fmt.Errorf("ndarray: concatenate: zero-dimensional arrays cannot be concatenated")
	}
	ax, err := NormAxis(axis, nd)
	if err != nil {
		return nil, fmt.Errorf("ndarray: concatenate: %w", err)
	}
	shape := append([]int(nil), first.shape...)
	shape[ax] = 0
	for i, a := range arrs {
		if a.dtype != first.dtype {
			return nil, fmt.Errorf("ndarray: concatenate: array at index %d has dtype %v but array at index 0 has %v (cast first)",
				i, a.dtype, first.dtype)
		}
		if a.NDim() != nd {
			return nil, fmt.Errorf("ndarray: concatenate: all the input arrays must have same number of dimensions, but the array at index 0 has %d dimension(s) and the array at index %d has %d dimension(s)",
				nd, i, a.NDim())
		}
		for d := range nd {
			if d != ax && a.shape[d] != first.shape[d] {
				return nil, fmt.Errorf("ndarray: concatenate: all the input array dimensions except for the concatenation axis must match exactly, but along dimension %d, the array at index 0 has size %d and the array at index %d has size %d",
					d, first.shape[d], i, a.shape[d])
			}
		}
		shape[ax] += a.shape[ax]
	}
	if err := checkShape(shape); err != nil {
		return nil, fmt.Errorf("ndarray: concatenate: %w", err)
	}
	out := newArray(first.dtype, shape)
	pos := 0
	for _, a := range arrs {
		if a.Size() > 0 {
			part := out.view(append([]int(nil), a.shape...), append([]int(nil), out.strides...), pos*out.strides[ax])
			ewCopyInto(part, a)
		}
		pos += a.shape[ax]
	}
	return out, nil
}
