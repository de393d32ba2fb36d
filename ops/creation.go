package ops

import (
	"context"
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/rng"
)

func init() {
	Register(
		Descriptor{Name: "full", Op: Full{}, Kinds: Half | Complex, Chunks: func(op any) ChunkSpec { return op.(Full).Chunks }},
		Descriptor{Name: "full_chunk", Op: FullChunk{}, Fusion: FuseGenerator, Generator: true},
		Descriptor{Name: "arange", Op: Arange{}, Kinds: Half, Chunks: func(op any) ChunkSpec { return op.(Arange).Chunks }},
		Descriptor{Name: "arange_chunk", Op: ArangeChunk{}, Fusion: FuseGenerator1D, Generator: true},
		Descriptor{Name: "eye", Op: Eye{}, Chunks: func(op any) ChunkSpec { return op.(Eye).Chunks }},
		Descriptor{Name: "eye_chunk", Op: EyeChunk{}, Generator: true},
		Descriptor{Name: "random", Op: Random{}, Chunks: func(op any) ChunkSpec { return op.(Random).Chunks }},
		Descriptor{Name: "random_chunk", Op: RandomChunk{}, Fusion: FuseGenerator, Generator: true},
		Descriptor{Name: "literal", Op: Literal{}, Kinds: Half | Complex, Chunks: func(op any) ChunkSpec { return op.(Literal).Chunks }},
		Descriptor{Name: "literal_chunk", Op: LiteralChunk{}},
	)
}

// Source ops have no inputs. Each tensor-level source op holds the output
// shape, dtype and chunking; Tile makes one generator chunk op per chunk.

func checkNoInputs(name string, in []Meta) error {
	if len(in) != 0 {
		return fmt.Errorf("%s takes no inputs, got %d", name, len(in))
	}
	return nil
}

func checkMeta(name string, m Meta) error {
	if !m.DType.Valid() {
		return fmt.Errorf("%s: invalid dtype %v", name, m.DType)
	}
	for i, d := range m.Shape {
		if d < 0 {
			return fmt.Errorf("%s: negative dimension %d at axis %d of shape %v", name, d, i, m.Shape)
		}
	}
	return nil
}

// tileSource makes one chunk op per chunk from mk(chunk shape, chunk offset).
func tileSource(b Builder, out Meta, spec ChunkSpec, mk func(shape, offset []int) ChunkOp) (*Tiled, error) {
	return tileSourceOf(b, out, spec, true, mk)
}

// sourceTiled admits a source's chunks under b's budget, if it has one,
// and resolves its chunking: the tiling before any chunk is added.
func sourceTiled(b Builder, out Meta, spec ChunkSpec) (*Tiled, error) {
	if bb, ok := b.(Budget); ok {
		if err := bb.Admit(spec.Count(out)); err != nil {
			return nil, err
		}
	}
	ns, err := spec.Resolve(out.Shape, out.DType.Size())
	if err != nil {
		return nil, err
	}
	return &Tiled{Meta: out, NSplits: ns}, nil
}

// tileSourceOf is tileSource; without offsets (nil) when mk does not need
// them, which saves an allocation per chunk.
func tileSourceOf(b Builder, out Meta, spec ChunkSpec, offsets bool, mk func(shape, offset []int) ChunkOp) (*Tiled, error) {
	t, err := sourceTiled(b, out, spec)
	if err != nil {
		return nil, err
	}
	ns := t.NSplits
	offs := AxisOffsets(ns)
	grid := t.Grid()
	t.Chunks = make([]ChunkRef, 0, gridCount(grid))
	reserve(b, gridCount(grid))
	var shapes ShapeCache
	ForEachGrid(grid, func(idx []int) {
		shape := shapes.Shape(ns, idx)
		var off []int
		if offsets {
			off = ChunkOffset(offs, idx)
		}
		t.Chunks = append(t.Chunks, b.AddChunk(mk(shape, off), nil, Meta{Shape: shape, DType: out.DType}))
	})
	return t, nil
}

// Full is a tensor filled with one value (zeros, ones, full).
type Full struct {
	Meta   Meta      `json:"meta"`
	Value  float64   `json:"value"`
	Chunks ChunkSpec `json:"chunks"`
}

