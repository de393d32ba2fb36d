package tensor

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// uniqueFlags marks, in the sorted 1-D s, the first element of every run
// of equal values (NaNs, sorted last, as one run: NumPy 1.24's
// equal_nan), a bool tensor of s's length.
func uniqueFlags(s *Tensor) *Tensor {
	n := s.Size()
	if n == 0 {
		return Full([]int{0}, 0, WithDType(ndarray.Bool))
	}
	first := Full([]int{1}, 1, WithDType(ndarray.Bool))
	next, prev := s.Index(From(1)), s.Index(To(n-1))
	differs := next.NotEqual(prev)
	if dt := s.DType(); dt == ndarray.Float64 || dt == ndarray.Float32 || dt.IsComplex() {
		differs = differs.And(next.IsNaN().And(prev.IsNaN()).Not())
	}
	return Concatenate(0, first, differs)
}

// UniqueAll is numpy.unique(t, return_index=True, return_inverse=True,
// return_counts=True): the sorted distinct values of t (flattened; NaNs as
// one), the flat position of each value's first occurrence, for every
// element of t the position of its value among the values, and how often
// each value occurs (the last three int64). Values, index and counts have
// a length known only once computed; inverse has t's size, in t's
// flattened chunks.
//
// For dtypes with an order key (bool, integers, float32, float64) nothing
// is sorted: every chunk makes its unique table (distinct values, counts,
// first positions), the tables merge up a tree into the one table of t
// (ops.UniqueTable) that values, index and counts are read from, and the
// inverse looks each chunk's elements up in it. Other dtypes go through
// the distributed sort (uniqueAllSorted).
func UniqueAll(t *Tensor) (values, index, inverse, counts *Tensor) {
	if u := t.needKnown("unique"); u != nil {
		return u, u, u, u
	}
	x := t.Ravel()
	if x.Size() == 0 || !ndarray.UniqueKinds(x.DType()) {
		return uniqueAllSorted(x)
	}
	table := New(ops.UniqueTable{}, x)
	values = New(ops.UniquePart{Part: ops.UniqueValues, DType: x.DType()}, table)
	index = New(ops.UniquePart{Part: ops.UniqueIndex, DType: ndarray.Int64}, table)
	counts = New(ops.UniquePart{Part: ops.UniqueCounts, DType: ndarray.Int64}, table)
	return values, index, New(ops.UniqueInverse{}, x, table), counts
}

// uniqueValues is numpy.unique(x) of a 1-D x of a dtype with an order key,
// read from its unique table (UniqueAll).
func uniqueValues(x *Tensor) *Tensor {
	return New(ops.UniquePart{Part: ops.UniqueValues, DType: x.DType()}, New(ops.UniqueTable{}, x))
}

// uniqueAllSorted is UniqueAll of the 1-D x through the distributed sort.
//
// Everything stays distributed: a stable argsort (its PSRS shuffle) and a
// take of x by it give the sorted elements, the first of every run is
// marked (a mask selecting values and, from the argsort, first
// positions), the running count of marks numbers every sorted element's
// run, a take of those numbers by the inverse permutation (the argsort of
// the argsort) puts them in x's order, and each run's length is where its
// number ends minus where it starts (SearchSorted of the run numbers in
// themselves), selected by the marks. The sources of the takes and
// searches are cut into at most coarseParts chunks, as a take or search
// pairs every chunk of its indices with every chunk of its source.
func uniqueAllSorted(x *Tensor) (values, index, inverse, counts *Tensor) {
	n := x.Size()
	if n == 0 {
		none := Zeros([]int{0}, WithDType(ndarray.Int64))
		return x, none, none, none
	}
	coarse := Chunks((n + coarseParts - 1) / coarseParts)
	perm := Argsort(x, 0)
	s := Take(x.Rechunk(coarse), perm)
	first := uniqueFlags(s)
	run := first.Astype(ndarray.Int64).CumSum(0).Sub(int64(1))
	runs := run.Rechunk(coarse)
	runLen := SearchSorted(runs, run, "right").Sub(SearchSorted(runs, run, "left"))
	inverse = Take(runs, Argsort(perm, 0))
	m := Mask(first)
	return s.Index(m), perm.Index(m), inverse, runLen.Index(m)
}

// coarseParts bounds the chunks of the sources UniqueAll takes from and
// searches in (as ops bounds the parts of a sort).
const coarseParts = 32

