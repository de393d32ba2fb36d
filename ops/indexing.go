package ops

import (
	"context"
	"fmt"
	"sort"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "index", Op: Index{}, Kinds: Half | Complex},
	)
}

// Kinds of IndexItem.
const (
	IndexSlice   = "slice"   // keep the axis, selecting Range
	IndexInt     = "int"     // select element Index and drop the axis
	IndexNewAxis = "newaxis" // insert a length-1 axis; reads no input axis
)

// IndexItem is one normalised entry of a basic index.
type IndexItem struct {
	Kind  string        `json:"kind"`
	Range ndarray.Range `json:"range,omitzero"`
	Index int           `json:"index,omitempty"`
}

// Index is NumPy basic indexing (slices, integers, newaxis) after
// normalisation: the slice and int items cover the input axes in order, one
// each, with bounds already resolved. It serves both levels: tiled, it keeps
// only the input chunks the selection touches, each through one Index op with
// chunk-local items; on a chunk it is a view (Slice, Squeeze, ExpandDims).
type Index struct {
	Items []IndexItem `json:"items"`
}

// Type implements TensorOp and ChunkOp.
func (Index) Type() string { return "index" }

// Infer implements TensorOp.
func (op Index) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("index", in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	shape := []int{}
	ax := 0
	for _, it := range op.Items {
		if it.Kind == IndexNewAxis {
			shape = append(shape, 1)
			continue
		}
		if ax >= m.NDim() {
			return Meta{}, fmt.Errorf("index: too many indices for tensor of shape %v", m.Shape)
		}
		n := m.Shape[ax]
		switch it.Kind {
		case IndexSlice:
			r := it.Range
			if r.Step == 0 || r.Len < 0 || (r.Len > 0 && (r.Start < 0 || r.Start >= n ||
				r.Start+(r.Len-1)*r.Step < 0 || r.Start+(r.Len-1)*r.Step >= n)) {
				return Meta{}, fmt.Errorf("index: range %+v is out of bounds for axis %d with size %d", r, ax, n)
			}
			shape = append(shape, r.Len)
		case IndexInt:
			if it.Index < 0 || it.Index >= n {
				return Meta{}, fmt.Errorf("index: index %d is out of bounds for axis %d with size %d", it.Index, ax, n)
			}
		default:
			return Meta{}, fmt.Errorf("index: unknown item kind %q", it.Kind)
		}
		ax++
	}
	if ax != m.NDim() {
		return Meta{}, fmt.Errorf("index: %d indices for tensor of shape %v (normalised indices cover every axis)", ax, m.Shape)
	}
	return Meta{Shape: shape, DType: m.DType}, nil
}

// axisSel is one touched input chunk along an axis and the chunk-local range.
type axisSel struct {
	chunk int
	r     ndarray.Range
}

// selectAxis lists, in output order, the chunks of an axis chunked by
// offsets (from Offsets) that the range touches, with the local range in
// each. It jumps between touched chunks by binary search, so it costs
// O(touched log chunks), not the axis length nor the chunks skipped.
func selectAxis(offs []int, r ndarray.Range) []axisSel {
	var out []axisSel
	for k := 0; k < r.Len; {
		p := r.Start + k*r.Step
		c := sort.SearchInts(offs, p+1) - 1 // last chunk starting at or before p
		lo, hi := offs[c], offs[c+1]
		var last int
		if r.Step > 0 {
			last = (hi - 1 - r.Start) / r.Step
		} else {
			last = (r.Start - lo) / -r.Step
		}
		last = min(last, r.Len-1)
		out = append(out, axisSel{chunk: c, r: ndarray.Range{Start: p - lo, Step: r.Step, Len: last - k + 1}})
		k = last + 1
	}
	return out
}

// Tile implements TensorOp.
func (op Index) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	if ndarray.Size(out.Shape) == 0 {
		return zeroSized(b, out), nil
	}
	nd := t.Meta.NDim()
	sels := make([][]axisSel, nd)
	var ns [][]int
	outAxis := make([]int, nd) // output axis of each input slice axis
	ax := 0
	for _, it := range op.Items {
		switch it.Kind {
		case IndexNewAxis:
			ns = append(ns, []int{1})
			continue
		case IndexSlice:
			sels[ax] = selectAxis(Offsets(t.NSplits[ax]), it.Range)
			sp := make([]int, len(sels[ax]))
			for j, s := range sels[ax] {
				sp[j] = s.r.Len
			}
			outAxis[ax] = len(ns)
			ns = append(ns, sp)
		case IndexInt:
			sels[ax] = selectAxis(Offsets(t.NSplits[ax]), ndarray.Range{Start: it.Index, Step: 1, Len: 1})
		}
		ax++
	}
	res := &Tiled{Meta: out, NSplits: ns}
	grid, inGrid := res.Grid(), t.Grid()
	res.Chunks = make([]ChunkRef, 0, gridCount(grid))
	inIdx := make([]int, nd)
	ForEachGrid(grid, func(idx []int) {
		local := make([]IndexItem, len(op.Items))
		whole := true
		ax := 0
		for i, it := range op.Items {
			if it.Kind == IndexNewAxis {
				local[i] = it
				whole = false
				continue
			}
			s := sels[ax][0]
			if it.Kind == IndexSlice {
				s = sels[ax][idx[outAxis[ax]]]
				local[i] = IndexItem{Kind: IndexSlice, Range: s.r}
				if s.r.Start != 0 || s.r.Len != t.NSplits[ax][s.chunk] || (s.r.Step != 1 && s.r.Len > 1) {
					whole = false
				}
			} else {
				local[i] = IndexItem{Kind: IndexInt, Index: s.r.Start}
				whole = false
			}
			inIdx[ax] = s.chunk
			ax++
		}
		ref := t.Chunks[GridFlat(inGrid, inIdx)]
		if whole {
			res.Chunks = append(res.Chunks, ref) // the whole input chunk: reuse it
			return
		}
		shape := ChunkShape(ns, idx)
		res.Chunks = append(res.Chunks, b.AddChunk(Index{Items: local}, []ChunkRef{ref}, Meta{Shape: shape, DType: out.DType}))
	})
	return res, nil
}

// Exec implements ChunkOp: Slice, then Squeeze the int axes, then
// ExpandDims the new axes — all views.
func (op Index) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	a := in[0]
	ranges := make([]ndarray.Range, 0, a.NDim())
	var drop, add []int
	outAx := 0
	for _, it := range op.Items {
		switch it.Kind {
		case IndexNewAxis:
			add = append(add, outAx)
			outAx++
		case IndexSlice:
			ranges = append(ranges, it.Range)
			outAx++
		case IndexInt:
			drop = append(drop, len(ranges))
			ranges = append(ranges, ndarray.Range{Start: it.Index, Step: 1, Len: 1})
		default:
			return nil, fmt.Errorf("index: unknown item kind %q", it.Kind)
		}
	}
	v, err := a.Slice(ranges)
	if err != nil {
		return nil, err
	}
	if len(drop) > 0 {
		if v, err = v.Squeeze(drop...); err != nil {
			return nil, err
		}
	}
	for _, p := range add {
		if v, err = v.ExpandDims(p); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// IsIdentity reports whether the index selects the whole input unchanged.
func (op Index) IsIdentity(shape []int) bool {
	if len(op.Items) != len(shape) {
		return false
	}
	for ax, it := range op.Items {
		if it.Kind != IndexSlice || it.Range.Start != 0 || it.Range.Len != shape[ax] || (it.Range.Step != 1 && shape[ax] > 1) {
			return false
		}
	}
	return true
}