// Type implements TensorOp.
func (Full) Type() string { return "full" }

// Infer implements TensorOp.
func (op Full) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("full", in); err != nil {
		return Meta{}, err
	}
	if err := checkMeta("full", op.Meta); err != nil {
		return Meta{}, err
	}
	return op.Meta, wrapChunks("full", op.Chunks.Validate(op.Meta.Shape))
}

// wrapChunks names the op of a chunk spec error.
func wrapChunks(op string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Tile implements TensorOp.
func (op Full) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	// Chunks of one shape (one slice per run of equal shapes) share one
	// boxed op.
	return tileSourceBulk(b, out, op.Chunks, func() func(shape []int) ChunkOp {
		var last ChunkOp
		var lastShape []int
		return func(shape []int) ChunkOp {
			if last == nil || !sameSlice(shape, lastShape) {
				last, lastShape = FullChunk{Shape: shape, DType: out.DType, Value: op.Value}, shape
			}
			return last
		}
	})
}

// tileSourceBulk is tileSourceOf without offsets, its chunk ops added as
// one bulk (addBulk): each range of it makes its ops with a maker of its
// own from newMk.
func tileSourceBulk(b Builder, out Meta, spec ChunkSpec, newMk func() func(shape []int) ChunkOp) (*Tiled, error) {
	t, err := sourceTiled(b, out, spec)
	if err != nil {
		return nil, err
	}
	ns := t.NSplits
	grid := t.Grid()
	n := gridCount(grid)
	t.Chunks = make([]ChunkRef, n)
	reserve(b, n)
	addBulk(b, n, 0, func(lo, hi int, put BulkPut) {
		var shapes ShapeCache
		mk := newMk()
		idx := make([]int, len(grid))
		gridAt(grid, lo, idx)
		for i := lo; i < hi; i++ {
			shape := shapes.Shape(ns, idx)
			put(i, mk(shape), nil, Meta{Shape: shape, DType: out.DType})
			gridNext(grid, idx)
		}
	}, t.Chunks)
	return t, nil
}

// sameSlice reports whether a and b are the same slice (not merely equal).
func sameSlice(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// FullChunk makes one chunk of a Full tensor.
type FullChunk struct {
	Shape []int         `json:"shape"`
	DType ndarray.DType `json:"dtype"`
	Value float64       `json:"value"`
}

// Type implements ChunkOp.
func (FullChunk) Type() string { return "full_chunk" }

// Exec implements ChunkOp.
func (op FullChunk) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.FillScalar(op.DType, op.Shape, op.Value), nil
}

// Arange is a 1-D tensor of Start + i*Step (arange and linspace). When
// EndValue is set, the last element is exactly End (linspace with endpoint).
type Arange struct {
	Meta     Meta      `json:"meta"`
	Start    float64   `json:"start"`
	Step     float64   `json:"step"`
	End      float64   `json:"end,omitempty"`
	EndValue bool      `json:"end_value,omitempty"`
	Chunks   ChunkSpec `json:"chunks"`
}

// Type implements TensorOp.
func (Arange) Type() string { return "arange" }

// Infer implements TensorOp.
func (op Arange) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("arange", in); err != nil {
		return Meta{}, err
	}
	if len(op.Meta.Shape) != 1 {
		return Meta{}, fmt.Errorf("arange: shape %v is not 1-D", op.Meta.Shape)
	}
	if err := checkMeta("arange", op.Meta); err != nil {
		return Meta{}, err
	}
	return op.Meta, wrapChunks("arange", op.Chunks.Validate(op.Meta.Shape))
}

// Tile implements TensorOp.
func (op Arange) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	n := out.Shape[0]
	return tileSource(b, out, op.Chunks, func(shape, off []int) ChunkOp {
		return ArangeChunk{N: shape[0], Offset: off[0], Total: n, DType: out.DType, Start: op.Start, Step: op.Step, End: op.End, EndValue: op.EndValue}
	})
}