// flat1d is t flattened, cast to dt.
func flat1d(t *Tensor, dt ndarray.DType) *Tensor { return t.Ravel().Astype(dt) }

// Union1d is numpy.union1d(a, b): the sorted distinct values of both
// (flattened), in their promoted dtype.
func Union1d(a, b *Tensor) *Tensor {
	for _, t := range []*Tensor{a, b} {
		if u := t.needKnown("union1d"); u != nil {
			return u
		}
	}
	return Unique(Concatenate(0, a.Ravel(), b.Ravel()))
}

// Intersect1d is numpy.intersect1d(a, b, assume_unique): the sorted values
// in both (flattened), in their promoted dtype. NaN is in no
// intersection, as NaN != NaN in NumPy's comparison of neighbours. With
// assumeUnique, NumPy's own algorithm runs on the inputs as they are
// (neighbours equal in their sorted concatenation), so duplicates within
// one input show as it shows them.
func Intersect1d(a, b *Tensor, assumeUnique bool) *Tensor {
	for _, t := range []*Tensor{a, b} {
		if u := t.needKnown("intersect1d"); u != nil {
			return u
		}
	}
	dt := ndarray.Promote(a.DType(), b.DType())
	if assumeUnique {
		aux := Concatenate(0, flat1d(a, dt), flat1d(b, dt)).Sort(0)
		n := aux.Size()
		if n < 2 {
			return aux.Index(To(0))
		}
		head := aux.Index(To(n - 1))
		return head.Index(Mask(aux.Index(From(1)).Equal(head)))
	}
	// The distinct values of a (first of their runs in sorted a) that b holds.
	s := flat1d(a, dt).Sort(0)
	return s.Index(Mask(uniqueFlags(s).And(Isin(s, flat1d(b, dt)))))
}

// Setdiff1d is numpy.setdiff1d(a, b, assume_unique): the sorted distinct
// values of a (flattened) that b does not hold, in a's dtype; with
// assumeUnique, a's elements in a's order (NumPy's result then). NaN is
// never in b, so a's NaN stays.
func Setdiff1d(a, b *Tensor, assumeUnique bool) *Tensor {
	for _, t := range []*Tensor{a, b} {
		if u := t.needKnown("setdiff1d"); u != nil {
			return u
		}
	}
	x := a.Ravel()
	if assumeUnique {
		return x.Index(Mask(Isin(x, b).Not()))
	}
	s := x.Sort(0)
	return s.Index(Mask(uniqueFlags(s).And(Isin(s, b).Not())))
}

// Setxor1d is numpy.setxor1d(a, b, assume_unique): the sorted values in
// exactly one of a and b (flattened), in their promoted dtype. NumPy
// compares neighbours of the sorted distinct values of each, where
// NaN != NaN: a NaN of a and a NaN of b both stay. With assumeUnique the
// neighbours of the inputs' sorted concatenation are compared as they are.
func Setxor1d(a, b *Tensor, assumeUnique bool) *Tensor {
	for _, t := range []*Tensor{a, b} {
		if u := t.needKnown("setxor1d"); u != nil {
			return u
		}
	}
	dt := ndarray.Promote(a.DType(), b.DType())
	fa, fb := flat1d(a, dt), flat1d(b, dt)
	aux := Concatenate(0, fa, fb).Sort(0)
	n := aux.Size()
	if n == 0 {
		return aux
	}
	if assumeUnique {
		edge := Full([]int{1}, 1, WithDType(ndarray.Bool))
		flag := Concatenate(0, edge, aux.Index(From(1)).NotEqual(aux.Index(To(n-1))), edge)
		return aux.Index(Mask(flag.Index(From(1)).And(flag.Index(To(n)))))
	}
	// A distinct value stays when exactly one input holds it; NaNs (last,
	// held by neither in Isin's sense) stay once per input that has one.
	keep := uniqueFlags(aux).And(Isin(aux, fa).NotEqual(Isin(aux, fb)))
	if dt == ndarray.Float64 || dt == ndarray.Float32 {
		nan := aux.IsNaN()
		rank := nan.Astype(ndarray.Int64).CumSum(0).Sub(int64(1))
		has := fa.IsNaN().Any().Astype(ndarray.Int64).Add(fb.IsNaN().Any().Astype(ndarray.Int64))
		keep = keep.Or(nan.And(rank.Less(has)))
	}
	return aux.Index(Mask(keep))
}
