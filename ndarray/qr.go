package ndarray

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
)

// QR factorisations of tall matrices as trees (TSQR). A skinny matrix (at
// most qrBlockedCols columns) is factored in row blocks small enough to
// stay in cache; the R factors of neighbouring blocks are stacked and
// factored again, level by level, until one R is left (a wider matrix is
// one block: one LAPACK call). Every node keeps its Householder vectors V and
// the triangular T of the compact WY form Q_node = I - V T Vᵀ, so that Q
// applied to a k×p matrix Y is, top-down, at each node
//
//	Q_node [Y; 0] = [Y; 0] - V (T (V[:k]ᵀ Y))
//
// — two k×k products and one rows×k×p product, half the work of applying
// the reflectors one by one to a dense matrix, since the zero rows are
// never multiplied. The same code serves a chunk (QRFactor of one block)
// and the distributed tree of ops above it (QRFactor of stacked R factors),
// whose Q is formed by QRFactorApply from the top down.
//
// The factorisation is packed into one 1-D array of the matrix's float
// type, laid out by qrPlan from (m, n) alone:
//
//	R (k×n, row-major, zero below the diagonal), then for every node, level
//	by level from the leaves: V (rows×k, column-major as LAPACK leaves it,
//	with its unit diagonal and the zeros above it written out) and T (k×k,
//	column-major, zero below the diagonal).
//
// Column-major V is row-major Vᵀ, so the products read it in place with a
// transposed gemm, and it leaves LAPACK's output by a plain copy.

// qrBlockElems is the size of the leaf row blocks, in elements (512 KiB of
// float64: a block, its column-major copy and V stay in a core's L2).
const qrBlockElems = 1 << 16

// qrBlockedCols is the widest matrix factored in row blocks: a block of
// a wider one is no longer small, and LAPACK's own blocking over the whole
// matrix does better than a tree of stacked triangles.
const qrBlockedCols = 64

// qrBlockRows is the height of the leaf blocks of an m×n matrix: about
// qrBlockElems elements, and at least 4n rows so that a node stacking the
// R factors of its children costs less than they do.
func qrBlockRows(m, n int) int {
	if n > qrBlockedCols {
		return max(m, 1)
	}
	return max(4*n, qrBlockElems/n)
}

// qrNode is one factorisation of the tree.
type qrNode struct {
	// lo, hi are the rows the node factors: at level 0 rows of the
	// matrix, above rows of the level below's stacked R factors (whose
	// node i contributes its k rows, in order).
	lo, hi int
	k      int // min(hi-lo, n)
	off    int // where V, then T, start in the packed factor
}

// qrPlan lays out the factorisation of an m×n matrix.
type qrPlan struct {
	m, n, k int
	levels  [][]qrNode // levels[0] are the leaf blocks; the last level has one node
	size    int        // elements of the packed factor
}

func newQRPlan(m, n int) qrPlan {
	p := qrPlan{m: m, n: n, k: min(m, n)}
	if p.k == 0 {
		return p
	}
	bRows := qrBlockRows(m, n)
	nb := max(1, m/bRows)
	leaves := make([]qrNode, nb)
	for j := range leaves {
		lo, hi := j*m/nb, (j+1)*m/nb
		leaves[j] = qrNode{lo: lo, hi: hi, k: min(hi-lo, n)}
	}
	p.levels = append(p.levels, leaves)
	group := max(2, bRows/n)
	for below := leaves; len(below) > 1; {
		ng := (len(below) + group - 1) / group
		level := make([]qrNode, ng)
		rows := 0
		for g := range ng {
			c0, c1 := g*len(below)/ng, (g+1)*len(below)/ng
			lo := rows
			for _, c := range below[c0:c1] {
				rows += c.k
			}
			level[g] = qrNode{lo: lo, hi: rows, k: min(rows-lo, n)}
		}
		p.levels = append(p.levels, level)
		below = level
	}
	off := p.k * n
	for _, level := range p.levels {
		for i := range level {
			nd := &level[i]
			nd.off = off
			off += (nd.hi-nd.lo)*nd.k + nd.k*nd.k
		}
	}
	p.size = off
	return p
}

// maxRows is the most rows any node factors.
func (p qrPlan) maxRows() int {
	r := 0
	for _, level := range p.levels {
		for _, nd := range level {
			r = max(r, nd.hi-nd.lo)
		}
	}
	return r
}

