package ndarray

import (
	"fmt"
	"math"
)

// NaN-aware reductions (NumPy's nansum, nanprod, nanmin, nanmax, nanmean,
// nanvar, nanstd, nanargmin, nanargmax). Each skips NaN inside its own
// kernel, reading the input once, instead of first writing a copy with the
// NaNs replaced. On integer and bool arrays there is no NaN and they are the
// plain reductions.

// redIsFloat reports whether T is one of the float element types.
func redIsFloat[T redNum]() bool {
	var z T
	switch any(z).(type) {
	case float64, float32:
		return true
	}
	return false
}

// redAccumulateNaN folds the float input in (of element type T) into acc
// with a NaN-skipping kernel.
func redAccumulateNaN[T redNum](op ReduceOp, in []T, p *redPlan, acc *Array) {
	switch op {
	case NanSum:
		redRun(p, redNanSumF[T]{in}, typedAll[float64](acc), redAddF)
	case NanProd:
		switch acc.dtype {
		case Float64:
			redRun(p, redNanProd[T, float64]{in}, typedAll[float64](acc), nil)
		case Float32:
			redRun(p, redNanProd[T, float32]{in}, typedAll[float32](acc), nil)
		}
	case NanMin:
		redRun(p, redNanMin[T]{in}, typedAll[T](acc), nil)
	case NanMax:
		redRun(p, redNanMax[T]{in}, typedAll[T](acc), nil)
	}
}

// redZ is v with NaN replaced by 0, as NumPy's nansum replaces it before
// summing.
func redZ[T redNum](v T) float64 {
	if v != v {
		return 0
	}
	return float64(v)
}

// redNanSumF is redSumF with NaN read as 0: the same pairwise blocks, so a
// NaN-free input sums exactly as Sum does.
type redNanSumF[T redNum] struct{ in []T }

func (k redNanSumF[T]) run(acc float64, io, n, is, _ int) float64 {
	s, _ := redPairwiseNaN(k.in, io, n, is)
	return acc + s
}

func (k redNanSumF[T]) row(acc []float64, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		acc[ao+i*as] += redZ(k.in[io+i*is])
	}
}

