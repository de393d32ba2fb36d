package ndarray

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Exact quantiles by selection on order-preserving integer keys.
//
// Every element maps to an unsigned key whose integer order is the
// element's order (floats: set the sign bit of positives, flip all bits of
// negatives; ints: flip the sign bit; bools: 0 and 1), so selecting a rank
// among keys selects it among values, for every dtype with one kernel.
// NaNs map to the all-ones key, above every number, as NumPy sorts them,
// and are counted apart. A rank is found either by selection in one lane
// held whole (QuantileLocal) or, when a lane is split over chunks, digit by
// digit (radix select): a histogram of the next digit of the keys that
// share the prefix found so far (QuantileHistogram, one per chunk, summed),
// then the digit holding the rank (QuantileSelect), until the key is whole.
// QuantileFinish turns the selected keys into NumPy's result.

// QuantileMethods are NumPy 1.24's quantile methods, by name.
var QuantileMethods = []string{
	"inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
	"hazen", "weibull", "linear", "median_unbiased", "normal_unbiased",
	"lower", "higher", "midpoint", "nearest",
}

// discreteQuantile reports whether method picks an element (NumPy's integer
// virtual index): the result keeps the input's dtype.
func discreteQuantile(method string) bool {
	switch method {
	case "inverted_cdf", "closest_observation", "lower", "higher", "nearest":
		return true
	}
	return false
}

// QuantileSpec is what a quantile reduction computes over each lane.
type QuantileSpec struct {
	// Median is numpy.median: the mean of the middle one or two elements.
	// Otherwise Q and Method say numpy.quantile's.
	Median bool
	Q      []float64
	Method string // "" is linear
	// IgnoreNaN is the nan- variant: NaNs are left out; a lane of NaNs only
	// gives NaN. Without it a lane holding a NaN gives NaN.
	IgnoreNaN bool
}

func (s QuantileSpec) method() string {
	if s.Method == "" {
		return "linear"
	}
	return s.Method
}

func (s QuantileSpec) name() string {
	n := "quantile"
	if s.Median {
		n = "median"
	}
	if s.IgnoreNaN {
		n = "nan" + n
	}
	return n
}

// Validate checks the method and that every q lies in [0, 1].
func (s QuantileSpec) Validate() error {
	if s.Median {
		return nil
	}
	if !slices.Contains(QuantileMethods, s.method()) {
		return fmt.Errorf("%s: %q is not a valid method. Use one of: %s", s.name(), s.Method, strings.Join(QuantileMethods, ", "))
	}
	if len(s.Q) == 0 {
		return fmt.Errorf("%s: no quantiles given", s.name())
	}
	for _, q := range s.Q {
		if !(q >= 0 && q <= 1) {
			return fmt.Errorf("%s: quantile %v: quantiles must be in the range [0, 1]", s.name(), q)
		}
	}
	return nil
}

// Slots is the number of ranks selected per lane: the two elements each q
// (or the median) may interpolate between.
func (s QuantileSpec) Slots() int {
	if s.Median {
		return 2
	}
	return 2 * len(s.Q)
}

// NQ is the number of results per lane.
func (s QuantileSpec) NQ() int {
	if s.Median {
		return 1
	}
	return len(s.Q)
}

// ResultType is NumPy 1.24's result dtype for input dt: median is float32
// for float32 and float64 otherwise; methods that pick an element keep dt;
// interpolating methods give float64 (and refuse bool, as NumPy cannot
// subtract bools).
func (s QuantileSpec) ResultType(dt DType) (DType, error) {
	switch {
	case s.Median:
		if dt == Float32 {
			return Float32, nil
		}
		return Float64, nil
	case discreteQuantile(s.method()):
		return dt, nil
	case dt == Bool:
		return Invalid, fmt.Errorf("%s: method %q interpolates, which bool data cannot (NumPy: boolean subtract is not supported); use a method that picks an element (lower, higher, nearest, inverted_cdf, closest_observation) or cast to int", s.name(), s.method())
	}
	return Float64, nil
}

// QuantileKeyBits is the width of dt's keys: 64 for float64, int64 and
// uint64, 32 for the others.
func QuantileKeyBits(dt DType) int {
	if dt.Size() == 8 {
		return 64
	}
	return 32
}

