package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "unique_table", Op: UniqueTable{}},
		// Unknown: the table's axis of distinct values is unknown; the
		// array and the inverse's x are known (Infer says so).
		Descriptor{Name: "unique_part", Op: UniquePart{}, Unknown: true},
		Descriptor{Name: "unique_inverse", Op: UniqueInverse{}, Unknown: true},
		Descriptor{Name: "unique_table_chunk", Op: UniqueTableChunk{}},
		Descriptor{Name: "unique_merge", Op: UniqueMergeChunk{}},
		Descriptor{Name: "unique_part_chunk", Op: UniquePartChunk{}},
		Descriptor{Name: "unique_inverse_chunk", Op: UniqueInverseChunk{}},
	)
}

// numpy.unique with its index, inverse and counts, for a 1-D tensor of
// real dtype, without sorting it: every chunk makes the unique table of
// its elements (ndarray.UniqueTable: its distinct values with their counts
// and first positions, small when the values repeat), the tables are
// merged FanIn at a time up a tree to the table of the whole tensor, and
// unique's outputs are read from that one table (UniquePart). The inverse
// (UniqueInverse) looks every chunk's elements up in the table, so it
// keeps the tensor's chunks.

// UniqueTable is the unique table of a 1-D tensor: int64 of shape
// (ndarray.UniqueRows, K), K (the number of distinct values) unknown
// until computed, in one chunk.
type UniqueTable struct {
	FanIn int `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (UniqueTable) Type() string { return "unique_table" }

// Infer implements TensorOp.
func (op UniqueTable) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("unique", in); err != nil {
		return Meta{}, err
	}
	if in[0].NDim() != 1 {
		return Meta{}, fmt.Errorf("unique_table: input of shape %v, want 1-D", in[0].Shape)
	}
	if !ndarray.UniqueKinds(in[0].DType) {
		return Meta{}, &DTypeError{Op: "unique", DType: in[0].DType}
	}
	return Meta{Shape: []int{ndarray.UniqueRows, -1}, DType: ndarray.Int64, Unknown: 2}, nil
}

// Tile implements TensorOp.
func (op UniqueTable) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	fan := op.FanIn
	if fan < 2 {
		fan = DefaultFanIn
	}
	type part struct {
		ref   ChunkRef
		bound int
	}
	offs := Offsets(x.NSplits[0])
	level := make([]part, 0, max(1, len(x.Chunks)))
	for i, c := range x.Chunks {
		n := x.NSplits[0][i]
		m := Meta{Shape: []int{ndarray.UniqueRows, n}, DType: ndarray.Int64, Unknown: 2}
		level = append(level, part{b.AddChunk(UniqueTableChunk{Offset: int64(offs[i])}, []ChunkRef{c}, m), n})
	}
	if len(level) == 0 { // a tensor of no chunks: the empty table
		m := Meta{Shape: []int{ndarray.UniqueRows, 0}, DType: ndarray.Int64, Unknown: 2}
		level = append(level, part{b.AddChunk(UniqueMergeChunk{}, nil, m), 0})
	}
	for len(level) > 1 {
		var next []part
		for i := 0; i < len(level); i += fan {
			g := level[i:min(i+fan, len(level))]
			if len(g) == 1 {
				next = append(next, g[0])
				continue
			}
			refs, bound := make([]ChunkRef, len(g)), 0
			for j, p := range g {
				refs[j], bound = p.ref, bound+p.bound
			}
			m := Meta{Shape: []int{ndarray.UniqueRows, bound}, DType: ndarray.Int64, Unknown: 2}
			next = append(next, part{b.AddChunk(UniqueMergeChunk{}, refs, m), bound})
		}
		level = next
	}
	root := level[0]
	return &Tiled{Meta: out, NSplits: [][]int{{ndarray.UniqueRows}, {root.bound}}, Chunks: []ChunkRef{root.ref}}, nil
}

// Parts of a unique table that UniquePart reads.
const (
	UniqueValues = 0 // the distinct values, in the dtype of UniquePart.DType
	UniqueCounts = 1 // how often each occurs (int64)
	UniqueIndex  = 2 // the flat position of each one's first occurrence (int64)
)

// UniquePart is one of unique's outputs read from a unique table (the
// single-chunk output of UniqueTable): 1-D, of unknown length.
type UniquePart struct {
	Part int `json:"part"`
	// DType is the part's dtype: for UniqueValues that of the tensor the
	// table is of, int64 for the others.
	DType ndarray.DType `json:"dtype"`
}

// Type implements TensorOp.
func (UniquePart) Type() string { return "unique_part" }

func (op UniquePart) dtype() (ndarray.DType, error) {
	switch op.Part {
	case UniqueValues:
		if !ndarray.UniqueKinds(op.DType) {
			return 0, &DTypeError{Op: "unique", DType: op.DType}
		}
		return op.DType, nil
	case UniqueCounts, UniqueIndex:
		if op.DType != ndarray.Int64 {
			return 0, fmt.Errorf("unique_part: part %d of dtype %v, want int64", op.Part, op.DType)
		}
		return ndarray.Int64, nil
	}
	return 0, fmt.Errorf("unique_part: part %d, want %d, %d or %d", op.Part, UniqueValues, UniqueCounts, UniqueIndex)
}

// Infer implements TensorOp.
func (op UniquePart) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("unique_part", in); err != nil {
		return Meta{}, err
	}
	if err := checkUniqueTableMeta(in[0]); err != nil {
		return Meta{}, err
	}
	dt, err := op.dtype()
	if err != nil {
		return Meta{}, err
	}
	return Meta{Shape: []int{-1}, DType: dt, Unknown: 1}, nil
}

func checkUniqueTableMeta(m Meta) error {
	if m.DType != ndarray.Int64 || m.NDim() != 2 || m.Shape[0] != ndarray.UniqueRows {
		return fmt.Errorf("unique: a unique table is int64 (%d, k), got %v", ndarray.UniqueRows, m)
	}
	return nil
}

// Tile implements TensorOp.
func (op UniquePart) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	if len(t.Chunks) != 1 {
		return nil, fmt.Errorf("unique_part: a table in %d chunks, want 1", len(t.Chunks))
	}
	bound := t.NSplits[1][0]
	m := Meta{Shape: []int{bound}, DType: out.DType, Unknown: 1}
	ref := b.AddChunk(UniquePartChunk{Part: op.Part, DType: out.DType}, []ChunkRef{t.Chunks[0]}, m)
	return &Tiled{Meta: out, NSplits: [][]int{{bound}}, Chunks: []ChunkRef{ref}}, nil
}

// UniqueInverse is unique's inverse of a 1-D tensor x (of known length)
// from x's unique table: for every element, the position of its value
// among the distinct values, int64 in x's chunks.
type UniqueInverse struct{}

// Type implements TensorOp.
func (UniqueInverse) Type() string { return "unique_inverse" }

// Infer implements TensorOp.
func (UniqueInverse) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("unique_inverse takes 2 inputs (x, its unique table), got %d", len(in))
	}
	x := in[0]
	if x.Unknown != 0 {
		return Meta{}, &UnknownShapeError{Op: "unique_inverse", Input: 0, Axis: x.UnknownAxis()}
	}
	if x.NDim() != 1 {
		return Meta{}, fmt.Errorf("unique_inverse: x of shape %v, want 1-D", x.Shape)
	}
	if !ndarray.UniqueKinds(x.DType) {
		return Meta{}, &DTypeError{Op: "unique", DType: x.DType}
	}
	if err := checkUniqueTableMeta(in[1]); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: slices.Clone(x.Shape), DType: ndarray.Int64}, nil
}

// Tile implements TensorOp.
func (UniqueInverse) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x, t := in[0], in[1]
	if len(t.Chunks) != 1 {
		return nil, fmt.Errorf("unique_inverse: a table in %d chunks, want 1", len(t.Chunks))
	}
	res := &Tiled{Meta: out, NSplits: x.NSplits}
	for i, c := range x.Chunks {
		m := Meta{Shape: []int{x.NSplits[0][i]}, DType: ndarray.Int64}
		res.Chunks = append(res.Chunks, b.AddChunk(UniqueInverseChunk{}, []ChunkRef{c, t.Chunks[0]}, m))
	}
	return res, nil
}

// UniqueTableChunk is the unique table of one chunk, whose first element is
// at flat position Offset of the tensor.
type UniqueTableChunk struct {
	Offset int64 `json:"offset,omitempty"`
}

// Type implements ChunkOp.
func (UniqueTableChunk) Type() string { return "unique_table_chunk" }

// Exec implements ChunkOp.
func (op UniqueTableChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("unique_table_chunk: %d inputs, want 1", len(in))
	}
	if op.Offset < 0 {
		return nil, fmt.Errorf("unique_table_chunk: offset %d", op.Offset)
	}
	return ndarray.UniqueTable(ctx, in[0], op.Offset)
}

// UniqueMergeChunk merges unique tables into the table of their arrays'
// concatenation (with no inputs, the empty table).
type UniqueMergeChunk struct{}

// Type implements ChunkOp.
func (UniqueMergeChunk) Type() string { return "unique_merge" }

// Exec implements ChunkOp.
func (UniqueMergeChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.MergeUniqueTables(ctx, in)
}

// UniquePartChunk reads one of unique's outputs from a table (UniquePart).
type UniquePartChunk struct {
	Part  int           `json:"part"`
	DType ndarray.DType `json:"dtype"`
}

// Type implements ChunkOp.
func (UniquePartChunk) Type() string { return "unique_part_chunk" }

// Exec implements ChunkOp.
func (op UniquePartChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("unique_part_chunk: %d inputs, want 1", len(in))
	}
	switch op.Part {
	case UniqueValues:
		return ndarray.UniqueValues(in[0], op.DType)
	case UniqueCounts, UniqueIndex:
		return ndarray.UniqueRow(in[0], op.Part)
	}
	return nil, fmt.Errorf("unique_part_chunk: part %d", op.Part)
}

// UniqueInverseChunk is the inverse of one chunk from the tensor's unique
// table.
type UniqueInverseChunk struct{}

// Type implements ChunkOp.
func (UniqueInverseChunk) Type() string { return "unique_inverse_chunk" }

// Exec implements ChunkOp.
func (UniqueInverseChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("unique_inverse_chunk: %d inputs, want 2", len(in))
	}
	if in[0].NDim() != 1 {
		return nil, fmt.Errorf("unique_inverse_chunk: x of shape %v, want 1-D", in[0].Shape())
	}
	return ndarray.UniqueInverse(ctx, in[0], in[1])
}
