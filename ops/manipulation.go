package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "transpose", Op: Transpose{}, Kinds: Half | Complex},
		Descriptor{Name: "flip", Op: Flip{}, Kinds: Half | Complex},
		Descriptor{Name: "squeeze", Op: Squeeze{}, Kinds: Half | Complex},
		Descriptor{Name: "expand_dims", Op: ExpandDims{}, Kinds: Half | Complex},
		Descriptor{Name: "broadcast_to", Op: BroadcastTo{}, Kinds: Half | Complex},
		Descriptor{Name: "broadcast_chunk", Op: BroadcastChunk{}},
		// Unknown: tensors of unknown length along the joined axis are joined chunk by chunk (Infer refuses
		// other axes of unknown length).
		Descriptor{Name: "concatenate", Op: Concatenate{}, Kinds: Half | Complex, Unknown: true},
		Descriptor{Name: "reshape", Op: Reshape{}, Kinds: Half | Complex},
		Descriptor{Name: "reshape_chunk", Op: ReshapeChunk{}},
		Descriptor{Name: "reshape_assemble", Op: ReshapeAssemble{}},
	)
}

// Shape manipulation. Wherever NumPy returns a view, the chunk kernels here
// return ndarray views of their input chunk (the worker accounts a shared
// buffer once), and tiling only rearranges the chunk grid: no data moves.

func checkOneInput(name string, in []Meta) error {
	if len(in) != 1 {
		return fmt.Errorf("%s takes 1 input, got %d", name, len(in))
	}
	return nil
}

// NormPerm normalises a transpose permutation of nd axes (negative axes
// count from the end); an empty perm reverses the axes.
func NormPerm(perm []int, nd int) ([]int, error) {
	if len(perm) == 0 {
		p := make([]int, nd)
		for i := range p {
			p[i] = nd - 1 - i
		}
		return p, nil
	}
	if len(perm) != nd {
		return nil, fmt.Errorf("axes %v don't match a tensor of dimension %d", perm, nd)
	}
	out := make([]int, nd)
	seen := make([]bool, nd)
	for i, p := range perm {
		ax, err := ndarray.NormAxis(p, nd)
		if err != nil {
			return nil, err
		}
		if seen[ax] {
			return nil, fmt.Errorf("repeated axis %d in transpose axes %v", ax, perm)
		}
		seen[ax] = true
		out[i] = ax
	}
	return out, nil
}

// Transpose permutes axes. At the tensor level it permutes the chunk grid
// and nsplits; at the chunk level it is an ndarray Transpose view.
type Transpose struct {
	// Perm is a permutation of 0..nd-1 (normalised by Infer's caller;
	// Infer accepts negative axes and an empty Perm meaning reverse).
	Perm []int `json:"perm"`
}

// Type implements TensorOp and ChunkOp.
func (Transpose) Type() string { return "transpose" }

// Infer implements TensorOp.
func (op Transpose) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("transpose", in); err != nil {
		return Meta{}, err
	}
	perm, err := NormPerm(op.Perm, in[0].NDim())
	if err != nil {
		return Meta{}, fmt.Errorf("transpose: %w", err)
	}
	shape := make([]int, len(perm))
	for i, p := range perm {
		shape[i] = in[0].Shape[p]
	}
	return Meta{Shape: shape, DType: in[0].DType}, nil
}

// Tile implements TensorOp.
func (op Transpose) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	perm, err := NormPerm(op.Perm, t.Meta.NDim())
	if err != nil {
		return nil, err
	}
	op.Perm = perm
	ns := make([][]int, len(perm))
	for i, p := range perm {
		ns[i] = t.NSplits[p]
	}
	res := &Tiled{Meta: out, NSplits: ns}
	grid, inGrid := res.Grid(), t.Grid()
	res.Chunks = make([]ChunkRef, 0, gridCount(grid))
	inIdx := make([]int, len(perm))
	ForEachGrid(grid, func(idx []int) {
		for i, p := range perm {
			inIdx[p] = idx[i]
		}
		ref := t.Chunks[GridFlat(inGrid, inIdx)]
		res.Chunks = append(res.Chunks, b.AddChunk(op, []ChunkRef{ref}, Meta{Shape: ChunkShape(ns, idx), DType: out.DType}))
	})
	return res, nil
}

