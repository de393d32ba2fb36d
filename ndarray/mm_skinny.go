package ndarray

// A product with few columns and many rows, C (m×n) = A (m×k) · B (k×n)
// with n ≤ mmSkinnyMaxN, as a fitted linear model's decision function
// (X · coefᵀ) makes, is done by dot4 instead of BLAS where the machine has
// it: a gemm packs all of A before multiplying it by B's few columns,
// which costs several times reading A once. dot4 reads each row of A once
// per four columns of B, and keeps those four columns in the cache.

// mmSkinnyMaxN is the most columns dot4 takes: it reads A once per four.
const mmSkinnyMaxN = 8

// mmSkinnyMinWork is the least m·k worth it: below it a gemm's packing
// is cheap.
const mmSkinnyMinWork = 1 << 14

// mmSkinnyRows is the rows of a block: its four columns of results stay
// in the first-level cache until they are copied into C.
const mmSkinnyRows = 256

// mmSkinny computes out = a·b + beta·out for float64 matrices with few
// columns when dot4 applies (the rows of a contiguous); whether it did.
func mmSkinny(a, b, out *Array, batch []int, m, k, n int, beta float64) bool {
	nd := a.NDim()
	sa0, sa1, sb0, sb1 := a.strides[nd-2], a.strides[nd-1], b.strides[nd-2], b.strides[nd-1]
	if !hasDot4 || !mmSkinnyFits(m, k, n, sa0, sa1) {
		return false
	}
	A, B, C := typedAll[float64](a), typedAll[float64](b), typedAll[float64](out)
	groups := (n + 3) / 4
	// B's columns as rows, four to a group, the missing ones zero.
	bt := make([]float64, groups*4*k)
	res := make([]float64, 4*mmSkinnyRows)
	mmForBatch(a, b, batch, func(t, ao, bo int) {
		for j := range n {
			row := bt[j*k : (j+1)*k]
			for p := range row {
				row[p] = B[bo+p*sb0+j*sb1]
			}
		}
		c := C[t*m*n : (t+1)*m*n]
		for r0 := 0; r0 < m; r0 += mmSkinnyRows {
			rows := min(mmSkinnyRows, m-r0)
			for g := range groups {
				dot4(res, A[ao+r0*sa0:], sa0, rows, bt[g*4*k:], k)
				j0, j1 := 4*g, min(n, 4*g+4)
				for i := range rows {
					ci := c[(r0+i)*n:]
					ri := res[4*i:]
					for j := j0; j < j1; j++ {
						if beta == 0 {
							ci[j] = ri[j-j0]
						} else {
							ci[j] = ri[j-j0] + beta*ci[j]
						}
					}
				}
			}
		}
	})
	return true
}

// mmSkinnyFits tells whether an m×k·k×n product, a's strides sa0 and sa1,
// is one for dot4.
func mmSkinnyFits(m, k, n, sa0, sa1 int) bool {
	return n >= 1 && n <= mmSkinnyMaxN && k >= 4 && m*k >= mmSkinnyMinWork && sa1 == 1 && sa0 >= k
}

// dot4Go is what dot4 computes: out[4i+j] is the dot product of row i of a
// (k elements at i·lda) and row j of b (k elements at j·k), for i < m and
// j < 4, its sums in dot4's order (four lanes, then the lanes added): the
// two differ only where dot4 fuses a multiply and an add.
func dot4Go(out, a []float64, lda, m int, b []float64, k int) {
	for i := range m {
		row := a[i*lda : i*lda+k]
		for j := range 4 {
			bj := b[j*k : (j+1)*k]
			var lane [4]float64
			for p, x := range row {
				lane[p%4] += x * bj[p]
			}
			out[4*i+j] = (lane[0] + lane[1]) + (lane[2] + lane[3])
		}
	}
}
