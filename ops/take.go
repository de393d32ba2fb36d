package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		// Unknown: indices of unknown length (x[np.nonzero(...)]) give a result of unknown length along
		// their axis; x itself must be known (Infer says so).
		Descriptor{Name: "take", Op: Take{}, Kinds: Complex, Unknown: true},
		Descriptor{Name: "take_part", Op: TakePartChunk{}},
		Descriptor{Name: "take_join", Op: TakeJoinChunk{}},
	)
}

// Take is numpy.take(x, indices, axis) (and x[idx] for one integer array):
// the sub-arrays of x along Axis at the positions indices holds (negative
// counting from the end), in the shape x.shape[:axis] + indices.shape +
// x.shape[axis+1:].
//
// Neither x nor the indices are gathered in one place: for every chunk of
// the indices and every block of x along the axis, a chunk op picks the
// sub-arrays the indices name in that block (TakePartChunk: a chunk of
// unknown length, bounded by the index chunk's size, Meta.Unknown), and one
// op per output chunk puts the blocks' parts in the indices' places
// (TakeJoinChunk), which is where an index out of range is reported. Data
// moved is what the indices select, not x. When x's axis is one block,
// one op per index chunk looks the indices up in it (TakeBlockChunk).
type Take struct {
	Axis int `json:"axis"`
}

// Type implements TensorOp.
func (Take) Type() string { return "take" }

// Infer implements TensorOp.
func (op Take) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("take takes 2 inputs (x, indices), got %d", len(in))
	}
	x, idx := in[0], in[1]
	if x.Unknown != 0 {
		return Meta{}, &UnknownShapeError{Op: "take", Input: 0, Axis: x.UnknownAxis()}
	}
	if !idx.DType.IsInt() || idx.DType == ndarray.Uint64 {
		// uint64 does not cast safely to intp, which np.take requires.
		return Meta{}, fmt.Errorf("take: arrays used as indices must be of an integer type that casts safely to int64, got %v", idx.DType)
	}
	if op.Axis < 0 || op.Axis >= x.NDim() {
		return Meta{}, &ndarray.AxisError{Axis: op.Axis, NDim: x.NDim()}
	}
	if x.Shape[op.Axis] == 0 && ndarray.Size(idx.Shape) != 0 {
		return Meta{}, fmt.Errorf("take: cannot do a non-empty take from an empty axis (axis %d of shape %v)", op.Axis, x.Shape)
	}
	shape := slices.Concat(x.Shape[:op.Axis], idx.Shape, x.Shape[op.Axis+1:])
	m := Meta{Shape: shape, DType: x.DType}
	if u := idx.UnknownAxis(); u >= 0 {
		m.Unknown = int8(op.Axis + u + 1)
	}
	return m, nil
}

// Tile implements TensorOp.
func (op Take) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x, idx := in[0], in[1]
	ax, k := op.Axis, idx.Meta.NDim()
	blocks := x.NSplits[ax]
	nsplits := slices.Concat(x.NSplits[:ax], idx.NSplits, x.NSplits[ax+1:])
	res := &Tiled{Meta: out, NSplits: nsplits}
	if err := admitGrid(b, res.Grid(), float64(len(blocks)+1)); err != nil {
		return nil, err
	}
	offs := AxisOffsets([][]int{blocks})[0][:len(blocks)]
	n := x.Meta.Shape[ax]
	xidx := make([]int, x.Meta.NDim())
	parts := make([]ChunkRef, len(blocks))
	var shapes ShapeCache
	ForEachGrid(res.Grid(), func(o []int) {
		copy(xidx, o[:ax])
		copy(xidx[ax+1:], o[ax+k:])
		ic := idx.At(o[ax : ax+k])
		if len(blocks) == 1 {
			// x's axis is one block: look the indices up in it at once.
			xidx[ax] = 0
			res.Chunks = append(res.Chunks, b.AddChunk(TakeBlockChunk{Axis: ax}, []ChunkRef{x.At(xidx), ic},
				Meta{Shape: shapes.Shape(nsplits, o), DType: out.DType, Unknown: out.Unknown}))
			return
		}
		icShape := b.ChunkMeta(ic).Shape
		for j := range blocks {
			xidx[ax] = j
			xc := x.At(xidx)
			ps := slices.Clone(b.ChunkMeta(xc).Shape)
			ps[ax] = ndarray.Size(icShape)
			parts[j] = b.AddChunk(TakePartChunk{Axis: ax, Lo: offs[j], N: n}, []ChunkRef{xc, ic},
				Meta{Shape: ps, DType: out.DType, Unknown: int8(ax + 1)})
		}
		join := TakeJoinChunk{Axis: ax, Offsets: offs, N: n}
		res.Chunks = append(res.Chunks, b.AddChunk(join, append([]ChunkRef{ic}, parts...),
			Meta{Shape: shapes.Shape(nsplits, o), DType: out.DType, Unknown: out.Unknown}))
	})
	return res, nil
}

// TakePartChunk picks from a block of x (positions [Lo, Lo+len) of an
// axis of length N) the sub-arrays an index chunk names (Take).
type TakePartChunk struct {
	Axis int `json:"axis"`
	Lo   int `json:"lo"`
	N    int `json:"n"`
}

// Type implements ChunkOp.
func (TakePartChunk) Type() string { return "take_part" }

// Exec implements ChunkOp.
func (op TakePartChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("take_part: %d inputs, want 2", len(in))
	}
	return ndarray.TakePart(in[0], in[1], op.Axis, op.Lo, op.N)
}

// TakeJoinChunk puts the parts of every block in an index chunk's places
// (Take); its inputs are the index chunk, then one part per block.
type TakeJoinChunk struct {
	Axis    int   `json:"axis"`
	Offsets []int `json:"offsets"`
	N       int   `json:"n"`
}

// Type implements ChunkOp.
func (TakeJoinChunk) Type() string { return "take_join" }

// Exec implements ChunkOp.
func (op TakeJoinChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != len(op.Offsets)+1 {
		return nil, fmt.Errorf("take_join: %d inputs, want the indices and %d parts", len(in), len(op.Offsets))
	}
	return ndarray.TakeJoin(in[0], in[1:], op.Axis, op.Offsets, op.N)
}
