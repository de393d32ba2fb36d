package ndarray

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// MatMul is numpy.matmul: the last two axes are matrices, leading axes are
// batch axes that broadcast; a 1-D first operand is a row vector and a 1-D
// second operand a column vector, and the added axis is dropped from the
// result. Operands are promoted with Promote. float32 and float64 go through
// BLAS gemm (see BLASBackend), reading strided or transposed matrices in place
// when BLAS can and copying them otherwise. Integers multiply in their own
// type with wrap-around, like NumPy (int32 @ int32 is int32), and bool @ bool
// is the logical (or-of-ands) product.
func MatMul(a, b *Array) (*Array, error) {
	p, err := mmPrepare(a, b, nil)
	if err != nil {
		return nil, err
	}
	if !p.empty {
		p.run(0, 1)
	}
	return p.result(), nil
}

// MatMulSum is the sum of the products in[0] @ in[1] + in[2] @ in[3] + ...,
// each a MatMul, whose results must all have one shape and dtype. float32
// and float64 products accumulate in the output through BLAS gemm with
// beta = 1 (no product is stored apart and no separate addition pass runs),
// so the sum rounds as gemm's own accumulation over the contracted axis
// does, not as adding separately rounded products would. Other dtypes are
// refused: their block products are summed by the caller, in int64 where
// NumPy widens.
func MatMulSum(in ...*Array) (*Array, error) { return MatMulSumThreads(1, in...) }

// MatMulSumThreads is MatMulSum with each float gemm's output columns split
// over up to threads goroutines, each a single-threaded BLAS call on a band
// of columns (bands start at multiples of mmBandCols, where every column is
// computed as the whole call computes it, so results are identical to
// threads = 1; TestMatMulThreadsIdentical checks it). With a BLAS where
// that is not known to hold (see blasImpl.bands) it runs on one thread. The
// caller owns the threads: a worker passes the slots it holds for the op.
func MatMulSumThreads(threads int, in ...*Array) (*Array, error) {
	if len(in) < 2 || len(in)%2 != 0 {
		return nil, fmt.Errorf("ndarray: matmul sum of %d operands: want pairs", len(in))
	}
	first, err := mmPrepare(in[0], in[1], nil)
	if err != nil {
		return nil, err
	}
	if len(in) > 2 && first.dt != Float64 && first.dt != Float32 {
		return nil, &DTypeError{Msg: fmt.Sprintf("ndarray: matmul sum of %d products: accumulates float32 and float64 only, got %v", len(in)/2, first.dt)}
	}
	rest := make([]*mmPlan, 0, len(in)/2-1)
	for i := 2; i < len(in); i += 2 {
		p, err := mmPrepare(in[i], in[i+1], first)
		if err != nil {
			return nil, fmt.Errorf("ndarray: matmul sum, product %d: %w", i/2, err)
		}
		rest = append(rest, p)
	}
	if first.out.Size() == 0 {
		return first.result(), nil
	}
	if !first.empty {
		first.run(0, threads)
	}
	for _, p := range rest {
		if p.empty {
			continue // k == 0: a sum of nothing adds nothing
		}
		if first.empty {
			p.run(0, threads) // the output is still all zeros
			first.empty = false
			continue
		}
		p.run(1, threads)
	}
	return first.result(), nil
}

// mmPlan is one checked matmul: operands converted to dt and broadcast
// over the batch axes, and its contiguous output (of the full shape, with
// the axes of 1-D operands still in).
type mmPlan struct {
	dt      DType
	a, b    *Array
	out     *Array
	batch   []int
	m, k, n int
	shape   []int // the result's shape
	empty   bool  // nothing to compute: no output elements or k == 0
}