// nanKey is the key of every NaN of dtype dt (keys of numbers are smaller).
func nanKey(dt DType) uint64 {
	if QuantileKeyBits(dt) == 64 {
		return math.MaxUint64
	}
	return math.MaxUint32
}

func isFloat(dt DType) bool { return dt == Float64 || dt == Float32 }

// quantileKeys writes the keys of the n elements of contiguous a starting
// at element i into dst.
func quantileKeys(dst []uint64, a *Array, i int) {
	switch a.dtype {
	case Float64:
		src := typed[float64](a)[i : i+len(dst)]
		for j, v := range src {
			// Branch-free on the sign (random signs would defeat the
			// predictor): negatives flip all bits, positives the sign bit.
			b := math.Float64bits(v)
			b ^= uint64(int64(b)>>63) | 1<<63
			if v != v {
				b = math.MaxUint64
			}
			dst[j] = b
		}
	case Float32:
		src := typed[float32](a)[i : i+len(dst)]
		for j, v := range src {
			b := math.Float32bits(v)
			b ^= uint32(int32(b)>>31) | 1<<31
			if v != v {
				b = math.MaxUint32
			}
			dst[j] = uint64(b)
		}
	case Int64:
		src := typed[int64](a)[i : i+len(dst)]
		for j, v := range src {
			dst[j] = uint64(v) ^ 1<<63
		}
	case Int32:
		src := typed[int32](a)[i : i+len(dst)]
		for j, v := range src {
			dst[j] = uint64(uint32(v) ^ 1<<31)
		}
	case Int16:
		intKeys(dst, typed[int16](a)[i:i+len(dst)])
	case Int8:
		intKeys(dst, typed[int8](a)[i:i+len(dst)])
	case Uint64:
		intKeys(dst, typed[uint64](a)[i:i+len(dst)])
	case Uint32:
		intKeys(dst, typed[uint32](a)[i:i+len(dst)])
	case Uint16:
		intKeys(dst, typed[uint16](a)[i:i+len(dst)])
	case Uint8:
		intKeys(dst, typed[uint8](a)[i:i+len(dst)])
	case Bool:
		src := typed[uint8](a)[i : i+len(dst)]
		for j, v := range src {
			dst[j] = uint64(v)
		}
	}
}

func intKeys[T ewInt](dst []uint64, src []T) {
	for j, v := range src {
		dst[j] = intKey(v)
	}
}

// keyValue is the element of dtype dt whose key is k, as a float64 (exact
// for every dtype but int64 beyond 2^53: see keyInt).
func keyValue(dt DType, k uint64) float64 {
	switch dt {
	case Float64:
		if k>>63 != 0 {
			return math.Float64frombits(k &^ (1 << 63))
		}
		return math.Float64frombits(^k)
	case Float32:
		return float64(keyFloat32(k))
	case Uint64:
		return float64(k)
	}
	return float64(keyInt(dt, k))
}

func keyFloat32(k uint64) float32 {
	b := uint32(k)
	if b>>31 != 0 {
		return math.Float32frombits(b &^ (1 << 31))
	}
	return math.Float32frombits(^b)
}

func keyInt(dt DType, k uint64) int64 {
	switch dt {
	case Int64:
		return int64(k ^ 1<<63)
	case Int32, Int16, Int8:
		return int64(int32(uint32(k) ^ 1<<31))
	}
	return int64(k) // bool and the unsigned types (uint64 as its bits)
}

// quantileLanes returns a's elements as lanes: a contiguous array whose
// kept axes come first (C order) and reduced axes last, with the number of
// lanes and the length of each.
func quantileLanes(a *Array, reduced []int) (*Array, int, int, error) {
	perm := make([]int, 0, a.NDim())
	m := 1
	for ax := range a.NDim() {
		if !slices.Contains(reduced, ax) {
			perm = append(perm, ax)
		}
	}
	for _, ax := range reduced {
		if ax < 0 || ax >= a.NDim() {
			return nil, 0, 0, fmt.Errorf("quantile: axis %d out of range for a %d-D chunk", ax, a.NDim())
		}
		perm = append(perm, ax)
		m *= a.shape[ax]
	}
	if len(perm) != a.NDim() {
		return nil, 0, 0, fmt.Errorf("quantile: repeated axes in %v", reduced)
	}
	t, err := a.Transpose(perm...)
	if err != nil {
		return nil, 0, 0, err
	}
	t = t.Contiguous()
	lanes := 0
	if m > 0 {
		lanes = t.Size() / m
	} else {
		lanes = Size(t.shape[:len(t.shape)-len(reduced)])
	}
	return t, lanes, m, nil
}

