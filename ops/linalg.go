package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "tensordot", Op: TensorDot{}, Kinds: Complex},
		Descriptor{Name: "matmul", Op: MatMul{}, Kinds: Complex},
	)
}

// TensorDot is numpy.tensordot: the products of a and b summed over the
// axis pairs (AAxes[i], BAxes[i]); the output has a's free axes, then b's.
// It serves both levels: as a tensor op it tiles into one chunk-level
// TensorDot per output chunk and contracted-grid position, summed by a tree.
type TensorDot struct {
	// AAxes and BAxes are normalised (non-negative) and pairwise aligned.
	AAxes []int `json:"a_axes"`
	BAxes []int `json:"b_axes"`
}

// Type implements TensorOp and ChunkOp.
func (TensorDot) Type() string { return "tensordot" }

// checkDotAxes validates one side's contracted axes against its ndim.
func checkDotAxes(name string, axes []int, nd int) error {
	seen := make([]bool, nd)
	for _, ax := range axes {
		if ax < 0 || ax >= nd {
			return fmt.Errorf("axis %d of %s is out of bounds for a %d-D operand", ax, name, nd)
		}
		if seen[ax] {
			return fmt.Errorf("repeated axis %d in the axes %v of %s", ax, axes, name)
		}
		seen[ax] = true
	}
	return nil
}

// dotFreeAxes are the axes of an nd-D operand not in contracted, in order.
func dotFreeAxes(nd int, contracted []int) []int {
	free := make([]int, 0, nd)
	for ax := range nd {
		if !slices.Contains(contracted, ax) {
			free = append(free, ax)
		}
	}
	return free
}

// Infer implements TensorOp.
func (op TensorDot) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("tensordot takes 2 inputs, got %d", len(in))
	}
	a, b := in[0], in[1]
	if len(op.AAxes) != len(op.BAxes) {
		return Meta{}, fmt.Errorf("tensordot of shapes %v and %v: %d axes %v of a but %d axes %v of b",
			a.Shape, b.Shape, len(op.AAxes), op.AAxes, len(op.BAxes), op.BAxes)
	}
	if err := checkDotAxes("a", op.AAxes, a.NDim()); err != nil {
		return Meta{}, fmt.Errorf("tensordot of shapes %v and %v: %w", a.Shape, b.Shape, err)
	}
	if err := checkDotAxes("b", op.BAxes, b.NDim()); err != nil {
		return Meta{}, fmt.Errorf("tensordot of shapes %v and %v: %w", a.Shape, b.Shape, err)
	}
	for i, ax := range op.AAxes {
		if bx := op.BAxes[i]; a.Shape[ax] != b.Shape[bx] {
			return Meta{}, fmt.Errorf("tensordot: shape mismatch for sum: axis %d of a (shape %v, axes %v) has length %d but axis %d of b (shape %v, axes %v) has length %d",
				ax, a.Shape, op.AAxes, a.Shape[ax], bx, b.Shape, op.BAxes, b.Shape[bx])
		}
	}
	var shape []int
	for _, ax := range dotFreeAxes(a.NDim(), op.AAxes) {
		shape = append(shape, a.Shape[ax])
	}
	for _, ax := range dotFreeAxes(b.NDim(), op.BAxes) {
		shape = append(shape, b.Shape[ax])
	}
	return Meta{Shape: shape, DType: ndarray.Promote(a.DType, b.DType)}, nil
}