// mmPrepare checks a @ b and plans it into a new output, or into the
// output of into, whose dtype and shapes it must have.
func mmPrepare(a, b *Array, into *mmPlan) (*mmPlan, error) {
	if a == nil || b == nil || !a.dtype.Valid() || !b.dtype.Valid() {
		return nil, fmt.Errorf("ndarray: matmul: nil or invalid operand")
	}
	for i, x := range []*Array{a, b} {
		if x.NDim() == 0 {
			return nil, fmt.Errorf("ndarray: matmul of shapes %v and %v: Input operand %d does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)", a.shape, b.shape, i)
		}
	}
	dt := Promote(a.dtype, b.dtype)
	if dt == Float16 {
		return nil, &DTypeError{Msg: "ndarray: matmul: not supported for float16; cast to float32 first"}
	}
	av, bv := a, b
	if a.NDim() == 1 {
		av = a.view([]int{1, a.shape[0]}, []int{0, a.strides[0]}, a.offset)
	}
	if b.NDim() == 1 {
		bv = b.view([]int{b.shape[0], 1}, []int{b.strides[0], 0}, b.offset)
	}
	na, nb := av.NDim(), bv.NDim()
	m, k := av.shape[na-2], av.shape[na-1]
	k2, n := bv.shape[nb-2], bv.shape[nb-1]
	if k != k2 {
		return nil, fmt.Errorf("ndarray: matmul of shapes %v and %v: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size %d is different from %d)", a.shape, b.shape, k2, k)
	}
	batch, err := BroadcastShapes(av.shape[:na-2], bv.shape[:nb-2])
	if err != nil {
		return nil, fmt.Errorf("ndarray: matmul of shapes %v and %v: batch axes: %w", a.shape, b.shape, err)
	}
	full := append(append([]int(nil), batch...), m, n)
	if err := checkShape(full); err != nil {
		return nil, fmt.Errorf("ndarray: matmul of shapes %v and %v: %w", a.shape, b.shape, err)
	}
	shape := append([]int(nil), batch...)
	if a.NDim() > 1 {
		shape = append(shape, m)
	}
	if b.NDim() > 1 {
		shape = append(shape, n)
	}
	p := &mmPlan{dt: dt, batch: batch, m: m, k: k, n: n, shape: shape}
	if into == nil && k > 0 && (dt == Float64 || dt == Float32) {
		// gemm with beta 0 writes every element (OpenBLAS and gonum
		// store zeros for beta 0, never 0 times the old value).
		p.out = newArrayUninit(dt, full)
	} else if into == nil {
		p.out = newArray(dt, full)
	} else {
		if dt != into.dt || !slices.Equal(full, into.out.shape) || !slices.Equal(shape, into.shape) {
			return nil, fmt.Errorf("ndarray: matmul of shapes %v and %v is %v%v, not %v%v like the sum's first product", a.shape, b.shape, dt, shape, into.dt, into.shape)
		}
		p.out = into.out
	}
	if p.out.Size() == 0 || k == 0 {
		p.empty = true // k == 0: sums of nothing are 0
		return p, nil
	}
	if av.dtype != dt {
		av = ewCast(av, dt)
	}
	if bv.dtype != dt {
		bv = ewCast(bv, dt)
	}
	if p.a, err = av.BroadcastTo(append(append([]int(nil), batch...), m, k)); err != nil {
		return nil, fmt.Errorf("ndarray: matmul of shapes %v and %v: %w", a.shape, b.shape, err)
	}
	if p.b, err = bv.BroadcastTo(append(append([]int(nil), batch...), k, n)); err != nil {
		return nil, fmt.Errorf("ndarray: matmul of shapes %v and %v: %w", a.shape, b.shape, err)
	}
	return p, nil
}

