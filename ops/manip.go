package ops

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "repeat", Op: Repeat{}, Kinds: Complex},
		Descriptor{Name: "repeat_chunk", Op: RepeatChunk{}},
		Descriptor{Name: "tri", Op: Tri{}, Kinds: Complex},
		Descriptor{Name: "tri_chunk", Op: TriChunk{}},
		Descriptor{Name: "diagonal", Op: Diagonal{}, Kinds: Complex},
		Descriptor{Name: "diagonal_chunk", Op: DiagonalChunk{}},
	)
}

// Array manipulation that moves data inside chunks: Repeat (each element
// repeated along an axis, within its chunk), Tri (tril/triu: chunks wholly
// inside the triangle are reused, chunks wholly outside are zeros, only the
// chunks the diagonal crosses are masked) and Diagonal (each piece of the
// diagonal is read from the one input chunk it crosses). The kernels work
// on bytes, so one loop serves every dtype: zero bytes are zero (or false)
// in all of them.

// Repeat repeats each element along Axis: element i Repeats[i] times, or
// Repeats[0] times when Repeats has one entry (np.repeat).
type Repeat struct {
	Axis    int   `json:"axis"` // normalised
	Repeats []int `json:"repeats"`
}

// Type implements TensorOp.
func (Repeat) Type() string { return "repeat" }

// Infer implements TensorOp.
func (op Repeat) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("repeat", in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	if op.Axis < 0 || op.Axis >= m.NDim() {
		return Meta{}, fmt.Errorf("repeat: %w", &ndarray.AxisError{Axis: op.Axis, NDim: m.NDim()})
	}
	n := m.Shape[op.Axis]
	if len(op.Repeats) != 1 && len(op.Repeats) != n {
		return Meta{}, fmt.Errorf("repeat: %d repeat counts for axis %d of length %d (shape %v): give one count or one per element", len(op.Repeats), op.Axis, n, m.Shape)
	}
	total, err := repeatTotal(op.Repeats, n)
	if err != nil {
		return Meta{}, fmt.Errorf("repeat: %w (shape %v, axis %d)", err, m.Shape, op.Axis)
	}
	if n > 0 && ndarray.Size(m.Shape)/n > maxElements/max(total, 1) {
		return Meta{}, fmt.Errorf("repeat: a result of %d x %d elements is too large", ndarray.Size(m.Shape)/n, total)
	}
	shape := slices.Clone(m.Shape)
	shape[op.Axis] = total
	return Meta{Shape: shape, DType: m.DType}, nil
}

// maxElements bounds the elements of a result built from counts a client
// sent, so totals cannot overflow.
const maxElements = math.MaxInt64 / 16

// repeatTotal is the length of an axis of n elements repeated by counts
// (one for all, or one each), refusing negative counts and overflow.
func repeatTotal(counts []int, n int) (int, error) {
	if len(counts) == 1 {
		r := counts[0]
		if r < 0 {
			return 0, fmt.Errorf("negative repeat count %d", r)
		}
		if n > 0 && r > maxElements/n {
			return 0, fmt.Errorf("%d elements repeated %d times is too many", n, r)
		}
		return n * r, nil
	}
	total := 0
	for i, r := range counts {
		if r < 0 {
			return 0, fmt.Errorf("negative repeat count %d (entry %d)", r, i)
		}
		if r > maxElements-total {
			return 0, fmt.Errorf("repeat counts add up to too many elements")
		}
		total += r
	}
	return total, nil
}

// Tile implements TensorOp: one RepeatChunk per input chunk, so the output
// keeps the input's grid and each chunk grows by its own counts.
func (op Repeat) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	ax := op.Axis
	ns := slices.Clone(t.NSplits)
	counts := make([][]int, len(t.NSplits[ax]))
	ns[ax] = make([]int, len(t.NSplits[ax]))
	off := 0
	for j, l := range t.NSplits[ax] {
		if len(op.Repeats) == 1 {
			counts[j] = op.Repeats
			ns[ax][j] = l * op.Repeats[0]
		} else {
			counts[j] = op.Repeats[off : off+l]
			for _, r := range counts[j] {
				ns[ax][j] += r
			}
		}
		off += l
	}
	res := &Tiled{Meta: out, NSplits: ns}
	res.Chunks = make([]ChunkRef, 0, len(t.Chunks))
	k := 0
	ForEachGrid(res.Grid(), func(idx []int) {
		shape := ChunkShape(ns, idx)
		c := RepeatChunk{Axis: ax, Counts: counts[idx[ax]]}
		res.Chunks = append(res.Chunks, b.AddChunk(c, []ChunkRef{t.Chunks[k]}, Meta{Shape: shape, DType: out.DType}))
		k++
	})
	return res, nil
}

