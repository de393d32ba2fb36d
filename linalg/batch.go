package linalg

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// Stacks of matrices for the functions whose ops take one 2-D matrix (QR,
// SVD and its compositions, Solve): the stack is a graph of one such op per
// matrix, each a cluster computation of its own (TSQR for a tall one),
// whose results are stacked back. The ops themselves stay 2-D, so a single
// matrix keeps its distributed path; a stack is typically many small
// matrices, for which one op each is cheap to schedule.

// stacked applies f to every matrix of a (..., M, N) (ndim > 2) and
// returns f's results for the whole stack, each of shape a.shape[:-2] +
// the result's own shape. For an empty stack the results are empty
// tensors of the shapes and dtypes f gives for one M×N matrix.
func stacked(name string, a *tensor.Tensor, nres int, f func(m *tensor.Tensor) []*tensor.Tensor) []*tensor.Tensor {
	fail := func(e *tensor.Tensor) []*tensor.Tensor {
		rs := make([]*tensor.Tensor, nres)
		for i := range rs {
			rs[i] = e
		}
		return rs
	}
	if e := bad(name, a); e != nil {
		return fail(e)
	}
	shape := a.Shape()
	nd := len(shape)
	if nd < 2 {
		return fail(tensor.Error(fmt.Errorf("%s: %d-dimensional array given. Array must be at least two-dimensional", name, nd)))
	}
	batch := shape[:nd-2]
	count := 1
	for _, d := range batch {
		count *= d
	}
	withBatch := func(own []int) []int {
		return append(append([]int(nil), batch...), own...)
	}
	if count == 0 {
		// f of one matrix of the right shape and dtype says what each
		// result is; nothing of it runs.
		one := f(tensor.Zeros(shape[nd-2:], tensor.WithDType(a.DType())))
		rs := make([]*tensor.Tensor, nres)
		for i, r := range one {
			if r.Err() != nil {
				return fail(r)
			}
			rs[i] = tensor.Zeros(withBatch(r.Shape()), tensor.WithDType(r.DType()))
		}
		return rs
	}
	flat := a.Reshape(append([]int{count}, shape[nd-2:]...)...)
	per := make([][]*tensor.Tensor, nres)
	for i := 0; i < count; i++ {
		rs := f(flat.Index(tensor.At(i)))
		for j, r := range rs {
			if r.Err() != nil {
				return fail(r)
			}
			per[j] = append(per[j], r)
		}
	}
	out := make([]*tensor.Tensor, nres)
	for j := range out {
		s := tensor.Stack(0, per[j]...)
		out[j] = s.Reshape(withBatch(per[j][0].Shape())...)
		if out[j].Err() != nil {
			return fail(out[j])
		}
	}
	return out
}

// solveStacked is Solve of a stack a (..., M, M) and b (M,) or (..., M, K),
// the two stacks broadcast against each other (the Array API standard's
// and NumPy 2's rule: a 1-D b is one vector for every matrix; any other b
// is a stack of matrices).
func solveStacked(a, b *tensor.Tensor) *tensor.Tensor {
	if e := bad("solve", a); e != nil {
		return e
	}
	if e := bad("solve", b); e != nil {
		return e
	}
	if a.NDim() < 2 {
		return tensor.Error(fmt.Errorf("solve: %d-dimensional array given. Array must be at least two-dimensional", a.NDim()))
	}
	as, bs := a.Shape(), b.Shape()
	m := as[len(as)-1]
	if as[len(as)-2] != m {
		return tensor.Error(fmt.Errorf("solve: last 2 dimensions of the array must be square"))
	}
	if b.NDim() == 0 {
		return tensor.Error(fmt.Errorf("solve: b is 0-dimensional; want (..., %d) or (..., %d, K)", m, m))
	}
	if b.NDim() == 1 {
		if bs[0] != m {
			return tensor.Error(fmt.Errorf("solve: b has %d rows, a stack of %dx%d matrices needs %d", bs[0], m, m, m))
		}
		return stacked("solve", a, 1, func(ai *tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{tensor.New(ops.Solve{}, ai, b)}
		})[0]
	}
	if bs[len(bs)-2] != m {
		return tensor.Error(fmt.Errorf("solve: b has %d rows, a stack of %dx%d matrices needs %d", bs[len(bs)-2], m, m, m))
	}
	batch, err := ndarray.BroadcastShapes(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return tensor.Error(fmt.Errorf("solve: the stacks of a %v and b %v do not broadcast: %w", as, bs, err))
	}
	k := bs[len(bs)-1]
	ab := a.BroadcastTo(append(append([]int(nil), batch...), m, m)...)
	bb := b.BroadcastTo(append(append([]int(nil), batch...), m, k)...)
	// a and b side by side, (..., M, M+K), so that one stack carries both.
	both := tensor.Concatenate(len(batch)+1, ab.Astype(solveDType(a, b)), bb.Astype(solveDType(a, b)))
	return stacked("solve", both, 1, func(ab *tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{tensor.New(ops.Solve{}, ab.Index(tensor.All(), tensor.To(m)), ab.Index(tensor.All(), tensor.From(m)))}
	})[0]
}

// solveDType is the dtype of Solve's result, which both operands take
// before they are put side by side.
func solveDType(a, b *tensor.Tensor) ndarray.DType {
	return ndarray.LinalgFloat(ndarray.Promote(a.DType(), b.DType()))
}
