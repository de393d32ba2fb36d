package ndarray

import (
	"context"
	"fmt"
	"slices"
)

// Unique by groups of equal values: a chunk's distinct values, how often
// each occurs and where it first occurs, as an int64 table of UniqueRows
// rows and one column per distinct value, in ascending value order:
//
//	row 0: the value's group key (valueKeyAt as uint64 bits: -0.0 and 0.0
//	       one group, every NaN one group, last)
//	row 1: how many elements have it
//	row 2: the flat position of its first element
//	row 3: the sort key (sortKeyAt) of that first element, which gives the
//	       value back (the first zero's sign kept)
//
// Tables of chunks merge into the table of their concatenation (counts
// added, the earlier first kept), so unique's values, counts and first
// positions come from a tree of small merges, and an element's position
// among the values (unique's inverse) is a search of its group key in the
// merged table's row 0.

// UniqueRows is the number of rows of a unique table.
const UniqueRows = 4

// uniqueEntry is one column of a unique table.
type uniqueEntry struct {
	key, count, first, rep uint64
}

// UniqueKinds reports whether UniqueTable takes arrays of dt: the dtypes
// with an order key (bool, integers, float32, float64).
func UniqueKinds(dt DType) bool {
	switch dt {
	case Bool, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Float32, Float64:
		return true
	}
	return false
}

// UniqueTable is the unique table of the elements of a (flattened in C
// order), whose first element is at flat position offset of a larger
// array.
func UniqueTable(ctx context.Context, a *Array, offset int64) (*Array, error) {
	if !UniqueKinds(a.dtype) {
		return nil, fmt.Errorf("ndarray: unique: dtype %v has no order key", a.dtype)
	}
	c := a.Contiguous()
	n := c.Size()
	at := map[uint64]int{}
	var es []uniqueEntry
	last := -1
	for i := range n {
		if i&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sk := sortKeyAt(c, i)
		g := groupKey(c.dtype, sk)
		if last >= 0 && es[last].key == g {
			es[last].count++
			continue
		}
		j, ok := at[g]
		if !ok {
			j = len(es)
			at[g] = j
			es = append(es, uniqueEntry{key: g, first: uint64(offset + int64(i)), rep: sk})
		}
		es[j].count++
		last = j
	}
	slices.SortFunc(es, func(x, y uniqueEntry) int { return cmpU64(x.key, y.key) })
	return uniqueTableOf(es), nil
}

// MergeUniqueTables is the unique table of the concatenation of the arrays
// whose tables parts are.
func MergeUniqueTables(ctx context.Context, parts []*Array) (*Array, error) {
	at := map[uint64]int{}
	var es []uniqueEntry
	for p, t := range parts {
		if err := checkUniqueTable(t); err != nil {
			return nil, fmt.Errorf("ndarray: unique merge: part %d: %w", p, err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t = t.Contiguous()
		k := t.shape[1]
		v := typed[uint64](t)
		for i := range k {
			e := uniqueEntry{key: v[i], count: v[k+i], first: v[2*k+i], rep: v[3*k+i]}
			j, ok := at[e.key]
			if !ok {
				at[e.key] = len(es)
				es = append(es, e)
				continue
			}
			es[j].count += e.count
			if e.first < es[j].first {
				es[j].first, es[j].rep = e.first, e.rep
			}
		}
	}
	slices.SortFunc(es, func(x, y uniqueEntry) int { return cmpU64(x.key, y.key) })
	return uniqueTableOf(es), nil
}

// UniqueValues is the values of a unique table, of dtype dt (the dtype of
// the array it was made from).
func UniqueValues(table *Array, dt DType) (*Array, error) {
	if err := checkUniqueTable(table); err != nil {
		return nil, fmt.Errorf("ndarray: unique values: %w", err)
	}
	if !UniqueKinds(dt) {
		return nil, fmt.Errorf("ndarray: unique values: dtype %v has no order key", dt)
	}
	t := table.Contiguous()
	k := t.shape[1]
	v := typed[uint64](t)
	out := newArray(dt, []int{k})
	for i := range k {
		keyToElement(out, i, v[3*k+i])
	}
	return out, nil
}

// UniqueRow is row r (1: counts, 2: first positions) of a unique table, a
// 1-D int64 array.
func UniqueRow(table *Array, r int) (*Array, error) {
	if err := checkUniqueTable(table); err != nil {
		return nil, fmt.Errorf("ndarray: unique row: %w", err)
	}
	if r < 0 || r >= UniqueRows {
		return nil, fmt.Errorf("ndarray: unique row %d of %d", r, UniqueRows)
	}
	t := table.Contiguous()
	k := t.shape[1]
	out := newArray(Int64, []int{k})
	copy(typed[int64](out)[:k], typed[int64](t)[r*k:(r+1)*k])
	return out, nil
}

// UniqueInverse is, for every element of a (flattened), the position of its
// value among the values of table, the unique table of an array holding
// a's elements: an int64 array of a's size.
func UniqueInverse(ctx context.Context, a, table *Array) (*Array, error) {
	if err := checkUniqueTable(table); err != nil {
		return nil, fmt.Errorf("ndarray: unique inverse: %w", err)
	}
	if !UniqueKinds(a.dtype) {
		return nil, fmt.Errorf("ndarray: unique inverse: dtype %v has no order key", a.dtype)
	}
	t := table.Contiguous()
	keys := typed[uint64](t)[:t.shape[1]]
	c := a.Contiguous()
	n := c.Size()
	out := newArrayUninit(Int64, []int{n})
	o := typed[int64](out)
	var lastKey uint64
	last := -1
	for i := range n {
		if i&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		g := groupKey(c.dtype, sortKeyAt(c, i))
		if last < 0 || g != lastKey {
			j, ok := slices.BinarySearch(keys, g)
			if !ok {
				return nil, fmt.Errorf("ndarray: unique inverse: element %d is not among the table's values", i)
			}
			last, lastKey = j, g
		}
		o[i] = int64(last)
	}
	return out, nil
}

// groupKey is the group of an element of dtype dt whose sort key is sk:
// its value key (valueKeyAt), which puts -0.0 with 0.0.
func groupKey(dt DType, sk uint64) uint64 {
	switch {
	case dt == Float64 && sk == negZeroKey64, dt == Float32 && sk == negZeroKey32:
		return sk + 1
	}
	return sk
}

func cmpU64(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func uniqueTableOf(es []uniqueEntry) *Array {
	k := len(es)
	out := newArrayUninit(Int64, []int{UniqueRows, k})
	v := typed[uint64](out)
	for i, e := range es {
		v[i], v[k+i], v[2*k+i], v[3*k+i] = e.key, e.count, e.first, e.rep
	}
	return out
}

func checkUniqueTable(t *Array) error {
	if t.dtype != Int64 || t.NDim() != 2 || t.shape[0] != UniqueRows {
		return fmt.Errorf("a unique table is int64 (%d, k), got %v%v", UniqueRows, t.dtype, t.shape)
	}
	return nil
}
