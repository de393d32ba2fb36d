package ndarray

import (
	"fmt"
)

// NormAxis turns a possibly negative axis into 0..ndim-1.
func NormAxis(axis, ndim int) (int, error) {
	if axis < -ndim || axis >= ndim {
		return 0, &AxisError{Axis: axis, NDim: ndim}
	}
	if axis < 0 {
		axis += ndim
	}
	return axis, nil
}

func (a *Array) view(shape, strides []int, offset int) *Array {
	return &Array{dtype: a.dtype, shape: shape, strides: strides, offset: offset, buf: a.buf}
}

// Transpose permutes the axes without copying. perm nil reverses them.
func (a *Array) Transpose(perm ...int) (*Array, error) {
	nd := a.NDim()
	if len(perm) == 0 {
		perm = make([]int, nd)
		for i := range perm {
			perm[i] = nd - 1 - i
		}
	}
	if len(perm) != nd {
		return nil, fmt.Errorf("ndarray: transpose axes %v do not match array of dimension %d", perm, nd)
	}
	seen := make([]bool, nd)
	sh := make([]int, nd)
	st := make([]int, nd)
	for i, p := range perm {
		ax, err := NormAxis(p, nd)
		if err != nil {
			return nil, fmt.Errorf("ndarray: transpose: %w", err)
		}
		if seen[ax] {
			return nil, fmt.Errorf("ndarray: transpose axes %v repeat axis %d", perm, ax)
		}
		seen[ax] = true
		sh[i], st[i] = a.shape[ax], a.strides[ax]
	}
	return a.view(sh, st, a.offset), nil
}

// Range is a normalised slice along one axis: the elements Start, Start+Step,
// ... (Len of them). Step may be negative; Len may be 0.
type Range struct {
	Start, Step, Len int
}

// SliceRange normalises Python slice semantics start:stop:step on an axis of
// length n. hasStart/hasStop false mean the bound was omitted.
func SliceRange(n, start, stop, step int, hasStart, hasStop bool) (Range, error) {
	if step == 0 {
		return Range{}, fmt.Errorf("slice step cannot be zero")
	}
	var lo, hi int
	if step > 0 {
		lo, hi = 0, n
		if hasStart {
			lo = clampIdx(start, n, 0, n)
		}
		if hasStop {
			hi = clampIdx(stop, n, 0, n)
		}
		if hi <= lo {
			return Range{Start: lo, Step: step, Len: 0}, nil
		}
		return Range{Start: lo, Step: step, Len: (hi - lo + step - 1) / step}, nil
	}
	lo, hi = n-1, -1
	if hasStart {
		lo = clampIdx(start, n, -1, n-1)
	}
	if hasStop {
		hi = clampIdx(stop, n, -1, n-1)
	}
	if lo <= hi {
		return Range{Start: max(lo, 0), Step: step, Len: 0}, nil
	}
	return Range{Start: lo, Step: step, Len: (lo - hi - step - 1) / (-step)}, nil
}

func clampIdx(i, n, lo, hi int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, lo), hi)
}

// Slice returns the view selecting ranges[i] along axis i; axes beyond
// len(ranges) are kept whole.
func (a *Array) Slice(ranges []Range) (*Array, error) {
	if len(ranges) > a.NDim() {
		return nil, fmt.Errorf("ndarray: %d slices for array of dimension %d", len(ranges), a.NDim())
	}
	sh := append([]int(nil), a.shape...)
	st := append([]int(nil), a.strides...)
	off := a.offset
	for ax, r := range ranges {
		if r.Len < 0 || (r.Len > 0 && (r.Start < 0 || r.Start >= a.shape[ax] ||
			r.Start+(r.Len-1)*r.Step < 0 || r.Start+(r.Len-1)*r.Step >= a.shape[ax])) {
			return nil, fmt.Errorf("ndarray: range %+v out of bounds for axis %d of length %d", r, ax, a.shape[ax])
		}
		if r.Len > 0 {
			off += r.Start * a.strides[ax]
		}
		sh[ax] = r.Len
		st[ax] = a.strides[ax] * r.Step
	}
	return a.view(sh, st, off), nil
}

// Index selects element i (negative counts from the end) along axis, dropping the axis.
func (a *Array) Index(axis, i int) (*Array, error) {
	ax, err := NormAxis(axis, a.NDim())
	if err != nil {
		return nil, fmt.Errorf("ndarray: index: %w", err)
	}
	n := a.shape[ax]
	if i < -n || i >= n {
		return nil, fmt.Errorf("ndarray: index %d is out of bounds for axis %d with size %d", i, ax, n)
	}
	if i < 0 {
		i += n
	}
	sh := append(append([]int(nil), a.shape[:ax]...), a.shape[ax+1:]...)
	st := append(append([]int(nil), a.strides[:ax]...), a.strides[ax+1:]...)
	return a.view(sh, st, a.offset+i*a.strides[ax]), nil
}

