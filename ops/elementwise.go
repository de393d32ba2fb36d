package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		// Unknown: elementwise ops run on chunks of unknown length as they come, when all such operands
		// share one axis and one chunking (they come from the same mask).
		Descriptor{Name: "elementwise", Op: Elementwise{}, Kinds: Half | Complex, Unknown: true, Fusion: FuseElementwise},
	)
}

// Elementwise is every op that maps aligned elements of broadcast inputs to
// output elements. It serves both levels: it tiles a tensor op, and it is the
// chunk op that runs on one aligned set of chunks.
type Elementwise struct {
	// Kind is "unary", "binary", "where", "clip" or "astype".
	Kind string `json:"kind"`
	// Name is the ndarray op name for unary and binary kinds ("add", "sqrt").
	Name string `json:"name,omitempty"`
	// To is the target dtype of astype.
	To ndarray.DType `json:"to,omitempty"`
	// Consts are scalar operands folded into the op instead of being chunk
	// ops of their own, sorted by position among the operands.
	Consts []Const `json:"consts,omitempty"`
}

// Const is a scalar operand at position Pos of an elementwise op.
type Const struct {
	Pos   int     `json:"pos"`
	Value float64 `json:"value"`
	Int   int64   `json:"int,omitempty"` // exact value for integer dtypes
	// Imag is the imaginary part of a complex constant (Value is its
	// real part).
	Imag  float64       `json:"imag,omitempty"`
	DType ndarray.DType `json:"dtype"`
}

// Array is the constant as a 0-d array.
func (c Const) Array() *ndarray.Array {
	if c.DType.IsComplex() {
		return ndarray.ScalarComplex(c.DType, complex(c.Value, c.Imag))
	}
	if c.DType.IsInt() {
		return ndarray.ScalarInt(c.Int).Astype(c.DType)
	}
	return ndarray.Scalar(c.DType, c.Value)
}

// withConsts interleaves the constants with the graph inputs.
func withConsts[T any](consts []Const, in []T, mk func(Const) T) []T {
	if len(consts) == 0 {
		return in
	}
	out := make([]T, 0, len(in)+len(consts))
	k := 0
	for _, c := range consts {
		for len(out) < c.Pos && k < len(in) {
			out = append(out, in[k])
			k++
		}
		out = append(out, mk(c))
	}
	return append(out, in[k:]...)
}

// Type implements TensorOp and ChunkOp.
func (op Elementwise) Type() string {
	if op.Name != "" {
		return op.Name
	}
	return op.Kind
}

func (op Elementwise) arity() int {
	switch op.Kind {
	case "unary", "astype":
		return 1
	case "binary":
		return 2
	case "where", "clip":
		return 3
	}
	return -1
}

// Infer implements TensorOp.
func (op Elementwise) Infer(in []Meta) (Meta, error) {
	n := op.arity()
	if n < 0 {
		return Meta{}, fmt.Errorf("elementwise: unknown kind %q", op.Kind)
	}
	in = withConsts(op.Consts, in, func(c Const) Meta { return Meta{DType: c.DType} })
	if len(in) != n {
		return Meta{}, fmt.Errorf("%s takes %d inputs, got %d", op.Type(), n, len(in))
	}
	shapes := make([][]int, n)
	for i, m := range in {
		shapes[i] = m.Shape
	}
	uax, err := unknownBroadcastAxis(op.Type(), in)
	if err != nil {
		return Meta{}, err
	}
	if uax >= 0 {
		// Broadcast with the unknown axis as 1; the known operands must
		// broadcast along it (length 1, or without the axis).
		for i, m := range in {
			if ax := m.UnknownAxis(); ax >= 0 {
				shapes[i] = slices.Clone(m.Shape)
				shapes[i][ax] = 1
			}
		}
	}
	shape, err := ndarray.BroadcastShapes(shapes...)
	if err != nil {
		return Meta{}, fmt.Errorf("%s: %w", op.Type(), err)
	}
	dt, err := op.resultType(in)
	if err != nil {
		return Meta{}, err
	}
	if uax < 0 {
		return Meta{Shape: shape, DType: dt}, nil
	}
	if shape[uax] != 1 {
		return Meta{}, fmt.Errorf("%s: an operand of length %d along axis %d cannot broadcast against one whose length there is unknown (a boolean mask's selection): execute that one first",
			op.Type(), shape[uax], uax)
	}
	shape[uax] = -1
	return Meta{Shape: shape, DType: dt, Unknown: int8(uax + 1)}, nil
}

