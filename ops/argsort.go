package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "argsort", Op: Argsort{}},
		Descriptor{Name: "argsort_lanes", Op: ArgsortLanes{}},
		Descriptor{Name: "argsort_pairs", Op: ArgsortPairs{}},
		Descriptor{Name: "argsort_sample", Op: ArgsortSample{}},
		Descriptor{Name: "argsort_bounds", Op: ArgsortBounds{}},
		Descriptor{Name: "argsort_piece", Op: ArgsortPiece{}},
		Descriptor{Name: "argsort_merge", Op: ArgsortMerge{}},
	)
}

// Argsort is numpy.argsort(x, axis, kind='stable'): the positions along
// Axis that sort every lane (int64; NaNs last; equal elements in the
// order of their positions, which is also a valid answer for NumPy's
// other kinds). It tiles as Sort does: along an axis of a tensor of
// several dimensions (or a 1-D tensor in one chunk) the axis is made
// whole and every chunk sorts its lanes; a 1-D tensor in several chunks
// goes through Sort's PSRS shuffle with every element's position carried
// beside its key. The order (key, position) is total, so the pivots split
// equal values between parts and the parts' bound holds, and each part's
// merge gives its positions in sorted order, stable.
type Argsort struct {
	Axis int `json:"axis"`
}

// Type implements TensorOp.
func (Argsort) Type() string { return "argsort" }

// Infer implements TensorOp.
func (op Argsort) Infer(in []Meta) (Meta, error) {
	return sortMeta("argsort", op.Axis, in, ndarray.Int64)
}

// Tile implements TensorOp.
func (op Argsort) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	if x.Meta.NDim() > 1 || len(x.Chunks) == 1 {
		return tileLanes(b, x, op.Axis, "argsort", ArgsortLanes{Axis: op.Axis}, out)
	}
	return inSortParts(b, x, out, argPSRS)
}

// argPSRS is psrs for positions: sorted chunks are (key, position) pairs,
// and the merged parts hold positions only, which Sort's slices and joins
// then cut back to x's chunks.
func argPSRS(b Builder, x *Tiled, out Meta) (*Tiled, error) {
	lens := x.NSplits[0]
	m := len(lens)
	n := x.Meta.Shape[0]
	s := sortSamples(m)
	if err := admitGrid(b, []int{m, m}, 2); err != nil {
		return nil, err
	}
	i64 := func(shape ...int) Meta { return Meta{Shape: shape, DType: ndarray.Int64} }
	offs := AxisOffsets(x.NSplits)[0]
	pairs := make([]ChunkRef, m)
	samples := make([]ChunkRef, m)
	total, gap := 0, 1
	for i, c := range x.Chunks {
		pairs[i] = b.AddChunk(ArgsortPairs{Offset: offs[i]}, []ChunkRef{c}, i64(lens[i], 2))
		k := min(lens[i], s)
		total += k
		if k > 0 {
			gap = max(gap, (lens[i]+k-1)/k)
		}
		samples[i] = b.AddChunk(ArgsortSample{Chunk: i, Samples: s}, []ChunkRef{pairs[i]}, i64(k, 3))
	}
	pivots := b.AddChunk(SortPivots{Parts: m}, samples, i64(m-1, 3))
	bound := min(n, ((total+m-1)/m+1+m)*gap) // as in psrs
	bounds := make([]ChunkRef, m)
	for i := range m {
		bounds[i] = b.AddChunk(ArgsortBounds{}, []ChunkRef{pairs[i], pivots}, i64(m+1))
	}
	parts := make([]ChunkRef, m)
	pieces := make([]ChunkRef, m)
	for p := range m {
		for i := range m {
			pieces[i] = b.AddChunk(ArgsortPiece{Part: p}, []ChunkRef{pairs[i], bounds[i]},
				Meta{Shape: []int{min(lens[i], bound), 2}, DType: ndarray.Int64, Unknown: 1})
		}
		parts[p] = b.AddChunk(ArgsortMerge{}, slices.Clone(pieces), Meta{Shape: []int{bound}, DType: ndarray.Int64, Unknown: 1})
	}
	counts := b.AddChunk(SortCounts{}, bounds, i64(m+1))
	return cutParts(b, parts, counts, x.NSplits, bound, out), nil
}

