// Package ops defines Phobos's operations. One op type serves both levels:
// at the tensor level it infers its output's shape and dtype and tiles itself
// into chunk ops; at the chunk level it runs a kernel over ndarray chunks.
// Ops are plain structs with exported fields so that a registry can rebuild
// them by type name from JSON (the wire format of a graph).
package ops

import (
	"context"
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Meta is what is known about an array before it exists.
type Meta struct {
	Shape []int         `json:"shape"`
	DType ndarray.DType `json:"dtype"`
	// Unknown is 1 + the axis whose length is known only once the array
	// exists (x[mask], Nonzero), or 0 when every length is known: NumPy
	// has no such arrays, the Array API has (its shapes hold None). At
	// most one axis is unknown. A tensor's Shape holds -1 there; a chunk's
	// holds an upper bound, which the chunk's actual length may fall short
	// of. Ops take such tensors only when they say so (UnknownLengths).
	Unknown int8 `json:"unknown,omitempty"` // int8: a chunk graph holds one Meta per chunk op
}

// UnknownAxis is the axis of unknown length, or -1.
func (m Meta) UnknownAxis() int { return int(m.Unknown) - 1 }

// Nbytes is the size of the array's elements (at a chunk, an upper bound
// when an axis is unknown; -1 for a tensor with an unknown axis).
func (m Meta) Nbytes() int64 {
	if n := ndarray.Size(m.Shape); n >= 0 {
		return int64(n) * int64(m.DType.Size())
	}
	return -1
}

// Fits reports whether an array of shape is what m plans: the same shape,
// except that the unknown axis may fall short of its bound.
func (m Meta) Fits(shape []int) bool {
	if len(shape) != len(m.Shape) {
		return false
	}
	for ax, d := range shape {
		if d != m.Shape[ax] && (ax != m.UnknownAxis() || d > m.Shape[ax]) {
			return false
		}
	}
	return true
}

// UnknownShapeError is an op given an input whose length along an axis is
// not known yet, which the op needs.
type UnknownShapeError struct {
	Op    string // the op's type
	Input int    // which input
	Axis  int    // the unknown axis of that input
}

func (e *UnknownShapeError) Error() string {
	return fmt.Sprintf("%s: input %d has an axis of unknown length (axis %d, the result of a boolean mask or nonzero), "+
		"which %s needs to know: execute that tensor first and build on its value (tensor.FromArray), "+
		"or use ops that work without the length (elementwise ops, reductions over that axis)", e.Op, e.Input, e.Axis, e.Op)
}

// InferChecked is op.Infer, after refusing inputs with an unknown axis
// unless op accepts them (Descriptor.Unknown), and dtypes op has no kernels
// for (Descriptor.Kinds); tensors and decoded graphs are built through it.
func InferChecked(op TensorOp, in []Meta) (Meta, error) {
	accepts := acceptsUnknown(op)
	for i, m := range in {
		if m.Unknown == 0 {
			continue
		}
		if ax := m.UnknownAxis(); ax < 0 || ax >= m.NDim() || m.Shape[ax] != -1 {
			return Meta{}, fmt.Errorf("%s: input %d: invalid unknown axis %d of shape %v", op.Type(), i, ax, m.Shape)
		}
		if !accepts {
			return Meta{}, &UnknownShapeError{Op: op.Type(), Input: i, Axis: m.UnknownAxis()}
		}
	}
	if err := checkKinds(op, in); err != nil {
		return Meta{}, err
	}
	out, err := op.Infer(in)
	if err == nil && !supports(op, out.DType) {
		return Meta{}, &DTypeError{Op: op.Type(), DType: out.DType}
	}
	return out, err
}

// NDim is the number of axes.
func (m Meta) NDim() int { return len(m.Shape) }

func (m Meta) String() string { return fmt.Sprintf("%v%v", m.DType, m.Shape) }

// ChunkOp is an operation on chunks: it computes one output chunk from its
// input chunks. Kernels must not modify their inputs; they should check ctx
// between blocks of work so a cancel stops them promptly.
type ChunkOp interface {
	Type() string
	Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error)
}

// ChunkRef names a chunk (the output of one chunk op) in the graph being built.
type ChunkRef int32