// redPairwiseNaN is the pairwise sum of the numbers among n elements from
// io (stride is), and how many numbers there were.
func redPairwiseNaN[T redNum](in []T, io, n, is int) (float64, int) {
	if is == 1 {
		if f, ok := any(in).([]float64); ok {
			return redPairwiseNaNF64(f[io : io+n])
		}
	}
	switch {
	case n < 8:
		var r float64
		c := 0
		for i := 0; i < n; i++ {
			if v := in[io+i*is]; v == v {
				r += float64(v)
				c++
			}
		}
		return r, c
	case n <= 128:
		var r [8]float64
		c := 0
		i := 0
		for ; i+8 <= n; i += 8 {
			o := io + i*is
			for j := range r {
				if v := in[o+j*is]; v == v {
					r[j] += float64(v)
					c++
				}
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			if v := in[io+i*is]; v == v {
				res += float64(v)
				c++
			}
		}
		return res, c
	}
	n2 := n / 2
	n2 -= n2 % 8
	s1, c1 := redPairwiseNaN(in, io, n2, is)
	s2, c2 := redPairwiseNaN(in, io+n2*is, n-n2, is)
	return s1 + s2, c1 + c2
}

// redNaNZero is x, or +0 for NaN, and 1 for a number, 0 for NaN: without
// a branch, since NaN in real data is too irregular to predict.
func redNaNZero(x float64) (float64, uint64) {
	m := redNumMask(x)
	return math.Float64frombits(math.Float64bits(x) & m), m & 1
}

// redNumMask is all ones for a number and 0 for NaN (whose magnitude bits
// are above +Inf's).
func redNumMask(x float64) uint64 {
	return uint64(int64((math.Float64bits(x)&^(1<<63))-0x7ff0000000000001) >> 63)
}

// redNaNDev is x - m, or +0 where x is NaN. Only x's own NaN is dropped: a
// NaN from inf - inf stays, as in NumPy's nanvar.
func redNaNDev(x, m float64) float64 {
	return math.Float64frombits(math.Float64bits(x-m) & redNumMask(x))
}

// redPairwiseNaNF64 is redPairwiseNaN of a contiguous float64 run. Adding
// +0 for a NaN is NumPy's nansum exactly (it replaces NaN by 0 and adds).
func redPairwiseNaNF64(s []float64) (float64, int) {
	n := len(s)
	if n > 128 {
		n2 := n / 2
		n2 -= n2 % 8
		a, ca := redPairwiseNaNF64(s[:n2])
		b, cb := redPairwiseNaNF64(s[n2:])
		return a + b, ca + cb
	}
	if n < 8 {
		var r float64
		var c uint64
		for _, v := range s {
			x, k := redNaNZero(v)
			r += x
			c += k
		}
		return r, int(c)
	}
	var r0, r1, r2, r3, r4, r5, r6, r7 float64
	var c uint64
	i := 0
	for ; i+8 <= n; i += 8 {
		b := s[i : i+8 : i+8]
		x0, c0 := redNaNZero(b[0])
		x1, c1 := redNaNZero(b[1])
		x2, c2 := redNaNZero(b[2])
		x3, c3 := redNaNZero(b[3])
		x4, c4 := redNaNZero(b[4])
		x5, c5 := redNaNZero(b[5])
		x6, c6 := redNaNZero(b[6])
		x7, c7 := redNaNZero(b[7])
		r0 += x0
		r1 += x1
		r2 += x2
		r3 += x3
		r4 += x4
		r5 += x5
		r6 += x6
		r7 += x7
		c += c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7
	}
	r := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
	for ; i < n; i++ {
		x, k := redNaNZero(s[i])
		r += x
		c += k
	}
	return r, int(c)
}

// NanSumFloat64s is the pairwise sum of the numbers of s (NaN read as 0),
// as Reduce(NanSum) adds a contiguous run; fused kernels sum tiles with it.
func NanSumFloat64s(s []float64) float64 {
	r, _ := redPairwiseNaN(s, 0, len(s), 1)
	return r
}

// redNanSumCount is redNanSumF that also counts the numbers, straight into
// the output's count row (at shift from the sums): counts are exact, so
// they need none of the pairwise temporaries the sums go through.
type redNanSumCount[T redNum] struct {
	in    []T
	cnt   []float64
	shift int
}

func (k redNanSumCount[T]) run(acc float64, io, n, is, ro int) float64 {
	s, c := redPairwiseNaN(k.in, io, n, is)
	k.cnt[ro+k.shift] += float64(c)
	return acc + s
}

func (k redNanSumCount[T]) row(acc []float64, ao, as, io, n, is, ro, rs int) {
	for i := 0; i < n; i++ {
		if v := k.in[io+i*is]; v == v {
			acc[ao+i*as] += float64(v)
			k.cnt[ro+k.shift+i*rs]++
		}
	}
}

// redNanProd multiplies sequentially, NaN read as 1.
type redNanProd[T redNum, A float64 | float32] struct{ in []T }

func (k redNanProd[T, A]) run(acc A, io, n, is, _ int) A {
	for i := 0; i < n; i++ {
		if v := k.in[io+i*is]; v == v {
			acc *= A(v)
		}
	}
	return acc
}

func (k redNanProd[T, A]) row(acc []A, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		if v := k.in[io+i*is]; v == v {
			acc[ao+i*as] *= A(v)
		}
	}
}

// redNanMin is NumPy's fmin.reduce: a NaN accumulator (nothing seen yet)
// takes any number, a NaN element changes nothing.
type redNanMin[T redNum] struct{ in []T }

func (k redNanMin[T]) run(acc T, io, n, is, _ int) T {
	if is == 1 && redIsFloat[T]() {
		return redNanExtRun(false, acc, k.in[io:io+n])
	}
	for i := 0; i < n; i++ {
		if v := k.in[io+i*is]; v < acc || acc != acc {
			acc = v
		}
	}
	return acc
}

