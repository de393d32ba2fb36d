package tensor

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Shape manipulation with NumPy semantics. Transpose, Flip, Squeeze,
// ExpandDims, BroadcastTo and basic indexing only rearrange the chunk grid
// and make zero-copy views of chunks; Concatenate reuses its inputs' chunks.

// Transpose permutes the axes (np.transpose): output axis i is input axis
// perm[i]; negative axes count from the end; no perm reverses the axes.
func (t *Tensor) Transpose(perm ...int) *Tensor {
	if t.err != nil {
		return t
	}
	p, err := ops.NormPerm(perm, t.NDim())
	if err != nil {
		return errorf("transpose: tensor of shape %v: %w", t.meta.Shape, err)
	}
	identity := true
	for i, a := range p {
		identity = identity && a == i
	}
	if identity {
		return t
	}
	return New(ops.Transpose{Perm: p}, t)
}

// T is the transpose with the axes reversed (NumPy's .T).
func (t *Tensor) T() *Tensor { return t.Transpose() }

// Reshape gives t a new shape with the same elements in C order; one
// dimension may be -1 (inferred). Adding or removing length-1 axes is a
// chunkwise view; a general reshape of a chunked tensor copies the data
// once (and rechunks it into row blocks first unless every axis but the
// first is already one chunk). See ops.Reshape.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	if u := t.needKnown("reshape"); u != nil {
		return u
	}
	if t.err != nil {
		return t
	}
	sh, err := ndarray.ResolveReshape(t.Size(), shape)
	if err != nil {
		return errorf("reshape: cannot reshape tensor of shape %v into shape %v: %w", t.meta.Shape, shape, err)
	}
	if slices.Equal(sh, t.meta.Shape) {
		return t
	}
	return New(ops.Reshape{Shape: sh}, t)
}

// Ravel is the tensor flattened to 1-D in C order (Reshape(-1)).
func (t *Tensor) Ravel() *Tensor { return t.Reshape(-1) }

// Squeeze removes the given length-1 axes, or every length-1 axis if none
// are given. Naming an axis whose length is not 1 is an error.
func (t *Tensor) Squeeze(axes ...int) *Tensor {
	if u := t.needKnown("squeeze"); u != nil {
		return u
	}
	if t.err != nil {
		return t
	}
	var drop []int
	if len(axes) == 0 {
		for ax, d := range t.meta.Shape {
			if d == 1 {
				drop = append(drop, ax)
			}
		}
	} else {
		var err error
		if drop, err = normAxes(axes, t.NDim()); err != nil {
			return errorf("squeeze: %w", err)
		}
	}
	if len(drop) == 0 {
		return t
	}
	return New(ops.Squeeze{Axes: drop}, t)
}

// ExpandDims inserts a length-1 axis at position axis of the result
// (-1 appends it).
func (t *Tensor) ExpandDims(axis int) *Tensor {
	if u := t.needKnown("expand_dims"); u != nil {
		return u
	}
	if t.err != nil {
		return t
	}
	ax, err := ndarray.NormAxis(axis, t.NDim()+1)
	if err != nil {
		return errorf("expand_dims: %w", err)
	}
	return New(ops.ExpandDims{Axis: ax}, t)
}

// BroadcastTo is t broadcast to shape by NumPy's rules (np.broadcast_to).
// Each chunk is a zero-stride view, so nothing is copied until a consumer
// reads it; broadcast axes are split into chunks of the auto size.
func (t *Tensor) BroadcastTo(shape ...int) *Tensor {
	if u := t.needKnown("broadcast_to"); u != nil {
		return u
	}
	if t.err != nil {
		return t
	}
	if slices.Equal(shape, t.meta.Shape) {
		return t
	}
	return New(ops.BroadcastTo{Shape: slices.Clone(shape)}, t)
}

// Flip reverses the order of elements along the given axes (all axes if
// none are given), like np.flip.
func (t *Tensor) Flip(axes ...int) *Tensor {
	if u := t.needKnown("flip"); u != nil {
		return u
	}
	if t.err != nil {
		return t
	}
	var norm []int
	if len(axes) == 0 {
		for ax := range t.NDim() {
			norm = append(norm, ax)
		}
	} else {
		var err error
		if norm, err = normAxes(axes, t.NDim()); err != nil {
			return errorf("flip: %w", err)
		}
	}
	if len(norm) == 0 {
		return t
	}
	return New(ops.Flip{Axes: norm}, t)
}

