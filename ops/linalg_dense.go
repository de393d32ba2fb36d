package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "cholesky", Op: Cholesky{}},
		Descriptor{Name: "inv", Op: Inv{}},
		Descriptor{Name: "det", Op: Det{}},
		Descriptor{Name: "slogdet", Op: Slogdet{}},
		Descriptor{Name: "solve", Op: Solve{}},
		Descriptor{Name: "solve_triangular", Op: SolveTriangular{}},
		Descriptor{Name: "lstsq", Op: Lstsq{}},
	)
}

// Linear algebra on whole matrices: each matrix (the last two axes) is
// rechunked into one chunk, up to MaxDenseElems elements, and one chunk op
// runs the ndarray kernel (LAPACK) on it. Stacks of matrices (..., M, M)
// keep their chunks along the leading axes, so every stack chunk is one op.
// Each struct serves both levels: tensor op, and chunk op on whole matrices.

// checkMatrices checks a (stack of) matrix argument as numpy.linalg does.
func checkMatrices(name string, m Meta, square bool) error {
	if !m.DType.Valid() {
		return fmt.Errorf("%s: invalid dtype %v", name, m.DType)
	}
	nd := m.NDim()
	if nd < 2 {
		return fmt.Errorf("%s: %d-dimensional array given. Array must be at least two-dimensional", name, nd)
	}
	if square && m.Shape[nd-1] != m.Shape[nd-2] {
		return fmt.Errorf("%s: Last 2 dimensions of the array must be square (shape %v)", name, m.Shape)
	}
	return checkDenseSize(name, m.Shape[nd-2], m.Shape[nd-1])
}

// checkDenseSize refuses a matrix too large for one chunk.
func checkDenseSize(name string, rows, cols int) error {
	if float64(rows)*float64(cols) > MaxDenseElems {
		return fmt.Errorf("%s: a %dx%d matrix is too large: matrices are computed whole in one chunk, of at most %d elements (8192x8192)", name, rows, cols, MaxDenseElems)
	}
	return nil
}

// denseMatrices rechunks t so that each matrix is whole in one chunk: the
// last two axes become single chunks; the leading (stack) axes keep their
// chunks unless a chunk would then exceed MaxDenseElems, in which case
// they are cut to one matrix per chunk.
func denseMatrices(b Builder, t *Tiled, name string) (*Tiled, error) {
	nd := t.Meta.NDim()
	rows, cols := t.Meta.Shape[nd-2], t.Meta.Shape[nd-1]
	if err := checkDenseSize(name, rows, cols); err != nil {
		return nil, err
	}
	want := slices.Clone(t.NSplits)
	want[nd-2], want[nd-1] = []int{rows}, []int{cols}
	per := float64(rows) * float64(cols)
	for _, sp := range want[:nd-2] {
		per *= float64(slices.Max(append([]int{0}, sp...)))
	}
	if per > MaxDenseElems {
		for ax := range nd - 2 {
			want[ax] = onesSplits(t.Meta.Shape[ax])
		}
	}
	if err := admitGrid(b, gridOf(want), 1); err != nil {
		return nil, err
	}
	return RechunkTiled(b, t, want), nil
}