// Tile implements TensorOp. Each contracted axis pair is rechunked to the
// union of its boundaries so blocks line up; every output chunk is the sum
// over the contracted grid of block tensordots.
func (op TensorDot) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	ta, tb := in[0], in[1]
	wantA := slices.Clone(ta.NSplits)
	wantB := slices.Clone(tb.NSplits)
	kGrid := make([]int, len(op.AAxes))
	for i, ax := range op.AAxes {
		u := UnifySplits(ta.NSplits[ax], tb.NSplits[op.BAxes[i]])
		wantA[ax], wantB[op.BAxes[i]] = u, u
		kGrid[i] = len(u)
	}
	aFree := dotFreeAxes(ta.Meta.NDim(), op.AAxes)
	bFree := dotFreeAxes(tb.Meta.NDim(), op.BAxes)
	// One block product per output chunk and k position: admit them all
	// before anything is rechunked or built.
	var free []int
	for _, ax := range aFree {
		free = append(free, len(ta.NSplits[ax]))
	}
	for _, ax := range bFree {
		free = append(free, len(tb.NSplits[ax]))
	}
	if err := admitGrid(b, free, float64(gridCount(kGrid))); err != nil {
		return nil, err
	}
	ta = RechunkTiled(b, ta, wantA)
	tb = RechunkTiled(b, tb, wantB)
	var nsplits [][]int
	for _, ax := range aFree {
		nsplits = append(nsplits, ta.NSplits[ax])
	}
	for _, ax := range bFree {
		nsplits = append(nsplits, tb.NSplits[ax])
	}
	res := &Tiled{Meta: out, NSplits: nsplits}
	grid := res.Grid()
	res.Chunks = make([]ChunkRef, 0, gridCount(grid))
	ia := make([]int, ta.Meta.NDim())
	ib := make([]int, tb.Meta.NDim())
	ForEachGrid(grid, func(idx []int) {
		for i, ax := range aFree {
			ia[ax] = idx[i]
		}
		for i, ax := range bFree {
			ib[ax] = idx[len(aFree)+i]
		}
		meta := Meta{Shape: ChunkShape(nsplits, idx), DType: out.DType}
		pairs := make([]ChunkRef, 0, 2*gridCount(kGrid))
		ForEachGrid(kGrid, func(k []int) {
			for i, p := range k {
				ia[op.AAxes[i]], ib[op.BAxes[i]] = p, p
			}
			pairs = append(pairs, ta.At(ia), tb.At(ib))
		})
		res.Chunks = append(res.Chunks, sumTree(b, productGroups(b, op, pairs, meta), meta))
	})
	return res, nil
}

// Exec implements ChunkOp: the contracted axes are moved last in a and first
// in b so that the contraction is one (batched-free) matrix product. With
// more pairs of blocks (a0, b0, a1, b1, ...; float32 and float64 only) it
// sums their products, accumulated by gemm in one output
// (ndarray.MatMulSumThreads), on the threads the worker lent it.
func (op TensorDot) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) < 2 || len(in)%2 != 0 {
		return nil, fmt.Errorf("tensordot: %d inputs, want pairs", len(in))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mats := make([]*ndarray.Array, len(in))
	var shape []int
	for p := 0; p < len(in); p += 2 {
		a2, b2, sh, err := op.matrices(in[p], in[p+1])
		if err != nil {
			return nil, err
		}
		mats[p], mats[p+1], shape = a2, b2, sh
	}
	r, err := ndarray.MatMulSumThreads(Threads(ctx), mats...)
	if err != nil {
		return nil, fmt.Errorf("tensordot: %w", err)
	}
	return r.Reshape(shape...)
}

// MaxThreads implements Threaded: float products use the threads they are
// given (MatMul's); the output's columns are not known from out alone, so
// the kernel decides how many bands it makes (ndarray.MatMulSumThreads).
func (TensorDot) MaxThreads(out Meta) int {
	if out.DType != ndarray.Float64 && out.DType != ndarray.Float32 {
		return 1
	}
	return ndarray.MaxGemmThreads
}

// matrices reshapes a pair of blocks into the (m, k) and (k, n) matrices of
// their contraction and returns them with the shape of its result.
func (op TensorDot) matrices(a, b *ndarray.Array) (a2, b2 *ndarray.Array, shape []int, err error) {
	aFree := dotFreeAxes(a.NDim(), op.AAxes)
	bFree := dotFreeAxes(b.NDim(), op.BAxes)
	at, err := a.Transpose(append(slices.Clone(aFree), op.AAxes...)...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tensordot: %w", err)
	}
	bt, err := b.Transpose(append(slices.Clone(op.BAxes), bFree...)...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tensordot: %w", err)
	}
	m, k, n := 1, 1, 1
	for _, ax := range aFree {
		m *= a.Shape()[ax]
		shape = append(shape, a.Shape()[ax])
	}
	for _, ax := range op.AAxes {
		k *= a.Shape()[ax]
	}
	for _, ax := range bFree {
		n *= b.Shape()[ax]
		shape = append(shape, b.Shape()[ax])
	}
	if a2, err = at.Reshape(m, k); err != nil {
		return nil, nil, nil, fmt.Errorf("tensordot: %w", err)
	}
	if b2, err = bt.Reshape(k, n); err != nil {
		return nil, nil, nil, fmt.Errorf("tensordot: %w", err)
	}
	return a2, b2, shape, nil
}

