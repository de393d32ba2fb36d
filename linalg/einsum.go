package linalg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Einsum is numpy.einsum(subscripts, *operands) for subscripts of letters
// ("ij,jk->ik", "ii", "bij,bjk->bik", "i,i->"), implicit ("ij,jk": the
// output is the letters used once, in alphabetical order) or explicit.
// Ellipses ("...") are not supported.
//
// It is planned as steps of the tensor API, so every step is distributed:
// a letter repeated within one operand takes its diagonal, a letter found
// in one operand only and not in the output is summed there, then the
// operands are combined from left to right, each pair by TensorDot when
// all the letters they share are summed away (a matrix product, chunk by
// chunk) or else by broadcasting multiply and Sum (the letters they share
// and keep, like a batch axis), and the result is transposed to the
// output's order. The result has the operands' common type, as in NumPy
// (int32 stays int32; bool einsum is or-of-ands).
func Einsum(subscripts string, operands ...*tensor.Tensor) *tensor.Tensor {
	for i, op := range operands {
		if e := bad(fmt.Sprintf("einsum: operand %d", i), op); e != nil {
			return e
		}
	}
	ins, out, err := parseEinsum(subscripts, operands)
	if err != nil {
		return tensor.Error(fmt.Errorf("einsum %q: %w", subscripts, err))
	}
	terms := make([]einTerm, len(operands))
	for i, op := range operands {
		terms[i] = einTerm{t: op, labels: []byte(ins[i])}
	}
	// needed reports whether letter l is used by the output or by a term
	// other than those in skip.
	needed := func(l byte, skip func(j int) bool) bool {
		if strings.IndexByte(out, l) >= 0 {
			return true
		}
		for j, tm := range terms {
			if !skip(j) && slices.Contains(tm.labels, l) {
				return true
			}
		}
		return false
	}
	for i := range terms {
		terms[i] = terms[i].diagonals()
		terms[i] = terms[i].sumOut(func(l byte) bool { return needed(l, func(j int) bool { return j == i }) })
	}
	acc := terms[0]
	for i := 1; i < len(terms); i++ {
		acc = einPair(acc, terms[i], func(l byte) bool { return needed(l, func(j int) bool { return j <= i }) })
	}
	acc = acc.sumOut(func(l byte) bool { return strings.IndexByte(out, l) >= 0 })
	if acc.t.Err() != nil {
		return acc.t
	}
	perm := make([]int, len(out))
	for i := range out {
		perm[i] = slices.Index(acc.labels, out[i])
	}
	res := acc.t
	if len(perm) > 1 && !slices.IsSorted(perm) {
		res = res.Transpose(perm...)
	}
	// NumPy's einsum keeps the operands' common type (int32 sums stay
	// int32, wrapping; bools are or-of-ands), where Sum widens: cast back.
	dt := operands[0].DType()
	for _, op := range operands[1:] {
		dt = ndarray.Promote(dt, op.DType())
	}
	return res.Astype(dt)
}

// einTerm is a tensor and the letter of each of its axes.
type einTerm struct {
	t      *tensor.Tensor
	labels []byte
}