// onesSplits is an axis of n cut into chunks of 1 ([0] for an empty axis).
func onesSplits(n int) []int {
	if n == 0 {
		return []int{0}
	}
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func gridOf(ns [][]int) []int {
	g := make([]int, len(ns))
	for i, s := range ns {
		g[i] = len(s)
	}
	return g
}

// denseWhole rechunks t into a single chunk, if it is a matrix of at most
// MaxDenseElems elements (a vector counts as one column).
func denseWhole(b Builder, t *Tiled, name string) (*Tiled, error) {
	s := t.Meta.Shape
	rows, cols := s[0], 1
	if len(s) == 2 {
		cols = s[1]
	}
	if err := checkDenseSize(name, rows, cols); err != nil {
		return nil, err
	}
	return RechunkTiled(b, t, wholeSplits(s)), nil
}

// tileEachMatrix makes one chunk op per chunk of t (whole matrices), whose
// output has the shape chunkOut of the input chunk's shape; the output's
// splits are outSplits of t's.
func tileEachMatrix(b Builder, op ChunkOp, t *Tiled, out Meta, name string,
	chunkOut func(in []int) []int, outSplits func(ns [][]int) [][]int) (*Tiled, error) {
	t, err := denseMatrices(b, t, name)
	if err != nil {
		return nil, err
	}
	res := &Tiled{Meta: out, NSplits: outSplits(t.NSplits)}
	res.Chunks = make([]ChunkRef, len(t.Chunks))
	for i, c := range t.Chunks {
		res.Chunks[i] = b.AddChunk(op, []ChunkRef{c}, Meta{Shape: chunkOut(b.ChunkMeta(c).Shape), DType: out.DType})
	}
	return res, nil
}

func sameShape(in []int) []int       { return in }
func sameSplits2(ns [][]int) [][]int { return ns }
func batchShape(in []int) []int      { return in[:len(in)-2] }
func batchSplits(ns [][]int) [][]int { return ns[:len(ns)-2] }

// oneInput checks that a chunk op got one input.
func oneInput(name string, in []*ndarray.Array) error {
	if len(in) != 1 {
		return fmt.Errorf("%s: %d inputs, want 1", name, len(in))
	}
	return nil
}

// Cholesky is numpy.linalg.cholesky: the lower-triangular L with a = L Lᵀ,
// for every matrix of a (..., M, M).
type Cholesky struct{}

// Type implements TensorOp and ChunkOp.
func (Cholesky) Type() string { return "cholesky" }

// Infer implements TensorOp.
func (Cholesky) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("cholesky", in); err != nil {
		return Meta{}, err
	}
	if err := checkMatrices("cholesky", in[0], true); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: in[0].Shape, DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op Cholesky) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileEachMatrix(b, op, in[0], out, "cholesky", sameShape, sameSplits2)
}

// Exec implements ChunkOp.
func (Cholesky) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("cholesky", in); err != nil {
		return nil, err
	}
	return ndarray.Cholesky(in[0])
}

// Inv is numpy.linalg.inv for every matrix of a (..., M, M).
type Inv struct{}

// Type implements TensorOp and ChunkOp.
func (Inv) Type() string { return "inv" }

// Infer implements TensorOp.
func (Inv) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("inv", in); err != nil {
		return Meta{}, err
	}
	if err := checkMatrices("inv", in[0], true); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: in[0].Shape, DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op Inv) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileEachMatrix(b, op, in[0], out, "inv", sameShape, sameSplits2)
}

// Exec implements ChunkOp.
func (Inv) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("inv", in); err != nil {
		return nil, err
	}
	return ndarray.Inv(in[0])
}

// Det is numpy.linalg.det: the determinant of every matrix of a (..., M,
// M), of shape a.shape[:-2].
type Det struct{}

// Type implements TensorOp and ChunkOp.
func (Det) Type() string { return "det" }

// Infer implements TensorOp.
func (Det) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("det", in); err != nil {
		return Meta{}, err
	}
	if err := checkMatrices("det", in[0], true); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: slices.Clone(batchShape(in[0].Shape)), DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op Det) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileEachMatrix(b, op, in[0], out, "det", batchShape, batchSplits)
}

// Exec implements ChunkOp.
func (Det) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("det", in); err != nil {
		return nil, err
	}
	return ndarray.Det(in[0])
}

// Slogdet is numpy.linalg.slogdet as one tensor of shape (2,
// *a.shape[:-2]): the signs in [0], the logs of the absolute determinants
// in [1].
type Slogdet struct{}

// Type implements TensorOp and ChunkOp.
func (Slogdet) Type() string { return "slogdet" }

// Infer implements TensorOp.
func (Slogdet) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("slogdet", in); err != nil {
		return Meta{}, err
	}
	if err := checkMatrices("slogdet", in[0], true); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: append([]int{2}, batchShape(in[0].Shape)...), DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op Slogdet) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileEachMatrix(b, op, in[0], out, "slogdet",
		func(s []int) []int { return append([]int{2}, batchShape(s)...) },
		func(ns [][]int) [][]int { return append([][]int{{2}}, batchSplits(ns)...) })
}