// run computes out = a @ b + beta * out (beta 0 or 1; integer and bool
// products support beta 0 only, which MatMulSum makes sure of), float
// products on up to threads goroutines.
func (p *mmPlan) run(beta float64, threads int) {
	g := mmBLAS.get()
	if !mmBLAS.bands {
		threads = 1 // results must not depend on the threads a worker had free
	}
	ab, bb, out, batch, m, k, n := p.a, p.b, p.out, p.batch, p.m, p.k, p.n
	switch p.dt {
	case Float64:
		if !mmSkinny(ab, bb, out, batch, m, k, n, beta) {
			mmFloat(ab, bb, out, batch, m, k, n, beta, threads, g.Dgemm)
		}
	case Float32:
		mmFloat(ab, bb, out, batch, m, k, n, float32(beta), threads, g.Sgemm)
	case Int64:
		mmInt[int64](false, ab, bb, out, batch, m, k, n)
	case Int32:
		mmInt[int32](false, ab, bb, out, batch, m, k, n)
	case Int8:
		mmInt[int8](false, ab, bb, out, batch, m, k, n)
	case Int16:
		mmInt[int16](false, ab, bb, out, batch, m, k, n)
	case Uint8:
		mmInt[uint8](false, ab, bb, out, batch, m, k, n)
	case Uint16:
		mmInt[uint16](false, ab, bb, out, batch, m, k, n)
	case Uint32:
		mmInt[uint32](false, ab, bb, out, batch, m, k, n)
	case Uint64:
		mmInt[uint64](false, ab, bb, out, batch, m, k, n)
	case Bool:
		mmInt[uint8](true, ab, bb, out, batch, m, k, n)
	case Complex64:
		mmComplex[complex64](ab, bb, out, batch, m, k, n)
	case Complex128:
		mmComplex[complex128](ab, bb, out, batch, m, k, n)
	}
}

// mmComplex is the complex matrix product in plain loops: each output
// element sums its k products in order, with Go's (NumPy's textbook)
// complex product; no zero is skipped, so nan and inf propagate as in
// zgemm. NumPy calls cblas_zgemm/cgemm, whose blocked sums round
// differently.
func mmComplex[C ewComplex](a, b, out *Array, batch []int, m, k, n int) {
	A, B, O := typedAll[C](a), typedAll[C](b), typedAll[C](out)
	nd := a.NDim()
	sa0, sa1, sb0, sb1 := a.strides[nd-2], a.strides[nd-1], b.strides[nd-2], b.strides[nd-1]
	mmForBatch(a, b, batch, func(t, ao, bo int) {
		Oc := O[t*m*n : (t+1)*m*n]
		for i := range m {
			for j := range n {
				var acc C
				for p := range k {
					acc += A[ao+i*sa0+p*sa1] * B[bo+p*sb0+j*sb1]
				}
				Oc[i*n+j] = acc
			}
		}
	})
}

func (p *mmPlan) result() *Array { return redView(p.dt, p.shape, p.out.buf, 0) }

// mmForBatch calls fn for every batch index t (C order) with the element
// offsets of a's and b's matrix t in their whole buffers.
func mmForBatch(a, b *Array, batch []int, fn func(t, ao, bo int)) {
	idx := make([]int, len(batch))
	ao, bo := a.offset, b.offset
	nt := Size(batch)
	for t := 0; t < nt; t++ {
		fn(t, ao, bo)
		for d := len(batch) - 1; d >= 0; d-- {
			idx[d]++
			ao += a.strides[d]
			bo += b.strides[d]
			if idx[d] < batch[d] {
				break
			}
			ao -= a.strides[d] * batch[d]
			bo -= b.strides[d] * batch[d]
			idx[d] = 0
		}
	}
}

// mmLayout tells whether a rows×cols matrix with element strides s0, s1 can
// be handed to row-major BLAS as is (NoTrans, ld = row stride) or as the
// transpose of a row-major matrix (Trans, ld = column stride).
func mmLayout(rows, cols, s0, s1 int) (blas.Transpose, int, bool) {
	if (cols == 1 || s1 == 1) && (rows == 1 || s0 >= max(1, cols)) {
		ld := s0
		if rows == 1 {
			ld = max(1, cols)
		}
		return blas.NoTrans, ld, true
	}
	if (rows == 1 || s0 == 1) && (cols == 1 || s1 >= max(1, rows)) {
		ld := s1
		if cols == 1 {
			ld = max(1, rows)
		}
		return blas.Trans, ld, true
	}
	return blas.NoTrans, 0, false
}

// mmGather copies a strided rows×cols matrix into the row-major dst.
func mmGather[T any](src []T, off, rows, cols, s0, s1 int, dst []T) {
	for i := 0; i < rows; i++ {
		d := dst[i*cols : (i+1)*cols]
		o := off + i*s0
		for j := range d {
			d[j] = src[o+j*s1]
		}
	}
}