// The decision array of a lane is int64: [0] the count n of the values
// ranked, [1] flags (decNaN, decExtract, decDone), then per slot the key
// prefix found so far (the whole key once decDone is set or the last level
// is selected) and the rank left within the keys sharing it.
const decHead = 2

// Decision flags.
const (
	// decNaN: the lane's result is NaN; nothing is selected.
	decNaN = 1 << iota
	// decExtract: every slot's bucket holds fewer keys than a histogram
	// has counts, so the next level lists those keys instead of counting
	// digits, and the select after it picks the ranks among them.
	decExtract
	// decDone: the keys are whole; later levels pass the lane through.
	decDone
)

func decWidth(slots int) int { return decHead + 2*slots }

// quantileBlock is how many keys are made at a time: a few KiB, in L1.
const quantileBlock = 2048

// QuantileHistogram counts, for radix-select level `level` with digits of
// `bits` bits, the next digit of the keys of every lane of chunk a (lanes
// over the axes not in reduced, C order). At level 0 the result is
// [lanes, 2^bits + 1]: the digit counts of the keys of numbers, then the
// NaN count. At later levels it is [lanes, targets, 2^bits]: one histogram
// per distinct prefix that dec (the previous QuantileSelect) holds for the
// lane, in increasing prefix order; only keys with that prefix count.
func QuantileHistogram(a *Array, reduced []int, dec *Array, level, bits, targets int) (*Array, error) {
	w := QuantileKeyBits(a.dtype)
	if bits <= 0 || w%bits != 0 || level < 0 || level*bits >= w {
		return nil, fmt.Errorf("quantile histogram: level %d of %d-bit digits for %d-bit keys", level, bits, w)
	}
	lanesArr, lanes, m, err := quantileLanes(a, reduced)
	if err != nil {
		return nil, err
	}
	nb := 1 << bits
	mask := uint64(nb - 1)
	digitShift := uint(w - bits*(level+1))
	nan := nanKey(a.dtype)
	float := isFloat(a.dtype)
	var out *Array
	if level == 0 {
		out = newArray(Int64, []int{lanes, nb + 1})
	} else {
		if dec == nil || dec.dtype != Int64 || dec.NDim() != 2 || dec.shape[0] != lanes || (dec.shape[1]-decHead)%2 != 0 {
			return nil, fmt.Errorf("quantile histogram: level %d needs the decisions of %d lanes, got %v", level, lanes, dec)
		}
		out = newArray(Int64, []int{lanes, targets, nb})
	}
	h := typedAll[int64](out)
	keys := make([]uint64, quantileBlock)
	var d []int64
	if dec != nil {
		d = typed[int64](dec.Contiguous())
	}
	prefixShift := uint(w - bits*level)
	for l := range lanes {
		var pre []uint64
		if level > 0 {
			row := d[l*dec.shape[1] : (l+1)*dec.shape[1]]
			if row[1]&(decNaN|decDone) != 0 {
				continue // NaN, or selected already: nothing to count
			}
			pre = lanePrefixes(row)
			if len(pre) > targets {
				return nil, fmt.Errorf("quantile histogram: lane %d has %d prefixes, more than the %d targets", l, len(pre), targets)
			}
			if row[1]&decExtract != 0 {
				if err := extractKeys(h[l*targets*nb:(l+1)*targets*nb], lanesArr, l*m, m, pre, prefixShift, nb, keys, float, nan); err != nil {
					return nil, fmt.Errorf("quantile histogram: lane %d: %w", l, err)
				}
				continue
			}
		}
		for i := 0; i < m; i += quantileBlock {
			k := keys[:min(quantileBlock, m-i)]
			quantileKeys(k, lanesArr, l*m+i)
			if level == 0 {
				hl := h[l*(nb+1) : (l+1)*(nb+1)]
				if float {
					for _, key := range k {
						if key == nan {
							hl[nb]++
							continue
						}
						hl[key>>digitShift]++
					}
				} else {
					for _, key := range k {
						hl[key>>digitShift]++
					}
				}
				continue
			}
			hl := h[l*targets*nb : (l+1)*targets*nb]
			if len(pre) == 1 {
				p := pre[0]
				for _, key := range k {
					if key>>prefixShift == p && (!float || key != nan) {
						hl[key>>digitShift&mask]++
					}
				}
				continue
			}
			if len(pre) == 2 {
				p0, p1 := pre[0], pre[1]
				for _, key := range k {
					switch p := key >> prefixShift; {
					case float && key == nan:
					case p == p0:
						hl[key>>digitShift&mask]++
					case p == p1:
						hl[nb+int(key>>digitShift&mask)]++
					}
				}
				continue
			}
			for _, key := range k {
				if float && key == nan {
					continue
				}
				p := key >> prefixShift
				if p < pre[0] || p > pre[len(pre)-1] {
					continue
				}
				if t, ok := slices.BinarySearch(pre, p); ok {
					hl[t*nb+int(key>>digitShift&mask)]++
				}
			}
		}
	}
	return out, nil
}

