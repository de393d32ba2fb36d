package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "qr", Op: QR{}},
		Descriptor{Name: "svd", Op: SVD{}},
		Descriptor{Name: "qr_factor", Op: QRFactorChunk{}},
		Descriptor{Name: "qr_r", Op: QRRChunk{}},
		Descriptor{Name: "qr_apply", Op: QRApply{}},
		Descriptor{Name: "svd_small", Op: SVDSmall{}},
		Descriptor{Name: "qr_complete", Op: QRComplete{}},
	)
}

// Tall-skinny QR (TSQR) and the SVD through it, for 2-D tensors chunked
// along rows. Every row chunk is factored on its own (qr_factor, a blocked
// in-cache QR whose Householder vectors stay in the packed factor); the R
// factors of FanIn neighbouring chunks are stacked and factored again, up a
// tree, to the root's R. Q is formed from the top down (qr_apply): the
// root's Q times the identity (or, for the SVD, times U of the SVD of R) is
// cut into the children's shares, and so on, until each leaf multiplies its
// own Q by its share — one m_i×k block of the result per row chunk, no
// gather of the matrix anywhere.
//
// A tensor op has one output, so QR's is the stack [Q; R] of shape
// (M+K, N) — Q in the first M rows and K columns, R in the last K rows —
// and SVD's the stack [U; s; Vᵀ] of shape (M+1+K, N); package linalg cuts
// them apart with basic indexing, which reuses the chunks, and only what is
// asked for is computed (the Q blocks of a QR whose Q is never used are
// culled).

// MaxTSQRColumns is the widest tensor split into several column chunks
// that QR and SVD rechunk to one column chunk (TSQR factors whole rows).
const MaxTSQRColumns = 4096

// MaxDenseElems bounds the matrices that the one-chunk kernels (Cholesky,
// Inv, Det, Slogdet, Solve, SolveTriangular, Lstsq, complete QR) take: a
// matrix is rechunked into a single chunk, up to 2^26 elements (8192×8192;
// 512 MiB of float64).
const MaxDenseElems = 1 << 26

// QR is numpy.linalg.qr of a 2-D tensor (M, N), K = min(M, N), as the
// stacked tensor [Q; R]: reduced, shape (M+K, N) with Q = out[:M, :K] and
// R = out[M:]; Complete, shape (M+M, max(M, N)) with Q = out[:M, :M] and R =
// out[M:, :N]. Reduced QR runs as TSQR over the row chunks; complete QR of
// a tall matrix is computed in one chunk (MaxDenseElems).
type QR struct {
	Complete bool `json:"complete,omitempty"`
	// FanIn is how many R factors a tree node stacks (0: DefaultFanIn).
	FanIn int `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (QR) Type() string { return "qr" }

// linalgMatrix checks a single 2-D matrix argument as numpy.linalg does.
func linalgMatrix(name string, m Meta) error {
	if !m.DType.Valid() {
		return fmt.Errorf("%s: invalid dtype %v", name, m.DType)
	}
	if m.NDim() != 2 {
		return fmt.Errorf("%s: %d-dimensional array given. Array must be two-dimensional", name, m.NDim())
	}
	return nil
}

// qrShape is the stacked output's shape and Q's column count.
func (op QR) qrShape(m, n int) (shape []int, kq int) {
	kq = min(m, n)
	if op.Complete {
		kq = m
	}
	return []int{m + kq, max(kq, n)}, kq
}

// Infer implements TensorOp.
func (op QR) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("qr", in); err != nil {
		return Meta{}, err
	}
	if err := linalgMatrix("qr", in[0]); err != nil {
		return Meta{}, err
	}
	m, n := in[0].Shape[0], in[0].Shape[1]
	if op.Complete && m > n && float64(m)*float64(m) > MaxDenseElems {
		return Meta{}, fmt.Errorf("qr: mode 'complete' of a %dx%d matrix: its Q is %dx%d, more than the %d elements computed in one chunk; use mode 'reduced'", m, n, m, m, MaxDenseElems)
	}
	shape, _ := op.qrShape(m, n)
	return Meta{Shape: shape, DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op QR) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	m, n := t.Meta.Shape[0], t.Meta.Shape[1]
	if op.Complete && m > n { // also m×0: Q is the identity
		one, err := denseWhole(b, t, "qr")
		if err != nil {
			return nil, err
		}
		ref := b.AddChunk(QRComplete{}, []ChunkRef{one.Chunks[0]}, out)
		return &Tiled{Meta: out, NSplits: wholeSplits(out.Shape), Chunks: []ChunkRef{ref}}, nil
	}
	if min(m, n) == 0 {
		return zeroSized(b, out), nil
	}
	tr, err := newTSQR(b, t, out.DType, op.FanIn, "qr")
	if err != nil {
		return nil, err
	}
	k := tr.k()
	q := tr.formQ(b, nil, 0, k, n)
	root := tr.root()
	rows := append(slices.Clone(tr.rowSplits()), k)
	return &Tiled{Meta: out, NSplits: [][]int{rows, {n}}, Chunks: append(q, root.r)}, nil
}

// SVD is numpy.linalg.svd(a, full_matrices=False) of a 2-D tensor (M, N),
// K = min(M, N), as the stacked tensor [U; s; Vᵀ] of shape (M+1+K, N):
// U = out[:M, :K], s = out[M, :K], Vᵀ = out[M+1:]. It runs TSQR over the
// row chunks, the SVD of the root's R = U_R diag(s) Vᵀ in one chunk, and
// forms U = Q U_R top-down as QR forms Q. (A wide matrix is better given
// transposed: package linalg does that.)
type SVD struct {
	FanIn int `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (SVD) Type() string { return "svd" }

// Infer implements TensorOp.
func (op SVD) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput("svd", in); err != nil {
		return Meta{}, err
	}
	if err := linalgMatrix("svd", in[0]); err != nil {
		return Meta{}, err
	}
	m, n := in[0].Shape[0], in[0].Shape[1]
	return Meta{Shape: []int{m + 1 + min(m, n), n}, DType: ndarray.LinalgFloat(in[0].DType)}, nil
}

