package tensor

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Assignment is functional: tensors never change, so x[idx] = v is
// x.Set(idx, v), a new tensor equal to x but at idx. The value is cast to
// x's dtype as NumPy's assignment casts (1.7 into an int tensor is 1).

// Ix collects the items of an index, for Set.
func Ix(idx ...Idx) []Idx { return idx }

// Set is NumPy's x[idx] = value as a new tensor: idx is a basic index
// (slices, At, NewAxis, Ellipsis), possibly with one boolean mask or
// integer arrays (alongside whole slices only; several arrays broadcast
// together, as in Index); value (a tensor or a Go
// number) broadcasts to what x[idx] selects. With an integer array, a
// repeated index takes the last of its values, as NumPy does in practice;
// an index out of range fails Execute. With a mask, an array value must
// have one entry per selected element (checked when computed).
func (t *Tensor) Set(idx []Idx, value any) *Tensor {
	if u := t.needKnown("set"); u != nil {
		return u
	}
	v := asTensor(value)
	if v.err != nil {
		return v
	}
	r, err := t.resolve(idx)
	if err != nil {
		return errTensor(fmt.Errorf("set: %w", err))
	}
	v = v.Astype(t.meta.DType)
	if v.meta.Unknown != 0 {
		// x[mask] = f(x[mask]): a value of the selection's own unknown length.
		if !r.isMask {
			return errTensor(&ops.UnknownShapeError{Op: "set", Input: 1, Axis: v.meta.UnknownAxis()})
		}
		if err := t.otherAxesWhole(r); err != nil {
			return errTensor(err)
		}
		return New(ops.MaskPlace{Axis: r.arrAt}, t, r.arr, v)
	}
	switch {
	case r.arrs != nil:
		return t.setMany(r, v)
	case r.arr == nil:
		return t.setBasic(r.items, v)
	case r.isMask:
		return t.setMask(r, v)
	}
	return t.setArray(r, v)
}

// otherAxesWhole checks that the basic items other than the array's own
// are whole slices.
func (t *Tensor) otherAxesWhole(r resolved) error {
	ax := 0
	for i, it := range r.items {
		switch {
		case it.Kind == ops.IndexNewAxis:
			return fmt.Errorf("set: a new axis beside an array index is not supported")
		case i >= r.arrAt && i < r.arrAt+r.arrAxes:
		case it.Kind != ops.IndexSlice || it.Range.Start != 0 || it.Range.Step != 1 || it.Range.Len != t.meta.Shape[ax]:
			return fmt.Errorf("set: an array index combined with integers or partial slices is not supported yet; index the other axes whole")
		}
		ax++
	}
	return nil
}

// setBasic places v, broadcast to the selection of a basic index, into t:
// the value is spread to t's shape by one take per indexed axis (each
// position of the axis reads the value at its place in the slice), and a
// mask of the selected positions picks it.
func (t *Tensor) setBasic(items []ops.IndexItem, v *Tensor) *Tensor {
	op := ops.Index{Items: items}
	region, err := op.Infer([]ops.Meta{t.meta})
	if err != nil {
		return errTensor(fmt.Errorf("set: %w", err))
	}
	if ndarray.Size(region.Shape) == 0 {
		return t
	}
	vb := v.BroadcastTo(region.Shape...)
	if vb.err != nil {
		return errorf("set: could not broadcast input array from shape %v into shape %v", v.Shape(), region.Shape)
	}
	// In t's axes: drop new axes (length 1), put back the integer-indexed
	// axes as length 1.
	var shape []int
	ri := 0
	for _, it := range items {
		switch it.Kind {
		case ops.IndexNewAxis:
			ri++
		case ops.IndexInt:
			shape = append(shape, 1)
		default:
			shape = append(shape, region.Shape[ri])
			ri++
		}
	}
	vt := vb.Reshape(shape...)
	var mask *Tensor
	nd := t.NDim()
	ax := 0
	for _, it := range items {
		if it.Kind == ops.IndexNewAxis {
			continue
		}
		n := t.meta.Shape[ax]
		i := ArangeN(n)
		var sel, at *Tensor
		if it.Kind == ops.IndexInt {
			sel, at = i.Equal(it.Index), Full([]int{n}, 0, WithDType(ndarray.Int64))
		} else {
			rg := it.Range
			if rg.Start == 0 && rg.Step == 1 && rg.Len == n {
				ax++
				continue
			}
			d := i.Sub(rg.Start)
			k := d.FloorDiv(rg.Step)
			sel = d.Mod(rg.Step).Equal(0).And(k.GreaterEqual(0)).And(k.Less(rg.Len))
			at = k.Clip(0, rg.Len-1)
		}
		vt = Take(vt, at, ax)
		bshape := slices.Repeat([]int{1}, nd)
		bshape[ax] = n
		sel = sel.Reshape(bshape...)
		if mask == nil {
			mask = sel
		} else {
			mask = mask.And(sel)
		}
		ax++
	}
	if mask == nil {
		return vt.BroadcastTo(t.meta.Shape...)
	}
	return Where(mask, vt, t)
}