// QRFactorSize is the length of the packed factorisation of an m×n matrix.
// It is computed level by level from counts alone, without laying out the
// nodes, so that sizing a factor (when a graph is tiled, before any data
// exists) costs nothing whatever m is; an m or n so large that the size
// does not fit an int gives -1.
func QRFactorSize(m, n int) int {
	if m < 0 || n < 0 {
		return -1
	}
	k := min(m, n)
	if k == 0 {
		return 0
	}
	const lim = 1 << 62
	if float64(m)*float64(n)*3 > lim {
		return -1
	}
	bRows := qrBlockRows(m, n)
	nb := max(1, m/bRows)
	// Leaves: nb blocks of m/nb or m/nb+1 rows (k = n when nb > 1).
	size := k * n
	q, r := m/nb, m%nb
	leaf := func(rows int) int { kk := min(rows, n); return rows*kk + kk*kk }
	size += (nb-r)*leaf(q) + r*leaf(q+1)
	group := max(2, bRows/n)
	for count := nb; count > 1; {
		ng := (count + group - 1) / group
		// Groups of count/ng or count/ng+1 children, each of k = n rows.
		c, cr := count/ng, count%ng
		node := func(children int) int { rows := children * n; return rows*n + n*n }
		size += (ng-cr)*node(c) + cr*node(c+1)
		count = ng
	}
	return size
}

// LinalgFloat is the float type NumPy's linalg computes and returns for an
// input of dtype d: float32 stays float32, everything else is float64.
func LinalgFloat(d DType) DType { return FloatFor(d) }

// QRFactor factors the matrix made of parts stacked vertically (2-D arrays
// with equal column counts, any dtype and strides) into the packed form
// described above, of dtype dt (Float32 or Float64).
func QRFactor(parts []*Array, dt DType) (*Array, error) {
	return qrFactorWith(laDefault(), parts, dt)
}

func qrFactorWith(lb *lapackBackend, parts []*Array, dt DType) (*Array, error) {
	if dt != Float32 && dt != Float64 {
		return nil, fmt.Errorf("ndarray: qr: dtype %v is not a float type", dt)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("ndarray: qr: nothing to factor")
	}
	m, n := 0, -1
	conv := make([]*Array, len(parts))
	for i, p := range parts {
		if p == nil || p.NDim() != 2 {
			return nil, fmt.Errorf("ndarray: qr: part %d is not a 2-D array", i)
		}
		if n >= 0 && p.shape[1] != n {
			return nil, fmt.Errorf("ndarray: qr: part %d has %d columns, part 0 has %d", i, p.shape[1], n)
		}
		n = p.shape[1]
		m += p.shape[0]
		conv[i] = p
		if p.dtype != dt {
			conv[i] = redConvert(p, dt)
		}
	}
	plan := newQRPlan(m, n)
	out := newArray(dt, []int{plan.size})
	if dt == Float64 {
		qrFactor(laFuncs[float64](lb), conv, plan, typed[float64](out))
	} else {
		qrFactor(laFuncs[float32](lb), conv, plan, typed[float32](out))
	}
	return out, nil
}

// qrGather copies rows [lo, hi) of the matrix made of parts stacked
// vertically into dst, column-major with leading dimension hi-lo.
func qrGather[T float32 | float64](parts []*Array, lo, hi, n int, dst []T) {
	ld := hi - lo
	start := 0
	for _, p := range parts {
		r := p.shape[0]
		a, b := max(lo, start), min(hi, start+r)
		if a < b {
			src := typedAll[T](p)
			s0, s1 := p.strides[0], p.strides[1]
			for i := a; i < b; i++ {
				o := p.offset + (i-start)*s0
				d := i - lo
				if s1 == 1 {
					row := src[o : o+n]
					for j, v := range row {
						dst[j*ld+d] = v
					}
					continue
				}
				for j := range n {
					dst[j*ld+d] = src[o+j*s1]
				}
			}
		}
		start += r
	}
}