// cutParts cuts the sorted parts of a PSRS (their offsets in counts) into
// chunks of nsplits: each output chunk joins the slices of the parts that
// hold its rank range.
func cutParts(b Builder, parts []ChunkRef, counts ChunkRef, nsplits [][]int, bound int, out Meta) *Tiled {
	res := &Tiled{Meta: out, NSplits: nsplits}
	offs := AxisOffsets(nsplits)[0]
	slicesOf := make([]ChunkRef, len(parts))
	for k, c := range nsplits[0] {
		lo, hi := offs[k], offs[k]+c
		for p := range parts {
			slicesOf[p] = b.AddChunk(SortSlice{Part: p, Lo: lo, Hi: hi}, []ChunkRef{parts[p], counts},
				Meta{Shape: []int{min(bound, c)}, DType: out.DType, Unknown: 1})
		}
		res.Chunks = append(res.Chunks, b.AddChunk(SortJoin{Len: c}, slices.Clone(slicesOf), Meta{Shape: []int{c}, DType: out.DType}))
	}
	return res
}

// ArgsortLanes argsorts every lane of a chunk along Axis (the whole axis).
type ArgsortLanes struct {
	Axis int `json:"axis"`
}

// Type implements ChunkOp.
func (ArgsortLanes) Type() string { return "argsort_lanes" }

// Exec implements ChunkOp.
func (op ArgsortLanes) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("argsort_lanes", in); err != nil {
		return nil, err
	}
	return ndarray.ArgsortAxis(in[0], op.Axis)
}

// ArgsortPairs sorts a chunk whose first element is at Offset of the
// array into (key, position) rows.
type ArgsortPairs struct {
	Offset int `json:"offset"`
}

// Type implements ChunkOp.
func (ArgsortPairs) Type() string { return "argsort_pairs" }

// Exec implements ChunkOp.
func (op ArgsortPairs) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("argsort_pairs", in); err != nil {
		return nil, err
	}
	return ndarray.ArgsortPairs(in[0], op.Offset)
}

// ArgsortSample takes the regular samples of the sorted pairs of chunk
// number Chunk.
type ArgsortSample struct {
	Chunk   int `json:"chunk"`
	Samples int `json:"samples"`
}

// Type implements ChunkOp.
func (ArgsortSample) Type() string { return "argsort_sample" }

// Exec implements ChunkOp.
func (op ArgsortSample) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("argsort_sample", in); err != nil {
		return nil, err
	}
	return ndarray.ArgsortSamples(in[0], op.Chunk, op.Samples)
}

// ArgsortBounds splits a chunk's sorted pairs at the pivots.
type ArgsortBounds struct{}

// Type implements ChunkOp.
func (ArgsortBounds) Type() string { return "argsort_bounds" }

// Exec implements ChunkOp.
func (ArgsortBounds) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("argsort_bounds: %d inputs, want 2", len(in))
	}
	return ndarray.ArgsortBounds(in[0], in[1])
}

// ArgsortPiece is the Part-th piece of a chunk's sorted pairs (its inputs:
// the pairs and their bounds), a view of its rows.
type ArgsortPiece struct {
	Part int `json:"part"`
}

// Type implements ChunkOp.
func (ArgsortPiece) Type() string { return "argsort_piece" }

// Exec implements ChunkOp.
func (op ArgsortPiece) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 || in[0].NDim() != 2 || in[1].Size() < op.Part+2 {
		return nil, fmt.Errorf("argsort_piece: want sorted pairs and their bounds for part %d", op.Part)
	}
	lo, hi := int(in[1].AtFlat(op.Part)), int(in[1].AtFlat(op.Part+1))
	if lo < 0 || hi < lo || hi > in[0].Shape()[0] {
		return nil, fmt.Errorf("argsort_piece: rows [%d, %d) of %v", lo, hi, in[0].Shape())
	}
	return in[0].Slice([]ndarray.Range{{Start: lo, Step: 1, Len: hi - lo}, {Start: 0, Step: 1, Len: in[0].Shape()[1]}})
}

// ArgsortMerge merges a part's pieces (in the order of their chunks) into
// the part's positions in sorted order.
type ArgsortMerge struct{}

// Type implements ChunkOp.
func (ArgsortMerge) Type() string { return "argsort_merge" }

// Exec implements ChunkOp.
func (ArgsortMerge) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.ArgsortMerge(in)
}
