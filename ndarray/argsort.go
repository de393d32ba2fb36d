package ndarray

import (
	"fmt"
	"math"
)

// Argsort by the sort's order keys, stable: each position travels with
// its key through an LSD radix sort, which never reorders equal keys, so
// equal elements keep the order of their positions (NumPy's
// kind='stable', a valid answer for every kind). The two zeros share one
// key here, as NumPy's comparisons hold -0.0 == 0.0.

// argKeyAt is sortKeyAt with -0.0 keyed as 0.0.
func argKeyAt(a *Array, i int) uint64 {
	switch a.dtype {
	case Float64:
		if v := typed[float64](a)[i]; v == 0 {
			return key64(0)
		}
	case Float32:
		if v := typed[float32](a)[i]; v == 0 {
			return key32(0)
		}
	}
	return sortKeyAt(a, i)
}

// radixPairs sorts keys stably, moving pos with them.
func radixPairs(keys []uint64, pos []int64) {
	n := len(keys)
	if n < 64 {
		// Insertion sort: stable, and cheaper than the radix passes here.
		for i := 1; i < n; i++ {
			k, p := keys[i], pos[i]
			j := i
			for ; j > 0 && keys[j-1] > k; j-- {
				keys[j], pos[j] = keys[j-1], pos[j-1]
			}
			keys[j], pos[j] = k, p
		}
		return
	}
	var or, and uint64 = 0, math.MaxUint64
	for _, k := range keys {
		or |= k
		and &= k
	}
	tk, tp := make([]uint64, n), make([]int64, n)
	sk, sp, dk, dp := keys, pos, tk, tp
	var count [1 << radixBits]int
	for shift := uint(0); shift < 64; shift += radixBits {
		if (or^and)>>shift&(1<<radixBits-1) == 0 {
			continue // every key has this digit
		}
		clear(count[:])
		for _, k := range sk {
			count[k>>shift&(1<<radixBits-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for i, k := range sk {
			d := k >> shift & (1<<radixBits - 1)
			dk[count[d]], dp[count[d]] = k, sp[i]
			count[d]++
		}
		sk, sp, dk, dp = dk, dp, sk, sp
	}
	if &sk[0] != &keys[0] {
		copy(keys, sk)
		copy(pos, sp)
	}
}

// argsortLane writes the stable argsort of the contiguous 1-D a into pos
// (positions offset, offset+1, ...), using keys as scratch.
func argsortLane(a *Array, offset int64, keys []uint64, pos []int64) {
	for i := range keys {
		keys[i], pos[i] = argKeyAt(a, i), offset+int64(i)
	}
	radixPairs(keys, pos)
}

// ArgsortAxis is numpy.argsort(a, axis, kind='stable'): every lane's
// positions in sorted order (NaNs last), int64 in a's shape.
func ArgsortAxis(a *Array, axis int) (*Array, error) {
	c, inv, err := axisLastCopy(a, axis)
	if err != nil {
		return nil, fmt.Errorf("ndarray: argsort: %w", err)
	}
	out := newArray(Int64, c.shape)
	n := c.shape[c.NDim()-1]
	o := typed[int64](out)
	keys := make([]uint64, n)
	forLanes(c, func(lane *Array, l int) { argsortLane(lane, 0, keys, o[l*n:(l+1)*n]) })
	return axisBack(out, inv)
}

// ArgsortPairs sorts the 1-D chunk a whose first element is element
// offset of a larger array: an (n, 2) int64 array of rows (key, position)
// in the total order (key, position), the key the element's order key
// (its bits as int64). It is the distributed argsort's sorted chunk.
func ArgsortPairs(a *Array, offset int) (*Array, error) {
	if a.NDim() != 1 {
		return nil, fmt.Errorf("ndarray: argsort: %d-D chunk, want 1-D", a.NDim())
	}
	c := a.Contiguous()
	n := c.Size()
	keys, pos := make([]uint64, n), make([]int64, n)
	argsortLane(c, int64(offset), keys, pos)
	out := newArray(Int64, []int{n, 2})
	o := typed[int64](out)
	for i := range n {
		o[2*i], o[2*i+1] = int64(keys[i]), pos[i]
	}
	return out, nil
}

// pairRows checks that p is an (n, 2) int64 array of ArgsortPairs rows and
// returns them flat.
func pairRows(what string, p *Array) ([]int64, error) {
	if p.dtype != Int64 || p.NDim() != 2 || p.shape[1] != 2 {
		return nil, fmt.Errorf("ndarray: %s: pairs %v%v, want (n, 2) int64", what, p.dtype, p.shape)
	}
	c := p.Contiguous()
	return typed[int64](c)[:2*p.shape[0]], nil
}

// ArgsortSamples are s regular samples of the sorted pairs of chunk number
// chunk, as rows (key, chunk, position) like SortSamples' (positions here
// are global, so chunk only repeats what they say), for SortPivots.
func ArgsortSamples(pairs *Array, chunk, s int) (*Array, error) {
	v, err := pairRows("argsort samples", pairs)
	if err != nil {
		return nil, err
	}
	n := len(v) / 2
	m := min(n, s)
	out := newArray(Int64, []int{m, 3})
	o := typed[int64](out)
	for t := range m {
		j := int((int64(t)*2 + 1) * int64(n) / int64(2*m))
		o[3*t], o[3*t+1], o[3*t+2] = v[2*j], int64(chunk), v[2*j+1]
	}
	return out, nil
}

// ArgsortBounds splits sorted pairs at the pivots (rows of SortPivots over
// ArgsortSamples): len(pivots)+2 row numbers, 0 first and the row count
// last, part b holding the rows between pivot b-1 and pivot b in the
// order (key, position), a row equal to a pivot going to the part above.
func ArgsortBounds(pairs, pivots *Array) (*Array, error) {
	v, err := pairRows("argsort bounds", pairs)
	if err != nil {
		return nil, err
	}
	if pivots.dtype != Int64 || pivots.NDim() != 2 || pivots.shape[1] != 3 {
		return nil, fmt.Errorf("ndarray: argsort bounds: pivots %v%v, want (m, 3) int64", pivots.dtype, pivots.shape)
	}
	p := typed[int64](pivots.Contiguous())
	n, m := len(v)/2, pivots.shape[0]
	out := newArray(Int64, []int{m + 2})
	o := typed[int64](out)
	o[m+1] = int64(n)
	lo := 0
	for b := range m {
		key, at := uint64(p[3*b]), p[3*b+2]
		i, j := lo, n
		for i < j {
			h := int(uint(i+j) >> 1)
			if k := uint64(v[2*h]); k < key || k == key && v[2*h+1] < at {
				i = h + 1
			} else {
				j = h
			}
		}
		o[b+1] = int64(i)
		lo = i
	}
	return out, nil
}

// ArgsortMerge merges a part's pieces of sorted pairs, given in the order
// of their chunks, into the part's positions in sorted order (1-D int64).
// Chunks hold increasing positions, so their concatenation sorted stably
// by key is in the order (key, position).
func ArgsortMerge(pieces []*Array) (*Array, error) {
	rows := make([][]int64, len(pieces))
	n := 0
	for i, p := range pieces {
		v, err := pairRows("argsort merge", p)
		if err != nil {
			return nil, err
		}
		rows[i], n = v, n+len(v)/2
	}
	keys := make([]uint64, 0, n)
	out := newArray(Int64, []int{n})
	pos := typed[int64](out)[:0:n]
	for _, v := range rows {
		for i := 0; i < len(v); i += 2 {
			keys, pos = append(keys, uint64(v[i])), append(pos, v[i+1])
		}
	}
	radixPairs(keys, pos) // sorts pos in out's buffer
	return out, nil
}
