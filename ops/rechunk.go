package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "rechunk", Op: Rechunk{}, Kinds: Half | Complex, Chunks: func(op any) ChunkSpec { return op.(Rechunk).Chunks }},
		Descriptor{Name: "assemble", Op: Assemble{}},
		Descriptor{Name: "slice_view", Op: SliceView{}},
	)
}

// Piece is one input chunk's part of an assembled chunk: along each axis,
// Len elements from Src in the input go to Dst in the output.
type Piece struct {
	Src []int `json:"src"`
	Dst []int `json:"dst"`
	Len []int `json:"len"`
}

// Assemble builds one chunk from parts of several input chunks (rechunking,
// concatenation across chunk boundaries). Input k supplies Pieces[k].
type Assemble struct {
	Pieces []Piece `json:"pieces"`
}

// Type implements ChunkOp.
func (Assemble) Type() string { return "assemble" }

// Exec implements ChunkOp.
func (op Assemble) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != len(op.Pieces) || len(in) == 0 {
		return nil, fmt.Errorf("assemble: %d inputs for %d pieces", len(in), len(op.Pieces))
	}
	nd := in[0].NDim()
	shape := make([]int, nd)
	for _, p := range op.Pieces {
		for ax := range nd {
			shape[ax] = max(shape[ax], p.Dst[ax]+p.Len[ax])
		}
	}
	out, err := ndarray.New(in[0].DType(), shape...)
	if err != nil {
		return nil, err
	}
	for k, p := range op.Pieces {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src, err := in[k].Slice(unitRanges(p.Src, p.Len))
		if err != nil {
			return nil, fmt.Errorf("assemble: piece %d: %w", k, err)
		}
		dst, err := out.Slice(unitRanges(p.Dst, p.Len))
		if err != nil {
			return nil, fmt.Errorf("assemble: piece %d: %w", k, err)
		}
		if src.DType() != dst.DType() {
			return nil, fmt.Errorf("assemble: piece %d is %v, output is %v", k, src.DType(), dst.DType())
		}
		ndarray.CopyInto(dst, src)
	}
	return out, nil
}

func unitRanges(start, n []int) []ndarray.Range {
	r := make([]ndarray.Range, len(start))
	for i := range start {
		r[i] = ndarray.Range{Start: start[i], Step: 1, Len: n[i]}
	}
	return r
}

// SliceView is a zero-copy strided window of one chunk.
type SliceView struct {
	Ranges []ndarray.Range `json:"ranges"`
}

// Type implements ChunkOp.
func (SliceView) Type() string { return "slice_view" }

// Exec implements ChunkOp.
func (op SliceView) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return in[0].Slice(op.Ranges)
}

// axisPart is one input chunk's contribution along one axis to one output chunk.
type axisPart struct{ chunk, src, dst, n int }

// axisMapping lists, for every output chunk along an axis, the parts of the
// input chunks it is made of. Two pointers: linear in the chunk counts.
func axisMapping(from, to []int) [][]axisPart {
	out := make([][]axisPart, len(to))
	i, iStart := 0, 0 // input chunk and its start
	pos := 0
	for j, n := range to {
		end := pos + n
		for pos < end {
			for i < len(from) && iStart+from[i] <= pos {
				iStart += from[i]
				i++
			}
			if i == len(from) {
				break
			}
			take := min(end, iStart+from[i]) - pos
			out[j] = append(out[j], axisPart{chunk: i, src: pos - iStart, dst: pos - (end - n), n: take})
			pos += take
		}
		if n == 0 && len(from) > 0 {
			out[j] = append(out[j], axisPart{chunk: 0, src: 0, dst: 0, n: 0})
		}
	}
	return out
}

