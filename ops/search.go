package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "searchsorted", Op: SearchSorted{}},
		Descriptor{Name: "searchsorted_count", Op: SearchCountChunk{}},
	)
}

// SearchSorted is numpy.searchsorted(a, v, side) for a sorted 1-D a: for
// each element of v, its insertion index in a. Since a is sorted, the
// index is the number of a's elements below v (at most v for side
// "right"), which every chunk of a counts for every chunk of v; the counts
// are summed by a tree, so neither a nor v is gathered. NaNs sort last, as
// in numpy.sort; a that is not sorted gives NumPy's unspecified answer
// (not checked).
type SearchSorted struct {
	Right bool `json:"right,omitempty"`
	FanIn int  `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (SearchSorted) Type() string { return "searchsorted" }

// Infer implements TensorOp.
func (op SearchSorted) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("searchsorted takes 2 inputs (a, v), got %d", len(in))
	}
	a, v := in[0], in[1]
	if a.NDim() != 1 {
		return Meta{}, fmt.Errorf("searchsorted: a must be 1-D, got shape %v", a.Shape)
	}
	if a.DType != v.DType || !a.DType.Valid() {
		return Meta{}, fmt.Errorf("searchsorted: a of %v and v of %v: give both one dtype", a.DType, v.DType)
	}
	return Meta{Shape: slices.Clone(v.Shape), DType: ndarray.Int64}, nil
}

// Tile implements TensorOp.
func (op SearchSorted) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	a, v := in[0], in[1]
	fan := op.FanIn
	if fan < 2 {
		fan = DefaultFanIn
	}
	if err := admitGrid(b, v.Grid(), float64(len(a.Chunks))); err != nil {
		return nil, err
	}
	res := &Tiled{Meta: out, NSplits: v.NSplits}
	for _, vc := range v.Chunks {
		m := Meta{Shape: b.ChunkMeta(vc).Shape, DType: ndarray.Int64}
		level := make([]ChunkRef, len(a.Chunks))
		for j, ac := range a.Chunks {
			level[j] = b.AddChunk(SearchCountChunk{Right: op.Right}, []ChunkRef{ac, vc}, m)
		}
		for len(level) > 1 {
			var next []ChunkRef
			for i := 0; i < len(level); i += fan {
				g := level[i:min(i+fan, len(level))]
				if len(g) == 1 {
					next = append(next, g[0])
					continue
				}
				next = append(next, b.AddChunk(ReduceCombine{Func: "sum"}, slices.Clone(g), m))
			}
			level = next
		}
		res.Chunks = append(res.Chunks, level[0])
	}
	return res, nil
}

// SearchCountChunk counts a chunk of the sorted a below each element of a
// chunk of v (SearchSorted).
type SearchCountChunk struct {
	Right bool `json:"right,omitempty"`
}

// Type implements ChunkOp.
func (SearchCountChunk) Type() string { return "searchsorted_count" }

// Exec implements ChunkOp.
func (op SearchCountChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("searchsorted_count: %d inputs, want 2", len(in))
	}
	return ndarray.SearchCount(in[0], in[1], op.Right)
}