// Exec implements ChunkOp.
func (Slogdet) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := oneInput("slogdet", in); err != nil {
		return nil, err
	}
	sign, logAbs, err := ndarray.Slogdet(in[0])
	if err != nil {
		return nil, err
	}
	bs := sign.Shape()
	out, err := ndarray.New(sign.DType(), append([]int{2}, bs...)...)
	if err != nil {
		return nil, err
	}
	for i, part := range []*ndarray.Array{sign, logAbs} {
		dst, err := out.Index(0, i)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, part)
	}
	return out, nil
}

// checkSolve checks numpy.linalg.solve's operands for a 2-D a: a square
// (M, M), b (M,) or (M, K).
func checkSolve(name string, in []Meta) error {
	if len(in) != 2 {
		return fmt.Errorf("%s takes 2 inputs, got %d", name, len(in))
	}
	a, b := in[0], in[1]
	if err := checkMatrices(name, a, true); err != nil {
		return err
	}
	if a.NDim() != 2 {
		return fmt.Errorf("%s: a of shape %v: only a 2-D a is supported (stacks of matrices are not)", name, a.Shape)
	}
	if !b.DType.Valid() {
		return fmt.Errorf("%s: invalid dtype %v", name, b.DType)
	}
	m := a.Shape[0]
	if (b.NDim() != 1 && b.NDim() != 2) || b.Shape[0] != m {
		return fmt.Errorf("%s: a of shape %v and b of shape %v: b must be (%d,) or (%d, K)", name, a.Shape, b.Shape, m, m)
	}
	if b.NDim() == 2 {
		return checkDenseSize(name, b.Shape[0], b.Shape[1])
	}
	return nil
}

// tileWhole2 tiles a two-operand op computed on whole operands in one chunk.
func tileWhole2(b Builder, op ChunkOp, in []*Tiled, out Meta, name string) (*Tiled, error) {
	ta, err := denseWhole(b, in[0], name)
	if err != nil {
		return nil, err
	}
	tb, err := denseWhole(b, in[1], name)
	if err != nil {
		return nil, err
	}
	ref := b.AddChunk(op, []ChunkRef{ta.Chunks[0], tb.Chunks[0]}, out)
	return &Tiled{Meta: out, NSplits: wholeSplits(out.Shape), Chunks: []ChunkRef{ref}}, nil
}

// Solve is numpy.linalg.solve for a 2-D a (M, M) and b (M,) or (M, K).
type Solve struct{}

// Type implements TensorOp and ChunkOp.
func (Solve) Type() string { return "solve" }

// Infer implements TensorOp.
func (Solve) Infer(in []Meta) (Meta, error) {
	if err := checkSolve("solve", in); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: in[1].Shape, DType: ndarray.LinalgFloat(ndarray.Promote(in[0].DType, in[1].DType))}, nil
}

// Tile implements TensorOp.
func (op Solve) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileWhole2(b, op, in, out, "solve")
}

// Exec implements ChunkOp.
func (Solve) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("solve: %d inputs, want 2", len(in))
	}
	return ndarray.Solve(in[0], in[1])
}

// SolveTriangular is scipy.linalg.solve_triangular for a 2-D a (M, M) and
// b (M,) or (M, K): x with op(a) x = b, reading only a's upper (or Lower)
// triangle, op(a) = aᵀ if Trans, a unit diagonal if UnitDiagonal.
type SolveTriangular struct {
	Lower        bool `json:"lower,omitempty"`
	Trans        bool `json:"trans,omitempty"`
	UnitDiagonal bool `json:"unit_diagonal,omitempty"`
}

// Type implements TensorOp and ChunkOp.
func (SolveTriangular) Type() string { return "solve_triangular" }

// Infer implements TensorOp.
func (SolveTriangular) Infer(in []Meta) (Meta, error) {
	if err := checkSolve("solve_triangular", in); err != nil {
		return Meta{}, err
	}
	return Meta{Shape: in[1].Shape, DType: ndarray.LinalgFloat(ndarray.Promote(in[0].DType, in[1].DType))}, nil
}

// Tile implements TensorOp.
func (op SolveTriangular) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileWhole2(b, op, in, out, "solve_triangular")
}

