//go:build !amd64

package ndarray

// hasDot4 is false: only amd64 has a vector kernel, and BLAS does better
// than dot4Go.
const hasDot4 = false

func dot4(out, a []float64, lda, m int, b []float64, k int) { dot4Go(out, a, lda, m, b, k) }