func sameSplits(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// RechunkTiled re-tiles t to nsplits. A tensor that can be cut again for
// free (Tiled.Resplit) is; otherwise output chunks equal to an input chunk
// reuse it, a part of one input chunk is a view, and anything else is
// assembled.
func RechunkTiled(b Builder, t *Tiled, nsplits [][]int) *Tiled {
	if sameSplits(t.NSplits, nsplits) {
		return t
	}
	if t.Resplit != nil {
		// On an error (a chunk budget) the copying path below still
		// gives the chunks, as it would have without Resplit.
		if r, err := t.Resplit(b, nsplits); err == nil {
			return r
		}
	}
	nd := len(nsplits)
	maps := make([][][]axisPart, nd)
	for ax := range nd {
		maps[ax] = axisMapping(t.NSplits[ax], nsplits[ax])
	}
	out := &Tiled{Meta: t.Meta, NSplits: nsplits}
	grid := make([]int, nd)
	for i, s := range nsplits {
		grid[i] = len(s)
	}
	inGrid := t.Grid()
	out.Chunks = make([]ChunkRef, 0, gridCount(grid))
	ForEachGrid(grid, func(idx []int) {
		// cartesian product of the per-axis parts
		parts := make([][]axisPart, nd)
		count := 1
		for ax := range nd {
			parts[ax] = maps[ax][idx[ax]]
			count *= len(parts[ax])
		}
		shape := ChunkShape(nsplits, idx)
		meta := Meta{Shape: shape, DType: t.Meta.DType}
		if count == 1 {
			src := make([]int, nd)
			whole := true
			in := make([]int, nd)
			for ax := range nd {
				p := parts[ax][0]
				in[ax], src[ax] = p.chunk, p.src
				if p.src != 0 || p.n != t.NSplits[ax][p.chunk] {
					whole = false
				}
			}
			ref := t.Chunks[GridFlat(inGrid, in)]
			if whole {
				out.Chunks = append(out.Chunks, ref)
				return
			}
			out.Chunks = append(out.Chunks, b.AddChunk(SliceView{Ranges: unitRanges(src, shape)}, []ChunkRef{ref}, meta))
			return
		}
		var op Assemble
		inputs := make([]ChunkRef, 0, count)
		sel := make([]int, nd)
		for {
			p := Piece{Src: make([]int, nd), Dst: make([]int, nd), Len: make([]int, nd)}
			in := make([]int, nd)
			for ax := range nd {
				ap := parts[ax][sel[ax]]
				in[ax], p.Src[ax], p.Dst[ax], p.Len[ax] = ap.chunk, ap.src, ap.dst, ap.n
			}
			op.Pieces = append(op.Pieces, p)
			inputs = append(inputs, t.Chunks[GridFlat(inGrid, in)])
			ax := nd - 1
			for ; ax >= 0; ax-- {
				sel[ax]++
				if sel[ax] < len(parts[ax]) {
					break
				}
				sel[ax] = 0
			}
			if ax < 0 {
				break
			}
		}
		out.Chunks = append(out.Chunks, b.AddChunk(op, inputs, meta))
	})
	return out
}

func gridCount(grid []int) int {
	n := 1
	for _, g := range grid {
		n *= g
	}
	return n
}

// Rechunk is the tensor op that changes a tensor's chunking.
type Rechunk struct {
	Chunks ChunkSpec `json:"chunks"`
}

// Type implements TensorOp.
func (Rechunk) Type() string { return "rechunk" }

// Infer implements TensorOp.
func (op Rechunk) Infer(in []Meta) (Meta, error) {
	if len(in) != 1 {
		return Meta{}, fmt.Errorf("rechunk takes 1 input, got %d", len(in))
	}
	return in[0], wrapChunks("rechunk", op.Chunks.Validate(in[0].Shape))
}

// Tile implements TensorOp.
func (op Rechunk) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	if bb, ok := b.(Budget); ok {
		// Each output chunk is made of one or more pieces: at least
		// this many chunk ops, counted before the splits are built.
		if err := bb.Admit(op.Chunks.Count(out)); err != nil {
			return nil, err
		}
	}
	ns, err := op.Chunks.Resolve(out.Shape, out.DType.Size())
	if err != nil {
		return nil, err
	}
	return RechunkTiled(b, in[0], ns), nil
}

// UnifySplits returns the common refinement of several chunkings of one
// axis: every boundary of any of them is a boundary of the result. It costs
// O(C log C) in the number of chunks, not in the axis length.
func UnifySplits(splits ...[]int) []int {
	if len(splits) == 1 {
		return splits[0]
	}
	var bounds []int
	for _, sp := range splits {
		pos := 0
		for _, s := range sp {
			pos += s
			bounds = append(bounds, pos)
		}
	}
	slices.Sort(bounds)
	var out []int
	prev := 0
	for _, b := range bounds {
		if b > prev {
			out = append(out, b-prev)
			prev = b
		}
	}
	if len(out) == 0 {
		out = []int{0}
	}
	return out
}