type mmGemmFunc[T float32 | float64] func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)

// mmFloat runs one gemm per batch matrix, C = A·B + beta·C into the
// contiguous out.
func mmFloat[T float32 | float64](a, b, out *Array, batch []int, m, k, n int, beta T, threads int, gemm mmGemmFunc[T]) {
	A, B, C := typedAll[T](a), typedAll[T](b), typedAll[T](out)
	nd := a.NDim()
	sa0, sa1, sb0, sb1 := a.strides[nd-2], a.strides[nd-1], b.strides[nd-2], b.strides[nd-1]
	tA, lda, okA := mmLayout(m, k, sa0, sa1)
	tB, ldb, okB := mmLayout(k, n, sb0, sb1)
	var abuf, bbuf []T
	if !okA {
		abuf, tA, lda = make([]T, m*k), blas.NoTrans, k
	}
	if !okB {
		bbuf, tB, ldb = make([]T, k*n), blas.NoTrans, n
	}
	mmForBatch(a, b, batch, func(t, ao, bo int) {
		as, bs := A[ao:], B[bo:]
		if !okA {
			mmGather(A, ao, m, k, sa0, sa1, abuf)
			as = abuf
		}
		if !okB {
			mmGather(B, bo, k, n, sb0, sb1, bbuf)
			bs = bbuf
		}
		c := C[t*m*n : (t+1)*m*n]
		bands := mmBands(m, k, n, threads)
		if len(bands) <= 2 {
			gemm(tA, tB, m, n, k, 1, as, lda, bs, ldb, beta, c, n)
			return
		}
		var wg sync.WaitGroup
		panics := make([]any, len(bands)-1)
		for i := range len(bands) - 1 {
			c0, c1 := bands[i], bands[i+1]
			bo := c0 * ldb // B is read transposed: column j of B is row j
			if tB == blas.NoTrans {
				bo = c0
			}
			wg.Go(func() {
				// A panic (gonum's, on arguments it refuses) goes back to
				// the caller's goroutine, where kernels' panics are caught.
				defer func() { panics[i] = recover() }()
				gemm(tA, tB, m, c1-c0, k, 1, as, lda, bs[bo:], ldb, beta, c[c0:], n)
			})
		}
		wg.Wait()
		for _, p := range panics {
			if p != nil {
				panic(p)
			}
		}
	})
}

// mmBandCols is the granule of a column band: a multiple of the widths in
// which BLAS kernels take columns (OpenBLAS's SkylakeX dgemm packs 24 at a
// time and its kernels take up to 24 rows or columns a tile), so each
// column of a band is computed by the same kernel tile, over the same
// blocks of the contraction, as in the whole call. Rows are not split:
// OpenBLAS cuts rows into blocks whose bounds depend on the row count.
const mmBandCols = 192

// MaxGemmThreads bounds the threads MatMulSumThreads uses for one gemm.
const MaxGemmThreads = 64

// GemmColumnBands is how many column bands MatMulSumThreads can split an
// output of n columns into (at least 1, at most MaxGemmThreads): a caller
// lending it threads need lend no more. Whether it splits also depends on
// the size of the product and on the BLAS.
func GemmColumnBands(n int) int { return max(1, min(n/mmBandCols, MaxGemmThreads)) }

// mmMinBandWork is the least m·k·n worth a band of its own: below it
// starting goroutines costs more than it saves.
const mmMinBandWork = 1 << 24

// mmBands returns the column bounds of up to threads bands of an m×k·k×n
// product, [0, n] when it is not worth splitting.
func mmBands(m, k, n, threads int) []int {
	work := float64(m) * float64(k) * float64(n)
	nb := min(threads, GemmColumnBands(n), int(min(work/mmMinBandWork, 1<<20)))
	if nb <= 1 {
		return []int{0, n}
	}
	granules := (n + mmBandCols - 1) / mmBandCols
	b := make([]int, nb+1)
	for i := 1; i < nb; i++ {
		b[i] = i * granules / nb * mmBandCols
	}
	b[nb] = n
	return b
}