// Concatenate joins tensors along an existing axis (np.concatenate). Dtypes
// are promoted; every other axis must match. The inputs' chunks along the
// axis are reused as they are; other axes are rechunked to a common grid.
func Concatenate(axis int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		return errorf("concatenate: need at least one tensor to concatenate")
	}
	for i, x := range ts {
		if x == nil {
			return errorf("concatenate: tensor %d is nil", i)
		}
		if x.err != nil {
			return x
		}
	}
	nd := ts[0].NDim()
	if nd == 0 {
		return errorf("concatenate: zero-dimensional tensors cannot be concatenated")
	}
	ax, err := ndarray.NormAxis(axis, nd)
	if err != nil {
		return errorf("concatenate: %w", err)
	}
	dt := ts[0].meta.DType
	for i, x := range ts[1:] {
		if x.NDim() != nd {
			return errorf("concatenate: tensor 0 has shape %v and tensor %d has shape %v: all the input tensors must have the same number of dimensions", ts[0].meta.Shape, i+1, x.meta.Shape)
		}
		for a, d := range x.meta.Shape {
			if a != ax && d != ts[0].meta.Shape[a] {
				return errorf("concatenate: tensor 0 has shape %v and tensor %d has shape %v: they differ along axis %d (concatenating along axis %d)", ts[0].meta.Shape, i+1, x.meta.Shape, a, ax)
			}
		}
		dt = ndarray.Promote(dt, x.meta.DType)
	}
	if len(ts) == 1 {
		return ts[0]
	}
	cast := make([]*Tensor, len(ts))
	for i, x := range ts {
		cast[i] = x.Astype(dt)
	}
	return New(ops.Concatenate{Axis: ax}, cast...)
}

// Stack joins tensors of one shape along a new axis (np.stack): each gets a
// length-1 axis there, then they are concatenated.
func Stack(axis int, ts ...*Tensor) *Tensor {
	for _, t := range ts {
		if u := t.needKnown("stack"); u != nil {
			return u
		}
	}
	if len(ts) == 0 {
		return errorf("stack: need at least one tensor to stack")
	}
	for i, x := range ts {
		if x == nil {
			return errorf("stack: tensor %d is nil", i)
		}
		if x.err != nil {
			return x
		}
	}
	for i, x := range ts[1:] {
		if !slices.Equal(x.meta.Shape, ts[0].meta.Shape) {
			return errorf("stack: all input tensors must have the same shape: tensor 0 has shape %v and tensor %d has shape %v", ts[0].meta.Shape, i+1, x.meta.Shape)
		}
	}
	ax, err := ndarray.NormAxis(axis, ts[0].NDim()+1)
	if err != nil {
		return errorf("stack: %w", err)
	}
	ex := make([]*Tensor, len(ts))
	for i, x := range ts {
		ex[i] = x.ExpandDims(ax)
	}
	return Concatenate(ax, ex...)
}

// errTensors is n copies of one error tensor (at least one), so callers
// indexing the result of a failed split do not panic.
func errTensors(n int, err error) []*Tensor {
	out := make([]*Tensor, max(n, 1))
	e := errTensor(err)
	for i := range out {
		out[i] = e
	}
	return out
}

// Split divides t into sections equal parts along axis (np.split with an
// integer); the axis length must be divisible by sections. On error every
// returned tensor carries it.
func (t *Tensor) Split(axis, sections int) []*Tensor {
	if u := t.needKnown("split"); u != nil {
		return []*Tensor{u}
	}
	if t.err != nil {
		return errTensors(sections, t.err)
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errTensors(sections, fmt.Errorf("split: %w", err))
	}
	if sections <= 0 {
		return errTensors(1, fmt.Errorf("split: number of sections %d must be larger than 0", sections))
	}
	n := t.meta.Shape[ax]
	if n%sections != 0 {
		return errTensors(sections, fmt.Errorf("split: axis %d of length %d (shape %v) does not divide into %d equal sections", ax, n, t.meta.Shape, sections))
	}
	idx := make([]int, sections-1)
	for i := range idx {
		idx[i] = (i + 1) * (n / sections)
	}
	return t.SplitAt(ax, idx...)
}

// SplitAt divides t along axis before each of the given indices (np.split
// with a list): piece i is t[indices[i-1]:indices[i]] along the axis, with
// Python slice semantics, so negative indices count from the end and
// out-of-range or decreasing indices give empty pieces. It returns
// len(indices)+1 tensors.
func (t *Tensor) SplitAt(axis int, indices ...int) []*Tensor {
	if u := t.needKnown("split"); u != nil {
		return []*Tensor{u}
	}
	if t.err != nil {
		return errTensors(len(indices)+1, t.err)
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errTensors(len(indices)+1, fmt.Errorf("split: %w", err))
	}
	out := make([]*Tensor, len(indices)+1)
	idx := make([]Idx, ax+1)
	for i := range ax {
		idx[i] = All()
	}
	for i := range out {
		s := All()
		if i > 0 {
			s = s.From(indices[i-1])
		}
		if i < len(indices) {
			s = s.To(indices[i])
		}
		idx[ax] = s
		out[i] = t.Index(idx...)
	}
	return out
}