// Exec implements ChunkOp.
func (op Transpose) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return in[0].Transpose(op.Perm...)
}

// Flip reverses the order of elements along Axes. At the tensor level it
// reverses the chunk grid along them; at the chunk level it is a view.
type Flip struct {
	Axes []int `json:"axes"` // normalised, no repeats
}

// Type implements TensorOp and ChunkOp.
func (Flip) Type() string { return "flip" }

// Infer implements TensorOp.
func (op Flip) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("flip", in); err != nil {
		return Meta{}, err
	}
	if err := checkAxes(op.Axes, in[0].NDim()); err != nil {
		return Meta{}, fmt.Errorf("flip: %w", err)
	}
	return in[0], nil
}

// checkAxes accepts normalised axes without repeats.
func checkAxes(axes []int, nd int) error {
	seen := make([]bool, nd)
	for _, a := range axes {
		if a < 0 || a >= nd {
			return fmt.Errorf("axis %d is out of bounds for tensor of dimension %d", a, nd)
		}
		if seen[a] {
			return fmt.Errorf("repeated axis %d in %v", a, axes)
		}
		seen[a] = true
	}
	return nil
}

// Tile implements TensorOp.
func (op Flip) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	nd := t.Meta.NDim()
	flip := make([]bool, nd)
	ns := slices.Clone(t.NSplits)
	for _, a := range op.Axes {
		flip[a] = true
		ns[a] = slices.Clone(ns[a])
		slices.Reverse(ns[a])
	}
	res := &Tiled{Meta: out, NSplits: ns}
	grid := res.Grid()
	res.Chunks = make([]ChunkRef, 0, gridCount(grid))
	inIdx := make([]int, nd)
	ForEachGrid(grid, func(idx []int) {
		for ax, j := range idx {
			if flip[ax] {
				j = grid[ax] - 1 - j
			}
			inIdx[ax] = j
		}
		ref := t.Chunks[GridFlat(grid, inIdx)]
		res.Chunks = append(res.Chunks, b.AddChunk(op, []ChunkRef{ref}, Meta{Shape: ChunkShape(ns, idx), DType: out.DType}))
	})
	return res, nil
}

// Exec implements ChunkOp.
func (op Flip) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	a := in[0]
	for _, ax := range op.Axes {
		var err error
		if a, err = a.Flip(ax); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Squeeze removes length-1 axes. Their grid length is 1, so the chunks keep
// their C order; each chunk kernel is an ndarray Squeeze view.
type Squeeze struct {
	Axes []int `json:"axes"` // normalised, sorted, non-empty
}

// Type implements TensorOp and ChunkOp.
func (Squeeze) Type() string { return "squeeze" }

// Infer implements TensorOp.
func (op Squeeze) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("squeeze", in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	if len(op.Axes) == 0 {
		return Meta{}, fmt.Errorf("squeeze: no axes given")
	}
	if err := checkAxes(op.Axes, m.NDim()); err != nil {
		return Meta{}, fmt.Errorf("squeeze: %w", err)
	}
	drop := make([]bool, m.NDim())
	for _, a := range op.Axes {
		if m.Shape[a] != 1 {
			return Meta{}, fmt.Errorf("squeeze: cannot select axis %d of shape %v, whose size is not one", a, m.Shape)
		}
		drop[a] = true
	}
	shape := []int{}
	for ax, d := range m.Shape {
		if !drop[ax] {
			shape = append(shape, d)
		}
	}
	return Meta{Shape: shape, DType: m.DType}, nil
}

// Tile implements TensorOp.
func (op Squeeze) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	ns := [][]int{}
	for ax, sp := range t.NSplits {
		if !slices.Contains(op.Axes, ax) {
			ns = append(ns, sp)
		}
	}
	return mapChunks(b, t, out, ns, op), nil
}