// Exec implements ChunkOp.
func (op SolveTriangular) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("solve_triangular: %d inputs, want 2", len(in))
	}
	return ndarray.SolveTriangular(in[0], in[1], op.Lower, op.Trans, op.UnitDiagonal)
}

// Lstsq is numpy.linalg.lstsq for a 2-D a (M, N) and b (M,) or (M, K), as
// one 1-D tensor holding, in order: x (N·K values, C order; N for a 1-D
// b), the squared residual norms (K values, 1 for a 1-D b, when M > N;
// none otherwise), the rank, and the min(M, N) singular values. RCond nil
// is NumPy 2's default, machine epsilon times max(M, N); a negative RCond
// is machine epsilon.
type Lstsq struct {
	RCond *float64 `json:"rcond,omitempty"`
}

// Type implements TensorOp and ChunkOp.
func (Lstsq) Type() string { return "lstsq" }

// LstsqLayout is where Lstsq's results lie in its 1-D output, for a of
// shape (m, n) and b with k columns: x from 0, residuals from res (nres of
// them), the rank at rank, the singular values from s; size in all.
func LstsqLayout(m, n, k int) (res, nres, rank, s, size int) {
	res = n * k
	if m > n {
		nres = k
	}
	rank = res + nres
	s = rank + 1
	return res, nres, rank, s, s + min(m, n)
}

// Infer implements TensorOp.
func (Lstsq) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("lstsq takes 2 inputs, got %d", len(in))
	}
	a, b := in[0], in[1]
	if err := checkMatrices("lstsq", a, false); err != nil {
		return Meta{}, err
	}
	if a.NDim() != 2 {
		return Meta{}, fmt.Errorf("lstsq: a of shape %v: only a 2-D a is supported", a.Shape)
	}
	if !b.DType.Valid() || (b.NDim() != 1 && b.NDim() != 2) || b.Shape[0] != a.Shape[0] {
		return Meta{}, fmt.Errorf("lstsq: a of shape %v and b of shape %v: Incompatible dimensions", a.Shape, b.Shape)
	}
	k := 1
	if b.NDim() == 2 {
		k = b.Shape[1]
		if err := checkDenseSize("lstsq", b.Shape[0], k); err != nil {
			return Meta{}, err
		}
	}
	_, _, _, _, size := LstsqLayout(a.Shape[0], a.Shape[1], k)
	return Meta{Shape: []int{size}, DType: ndarray.LinalgFloat(ndarray.Promote(a.DType, b.DType))}, nil
}

// Tile implements TensorOp.
func (op Lstsq) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	return tileWhole2(b, op, in, out, "lstsq")
}

// Exec implements ChunkOp.
func (op Lstsq) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("lstsq: %d inputs, want 2", len(in))
	}
	a, b := in[0], in[1]
	m, n := a.Shape()[0], a.Shape()[1]
	dt := ndarray.LinalgFloat(ndarray.Promote(a.DType(), b.DType()))
	rcond := ndarray.LstsqRcondDefault(m, n, dt)
	if op.RCond != nil {
		rcond = *op.RCond
	}
	x, res, rank, s, err := ndarray.Lstsq(a, b, rcond)
	if err != nil {
		return nil, err
	}
	k := 1
	if b.NDim() == 2 {
		k = b.Shape()[1]
	}
	resAt, nres, rankAt, sAt, size := LstsqLayout(m, n, k)
	out, err := ndarray.New(dt, size)
	if err != nil {
		return nil, err
	}
	put := func(at int, a *ndarray.Array) error {
		dst, err := out.Slice([]ndarray.Range{{Start: at, Step: 1, Len: a.Size()}})
		if err != nil {
			return err
		}
		src, err := a.Contiguous().Reshape(a.Size())
		if err != nil {
			return err
		}
		ndarray.CopyInto(dst, src)
		return nil
	}
	if err := put(0, x); err != nil {
		return nil, err
	}
	if res.Size() != nres {
		return nil, fmt.Errorf("lstsq: %d residuals, want %d", res.Size(), nres)
	}
	if err := put(resAt, res); err != nil {
		return nil, err
	}
	out.SetFlat(rankAt, rank.AtFlat(0))
	if err := put(sAt, s); err != nil {
		return nil, err
	}
	return out, nil
}
