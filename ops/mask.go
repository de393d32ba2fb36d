package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "boolean_mask", Op: BooleanMask{}, Kinds: Complex},
		Descriptor{Name: "boolean_mask_chunk", Op: MaskChunk{}},
		// Unknown: the value has the selection's unknown length; x and the mask must be known (Infer says
		// so).
		Descriptor{Name: "mask_place", Op: MaskPlace{}, Kinds: Complex, Unknown: true},
		Descriptor{Name: "mask_place_chunk", Op: MaskPlaceChunk{}},
		Descriptor{Name: "argwhere", Op: ArgWhere{}, Kinds: Complex},
		Descriptor{Name: "argwhere_chunk", Op: ArgWhereChunk{}},
	)
}

// BooleanMask is NumPy's boolean indexing x[..., mask, ...]: mask (bool)
// covers axes [Axis, Axis+mask.ndim) of x, and the result has one axis
// there, of unknown length (Meta.Unknown), holding x's sub-arrays where
// mask is true in C order. x[mask] is Axis 0 with a mask of x's shape;
// x[:, m] is Axis 1 with a 1-D m.
//
// Each chunk of x is selected by the matching chunk of mask, so nothing
// is gathered: the result's chunks follow x's, each of unknown length
// bounded by its chunk's size. For C order across chunks, every masked axis
// but the first is made whole, and the first is cut so that chunks keep
// about the size of x's.
type BooleanMask struct {
	Axis int `json:"axis"`
}

// Type implements TensorOp.
func (BooleanMask) Type() string { return "boolean_mask" }

// Infer implements TensorOp.
func (op BooleanMask) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("boolean_mask takes 2 inputs (x, mask), got %d", len(in))
	}
	x, m := in[0], in[1]
	if m.DType != ndarray.Bool {
		return Meta{}, fmt.Errorf("boolean_mask: mask of dtype %v: want bool", m.DType)
	}
	k := m.NDim()
	if op.Axis < 0 || k == 0 || op.Axis+k > x.NDim() {
		return Meta{}, fmt.Errorf("too many indices for array: array is %d-dimensional, but a %d-dimensional boolean index at axis %d was given", x.NDim(), k, op.Axis)
	}
	for i, d := range m.Shape {
		if x.Shape[op.Axis+i] != d {
			return Meta{}, fmt.Errorf("boolean index did not match indexed array along dimension %d; dimension is %d but corresponding boolean dimension is %d",
				op.Axis+i, x.Shape[op.Axis+i], d)
		}
	}
	shape := slices.Concat(x.Shape[:op.Axis], []int{-1}, x.Shape[op.Axis+k:])
	return Meta{Shape: shape, DType: x.DType, Unknown: int8(op.Axis + 1)}, nil
}

// Tile implements TensorOp.
func (op BooleanMask) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	g, err := newMaskGrid(b, in[0], in[1], op.Axis)
	if err != nil {
		return nil, err
	}
	res := &Tiled{Meta: out, NSplits: g.nsplits}
	var shapes ShapeCache
	ForEachGrid(res.Grid(), func(idx []int) {
		xc, mc := g.at(idx)
		meta := Meta{Shape: shapes.Shape(g.nsplits, idx), DType: out.DType, Unknown: out.Unknown}
		res.Chunks = append(res.Chunks, b.AddChunk(MaskChunk{Axis: op.Axis}, []ChunkRef{xc, mc}, meta))
	})
	return res, nil
}

// maskGrid is x and its mask rechunked for a selection: every masked axis
// but the first whole (so the chunks' selections follow in C order), the
// first cut so that chunks keep about x's chunk size, and the mask cut as
// x. nsplits is the selection's chunking: x's, with the masked axes as one
// axis bounded by each chunk's masked size.
type maskGrid struct {
	x, m    *Tiled
	ax, k   int
	nsplits [][]int
	xidx    []int
	midx    []int
}

func newMaskGrid(b Builder, x, m *Tiled, ax int) (*maskGrid, error) {
	k := m.Meta.NDim()
	want := slices.Clone(x.NSplits)
	rest := 1 // elements of one step along the first masked axis
	for i := 1; i < k; i++ {
		rest *= x.Meta.Shape[ax+i]
		want[ax+i] = []int{x.Meta.Shape[ax+i]}
	}
	if k > 1 {
		chunk, other := 1, 1
		for i, sp := range x.NSplits {
			mx := slices.Max(sp)
			chunk *= mx
			if i < ax || i >= ax+k {
				other *= mx
			}
		}
		want[ax] = SplitEven(x.Meta.Shape[ax], max(1, chunk/max(1, rest*other)))
	}
	nsplits := slices.Concat(want[:ax], [][]int{make([]int, len(want[ax]))}, want[ax+k:])
	for i, n := range want[ax] {
		nsplits[ax][i] = n * rest
	}
	if err := admitGrid(b, gridOf(nsplits), 1); err != nil {
		return nil, err
	}
	return &maskGrid{
		x: RechunkTiled(b, x, want), m: RechunkTiled(b, m, want[ax:ax+k]), ax: ax, k: k, nsplits: nsplits,
		xidx: make([]int, x.Meta.NDim()), midx: make([]int, k),
	}, nil
}

