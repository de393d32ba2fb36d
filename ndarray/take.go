package ndarray

import (
	"fmt"
	"sort"
)

// Gathering along an axis by integer indices (numpy.take), in two steps so
// that the array need not be whole in one place: TakePart picks, from one
// block of the array (positions [lo, lo+len) of the axis), the sub-arrays
// the indices that fall in it name, in the indices' order; TakeJoin puts
// the parts of every block in the indices' places.

// takeIndex normalises index v of an axis of length n (negative counts
// from the end), reporting whether it is in range.
func takeIndex(v int64, n int) (int, bool) {
	if v < 0 {
		v += int64(n)
	}
	return int(v), v >= 0 && v < int64(n)
}

// widenInts converts integer indices to int64 (uint64 ones above 2^63-1
// become negative, which the bounds checks refuse).
func widenInts[T ewInt](v []T) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// indexValues are the int64 values of the integer array idx, in C order.
func indexValues(idx *Array) ([]int64, error) {
	c := idx.Contiguous()
	switch c.dtype {
	case Int64:
		return typed[int64](c)[:c.Size()], nil
	case Int32:
		return widenInts(typed[int32](c)[:c.Size()]), nil
	case Int16:
		return widenInts(typed[int16](c)[:c.Size()]), nil
	case Int8:
		return widenInts(typed[int8](c)[:c.Size()]), nil
	case Uint64:
		return widenInts(typed[uint64](c)[:c.Size()]), nil
	case Uint32:
		return widenInts(typed[uint32](c)[:c.Size()]), nil
	case Uint16:
		return widenInts(typed[uint16](c)[:c.Size()]), nil
	case Uint8:
		return widenInts(typed[uint8](c)[:c.Size()]), nil
	}
	return nil, fmt.Errorf("arrays used as indices must be of integer type, got %v", idx.dtype)
}

// TakePart is the part of numpy.take(x, idx, axis) that a block a of x
// holds: a covers positions [lo, lo+a.shape[axis]) of an axis of length n;
// the result has a's shape with that axis replaced by the number of
// indices (in range, normalised) falling in the block, in idx's C order.
// Out-of-range indices are left to TakeJoin, which reports them.
func TakePart(a, idx *Array, axis, lo, n int) (*Array, error) {
	if axis < 0 || axis >= a.NDim() {
		return nil, fmt.Errorf("ndarray: take: axis %d of a %d-D array", axis, a.NDim())
	}
	vals, err := indexValues(idx)
	if err != nil {
		return nil, err
	}
	m := a.shape[axis]
	// Normalised indices as unsigned offsets from lo: one compare each
	// tells whether an index falls in the block.
	in := func(v int64) (uint64, bool) {
		if v < 0 {
			v += int64(n)
		}
		d := uint64(v - int64(lo))
		return d, v >= 0 && d < uint64(m)
	}
	count := 0
	for _, v := range vals {
		if _, ok := in(v); ok {
			count++
		}
	}
	pos := make([]int, 0, count)
	for _, v := range vals {
		if d, ok := in(v); ok {
			pos = append(pos, int(d))
		}
	}
	return takeRows(a, axis, pos), nil
}

// takeRows is a with its axis replaced by the positions pos along it.
func takeRows(a *Array, axis int, pos []int) *Array {
	shape := append([]int(nil), a.shape...)
	shape[axis] = len(pos)
	out := newArray(a.dtype, shape)
	if out.Size() == 0 {
		return out
	}
	c := a.Contiguous()
	pre, m, inner := Size(a.shape[:axis]), a.shape[axis], Size(a.shape[axis+1:])
	if inner == 1 && pre == 1 {
		switch a.dtype.Size() {
		case 8:
			gatherInto(typed[uint64](c), typed[uint64](out), pos)
			return out
		case 4:
			gatherInto(typed[uint32](c), typed[uint32](out), pos)
			return out
		}
	}
	isz := a.dtype.Size()
	row := inner * isz
	src := c.buf[c.offset*isz:]
	o := 0
	for p := range pre {
		base := p * m * row
		for _, i := range pos {
			copy(out.buf[o:o+row], src[base+i*row:base+(i+1)*row])
			o += row
		}
	}
	return out
}

func gatherInto[T uint32 | uint64](src, dst []T, pos []int) {
	for k, i := range pos {
		dst[k] = src[i]
	}
}