// Exec implements ChunkOp.
func (op Squeeze) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(op.Axes) == 0 {
		return in[0], nil // ndarray's Squeeze() would drop every length-1 axis
	}
	return in[0].Squeeze(op.Axes...)
}

// mapChunks applies a chunk op to every chunk of t, one to one, when the
// output grid has the same C order as the input's (only grid-length-1 axes
// differ).
func mapChunks(b Builder, t *Tiled, out Meta, ns [][]int, op ChunkOp) *Tiled {
	res := &Tiled{Meta: out, NSplits: ns}
	res.Chunks = make([]ChunkRef, 0, len(t.Chunks))
	k := 0
	ForEachGrid(res.Grid(), func(idx []int) {
		res.Chunks = append(res.Chunks, b.AddChunk(op, []ChunkRef{t.Chunks[k]}, Meta{Shape: ChunkShape(ns, idx), DType: out.DType}))
		k++
	})
	return res
}

// ExpandDims inserts a length-1 axis at Axis (a position in the output).
type ExpandDims struct {
	Axis int `json:"axis"` // normalised: 0..nd
}

// Type implements TensorOp and ChunkOp.
func (ExpandDims) Type() string { return "expand_dims" }

// Infer implements TensorOp.
func (op ExpandDims) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("expand_dims", in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	if op.Axis < 0 || op.Axis > m.NDim() {
		return Meta{}, fmt.Errorf("expand_dims: axis %d is out of bounds for a result of dimension %d", op.Axis, m.NDim()+1)
	}
	return Meta{Shape: slices.Insert(slices.Clone(m.Shape), op.Axis, 1), DType: m.DType}, nil
}

// Tile implements TensorOp.
func (op ExpandDims) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	ns := slices.Insert(slices.Clone(t.NSplits), op.Axis, []int{1})
	return mapChunks(b, t, out, ns, op), nil
}

// Exec implements ChunkOp.
func (op ExpandDims) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return in[0].ExpandDims(op.Axis)
}

// BroadcastTo broadcasts a tensor to Shape (NumPy's broadcast_to). Axes the
// input spans keep its chunking; new and stretched axes are split by the
// auto rule (chunks of about DefaultChunkBytes, counting the input chunk
// they repeat), since consumers materialise each chunk. Every output chunk
// is a zero-stride view of one input chunk.
type BroadcastTo struct {
	Shape []int `json:"shape"`
}

// Type implements TensorOp.
func (BroadcastTo) Type() string { return "broadcast_to" }

// Infer implements TensorOp.
func (op BroadcastTo) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("broadcast_to", in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	nd := len(op.Shape)
	bad := fmt.Errorf("broadcast_to: cannot broadcast tensor of shape %v to shape %v", m.Shape, op.Shape)
	if m.NDim() > nd {
		return Meta{}, bad
	}
	for i, d := range op.Shape {
		if d < 0 {
			return Meta{}, fmt.Errorf("broadcast_to: negative dimension %d in shape %v", d, op.Shape)
		}
		if j := i - (nd - m.NDim()); j >= 0 && m.Shape[j] != d && m.Shape[j] != 1 {
			return Meta{}, bad
		}
	}
	return Meta{Shape: slices.Clone(op.Shape), DType: m.DType}, nil
}