// mmInt is a cache-blocked i-p-j loop over row-major panels of B (gathered
// when B is not row-contiguous), accumulating rows of C in T.
func mmInt[T ewInt](isBool bool, a, b, out *Array, batch []int, m, k, n int) {
	A, B, C := typedAll[T](a), typedAll[T](b), typedAll[T](out)
	nd := a.NDim()
	sa0, sa1, sb0, sb1 := a.strides[nd-2], a.strides[nd-1], b.strides[nd-2], b.strides[nd-1]
	direct := (n == 1 || sb1 == 1) && (k == 1 || sb0 >= n)
	var bbuf []T
	if !direct {
		bbuf = make([]T, k*n)
	}
	const jb, pb = 512, 128
	mmForBatch(a, b, batch, func(t, ao, bo int) {
		Bc, ldb := B[bo:], sb0
		if k == 1 {
			ldb = n
		}
		if !direct {
			mmGather(B, bo, k, n, sb0, sb1, bbuf)
			Bc, ldb = bbuf, n
		}
		Cc := C[t*m*n : (t+1)*m*n]
		for j0 := 0; j0 < n; j0 += jb {
			j1 := min(n, j0+jb)
			for p0 := 0; p0 < k; p0 += pb {
				p1 := min(k, p0+pb)
				for i := 0; i < m; i++ {
					crow := Cc[i*n+j0 : i*n+j1]
					for p := p0; p < p1; p++ {
						aip := A[ao+i*sa0+p*sa1]
						if aip == 0 {
							continue
						}
						brow := Bc[p*ldb+j0 : p*ldb+j1]
						brow = brow[:len(crow)]
						if isBool {
							for j := range crow {
								crow[j] |= brow[j]
							}
						} else {
							for j := range crow {
								crow[j] += aip * brow[j]
							}
						}
					}
				}
			}
		}
	})
}

// mmGemmer is the slice of BLAS level 3 MatMul needs, in gonum's row-major
// calling convention. gonum.Implementation (pure Go) satisfies it, and so
// does mmOpenBLAS, which forwards to OpenBLAS's cblas through purego.
type mmGemmer interface {
	Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

// blasImpl picks the BLAS once, lazily, on first use: OpenBLAS when the
// shared library can be loaded at run time (no cgo, so CGO_ENABLED=0 builds
// still get it), else gonum's pure-Go BLAS. PHOBOS_BLAS=gonum forces pure Go.
// It is deliberately private state of this package instead of gonum's
// process-wide blas64.Use, which would change BLAS for every gonum user.
type blasImpl struct {
	once sync.Once
	impl mmGemmer
	name string
	// bands is whether column bands of a gemm compute every element as
	// the whole call does (mmBands): checked for OpenBLAS's SkylakeX
	// kernels (TestMatMulThreadsIdentical, and 150 random shapes of both
	// float types in every layout). Not so for its Haswell sgemm, whose
	// last 8 columns of a band differ in rounding; unchecked elsewhere.
	bands bool
}

var mmBLAS blasImpl

func (b *blasImpl) get() mmGemmer {
	b.once.Do(b.load)
	return b.impl
}

func (b *blasImpl) load() {
	b.impl, b.name = gonum.Implementation{}, "gonum (pure Go)"
	if strings.EqualFold(strings.TrimSpace(os.Getenv("PHOBOS_BLAS")), "gonum") {
		return
	}
	if ob, err := mmOpenOpenBLAS(); err == nil {
		b.impl, b.name = ob, "openblas ("+ob.path+")"
		if ob.core != "" {
			b.name = "openblas " + ob.core + " (" + ob.path + ")"
		}
		b.bands = strings.EqualFold(ob.core, "SkylakeX")
	}
}

// BLASBackend names the BLAS MatMul uses for float32 and float64:
// "openblas <core> (<library path>)", core being the kernels OpenBLAS chose
// (Haswell, SkylakeX, ...), or "gonum (pure Go)".
func BLASBackend() string {
	mmBLAS.once.Do(mmBLAS.load)
	return mmBLAS.name
}