// ArangeChunk makes one chunk of an Arange tensor.
type ArangeChunk struct {
	N        int           `json:"n"`
	Offset   int           `json:"offset"`
	Total    int           `json:"total"`
	DType    ndarray.DType `json:"dtype"`
	Start    float64       `json:"start"`
	Step     float64       `json:"step"`
	End      float64       `json:"end,omitempty"`
	EndValue bool          `json:"end_value,omitempty"`
}

// Type implements ChunkOp.
func (ArangeChunk) Type() string { return "arange_chunk" }

// Exec implements ChunkOp.
func (op ArangeChunk) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	a, err := ndarray.New(op.DType, op.N)
	if err != nil {
		return nil, err
	}
	integral := op.Start == math.Trunc(op.Start) && op.Step == math.Trunc(op.Step) && !op.EndValue
	switch {
	case op.DType == ndarray.Int64 && integral:
		v := a.Int64s()
		s, st := int64(op.Start), int64(op.Step)
		for i := range v {
			v[i] = s + int64(op.Offset+i)*st
		}
	case op.DType == ndarray.Int32 && integral:
		v := a.Int32s()
		s, st := int64(op.Start), int64(op.Step)
		for i := range v {
			v[i] = int32(s + int64(op.Offset+i)*st)
		}
	case op.DType.IsInt() && !op.EndValue:
		// NumPy's arange into integers casts the first two values
		// (truncating) and steps by their difference: arange(-2.5, 1.5,
		// 1.0, dtype=int) is -2, -1, 0, 1, not the truncations of -2.5 + i.
		first := math.Trunc(op.Start)
		delta := math.Trunc(op.Start+op.Step) - first
		for i := 0; i < op.N; i++ {
			a.SetFlat(i, first+float64(op.Offset+i)*delta)
		}
	default:
		// Float values; for int dtypes NumPy's linspace (since 1.20) rounds
		// toward -inf.
		floor := op.DType.IsInt() && op.EndValue
		for i := 0; i < op.N; i++ {
			g := op.Offset + i
			x := op.Start + float64(g)*op.Step
			if op.EndValue && g == op.Total-1 {
				x = op.End
			}
			if floor {
				x = math.Floor(x)
			}
			a.SetFlat(i, x)
		}
	}
	return a, nil
}

// Eye is a 2-D tensor with ones on the K-th diagonal.
type Eye struct {
	Meta   Meta      `json:"meta"`
	K      int       `json:"k"`
	Chunks ChunkSpec `json:"chunks"`
}

// Type implements TensorOp.
func (Eye) Type() string { return "eye" }

// Infer implements TensorOp.
func (op Eye) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("eye", in); err != nil {
		return Meta{}, err
	}
	if len(op.Meta.Shape) != 2 {
		return Meta{}, fmt.Errorf("eye: shape %v is not 2-D", op.Meta.Shape)
	}
	if err := checkMeta("eye", op.Meta); err != nil {
		return Meta{}, err
	}
	return op.Meta, wrapChunks("eye", op.Chunks.Validate(op.Meta.Shape))
}

// Tile implements TensorOp.
func (op Eye) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	return tileSource(b, out, op.Chunks, func(shape, off []int) ChunkOp {
		return EyeChunk{Shape: shape, Offset: off, K: op.K, DType: out.DType}
	})
}

// EyeChunk makes one chunk of an Eye tensor.
type EyeChunk struct {
	Shape  []int         `json:"shape"`
	Offset []int         `json:"offset"`
	K      int           `json:"k"`
	DType  ndarray.DType `json:"dtype"`
}

// Type implements ChunkOp.
func (EyeChunk) Type() string { return "eye_chunk" }

// Exec implements ChunkOp.
func (op EyeChunk) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	a, err := ndarray.New(op.DType, op.Shape...)
	if err != nil {
		return nil, err
	}
	for i := 0; i < op.Shape[0]; i++ {
		j := op.Offset[0] + i + op.K - op.Offset[1]
		if j >= 0 && j < op.Shape[1] {
			a.SetFlat(i*op.Shape[1]+j, 1)
		}
	}
	return a, nil
}

// Random is a tensor of random numbers from the counter-based generator:
// element i of the whole tensor is a function of (Key, i) only, so values do
// not depend on the chunking.
type Random struct {
	Meta   Meta      `json:"meta"`
	Key    rng.Key   `json:"key"`
	Dist   rng.Dist  `json:"dist"`
	P1     float64   `json:"p1"`
	P2     float64   `json:"p2"`
	Chunks ChunkSpec `json:"chunks"`
}

