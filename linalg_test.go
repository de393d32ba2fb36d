package phobos_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// End-to-end tests of matmul, dot, tensordot, outer, cumsum and cumprod:
// every result goes through a session over many chunkings (one-element
// chunks, chunks larger than the array, odd and random splits, a and b
// chunked differently) and is compared with a plain-Go loop reference.

func laSession(t *testing.T) *phobos.Session {
	t.Helper()
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// laData is a random array: small integers (exact in every dtype), mostly
// false bools (so that or-ing matters), floats in [-1, 1).
func laData(t *testing.T, r *rand.Rand, dt ndarray.DType, shape ...int) *ndarray.Array {
	t.Helper()
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Size() {
		switch {
		case dt == ndarray.Bool:
			a.SetFlat(i, float64(r.Intn(3)/2))
		case dt.IsInt():
			a.SetFlat(i, float64(r.Intn(9)-4))
		default:
			a.SetFlat(i, r.Float64()*2-1)
		}
	}
	return a
}

// laChunkings are the chunkings tried for an operand of shape.
func laChunkings(r *rand.Rand, shape []int) []tensor.Option {
	opts := []tensor.Option{tensor.Chunks(1), tensor.Chunks(1000), tensor.Chunks(2), tensor.Chunks(3)}
	for range 2 {
		ns := make([][]int, len(shape))
		for ax, n := range shape {
			if n == 0 {
				ns[ax] = []int{0}
			}
			for n > 0 {
				s := min(n, 1+r.Intn(4))
				ns[ax] = append(ns[ax], s)
				n -= s
			}
		}
		opts = append(opts, tensor.ChunkSplits(ns...))
	}
	return opts
}

func laUnravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for ax := len(shape) - 1; ax >= 0; ax-- {
		idx[ax] = i % shape[ax]
		i /= shape[ax]
	}
	return idx
}

func laFlat(idx, shape []int) int {
	f := 0
	for ax, d := range shape {
		f = f*d + idx[ax]
	}
	return f
}

// laBoolish reports whether a dot of a and b is numpy's logical one.
func laBoolish(a, b *ndarray.Array) bool {
	return a.DType() == ndarray.Bool && b.DType() == ndarray.Bool
}

// laMatMulRef is numpy.matmul by loops: 1-D operands promoted, batch axes
// broadcast.
func laMatMulRef(a, b *ndarray.Array) ([]int, []float64) {
	as, bs := a.Shape(), b.Shape()
	if len(as) == 1 {
		as = []int{1, as[0]}
	}
	if len(bs) == 1 {
		bs = []int{bs[0], 1}
	}
	na, nb := len(as), len(bs)
	m, k, n := as[na-2], as[na-1], bs[nb-1]
	nbatch := max(na, nb) - 2
	batch := make([]int, nbatch)
	for i := range batch {
		batch[i] = 1
		for _, s := range [][]int{as[:na-2], bs[:nb-2]} {
			if j := i - (nbatch - len(s)); j >= 0 && s[j] != 1 {
				batch[i] = s[j]
			}
		}
	}
	full := append(slices.Clone(batch), m, n)
	out := make([]float64, ndarray.Size(full))
	src := func(s []int, oi []int, r, c int) []int {
		idx := make([]int, len(s))
		for j := range len(s) - 2 {
			if s[j] != 1 {
				idx[j] = oi[j+nbatch-(len(s)-2)]
			}
		}
		idx[len(s)-2], idx[len(s)-1] = r, c
		return idx
	}
	for o := range out {
		oi := laUnravel(o, full)
		i, j := oi[nbatch], oi[nbatch+1]
		s := 0.0
		for p := range k {
			x := a.AtFlat(laFlat(src(as, oi, i, p), as)) * b.AtFlat(laFlat(src(bs, oi, p, j), bs))
			if laBoolish(a, b) {
				s = math.Max(s, x)
			} else {
				s += x
			}
		}
		out[o] = s
	}
	shape := slices.Clone(batch)
	if a.NDim() > 1 {
		shape = append(shape, m)
	}
	if b.NDim() > 1 {
		shape = append(shape, n)
	}
	return shape, out
}

