package ndarray

import (
	"fmt"
	"runtime"
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// Gram products: (x - s)ᵀ(x - s) of a tall matrix x and a row s subtracted
// from each of its rows (a column centring), without making x - s. Rows are
// taken in blocks that fit in cache; each block is copied (and shifted)
// into a scratch matrix and added to the product by BLAS: SYRK for the
// symmetric product, which computes one triangle (half a GEMM's work), and
// GEMM for the product of two column blocks of x.

// gramBlockBytes bounds the scratch rows of a Gram product. SYRK's speed
// grows with the rows it gets at once and the copy wants them near the
// core: 2 MiB (about 5,000 rows of 50 columns) made the shifted product of
// a 1e5 x 50 chunk as fast as SYRK of the chunk in place (BenchmarkGram),
// where 256 KiB was twice as slow.
const gramBlockBytes = 2 << 20

// mmSyrker is the SYRK of a BLAS: gonum's and OpenBLAS's (through purego).
type mmSyrker interface {
	Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int)
	Ssyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int)
}

// Gram is (x1 - s1)ᵀ(x2 - s2) for 2-D x1 (r×n1) and x2 (r×n2) of one
// float dtype and rows; s1 and s2 are rows of n1 and n2 values of that
// dtype (1-D) or nil for no shift. With x2 nil it is the symmetric
// (x1 - s1)ᵀ(x1 - s1), computed by SYRK and mirrored.
func Gram(x1, s1, x2, s2 *Array) (*Array, error) {
	sym := x2 == nil
	if sym {
		x2, s2 = x1, s1
	}
	if len(x1.shape) != 2 || len(x2.shape) != 2 || x1.shape[0] != x2.shape[0] {
		return nil, fmt.Errorf("gram: operands of shapes %v and %v: want 2-D with the same rows", x1.shape, x2.shape)
	}
	if x1.dtype != x2.dtype || !x1.dtype.IsFloat() {
		return nil, fmt.Errorf("gram: dtypes %v and %v: want one float dtype", x1.dtype, x2.dtype)
	}
	for i, s := range []*Array{s1, s2} {
		n := []int{x1.shape[1], x2.shape[1]}[i]
		if s != nil && (len(s.shape) != 1 || s.shape[0] != n || s.dtype != x1.dtype) {
			return nil, fmt.Errorf("gram: shift %v %v for %d columns of %v", s.shape, s.dtype, n, x1.dtype)
		}
	}
	out, err := New(x1.dtype, x1.shape[1], x2.shape[1])
	if err != nil {
		return nil, err
	}
	impl := mmBLAS.get()
	if x1.dtype == Float64 {
		g := gramKernel[float64]{gemm: impl.Dgemm, get: (*Array).Float64s}
		if sy, ok := impl.(mmSyrker); ok {
			g.syrk = sy.Dsyrk
		}
		g.run(out, x1, s1, x2, s2, sym)
	} else {
		g := gramKernel[float32]{gemm: impl.Sgemm, get: (*Array).Float32s}
		if sy, ok := impl.(mmSyrker); ok {
			g.syrk = sy.Ssyrk
		}
		g.run(out, x1, s1, x2, s2, sym)
	}
	return out, nil
}

type gramKernel[T float32 | float64] struct {
	gemm func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	syrk func(ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, beta T, c []T, ldc int)
	get  func(*Array) []T
}

func (g gramKernel[T]) run(out, x1, s1, x2, s2 *Array, sym bool) {
	// rows indexes the buffer from the first element up: a reversed view
	// (negative stride) is made contiguous first.
	if x1.strides[0] < 0 || x1.strides[1] < 0 {
		x1 = x1.Contiguous()
	}
	if x2.strides[0] < 0 || x2.strides[1] < 0 {
		x2 = x2.Contiguous()
	}
	r, n1, n2 := x1.shape[0], x1.shape[1], x2.shape[1]
	c := g.get(out)
	if r == 0 || n1 == 0 || n2 == 0 {
		return
	}
	if sym && s1 == nil && g.syrk != nil && x1.IsContiguous() {
		// Nothing to shift: SYRK reads x where it is.
		g.syrk(blas.Upper, blas.Trans, n1, r, 1, g.get(x1)[:r*n1], n1, 0, c, n1)
		mirrorUpper(c, n1)
		return
	}
	var elem T
	size := int(unsafe.Sizeof(elem))
	block := max(1, min(r, gramBlockBytes/(size*(n1+n2))))
	w1 := make([]T, block*n1)
	var w2 []T
	if !sym {
		w2 = make([]T, block*n2)
	}
	var sh1, sh2 []T
	if s1 != nil {
		sh1 = g.get(s1.Contiguous())[:n1]
	}
	if s2 != nil {
		sh2 = g.get(s2.Contiguous())[:n2]
	}
	for f := 0; f < r; f += block {
		L := min(block, r-f)
		g.rows(w1[:L*n1], x1, f, L, sh1)
		switch {
		case sym && g.syrk != nil:
			g.syrk(blas.Upper, blas.Trans, n1, L, 1, w1[:L*n1], n1, 1, c, n1)
		case sym:
			g.gemm(blas.Trans, blas.NoTrans, n1, n1, L, 1, w1[:L*n1], n1, w1[:L*n1], n1, 1, c, n1)
		default:
			g.rows(w2[:L*n2], x2, f, L, sh2)
			g.gemm(blas.Trans, blas.NoTrans, n1, n2, L, 1, w1[:L*n1], n1, w2[:L*n2], n2, 1, c, n2)
		}
	}
	if sym && g.syrk != nil {
		mirrorUpper(c, n1)
	}
	runtime.KeepAlive(x1)
	runtime.KeepAlive(x2)
}

// rows copies rows [f, f+L) of the 2-D x into dst (row-major), minus sh
// from each row when sh is not nil.
func (g gramKernel[T]) rows(dst []T, x *Array, f, L int, sh []T) {
	n := x.shape[1]
	st0, st1 := x.strides[0], x.strides[1]
	buf := typed[T](x)
	for i := range L {
		row := dst[i*n : (i+1)*n]
		base := (f + i) * st0
		if st1 == 1 {
			src := buf[base : base+n]
			if sh != nil {
				for j, v := range src {
					row[j] = v - sh[j]
				}
			} else {
				copy(row, src)
			}
			continue
		}
		for j := range row {
			v := buf[base+j*st1]
			if sh != nil {
				v -= sh[j]
			}
			row[j] = v
		}
	}
}

// mirrorUpper copies the upper triangle of the n×n row-major c below it.
func mirrorUpper[T float32 | float64](c []T, n int) {
	for i := range n {
		for j := i + 1; j < n; j++ {
			c[j*n+i] = c[i*n+j]
		}
	}
}