// MatMul is numpy.matmul for operands of at least one dimension: the last
// two axes are matrices, leading batch axes broadcast, a 1-D operand is a
// row (first) or column (second) vector whose added axis is dropped. It
// serves both levels: the chunk op multiplies one pair of aligned blocks,
// or sums the products of several pairs (inputs a0, b0, a1, b1, ...).
type MatMul struct{}

// Type implements TensorOp and ChunkOp.
func (MatMul) Type() string { return "matmul" }

// matmulAxes locates the axes of a matmul operand: its batch axes are
// [0, nbatch), row is -1 for a 1-D first operand, col -1 for a 1-D second.
type matmulAxes struct {
	nbatch, row, k, col int
}

func matmulLayout(na, nb int) (a, b matmulAxes) {
	a = matmulAxes{nbatch: max(na-2, 0), row: na - 2, k: na - 1, col: -1}
	b = matmulAxes{nbatch: max(nb-2, 0), row: -1, k: nb - 2, col: nb - 1}
	if nb == 1 {
		b.k, b.col = 0, -1
	}
	return a, b
}

// Infer implements TensorOp.
func (MatMul) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("matmul takes 2 inputs, got %d", len(in))
	}
	a, b := in[0], in[1]
	for i, m := range in {
		if m.NDim() == 0 {
			return Meta{}, fmt.Errorf("matmul of shapes %v and %v: operand %d is 0-d (matmul needs at least 1 dimension; use multiply for scalars)", a.Shape, b.Shape, i)
		}
	}
	la, lb := matmulLayout(a.NDim(), b.NDim())
	if a.Shape[la.k] != b.Shape[lb.k] {
		return Meta{}, fmt.Errorf("matmul of shapes %v and %v: mismatch in the contracted dimension (%d in a, %d in b)",
			a.Shape, b.Shape, a.Shape[la.k], b.Shape[lb.k])
	}
	batch, err := ndarray.BroadcastShapes(a.Shape[:la.nbatch], b.Shape[:lb.nbatch])
	if err != nil {
		return Meta{}, fmt.Errorf("matmul of shapes %v and %v: batch axes: %w", a.Shape, b.Shape, err)
	}
	shape := slices.Clone(batch)
	if la.row >= 0 {
		shape = append(shape, a.Shape[la.row])
	}
	if lb.col >= 0 {
		shape = append(shape, b.Shape[lb.col])
	}
	return Meta{Shape: shape, DType: ndarray.Promote(a.DType, b.DType)}, nil
}

