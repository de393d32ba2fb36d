package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "scatter", Op: Scatter{}, Kinds: Complex},
		Descriptor{Name: "scatter_chunk", Op: ScatterChunk{}},
		Descriptor{Name: "check", Op: Check{}},
	)
}

// Scatter is x with rows replaced, x[idx] = values along axis 0 (package
// tensor moves another axis to the front and back): idx is a 1-D integer
// tensor (negative counting from the end), values has shape (len(idx),
// x.shape[1:]...) and x's dtype; a later index wins over an earlier one.
// Each chunk of x becomes one op that reads every index chunk and its rows
// of values, so only the values move; an index out of range fails it.
type Scatter struct{}

// Type implements TensorOp.
func (Scatter) Type() string { return "scatter" }

// Infer implements TensorOp.
func (Scatter) Infer(in []Meta) (Meta, error) {
	if len(in) != 3 {
		return Meta{}, fmt.Errorf("scatter takes 3 inputs (x, indices, values), got %d", len(in))
	}
	x, idx, v := in[0], in[1], in[2]
	switch {
	case x.NDim() == 0:
		return Meta{}, fmt.Errorf("scatter: a 0-d tensor has no rows")
	case !idx.DType.IsInt() || idx.DType == ndarray.Uint64:
		return Meta{}, fmt.Errorf("scatter: arrays used as indices must be of integer type, got %v", idx.DType)
	case idx.NDim() != 1:
		return Meta{}, fmt.Errorf("scatter: indices of shape %v: want 1-D", idx.Shape)
	case v.DType != x.DType:
		return Meta{}, fmt.Errorf("scatter: values of dtype %v into %v", v.DType, x.DType)
	case v.NDim() != x.NDim() || v.Shape[0] != idx.Shape[0] || !slices.Equal(v.Shape[1:], x.Shape[1:]):
		return Meta{}, fmt.Errorf("scatter: values of shape %v for %d indices into rows of shape %v", v.Shape, idx.Shape[0], x.Shape[1:])
	case x.Shape[0] == 0 && idx.Shape[0] > 0:
		return Meta{}, fmt.Errorf("scatter: index into an empty axis (shape %v)", x.Shape)
	}
	return Meta{Shape: slices.Clone(x.Shape), DType: x.DType}, nil
}

// Tile implements TensorOp.
func (op Scatter) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x, idx := in[0], in[1]
	v := RechunkTiled(b, in[2], append([][]int{idx.NSplits[0]}, x.NSplits[1:]...))
	res := &Tiled{Meta: out, NSplits: x.NSplits}
	if err := admitGrid(b, x.Grid(), 1); err != nil {
		return nil, err
	}
	offs := AxisOffsets(x.NSplits)[0]
	nIdx := len(idx.Chunks)
	vidx := make([]int, v.Meta.NDim())
	ForEachGrid(x.Grid(), func(g []int) {
		ins := make([]ChunkRef, 0, 1+2*nIdx)
		ins = append(ins, x.At(g))
		ins = append(ins, idx.Chunks...)
		copy(vidx[1:], g[1:])
		for i := range nIdx {
			vidx[0] = i
			ins = append(ins, v.At(vidx))
		}
		xc := x.At(g)
		res.Chunks = append(res.Chunks, b.AddChunk(ScatterChunk{Lo: offs[g[0]], N: x.Meta.Shape[0]}, ins, b.ChunkMeta(xc)))
	})
	return res, nil
}

// ScatterChunk is one chunk of Scatter: its inputs are x's chunk, every
// index chunk, then every values chunk of the same rows.
type ScatterChunk struct {
	Lo int `json:"lo"`
	N  int `json:"n"`
}

// Type implements ChunkOp.
func (ScatterChunk) Type() string { return "scatter_chunk" }

// Exec implements ChunkOp.
func (op ScatterChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) < 1 || (len(in)-1)%2 != 0 {
		return nil, fmt.Errorf("scatter_chunk: %d inputs, want x then index and values chunks in pairs", len(in))
	}
	k := (len(in) - 1) / 2
	return ndarray.ScatterRows(in[0], in[1:1+k], in[1+k:], op.Lo, op.N)
}

// Check passes its second input through when its first, a bool scalar, is
// true, and fails with Msg otherwise: how a condition that only the data
// can tell (the count a mask selects) becomes an error of Execute.
type Check struct {
	Msg string `json:"msg"`
}

// Type implements TensorOp and ChunkOp.
func (Check) Type() string { return "check" }

// Infer implements TensorOp.
func (op Check) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("check takes 2 inputs (condition, x), got %d", len(in))
	}
	if in[0].DType != ndarray.Bool || ndarray.Size(in[0].Shape) != 1 {
		return Meta{}, fmt.Errorf("check: condition %v: want one bool", in[0])
	}
	return in[1], nil
}

// Tile implements TensorOp.
func (op Check) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	cond := in[0].Chunks[0]
	res := &Tiled{Meta: out, NSplits: in[1].NSplits}
	for _, c := range in[1].Chunks {
		res.Chunks = append(res.Chunks, b.AddChunk(op, []ChunkRef{cond, c}, b.ChunkMeta(c)))
	}
	return res, nil
}

// Exec implements ChunkOp.
func (op Check) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("check: %d inputs, want 2", len(in))
	}
	if in[0].Size() != 1 || in[0].AtFlat(0) == 0 {
		return nil, fmt.Errorf("%s", op.Msg)
	}
	return in[1].Slice(nil) // a view: the buffer is shared, as view ops share theirs
}

// IsView marks Check as a view: it passes its input's buffer through.
func (Check) IsView() {}
