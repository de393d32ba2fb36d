package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "lu", Op: LU{}},
	)
}

// LU is scipy.linalg.lu for every matrix of a (..., M, N), K = min(M, N),
// as one tensor of shape (..., M, M+K+N) holding its three results side by
// side: p in columns [0, M), l in [M, M+K), u in the first K rows of
// [M+K, M+K+N) (rows K to M there are zero). package linalg slices them
// apart with views, so the factorisation runs once per matrix.
type LU struct{}

// Type implements TensorOp and ChunkOp.
func (LU) Type() string { return "lu" }

// luPacked is the packed output's shape for a (..., M, N).
func luPacked(s []int) []int {
	nd := len(s)
	m, n := s[nd-2], s[nd-1]
	out := slices.Clone(s)
	out[nd-1] = m + min(m, n) + n
	return out
}

// Infer implements TensorOp.
func (LU) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("lu", in); err != nil {
		return Meta{}, err
	}
	if err := checkMatrices("lu", in[0], false); err != nil {
		return Meta{}, err
	}
	out := luPacked(in[0].Shape)
	if err := checkDenseSize("lu", out[len(out)-2], out[len(out)-1]); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: out, DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op LU) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileEachMatrix(b, op, in[0], out, "lu", luPacked, func(ns [][]int) [][]int {
		ns = slices.Clone(ns)
		nd := len(ns)
		ns[nd-1] = []int{out.Shape[nd-1]}
		return ns
	})
}

// Exec implements ChunkOp.
func (LU) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("lu", in); err != nil {
		return nil, err
	}
	p, l, u, err := ndarray.LU(in[0])
	if err != nil {
		return nil, err
	}
	s := in[0].Shape()
	nd := len(s)
	m, n := s[nd-2], s[nd-1]
	k := min(m, n)
	out, err := ndarray.New(p.DType(), luPacked(s)...)
	if err != nil {
		return nil, err
	}
	for _, part := range []struct {
		a                *ndarray.Array
		rows, col0, col1 int
	}{{p, m, 0, m}, {l, m, m, m + k}, {u, k, m + k, m + k + n}} {
		idx := make([]ndarray.Range, nd)
		for i := range nd - 2 {
			idx[i] = ndarray.Range{Start: 0, Step: 1, Len: s[i]}
		}
		idx[nd-2] = ndarray.Range{Start: 0, Step: 1, Len: part.rows}
		idx[nd-1] = ndarray.Range{Start: part.col0, Step: 1, Len: part.col1 - part.col0}
		dst, err := out.Slice(idx)
		if err != nil {
			return nil, fmt.Errorf("lu: %w", err)
		}
		ndarray.CopyInto(dst, part.a)
	}
	return out, nil
}
