package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "sort", Op: Sort{}, Kinds: Complex},
		Descriptor{Name: "sort_lanes", Op: SortLanes{}},
		Descriptor{Name: "sort_sample", Op: SortSample{}},
		Descriptor{Name: "sort_pivots", Op: SortPivots{}},
		Descriptor{Name: "sort_bounds", Op: SortBounds{}},
		Descriptor{Name: "sort_piece", Op: SortPiece{}},
		Descriptor{Name: "sort_merge", Op: SortMerge{}},
		Descriptor{Name: "sort_counts", Op: SortCounts{}},
		Descriptor{Name: "sort_slice", Op: SortSlice{}},
		Descriptor{Name: "sort_join", Op: SortJoin{}},
	)
}

// Sort is numpy.sort(x, axis) (NaNs last). Along an axis of a tensor of
// several dimensions, that axis is made whole and every chunk sorts its
// lanes. A 1-D tensor is sorted by parallel sorting by regular sampling
// (PSRS) over a shuffle, so no worker ever holds more than about one
// chunk's worth of it:
//
//  1. each chunk is sorted (a radix sort of order-preserving keys) and
//     gives regular samples, keyed (value, chunk, position): a total
//     order, so equal values spread over the parts too;
//  2. one op picks M-1 pivots from all samples (M = x's chunks);
//  3. each sorted chunk is split at the pivots (bounds), and each of its M
//     pieces is a view of it (the shuffle's map side: pieces stay on the
//     worker of their chunk until a reducer fetches them);
//  4. reducer b merges the b-th piece of every chunk: part b of the
//     sorted array, of a length known only from the data (Meta.Unknown),
//     bounded by the regular sampling's guarantee: a part holds at most
//     (samples between two pivots + 1 + M) gaps between samples;
//  5. from the parts' lengths (counted from the bounds), each output
//     chunk, with x's chunking, takes its rank range from the parts that
//     hold it (views again) and joins them.
//
// Every step is a chunk op of the graph, so the shuffle spills, recovers
// from a dead worker by lineage and shows in explain like any other.
type Sort struct {
	Axis int `json:"axis"`
}

// Type implements TensorOp.
func (Sort) Type() string { return "sort" }

// Infer implements TensorOp.
func (op Sort) Infer(in []Meta) (Meta, error) { return sortMeta("sort", op.Axis, in, 0) }

// sortMeta is the meta of a sort-like op over axis of its one input: its
// shape, in dtype dt (0: the input's).
func sortMeta(name string, axis int, in []Meta, dt ndarray.DType) (Meta, error) {
	if err := checkOneInput(name, in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	if !m.DType.Valid() {
		return Meta{}, fmt.Errorf("%s: invalid dtype %v", name, m.DType)
	}
	if axis < 0 || axis >= m.NDim() {
		return Meta{}, &ndarray.AxisError{Axis: axis, NDim: m.NDim()}
	}
	if dt == 0 {
		dt = m.DType
	}
	return Meta{Shape: slices.Clone(m.Shape), DType: dt}, nil
}

// tileLanes tiles a sort-like op along axis chunk by chunk, the axis made
// whole: lanes is the chunk op, out the tensor's meta.
func tileLanes(b Builder, x *Tiled, axis int, name string, lanes ChunkOp, out Meta) (*Tiled, error) {
	want := slices.Clone(x.NSplits)
	want[axis] = []int{x.Meta.Shape[axis]}
	if err := checkDenseSize(name, x.Meta.Shape[axis], 1); err != nil {
		return nil, err
	}
	xt := RechunkTiled(b, x, want)
	res := &Tiled{Meta: out, NSplits: xt.NSplits}
	for _, c := range xt.Chunks {
		res.Chunks = append(res.Chunks, b.AddChunk(lanes, []ChunkRef{c}, Meta{Shape: b.ChunkMeta(c).Shape, DType: out.DType}))
	}
	return res, nil
}

// Tile implements TensorOp.
func (op Sort) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	// Complex numbers have no order-preserving 64-bit key for the PSRS
	// samples and pivots: their lanes are made whole and sorted by
	// comparison, a 1-D tensor in one chunk.
	if x.Meta.NDim() > 1 || len(x.Chunks) == 1 || x.Meta.DType.IsComplex() {
		return tileLanes(b, x, op.Axis, "sort", SortLanes{Axis: op.Axis}, out)
	}
	return tilePSRS(b, x, out)
}

// sortSamples is the number of regular samples a chunk gives when the
// array is in m chunks (4 per part bounds each part by 1.25 chunks plus).
func sortSamples(m int) int { return max(4*m, 16) }