// at is the chunks of x and of the mask behind the selection's chunk idx.
func (g *maskGrid) at(idx []int) (x, m ChunkRef) {
	ax, k := g.ax, g.k
	copy(g.xidx, idx[:ax])
	g.xidx[ax] = idx[ax]
	for i := 1; i < k; i++ {
		g.xidx[ax+i] = 0
	}
	copy(g.xidx[ax+k:], idx[ax+1:])
	g.midx[0] = idx[ax]
	return g.x.At(g.xidx), g.m.At(g.midx)
}

// MaskChunk selects one chunk of x by its chunk of the mask (BooleanMask).
type MaskChunk struct {
	Axis int `json:"axis"`
}

// Type implements ChunkOp.
func (MaskChunk) Type() string { return "boolean_mask_chunk" }

// Exec implements ChunkOp.
func (op MaskChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("boolean_mask_chunk: %d inputs, want 2", len(in))
	}
	return ndarray.MaskSelect(in[0], in[1], op.Axis)
}

// ArgWhere is numpy.argwhere(x): the (n, ndim) int64 coordinates of x's
// nonzero elements in C order, n unknown until x is computed; with Column
// >= 0, only that column, (n,): numpy.nonzero(x)[Column]. It is tiled as
// BooleanMask over every axis of x (all axes but the first made whole, the
// first cut to keep x's chunk size), each chunk op adding its chunk's
// offset along the first axis.
type ArgWhere struct {
	Column int `json:"column"`
}

// Type implements TensorOp.
func (ArgWhere) Type() string { return "argwhere" }

// Infer implements TensorOp.
func (op ArgWhere) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("argwhere", in); err != nil {
		return Meta{}, err
	}
	nd := in[0].NDim()
	if !in[0].DType.Valid() {
		return Meta{}, fmt.Errorf("argwhere: invalid dtype %v", in[0].DType)
	}
	if op.Column >= nd || op.Column < -1 || (nd == 0 && op.Column >= 0) {
		return Meta{}, fmt.Errorf("argwhere: column %d of a %d-D tensor", op.Column, nd)
	}
	if op.Column >= 0 {
		return Meta{Shape: []int{-1}, DType: ndarray.Int64, Unknown: 1}, nil
	}
	return Meta{Shape: []int{-1, nd}, DType: ndarray.Int64, Unknown: 1}, nil
}

// Tile implements TensorOp.
func (op ArgWhere) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	nd := x.Meta.NDim()
	if nd == 0 {
		res := &Tiled{Meta: out, NSplits: [][]int{{1}, {0}}}
		if op.Column >= 0 {
			res.NSplits = res.NSplits[:1]
		}
		m := Meta{Shape: []int{1, 0}, DType: ndarray.Int64, Unknown: 1}
		if op.Column >= 0 {
			m.Shape = m.Shape[:1]
		}
		res.Chunks = []ChunkRef{b.AddChunk(ArgWhereChunk{Column: op.Column}, []ChunkRef{x.Chunks[0]}, m)}
		return res, nil
	}
	want := slices.Clone(x.NSplits)
	rest, chunk := 1, 1
	for i := 1; i < nd; i++ {
		rest *= x.Meta.Shape[i]
		want[i] = []int{x.Meta.Shape[i]}
	}
	for _, sp := range x.NSplits {
		chunk *= slices.Max(sp)
	}
	if nd > 1 {
		want[0] = SplitEven(x.Meta.Shape[0], max(1, chunk/max(1, rest)))
	}
	bounds := make([]int, len(want[0]))
	for i, n := range want[0] {
		bounds[i] = n * rest
	}
	res := &Tiled{Meta: out, NSplits: [][]int{bounds}}
	if op.Column < 0 {
		res.NSplits = append(res.NSplits, []int{nd})
	}
	if err := admitGrid(b, res.Grid(), 1); err != nil {
		return nil, err
	}
	xt := RechunkTiled(b, x, want)
	offs := AxisOffsets(want)
	idx := make([]int, nd)
	for i, n := range bounds {
		idx[0] = i
		shape := []int{n, nd}
		if op.Column >= 0 {
			shape = shape[:1]
		}
		res.Chunks = append(res.Chunks, b.AddChunk(ArgWhereChunk{Offset: offs[0][i], Column: op.Column},
			[]ChunkRef{xt.At(idx)}, Meta{Shape: shape, DType: ndarray.Int64, Unknown: 1}))
	}
	return res, nil
}