// setMask is t[..., mask, ...] = v with the other axes whole.
func (t *Tensor) setMask(r resolved, v *Tensor) *Tensor {
	if err := t.otherAxesWhole(r); err != nil {
		return errTensor(err)
	}
	m := r.arr
	at, k := r.arrAt, r.arrAxes
	nd := t.NDim()
	// The mask, shaped to broadcast against t.
	mshape := slices.Repeat([]int{1}, nd)
	copy(mshape[at:], m.Shape())
	mb := m.Reshape(mshape...)
	// What x[mask] selects: t's shape with the masked axes as one (its
	// length the count); the value lines up with that.
	sel := slices.Concat(t.meta.Shape[:at], []int{1}, t.meta.Shape[at+k:])
	vd := v.NDim()
	c := at + vd - len(sel) // the value's count axis, if it has one
	if c < 0 || v.Shape()[c] == 1 {
		// One value for every selected element (along the count axis).
		vs := v.BroadcastTo(sel...)
		if vs.err != nil {
			return errorf("set: could not broadcast input array from shape %v into the masked selection of shape %v", v.Shape(), selShape(sel, at))
		}
		full := slices.Concat(t.meta.Shape[:at], slices.Repeat([]int{1}, k), t.meta.Shape[at+k:])
		return Where(mb, vs.Reshape(full...), t)
	}
	// One value per selected element: the i-th true element of the mask
	// (C order) takes value i along the count axis.
	n := v.Shape()[c]
	rank := m.Ravel().Astype(ndarray.Int64).CumSum(0).Sub(1).Clip(0, n-1).Reshape(m.Shape()...)
	vfull := Take(v, rank, c)
	count := m.Astype(ndarray.Int64).Sum()
	out := Where(mb, vfull, t)
	return New(ops.Check{Msg: fmt.Sprintf("NumPy boolean array indexing assignment cannot assign %d input values to the output values where the mask is true (the mask selects another number)", n)},
		count.Equal(n), out)
}

func selShape(sel []int, at int) []int {
	s := slices.Clone(sel)
	s[at] = -1
	return s
}