func (k redNanMin[T]) row(acc []T, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		if v, b := k.in[io+i*is], acc[ao+i*as]; v < b || b != b {
			acc[ao+i*as] = v
		}
	}
}

type redNanMax[T redNum] struct{ in []T }

func (k redNanMax[T]) run(acc T, io, n, is, _ int) T {
	if is == 1 && redIsFloat[T]() {
		return redNanExtRun(true, acc, k.in[io:io+n])
	}
	for i := 0; i < n; i++ {
		if v := k.in[io+i*is]; v > acc || acc != acc {
			acc = v
		}
	}
	return acc
}

func (k redNanMax[T]) row(acc []T, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		if v, b := k.in[io+i*is], acc[ao+i*as]; v > b || b != b {
			acc[ao+i*as] = v
		}
	}
}

// redNanExtRun folds a contiguous float run into a nanmin (isMax false)
// or nanmax accumulator. Four lanes start at the far infinity, which a NaN
// never replaces (its comparisons are false), so the loop has no NaN test;
// only a lane result still at that infinity needs a second look, to tell
// NaN-only data (acc unchanged) from infinite numbers.
func redNanExtRun[T redNum](isMax bool, acc T, s []T) T {
	far := redArgWorst[T](isMax)
	m0, m1, m2, m3 := far, far, far, far
	i := 0
	if isMax {
		for ; i+4 <= len(s); i += 4 {
			b := s[i : i+4 : i+4]
			if b[0] > m0 {
				m0 = b[0]
			}
			if b[1] > m1 {
				m1 = b[1]
			}
			if b[2] > m2 {
				m2 = b[2]
			}
			if b[3] > m3 {
				m3 = b[3]
			}
		}
		for ; i < len(s); i++ {
			if s[i] > m0 {
				m0 = s[i]
			}
		}
		m0 = max(m0, m1, m2, m3)
	} else {
		for ; i+4 <= len(s); i += 4 {
			b := s[i : i+4 : i+4]
			if b[0] < m0 {
				m0 = b[0]
			}
			if b[1] < m1 {
				m1 = b[1]
			}
			if b[2] < m2 {
				m2 = b[2]
			}
			if b[3] < m3 {
				m3 = b[3]
			}
		}
		for ; i < len(s); i++ {
			if s[i] < m0 {
				m0 = s[i]
			}
		}
		m0 = min(m0, m1, m2, m3)
	}
	if m0 == far {
		num := false
		for _, v := range s {
			if v == v {
				num = true
				break
			}
		}
		if !num {
			return acc
		}
	}
	if acc != acc || (isMax && m0 > acc) || (!isMax && m0 < acc) {
		return m0
	}
	return acc
}

// ---- nanmean, nanvar, nanstd ----

// NanMoments is Moments over the non-NaN elements: per output position the
// count of numbers, their mean and M2, in the same [3, keepdims shape...]
// layout, so CombineMoments merges its partials. As NumPy's nanvar, it sums
// the numbers pairwise, divides by their count, then sums the squared
// deviations of the numbers pairwise. Integer and bool arrays have no NaN:
// their partial is Moments'.
func NanMoments(a *Array, axes []int) (*Array, error) {
	if a == nil || !a.dtype.Valid() {
		return nil, fmt.Errorf("ndarray: nan moments: nil or invalid array")
	}
	a = single(a)
	if !a.dtype.IsFloat() {
		return Moments(a, axes)
	}
	red, err := redAxesMask("nan moments", a.shape, axes)
	if err != nil {
		return nil, err
	}
	keep, count := redKeepShape(a.shape, red)
	m := Size(keep)
	out := newArray(Float64, append([]int{3}, keep...))
	if count == 0 || m == 0 {
		return out, nil // count 0, mean 0, M2 0: the identity of CombineMoments
	}
	all := typedAll[float64](out)
	mean := redView(Float64, keep, out.buf, m)
	m2 := redView(Float64, keep, out.buf, 2*m)
	switch a.dtype {
	case Float64:
		redNanMomentsT[float64](a, red, mean, m2, all, m)
	case Float32:
		redNanMomentsT[float32](a, red, mean, m2, all, m)
	}
	return out, nil
}