// Tile implements TensorOp. Batch axes are aligned as elementwise
// broadcasting aligns them, the contraction axis is rechunked to common
// splits, and each output chunk sums the block products along it by a tree.
func (op MatMul) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	ta, tb := in[0], in[1]
	la, lb := matmulLayout(ta.Meta.NDim(), tb.Meta.NDim())
	nbatch := max(la.nbatch, lb.nbatch)
	bshape := out.Shape[:nbatch]
	// Batch splits: the union over the operands that span each batch axis.
	batchSplits := make([][]int, nbatch)
	for i := range nbatch {
		var cands [][]int
		for _, x := range []struct {
			t  *Tiled
			nb int
		}{{ta, la.nbatch}, {tb, lb.nbatch}} {
			j := i - (nbatch - x.nb)
			if j >= 0 && x.t.Meta.Shape[j] == bshape[i] {
				cands = append(cands, x.t.NSplits[j])
			}
		}
		if len(cands) == 0 {
			batchSplits[i] = []int{bshape[i]}
		} else {
			batchSplits[i] = UnifySplits(cands...)
		}
	}
	kSplits := UnifySplits(ta.NSplits[la.k], tb.NSplits[lb.k])
	var colSplits []int // b's column splits when the product picks them
	if nbatch == 0 && la.row >= 0 && lb.col >= 0 && ta.Resplit != nil && tb.Resplit != nil &&
		(out.DType == ndarray.Float64 || out.DType == ndarray.Float32) {
		kSplits, colSplits = wideBlocks(ta.NSplits[la.row], kSplits, tb.NSplits[lb.col], int64(out.DType.Size()))
	}
	// Every output chunk sums one block product per k chunk: admit them
	// all before anything is rechunked or built.
	blocks := make([]int, 0, nbatch+2)
	for _, sp := range batchSplits {
		blocks = append(blocks, len(sp))
	}
	if la.row >= 0 {
		blocks = append(blocks, len(ta.NSplits[la.row]))
	}
	if lb.col >= 0 {
		blocks = append(blocks, len(tb.NSplits[lb.col]))
	}
	if err := admitGrid(b, blocks, float64(len(kSplits))); err != nil {
		return nil, err
	}
	want := func(t *Tiled, l matmulAxes) [][]int {
		w := slices.Clone(t.NSplits)
		for j := range l.nbatch {
			if t.Meta.Shape[j] == bshape[j+nbatch-l.nbatch] {
				w[j] = batchSplits[j+nbatch-l.nbatch]
			} else {
				w[j] = []int{t.Meta.Shape[j]} // broadcast axis of length 1
			}
		}
		w[l.k] = kSplits
		if l.col >= 0 && colSplits != nil {
			w[l.col] = colSplits
		}
		return w
	}
	ta = RechunkTiled(b, ta, want(ta, la))
	tb = RechunkTiled(b, tb, want(tb, lb))
	nsplits := slices.Clone(batchSplits)
	if la.row >= 0 {
		nsplits = append(nsplits, ta.NSplits[la.row])
	}
	if lb.col >= 0 {
		nsplits = append(nsplits, tb.NSplits[lb.col])
	}
	res := &Tiled{Meta: out, NSplits: nsplits}
	grid := res.Grid()
	res.Chunks = make([]ChunkRef, 0, gridCount(grid))
	ia := make([]int, ta.Meta.NDim())
	ib := make([]int, tb.Meta.NDim())
	// batchIndex maps the output batch index onto an operand's batch axes.
	batchIndex := func(t *Tiled, l matmulAxes, idx, dst []int) {
		for j := range l.nbatch {
			i := j + nbatch - l.nbatch
			dst[j] = 0
			if t.Meta.Shape[j] == bshape[i] {
				dst[j] = idx[i]
			}
		}
	}
	ForEachGrid(grid, func(idx []int) {
		batchIndex(ta, la, idx, ia)
		batchIndex(tb, lb, idx, ib)
		if la.row >= 0 {
			ia[la.row] = idx[nbatch]
		}
		if lb.col >= 0 {
			ib[lb.col] = idx[len(idx)-1]
		}
		meta := Meta{Shape: ChunkShape(nsplits, idx), DType: out.DType}
		pairs := make([]ChunkRef, 0, 2*len(kSplits))
		for p := range kSplits {
			ia[la.k], ib[lb.k] = p, p
			pairs = append(pairs, ta.At(ia), tb.At(ib))
		}
		res.Chunks = append(res.Chunks, sumTree(b, productGroups(b, op, pairs, meta), meta))
	})
	return res, nil
}

// Exec implements ChunkOp: the product of one pair of blocks, or with more
// pairs (float32 and float64 only) the sum of their products, accumulated
// by gemm in one output (ndarray.MatMulSum), on the threads the worker
// lent it (Threads).
func (MatMul) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) < 2 || len(in)%2 != 0 {
		return nil, fmt.Errorf("matmul: %d inputs, want pairs", len(in))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ndarray.MatMulSumThreads(Threads(ctx), in...)
}

// MaxThreads implements Threaded: a float product splits its columns into
// bands over the threads it is given (ndarray.MatMulSumThreads, which keeps
// results identical to one thread's); integer and bool products and
// outputs too narrow for two bands use one.
func (MatMul) MaxThreads(out Meta) int {
	if out.DType != ndarray.Float64 && out.DType != ndarray.Float32 || out.NDim() == 0 {
		return 1
	}
	return ndarray.GemmColumnBands(out.Shape[out.NDim()-1])
}

