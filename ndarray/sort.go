package ndarray

import (
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// Sorting by order-preserving unsigned keys: every value maps to a key
// whose unsigned order is NumPy's sort order (NaNs last; -0.0 before 0.0,
// which NumPy leaves in either order), so one radix sort serves every
// dtype and keys compare across chunks (the distributed sort's samples and
// pivots are keys). Keys map back to the values exactly, but for NaN's
// payload: every NaN comes back as the one NaN.

// SortKey is the order key of element i of the contiguous a.
func sortKeyAt(a *Array, i int) uint64 {
	switch a.dtype {
	case Float64:
		return key64(typed[float64](a)[i])
	case Float32:
		return key32(typed[float32](a)[i])
	case Int64:
		return uint64(typed[int64](a)[i]) ^ 1<<63
	case Int32:
		return uint64(uint32(typed[int32](a)[i]) ^ 1<<31)
	case Int16:
		return intKey(typed[int16](a)[i])
	case Int8:
		return intKey(typed[int8](a)[i])
	case Uint64:
		return typed[uint64](a)[i]
	case Uint32:
		return uint64(typed[uint32](a)[i])
	case Uint16:
		return uint64(typed[uint16](a)[i])
	case Uint8:
		return uint64(typed[uint8](a)[i])
	case Bool:
		return uint64(a.buf[a.offset+i] & 1)
	}
	return 0
}

// intKey is the order key of an integer: an unsigned value is its own key;
// a signed one is its 32-bit (64-bit for int64) two's complement with the
// sign bit flipped, as the int32 and int64 keys are.
func intKey[T ewInt](v T) uint64 {
	if ^T(0) > 0 {
		return uint64(v)
	}
	if unsafe.Sizeof(v) == 8 {
		return uint64(v) ^ 1<<63
	}
	return uint64(uint32(int32(v)) ^ 1<<31)
}

// intFromKey is the integer of type T whose key is k.
func intFromKey[T ewInt](k uint64) T {
	if ^T(0) > 0 {
		return T(k)
	}
	if unsafe.Sizeof(T(0)) == 8 {
		return T(k ^ 1<<63)
	}
	return T(int32(uint32(k) ^ 1<<31))
}

// countingSort sorts the small integers of xs by counting each key.
func countingSort[T int8 | int16 | uint8 | uint16](xs []T) {
	var z T
	counts := make([]int, 1<<(8*unsafe.Sizeof(z)))
	lo, _ := intLimits[T]()
	off := intKey(lo) // the smallest key
	for _, x := range xs {
		counts[intKey(x)-off]++
	}
	i := 0
	for k, c := range counts {
		v := intFromKey[T](uint64(k) + off)
		for range c {
			xs[i] = v
			i++
		}
	}
}

func key64(v float64) uint64 {
	if v != v {
		return math.MaxUint64
	}
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func key32(v float32) uint64 {
	if v != v {
		return math.MaxUint32
	}
	b := math.Float32bits(v)
	if b>>31 != 0 {
		return uint64(^b)
	}
	return uint64(b | 1<<31)
}

// Sort1D is numpy.sort of a 1-D array (a copy; NaNs last).
func Sort1D(a *Array) (*Array, error) {
	if a.NDim() != 1 {
		return nil, fmt.Errorf("ndarray: sort: %d-D array, want 1-D", a.NDim())
	}
	out := a.Copy()
	sortInPlace(out)
	return out, nil
}

// SortAxis is numpy.sort(a, axis): every lane along axis sorted (a copy).
func SortAxis(a *Array, axis int) (*Array, error) {
	c, inv, err := axisLastCopy(a, axis)
	if err != nil {
		return nil, fmt.Errorf("ndarray: sort: %w", err)
	}
	forLanes(c, func(lane *Array, _ int) { sortInPlace(lane) })
	return axisBack(c, inv)
}

// axisLastCopy is a contiguous copy of a with axis moved last, so that its
// lanes along axis are contiguous, and the permutation that moves it back.
func axisLastCopy(a *Array, axis int) (c *Array, inv []int, err error) {
	ax, err := NormAxis(axis, a.NDim())
	if err != nil {
		return nil, nil, err
	}
	nd := a.NDim()
	perm := make([]int, 0, nd)
	for i := range nd {
		if i != ax {
			perm = append(perm, i)
		}
	}
	perm = append(perm, ax)
	t, err := a.Transpose(perm...)
	if err != nil {
		return nil, nil, err
	}
	inv = make([]int, nd)
	for i, p := range perm {
		inv[p] = i
	}
	return t.Copy(), inv, nil
}

// forLanes calls fn with every lane (last axis) of the contiguous c as a
// 1-D view, and its number.
func forLanes(c *Array, fn func(lane *Array, l int)) {
	n := c.shape[c.NDim()-1]
	if n == 0 {
		return
	}
	for l := range c.Size() / n {
		lane := c.view([]int{n}, []int{1}, c.offset+l*n)
		fn(lane, l)
	}
}

// axisBack is the contiguous x (laid out by axisLastCopy) with its axes
// moved back by inv.
func axisBack(x *Array, inv []int) (*Array, error) {
	back, err := x.Transpose(inv...)
	if err != nil {
		return nil, err
	}
	return back.Copy(), nil
}

// sortInPlace sorts the contiguous 1-D a: its elements become their
// order keys in place, a radix sort orders the keys, and they become
// elements again (scratch: one buffer of the keys' size).
func sortInPlace(a *Array) {
	n := a.Size()
	if n < 2 {
		return
	}
	switch a.dtype {
	case Complex64:
		slices.SortStableFunc(typed[complex64](a)[:n], func(x, y complex64) int { return cSortCmp(complex128(x), complex128(y)) })
		return
	case Complex128:
		slices.SortStableFunc(typed[complex128](a)[:n], cSortCmp)
		return
	case Float64:
		k := typed[uint64](a)[:n]
		for i, b := range k {
			k[i] = key64(math.Float64frombits(b))
		}
		radixSort(k)
		for i, x := range k {
			k[i] = math.Float64bits(fromKey64(x))
		}
	case Int64:
		k := typed[uint64](a)[:n]
		for i := range k {
			k[i] ^= 1 << 63
		}
		radixSort(k)
		for i := range k {
			k[i] ^= 1 << 63
		}
	case Float32:
		k := typed[uint32](a)[:n]
		for i, b := range k {
			k[i] = uint32(key32(math.Float32frombits(b)))
		}
		radixSort(k)
		for i, x := range k {
			k[i] = math.Float32bits(fromKey32(uint64(x)))
		}
	case Int32:
		k := typed[uint32](a)[:n]
		for i := range k {
			k[i] ^= 1 << 31
		}
		radixSort(k)
		for i := range k {
			k[i] ^= 1 << 31
		}
	case Uint64:
		radixSort(typed[uint64](a)[:n])
	case Uint32:
		radixSort(typed[uint32](a)[:n])
	case Int16:
		countingSort(typed[int16](a)[:n])
	case Int8:
		countingSort(typed[int8](a)[:n])
	case Uint16:
		countingSort(typed[uint16](a)[:n])
	case Uint8:
		countingSort(typed[uint8](a)[:n])
	case Bool:
		b := a.buf[a.offset : a.offset+n]
		ones := 0
		for _, x := range b {
			ones += int(x & 1)
		}
		for i := range b {
			b[i] = 0
			if i >= n-ones {
				b[i] = 1
			}
		}
	}
}

const radixBits = 11

// radixSort sorts keys: an LSD radix sort, 11 bits a pass (a pass's
// histogram, 16 KiB, stays in L1 while it is counted), passes whose digit
// is the same for every key skipped. Small inputs use a comparison sort.
func radixSort[K uint32 | uint64](keys []K) {
	if len(keys) < 256 {
		slices.Sort(keys)
		return
	}
	var or, and K = 0, ^K(0)
	for _, k := range keys {
		or |= k
		and &= k
	}
	tmp := make([]K, len(keys))
	src, dst := keys, tmp
	var count [1 << radixBits]int
	width := uint(unsafe.Sizeof(K(0))) * 8
	for shift := uint(0); shift < width; shift += radixBits {
		if (or^and)>>shift&(1<<radixBits-1) == 0 {
			continue // every key has this digit
		}
		clear(count[:])
		for _, k := range src {
			count[k>>shift&(1<<radixBits-1)]++
		}
		sum := 0
		for i, n := range count {
			count[i] = sum
			sum += n
		}
		for _, k := range src {
			d := k >> shift & (1<<radixBits - 1)
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// fromKey64 inverts key64 (NaN keys give NaN, the zero key +0.0).
func fromKey64(k uint64) float64 {
	if k == math.MaxUint64 {
		return math.NaN()
	}
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

func fromKey32(k uint64) float32 {
	if k == math.MaxUint32 {
		return float32(math.NaN())
	}
	b := uint32(k)
	if b>>31 != 0 {
		return math.Float32frombits(b &^ (1 << 31))
	}
	return math.Float32frombits(^b)
}

// SortSamples are s regular samples of the sorted 1-D chunk a, the chunk's
// number in a larger array being chunk: rows (key, chunk, position), the
// total order of the distributed sort (equal keys ordered by chunk, then
// by position within it), as an (m, 3) int64 array.
func SortSamples(a *Array, chunk, s int) *Array {
	n := a.Size()
	c := a.Contiguous()
	m := min(n, s)
	out := newArray(Int64, []int{m, 3})
	o := typed[int64](out)
	for t := range m {
		j := int((int64(t)*2 + 1) * int64(n) / int64(2*m))
		o[3*t], o[3*t+1], o[3*t+2] = int64(sortKeyAt(c, j)), int64(chunk), int64(j)
	}
	return out
}

// SortPivots picks parts-1 pivots from the samples of every chunk (rows
// of SortSamples, concatenated): the samples in the total order, one every
// len/parts. The result is (parts-1, 3) int64.
func SortPivots(samples []*Array, parts int) (*Array, error) {
	var rows [][3]int64
	for _, s := range samples {
		if s.dtype != Int64 || s.NDim() != 2 || s.shape[1] != 3 {
			return nil, fmt.Errorf("ndarray: sort pivots: samples %v%v, want (m, 3) int64", s.dtype, s.shape)
		}
		c := s.Contiguous()
		v := typed[int64](c)
		for i := range s.shape[0] {
			rows = append(rows, [3]int64{v[3*i], v[3*i+1], v[3*i+2]})
		}
	}
	slices.SortFunc(rows, cmpRow)
	out := newArray(Int64, []int{max(parts-1, 0), 3})
	o := typed[int64](out)
	for b := 1; b < parts; b++ {
		r := [3]int64{math.MaxInt64, math.MaxInt64, math.MaxInt64} // no samples: everything goes below
		if len(rows) > 0 {
			r = rows[min(len(rows)-1, b*len(rows)/parts)]
		}
		copy(o[3*(b-1):], r[:])
	}
	return out, nil
}

func cmpRow(a, b [3]int64) int {
	if c := cmpKey(a[0], b[0]); c != 0 {
		return c
	}
	if a[1] != b[1] {
		return cmpInt(a[1], b[1])
	}
	return cmpInt(a[2], b[2])
}

func cmpKey(a, b int64) int {
	ua, ub := uint64(a), uint64(b)
	switch {
	case ua < ub:
		return -1
	case ua > ub:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SortBounds splits the sorted 1-D chunk a (number chunk) at the pivots:
// len(pivots)+2 positions, 0 first and len(a) last, the b-th part holding
// the elements between pivot b-1 and pivot b in the total order (an
// element equal to a pivot goes to the part above it).
func SortBounds(a, pivots *Array, chunk int) (*Array, error) {
	if pivots.dtype != Int64 || pivots.NDim() != 2 || pivots.shape[1] != 3 {
		return nil, fmt.Errorf("ndarray: sort bounds: pivots %v%v, want (m, 3) int64", pivots.dtype, pivots.shape)
	}
	c := a.Contiguous()
	n := c.Size()
	p := typed[int64](pivots.Contiguous())
	m := pivots.shape[0]
	out := newArray(Int64, []int{m + 2})
	o := typed[int64](out)
	o[m+1] = int64(n)
	lo := 0
	for b := range m {
		key, pc, pj := uint64(p[3*b]), p[3*b+1], p[3*b+2]
		// Elements with a smaller key go below, as do equal keys of an
		// earlier chunk, or of this chunk before position pj.
		below := lo + searchKey(c, lo, n, key, sortKeyAt)
		if int64(chunk) < pc {
			below = lo + searchKeyAbove(c, lo, n, key, sortKeyAt)
		} else if int64(chunk) == pc {
			end := lo + searchKeyAbove(c, lo, n, key, sortKeyAt)
			below = min(max(below, int(pj)), end)
		}
		o[b+1] = int64(below)
		lo = below
	}
	return out, nil
}

// searchKey is the number of elements of a[lo:n] with a key below k.
func searchKey(a *Array, lo, n int, k uint64, keyAt func(*Array, int) uint64) int {
	i, j := lo, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if keyAt(a, h) < k {
			i = h + 1
		} else {
			j = h
		}
	}
	return i - lo
}

// searchKeyAbove is the number of elements of a[lo:n] with a key at most k.
func searchKeyAbove(a *Array, lo, n int, k uint64, keyAt func(*Array, int) uint64) int {
	i, j := lo, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if keyAt(a, h) <= k {
			i = h + 1
		} else {
			j = h
		}
	}
	return i - lo
}

// MergeSorted merges sorted 1-D arrays of one dtype into one sorted array
// (by one radix sort of their concatenation, which in Go is faster than a
// heap merge of many runs).
func MergeSorted(parts []*Array) (*Array, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("ndarray: merge: no arrays")
	}
	dt := parts[0].dtype
	total := 0
	for _, p := range parts {
		if p.dtype != dt || p.NDim() != 1 {
			return nil, fmt.Errorf("ndarray: merge: %v%v among %v arrays", p.dtype, p.shape, dt)
		}
		total += p.Size()
	}
	out := newArray(dt, []int{total})
	isz := dt.Size()
	o := 0
	for _, p := range parts {
		n := p.Size()
		if n == 0 {
			continue
		}
		c := p.Contiguous()
		copy(out.buf[o*isz:(o+n)*isz], c.buf[c.offset*isz:(c.offset+n)*isz])
		o += n
	}
	sortInPlace(out)
	return out, nil
}

// SearchCount counts, for every element of v, the elements of the sorted
// 1-D a below it (right: at most it) in the sort order (NaNs last): the
// part of numpy.searchsorted(a, v, side) that a holds, when a is a chunk
// of the sorted array. The result has v's shape, int64.
func SearchCount(a, v *Array, right bool) (*Array, error) {
	if a.NDim() != 1 {
		return nil, fmt.Errorf("ndarray: searchsorted: a of %d dimensions, want 1", a.NDim())
	}
	if a.dtype != v.dtype {
		return nil, fmt.Errorf("ndarray: searchsorted: a of %v and v of %v", a.dtype, v.dtype)
	}
	ac, vc := a.Contiguous(), v.Contiguous()
	n := ac.Size()
	out := newArray(Int64, v.shape)
	o := typed[int64](out)
	if n == 0 {
		return out, nil
	}
	// An element outside a's range counts none or all of a without a
	// search: a's chunks of a larger sorted array mostly lie beside it.
	first, last := valueKeyAt(ac, 0), valueKeyAt(ac, n-1)
	for i := range vc.Size() {
		k := valueKeyAt(vc, i)
		switch {
		case right && k < first, !right && k <= first:
			o[i] = 0
		case right && k >= last, !right && k > last:
			o[i] = int64(n)
		case right:
			o[i] = int64(searchKeyAbove(ac, 0, n, k, valueKeyAt))
		default:
			o[i] = int64(searchKey(ac, 0, n, k, valueKeyAt))
		}
	}
	return out, nil
}

// valueKeyAt is sortKeyAt with -0.0 keyed as 0.0: the order of values,
// in which the zeros are equal (NumPy's searchsorted and isin), where the
// sort order keeps them apart. A sorted array stays sorted under it, as
// nothing lies between the two zeros.
func valueKeyAt(a *Array, i int) uint64 {
	k := sortKeyAt(a, i)
	switch a.dtype {
	case Float64:
		if k == negZeroKey64 {
			return negZeroKey64 + 1
		}
	case Float32:
		if k == negZeroKey32 {
			return negZeroKey32 + 1
		}
	}
	return k
}

// The keys of -0.0 (key64 and key32: the complemented bits), one below
// those of 0.0.
const (
	negZeroKey64 = 1<<63 - 1
	negZeroKey32 = 1<<31 - 1
)

// keyToElement writes the element whose order key is k at element i of
// out (of out's dtype).
func keyToElement(out *Array, i int, k uint64) {
	switch out.dtype {
	case Float64:
		typed[float64](out)[i] = fromKey64(k)
	case Float32:
		typed[float32](out)[i] = fromKey32(k)
	case Int64:
		typed[int64](out)[i] = int64(k ^ 1<<63)
	case Int32:
		typed[int32](out)[i] = int32(uint32(k) ^ 1<<31)
	case Int16:
		typed[int16](out)[i] = intFromKey[int16](k)
	case Int8:
		typed[int8](out)[i] = intFromKey[int8](k)
	case Uint64:
		typed[uint64](out)[i] = k
	case Uint32:
		typed[uint32](out)[i] = uint32(k)
	case Uint16:
		typed[uint16](out)[i] = uint16(k)
	case Uint8:
		typed[uint8](out)[i] = uint8(k)
	case Bool:
		out.buf[out.offset+i] = byte(k & 1)
	}
}

// TopKPartial is the k largest (or smallest) elements of every lane along
// the last axis of a, whose first element is number offset of its lane in
// a larger array: an int64 array of a's shape with the last axis 2k' (k' =
// min(k, lane length)): k' order keys (complemented for largest, so that
// smaller is better) then the k' positions, best first, ties by position.
func TopKPartial(a *Array, k, offset int, largest bool) *Array {
	nd := a.NDim()
	n := a.shape[nd-1]
	kk := min(k, n)
	c := a.Contiguous()
	lanes := c.Size() / max(n, 1)
	if n == 0 {
		lanes = Size(a.shape[:nd-1])
	}
	out := newArray(Int64, append(append([]int(nil), a.shape[:nd-1]...), 2*kk))
	o := typed[int64](out)
	type item struct {
		key uint64
		pos int64
	}
	buf := make([]item, n)
	for l := range lanes {
		for j := range n {
			key := sortKeyAt(c, l*n+j)
			if largest {
				key = ^key
			}
			buf[j] = item{key, int64(offset + j)}
		}
		cmp := func(x, y item) int {
			switch {
			case x.key < y.key:
				return -1
			case x.key > y.key:
				return 1
			}
			return cmpInt(x.pos, y.pos)
		}
		sel := buf
		if kk*16 < n {
			// Keep the kk best in a heap whose root is the worst of them.
			h := slices.Clone(buf[:kk])
			slices.SortFunc(h, func(x, y item) int { return cmp(y, x) })
			// h sorted worst first is a valid max-heap by cmp.
			for _, it := range buf[kk:] {
				if cmp(it, h[0]) >= 0 {
					continue
				}
				h[0] = it
				for i := 0; ; {
					w, lc, rc := i, 2*i+1, 2*i+2
					if lc < kk && cmp(h[lc], h[w]) > 0 {
						w = lc
					}
					if rc < kk && cmp(h[rc], h[w]) > 0 {
						w = rc
					}
					if w == i {
						break
					}
					h[i], h[w] = h[w], h[i]
					i = w
				}
			}
			sel = h
		}
		slices.SortFunc(sel, cmp)
		row := o[l*2*kk : (l+1)*2*kk]
		for j := range kk {
			row[j], row[kk+j] = int64(sel[j].key), sel[j].pos
		}
	}
	return out
}

// TopKCombine merges TopKPartial results (same leading shape) into the k
// best of each lane, in the same layout.
func TopKCombine(parts []*Array, k int) (*Array, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("ndarray: topk: no partial results")
	}
	lead := parts[0].shape[:parts[0].NDim()-1]
	total := 0
	for _, p := range parts {
		if p.dtype != Int64 || !SameShape(p.shape[:p.NDim()-1], lead) || p.shape[p.NDim()-1]%2 != 0 {
			return nil, fmt.Errorf("ndarray: topk: partial %v%v among partials of lanes %v", p.dtype, p.shape, lead)
		}
		total += p.shape[p.NDim()-1] / 2
	}
	kk := min(k, total)
	lanes := Size(lead)
	out := newArray(Int64, append(append([]int(nil), lead...), 2*kk))
	o := typed[int64](out)
	type item struct {
		key uint64
		pos int64
	}
	buf := make([]item, 0, total)
	cs := make([]*Array, len(parts))
	for i, p := range parts {
		cs[i] = p.Contiguous()
	}
	for l := range lanes {
		buf = buf[:0]
		for _, c := range cs {
			w := c.shape[c.NDim()-1]
			h := w / 2
			row := typed[int64](c)[l*w : (l+1)*w]
			for j := range h {
				buf = append(buf, item{uint64(row[j]), row[h+j]})
			}
		}
		slices.SortFunc(buf, func(x, y item) int {
			switch {
			case x.key < y.key:
				return -1
			case x.key > y.key:
				return 1
			}
			return cmpInt(x.pos, y.pos)
		})
		row := o[l*2*kk : (l+1)*2*kk]
		for j := range kk {
			row[j], row[kk+j] = int64(buf[j].key), buf[j].pos
		}
	}
	return out, nil
}

// TopKFinish turns a combined TopK result into the values (in dtype dt)
// or, with indices, the positions.
func TopKFinish(a *Array, dt DType, largest, indices bool) *Array {
	nd := a.NDim()
	w := a.shape[nd-1]
	kk := w / 2
	c := a.Contiguous()
	lanes := Size(a.shape[:nd-1])
	shape := append(append([]int(nil), a.shape[:nd-1]...), kk)
	if indices {
		out := newArray(Int64, shape)
		o := typed[int64](out)
		src := typed[int64](c)
		for l := range lanes {
			copy(o[l*kk:(l+1)*kk], src[l*w+kk:(l+1)*w])
		}
		return out
	}
	out := newArray(dt, shape)
	src := typed[int64](c)
	for l := range lanes {
		for j := range kk {
			key := uint64(src[l*w+j])
			if largest {
				key = ^key
			}
			keyToElement(out, l*kk+j, key)
		}
	}
	return out
}