func redNanMomentsT[T float64 | float32](a *Array, red []bool, mean, m2 *Array, all []float64, m int) {
	in := typedAll[T](a)
	redRun(newRedPlan(a, red, mean), redNanSumCount[T]{in, all, -m}, all, redAddF)
	for i := 0; i < m; i++ {
		if n := all[i]; n > 0 {
			all[m+i] /= n
		}
	}
	redRun(newRedPlan(a, red, m2), redNanDevSq[T]{in, all, -m}, all, redAddF)
}

// redNanDevSq is redDevSq over the numbers: a NaN adds 0, as NumPy's nanvar
// leaves the replaced zeros out of its subtraction.
type redNanDevSq[T redNum] struct {
	in    []T
	mean  []float64
	shift int
}

func (k redNanDevSq[T]) run(acc float64, io, n, is, ro int) float64 {
	return acc + redPairwiseNaNDev(k.in, io, n, is, k.mean[ro+k.shift])
}

func (k redNanDevSq[T]) row(acc []float64, ao, as, io, n, is, ro, rs int) {
	for i := 0; i < n; i++ {
		if v := k.in[io+i*is]; v == v {
			d := float64(v) - k.mean[ro+k.shift+i*rs]
			acc[ao+i*as] += d * d
		}
	}
}

func redNanDev[T redNum](v T, m float64) float64 {
	if v != v {
		return 0
	}
	d := float64(v) - m
	return d * d
}