// setArray is t[..., idx, ...] = v with the other axes whole: the axis
// moves to the front, the rows are scattered, and it moves back.
func (t *Tensor) setArray(r resolved, v *Tensor) *Tensor {
	if err := t.otherAxesWhole(r); err != nil {
		return errTensor(err)
	}
	idx, a := r.arr, r.arrAt
	sel := slices.Concat(t.meta.Shape[:a], idx.Shape(), t.meta.Shape[a+1:])
	vb := v.BroadcastTo(sel...)
	if vb.err != nil {
		return errorf("set: could not broadcast input array from shape %v into shape %v", v.Shape(), sel)
	}
	// t with axis a first; the value with idx's axes first, then the rest
	// in the same order, flattened to rows.
	xt := t.MoveAxis([]int{a}, []int{0})
	ki := idx.NDim()
	rows := append([]int{idx.Size()}, xt.Shape()[1:]...)
	vr := vb.MoveAxis(axesFrom(a, ki), axesFrom(0, ki)).Reshape(rows...)
	out := New(ops.Scatter{}, xt, idx.Ravel(), vr)
	return out.MoveAxis([]int{0}, []int{a})
}

// setMany is t[..., i0, ..., i1, ...] = v for several integer arrays with
// the other axes whole: the arrays' axes are merged into one at the front,
// the broadcast arrays become flat positions in it, rows of v are scattered
// there, and the axes are split and moved back.
func (t *Tensor) setMany(r resolved, v *Tensor) *Tensor {
	for i, it := range r.items {
		switch {
		case it.Kind == ops.IndexNewAxis:
			return errorf("set: a new axis beside array indices is not supported")
		case slices.Contains(r.arrPos, i):
		case it.Kind != ops.IndexSlice || it.Range.Start != 0 || it.Range.Step != 1 || it.Range.Len != t.meta.Shape[i]:
			return errorf("set: array indices combined with integers or partial slices are not supported yet; index the other axes whole")
		}
	}
	flat, b, err := flatIndex("set", r.arrs, r.arrPos, r.arrX, t.meta.Shape)
	if err != nil {
		return errTensor(err)
	}
	k := len(r.arrs)
	xt := t.MoveAxis(r.arrX, axesFrom(0, k))
	dims, rest := xt.meta.Shape[:k], xt.meta.Shape[k:]
	p := 0 // where NumPy puts the arrays' axes in the selection
	if r.adjacent {
		p = r.arrPos[0]
	}
	sel := slices.Concat(rest[:p], b, rest[p:])
	vb := v.BroadcastTo(sel...)
	if vb.err != nil {
		return errorf("set: could not broadcast input array from shape %v into shape %v", v.Shape(), sel)
	}
	vr := vb.MoveAxis(axesFrom(p, len(b)), axesFrom(0, len(b))).Reshape(append([]int{ndarray.Size(b)}, rest...)...)
	xm := xt.Reshape(append([]int{ndarray.Size(dims)}, rest...)...)
	out := New(ops.Scatter{}, xm, flat.Ravel(), vr)
	return out.Reshape(slices.Concat(dims, rest)...).MoveAxis(axesFrom(0, k), r.arrX)
}

// Put is numpy.put(a, ind, v) as a new tensor: the elements of the
// flattened a at the flat indices ind become v's values, v repeated as
// needed (a later index wins over an earlier one).
func Put(a, ind *Tensor, v any) *Tensor {
	for _, t := range []*Tensor{a, ind} {
		if u := t.needKnown("put"); u != nil {
			return u
		}
	}
	vt := asTensor(v)
	if vt.err != nil {
		return vt
	}
	k := ind.Size()
	vals := vt.Ravel().Astype(a.meta.DType)
	if n := vals.Size(); n == 0 {
		if k > 0 {
			return errorf("put: cannot put %d indices from an empty array of values", k)
		}
		return a
	} else if n != k {
		vals = Take(vals, ArangeN(k).Mod(n))
	}
	return New(ops.Scatter{}, a.Ravel(), ind.Ravel(), vals).Reshape(a.Shape()...)
}