// laTensorDotRef is numpy.tensordot by loops.
func laTensorDotRef(a, b *ndarray.Array, aAxes, bAxes []int) ([]int, []float64) {
	free := func(nd int, c []int) []int {
		var f []int
		for ax := range nd {
			if !slices.Contains(c, ax) {
				f = append(f, ax)
			}
		}
		return f
	}
	aFree, bFree := free(a.NDim(), aAxes), free(b.NDim(), bAxes)
	var oshape, kshape []int
	for _, ax := range aFree {
		oshape = append(oshape, a.Shape()[ax])
	}
	for _, ax := range bFree {
		oshape = append(oshape, b.Shape()[ax])
	}
	for _, ax := range aAxes {
		kshape = append(kshape, a.Shape()[ax])
	}
	out := make([]float64, ndarray.Size(oshape))
	ia, ib := make([]int, a.NDim()), make([]int, b.NDim())
	for o := range out {
		oi := laUnravel(o, oshape)
		for i, ax := range aFree {
			ia[ax] = oi[i]
		}
		for i, ax := range bFree {
			ib[ax] = oi[len(aFree)+i]
		}
		s := 0.0
		for kf := range ndarray.Size(kshape) {
			ki := laUnravel(kf, kshape)
			for i := range ki {
				ia[aAxes[i]], ib[bAxes[i]] = ki[i], ki[i]
			}
			x := a.AtFlat(laFlat(ia, a.Shape())) * b.AtFlat(laFlat(ib, b.Shape()))
			if laBoolish(a, b) {
				s = math.Max(s, x)
			} else {
				s += x
			}
		}
		out[o] = s
	}
	return oshape, out
}

// laCumRef is cumsum or cumprod by loops.
func laCumRef(a *ndarray.Array, axis int, prod bool) []float64 {
	shape := a.Shape()
	out := make([]float64, a.Size())
	for i := range out {
		idx := laUnravel(i, shape)
		v := a.AtFlat(i)
		if idx[axis] > 0 {
			idx[axis]--
			if p := out[laFlat(idx, shape)]; prod {
				v *= p
			} else {
				v += p
			}
		}
		out[i] = v
	}
	return out
}

// laRun executes x and compares it with the reference values.
func laRun(t *testing.T, sess *phobos.Session, what string, x *tensor.Tensor, shape []int, dt ndarray.DType, want []float64) {
	t.Helper()
	res, err := sess.Execute(context.Background(), x)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	got := res[0]
	if got.DType() != dt || !slices.Equal(got.Shape(), shape) {
		t.Fatalf("%s: got %v%v, want %v%v", what, got.DType(), got.Shape(), dt, shape)
	}
	laCompare(t, what, got, want)
}

func laCompare(t *testing.T, what string, got *ndarray.Array, want []float64) {
	t.Helper()
	g := got.ToFloat64s()
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	tol := 1e-12
	if got.DType() == ndarray.Float32 {
		tol = 1e-5
	}
	for i := range g {
		if math.Abs(g[i]-want[i]) > tol*(1+math.Abs(want[i]))*10 {
			t.Fatalf("%s: element %d (of %v) = %v, want %v", what, i, got.Shape(), g[i], want[i])
		}
	}
}

type laPair struct{ a, b []int }