// extractKeys lists, per target prefix t, the keys of the lane's m
// elements (from element i0 of a) that have it: h[t·nb] is their count,
// the keys follow.
func extractKeys(h []int64, a *Array, i0, m int, pre []uint64, prefixShift uint, nb int, keys []uint64, float bool, nan uint64) error {
	for i := 0; i < m; i += quantileBlock {
		k := keys[:min(quantileBlock, m-i)]
		quantileKeys(k, a, i0+i)
		for _, key := range k {
			// Most keys lie outside every prefix: one range test rejects them.
			p := key >> prefixShift
			if p < pre[0] || p > pre[len(pre)-1] || (float && key == nan) {
				continue
			}
			t := 0
			if len(pre) > 1 {
				var ok bool
				if t, ok = slices.BinarySearch(pre, p); !ok {
					continue
				}
			}
			ht := h[t*nb : (t+1)*nb]
			if ht[0] == int64(nb-1) {
				return fmt.Errorf("more than %d keys with prefix %#x to list", nb-1, pre[t])
			}
			ht[0]++
			ht[ht[0]] = int64(key)
		}
	}
	return nil
}

// QuantileMerge merges the level's partial results of chunks of the same
// lanes: counts add up, lists of keys (lanes marked decExtract in dec)
// are concatenated.
func QuantileMerge(dec *Array, parts []*Array) (*Array, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("quantile merge: nothing to merge")
	}
	p0 := parts[0]
	if p0.dtype != Int64 || p0.NDim() != 3 {
		return nil, fmt.Errorf("quantile merge: partials %v are not int64 [lanes, targets, digits]", p0)
	}
	lanes, per := p0.shape[0], p0.shape[1]*p0.shape[2]
	nb := p0.shape[2]
	if dec == nil || dec.dtype != Int64 || dec.NDim() != 2 || dec.shape[0] != lanes {
		return nil, fmt.Errorf("quantile merge: decisions %v do not match %d lanes", dec, lanes)
	}
	d := typed[int64](dec.Contiguous())
	width := dec.shape[1]
	out := newArray(Int64, p0.shape)
	o := typedAll[int64](out)
	for _, p := range parts {
		if !slices.Equal(p.shape, p0.shape) || p.dtype != Int64 {
			return nil, fmt.Errorf("quantile merge: partials of shapes %v and %v", p0.shape, p.shape)
		}
		src := typed[int64](p.Contiguous())
		for l := range lanes {
			ol, sl := o[l*per:(l+1)*per], src[l*per:(l+1)*per]
			if d[l*width+1]&decExtract == 0 {
				for i, c := range sl {
					ol[i] += c
				}
				continue
			}
			for t := 0; t < per; t += nb {
				n, add := ol[t], sl[t]
				if n+add > int64(nb-1) {
					return nil, fmt.Errorf("quantile merge: lane %d lists %d keys, more than %d", l, n+add, nb-1)
				}
				copy(ol[t+1+int(n):], sl[t+1:t+1+int(add)])
				ol[t] = n + add
			}
		}
	}
	return out, nil
}