// Tile implements TensorOp.
func (op SVD) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	m, n := t.Meta.Shape[0], t.Meta.Shape[1]
	if min(m, n) == 0 {
		return zeroSized(b, out), nil
	}
	tr, err := newTSQR(b, t, out.DType, op.FanIn, "svd")
	if err != nil {
		return nil, err
	}
	k := tr.k()
	small := b.AddChunk(SVDSmall{}, []ChunkRef{tr.root().r}, Meta{Shape: []int{2*k + 1, n}, DType: out.DType})
	u := tr.formQ(b, &small, 0, k, n)
	s := b.AddChunk(SliceView{Ranges: unitRanges([]int{k, 0}, []int{1, n})}, []ChunkRef{small}, Meta{Shape: []int{1, n}, DType: out.DType})
	vt := b.AddChunk(SliceView{Ranges: unitRanges([]int{k + 1, 0}, []int{k, n})}, []ChunkRef{small}, Meta{Shape: []int{k, n}, DType: out.DType})
	rows := append(slices.Clone(tr.rowSplits()), 1, k)
	return &Tiled{Meta: out, NSplits: [][]int{rows, {n}}, Chunks: append(u, s, vt)}, nil
}

// tsqrNode is one factorisation of the tree: its packed factor f and R r.
type tsqrNode struct {
	f, r   ChunkRef
	rows   int // rows of the matrix it factors
	k      int // min(rows, n): rows of its R
	c0, c1 int // its children in the level below
}

// tsqr is the tree of factorisations over a tensor's row chunks.
type tsqr struct {
	n      int
	levels [][]tsqrNode // levels[0] has one node per row chunk
}

