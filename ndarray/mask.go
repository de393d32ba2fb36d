package ndarray

import "fmt"

// MaskSelect is NumPy's boolean indexing a[..., mask, ...] with mask over
// axes [axis, axis+mask.NDim()) of a: the sub-arrays of a at the positions
// where mask is true, in C order, along one axis at axis. mask must have
// exactly the shape of the axes it covers.
func MaskSelect(a, mask *Array, axis int) (*Array, error) {
	bits, count, err := maskBits(a, mask, axis)
	if err != nil {
		return nil, err
	}
	k := mask.NDim()
	shape := append(append(append([]int(nil), a.shape[:axis]...), count), a.shape[axis+k:]...)
	out := newArray(a.dtype, shape)
	if count == 0 || out.Size() == 0 {
		return out, nil
	}
	c := a.Contiguous()
	pre := Size(a.shape[:axis])
	inner := Size(a.shape[axis+k:])
	switch {
	case inner == 1 && a.dtype.Size() == 16:
		maskCopy(typed[complex128](c), typed[complex128](out), bits, pre)
	case inner == 1 && a.dtype.Size() == 8:
		maskCopy(typed[uint64](c), typed[uint64](out), bits, pre)
	case inner == 1 && a.dtype.Size() == 4:
		maskCopy(typed[uint32](c), typed[uint32](out), bits, pre)
	case inner == 1 && a.dtype.Size() == 2:
		maskCopy(typed[uint16](c), typed[uint16](out), bits, pre)
	case inner == 1:
		maskCopy(typed[uint8](c), typed[uint8](out), bits, pre)
	default:
		isz := a.dtype.Size()
		row := inner * isz
		src := c.buf[c.offset*isz:]
		dst := out.buf
		o := 0
		for p := range pre {
			base := p * len(bits) * row
			for j, b := range bits {
				if b != 0 {
					copy(dst[o:o+row], src[base+j*row:base+(j+1)*row])
					o += row
				}
			}
		}
	}
	return out, nil
}

// maskBits checks a boolean index mask over axes [axis, axis+mask.NDim())
// of a and returns its bytes (C order) and how many are true.
func maskBits(a, mask *Array, axis int) (bits []byte, count int, err error) {
	if a == nil || mask == nil {
		return nil, 0, fmt.Errorf("ndarray: boolean index: nil array")
	}
	k := mask.NDim()
	if mask.dtype != Bool {
		return nil, 0, fmt.Errorf("ndarray: boolean index of dtype %v: want bool", mask.dtype)
	}
	if axis < 0 || k == 0 || axis+k > a.NDim() {
		return nil, 0, fmt.Errorf("ndarray: boolean index of %d dimensions at axis %d of an array of %d", k, axis, a.NDim())
	}
	for i, d := range mask.shape {
		if a.shape[axis+i] != d {
			return nil, 0, fmt.Errorf("boolean index did not match indexed array along dimension %d; dimension is %d but corresponding boolean dimension is %d",
				axis+i, a.shape[axis+i], d)
		}
	}
	m := mask.Contiguous()
	bits = m.buf[m.offset : m.offset+m.Size()]
	for _, b := range bits {
		count += int(b & 1)
	}
	return bits, count, nil
}

// maskCopy packs the elements of src where bits is 1 into dst, for each of
// pre blocks of len(bits) elements. Every element is stored and the output
// position advances by its bit, so random masks cost no mispredicted
// branches; the store is skipped only once dst is full (the unselected
// tail).
func maskCopy[T uint8 | uint16 | uint32 | uint64 | complex128](src, dst []T, bits []byte, pre int) {
	n := len(bits)
	o := 0
	for p := range pre {
		s := src[p*n : (p+1)*n]
		for j, b := range bits[:len(s)] {
			if o < len(dst) {
				dst[o] = s[j]
			}
			o += int(b & 1)
		}
	}
}