// unknownBroadcastAxis is the output axis of unknown length of operands
// broadcast together, or -1; operands unknown along different output axes
// are an error.
func unknownBroadcastAxis(name string, in []Meta) (int, error) {
	nd := 0
	for _, m := range in {
		nd = max(nd, m.NDim())
	}
	uax := -1
	for _, m := range in {
		ax := m.UnknownAxis()
		if ax < 0 {
			continue
		}
		ax += nd - m.NDim()
		if uax >= 0 && ax != uax {
			return -1, fmt.Errorf("%s: operands have unknown lengths along different axes (%d and %d)", name, uax, ax)
		}
		uax = ax
	}
	return uax, nil
}

func (op Elementwise) resultType(in []Meta) (ndarray.DType, error) {
	switch op.Kind {
	case "unary":
		u, err := ndarray.ParseUnaryOp(op.Name)
		if err != nil {
			return 0, err
		}
		return ndarray.UnaryResultType(u, in[0].DType)
	case "binary":
		b, err := ndarray.ParseBinaryOp(op.Name)
		if err != nil {
			return 0, err
		}
		return ndarray.BinaryResultType(b, in[0].DType, in[1].DType)
	case "where":
		return ndarray.Promote(in[1].DType, in[2].DType), nil
	case "clip":
		return ndarray.Promote(ndarray.Promote(in[0].DType, in[1].DType), in[2].DType), nil
	case "astype":
		if !op.To.Valid() {
			return 0, fmt.Errorf("astype: invalid dtype %v", op.To)
		}
		return op.To, nil
	}
	return 0, fmt.Errorf("elementwise: unknown kind %q", op.Kind)
}

// Tile implements TensorOp: the inputs are rechunked to a common grid (the
// union of their chunk boundaries on each non-broadcast axis) and one chunk op
// runs per output chunk.
func (op Elementwise) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	if err := sameUnknownSplits(op.Type(), in, out); err != nil {
		return nil, err
	}
	aligned, nsplits, err := AlignBroadcast(b, in, out.Shape)
	if err != nil {
		return nil, err
	}
	t := &Tiled{Meta: out, NSplits: nsplits}
	grid := t.Grid()
	n := gridCount(grid)
	t.Chunks = make([]ChunkRef, n)
	reserve(b, n)
	grids := make([][]int, len(aligned))
	for k, a := range aligned {
		grids[k] = a.Grid()
	}
	// Every chunk runs the same op: boxed once, not once per chunk.
	var cop ChunkOp = op
	addBulk(b, n, len(aligned), func(lo, hi int, put BulkPut) {
		var shapes ShapeCache
		bidx := make([]int, len(out.Shape))
		idx := make([]int, len(grid))
		refs := make([]ChunkRef, len(aligned))
		gridAt(grid, lo, idx)
		for i := lo; i < hi; i++ {
			for k, a := range aligned {
				refs[k] = a.Chunks[GridFlat(grids[k], broadcastIndexInto(bidx[:len(a.Meta.Shape)], a, out.Shape, idx))]
			}
			shape := shapes.Shape(nsplits, idx)
			put(i, cop, refs, Meta{Shape: shape, DType: out.DType, Unknown: out.Unknown})
			gridNext(grid, idx)
		}
	}, t.Chunks)
	return t, nil
}