func TestMatMulChunkings(t *testing.T) {
	sess := laSession(t)
	r := rand.New(rand.NewSource(11))
	cases := []laPair{
		{[]int{7, 5}, []int{5, 9}},          // odd sizes
		{[]int{1, 1}, []int{1, 1}},          // one element
		{[]int{5}, []int{5, 3}},             // 1-D first
		{[]int{4, 5}, []int{5}},             // 1-D second
		{[]int{6}, []int{6}},                // inner product
		{[]int{5}, []int{2, 5, 3}},          // 1-D against a batch
		{[]int{3, 1, 4, 5}, []int{2, 5, 3}}, // broadcast batch axes
		{[]int{2, 4, 3}, []int{1, 3, 2}},    // broadcast length-1 batch
		{[]int{3, 0}, []int{0, 4}},          // empty contraction
		{[]int{0, 3}, []int{3, 2}},          // empty rows
	}
	dtypes := [][2]ndarray.DType{
		{ndarray.Float64, ndarray.Float64}, {ndarray.Float32, ndarray.Float32},
		{ndarray.Int32, ndarray.Int32}, {ndarray.Int64, ndarray.Float32}, {ndarray.Bool, ndarray.Bool},
	}
	for _, c := range cases {
		for di, dts := range dtypes {
			a, b := laData(t, r, dts[0], c.a...), laData(t, r, dts[1], c.b...)
			shape, want := laMatMulRef(a, b)
			ca, cb := laChunkings(r, c.a), laChunkings(r, c.b)
			for i := range ca {
				// Mismatched chunkings: pair a's i-th with another of b's.
				j := (i + di + 1) % len(cb)
				x := tensor.FromArray(a, ca[i]).MatMul(tensor.FromArray(b, cb[j]))
				what := fmt.Sprintf("%v%v @ %v%v, chunkings %d/%d", dts[0], c.a, dts[1], c.b, i, j)
				laRun(t, sess, what, x, shape, ndarray.Promote(dts[0], dts[1]), want)
			}
		}
	}
}

func TestMatMulRandLarge(t *testing.T) {
	sess := laSession(t)
	g := tensor.NewGenerator(5)
	a := g.Rand([]int{37, 53}, tensor.Chunks(10, 7))
	b := g.Rand([]int{53, 29}, tensor.ChunkSplits([]int{20, 20, 13}, []int{29}))
	x := tensor.MatMul(a, b)
	res, err := sess.Execute(context.Background(), a, b, x)
	if err != nil {
		t.Fatal(err)
	}
	shape, want := laMatMulRef(res[0], res[1])
	if !slices.Equal(res[2].Shape(), shape) {
		t.Fatalf("shape %v, want %v", res[2].Shape(), shape)
	}
	laCompare(t, "rand matmul", res[2], want)
	// Same product through Dot and TensorDotN, and with float32 operands.
	for _, y := range []*tensor.Tensor{tensor.Dot(a, b), tensor.TensorDotN(a, b, 1)} {
		laRun(t, sess, "rand dot", y, shape, ndarray.Float64, want)
	}
	f32 := tensor.MatMul(a.Astype(ndarray.Float32), b.Astype(ndarray.Float32))
	laRun(t, sess, "rand matmul f32", f32, shape, ndarray.Float32, want)
}

func TestTensorDotChunkings(t *testing.T) {
	sess := laSession(t)
	r := rand.New(rand.NewSource(12))
	cases := []struct {
		a, b         []int
		aAxes, bAxes []int
	}{
		{[]int{3, 4, 5}, []int{5, 4, 2}, []int{1, 2}, []int{1, 0}},
		{[]int{6, 2, 5}, []int{5, 3, 6}, []int{0, -1}, []int{-1, 0}},
		{[]int{4, 3}, []int{5}, nil, nil},
		{[]int{7}, []int{7}, []int{0}, []int{0}},
		{[]int{2, 3}, []int{2, 3}, []int{0, 1}, []int{0, 1}},
	}
	dtypes := [][2]ndarray.DType{
		{ndarray.Float64, ndarray.Float64}, {ndarray.Float32, ndarray.Int32}, {ndarray.Int32, ndarray.Int32}, {ndarray.Bool, ndarray.Bool},
	}
	norm := func(axes []int, nd int) []int {
		out := make([]int, len(axes))
		for i, ax := range axes {
			out[i] = (ax + nd) % nd
		}
		return out
	}
	for _, c := range cases {
		for di, dts := range dtypes {
			a, b := laData(t, r, dts[0], c.a...), laData(t, r, dts[1], c.b...)
			shape, want := laTensorDotRef(a, b, norm(c.aAxes, len(c.a)), norm(c.bAxes, len(c.b)))
			ca, cb := laChunkings(r, c.a), laChunkings(r, c.b)
			for i := range ca {
				j := (i + di + 2) % len(cb)
				x := tensor.TensorDot(tensor.FromArray(a, ca[i]), tensor.FromArray(b, cb[j]), c.aAxes, c.bAxes)
				what := fmt.Sprintf("tensordot %v%v . %v%v over %v %v, chunkings %d/%d", dts[0], c.a, dts[1], c.b, c.aAxes, c.bAxes, i, j)
				laRun(t, sess, what, x, shape, ndarray.Promote(dts[0], dts[1]), want)
			}
		}
	}
}