// RepeatChunk repeats the elements of one chunk along Axis: element i
// Counts[i] times, or Counts[0] times when it has one entry.
type RepeatChunk struct {
	Axis   int   `json:"axis"`
	Counts []int `json:"counts"`
}

// Type implements ChunkOp.
func (RepeatChunk) Type() string { return "repeat_chunk" }

// Exec implements ChunkOp.
func (op RepeatChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("repeat_chunk: takes 1 input, got %d", len(in))
	}
	a := in[0]
	shape := a.Shape()
	if op.Axis < 0 || op.Axis >= len(shape) {
		return nil, fmt.Errorf("repeat_chunk: axis %d of a chunk of shape %v", op.Axis, shape)
	}
	n := shape[op.Axis]
	if len(op.Counts) != 1 && len(op.Counts) != n {
		return nil, fmt.Errorf("repeat_chunk: %d counts for %d elements along axis %d", len(op.Counts), n, op.Axis)
	}
	total, err := repeatTotal(op.Counts, n)
	if err != nil {
		return nil, fmt.Errorf("repeat_chunk: %w", err)
	}
	outShape := slices.Clone(shape)
	outShape[op.Axis] = total
	out, err := ndarray.New(a.DType(), outShape...)
	if err != nil {
		return nil, fmt.Errorf("repeat_chunk: %w", err)
	}
	if out.Size() == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a = a.Contiguous()
	outer, inner := ndarray.Size(shape[:op.Axis]), ndarray.Size(shape[op.Axis+1:])
	switch a.DType() {
	case ndarray.Float64:
		repeatSlabs(out.Float64s(), a.Float64s(), outer, n, inner, op.Counts)
	case ndarray.Float32:
		repeatSlabs(out.Float32s(), a.Float32s(), outer, n, inner, op.Counts)
	case ndarray.Int64:
		repeatSlabs(out.Int64s(), a.Int64s(), outer, n, inner, op.Counts)
	case ndarray.Int32:
		repeatSlabs(out.Int32s(), a.Int32s(), outer, n, inner, op.Counts)
	case ndarray.Uint64:
		repeatSlabs(out.Uint64s(), a.Uint64s(), outer, n, inner, op.Counts)
	case ndarray.Uint32:
		repeatSlabs(out.Uint32s(), a.Uint32s(), outer, n, inner, op.Counts)
	case ndarray.Uint16:
		repeatSlabs(out.Uint16s(), a.Uint16s(), outer, n, inner, op.Counts)
	case ndarray.Int16:
		repeatSlabs(out.Int16s(), a.Int16s(), outer, n, inner, op.Counts)
	case ndarray.Uint8:
		repeatSlabs(out.Uint8s(), a.Uint8s(), outer, n, inner, op.Counts)
	case ndarray.Int8:
		repeatSlabs(out.Int8s(), a.Int8s(), outer, n, inner, op.Counts)
	case ndarray.Complex64:
		repeatSlabs(out.Complex64s(), a.Complex64s(), outer, n, inner, op.Counts)
	case ndarray.Complex128:
		repeatSlabs(out.Complex128s(), a.Complex128s(), outer, n, inner, op.Counts)
	default:
		repeatSlabs(out.Bools(), a.Bools(), outer, n, inner, op.Counts)
	}
	return out, nil
}

// repeatSlabs writes each of the n slabs of inner elements of src (outer
// times over) counts[i] times, or counts[0] times when it has one entry.
// One template for every dtype; single elements are stored one by one,
// which beats a copy call per element.
func repeatSlabs[T any](dst, src []T, outer, n, inner int, counts []int) {
	d := 0
	for o := range outer {
		base := o * n * inner
		for i := range n {
			c := counts[0]
			if len(counts) > 1 {
				c = counts[i]
			}
			if inner == 1 {
				v := src[base+i]
				for k := range c {
					dst[d+k] = v
				}
				d += c
				continue
			}
			piece := src[base+i*inner : base+(i+1)*inner]
			for range c {
				d += copy(dst[d:], piece)
			}
		}
	}
}