// Flip reverses the order of elements along axis, without copying.
func (a *Array) Flip(axis int) (*Array, error) {
	ax, err := NormAxis(axis, a.NDim())
	if err != nil {
		return nil, fmt.Errorf("ndarray: flip: %w", err)
	}
	sh := append([]int(nil), a.shape...)
	st := append([]int(nil), a.strides...)
	off := a.offset
	if sh[ax] > 0 {
		off += (sh[ax] - 1) * st[ax]
	}
	st[ax] = -st[ax]
	return a.view(sh, st, off), nil
}

// BroadcastShapes is NumPy's broadcast of several shapes.
func BroadcastShapes(shapes ...[]int) ([]int, error) {
	nd := 0
	for _, s := range shapes {
		nd = max(nd, len(s))
	}
	out := make([]int, nd)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, d := range s {
			j := nd - len(s) + i
			switch {
			case d == out[j] || d == 1:
			case out[j] == 1:
				out[j] = d
			default:
				return nil, fmt.Errorf("shapes %v cannot be broadcast together (axis %d: %d vs %d)", shapes, j, out[j], d)
			}
		}
	}
	return out, nil
}

// BroadcastTo returns a read-only view of a with the given shape (zero strides
// along broadcast axes), following NumPy's rules.
func (a *Array) BroadcastTo(shape []int) (*Array, error) {
	if SameShape(a.shape, shape) {
		return a, nil // array descriptors are immutable: a is its own view
	}
	nd := len(shape)
	if a.NDim() > nd {
		return nil, fmt.Errorf("ndarray: cannot broadcast shape %v to %v", a.shape, shape)
	}
	st := make([]int, nd)
	for i := range shape {
		j := i - (nd - a.NDim())
		if j < 0 {
			continue
		}
		switch {
		case a.shape[j] == shape[i]:
			st[i] = a.strides[j]
		case a.shape[j] == 1:
			st[i] = 0
		default:
			return nil, fmt.Errorf("ndarray: cannot broadcast shape %v to %v", a.shape, shape)
		}
	}
	return a.view(append([]int(nil), shape...), st, a.offset), nil
}

// ExpandDims inserts a length-1 axis at position axis (in the result).
func (a *Array) ExpandDims(axis int) (*Array, error) {
	ax, err := NormAxis(axis, a.NDim()+1)
	if err != nil {
		return nil, fmt.Errorf("ndarray: expand_dims: %w", err)
	}
	sh := append(append(append([]int(nil), a.shape[:ax]...), 1), a.shape[ax:]...)
	st := append(append(append([]int(nil), a.strides[:ax]...), 0), a.strides[ax:]...)
	return a.view(sh, st, a.offset), nil
}

// Squeeze removes the given length-1 axes (all length-1 axes if none given).
func (a *Array) Squeeze(axes ...int) (*Array, error) {
	drop := make([]bool, a.NDim())
	if len(axes) == 0 {
		for i, d := range a.shape {
			drop[i] = d == 1
		}
	}
	for _, ax := range axes {
		n, err := NormAxis(ax, a.NDim())
		if err != nil {
			return nil, fmt.Errorf("ndarray: squeeze: %w", err)
		}
		if a.shape[n] != 1 {
			return nil, fmt.Errorf("ndarray: cannot squeeze axis %d of length %d", n, a.shape[n])
		}
		drop[n] = true
	}
	var sh, st []int
	for i := range a.shape {
		if !drop[i] {
			sh = append(sh, a.shape[i])
			st = append(st, a.strides[i])
		}
	}
	return a.view(sh, st, a.offset), nil
}

// Reshape returns an array of the new shape with the same elements in C
// order: a view when a is contiguous, else a copy. One dimension may be -1.
func (a *Array) Reshape(shape ...int) (*Array, error) {
	sh, err := ResolveReshape(a.Size(), shape)
	if err != nil {
		return nil, fmt.Errorf("ndarray: %w (array of shape %v)", err, a.shape)
	}
	c := a.Contiguous()
	return c.view(sh, ContiguousStrides(sh), c.offset), nil
}

// ResolveReshape fills in a -1 dimension and checks that shape holds size elements.
func ResolveReshape(size int, shape []int) ([]int, error) {
	sh := append([]int(nil), shape...)
	neg := -1
	known := 1
	for i, d := range sh {
		switch {
		case d == -1:
			if neg >= 0 {
				return nil, fmt.Errorf("can only specify one unknown dimension in reshape %v", shape)
			}
			neg = i
		case d < 0:
			return nil, fmt.Errorf("negative dimension %d in reshape %v", d, shape)
		default:
			known *= d
		}
	}
	if neg >= 0 {
		if known == 0 || size%known != 0 {
			return nil, fmt.Errorf("cannot reshape array of size %d into shape %v", size, shape)
		}
		sh[neg] = size / known
		known *= sh[neg]
	}
	if known != size {
		return nil, fmt.Errorf("cannot reshape array of size %d into shape %v", size, shape)
	}
	return sh, nil
}