func qrFactor[T float32 | float64](lf *lapackFuncs[T], parts []*Array, plan qrPlan, packed []T) {
	n := plan.n
	if plan.k == 0 {
		return
	}
	// Each block is transposed into scratch, factored there while it is
	// in cache, and its V copied out: the copy is what first touches the
	// packed factor's fresh memory, in order.
	scratch := make([]T, plan.maxRows()*n)
	var below []T // the level below's R factors, stacked row-major
	for l, level := range plan.levels {
		rowsR := 0
		for _, nd := range level {
			rowsR += nd.k
		}
		stack := make([]T, rowsR*n)
		if l == len(plan.levels)-1 {
			stack = packed[:plan.k*n]
		}
		r0 := 0
		for _, nd := range level {
			rows, k := nd.hi-nd.lo, nd.k
			v := packed[nd.off : nd.off+rows*k]
			tt := packed[nd.off+rows*k : nd.off+rows*k+k*k]
			a := scratch[:rows*n] // the block, column-major
			if l == 0 {
				qrGather(parts, nd.lo, nd.hi, n, a)
			} else {
				toCol(below[nd.lo*n:nd.hi*n], rows, n, a, rows)
			}
			if info := lf.geqrt(rows, n, a, rows, tt, k); info != 0 {
				panic(fmt.Sprintf("ndarray: geqrt(%d, %d) returned info %d", rows, n, info))
			}
			// R: the upper triangle of the first k rows.
			for j := range n {
				col := a[j*rows : j*rows+min(j+1, k)]
				for i, x := range col {
					stack[(r0+i)*n+j] = x
				}
			}
			copy(v, a[:rows*k])
			// V's unit diagonal and the zeros above it; T's zeros below.
			for j := range k {
				clear(v[j*rows : j*rows+j])
				v[j*rows+j] = 1
				clear(tt[j*k+j+1 : (j+1)*k])
			}
			r0 += k
		}
		below = stack
	}
}

// qrCheckFactor checks that f is the packed factorisation of an m×n matrix.
func qrCheckFactor(f *Array, m, n int) (qrPlan, error) {
	if f == nil || (f.dtype != Float32 && f.dtype != Float64) || f.NDim() != 1 {
		return qrPlan{}, fmt.Errorf("ndarray: qr: the factor must be a 1-D float array")
	}
	if m < 0 || n < 0 {
		return qrPlan{}, fmt.Errorf("ndarray: qr: negative matrix shape (%d, %d)", m, n)
	}
	plan := newQRPlan(m, n)
	if f.shape[0] != plan.size {
		return qrPlan{}, fmt.Errorf("ndarray: qr: a factor of %d elements is not that of a %dx%d matrix (%d elements)", f.shape[0], m, n, plan.size)
	}
	return plan, nil
}

// QRFactorR is the R factor (min(m, n)×n, upper triangular) of the packed
// factorisation f of an m×n matrix.
func QRFactorR(f *Array, m, n int) (*Array, error) {
	plan, err := qrCheckFactor(f, m, n)
	if err != nil {
		return nil, err
	}
	out := newArray(f.dtype, []int{plan.k, n})
	if plan.k > 0 {
		lead, err := f.Slice([]Range{{Start: 0, Step: 1, Len: plan.k * n}})
		if err != nil {
			return nil, err
		}
		r, err := lead.Reshape(plan.k, n)
		if err != nil {
			return nil, err
		}
		CopyInto(out, r)
	}
	return out, nil
}

// QRFactorApply returns Q·y, Q being the m×k orthonormal factor of the
// packed factorisation f of an m×n matrix (k = min(m, n)) and y a k×p
// matrix, as an m×outCols array whose columns from p on are zero
// (outCols >= p). A nil y is the identity: the result is Q itself.
func QRFactorApply(f *Array, m, n int, y *Array, outCols int) (*Array, error) {
	return qrApplyWith(laDefault(), f, m, n, y, outCols)
}

func qrApplyWith(lb *lapackBackend, f *Array, m, n int, y *Array, outCols int) (*Array, error) {
	plan, err := qrCheckFactor(f, m, n)
	if err != nil {
		return nil, err
	}
	k := plan.k
	if y == nil {
		y = newArray(f.dtype, []int{k, k})
		for i := range k {
			y.SetFlat(i*k+i, 1)
		}
	}
	if y.NDim() != 2 || y.shape[0] != k {
		return nil, fmt.Errorf("ndarray: qr: Q (%dx%d) times a matrix of shape %v", m, k, y.shape)
	}
	p := y.shape[1]
	if outCols < p {
		return nil, fmt.Errorf("ndarray: qr: %d output columns for a product with %d columns", outCols, p)
	}
	if y.dtype != f.dtype {
		y = redConvert(y, f.dtype)
	}
	y = y.Contiguous()
	out := newArray(f.dtype, []int{m, outCols})
	if k == 0 || p == 0 {
		return out, nil
	}
	if f.dtype == Float64 {
		qrApply(laFuncs[float64](lb), plan, typed[float64](f), typed[float64](y)[:k*p], p, typed[float64](out), outCols)
	} else {
		qrApply(laFuncs[float32](lb), plan, typed[float32](f), typed[float32](y)[:k*p], p, typed[float32](out), outCols)
	}
	return out, nil
}

