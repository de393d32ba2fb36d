package ops

import (
	"context"
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "gram", Op: Gram{}},
		Descriptor{Name: "gram_partial", Op: GramPartial{}},
	)
}

// Gram is xᵀx of a 2-D float tensor x, or (x - s)ᵀ(x - s) when a row s is
// given (its second input: x - x.mean(axis=0) is a centring), as
// tensor.MatMul recognises it in x.T @ x, x @ x.T (the Gram of x.T, a view)
// and (x - s).T @ (x - s). Each row chunk adds its block product by SYRK,
// half a GEMM's work, with the shift applied to cache-sized copies of its
// rows, so x - s is never made; blocks of two column chunks are GEMMs,
// and the blocks below the diagonal are transposed views of those above.
type Gram struct{}

// Type implements TensorOp.
func (Gram) Type() string { return "gram" }

// Infer implements TensorOp.
func (Gram) Infer(in []Meta) (Meta, error) {
	if len(in) != 1 && len(in) != 2 {
		return Meta{}, fmt.Errorf("gram takes x and an optional row, got %d inputs", len(in))
	}
	x := in[0]
	if x.NDim() != 2 || !x.DType.IsFloat() {
		return Meta{}, fmt.Errorf("gram: x %v: want a 2-D float tensor", x)
	}
	if len(in) == 2 {
		if s := in[1]; s.NDim() != 1 || s.Shape[0] != x.Shape[1] || s.DType != x.DType {
			return Meta{}, fmt.Errorf("gram: row %v for x %v: want %d values of %v", s, x, x.Shape[1], x.DType)
		}
	}
	return Meta{Shape: []int{x.Shape[1], x.Shape[1]}, DType: x.DType}, nil
}

// Tile implements TensorOp.
func (op Gram) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	rows, cols := x.NSplits[0], x.NSplits[1]
	if err := admitGrid(b, []int{len(cols), len(cols)}, float64(len(rows))); err != nil {
		return nil, err
	}
	var s *Tiled
	if len(in) == 2 {
		s = RechunkTiled(b, in[1], [][]int{cols})
	}
	res := &Tiled{Meta: out, NSplits: [][]int{cols, cols}}
	res.Chunks = make([]ChunkRef, len(cols)*len(cols))
	for j := range cols {
		for k := j; k < len(cols); k++ {
			meta := Meta{Shape: []int{cols[j], cols[k]}, DType: out.DType}
			parts := make([]ChunkRef, len(rows))
			for i := range rows {
				blocks := []int{j}
				if k != j {
					blocks = append(blocks, k)
				}
				var ins []ChunkRef
				for _, c := range blocks {
					ins = append(ins, x.At([]int{i, c}))
					if s != nil {
						ins = append(ins, s.Chunks[c])
					}
				}
				parts[i] = b.AddChunk(GramPartial{Cross: k != j, Shifted: s != nil}, ins, meta)
			}
			res.Chunks[j*len(cols)+k] = sumTree(b, parts, meta)
		}
	}
	for j := range cols {
		for k := range j {
			up := res.Chunks[k*len(cols)+j]
			res.Chunks[j*len(cols)+k] = b.AddChunk(Transpose{Perm: []int{1, 0}}, []ChunkRef{up}, Meta{Shape: []int{cols[j], cols[k]}, DType: out.DType})
		}
	}
	return res, nil
}

// GramPartial is one row chunk's block of a Gram product: (x - s)ᵀ(x - s)
// of one column chunk (inputs x[, s]), or, Cross, (x1 - s1)ᵀ(x2 - s2) of
// two (inputs x1[, s1], x2[, s2]).
type GramPartial struct {
	Cross   bool `json:"cross,omitempty"`
	Shifted bool `json:"shifted,omitempty"`
}

// Type implements ChunkOp.
func (GramPartial) Type() string { return "gram_partial" }

// Exec implements ChunkOp.
func (op GramPartial) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	per := 1
	if op.Shifted {
		per = 2
	}
	want := per
	if op.Cross {
		want *= 2
	}
	if len(in) != want {
		return nil, fmt.Errorf("gram_partial: %d inputs, want %d", len(in), want)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var x1, s1, x2, s2 *ndarray.Array
	x1 = in[0]
	if op.Shifted {
		s1 = in[1]
	}
	if op.Cross {
		x2 = in[per]
		if op.Shifted {
			s2 = in[per+1]
		}
	}
	return ndarray.Gram(x1, s1, x2, s2)
}