// Builder receives the chunk ops that tiling produces. The chunk graph
// implements it; ops never see the graph itself.
type Builder interface {
	// AddChunk appends a chunk op whose inputs are already in the graph.
	AddChunk(op ChunkOp, inputs []ChunkRef, meta Meta) ChunkRef
	// ChunkMeta is the meta of a chunk already added.
	ChunkMeta(c ChunkRef) Meta
}

// Tiled is a tensor after tiling: its meta, its per-axis chunk sizes and its
// chunks in C order over the chunk grid.
type Tiled struct {
	Meta    Meta
	NSplits [][]int
	Chunks  []ChunkRef
	// Resplit, when set, tiles the same tensor again to other splits at no
	// cost: its chunks are views of data already in memory (client data),
	// so a rechunk cuts new views instead of copying, and an op may pick
	// its operands' blocks (MatMul does). Only the source that made the
	// chunks sets it; a Tiled derived from another never carries it over.
	Resplit func(b Builder, nsplits [][]int) (*Tiled, error)
}

// Grid is the number of chunks along each axis.
func (t *Tiled) Grid() []int {
	g := make([]int, len(t.NSplits))
	for i, s := range t.NSplits {
		g[i] = len(s)
	}
	return g
}

// At returns the chunk at a grid index.
func (t *Tiled) At(idx []int) ChunkRef {
	return t.Chunks[GridFlat(t.Grid(), idx)]
}

// TensorOp is an operation at the tensor level.
type TensorOp interface {
	Type() string
	// Infer checks the inputs and returns the output's meta.
	Infer(in []Meta) (Meta, error)
	// Tile adds the chunk ops computing the output to b, from the tiled inputs.
	Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error)
}

// GridFlat converts a grid multi-index into the C-order position in Chunks.
func GridFlat(grid, idx []int) int {
	f := 0
	for i, g := range grid {
		f = f*g + idx[i]
	}
	return f
}

// ForEachGrid calls fn for every multi-index of grid in C order. The slice
// passed to fn is reused; copy it to keep it.
func ForEachGrid(grid []int, fn func(idx []int)) {
	for _, g := range grid {
		if g == 0 {
			return
		}
	}
	idx := make([]int, len(grid))
	for {
		fn(idx)
		ax := len(grid) - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			if idx[ax] < grid[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// Offsets returns the starting offsets of the chunks described by splits.
func Offsets(splits []int) []int {
	o := make([]int, len(splits)+1)
	for i, s := range splits {
		o[i+1] = o[i] + s
	}
	return o
}

// ChunkShape is the shape of the chunk at grid index idx.
func ChunkShape(nsplits [][]int, idx []int) []int {
	s := make([]int, len(nsplits))
	for i, sp := range nsplits {
		s[i] = sp[idx[i]]
	}
	return s
}

// ShapeCache hands out chunk shapes, reusing the previous slice when the
// next chunk has the same shape, as most chunks of a grid do. Shapes in
// Meta are read-only, so sharing them is safe and saves an allocation per
// chunk when tiling large grids.
type ShapeCache struct{ last []int }

// Shape is ChunkShape through the cache.
func (c *ShapeCache) Shape(nsplits [][]int, idx []int) []int {
	if len(c.last) == len(nsplits) {
		same := true
		for i, sp := range nsplits {
			if sp[idx[i]] != c.last[i] {
				same = false
				break
			}
		}
		if same {
			return c.last
		}
	}
	c.last = ChunkShape(nsplits, idx)
	return c.last
}

// Same returns shape itself, or the cached slice when they are equal.
func (c *ShapeCache) Same(shape []int) []int {
	if len(c.last) == len(shape) {
		for i := range shape {
			if shape[i] != c.last[i] {
				c.last = shape
				return shape
			}
		}
		return c.last
	}
	c.last = shape
	return shape
}

// AxisOffsets returns, per axis, the starting offset of every chunk (plus the
// axis length at the end), so a chunk's offset is a lookup, not a sum.
func AxisOffsets(nsplits [][]int) [][]int {
	o := make([][]int, len(nsplits))
	for i, sp := range nsplits {
		o[i] = Offsets(sp)
	}
	return o
}

// ChunkOffset is the element offset of the chunk at grid index idx, from
// offsets made by AxisOffsets.
func ChunkOffset(axisOffsets [][]int, idx []int) []int {
	o := make([]int, len(idx))
	for i, j := range idx {
		o[i] = axisOffsets[i][j]
	}
	return o
}