// Tri zeroes the elements above (Lower, np.tril) or below (np.triu) the
// K-th diagonal of the last two axes.
type Tri struct {
	K     int  `json:"k"`
	Lower bool `json:"lower"`
}

// Type implements TensorOp.
func (op Tri) Type() string {
	if op.Lower {
		return "tril"
	}
	return "triu"
}

// Infer implements TensorOp.
func (op Tri) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput(op.Type(), in); err != nil {
		return Meta{}, err
	}
	if in[0].NDim() < 2 {
		return Meta{}, fmt.Errorf("%s: tensor of shape %v has fewer than 2 dimensions", op.Type(), in[0].Shape)
	}
	return in[0], nil
}

// keeps reports which of the element offsets j-i in [lo, hi] the triangle
// keeps: all, none or some.
func (op Tri) keeps(lo, hi int) (all, none bool) {
	if op.Lower { // keep j-i <= K
		return hi <= op.K, lo > op.K
	}
	return lo >= op.K, hi < op.K // keep j-i >= K
}

// Tile implements TensorOp.
func (op Tri) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	nd := out.NDim()
	// Diagonals beyond the matrix keep all or nothing, as the nearest one
	// outside does; clamping keeps the chunk offsets below from overflowing.
	op.K = min(max(op.K, -out.Shape[nd-2]-1), out.Shape[nd-1]+1)
	offs := AxisOffsets(t.NSplits)
	res := &Tiled{Meta: out, NSplits: t.NSplits, Chunks: make([]ChunkRef, 0, len(t.Chunks))}
	k := 0
	ForEachGrid(t.Grid(), func(idx []int) {
		ref := t.Chunks[k]
		k++
		shape := ChunkShape(t.NSplits, idx)
		r0, c0 := offs[nd-2][idx[nd-2]], offs[nd-1][idx[nd-1]]
		r, c := shape[nd-2], shape[nd-1]
		if r == 0 || c == 0 {
			res.Chunks = append(res.Chunks, ref)
			return
		}
		all, none := op.keeps(c0-(r0+r-1), (c0+c-1)-r0)
		meta := Meta{Shape: shape, DType: out.DType}
		switch {
		case all:
			res.Chunks = append(res.Chunks, ref)
		case none:
			res.Chunks = append(res.Chunks, b.AddChunk(FullChunk{Shape: slices.Clone(shape), DType: out.DType}, nil, meta))
		default:
			ch := TriChunk{K: op.K - (c0 - r0), Lower: op.Lower}
			res.Chunks = append(res.Chunks, b.AddChunk(ch, []ChunkRef{ref}, meta))
		}
	})
	return res, nil
}

// TriChunk is Tri of one chunk; K is relative to the chunk's own corner.
type TriChunk struct {
	K     int  `json:"k"`
	Lower bool `json:"lower"`
}

// Type implements ChunkOp.
func (TriChunk) Type() string { return "tri_chunk" }

// Exec implements ChunkOp.
func (op TriChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 || in[0].NDim() < 2 {
		return nil, fmt.Errorf("tri_chunk: want one input of at least 2 dimensions")
	}
	out := in[0].Copy()
	shape := out.Shape()
	nd := len(shape)
	rows, cols := shape[nd-2], shape[nd-1]
	if out.Size() == 0 {
		return out, nil
	}
	es := out.DType().Size()
	buf := out.Bytes()
	mats := ndarray.Size(shape[:nd-2])
	k := min(max(op.K, -rows-1), cols+1) // the same rows for any k beyond these
	for m := range mats {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range rows {
			row := buf[(m*rows+i)*cols*es : (m*rows+i+1)*cols*es]
			// Tril keeps columns j <= i+K, triu keeps j >= i+K.
			cut := min(max(i+k, -1), cols)
			if op.Lower {
				clear(row[min(cut+1, cols)*es:])
			} else {
				clear(row[:max(cut, 0)*es])
			}
		}
	}
	return out, nil
}

// Diagonal takes the Offset-th diagonal of the last two axes, which it
// replaces by one axis (np.diagonal after moving axis1 and axis2 last).
type Diagonal struct {
	Offset int `json:"offset"`
}

// Type implements TensorOp.
func (Diagonal) Type() string { return "diagonal" }

// diagStart is the first element of the diagonal and its length.
func diagStart(rows, cols, offset int) (i0, j0, n int) {
	offset = min(max(offset, -rows), cols) // beyond these the diagonal is empty anyway
	i0, j0 = max(0, -offset), max(0, offset)
	return i0, j0, max(0, min(rows-i0, cols-j0))
}