// Tile implements TensorOp.
func (op BroadcastTo) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	nd := len(out.Shape)
	lead := nd - t.Meta.NDim()
	ns := make([][]int, nd)
	spanned := make([]bool, nd)
	budget := int64(DefaultChunkBytes / max(out.DType.Size(), 1))
	for ax := lead; ax < nd; ax++ {
		j := ax - lead
		if t.Meta.Shape[j] == out.Shape[ax] {
			spanned[ax] = true
			ns[ax] = t.NSplits[j]
			budget /= int64(max(slices.Max(ns[ax]), 1))
		}
	}
	budget = max(budget, 1)
	for ax := nd - 1; ax >= 0; ax-- {
		if spanned[ax] {
			continue
		}
		n := out.Shape[ax]
		switch {
		case n == 0:
			ns[ax] = []int{0}
		case int64(n) <= budget:
			ns[ax] = []int{n}
			budget /= int64(n)
		default:
			k := (int64(n) + budget - 1) / budget
			ns[ax] = SplitEven(n, int((int64(n)+k-1)/k))
			budget = 1
		}
	}
	res := &Tiled{Meta: out, NSplits: ns}
	grid, inGrid := res.Grid(), t.Grid()
	if err := admitGrid(b, grid, 1); err != nil {
		return nil, err
	}
	res.Chunks = make([]ChunkRef, 0, gridCount(grid))
	inIdx := make([]int, t.Meta.NDim())
	ForEachGrid(grid, func(idx []int) {
		for j := range inIdx {
			inIdx[j] = 0
			if spanned[j+lead] {
				inIdx[j] = idx[j+lead]
			}
		}
		shape := ChunkShape(ns, idx)
		ref := t.Chunks[GridFlat(inGrid, inIdx)]
		res.Chunks = append(res.Chunks, b.AddChunk(BroadcastChunk{Shape: shape}, []ChunkRef{ref}, Meta{Shape: shape, DType: out.DType}))
	})
	return res, nil
}

// BroadcastChunk is a zero-stride view of one chunk with the given shape.
type BroadcastChunk struct {
	Shape []int `json:"shape"`
}

// Type implements ChunkOp.
func (BroadcastChunk) Type() string { return "broadcast_chunk" }

// Exec implements ChunkOp.
func (op BroadcastChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return in[0].BroadcastTo(op.Shape)
}

// Concatenate joins tensors of one dtype along Axis. Along the axis the
// output grid is the inputs' grids one after another, so their chunks are
// reused as they are; the other axes are rechunked to the common refinement
// of the inputs' chunkings (UnifySplits).
type Concatenate struct {
	Axis int `json:"axis"` // normalised
}

// Type implements TensorOp.
func (Concatenate) Type() string { return "concatenate" }

// Infer implements TensorOp.
func (op Concatenate) Infer(in []Meta) (Meta, error) {
	if len(in) == 0 {
		return Meta{}, fmt.Errorf("concatenate: need at least one tensor")
	}
	first := in[0]
	nd := first.NDim()
	if nd == 0 {
		return Meta{}, fmt.Errorf("concatenate: zero-dimensional tensors cannot be concatenated")
	}
	if op.Axis < 0 || op.Axis >= nd {
		return Meta{}, fmt.Errorf("concatenate: axis %d is out of bounds for tensors of dimension %d", op.Axis, nd)
	}
	shape := slices.Clone(first.Shape)
	unknown := false
	for k, m := range in {
		if ax := m.UnknownAxis(); ax >= 0 {
			if ax != op.Axis {
				return Meta{}, &UnknownShapeError{Op: "concatenate", Input: k, Axis: ax}
			}
			unknown = true
		}
	}
	for k, m := range in[1:] {
		if m.NDim() != nd {
			return Meta{}, fmt.Errorf("concatenate: tensor 0 has shape %v and tensor %d has shape %v: all the input tensors must have the same number of dimensions", first.Shape, k+1, m.Shape)
		}
		if m.DType != first.DType {
			return Meta{}, fmt.Errorf("concatenate: tensor 0 is %v and tensor %d is %v (promote them first)", first.DType, k+1, m.DType)
		}
		for ax, d := range m.Shape {
			if ax != op.Axis && d != first.Shape[ax] {
				return Meta{}, fmt.Errorf("concatenate: tensor 0 has shape %v and tensor %d has shape %v: they differ along axis %d (concatenating along axis %d)", first.Shape, k+1, m.Shape, ax, op.Axis)
			}
		}
		shape[op.Axis] += m.Shape[op.Axis]
	}
	if unknown {
		// The chunks are joined as they come: the output's length along
		// the axis is known once theirs are.
		shape[op.Axis] = -1
		return Meta{Shape: shape, DType: first.DType, Unknown: int8(op.Axis + 1)}, nil
	}
	return Meta{Shape: shape, DType: first.DType}, nil
}