// parseEinsum checks the subscripts against the operands and returns each
// operand's letters and the output's.
func parseEinsum(sub string, operands []*tensor.Tensor) ([]string, string, error) {
	sub = strings.ReplaceAll(sub, " ", "")
	if strings.Contains(sub, ".") {
		return nil, "", fmt.Errorf("ellipses (...) are not supported")
	}
	lhs, out, explicit := strings.Cut(sub, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(operands) {
		return nil, "", fmt.Errorf("%d operands for %d subscripts", len(operands), len(ins))
	}
	size := map[byte]int{}
	count := map[byte]int{}
	for i, s := range ins {
		if len(s) != operands[i].NDim() {
			return nil, "", fmt.Errorf("operand %d has %d dimensions but subscripts %q name %d", i, operands[i].NDim(), s, len(s))
		}
		for ax := 0; ax < len(s); ax++ {
			l := s[ax]
			if !(l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z') {
				return nil, "", fmt.Errorf("invalid subscript %q in %q: use letters", l, s)
			}
			d := operands[i].Shape()[ax]
			if old, ok := size[l]; ok && old != d {
				return nil, "", fmt.Errorf("size of label %q for operand %d (%d) does not match previous terms (%d)", l, i, d, old)
			}
			size[l] = d
			count[l]++
		}
	}
	if !explicit {
		var once []byte
		for l, c := range count {
			if c == 1 {
				once = append(once, l)
			}
		}
		slices.Sort(once)
		return ins, string(once), nil
	}
	for i := 0; i < len(out); i++ {
		l := out[i]
		if _, ok := size[l]; !ok {
			return nil, "", fmt.Errorf("output subscript %q does not appear in the inputs", l)
		}
		if strings.IndexByte(out[i+1:], l) >= 0 {
			return nil, "", fmt.Errorf("output subscript %q appears more than once", l)
		}
	}
	return ins, out, nil
}

// diagonals replaces each letter repeated within the term by one axis:
// the diagonal over its axes, as x * eye summed over the second axis.
func (tm einTerm) diagonals() einTerm {
	for {
		a, b := -1, -1
		for i := 0; i < len(tm.labels) && a < 0; i++ {
			if j := slices.Index(tm.labels[i+1:], tm.labels[i]); j >= 0 {
				a, b = i, i+1+j
			}
		}
		if a < 0 {
			return tm
		}
		shape := tm.t.Shape()
		n := shape[a]
		eshape := make([]int, len(shape))
		for i := range eshape {
			eshape[i] = 1
		}
		eshape[a], eshape[b] = n, n
		eye := tensor.Eye(n, n, 0, tensor.WithDType(tm.t.DType())).Reshape(eshape...)
		tm.t = tm.t.Mul(eye).Sum(tensor.Axis(b))
		tm.labels = slices.Delete(slices.Clone(tm.labels), b, b+1)
	}
}

// sumOut sums the axes whose letters keep does not keep.
func (tm einTerm) sumOut(keep func(byte) bool) einTerm {
	var axes []int
	var labels []byte
	for i, l := range tm.labels {
		if keep(l) {
			labels = append(labels, l)
		} else {
			axes = append(axes, i)
		}
	}
	if len(axes) == 0 {
		return tm
	}
	return einTerm{t: tm.t.Sum(tensor.Axis(axes...)), labels: labels}
}

// einPair combines two terms; the letters neededLater does not need after
// this step are summed over.
func einPair(a, b einTerm, neededLater func(byte) bool) einTerm {
	var shared, keepShared []byte
	for _, l := range a.labels {
		if slices.Contains(b.labels, l) {
			shared = append(shared, l)
			if neededLater(l) {
				keepShared = append(keepShared, l)
			}
		}
	}
	if len(keepShared) == 0 {
		// A tensordot over the shared letters.
		var aa, ba []int
		for _, l := range shared {
			aa = append(aa, slices.Index(a.labels, l))
			ba = append(ba, slices.Index(b.labels, l))
		}
		var labels []byte
		for _, l := range a.labels {
			if !slices.Contains(shared, l) {
				labels = append(labels, l)
			}
		}
		for _, l := range b.labels {
			if !slices.Contains(shared, l) {
				labels = append(labels, l)
			}
		}
		return einTerm{t: tensor.TensorDot(a.t, b.t, aa, ba), labels: labels}
	}
	// Align both on the union of their letters (a's, then b's own),
	// multiply with broadcasting, and sum what is no longer needed.
	union := slices.Clone(a.labels)
	for _, l := range b.labels {
		if !slices.Contains(union, l) {
			union = append(union, l)
		}
	}
	align := func(tm einTerm) *tensor.Tensor {
		// transpose tm's axes into union order, then insert the missing ones
		var present []byte
		for _, l := range union {
			if slices.Contains(tm.labels, l) {
				present = append(present, l)
			}
		}
		perm := make([]int, len(present))
		for i, l := range present {
			perm[i] = slices.Index(tm.labels, l)
		}
		t := tm.t
		if len(perm) > 1 && !slices.IsSorted(perm) {
			t = t.Transpose(perm...)
		}
		for i, l := range union {
			if !slices.Contains(tm.labels, l) {
				t = t.ExpandDims(i)
			}
		}
		return t
	}
	prod := einTerm{t: tensor.Mul(align(a), align(b)), labels: union}
	return prod.sumOut(func(l byte) bool { return !slices.Contains(shared, l) || neededLater(l) })
}