// Infer implements TensorOp.
func (op Diagonal) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("diagonal", in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	nd := m.NDim()
	if nd < 2 {
		return Meta{}, fmt.Errorf("diagonal: tensor of shape %v: diag requires an array of at least two dimensions", m.Shape)
	}
	_, _, n := diagStart(m.Shape[nd-2], m.Shape[nd-1], op.Offset)
	shape := append(slices.Clone(m.Shape[:nd-2]), n)
	return Meta{Shape: shape, DType: m.DType}, nil
}

// Tile implements TensorOp: the diagonal is cut where it crosses a row or
// column chunk boundary, so each piece comes from one input chunk.
func (op Diagonal) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	nd := t.Meta.NDim()
	if ndarray.Size(out.Shape) == 0 {
		return zeroSized(b, out), nil
	}
	rowOff, colOff := Offsets(t.NSplits[nd-2]), Offsets(t.NSplits[nd-1])
	i0, j0, n := diagStart(t.Meta.Shape[nd-2], t.Meta.Shape[nd-1], op.Offset)
	type piece struct{ rc, cc, li, lj, n int }
	var pieces []piece
	rc, cc := 0, 0
	for d := 0; d < n; {
		i, j := i0+d, j0+d
		for rowOff[rc+1] <= i {
			rc++
		}
		for colOff[cc+1] <= j {
			cc++
		}
		l := min(rowOff[rc+1]-i, colOff[cc+1]-j, n-d)
		pieces = append(pieces, piece{rc, cc, i - rowOff[rc], j - colOff[cc], l})
		d += l
	}
	ns := append(slices.Clone(t.NSplits[:nd-2]), make([]int, len(pieces)))
	for p, pc := range pieces {
		ns[nd-2][p] = pc.n
	}
	res := &Tiled{Meta: out, NSplits: ns}
	grid, inGrid := res.Grid(), t.Grid()
	res.Chunks = make([]ChunkRef, 0, gridCount(grid))
	inIdx := make([]int, nd)
	ForEachGrid(grid, func(idx []int) {
		copy(inIdx, idx[:nd-2])
		pc := pieces[idx[nd-2]]
		inIdx[nd-2], inIdx[nd-1] = pc.rc, pc.cc
		ref := t.Chunks[GridFlat(inGrid, inIdx)]
		c := DiagonalChunk{Row: pc.li, Col: pc.lj, Len: pc.n}
		res.Chunks = append(res.Chunks, b.AddChunk(c, []ChunkRef{ref}, Meta{Shape: ChunkShape(ns, idx), DType: out.DType}))
	})
	return res, nil
}

// DiagonalChunk reads Len elements (Row+d, Col+d) of the last two axes of
// one chunk.
type DiagonalChunk struct {
	Row int `json:"row"`
	Col int `json:"col"`
	Len int `json:"len"`
}

// Type implements ChunkOp.
func (DiagonalChunk) Type() string { return "diagonal_chunk" }

// Exec implements ChunkOp.
func (op DiagonalChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 || in[0].NDim() < 2 {
		return nil, fmt.Errorf("diagonal_chunk: want one input of at least 2 dimensions")
	}
	a := in[0]
	shape := a.Shape()
	nd := len(shape)
	rows, cols := shape[nd-2], shape[nd-1]
	if op.Row < 0 || op.Col < 0 || op.Len < 0 || op.Len > rows-op.Row || op.Len > cols-op.Col {
		return nil, fmt.Errorf("diagonal_chunk: %d elements from (%d, %d) do not fit a chunk of shape %v", op.Len, op.Row, op.Col, shape)
	}
	out, err := ndarray.New(a.DType(), append(slices.Clone(shape[:nd-2]), op.Len)...)
	if err != nil {
		return nil, fmt.Errorf("diagonal_chunk: %w", err)
	}
	if out.Size() == 0 {
		return out, nil
	}
	es := a.DType().Size()
	src, dst := a.Bytes(), out.Bytes()
	mats := ndarray.Size(shape[:nd-2])
	d := 0
	for m := range mats {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		base := m * rows * cols
		for k := range op.Len {
			s := (base + (op.Row+k)*cols + op.Col + k) * es
			d += copy(dst[d:d+es], src[s:s+es])
		}
	}
	return out, nil
}