// Tile implements TensorOp.
func (op Concatenate) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	nd := out.NDim()
	axis := op.Axis
	unified := make([][]int, nd)
	for ax := range nd {
		if ax == axis {
			continue
		}
		sp := make([][]int, len(in))
		for k, t := range in {
			sp[k] = t.NSplits[ax]
		}
		unified[ax] = UnifySplits(sp...)
	}
	// Inputs empty along the axis contribute nothing (unless all are).
	var parts []*Tiled
	for _, t := range in {
		if t.Meta.Shape[axis] != 0 || (out.Shape[axis] == 0 && len(parts) == 0) {
			want := slices.Clone(unified)
			want[axis] = t.NSplits[axis]
			if t.Meta.Unknown != 0 && !slices.EqualFunc(want, t.NSplits, slices.Equal[[]int]) {
				// A rechunk needs every length: along the other axes, the
				// inputs of unknown length must be chunked alike.
				return nil, fmt.Errorf("concatenate: an input of unknown length along axis %d is chunked %v, the others %v along the other axes: "+
					"rechunk the known inputs as it is", axis, t.NSplits, unified)
			}
			parts = append(parts, RechunkTiled(b, t, want))
		}
	}
	// Along the axis: output chunk j is chunk src[j] of part part[j].
	var axSplits, part, src []int
	for k, p := range parts {
		for j, s := range p.NSplits[axis] {
			axSplits = append(axSplits, s)
			part = append(part, k)
			src = append(src, j)
		}
	}
	ns := slices.Clone(unified)
	ns[axis] = axSplits
	res := &Tiled{Meta: out, NSplits: ns}
	grids := make([][]int, len(parts))
	for k, p := range parts {
		grids[k] = p.Grid()
	}
	res.Chunks = make([]ChunkRef, 0, gridCount(res.Grid()))
	inIdx := make([]int, nd)
	ForEachGrid(res.Grid(), func(idx []int) {
		copy(inIdx, idx)
		j := idx[axis]
		inIdx[axis] = src[j]
		p := parts[part[j]]
		res.Chunks = append(res.Chunks, p.Chunks[GridFlat(grids[part[j]], inIdx)])
	})
	return res, nil
}

// Reshape gives a tensor a new shape with the same elements in C order.
//
// Tiling takes the cheapest applicable path:
//   - one input chunk: one ReshapeChunk (a view when the chunk is contiguous);
//   - only length-1 axes added or removed: one ReshapeChunk view per chunk,
//     the grid keeps its C order;
//   - otherwise the input is rechunked into row blocks (every axis but the
//     first whole) and each output row block along axis 0 is assembled from
//     the flat range of the input row blocks it overlaps. This costs one
//     rechunk of the input (a copy unless its trailing axes are already
//     whole) plus one copy of the data, and the graph is linear in the number
//     of chunks: a two-pointer walk over input and output row blocks. An
//     output block that is exactly one input block is a view instead.
type Reshape struct {
	Shape []int `json:"shape"` // may hold one -1
}

// Type implements TensorOp.
func (Reshape) Type() string { return "reshape" }

// Infer implements TensorOp.
func (op Reshape) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("reshape", in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	sh, err := ndarray.ResolveReshape(ndarray.Size(m.Shape), op.Shape)
	if err != nil {
		return Meta{}, fmt.Errorf("reshape: cannot reshape tensor of shape %v into shape %v: %w", m.Shape, op.Shape, err)
	}
	return Meta{Shape: sh, DType: m.DType}, nil
}

// nonUnit returns the dimensions that are not 1.
func nonUnit(shape []int) []int {
	var out []int
	for _, d := range shape {
		if d != 1 {
			out = append(out, d)
		}
	}
	return out
}

