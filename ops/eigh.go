package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "eigh", Op: Eigh{}},
		Descriptor{Name: "eigvalsh", Op: EigvalsH{}},
	)
}

// Eigh is numpy.linalg.eigh of a stack (..., M, M), each matrix whole in
// one chunk, as one tensor (..., M+1, M): the eigenvalues (ascending) in
// row 0, the eigenvectors in rows 1 to M (column i belongs to eigenvalue
// i). package linalg slices them apart with views, so the decomposition
// runs once per matrix. Only the lower triangle is read, or the upper one
// with Upper.
type Eigh struct {
	Upper bool `json:"upper,omitempty"`
}

// Type implements TensorOp and ChunkOp.
func (Eigh) Type() string { return "eigh" }

// eighPacked is the packed output's shape for a (..., M, M).
func eighPacked(s []int) []int {
	out := slices.Clone(s)
	out[len(out)-2]++
	return out
}

// Infer implements TensorOp.
func (Eigh) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("eigh", in); err != nil {
		return Meta{}, err
	}
	if err := checkMatrices("eigh", in[0], true); err != nil {
		return Meta{}, err
	}
	out := eighPacked(in[0].Shape)
	if err := checkDenseSize("eigh", out[len(out)-2], out[len(out)-1]); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: out, DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op Eigh) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileEachMatrix(b, op, in[0], out, "eigh", eighPacked, func(ns [][]int) [][]int {
		ns = slices.Clone(ns)
		nd := len(ns)
		ns[nd-2] = []int{out.Shape[nd-2]}
		return ns
	})
}

// Exec implements ChunkOp.
func (op Eigh) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("eigh", in); err != nil {
		return nil, err
	}
	w, v, err := ndarray.Eigh(in[0], op.Upper)
	if err != nil {
		return nil, err
	}
	s := in[0].Shape()
	nd := len(s)
	m := s[nd-1]
	out, err := ndarray.New(v.DType(), eighPacked(s)...)
	if err != nil {
		return nil, err
	}
	rows := func(r0, n int) (*ndarray.Array, error) {
		idx := make([]ndarray.Range, nd)
		for i := range nd {
			idx[i] = ndarray.Range{Start: 0, Step: 1, Len: s[i]}
		}
		idx[nd-2] = ndarray.Range{Start: r0, Step: 1, Len: n}
		return out.Slice(idx)
	}
	wDst, err := rows(0, 1)
	if err == nil {
		wDst, err = wDst.Index(nd-2, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("eigh: %w", err)
	}
	ndarray.CopyInto(wDst, w)
	vDst, err := rows(1, m)
	if err != nil {
		return nil, fmt.Errorf("eigh: %w", err)
	}
	ndarray.CopyInto(vDst, v)
	return out, nil
}

// EigvalsH is numpy.linalg.eigvalsh of a stack (..., M, M): the
// eigenvalues (..., M), ascending, without forming the eigenvectors.
type EigvalsH struct {
	Upper bool `json:"upper,omitempty"`
}

// Type implements TensorOp and ChunkOp.
func (EigvalsH) Type() string { return "eigvalsh" }

// Infer implements TensorOp.
func (EigvalsH) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("eigvalsh", in); err != nil {
		return Meta{}, err
	}
	if err := checkMatrices("eigvalsh", in[0], true); err != nil {
		return Meta{}, err
	}
	s := in[0].Shape
	return Meta{Shape: slices.Clone(s[:len(s)-1]), DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op EigvalsH) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileEachMatrix(b, op, in[0], out, "eigvalsh",
		func(s []int) []int { return slices.Clone(s[:len(s)-1]) },
		func(ns [][]int) [][]int { return ns[:len(ns)-1] })
}

// Exec implements ChunkOp.
func (op EigvalsH) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("eigvalsh", in); err != nil {
		return nil, err
	}
	return ndarray.EigvalsH(in[0], op.Upper)
}