// Place is numpy.place(arr, mask, vals) as a new tensor: the elements of
// arr where mask is true (in C order) take vals' values in turn, repeated
// as needed. vals must not be empty (NumPy allows it only when mask
// selects nothing).
func Place(arr, mask *Tensor, vals any) *Tensor {
	for _, t := range []*Tensor{arr, mask} {
		if u := t.needKnown("place"); u != nil {
			return u
		}
	}
	if !slices.Equal(arr.Shape(), mask.Shape()) {
		return errorf("place: mask and data must be the same size (shapes %v and %v)", mask.Shape(), arr.Shape())
	}
	v := asTensor(vals)
	if v.err != nil {
		return v
	}
	v = v.Ravel().Astype(arr.meta.DType)
	n := v.Size()
	if n == 0 {
		return errorf("place: cannot insert from an empty array of values")
	}
	m := asBool(mask)
	rank := m.Ravel().Astype(ndarray.Int64).CumSum(0).Sub(1).Mod(n).Reshape(m.Shape()...)
	return Where(m, Take(v, rank), arr)
}

// FillDiagonal is numpy.fill_diagonal(a, val, wrap) as a new tensor: the
// main diagonal of a (2-D, or every axis of one length) becomes val's
// values in turn; for a tall 2-D a, wrap continues the diagonal below
// every square block, as NumPy does.
func FillDiagonal(a *Tensor, val any, wrap bool) *Tensor {
	if u := a.needKnown("fill_diagonal"); u != nil {
		return u
	}
	s := a.Shape()
	if len(s) < 2 {
		return errorf("fill_diagonal: array must be at least 2-d")
	}
	step, end := 0, a.Size()
	if len(s) == 2 {
		step = s[1] + 1
		if !wrap {
			end = min(end, s[1]*s[1])
		}
	} else {
		for _, d := range s[1:] {
			if d != s[0] {
				return errorf("fill_diagonal: all dimensions of input must be of equal length (shape %v)", s)
			}
		}
		acc := 1
		for range s[:len(s)-1] {
			acc *= s[0]
			step += acc
		}
		step++
	}
	i := ArangeN(a.Size())
	on := i.Mod(step).Equal(0).And(i.Less(end)).Reshape(s...)
	v := asTensor(val)
	if v.err != nil {
		return v
	}
	v = v.Ravel().Astype(a.meta.DType)
	n := v.Size()
	if n == 0 {
		return a
	}
	vals := Take(v, i.FloorDiv(step).Mod(n)).Reshape(s...)
	return Where(on, vals, a)
}

// axesFrom is the n axes start, start+1, ...
func axesFrom(start, n int) []int {
	ax := make([]int, n)
	for i := range ax {
		ax[i] = start + i
	}
	return ax
}

// PutMask is numpy.putmask(a, mask, values) as a new tensor: where mask is
// true, a takes the value at the same flat position of values repeated to
// a's size (unlike Place, which takes values in turn). The values must
// cast safely to a's dtype (NumPy refuses floats into an int tensor).
func PutMask(a, mask *Tensor, values any) *Tensor {
	for _, t := range []*Tensor{a, mask} {
		if u := t.needKnown("putmask"); u != nil {
			return u
		}
	}
	if !slices.Equal(a.Shape(), mask.Shape()) {
		return errorf("putmask: mask and data must be the same size (shapes %v and %v)", mask.Shape(), a.Shape())
	}
	v := asTensor(values)
	if v.err != nil {
		return v
	}
	if ndarray.Promote(v.meta.DType, a.meta.DType) != a.meta.DType {
		// NumPy casts the values by its 'safe' rule, which is this.
		return errTensor(fmt.Errorf("putmask: %w", &ndarray.DTypeError{Msg: fmt.Sprintf("cannot cast array data from dtype('%v') to dtype('%v') according to the rule 'safe'", v.meta.DType, a.meta.DType)}))
	}
	v = v.Ravel().Astype(a.meta.DType)
	n := v.Size()
	if n == 0 {
		return a // NumPy: nothing to put
	}
	if n != a.Size() {
		v = Take(v, ArangeN(a.Size()).Mod(n))
	}
	return Where(asBool(mask), v.Reshape(a.Shape()...), a)
}