// wholeSplits is one chunk per axis.
func wholeSplits(shape []int) [][]int {
	ns := make([][]int, len(shape))
	for i, d := range shape {
		ns[i] = []int{d}
	}
	return ns
}

// zeroSized tiles an empty output as one generated empty chunk, so it
// depends on nothing.
func zeroSized(b Builder, out Meta) *Tiled {
	ref := b.AddChunk(FullChunk{Shape: slices.Clone(out.Shape), DType: out.DType}, nil, out)
	return &Tiled{Meta: out, NSplits: wholeSplits(out.Shape), Chunks: []ChunkRef{ref}}
}

// Tile implements TensorOp.
func (op Reshape) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	switch {
	case slices.Equal(t.Meta.Shape, out.Shape):
		return &Tiled{Meta: out, NSplits: t.NSplits, Chunks: t.Chunks}, nil
	case ndarray.Size(out.Shape) == 0:
		return zeroSized(b, out), nil
	case len(t.Chunks) == 1:
		ref := b.AddChunk(ReshapeChunk{Shape: slices.Clone(out.Shape)}, []ChunkRef{t.Chunks[0]}, out)
		return &Tiled{Meta: out, NSplits: wholeSplits(out.Shape), Chunks: []ChunkRef{ref}}, nil
	case slices.Equal(nonUnit(t.Meta.Shape), nonUnit(out.Shape)):
		// Same non-1 axes in the same order: the grids match chunk for chunk.
		ns := make([][]int, out.NDim())
		j := 0
		for ax, d := range out.Shape {
			if d == 1 {
				ns[ax] = []int{1}
				continue
			}
			for t.Meta.Shape[j] == 1 {
				j++
			}
			ns[ax] = t.NSplits[j]
			j++
		}
		res := &Tiled{Meta: out, NSplits: ns, Chunks: make([]ChunkRef, 0, len(t.Chunks))}
		k := 0
		ForEachGrid(res.Grid(), func(idx []int) {
			shape := ChunkShape(ns, idx)
			res.Chunks = append(res.Chunks, b.AddChunk(ReshapeChunk{Shape: shape}, []ChunkRef{t.Chunks[k]}, Meta{Shape: shape, DType: out.DType}))
			k++
		})
		return res, nil
	}
	return reshapeRows(b, t, out), nil
}

// maxChunkSize is the number of elements of the largest chunk.
func maxChunkSize(ns [][]int) int {
	n := 1
	for _, sp := range ns {
		n *= max(slices.Max(sp), 1)
	}
	return n
}

// reshapeRows is the general reshape: input row blocks to output row blocks.
func reshapeRows(b Builder, t *Tiled, out Meta) *Tiled {
	target := maxChunkSize(t.NSplits)
	rowIn := ndarray.Size(t.Meta.Shape[1:])
	rowOut := ndarray.Size(out.Shape[1:])
	want := wholeSplits(t.Meta.Shape)
	want[0] = t.NSplits[0]
	if !sameSplits(want, t.NSplits) {
		want[0] = SplitEven(t.Meta.Shape[0], max(1, target/rowIn))
	}
	blocks := RechunkTiled(b, t, want)
	inOff := Offsets(blocks.NSplits[0])
	ns := wholeSplits(out.Shape)
	ns[0] = SplitEven(out.Shape[0], max(1, target/rowOut))
	outOff := Offsets(ns[0])
	res := &Tiled{Meta: out, NSplits: ns, Chunks: make([]ChunkRef, 0, len(ns[0]))}
	i := 0 // first input block that may overlap the current output block
	for k := range ns[0] {
		lo, hi := outOff[k]*rowOut, outOff[k+1]*rowOut
		shape := slices.Clone(out.Shape)
		shape[0] = ns[0][k]
		meta := Meta{Shape: shape, DType: out.DType}
		for inOff[i+1]*rowIn <= lo {
			i++
		}
		if inOff[i]*rowIn == lo && inOff[i+1]*rowIn == hi {
			res.Chunks = append(res.Chunks, b.AddChunk(ReshapeChunk{Shape: shape}, []ChunkRef{blocks.Chunks[i]}, meta))
			continue
		}
		var op ReshapeAssemble
		op.Shape = shape
		var inputs []ChunkRef
		for j := i; j < len(blocks.Chunks) && inOff[j]*rowIn < hi; j++ {
			bLo, bHi := inOff[j]*rowIn, inOff[j+1]*rowIn
			s, e := max(lo, bLo), min(hi, bHi)
			op.Pieces = append(op.Pieces, FlatPiece{Src: s - bLo, Dst: s - lo, Len: e - s})
			inputs = append(inputs, blocks.Chunks[j])
		}
		res.Chunks = append(res.Chunks, b.AddChunk(op, inputs, meta))
	}
	return res
}