// TakeJoin assembles numpy.take(x, idx, axis) from the parts of x's
// blocks along the axis (TakePart of each, in order), the blocks starting
// at offsets (ascending, offsets[0] = 0) of an axis of length n: the
// result has the parts' shape with the axis replaced by idx's shape. An
// index out of range is NumPy's IndexError.
func TakeJoin(idx *Array, parts []*Array, axis int, offsets []int, n int) (*Array, error) {
	vals, err := indexValues(idx)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 || len(parts) != len(offsets) {
		return nil, fmt.Errorf("ndarray: take: %d parts for %d blocks", len(parts), len(offsets))
	}
	p0 := parts[0]
	if axis < 0 || axis >= p0.NDim() {
		return nil, fmt.Errorf("ndarray: take: axis %d of %d-D parts", axis, p0.NDim())
	}
	// Blocks of one size but the last (the usual chunking) are found by a
	// division, others by a binary search.
	step := 0
	if len(offsets) > 1 {
		step = offsets[1]
		for j := 2; j < len(offsets); j++ {
			if offsets[j]-offsets[j-1] != step {
				step = 0
				break
			}
		}
	}
	// Which block each index falls in, and its place within that block's part.
	block := make([]int32, len(vals))
	slot := make([]int32, len(vals))
	used := make([]int32, len(parts))
	for k, v := range vals {
		i, ok := takeIndex(v, n)
		if !ok {
			return nil, fmt.Errorf("index %d is out of bounds for axis %d with size %d", v, axis, n)
		}
		var j int
		if step > 0 {
			j = min(i/step, len(offsets)-1)
		} else {
			j = sort.SearchInts(offsets, i+1) - 1
		}
		block[k], slot[k] = int32(j), used[j]
		used[j]++
	}
	for j, p := range parts {
		if p.dtype != p0.dtype || p.NDim() != p0.NDim() || p.shape[axis] != int(used[j]) {
			return nil, fmt.Errorf("ndarray: take: part %d of shape %v %v holds not the %d rows its indices name", j, p.dtype, p.shape, used[j])
		}
	}
	shape := append(append(append([]int(nil), p0.shape[:axis]...), idx.shape...), p0.shape[axis+1:]...)
	out := newArray(p0.dtype, shape)
	if out.Size() == 0 {
		return out, nil
	}
	cs := make([]*Array, len(parts))
	for j, p := range parts {
		cs[j] = p.Contiguous()
	}
	pre, inner := Size(p0.shape[:axis]), Size(p0.shape[axis+1:])
	if pre == 1 && inner == 1 && p0.dtype.Size() == 8 {
		dst := typed[uint64](out)
		srcs := make([][]uint64, len(cs))
		for j, c := range cs {
			srcs[j] = typed[uint64](c)
		}
		for k := range vals {
			dst[k] = srcs[block[k]][slot[k]]
		}
		return out, nil
	}
	isz := p0.dtype.Size()
	row := inner * isz
	o := 0
	for p := range pre {
		for k := range vals {
			c := cs[block[k]]
			m := c.shape[axis]
			src := c.buf[c.offset*isz:]
			at := (p*m + int(slot[k])) * row
			copy(out.buf[o:o+row], src[at:at+row])
			o += row
		}
	}
	return out, nil
}

// ScatterRows is x with rows (along axis 0) replaced: for each index of
// the idx arrays in order (every one 1-D, negative counting from the end of
// an axis of length n), the row of the matching values array (same order,
// shape (len(idx), x.shape[1:]...)) goes to that row when it falls in x's
// block [lo, lo+x.shape[0]); a later index wins over an earlier one, as
// NumPy's assignment does. An index out of range is NumPy's IndexError.
func ScatterRows(x *Array, idx, values []*Array, lo, n int) (*Array, error) {
	if x.NDim() == 0 || len(idx) != len(values) {
		return nil, fmt.Errorf("ndarray: scatter: %d index and %d value arrays into a %d-D array", len(idx), len(values), x.NDim())
	}
	out := x.Copy()
	m := x.shape[0]
	isz := x.dtype.Size()
	row := Size(x.shape[1:]) * isz
	for b, ia := range idx {
		vals, err := indexValues(ia)
		if err != nil {
			return nil, err
		}
		va := values[b]
		if va.dtype != x.dtype || va.NDim() != x.NDim() || va.shape[0] != len(vals) || !SameShape(va.shape[1:], x.shape[1:]) {
			return nil, fmt.Errorf("ndarray: scatter: values %v%v for %d indices into rows of %v%v", va.dtype, va.shape, len(vals), x.dtype, x.shape[1:])
		}
		var src []byte
		if row > 0 && len(vals) > 0 {
			// Rows of no bytes have nothing to copy, and an empty array's
			// buffer may end before its offset.
			vc := va.Contiguous()
			src = vc.buf[vc.offset*isz:]
		}
		for k, v := range vals {
			i, ok := takeIndex(v, n)
			if !ok {
				return nil, fmt.Errorf("index %d is out of bounds for axis 0 with size %d", v, n)
			}
			if i < lo || i >= lo+m || row == 0 {
				continue
			}
			copy(out.buf[(i-lo)*row:(i-lo+1)*row], src[k*row:(k+1)*row])
		}
	}
	return out, nil
}