// Type implements TensorOp.
func (Random) Type() string { return "random" }

// Infer implements TensorOp.
func (op Random) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("random", in); err != nil {
		return Meta{}, err
	}
	switch op.Dist {
	case rng.Uniform, rng.Normal:
		if !op.Meta.DType.IsFloat() {
			return Meta{}, fmt.Errorf("random: uniform and normal values need a float dtype, not %v", op.Meta.DType)
		}
	case rng.Intn:
		if !op.Meta.DType.IsInt() {
			return Meta{}, fmt.Errorf("random: integers need an int dtype, not %v", op.Meta.DType)
		}
		if op.P2 <= op.P1 {
			return Meta{}, fmt.Errorf("random: integer range [%v, %v) is empty", op.P1, op.P2)
		}
	default:
		return Meta{}, fmt.Errorf("random: unknown distribution %d", op.Dist)
	}
	if err := checkMeta("random", op.Meta); err != nil {
		return Meta{}, err
	}
	return op.Meta, wrapChunks("random", op.Chunks.Validate(op.Meta.Shape))
}

// Tile implements TensorOp.
func (op Random) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	return tileSource(b, out, op.Chunks, func(shape, off []int) ChunkOp {
		return RandomChunk{Shape: shape, Offset: off, Global: out.Shape, DType: out.DType, Key: op.Key, Dist: op.Dist, P1: op.P1, P2: op.P2}
	})
}

// RandomChunk makes one chunk of a Random tensor.
type RandomChunk struct {
	Shape  []int         `json:"shape"`
	Offset []int         `json:"offset"`
	Global []int         `json:"global"`
	DType  ndarray.DType `json:"dtype"`
	Key    rng.Key       `json:"key"`
	Dist   rng.Dist      `json:"dist"`
	P1     float64       `json:"p1"`
	P2     float64       `json:"p2"`
}

// Type implements ChunkOp.
func (RandomChunk) Type() string { return "random_chunk" }

// Exec implements ChunkOp.
func (op RandomChunk) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	a, err := ndarray.New(op.DType, op.Shape...)
	if err != nil {
		return nil, err
	}
	if err := rng.FillChunk(a, op.Key, op.Global, op.Offset, op.Dist, op.P1, op.P2); err != nil {
		return nil, err
	}
	return a, nil
}

// Literal is client data given as an array (FromSlice, FromArray).
type Literal struct {
	Data   *ndarray.Array `json:"-"`
	Chunks ChunkSpec      `json:"chunks"`
}

// Type implements TensorOp.
func (Literal) Type() string { return "literal" }

// Infer implements TensorOp.
func (op Literal) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("literal", in); err != nil {
		return Meta{}, err
	}
	if op.Data == nil {
		return Meta{}, fmt.Errorf("literal: no data")
	}
	return Meta{Shape: op.Data.Shape(), DType: op.Data.DType()}, wrapChunks("literal", op.Chunks.Validate(op.Data.Shape()))
}

// Tile implements TensorOp.
func (op Literal) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	var err error
	t, terr := tileSource(b, out, op.Chunks, func(shape, off []int) ChunkOp {
		v, e := op.Data.Slice(unitRanges(off, shape))
		if e != nil && err == nil {
			err = e
		}
		return LiteralChunk{Data: v}
	})
	if terr != nil {
		return nil, terr
	}
	if err != nil {
		return nil, err
	}
	t.Resplit = func(b Builder, nsplits [][]int) (*Tiled, error) {
		return Literal{Data: op.Data, Chunks: ChunkSpec{Splits: nsplits}}.Tile(b, nil, out)
	}
	return t, nil
}

// LiteralChunk hands out one chunk of client data.
type LiteralChunk struct {
	Data *ndarray.Array `json:"-"`
}

// Type implements ChunkOp.
func (LiteralChunk) Type() string { return "literal_chunk" }

// Exec implements ChunkOp.
func (op LiteralChunk) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	return op.Data, nil
}