// sameUnknownSplits checks that the operands of unknown length have the
// same chunks along that axis: chunks of unknown length cannot be
// rechunked, so they must already line up (as when they come from one
// mask).
func sameUnknownSplits(name string, in []*Tiled, out Meta) error {
	var first []int
	for _, t := range in {
		ax := t.Meta.UnknownAxis()
		if ax < 0 {
			continue
		}
		if first == nil {
			first = t.NSplits[ax]
		} else if !slices.Equal(first, t.NSplits[ax]) {
			return fmt.Errorf("%s: operands of unknown length along axis %d come from different chunkings (%d and %d chunks bounded by %v and %v): execute them first",
				name, out.UnknownAxis(), len(first), len(t.NSplits[ax]), first, t.NSplits[ax])
		}
	}
	return nil
}

// AlignBroadcast rechunks inputs that broadcast to shape onto a common grid:
// along each output axis, the union of the boundaries of the inputs that
// span it (inputs of length 1 there, or without the axis, are broadcast and
// keep their single chunk). It returns the rechunked inputs and the output
// chunking. The output grid is admitted by the builder's budget before
// anything is rechunked: broadcasting (N,1) chunks against (1,M) ones makes
// N*M.
func AlignBroadcast(b Builder, in []*Tiled, shape []int) ([]*Tiled, [][]int, error) {
	nd := len(shape)
	nsplits := make([][]int, nd)
	for ax := range nd {
		var cands [][]int
		for _, t := range in {
			j := ax - (nd - len(t.Meta.Shape))
			if j >= 0 && t.Meta.Shape[j] == shape[ax] {
				cands = append(cands, t.NSplits[j])
			}
		}
		if len(cands) == 0 {
			nsplits[ax] = []int{shape[ax]}
		} else {
			nsplits[ax] = UnifySplits(cands...)
		}
	}
	grid := make([]int, nd)
	for ax, sp := range nsplits {
		grid[ax] = len(sp)
	}
	if err := admitGrid(b, grid, 1); err != nil {
		return nil, nil, err
	}
	out := make([]*Tiled, len(in))
	for k, t := range in {
		want := make([][]int, len(t.Meta.Shape))
		for j := range want {
			ax := j + nd - len(t.Meta.Shape)
			if t.Meta.Shape[j] == shape[ax] {
				want[j] = nsplits[ax]
			} else {
				want[j] = []int{t.Meta.Shape[j]} // broadcast axis of length 1
			}
		}
		out[k] = RechunkTiled(b, t, want)
	}
	return out, nsplits, nil
}

// broadcastIndexInto maps an output chunk index to the chunk of an aligned
// input, writing into r: broadcast axes use chunk 0, missing leading axes
// are dropped.
func broadcastIndexInto(r []int, t *Tiled, shape []int, idx []int) []int {
	nd := len(shape)
	for j := range r {
		r[j] = 0
		ax := j + nd - len(r)
		if t.Meta.Shape[j] == shape[ax] {
			r[j] = idx[ax]
		}
	}
	return r
}

// Exec implements ChunkOp.
func (op Elementwise) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	in = withConsts(op.Consts, in, Const.Array)
	switch op.Kind {
	case "unary":
		u, err := ndarray.ParseUnaryOp(op.Name)
		if err != nil {
			return nil, err
		}
		return ndarray.Unary(u, in[0])
	case "binary":
		bo, err := ndarray.ParseBinaryOp(op.Name)
		if err != nil {
			return nil, err
		}
		return ndarray.Binary(bo, in[0], in[1])
	case "where":
		return ndarray.Where(in[0], in[1], in[2])
	case "clip":
		return ndarray.Clip(in[0], in[1], in[2])
	case "astype":
		return in[0].Astype(op.To), nil
	}
	return nil, fmt.Errorf("elementwise: unknown kind %q", op.Kind)
}