// newTSQR rechunks t to one column chunk (if it has several, up to
// MaxTSQRColumns wide) and adds the factorisation tree.
func newTSQR(b Builder, t *Tiled, dt ndarray.DType, fan int, name string) (*tsqr, error) {
	n := t.Meta.Shape[1]
	if len(t.NSplits[1]) > 1 {
		if n > MaxTSQRColumns {
			return nil, fmt.Errorf("%s: a matrix of %d columns in %d column chunks: TSQR factors whole rows, and only tensors of up to %d columns are rechunked to one column chunk; rechunk it to a single column chunk (chunks (rows, -1)) or use fewer columns",
				name, n, len(t.NSplits[1]), MaxTSQRColumns)
		}
		t = RechunkTiled(b, t, [][]int{t.NSplits[0], {n}})
	}
	if merged := tallSplits(t.NSplits[0], n); merged != nil {
		t = RechunkTiled(b, t, [][]int{merged, {n}})
	}
	if fan < 2 {
		fan = DefaultFanIn
	}
	p := len(t.NSplits[0])
	// qr_factor and qr_r per chunk and tree node, qr_apply per node.
	if err := admitGrid(b, []int{p}, 6); err != nil {
		return nil, err
	}
	for _, rows := range t.NSplits[0] {
		if ndarray.QRFactorSize(rows, n) < 0 {
			return nil, fmt.Errorf("%s: a chunk of %d rows and %d columns is too large to factor", name, rows, n)
		}
	}
	tr := &tsqr{n: n}
	leaves := make([]tsqrNode, p)
	for i, rows := range t.NSplits[0] {
		leaves[i] = tr.factor(b, []ChunkRef{t.Chunks[i]}, rows, dt)
	}
	tr.levels = append(tr.levels, leaves)
	for below := leaves; len(below) > 1; {
		ng := (len(below) + fan - 1) / fan
		level := make([]tsqrNode, ng)
		for g := range ng {
			c0, c1 := g*len(below)/ng, (g+1)*len(below)/ng
			var rs []ChunkRef
			rows := 0
			for _, c := range below[c0:c1] {
				rs = append(rs, c.r)
				rows += c.k
			}
			level[g] = tr.factor(b, rs, rows, dt)
			level[g].c0, level[g].c1 = c0, c1
		}
		tr.levels = append(tr.levels, level)
		below = level
	}
	return tr, nil
}

// tallSplits merges row chunks of fewer than n rows with their neighbours
// until every chunk has at least n rows (a chunk that short would pass up
// an R of fewer rows than columns and deepen the tree for nothing), and
// returns nil when no chunk is short. Chunks already tall enough stay as
// they are, so they are reused whole.
func tallSplits(rows []int, n int) []int {
	short := false
	for _, r := range rows {
		short = short || r < n
	}
	if !short || len(rows) < 2 {
		return nil
	}
	var out []int
	acc := 0
	for _, r := range rows {
		acc += r
		if acc >= n {
			out = append(out, acc)
			acc = 0
		}
	}
	if acc > 0 { // a short tail joins the last chunk
		if len(out) == 0 {
			return []int{acc}
		}
		out[len(out)-1] += acc
	}
	return out
}

// factor adds the factorisation of the inputs stacked (rows in all) and
// the extraction of its R.
func (tr *tsqr) factor(b Builder, inputs []ChunkRef, rows int, dt ndarray.DType) tsqrNode {
	n := tr.n
	k := min(rows, n)
	f := b.AddChunk(QRFactorChunk{DType: dt}, inputs, Meta{Shape: []int{ndarray.QRFactorSize(rows, n)}, DType: dt})
	r := b.AddChunk(QRRChunk{M: rows, N: n}, []ChunkRef{f}, Meta{Shape: []int{k, n}, DType: dt})
	return tsqrNode{f: f, r: r, rows: rows, k: k}
}

func (tr *tsqr) root() tsqrNode { return tr.levels[len(tr.levels)-1][0] }

// k is the root's R rows: min(M, N).
func (tr *tsqr) k() int { return tr.root().k }

func (tr *tsqr) rowSplits() []int {
	s := make([]int, len(tr.levels[0]))
	for i, nd := range tr.levels[0] {
		s[i] = nd.rows
	}
	return s
}

// formQ adds the top-down products and returns, per row chunk, its block
// of Q·Y as an m_i×outCols chunk (zero from column p on). Y is p columns of
// rows [row, row+K) of chunk y, or the identity (p = K) when y is nil.
func (tr *tsqr) formQ(b Builder, y *ChunkRef, row, p, outCols int) []ChunkRef {
	dt := b.ChunkMeta(tr.root().f).DType
	var out []ChunkRef
	var down func(l, i int, y *ChunkRef, row int)
	down = func(l, i int, y *ChunkRef, row int) {
		nd := tr.levels[l][i]
		op := QRApply{M: nd.rows, N: tr.n, Row: row, Cols: p, OutCols: p}
		inputs := []ChunkRef{nd.f}
		if y != nil {
			inputs = append(inputs, *y)
		}
		if l == 0 {
			op.OutCols = outCols
			out = append(out, b.AddChunk(op, inputs, Meta{Shape: []int{nd.rows, outCols}, DType: dt}))
			return
		}
		z := b.AddChunk(op, inputs, Meta{Shape: []int{nd.rows, p}, DType: dt})
		off := 0
		for c := nd.c0; c < nd.c1; c++ {
			down(l-1, c, &z, off)
			off += tr.levels[l-1][c].k
		}
	}
	down(len(tr.levels)-1, 0, y, row)
	return out
}