// ReshapeChunk reshapes one chunk: a view when only length-1 axes change
// or the chunk is contiguous, a copy otherwise (as NumPy's reshape).
type ReshapeChunk struct {
	Shape []int `json:"shape"`
}

// Type implements ChunkOp.
func (ReshapeChunk) Type() string { return "reshape_chunk" }

// Exec implements ChunkOp.
func (op ReshapeChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return ReshapeView(in[0], op.Shape)
}

// ReshapeView reshapes a, without copying when only length-1 axes are added
// or removed (whatever the strides) or when a is contiguous.
func ReshapeView(a *ndarray.Array, shape []int) (*ndarray.Array, error) {
	if !slices.Equal(nonUnit(a.Shape()), nonUnit(shape)) || ndarray.Size(shape) != a.Size() {
		return contiguous(a).Reshape(shape...)
	}
	v, err := a.Squeeze()
	if err != nil {
		return nil, err
	}
	for ax, d := range shape {
		if d == 1 {
			if v, err = v.ExpandDims(ax); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// FlatPiece is Len elements at flat offset Src of an input chunk going to
// flat offset Dst of the output chunk.
type FlatPiece struct {
	Src int `json:"src"`
	Dst int `json:"dst"`
	Len int `json:"len"`
}

// ReshapeAssemble builds one output chunk of a general reshape from flat
// ranges of its input chunks (input k supplies Pieces[k]).
type ReshapeAssemble struct {
	Shape  []int       `json:"shape"`
	Pieces []FlatPiece `json:"pieces"`
}

// Type implements ChunkOp.
func (ReshapeAssemble) Type() string { return "reshape_assemble" }

// Exec implements ChunkOp.
func (op ReshapeAssemble) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != len(op.Pieces) || len(in) == 0 {
		return nil, fmt.Errorf("reshape_assemble: %d inputs for %d pieces", len(in), len(op.Pieces))
	}
	out, err := ndarray.New(in[0].DType(), op.Shape...)
	if err != nil {
		return nil, err
	}
	flatOut, err := out.Reshape(-1)
	if err != nil {
		return nil, err
	}
	for k, p := range op.Pieces {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		flat, err := contiguous(in[k]).Reshape(-1)
		if err != nil {
			return nil, err
		}
		src, err := flat.Slice([]ndarray.Range{{Start: p.Src, Step: 1, Len: p.Len}})
		if err != nil {
			return nil, fmt.Errorf("reshape_assemble: piece %d: %w", k, err)
		}
		dst, err := flatOut.Slice([]ndarray.Range{{Start: p.Dst, Step: 1, Len: p.Len}})
		if err != nil {
			return nil, fmt.Errorf("reshape_assemble: piece %d: %w", k, err)
		}
		if src.DType() != dst.DType() {
			return nil, fmt.Errorf("reshape_assemble: piece %d is %v, output is %v", k, src.DType(), dst.DType())
		}
		ndarray.CopyInto(dst, src)
	}
	return out, nil
}

// contiguous is a C-order copy of a unless it already is one. It copies
// through Astype, whose strided walk handles every view (flipped ones with
// negative strides included).
func contiguous(a *ndarray.Array) *ndarray.Array {
	if a.IsContiguous() {
		return a
	}
	return a.Astype(a.DType())
}