func TestDotOuter(t *testing.T) {
	sess := laSession(t)
	r := rand.New(rand.NewSource(13))
	a := laData(t, r, ndarray.Float64, 2, 3, 4)
	b := laData(t, r, ndarray.Float64, 5, 4, 3)
	v := laData(t, r, ndarray.Int32, 4)
	cv := laChunkings(r, []int{4})
	for i, opt := range laChunkings(r, []int{5, 4, 3}) {
		ta, tb, tv := tensor.FromArray(a, tensor.Chunks(2)), tensor.FromArray(b, opt), tensor.FromArray(v, cv[i%len(cv)])
		shape, want := laTensorDotRef(a, b, []int{2}, []int{1})
		laRun(t, sess, fmt.Sprintf("dot N-D %d", i), tensor.Dot(ta, tb), shape, ndarray.Float64, want)
		shape, want = laTensorDotRef(a, v, []int{2}, []int{0})
		laRun(t, sess, fmt.Sprintf("dot N-D.1-D %d", i), ta.Dot(tv), shape, ndarray.Float64, want)
		shape, want = laTensorDotRef(v, v, []int{0}, []int{0})
		laRun(t, sess, fmt.Sprintf("dot 1-D.1-D %d", i), tensor.Dot(tv, tv), shape, ndarray.Int32, want)
		s := tensor.FromSlice([]float64{2}, nil)
		two := make([]float64, v.Size())
		for k := range two {
			two[k] = 2 * v.AtFlat(k)
		}
		laRun(t, sess, fmt.Sprintf("dot scalar %d", i), tensor.Dot(s, tv), []int{4}, ndarray.Float64, two)

		// outer: (2*3*4) x 4 against a loop reference.
		ow := make([]float64, 0, a.Size()*v.Size())
		for p := range a.Size() {
			for q := range v.Size() {
				ow = append(ow, a.AtFlat(p)*v.AtFlat(q))
			}
		}
		laRun(t, sess, fmt.Sprintf("outer %d", i), tensor.Outer(tensor.FromArray(a, opt2(i)), tv), []int{24, 4}, ndarray.Float64, ow)
	}
}

// opt2 gives a 3-D chunking for the outer test's first operand.
func opt2(i int) tensor.Option {
	return []tensor.Option{tensor.Chunks(1), tensor.Chunks(2), tensor.Chunks(1000), tensor.Chunks(1, 2, 3)}[i%4]
}

func TestCumulativeChunkings(t *testing.T) {
	sess := laSession(t)
	r := rand.New(rand.NewSource(14))
	shapes := [][]int{{9}, {7, 5}, {3, 4, 5}, {4, 0}}
	for _, shape := range shapes {
		for _, dt := range []ndarray.DType{ndarray.Float64, ndarray.Float32, ndarray.Int32, ndarray.Bool} {
			a := laData(t, r, dt, shape...)
			odt := ndarray.Int64
			if dt.IsFloat() {
				odt = dt
			}
			for ci, opt := range laChunkings(r, shape) {
				for axis := -len(shape); axis < len(shape); axis++ {
					ax := (axis + len(shape)) % len(shape)
					x := tensor.FromArray(a, opt)
					laRun(t, sess, fmt.Sprintf("cumsum %v%v chunking %d axis %d", dt, shape, ci, axis),
						x.CumSum(axis), shape, odt, laCumRef(a, ax, false))
					laRun(t, sess, fmt.Sprintf("cumprod %v%v chunking %d axis %d", dt, shape, ci, axis),
						x.CumProd(axis), shape, odt, laCumRef(a, ax, true))
				}
			}
		}
	}
	// numpy: cumsum of a 0-d array is 1-D.
	laRun(t, sess, "cumsum 0-d", tensor.FromSlice([]int32{5}, nil).CumSum(0), []int{1}, ndarray.Int64, []float64{5})
}