func redPairwiseNaNDev[T redNum](in []T, io, n, is int, m float64) float64 {
	if is == 1 {
		if f, ok := any(in).([]float64); ok {
			return redPairwiseNaNDevF64(f[io:io+n], m)
		}
	}
	switch {
	case n < 8:
		var r float64
		for i := 0; i < n; i++ {
			r += redNanDev(in[io+i*is], m)
		}
		return r
	case n <= 128:
		var r [8]float64
		i := 0
		for ; i+8 <= n; i += 8 {
			o := io + i*is
			for j := range r {
				r[j] += redNanDev(in[o+j*is], m)
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += redNanDev(in[io+i*is], m)
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return redPairwiseNaNDev(in, io, n2, is, m) + redPairwiseNaNDev(in, io+n2*is, n-n2, is, m)
}

// redPairwiseNaNDevF64 is redPairwiseNaNDev of a contiguous float64 run,
// without a branch per element.
func redPairwiseNaNDevF64(s []float64, m float64) float64 {
	n := len(s)
	if n > 128 {
		n2 := n / 2
		n2 -= n2 % 8
		return redPairwiseNaNDevF64(s[:n2], m) + redPairwiseNaNDevF64(s[n2:], m)
	}
	var r0, r1, r2, r3, r4, r5, r6, r7 float64
	i := 0
	for ; i+8 <= n; i += 8 {
		b := s[i : i+8 : i+8]
		d0 := redNaNDev(b[0], m)
		d1 := redNaNDev(b[1], m)
		d2 := redNaNDev(b[2], m)
		d3 := redNaNDev(b[3], m)
		d4 := redNaNDev(b[4], m)
		d5 := redNaNDev(b[5], m)
		d6 := redNaNDev(b[6], m)
		d7 := redNaNDev(b[7], m)
		r0 += d0 * d0
		r1 += d1 * d1
		r2 += d2 * d2
		r3 += d3 * d3
		r4 += d4 * d4
		r5 += d5 * d5
		r6 += d6 * d6
		r7 += d7 * d7
	}
	r := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
	for ; i < n; i++ {
		d := redNaNDev(s[i], m)
		r += d * d
	}
	return r
}

// FinishNanMoments is FinishMoments for nanmean, nanvar and nanstd: as in
// NumPy, the mean of no numbers is NaN and so is the variance wherever
// count-ddof <= 0 (where FinishMoments gives +Inf or NaN from a division
// by zero).
func FinishNanMoments(m *Array, stat MomentStat, ddof int) (*Array, error) {
	out, err := FinishMoments(m, stat, ddof)
	if err != nil || stat == StatMean {
		return out, err
	}
	d := redContigF64(m)
	o := typedAll[float64](out)
	for i := range o[:out.Size()] {
		if d[i]-float64(ddof) <= 0 {
			o[i] = math.NaN()
		}
	}
	return out, nil
}

// ---- nanargmin, nanargmax ----

// NanArgPartial is ArgPartial for nanargmin (isMax false) and nanargmax, in
// one pass: NaN competes as +Inf (nanargmin) or -Inf (nanargmax), which is
// how NumPy computes them, and a third row (after the value and the global
// index) is 1 where the lane holds a number, 0 where it is all NaN, so the
// finish can refuse all-NaN lanes as NumPy does. Integer and bool arrays
// have no NaN: the plain partial with the third row all 1.
func NanArgPartial(isMax bool, a *Array, axis int, globalShape, chunkOffset []int) (*Array, error) {
	if a != nil {
		a = single(a) // float16 values are exact in float32
	}
	if a == nil || !a.dtype.Valid() || !a.dtype.IsFloat() {
		p, err := ArgPartial(isMax, a, axis, globalShape, chunkOffset)
		if err != nil {
			return nil, err
		}
		return redAppendSeen(p, nil), nil
	}
	// The same scan as ArgPartial over a view that maps NaN: done by the
	// generic kernels with the nan flag, so no copy of the chunk is made.
	p, seen, err := argPartial(isMax, true, a, axis, globalShape, chunkOffset)
	if err != nil {
		return nil, err
	}
	return redAppendSeen(p, seen), nil
}

// redAppendSeen stacks the seen row under an ArgPartial partial [2, ...],
// giving [3, ...]; nil seen means every lane holds a number.
func redAppendSeen(p *Array, seen []float64) *Array {
	shape := append([]int{3}, p.shape[1:]...)
	out := newArray(Float64, shape)
	o := typedAll[float64](out)
	d := redContigF64(p)
	copy(o, d)
	m := len(d) / 2
	if seen == nil {
		redFill(o[2*m:3*m], 1)
	} else {
		copy(o[2*m:3*m], seen)
	}
	return out
}

// CombineNanArg merges NanArgPartial partials: the first two rows as
// CombineArg does (no NaN is left in them), the seen rows or-ed.
func CombineNanArg(isMax bool, parts []*Array) (*Array, error) {
	name := "combine nan" + redArgName(isMax)
	if err := redCheckStacked(name, parts, 3); err != nil {
		return nil, err
	}
	out := newArray(Float64, parts[0].shape)
	o := typedAll[float64](out)
	m := len(o) / 3
	for i := range m {
		o[m+i] = -1
	}
	for _, p := range parts {
		d := redContigF64(p)
		redArgMerge(isMax, o[:2*m], d[:2*m], m)
		for i := 0; i < m; i++ {
			o[2*m+i] = max(o[2*m+i], d[2*m+i])
		}
	}
	return out, nil
}

// AllNaNError is the error of nanargmin and nanargmax over a lane of NaNs
// only (NumPy's ValueError "All-NaN slice encountered").
type AllNaNError struct {
	Func string // nanargmin or nanargmax
}

func (e *AllNaNError) Error() string {
	return fmt.Sprintf("ndarray: %s: All-NaN slice encountered", e.Func)
}

// FinishNanArg extracts the int64 indices of a NanArgPartial/CombineNanArg
// partial, or an *AllNaNError when a lane had no number.
func FinishNanArg(isMax bool, p *Array) (*Array, error) {
	if err := redCheckStacked("finish nan"+redArgName(isMax), []*Array{p}, 3); err != nil {
		return nil, err
	}
	d := redContigF64(p)
	m := len(d) / 3
	for _, s := range d[2*m:] {
		if s == 0 {
			return nil, &AllNaNError{Func: "nan" + redArgName(isMax)}
		}
	}
	out := newArray(Int64, p.shape[1:])
	o := typedAll[int64](out)
	for i := range o[:m] {
		o[i] = int64(d[m+i])
	}
	return out, nil
}