// nonzeroBits is 1 where the contiguous a is nonzero (NaN counts, -0.0
// does not), 0 elsewhere, in C order.
func nonzeroBits(a *Array) []byte {
	c := a.Contiguous()
	n := c.Size()
	out := make([]byte, n)
	switch c.dtype {
	case Bool:
		for i, b := range c.buf[c.offset : c.offset+n] {
			out[i] = b & 1
		}
	case Int32:
		nzInto(typed[int32](c)[:n], out)
	case Int8:
		nzInto(typed[int8](c)[:n], out)
	case Int16:
		nzInto(typed[int16](c)[:n], out)
	case Uint8:
		nzInto(typed[uint8](c)[:n], out)
	case Uint16:
		nzInto(typed[uint16](c)[:n], out)
	case Uint32:
		nzInto(typed[uint32](c)[:n], out)
	case Uint64:
		nzInto(typed[uint64](c)[:n], out)
	case Int64:
		nzInto(typed[int64](c)[:n], out)
	case Float32:
		nzInto(typed[float32](c)[:n], out)
	case Float64:
		nzInto(typed[float64](c)[:n], out)
	case Complex64:
		for i, v := range typed[complex64](c)[:n] {
			out[i] = ewB2U(v != 0)
		}
	case Complex128:
		for i, v := range typed[complex128](c)[:n] {
			out[i] = ewB2U(v != 0)
		}
	}
	return out
}

func nzInto[T ewNum](src []T, out []byte) {
	for i, v := range src {
		if v != 0 {
			out[i] = 1
		}
	}
}

// ArgWhere is numpy.argwhere(a) with offset added to the first coordinate
// (a's position in a larger array): the (count, ndim) int64 coordinates of
// a's nonzero elements in C order; with column >= 0, only that column,
// (count,). A 0-d a has one coordinate-less row per nonzero element.
func ArgWhere(a *Array, offset, column int) (*Array, error) {
	if a == nil {
		return nil, fmt.Errorf("ndarray: argwhere: nil array")
	}
	nd := a.NDim()
	if column >= nd {
		return nil, fmt.Errorf("ndarray: argwhere: column %d of a %d-D array", column, nd)
	}
	bits := nonzeroBits(a)
	count := 0
	for _, b := range bits {
		count += int(b)
	}
	cols := nd
	if column >= 0 {
		cols = 1
	}
	shape := []int{count, cols}
	if column >= 0 {
		shape = shape[:1]
	}
	out := newArray(Int64, shape)
	dst := typed[int64](out)
	strides := ContiguousStrides(a.shape)
	o := 0
	for i, b := range bits {
		if b == 0 {
			continue
		}
		rem := i
		for ax := range nd {
			// Element strides of a contiguous array: coordinate = rem / stride.
			q := 0
			if strides[ax] > 0 {
				q = rem / strides[ax]
				rem -= q * strides[ax]
			}
			if ax == 0 {
				q += offset
			}
			switch {
			case column < 0:
				dst[o*cols+ax] = int64(q)
			case column == ax:
				dst[o] = int64(q)
			}
		}
		o++
	}
	return out, nil
}

// MaskPlace is NumPy's a[..., mask, ...] = v as a new array, the inverse of
// MaskSelect: v has MaskSelect's result shape (one axis at axis holding the
// selected sub-arrays in C order), and the i-th of them goes to the i-th
// true position of mask. v must select exactly as many as mask does.
func MaskPlace(a, mask, v *Array, axis int) (*Array, error) {
	if v == nil {
		return nil, fmt.Errorf("ndarray: boolean assignment: nil values")
	}
	bits, count, err := maskBits(a, mask, axis)
	if err != nil {
		return nil, err
	}
	k := mask.NDim()
	want := append(append(append([]int(nil), a.shape[:axis]...), count), a.shape[axis+k:]...)
	if v.dtype != a.dtype || !SameShape(v.shape, want) {
		n := -1
		if v.NDim() > axis {
			n = v.shape[axis]
		}
		return nil, fmt.Errorf("NumPy boolean array indexing assignment cannot assign %d input values to the %d output values where the mask is true (values %v%v, selection %v%v)",
			n, count, v.dtype, v.shape, a.dtype, want)
	}
	out := a.Copy()
	if count == 0 || out.Size() == 0 {
		return out, nil
	}
	vc := v.Contiguous()
	isz := a.dtype.Size()
	row := Size(a.shape[axis+k:]) * isz
	src := vc.buf[vc.offset*isz:]
	o := 0
	for p := range Size(a.shape[:axis]) {
		base := p * len(bits) * row
		for j, b := range bits {
			if b != 0 {
				copy(out.buf[base+j*row:base+(j+1)*row], src[o:o+row])
				o += row
			}
		}
	}
	return out, nil
}