func qrApply[T float32 | float64](lf *lapackFuncs[T], plan qrPlan, packed, y []T, p int, out []T, ldo int) {
	n := plan.n
	w1 := make([]T, n*p)
	w := make([]T, n*p)
	ys := y // the stacked inputs of the current level (k rows per node)
	for l := len(plan.levels) - 1; l >= 0; l-- {
		level := plan.levels[l]
		// dst receives the nodes' outputs: the next level's stacked
		// inputs, or at the leaves the result's rows.
		dst, ldd := out, ldo
		if l > 0 {
			dst, ldd = make([]T, level[len(level)-1].hi*p), p
		}
		y0 := 0
		for _, nd := range level {
			rows, k := nd.hi-nd.lo, nd.k
			v := packed[nd.off : nd.off+rows*k]
			tt := packed[nd.off+rows*k : nd.off+rows*k+k*k]
			yn := ys[y0*p : (y0+k)*p]
			o := dst[nd.lo*ldd:]
			// W = T (V[:k]ᵀ Y); O = [Y; 0] - V W. v is row-major Vᵀ
			// (k×rows) and tt row-major Tᵀ.
			lf.gemm(blas.NoTrans, blas.NoTrans, k, p, k, 1, v, rows, yn, p, 0, w1, p)
			lf.gemm(blas.Trans, blas.NoTrans, k, p, k, 1, tt, k, w1, p, 0, w, p)
			for i := range k {
				copy(o[i*ldd:i*ldd+p], yn[i*p:(i+1)*p])
			}
			lf.gemm(blas.Trans, blas.NoTrans, rows, p, k, -1, v, rows, w, p, 1, o, ldd)
			y0 += k
		}
		ys = dst
	}
}

// QRFactorApplyT returns Qᵀ·b, Q being the m×k orthonormal factor of the
// packed factorisation f of an m×n matrix (k = min(m, n)) and b an m×p
// matrix, as a k×p array. It runs the tree bottom-up, keeping at each node
// only the k rows that the nodes above read.
func QRFactorApplyT(f *Array, m, n int, b *Array) (*Array, error) {
	return qrApplyTWith(laDefault(), f, m, n, b)
}

func qrApplyTWith(lb *lapackBackend, f *Array, m, n int, b *Array) (*Array, error) {
	plan, err := qrCheckFactor(f, m, n)
	if err != nil {
		return nil, err
	}
	if b == nil || b.NDim() != 2 || b.shape[0] != m {
		return nil, fmt.Errorf("ndarray: qr: Qᵀ (%dx%d) times a matrix that is not %d rows", plan.k, m, m)
	}
	p := b.shape[1]
	if b.dtype != f.dtype {
		b = redConvert(b, f.dtype)
	}
	b = b.Contiguous()
	out := newArray(f.dtype, []int{plan.k, p})
	if plan.k == 0 || p == 0 {
		return out, nil
	}
	if f.dtype == Float64 {
		qrApplyT(laFuncs[float64](lb), plan, typed[float64](f), typed[float64](b)[:m*p], p, typed[float64](out))
	} else {
		qrApplyT(laFuncs[float32](lb), plan, typed[float32](f), typed[float32](b)[:m*p], p, typed[float32](out))
	}
	return out, nil
}

func qrApplyT[T float32 | float64](lf *lapackFuncs[T], plan qrPlan, packed, b []T, p int, out []T) {
	n := plan.n
	w1 := make([]T, n*p)
	w := make([]T, n*p)
	in := b
	for l, level := range plan.levels {
		total := 0
		for _, nd := range level {
			total += nd.k
		}
		next := out
		if l < len(plan.levels)-1 {
			next = make([]T, total*p)
		}
		r0 := 0
		for _, nd := range level {
			rows, k := nd.hi-nd.lo, nd.k
			v := packed[nd.off : nd.off+rows*k]
			tt := packed[nd.off+rows*k : nd.off+rows*k+k*k]
			z := in[nd.lo*p : nd.hi*p]
			// (Q_nodeᵀ z)[:k] = z[:k] - V[:k] (Tᵀ (Vᵀ z)); v is row-major
			// Vᵀ (k×rows), tt row-major Tᵀ.
			lf.gemm(blas.NoTrans, blas.NoTrans, k, p, rows, 1, v, rows, z, p, 0, w1, p)
			lf.gemm(blas.NoTrans, blas.NoTrans, k, p, k, 1, tt, k, w1, p, 0, w, p)
			o := next[r0*p : (r0+k)*p]
			copy(o, z[:k*p])
			lf.gemm(blas.Trans, blas.NoTrans, k, p, k, -1, v, rows, w, p, 1, o, p)
			r0 += k
		}
		in = next
	}
}