func TestLinalgErrorsAtExecute(t *testing.T) {
	sess := laSession(t)
	a := tensor.Ones([]int{2, 3}, tensor.Chunks(2))
	b := tensor.Ones([]int{4, 3}, tensor.Chunks(2))
	for _, x := range []*tensor.Tensor{tensor.MatMul(a, b), tensor.TensorDot(a, b, []int{0}, []int{0}), a.CumSum(5)} {
		if _, err := sess.Execute(context.Background(), x); err == nil {
			t.Errorf("%v: executed without error", x)
		}
	}
}

// TestLinalgNumpyValues checks small results computed by numpy 1.24,
// including int32 wrap-around across summed blocks.
func TestLinalgNumpyValues(t *testing.T) {
	sess := laSession(t)
	big := make([]int32, 4)
	three := make([]int32, 4)
	for i := range big {
		big[i], three[i] = 1<<30+3, 3
	}
	for _, c := range []int{1, 2, 4} {
		// np.full((1,4), 2**30+3, np.int32) @ np.full((4,1), 3, np.int32) == [[36]]
		x := tensor.MatMul(tensor.FromSlice(big, []int{1, 4}, tensor.Chunks(c)), tensor.FromSlice(three, []int{4, 1}, tensor.Chunks(c)))
		laRun(t, sess, fmt.Sprintf("int32 wrap, chunks %d", c), x, []int{1, 1}, ndarray.Int32, []float64{36})
	}
	ar := func(n int, off int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = i + off
		}
		return v
	}
	for _, c := range []int{1, 2, 3} {
		x := tensor.FromSlice(ar(24, 0), []int{2, 3, 4}, tensor.Chunks(c))
		y := tensor.FromSlice(ar(12, -5), []int{4, 3}, tensor.Chunks(c+1))
		laRun(t, sess, "tensordot", tensor.TensorDot(x, y, []int{1, 2}, []int{1, 0}), []int{2}, ndarray.Int64, []float64{110, 182})
		p := tensor.FromSlice(ar(6, 0), []int{2, 1, 3}, tensor.Chunks(c))
		q := tensor.FromSlice(ar(12, -4), []int{2, 3, 2}, tensor.Chunks(c))
		laRun(t, sess, "batched matmul", p.MatMul(q), []int{2, 1, 2}, ndarray.Int64, []float64{-2, 1, 52, 64})
		m := tensor.FromSlice([]int32{1, 2, 3, 4, 5, 6}, []int{2, 3}, tensor.Chunks(c))
		laRun(t, sess, "cumprod", m.CumProd(0), []int{2, 3}, ndarray.Int64, []float64{1, 2, 3, 4, 10, 18})
		bl := tensor.FromSlice([]bool{true, false, true, true}, []int{4}, tensor.Chunks(c))
		laRun(t, sess, "cumsum bool", bl.CumSum(-1), []int{4}, ndarray.Int64, []float64{1, 1, 2, 3})
		d := tensor.Dot(tensor.FromSlice(ar(6, 0), []int{3, 2}, tensor.Chunks(c)), tensor.FromSlice(ar(2, 0), []int{2}, tensor.Chunks(c)))
		laRun(t, sess, "dot", d, []int{3}, ndarray.Int64, []float64{1, 3, 5})
	}
}