// ArgWhereChunk is ArgWhere of one chunk, whose first coordinate is
// shifted by Offset.
type ArgWhereChunk struct {
	Offset int `json:"offset"`
	Column int `json:"column"`
}

// Type implements ChunkOp.
func (ArgWhereChunk) Type() string { return "argwhere_chunk" }

// Exec implements ChunkOp.
func (op ArgWhereChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("argwhere_chunk: %d inputs, want 1", len(in))
	}
	if in[0].NDim() == 0 {
		// NumPy's argwhere of a 0-d array: shape (1, 0) or (0, 0).
		n := 0
		if in[0].AtFlat(0) != 0 {
			n = 1
		}
		if op.Column >= 0 {
			return nil, fmt.Errorf("argwhere_chunk: column %d of a 0-d array", op.Column)
		}
		return ndarray.New(ndarray.Int64, n, 0)
	}
	return ndarray.ArgWhere(in[0], op.Offset, op.Column)
}

// MaskPlace is NumPy's x[..., mask, ...] = v as a new tensor, for a value
// v of unknown length that is a selection by the same mask (x[m] = x[m] *
// 2): v must be chunked as BooleanMask chunks x by that mask, so that each
// chunk of v holds exactly what its chunk of x selects, and every chunk op
// places one chunk (a count that differs fails it, in NumPy's words).
type MaskPlace struct {
	Axis int `json:"axis"`
}

// Type implements TensorOp.
func (MaskPlace) Type() string { return "mask_place" }

// Infer implements TensorOp.
func (op MaskPlace) Infer(in []Meta) (Meta, error) {
	if len(in) != 3 {
		return Meta{}, fmt.Errorf("mask_place takes 3 inputs (x, mask, values), got %d", len(in))
	}
	for i, m := range in[:2] {
		if m.Unknown != 0 {
			return Meta{}, &UnknownShapeError{Op: "mask_place", Input: i, Axis: m.UnknownAxis()}
		}
	}
	sel, err := BooleanMask{Axis: op.Axis}.Infer(in[:2])
	if err != nil {
		return Meta{}, err
	}
	v := in[2]
	if v.DType != sel.DType || v.Unknown != sel.Unknown || !slices.Equal(v.Shape, sel.Shape) {
		return Meta{}, fmt.Errorf("mask_place: values %v (unknown axis %d) are not a selection %v by the mask at axis %d", v, v.UnknownAxis(), sel, op.Axis)
	}
	return in[0], nil
}

// Tile implements TensorOp.
func (op MaskPlace) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	g, err := newMaskGrid(b, in[0], in[1], op.Axis)
	if err != nil {
		return nil, err
	}
	v := in[2]
	for ax, sp := range g.nsplits {
		if !slices.Equal(sp, v.NSplits[ax]) {
			return nil, fmt.Errorf("mask_place: values chunked %v, not as the mask's selection of x (%v): assign a value computed from x[mask] itself, or execute it first", v.NSplits, g.nsplits)
		}
	}
	res := &Tiled{Meta: out, NSplits: g.x.NSplits}
	// The selection's chunk idx covers x's chunk at the same grid position
	// with the masked axes beyond the first (whole) inserted.
	ForEachGrid(gridOf(g.nsplits), func(idx []int) {
		xc, mc := g.at(idx)
		res.Chunks = append(res.Chunks, b.AddChunk(MaskPlaceChunk{Axis: op.Axis}, []ChunkRef{xc, mc, v.At(idx)}, b.ChunkMeta(xc)))
	})
	return res, nil
}

// MaskPlaceChunk places one chunk of values into its chunk of x (MaskPlace).
type MaskPlaceChunk struct {
	Axis int `json:"axis"`
}

// Type implements ChunkOp.
func (MaskPlaceChunk) Type() string { return "mask_place_chunk" }

// Exec implements ChunkOp.
func (op MaskPlaceChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("mask_place_chunk: %d inputs, want 3", len(in))
	}
	return ndarray.MaskPlace(in[0], in[1], in[2], op.Axis)
}
