package ndarray

// rowBlock is how many rows RowMoments sums into a block's partial before
// adding it to the total: rounding then grows with rowBlock + rows/rowBlock
// instead of rows, near a pairwise sum's.
const rowBlock = 64

// RowMoments merges the per-column moments of x, rows whole rows of k
// float64 values in row-major order, into acc, laid out as Moments lays
// out a partial over axis 0: the count of each column in acc[:k], its mean
// in acc[k:2k] and M2 in acc[2k:3k] (all zero for an empty accumulator).
// The rows' own moments take two passes (sums, then squared deviations
// from their mean), each summed in blocks of rowBlock rows, then merge
// with CombineMoments' formulas (redChan), so the result equals
// CombineMoments of the accumulator and Moments of the rows up to
// rounding. scratch holds at least 4k values.
func RowMoments(acc, x, scratch []float64, rows, k int) {
	if rows <= 0 || k <= 0 {
		return
	}
	cnt, mean, m2 := acc[:k], acc[k:2*k], acc[2*k:3*k]
	tm, tm2, blk, dev := scratch[:k], scratch[k:2*k], scratch[2*k:3*k], scratch[3*k:4*k]
	clear(tm)
	clear(tm2)
	for r0 := 0; r0 < rows; r0 += rowBlock {
		clear(blk)
		for r := r0; r < min(rows, r0+rowBlock); r++ {
			AddFloat64s(blk, blk, x[r*k:(r+1)*k])
		}
		AddFloat64s(tm, tm, blk)
	}
	nb := float64(rows)
	for j := range tm {
		tm[j] /= nb // divided, not multiplied by 1/nb: one rounding, as Moments' mean
	}
	sub, okS := vecKernel64(Sub)
	mul, okM := vecKernel64(Mul)
	add, okA := vecKernel64(Add)
	vec := okS && okM && okA
	for r0 := 0; r0 < rows; r0 += rowBlock {
		clear(blk)
		for r := r0; r < min(rows, r0+rowBlock); r++ {
			row := x[r*k : (r+1)*k]
			if vec {
				// The same roundings as the loop below: d = v - mean, d*d,
				// then the sum, each rounded once.
				sub.vv(dev, row, tm)
				mul.vv(dev, dev, dev)
				add.vv(blk, blk, dev)
				continue
			}
			for j, v := range row {
				d := v - tm[j]
				blk[j] += d * d
			}
		}
		AddFloat64s(tm2, tm2, blk)
	}
	for j := range k {
		cnt[j], mean[j], m2[j] = redChan(cnt[j], mean[j], m2[j], nb, tm[j], tm2[j])
	}
}