// QRFactorChunk factors the matrix made of its inputs stacked vertically
// into ndarray's packed form (ndarray.QRFactor), in DType.
type QRFactorChunk struct {
	DType ndarray.DType `json:"dtype"`
}

// Type implements ChunkOp.
func (QRFactorChunk) Type() string { return "qr_factor" }

// Exec implements ChunkOp.
func (op QRFactorChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ndarray.QRFactor(in, op.DType)
}

// QRRChunk is the R factor of a packed factorisation of an M×N matrix.
type QRRChunk struct {
	M int `json:"m"`
	N int `json:"n"`
}

// Type implements ChunkOp.
func (QRRChunk) Type() string { return "qr_r" }

// Exec implements ChunkOp.
func (op QRRChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("qr_r: %d inputs, want 1", len(in))
	}
	return ndarray.QRFactorR(in[0], op.M, op.N)
}

// QRApply multiplies the Q of a packed factorisation of an M×N matrix
// (input 0) by Y, the Cols columns of rows [Row, Row+K) of input 1 (K =
// min(M, N)), or by the identity when there is no input 1; the result is
// M×OutCols, zero from column Cols on.
type QRApply struct {
	M       int `json:"m"`
	N       int `json:"n"`
	Row     int `json:"row"`
	Cols    int `json:"cols"`
	OutCols int `json:"out_cols"`
}

// Type implements ChunkOp.
func (QRApply) Type() string { return "qr_apply" }

// Exec implements ChunkOp.
func (op QRApply) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 && len(in) != 2 {
		return nil, fmt.Errorf("qr_apply: %d inputs, want 1 or 2", len(in))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var y *ndarray.Array
	if len(in) == 2 {
		k := min(op.M, op.N)
		var err error
		if y, err = in[1].Slice(unitRanges([]int{op.Row, 0}, []int{k, op.Cols})); err != nil {
			return nil, fmt.Errorf("qr_apply: %w", err)
		}
	}
	return ndarray.QRFactorApply(in[0], op.M, op.N, y, op.OutCols)
}

// SVDSmall is the SVD of one K×N matrix R (K <= N) packed as a (2K+1)×N
// array: U (K×K) in the first K rows and columns, the singular values in
// row K, Vᵀ (K×N) in the last K rows.
type SVDSmall struct{}

// Type implements ChunkOp.
func (SVDSmall) Type() string { return "svd_small" }

// Exec implements ChunkOp.
func (SVDSmall) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 || in[0].NDim() != 2 || in[0].Shape()[0] > in[0].Shape()[1] {
		return nil, fmt.Errorf("svd_small: want one K×N matrix with K <= N")
	}
	k, n := in[0].Shape()[0], in[0].Shape()[1]
	u, s, vt, err := ndarray.SVD(in[0])
	if err != nil {
		return nil, err
	}
	out, err := ndarray.New(u.DType(), 2*k+1, n)
	if err != nil {
		return nil, err
	}
	for _, p := range []struct {
		a              *ndarray.Array
		row, rows, cls int
	}{{u, 0, k, k}, {s, k, 1, k}, {vt, k + 1, k, n}} {
		dst, err := out.Slice(unitRanges([]int{p.row, 0}, []int{p.rows, p.cls}))
		if err != nil {
			return nil, err
		}
		src, err := p.a.Reshape(p.rows, p.cls)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, src)
	}
	return out, nil
}

// QRComplete is the complete QR of one whole M×N matrix as the stacked
// (M+M)×max(M, N) array of QR{Complete: true}.
type QRComplete struct{}

// Type implements ChunkOp.
func (QRComplete) Type() string { return "qr_complete" }

// Exec implements ChunkOp.
func (QRComplete) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 || in[0].NDim() != 2 {
		return nil, fmt.Errorf("qr_complete: want one 2-D input")
	}
	m, n := in[0].Shape()[0], in[0].Shape()[1]
	q, r, err := ndarray.QR(in[0], "complete")
	if err != nil {
		return nil, err
	}
	out, err := ndarray.New(q.DType(), 2*m, max(m, n))
	if err != nil {
		return nil, err
	}
	for _, p := range []struct {
		a   *ndarray.Array
		row int
	}{{q, 0}, {r, m}} {
		dst, err := out.Slice(unitRanges([]int{p.row, 0}, p.a.Shape()))
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, p.a)
	}
	return out, nil
}