// lanePrefixes are the distinct prefixes of a lane's decision row, sorted.
func lanePrefixes(row []int64) []uint64 {
	slots := (len(row) - decHead) / 2
	pre := make([]uint64, 0, slots)
	for s := range slots {
		pre = append(pre, uint64(row[decHead+2*s]))
	}
	slices.Sort(pre)
	return slices.Compact(pre)
}

// QuantileSelect finds, from the summed histograms of a level (see
// QuantileHistogram) and the previous level's decisions dec (nil at level
// 0), the digit holding every slot's rank: the decisions of this level,
// [lanes, 2 + 2·slots]. At level 0 it also counts each lane's values and
// places the ranks spec needs.
//
// With extract, a lane whose every rank lies in a bucket of fewer keys than
// a histogram has counts is marked decExtract: the next level lists those
// keys, and this op picks the ranks among them, ending the lane's passes
// over the data two levels early or more.
func QuantileSelect(spec QuantileSpec, dt DType, hist, dec *Array, level, bits int, extract bool) (*Array, error) {
	nb := 1 << bits
	extract = extract && (level+1)*bits < QuantileKeyBits(dt)
	slots := spec.Slots()
	if hist.dtype != Int64 || hist.NDim() < 2 {
		return nil, fmt.Errorf("quantile select: histograms %v are not int64 [lanes, ...]", hist)
	}
	lanes := hist.shape[0]
	h := typed[int64](hist.Contiguous())
	out := newArray(Int64, []int{lanes, decWidth(slots)})
	o := typedAll[int64](out)
	width := decWidth(slots)
	ranks := make([]int64, slots)
	if level == 0 {
		if hist.NDim() != 2 || hist.shape[1] != nb+1 {
			return nil, fmt.Errorf("quantile select: level 0 histograms %v, want [lanes, %d]", hist.shape, nb+1)
		}
		for l := range lanes {
			hl := h[l*(nb+1) : (l+1)*(nb+1)]
			var valid int64
			for _, c := range hl[:nb] {
				valid += c
			}
			nans := hl[nb]
			row := o[l*width : (l+1)*width]
			n := valid
			if !spec.IgnoreNaN {
				n += nans
			}
			row[0] = n
			if valid == 0 || (nans > 0 && !spec.IgnoreNaN) {
				row[1] = decNaN
				continue
			}
			spec.ranks(n, ranks)
			few := extract
			for s, r := range ranks {
				d, rem := digitOf(hl[:nb], r)
				row[decHead+2*s], row[decHead+2*s+1] = int64(d), rem
				few = few && hl[d] < int64(nb)
			}
			if few {
				row[1] = decExtract
			}
		}
		return out, nil
	}
	if dec == nil || dec.dtype != Int64 || !slices.Equal(dec.shape, []int{lanes, width}) {
		return nil, fmt.Errorf("quantile select: level %d needs decisions [%d, %d], got %v", level, lanes, width, dec)
	}
	if hist.NDim() != 3 || hist.shape[2] != nb {
		return nil, fmt.Errorf("quantile select: level %d histograms %v, want [lanes, targets, %d]", level, hist.shape, nb)
	}
	targets := hist.shape[1]
	d := typed[int64](dec.Contiguous())
	copy(o, d[:lanes*width])
	var cands []uint64
	for l := range lanes {
		row := o[l*width : (l+1)*width]
		if row[1]&(decNaN|decDone) != 0 {
			continue
		}
		pre := lanePrefixes(row)
		if row[1]&decExtract != 0 {
			// The keys of each prefix are listed: sort them, pick the ranks.
			for t, p := range pre {
				ht := h[(l*targets+t)*nb : (l*targets+t+1)*nb]
				cands = cands[:0]
				for _, k := range ht[1 : 1+ht[0]] {
					cands = append(cands, uint64(k))
				}
				slices.Sort(cands)
				for s := range slots {
					if uint64(row[decHead+2*s]) != p {
						continue
					}
					r := row[decHead+2*s+1]
					if r >= int64(len(cands)) {
						return nil, fmt.Errorf("quantile select: lane %d: rank %d among %d listed keys", l, r, len(cands))
					}
					row[decHead+2*s], row[decHead+2*s+1] = int64(cands[r]), 0
				}
			}
			row[1] = decDone
			continue
		}
		few := extract
		for s := range slots {
			p := uint64(row[decHead+2*s])
			t, _ := slices.BinarySearch(pre, p)
			hl := h[(l*targets+t)*nb : (l*targets+t+1)*nb]
			dg, rem := digitOf(hl, row[decHead+2*s+1])
			row[decHead+2*s] = int64(p<<uint(bits) | uint64(dg))
			row[decHead+2*s+1] = rem
			few = few && hl[dg] < int64(nb)
		}
		if few {
			row[1] = decExtract
		}
	}
	return out, nil
}