// maxSortParts bounds the parts of a PSRS: its shuffle makes parts² pieces
// and slices, so a tensor in more chunks is sorted in this many (its
// neighbouring chunks merged) and cut back to its own chunks at the end.
const maxSortParts = 32

func tilePSRS(b Builder, orig *Tiled, out Meta) (*Tiled, error) {
	return inSortParts(b, orig, out, psrs)
}

// inSortParts runs a PSRS tiling (sort or argsort) on orig merged into at
// most maxSortParts chunks, and cuts the result back to orig's chunks.
func inSortParts(b Builder, orig *Tiled, out Meta, run func(Builder, *Tiled, Meta) (*Tiled, error)) (*Tiled, error) {
	n := orig.Meta.Shape[0]
	x := orig
	if len(x.NSplits[0]) > maxSortParts {
		x = RechunkTiled(b, x, [][]int{SplitEven(n, (n+maxSortParts-1)/maxSortParts)})
	}
	res, err := run(b, x, out)
	if err != nil || sameSplits(res.NSplits, orig.NSplits) {
		return res, err
	}
	return RechunkTiled(b, res, orig.NSplits), nil
}

// psrs sorts the 1-D x in its own chunks.
func psrs(b Builder, x *Tiled, out Meta) (*Tiled, error) {
	lens := x.NSplits[0]
	m := len(lens)
	n := x.Meta.Shape[0]
	s := sortSamples(m)
	if err := admitGrid(b, []int{m, m}, 2); err != nil {
		return nil, err
	}
	i64 := func(shape ...int) Meta { return Meta{Shape: shape, DType: ndarray.Int64} }
	sorted := make([]ChunkRef, m)
	samples := make([]ChunkRef, m)
	total, gap := 0, 1
	for i, c := range x.Chunks {
		sorted[i] = b.AddChunk(SortLanes{Axis: 0}, []ChunkRef{c}, b.ChunkMeta(c))
		k := min(lens[i], s)
		total += k
		if k > 0 {
			gap = max(gap, (lens[i]+k-1)/k)
		}
		samples[i] = b.AddChunk(SortSample{Chunk: i, Samples: s}, []ChunkRef{sorted[i]}, i64(k, 3))
	}
	pivots := b.AddChunk(SortPivots{Parts: m}, samples, i64(m-1, 3))
	// The regular sampling's bound on a part: samples strictly between two
	// pivots (at most total/m + 1), plus one gap per chunk.
	bound := min(n, ((total+m-1)/m+1+m)*gap)
	bounds := make([]ChunkRef, m)
	for i := range m {
		bounds[i] = b.AddChunk(SortBounds{Chunk: i}, []ChunkRef{sorted[i], pivots}, i64(m+1))
	}
	parts := make([]ChunkRef, m)
	pieces := make([]ChunkRef, m)
	for p := range m {
		for i := range m {
			pieces[i] = b.AddChunk(SortPiece{Part: p}, []ChunkRef{sorted[i], bounds[i]},
				Meta{Shape: []int{min(lens[i], bound)}, DType: out.DType, Unknown: 1})
		}
		parts[p] = b.AddChunk(SortMerge{}, slices.Clone(pieces), Meta{Shape: []int{bound}, DType: out.DType, Unknown: 1})
	}
	counts := b.AddChunk(SortCounts{}, bounds, i64(m+1))
	return cutParts(b, parts, counts, x.NSplits, bound, out), nil
}

// SortLanes sorts every lane of a chunk along Axis (the whole axis).
type SortLanes struct {
	Axis int `json:"axis"`
}

// Type implements ChunkOp.
func (SortLanes) Type() string { return "sort_lanes" }

// Exec implements ChunkOp.
func (op SortLanes) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("sort_lanes", in); err != nil {
		return nil, err
	}
	if in[0].NDim() == 1 {
		return ndarray.Sort1D(in[0])
	}
	return ndarray.SortAxis(in[0], op.Axis)
}

// SortSample takes the regular samples of sorted chunk number Chunk.
type SortSample struct {
	Chunk   int `json:"chunk"`
	Samples int `json:"samples"`
}

// Type implements ChunkOp.
func (SortSample) Type() string { return "sort_sample" }

// Exec implements ChunkOp.
func (op SortSample) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("sort_sample", in); err != nil {
		return nil, err
	}
	return ndarray.SortSamples(in[0], op.Chunk, op.Samples), nil
}

// SortPivots picks Parts-1 pivots from every chunk's samples.
type SortPivots struct {
	Parts int `json:"parts"`
}

// Type implements ChunkOp.
func (SortPivots) Type() string { return "sort_pivots" }

// Exec implements ChunkOp.
func (op SortPivots) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.SortPivots(in, op.Parts)
}

// SortBounds splits sorted chunk number Chunk at the pivots.
type SortBounds struct {
	Chunk int `json:"chunk"`
}

