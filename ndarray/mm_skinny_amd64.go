package ndarray

import "golang.org/x/sys/cpu"

// hasDot4 selects mm_skinny_amd64.s for products with few columns.
var hasDot4 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dot4Rows(out, a *float64, lda, m int, b *float64, k int)

// dot4 is dot4Go in AVX2 (where hasDot4).
func dot4(out, a []float64, lda, m int, b []float64, k int) {
	if m == 0 {
		return
	}
	_, _, _ = out[4*m-1], a[(m-1)*lda+k-1], b[4*k-1]
	dot4Rows(&out[0], &a[0], lda, m, &b[0], k)
}
