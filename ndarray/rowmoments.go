package ndarray

// RowMoments merges the per-column moments of x, rows whole rows of k
// float64 values in row-major order, into acc, laid out as Moments lays
// out a partial over axis 0: the count of each column in acc[:k], its mean
// in acc[k:2k] and M2 in acc[2k:3k] (all zero for an empty accumulator).
// The rows' own moments take two passes (sums, then squared deviations
// from their mean), then merge with CombineMoments' formulas (redChan), so the result
// equals CombineMoments of the accumulator and Moments of the rows up to
// rounding. scratch holds at least 2k values.
func RowMoments(acc, x, scratch []float64, rows, k int) {
	if rows <= 0 || k <= 0 {
		return
	}
	cnt, mean, m2 := acc[:k], acc[k:2*k], acc[2*k:3*k]
	tm, tm2 := scratch[:k], scratch[k:2*k]
	clear(tm)
	clear(tm2)
	for r := range rows {
		AddFloat64s(tm, tm, x[r*k:(r+1)*k])
	}
	nb := float64(rows)
	inv := 1 / nb
	for j := range tm {
		tm[j] *= inv
	}
	for r := range rows {
		row := x[r*k : (r+1)*k]
		for j, v := range row {
			d := v - tm[j]
			tm2[j] += d * d
		}
	}
	for j := range k {
		cnt[j], mean[j], m2[j] = redChan(cnt[j], mean[j], m2[j], nb, tm[j], tm2[j])
	}
}