// Type implements ChunkOp.
func (SortBounds) Type() string { return "sort_bounds" }

// Exec implements ChunkOp.
func (op SortBounds) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("sort_bounds: %d inputs, want 2", len(in))
	}
	return ndarray.SortBounds(in[0], in[1], op.Chunk)
}

// rangeView is the view a[lo:hi) of a 1-D array, checked.
func rangeView(name string, a *ndarray.Array, lo, hi int64) (*ndarray.Array, error) {
	if a.NDim() != 1 || lo < 0 || hi < lo || hi > int64(a.Size()) {
		return nil, fmt.Errorf("%s: range [%d, %d) of %v", name, lo, hi, a.Shape())
	}
	return a.Slice([]ndarray.Range{{Start: int(lo), Step: 1, Len: int(hi - lo)}})
}

// SortPiece is the Part-th piece of a sorted chunk (its inputs: the chunk
// and its bounds), a view.
type SortPiece struct {
	Part int `json:"part"`
}

// Type implements ChunkOp.
func (SortPiece) Type() string { return "sort_piece" }

// Exec implements ChunkOp.
func (op SortPiece) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 || in[1].Size() < op.Part+2 {
		return nil, fmt.Errorf("sort_piece: want a sorted chunk and its bounds for part %d", op.Part)
	}
	return rangeView("sort_piece", in[0], int64(in[1].AtFlat(op.Part)), int64(in[1].AtFlat(op.Part+1)))
}

// SortMerge merges a part's pieces into one sorted part.
type SortMerge struct{}

// Type implements ChunkOp.
func (SortMerge) Type() string { return "sort_merge" }

// Exec implements ChunkOp.
func (SortMerge) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.MergeSorted(in)
}

// SortCounts is where each part starts in the sorted array, from every
// chunk's bounds: M+1 offsets, the last the array's length.
type SortCounts struct{}

// Type implements ChunkOp.
func (SortCounts) Type() string { return "sort_counts" }

// Exec implements ChunkOp.
func (SortCounts) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("sort_counts: no bounds")
	}
	m := in[0].Size() - 1
	out, err := ndarray.New(ndarray.Int64, m+1)
	if err != nil {
		return nil, err
	}
	sizes := make([]int64, m)
	for _, bd := range in {
		if bd.Size() != m+1 {
			return nil, fmt.Errorf("sort_counts: bounds of %d entries among %d", bd.Size(), m+1)
		}
		for p := range m {
			sizes[p] += int64(bd.AtFlat(p+1) - bd.AtFlat(p))
		}
	}
	var at int64
	for p, n := range sizes {
		out.SetFlat(p, float64(at))
		at += n
	}
	out.SetFlat(m, float64(at))
	return out, nil
}

// SortSlice is the part of output ranks [Lo, Hi) that part Part holds (its
// inputs: the part and the parts' offsets), a view.
type SortSlice struct {
	Part int `json:"part"`
	Lo   int `json:"lo"`
	Hi   int `json:"hi"`
}

// Type implements ChunkOp.
func (SortSlice) Type() string { return "sort_slice" }

// Exec implements ChunkOp.
func (op SortSlice) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 || in[1].Size() < op.Part+2 {
		return nil, fmt.Errorf("sort_slice: want a part and the parts' offsets for part %d", op.Part)
	}
	start := int64(in[1].AtFlat(op.Part))
	n := int64(in[0].Size())
	lo := min(max(int64(op.Lo)-start, 0), n)
	hi := min(max(int64(op.Hi)-start, lo), n)
	return rangeView("sort_slice", in[0], lo, hi)
}

// SortJoin concatenates the slices of an output chunk, of length Len.
type SortJoin struct {
	Len int `json:"len"`
}

// Type implements ChunkOp.
func (SortJoin) Type() string { return "sort_join" }

// Exec implements ChunkOp.
func (op SortJoin) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	total := 0
	for _, a := range in {
		total += a.Size()
	}
	if total != op.Len || len(in) == 0 {
		return nil, fmt.Errorf("sort_join: slices of %d elements for a chunk of %d", total, op.Len)
	}
	out, err := ndarray.New(in[0].DType(), op.Len)
	if err != nil {
		return nil, err
	}
	at := 0
	for _, a := range in {
		if a.Size() == 0 {
			continue
		}
		dst, err := out.Slice([]ndarray.Range{{Start: at, Step: 1, Len: a.Size()}})
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, a)
		at += a.Size()
	}
	return out, nil
}

// IsView marks SortPiece as a view: a piece shares its sorted chunk's buffer.
func (SortPiece) IsView() {}

// IsView marks SortSlice as a view: a slice shares its part's buffer.
func (SortSlice) IsView() {}