// digitOf is the bucket of h holding (0-based) rank r, and r's rank within it.
func digitOf(h []int64, r int64) (int, int64) {
	for d, c := range h {
		if r < c {
			return d, r
		}
		r -= c
	}
	// Unreachable when the counts add up; the last bucket keeps it defined.
	return len(h) - 1, 0
}

// ranks writes the 0-based ranks of the slots for a lane of n values:
// per q its lower and upper neighbours (equal for methods picking one).
func (s QuantileSpec) ranks(n int64, out []int64) {
	if s.Median {
		out[0], out[1] = (n-1)/2, n/2
		return
	}
	for i, q := range s.Q {
		p := quantilePoint(s.method(), n, q)
		out[2*i], out[2*i+1] = p.lo, p.hi
	}
}

// qPoint is where a quantile falls: ranks lo and hi and NumPy's weight
// gamma between them (discrete methods use lo only).
type qPoint struct {
	lo, hi int64
	gamma  float64
}

// quantilePoint follows NumPy 1.24's _quantile: the method's virtual index,
// then _get_indexes and _get_gamma, in the same float64 operations (each
// product rounded on its own: float64() stops fused multiply-adds).
func quantilePoint(method string, n int64, q float64) qPoint {
	fn := float64(n)
	last := n - 1
	clampIdx := func(i int64) int64 { return max(0, min(i, last)) }
	switch method {
	case "lower":
		i := clampIdx(int64(math.Floor(float64((fn - 1) * q))))
		return qPoint{lo: i, hi: i}
	case "higher":
		i := clampIdx(int64(math.Ceil(float64((fn - 1) * q))))
		return qPoint{lo: i, hi: i}
	case "nearest":
		i := clampIdx(int64(math.RoundToEven(float64((fn - 1) * q))))
		return qPoint{lo: i, hi: i}
	case "inverted_cdf":
		i := boundary(float64(fn*q)-1, func(g, _ float64) bool { return g == 0 })
		return qPoint{lo: clampIdx(i), hi: clampIdx(i)}
	case "closest_observation":
		i := boundary(float64(fn*q)-1-0.5, func(g, idx float64) bool {
			m := math.Mod(math.Floor(idx), 2)
			return g == 0 && m == 0
		})
		return qPoint{lo: clampIdx(i), hi: clampIdx(i)}
	}
	var v float64
	switch method {
	case "averaged_inverted_cdf":
		v = float64(fn*q) - 1
	case "midpoint":
		x := float64((fn - 1) * q)
		v = 0.5 * (math.Floor(x) + math.Ceil(x))
	case "interpolated_inverted_cdf":
		v = virtualIndex(fn, q, 0, 1)
	case "hazen":
		v = virtualIndex(fn, q, 0.5, 0.5)
	case "weibull":
		v = virtualIndex(fn, q, 0, 0)
	case "median_unbiased":
		v = virtualIndex(fn, q, 1/3.0, 1/3.0)
	case "normal_unbiased":
		v = virtualIndex(fn, q, 3/8.0, 3/8.0)
	default: // linear
		v = float64((fn - 1) * q)
	}
	prev := math.Floor(v)
	next := prev + 1
	if v >= float64(n-1) {
		prev, next = -1, -1
	}
	if v < 0 {
		prev, next = 0, 0
	}
	gamma := v - prev
	switch method {
	case "averaged_inverted_cdf":
		if gamma == 0 {
			gamma = 0.5
		} else {
			gamma = 1
		}
	case "midpoint":
		if math.Mod(v, 1) == 0 {
			gamma = 0
		} else {
			gamma = 0.5
		}
	}
	idx := func(f float64) int64 {
		if f < 0 {
			return last // NumPy's index -1
		}
		return min(int64(f), last)
	}
	return qPoint{lo: idx(prev), hi: idx(next), gamma: gamma}
}

