package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "topk", Op: TopK{}},
		Descriptor{Name: "topk_partial", Op: TopKPartial{}},
		Descriptor{Name: "topk_combine", Op: TopKCombine{}},
		Descriptor{Name: "topk_finish", Op: TopKFinish{}},
	)
}

// TopK is Mars's topk along the last axis: the K largest (or smallest)
// elements of every lane, best first (ties by position), or with Indices
// their positions. It is a reduction, never a full sort: each chunk keeps
// its K best of each lane (a heap), the partials are merged K at a time up
// a tree (FanIn), and the root writes values or positions. package tensor
// moves another axis last and back.
type TopK struct {
	K       int  `json:"k"`
	Largest bool `json:"largest"`
	Indices bool `json:"indices,omitempty"`
	FanIn   int  `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (op TopK) Type() string {
	if op.Indices {
		return "argtopk"
	}
	return "topk"
}

// Infer implements TensorOp.
func (op TopK) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput(op.Type(), in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	if m.NDim() == 0 || !m.DType.Valid() {
		return Meta{}, fmt.Errorf("%s: a %v tensor has no axis to select along", op.Type(), m)
	}
	n := m.Shape[m.NDim()-1]
	if op.K < 1 || op.K > n {
		return Meta{}, fmt.Errorf("%s: k = %d for an axis of length %d: want 1 to %d", op.Type(), op.K, n, n)
	}
	shape := slices.Clone(m.Shape)
	shape[len(shape)-1] = op.K
	dt := m.DType
	if op.Indices {
		dt = ndarray.Int64
	}
	return Meta{Shape: shape, DType: dt}, nil
}

// Tile implements TensorOp.
func (op TopK) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	nd := x.Meta.NDim()
	fan := op.FanIn
	if fan < 2 {
		fan = DefaultFanIn
	}
	lead := x.Grid()[:nd-1]
	nsplits := append(slices.Clone(x.NSplits[:nd-1]), []int{op.K})
	res := &Tiled{Meta: out, NSplits: nsplits}
	if err := admitGrid(b, x.Grid(), 2); err != nil {
		return nil, err
	}
	offs := AxisOffsets(x.NSplits)[nd-1]
	idx := make([]int, nd)
	ForEachGrid(lead, func(l []int) {
		copy(idx, l)
		var level []ChunkRef
		for j := range x.NSplits[nd-1] {
			idx[nd-1] = j
			c := x.At(idx)
			s := slices.Clone(b.ChunkMeta(c).Shape)
			s[nd-1] = 2 * min(op.K, s[nd-1])
			level = append(level, b.AddChunk(TopKPartial{K: op.K, Offset: offs[j], Largest: op.Largest}, []ChunkRef{c},
				Meta{Shape: s, DType: ndarray.Int64}))
		}
		for len(level) > 1 {
			var next []ChunkRef
			for i := 0; i < len(level); i += fan {
				g := level[i:min(i+fan, len(level))]
				if len(g) == 1 {
					next = append(next, g[0])
					continue
				}
				s := slices.Clone(b.ChunkMeta(g[0]).Shape)
				w := 0
				for _, c := range g {
					w += b.ChunkMeta(c).Shape[nd-1] / 2
				}
				s[nd-1] = 2 * min(op.K, w)
				next = append(next, b.AddChunk(TopKCombine{K: op.K}, slices.Clone(g), Meta{Shape: s, DType: ndarray.Int64}))
			}
			level = next
		}
		s := slices.Clone(b.ChunkMeta(level[0]).Shape)
		s[nd-1] = op.K
		res.Chunks = append(res.Chunks, b.AddChunk(TopKFinish{Largest: op.Largest, Indices: op.Indices, DType: x.Meta.DType}, level,
			Meta{Shape: s, DType: out.DType}))
	})
	return res, nil
}

// TopKPartial keeps the K best of every lane of a chunk (TopK).
type TopKPartial struct {
	K       int  `json:"k"`
	Offset  int  `json:"offset"`
	Largest bool `json:"largest"`
}

// Type implements ChunkOp.
func (TopKPartial) Type() string { return "topk_partial" }

// Exec implements ChunkOp.
func (op TopKPartial) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("topk_partial", in); err != nil {
		return nil, err
	}
	return ndarray.TopKPartial(in[0], op.K, op.Offset, op.Largest), nil
}

// TopKCombine merges partials into the K best of every lane (TopK).
type TopKCombine struct {
	K int `json:"k"`
}

// Type implements ChunkOp.
func (TopKCombine) Type() string { return "topk_combine" }

// Exec implements ChunkOp.
func (op TopKCombine) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return ndarray.TopKCombine(in, op.K)
}

// TopKFinish writes the values (in DType) or positions of a merged TopK.
type TopKFinish struct {
	Largest bool          `json:"largest"`
	Indices bool          `json:"indices,omitempty"`
	DType   ndarray.DType `json:"dtype"`
}

// Type implements ChunkOp.
func (TopKFinish) Type() string { return "topk_finish" }

// Exec implements ChunkOp.
func (op TopKFinish) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("topk_finish", in); err != nil {
		return nil, err
	}
	return ndarray.TopKFinish(in[0], op.DType, op.Largest, op.Indices), nil
}
