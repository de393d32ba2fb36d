package ops

import (
	"context"
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "cumulative", Op: Cumulative{}, Kinds: Complex},
		Descriptor{Name: "cum_carry", Op: CumCarry{}},
	)
}

// Cumulative is cumsum or cumprod along one axis. It serves both levels: as
// a tensor op it tiles into a local scan per chunk (the chunk op is the same
// struct) plus a CumCarry chain along the axis, linear in the chunk count.
type Cumulative struct {
	// Func is "cumsum" or "cumprod".
	Func string `json:"func"`
	// Axis is normalised; a 0-d input is scanned as one element of 1-D (axis 0).
	Axis int `json:"axis"`
}

// Type implements TensorOp and ChunkOp.
func (op Cumulative) Type() string { return op.Func }

func (op Cumulative) binary() (ndarray.BinaryOp, error) {
	switch op.Func {
	case "cumsum":
		return ndarray.Add, nil
	case "cumprod":
		return ndarray.Mul, nil
	}
	return 0, fmt.Errorf("cumulative: unknown function %q (want cumsum or cumprod)", op.Func)
}

// cumResultType is numpy's dtype for cumsum and cumprod: floats keep
// their type, bool and signed integers accumulate in int64, unsigned ones
// in uint64 (the dtype of their sums).
func cumResultType(in ndarray.DType) ndarray.DType {
	return ndarray.ReduceResultType(ndarray.Sum, in)
}

// Infer implements TensorOp.
func (op Cumulative) Infer(in []Meta) (Meta, error) {
	if len(in) != 1 {
		return Meta{}, fmt.Errorf("%s takes 1 input, got %d", op.Func, len(in))
	}
	if _, err := op.binary(); err != nil {
		return Meta{}, err
	}
	m := in[0]
	shape := append([]int(nil), m.Shape...)
	nd := m.NDim()
	if nd == 0 {
		shape, nd = []int{1}, 1 // numpy scans a 0-d array as 1-D
	}
	if op.Axis < 0 || op.Axis >= nd {
		return Meta{}, fmt.Errorf("%s: axis %d is out of bounds for a tensor of shape %v", op.Func, op.Axis, m.Shape)
	}
	return Meta{Shape: shape, DType: cumResultType(m.DType)}, nil
}

// Tile implements TensorOp. Chunks are scanned independently; then, along
// the axis, each chunk's scan is combined with the last slice of the
// previous chunk's final result.
func (op Cumulative) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	if t.Meta.NDim() == 0 {
		c := b.AddChunk(op, []ChunkRef{t.Chunks[0]}, out)
		return &Tiled{Meta: out, NSplits: [][]int{{1}}, Chunks: []ChunkRef{c}}, nil
	}
	res := &Tiled{Meta: out, NSplits: t.NSplits, Chunks: make([]ChunkRef, len(t.Chunks))}
	grid := t.Grid()
	carry := CumCarry{Func: op.Func, Axis: op.Axis}
	ForEachGrid(grid, func(idx []int) {
		meta := Meta{Shape: ChunkShape(t.NSplits, idx), DType: out.DType}
		f := GridFlat(grid, idx)
		local := b.AddChunk(op, []ChunkRef{t.Chunks[f]}, meta)
		if idx[op.Axis] == 0 {
			res.Chunks[f] = local
			return
		}
		// C order: the previous chunk along the axis is already final.
		idx[op.Axis]--
		prev := res.Chunks[GridFlat(grid, idx)]
		idx[op.Axis]++
		res.Chunks[f] = b.AddChunk(carry, []ChunkRef{local, prev}, meta)
	})
	return res, nil
}

// Exec implements ChunkOp: the local scan of one chunk.
func (op Cumulative) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	switch op.Func {
	case "cumsum":
		return ndarray.CumSum(in[0], op.Axis)
	case "cumprod":
		return ndarray.CumProd(in[0], op.Axis)
	}
	return nil, fmt.Errorf("cumulative: unknown function %q", op.Func)
}

// CumCarry finishes a chunk of a cumulative op: in[0] is its local scan,
// in[1] the finished previous chunk along Axis, whose last slice is added
// (cumsum) or multiplied (cumprod) into every slice of in[0].
type CumCarry struct {
	Func string `json:"func"`
	Axis int    `json:"axis"`
}

// Type implements ChunkOp.
func (op CumCarry) Type() string { return op.Func + "_carry" }

// Exec implements ChunkOp.
func (op CumCarry) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("%s: %d inputs, want 2", op.Type(), len(in))
	}
	bo, err := Cumulative(op).binary()
	if err != nil {
		return nil, err
	}
	prev := in[1]
	n := prev.Shape()[op.Axis]
	if n == 0 {
		return in[0], nil
	}
	r := make([]ndarray.Range, op.Axis+1)
	for ax := range r {
		r[ax] = ndarray.Range{Start: 0, Step: 1, Len: prev.Shape()[ax]}
	}
	r[op.Axis] = ndarray.Range{Start: n - 1, Step: 1, Len: 1}
	last, err := prev.Slice(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Type(), err)
	}
	return ndarray.Binary(bo, in[0], last)
}