// virtualIndex is NumPy's _compute_virtual_index, operation by operation.
func virtualIndex(n, q, alpha, beta float64) float64 {
	c := 1 - alpha - beta
	return float64(n*q) + (alpha + float64(q*c)) - 1
}

// boundary is NumPy's _discret_interpolation_to_boundaries: floor(index)
// where cond(gamma, index) holds, else the next index, at least 0.
func boundary(index float64, cond func(gamma, index float64) bool) int64 {
	prev := math.Floor(index)
	next := prev + 1
	gamma := index - prev
	r := next
	if cond(gamma, index) {
		r = prev
	}
	return max(0, int64(r))
}

// QuantileFinish turns complete decisions (every slot's prefix is a whole
// key of dtype dt) into the result: shape outShape, whose leading axis is
// the q axis when the result has one (its size is then NQ), lanes in C
// order after it.
func QuantileFinish(spec QuantileSpec, dt DType, dec *Array, outShape []int) (*Array, error) {
	rt, err := spec.ResultType(dt)
	if err != nil {
		return nil, err
	}
	slots := spec.Slots()
	width := decWidth(slots)
	if dec.dtype != Int64 || dec.NDim() != 2 || dec.shape[1] != width {
		return nil, fmt.Errorf("%s finish: decisions %v, want int64 [lanes, %d]", spec.name(), dec, width)
	}
	lanes := dec.shape[0]
	nq := spec.NQ()
	if Size(outShape) != lanes*nq {
		return nil, fmt.Errorf("%s finish: %d lanes and %d quantiles do not fill shape %v", spec.name(), lanes, nq, outShape)
	}
	out := newArray(rt, outShape)
	d := typed[int64](dec.Contiguous())
	for l := range lanes {
		row := d[l*width : (l+1)*width]
		for i := range nq {
			pos := i*lanes + l
			if row[1]&decNaN != 0 {
				out.SetFlat(pos, math.NaN())
				continue
			}
			lo, hi := uint64(row[decHead+4*i]), uint64(row[decHead+4*i+2])
			spec.finishOne(out, pos, dt, i, row[0], lo, hi)
		}
	}
	return out, nil
}

// finishOne writes the result for quantile i of a lane of n values whose
// selected keys are lo and hi.
func (s QuantileSpec) finishOne(out *Array, pos int, dt DType, i int, n int64, lo, hi uint64) {
	switch {
	case s.Median:
		if n%2 == 1 {
			out.SetFlat(pos, keyValue(dt, lo))
			return
		}
		switch dt {
		case Float32: // NumPy's mean of float32 adds and divides in float32
			typedAll[float32](out)[pos] = (keyFloat32(lo) + keyFloat32(hi)) / 2
		default:
			out.SetFlat(pos, (keyValue(dt, lo)+keyValue(dt, hi))/2)
		}
		return
	case discreteQuantile(s.method()):
		if dt == Int64 || dt == Uint64 {
			typedAll[int64](out)[pos] = keyInt(dt, lo) // uint64 bits alike
			return
		}
		out.SetFlat(pos, keyValue(dt, lo))
		return
	}
	p := quantilePoint(s.method(), n, s.Q[i])
	typedAll[float64](out)[pos] = lerpKeys(dt, lo, hi, p.gamma)
}

// lerpKeys is NumPy's _lerp(a, b, t): b - a in the data's dtype (integers
// wrap as NumPy's do), then a + diff·t, or b - diff·(1 - t) when t >= 0.5,
// in float64.
func lerpKeys(dt DType, lo, hi uint64, t float64) float64 {
	var a, b, diff float64
	switch dt {
	case Float64:
		a, b = keyValue(dt, lo), keyValue(dt, hi)
		diff = b - a
	case Float32:
		x, y := keyFloat32(lo), keyFloat32(hi)
		a, b, diff = float64(x), float64(y), float64(y-x)
	case Int64:
		x, y := keyInt(dt, lo), keyInt(dt, hi)
		a, b, diff = float64(x), float64(y), float64(y-x)
	case Int32:
		x, y := int32(keyInt(dt, lo)), int32(keyInt(dt, hi))
		a, b, diff = float64(x), float64(y), float64(y-x)
	case Int16:
		a, b, diff = lerpInts[int16](lo, hi)
	case Int8:
		a, b, diff = lerpInts[int8](lo, hi)
	case Uint64:
		a, b, diff = lerpInts[uint64](lo, hi)
	case Uint32:
		a, b, diff = lerpInts[uint32](lo, hi)
	case Uint16:
		a, b, diff = lerpInts[uint16](lo, hi)
	case Uint8:
		a, b, diff = lerpInts[uint8](lo, hi)
	default:
		a, b = keyValue(dt, lo), keyValue(dt, hi)
		diff = b - a
	}
	if t >= 0.5 {
		return b - float64(diff*(1-t))
	}
	return a + float64(diff*t)
}