// wideBlocks picks the contraction and column splits of a 2-D float
// product whose operands can be cut for free (client data, Tiled.Resplit),
// keeping the rows as given: each whole when the blocks it makes stay
// within DefaultChunkBytes. A row band's product over all of b is one gemm
// that packs its band of a once, instead of once per column block, and
// needs no beta = 1 pass per contraction block.
// The contraction stays split when joining it would leave one single-band
// op, as splits of it are the only parallelism of a narrow product.
func wideBlocks(rows, ks, cols []int, item int64) (kSplits, colSplits []int) {
	fits := func(r, c int) bool { return int64(r)*int64(c)*item <= DefaultChunkBytes }
	sum := func(s []int) int {
		t := 0
		for _, v := range s {
			t += v
		}
		return t
	}
	kSplits, colSplits = ks, cols
	if len(rows) == 0 || len(ks) == 0 || len(cols) == 0 {
		return kSplits, colSplits
	}
	rowMax, k, n := slices.Max(rows), sum(ks), sum(cols)
	if fits(k, slices.Max(cols)) && fits(rowMax, k) {
		kSplits = []int{k}
	}
	if fits(slices.Max(kSplits), n) && fits(rowMax, n) {
		colSplits = []int{n}
	}
	if len(ks) > 1 && len(kSplits) == 1 && len(rows)*len(colSplits) == 1 && ndarray.GemmColumnBands(n) < 2 {
		kSplits = ks
	}
	return kSplits, colSplits
}

// productGroups adds the block products of one output chunk, pairs being
// a0, b0, a1, b1, ...: float products in groups of up to DefaultFanIn
// pairs, each one op whose gemm accumulates them (beta = 1) in one output,
// instead of one output per product and an addition pass over them (fresh
// output memory is most of a block product's cost besides the gemm itself:
// its page faults); groups, not one op per
// output chunk, keep a long contraction parallel. Other dtypes get one op
// per pair (their partials are summed widened by sumTree). It returns the
// ops' chunks, for sumTree.
func productGroups(b Builder, op ChunkOp, pairs []ChunkRef, meta Meta) []ChunkRef {
	np := len(pairs) / 2
	per := 1
	if meta.DType == ndarray.Float64 || meta.DType == ndarray.Float32 {
		per = DefaultFanIn
	}
	ng := (np + per - 1) / per
	blocks := make([]ChunkRef, ng)
	for g := range ng {
		lo, hi := g*np/ng, (g+1)*np/ng
		blocks[g] = b.AddChunk(op, slices.Clone(pairs[2*lo:2*hi]), meta)
	}
	return blocks
}

// sumTree adds same-shape partial products into one chunk of meta out with
// ReduceCombine nodes of fan-in DefaultFanIn. Bool products are or-ed (numpy's
// bool dot), and integer partials, which Combine widens to int64, are cast
// back to out's dtype at the root as numpy keeps int32 @ int32 in int32.
func sumTree(b Builder, parts []ChunkRef, out Meta) ChunkRef {
	fn, r := "sum", ndarray.Sum
	if out.DType == ndarray.Bool {
		fn, r = "any", ndarray.Any
	}
	level := parts
	for len(level) > 1 {
		// Balanced groups of at least two (fan-in 4), so every node of a
		// level is a combine and its parts all share one dtype.
		ng := (len(level) + DefaultFanIn - 1) / DefaultFanIn
		next := make([]ChunkRef, 0, ng)
		for g := range ng {
			group := level[g*len(level)/ng : (g+1)*len(level)/ng]
			c := ReduceCombine{Func: fn}
			pm := b.ChunkMeta(group[0])
			meta := Meta{Shape: pm.Shape, DType: ndarray.ReduceResultType(r, pm.DType)}
			if ng == 1 && meta.DType != out.DType {
				c.Finish = &ReduceFinish{Func: fn, Shape: out.Shape, DType: out.DType}
				meta = out
			}
			next = append(next, b.AddChunk(c, slices.Clone(group), meta))
		}
		level = next
	}
	return level[0]
}