// lerpInts is lerpKeys's operands for integers of type T: the difference
// is taken in T, wrapping as NumPy's does.
func lerpInts[T ewInt](lo, hi uint64) (a, b, diff float64) {
	x, y := intFromKey[T](lo), intFromKey[T](hi)
	return float64(x), float64(y), float64(y - x)
}

// QuantileLocal computes the quantiles of every lane of a over the axes in
// reduced, which a holds whole: a copy of each lane's keys and a selection
// of the ranks needed (quickselect, falling back to sorting), then
// QuantileFinish. outShape is as for QuantileFinish.
func QuantileLocal(spec QuantileSpec, a *Array, reduced []int, outShape []int) (*Array, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	lanesArr, lanes, m, err := quantileLanes(a, reduced)
	if err != nil {
		return nil, err
	}
	slots := spec.Slots()
	width := decWidth(slots)
	dec := newArray(Int64, []int{lanes, width})
	d := typedAll[int64](dec)
	keys := make([]uint64, m)
	nan := nanKey(a.dtype)
	float := isFloat(a.dtype)
	ranks := make([]int64, slots)
	order := make([]int, slots)
	for l := range lanes {
		row := d[l*width : (l+1)*width]
		quantileKeys(keys, lanesArr, l*m)
		valid := int64(m)
		if float {
			valid = 0
			for _, k := range keys {
				if k != nan {
					valid++
				}
			}
		}
		n := valid
		if !spec.IgnoreNaN {
			n = int64(m)
		}
		row[0] = n
		if valid == 0 || (valid < int64(m) && !spec.IgnoreNaN) {
			row[1] = decNaN
			continue
		}
		spec.ranks(n, ranks)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(x, y int) int { return int(ranks[x] - ranks[y]) })
		// Ranks in increasing order: each selection leaves the keys above
		// the rank to its right, so the next one searches only those.
		from := 0
		for _, s := range order {
			r := int(ranks[s])
			selectKth(keys[from:], r-from)
			row[decHead+2*s] = int64(keys[r])
			from = r
		}
	}
	return QuantileFinish(spec, a.dtype, dec, outShape)
}

// selectKth reorders k so that k[r] is the key of rank r, smaller ones
// before it and larger ones after it (quickselect with median-of-three
// pivots; a range that shrinks too slowly is sorted instead, so the worst
// case stays O(n log n)).
func selectKth(k []uint64, r int) {
	lo, hi := 0, len(k)-1
	budget := 2 * bitsLen(len(k))
	for hi > lo {
		if hi-lo < 16 || budget == 0 {
			slices.Sort(k[lo : hi+1])
			return
		}
		budget--
		mid := lo + (hi-lo)/2
		if k[mid] < k[lo] {
			k[mid], k[lo] = k[lo], k[mid]
		}
		if k[hi] < k[lo] {
			k[hi], k[lo] = k[lo], k[hi]
		}
		if k[hi] < k[mid] {
			k[hi], k[mid] = k[mid], k[hi]
		}
		pivot := k[mid]
		// Three-way partition: keys equal to the pivot (duplicate-heavy
		// data) end in the middle and are done.
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch {
			case k[i] < pivot:
				k[lt], k[i] = k[i], k[lt]
				lt++
				i++
			case k[i] > pivot:
				k[i], k[gt] = k[gt], k[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case r < lt:
			hi = lt - 1
		case r > gt:
			lo = gt + 1
		default:
			return
		}
	}
}

func bitsLen(n int) int {
	b := 0
	for n > 0 {
		b++
		n >>= 1
	}
	return b
}
