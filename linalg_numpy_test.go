package phobos_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// The NumPy differential suite of package linalg, on the machinery of
// numpy_diff_test.go: every case is a linalg expression and the NumPy one
// it must agree with, run under chunkings that matter to TSQR (rows of
// one, odd row chunks, one chunk larger than the array, irregular splits
// of rows and columns, several column chunks), in sessions with fusion on
// and off and with two workers. QR and SVD agree with NumPy up to the
// signs of Q's columns and R's rows (of U's columns and Vᵀ's rows), so
// both sides normalise them the same way: diag(R) >= 0, and each column of
// U summing to a positive number.

// laChunking cuts axis 0 into chunks of rows(k, length) and every other
// axis into chunks of cols (-1: whole).
func laChunking(name string, rows func(k, n int) int, cols int) npChunking {
	return npChunking{name, func(k int, shape []int) tensor.Option {
		sizes := make([]int, len(shape))
		for ax, n := range shape {
			sizes[ax] = cols
			if ax == 0 {
				sizes[ax] = rows(k, n)
			}
		}
		if len(sizes) == 0 {
			return tensor.Chunks(1)
		}
		return tensor.Chunks(sizes...)
	}}
}

var (
	laRows1   = laChunking("rows 1", func(int, int) int { return 1 }, -1)
	laRowsOdd = laChunking("rows 3|7", func(k, _ int) int { return []int{3, 7}[k%2] }, -1)
	laRowsBig = laChunking("one chunk 1<<20", func(int, int) int { return 1 << 20 }, 1<<20)
	laCols2   = laChunking("rows 4, cols 2", func(int, int) int { return 4 }, 2)
	laMany    = laChunking("rows n/8", func(_, n int) int { return max(1, n/8) }, -1)
	laAll     = []npChunking{laRows1, laRowsOdd, laRowsBig, npChunkIrr, laCols2, laMany}
	// laFew is for cases whose inputs have many rows.
	laFew = []npChunking{laRowsOdd, laRowsBig, npChunkIrr, laCols2, laMany}
)

// laDiag is the diagonal of a 2-D tensor r (k = min rows, cols).
func laDiag(r *tensor.Tensor) *tensor.Tensor {
	s := r.Shape()
	return r.Mul(tensor.Eye(s[0], s[1], 0, tensor.WithDType(r.DType()))).Sum(tensor.Axis(1)).Index(tensor.To(min(s[0], s[1])))
}

// laQRSigned is q, r with the signs making diag(r) >= 0 (columns of q past
// min(M, N), in complete mode, are left as they are).
func laQRSigned(q, r *tensor.Tensor) []*tensor.Tensor {
	d := laDiag(r).Sign()
	k := d.Shape()[0]
	dq := d
	if extra := q.Shape()[1] - k; extra > 0 {
		dq = tensor.Concatenate(0, d, tensor.Ones([]int{extra}, tensor.WithDType(d.DType())))
	}
	dr := dq.Index(tensor.To(r.Shape()[0])).Reshape(r.Shape()[0], 1)
	return []*tensor.Tensor{q.Mul(dq), r.Mul(dr)}
}

const npQRSigned = `(lambda q, r: (lambda d: (q * np.concatenate([d, np.ones(q.shape[1] - d.size, d.dtype)]), ` +
	`r * np.concatenate([d, np.ones(q.shape[1] - d.size, d.dtype)])[:r.shape[0], None]))(np.sign(np.diag(r))))`

// laSVDSigned is u, s, vt with each column of u summing to a positive number.
func laSVDSigned(u, s, vt *tensor.Tensor) []*tensor.Tensor {
	d := u.Sum(tensor.Axis(0)).Sign()
	return []*tensor.Tensor{u.Mul(d), s, vt.Mul(d.Reshape(d.Shape()[0], 1))}
}

const npSVDSigned = `(lambda u, s, vt: (lambda d: (u * d, s, vt * d[:, None]))(np.sign(u.sum(0))))`

// Inputs of the suite.
var (
	laTall    = npR(dF64, 101, 37, 5)
	laTall32  = npR(dF32, 102, 37, 5)
	laTallBig = npR(dF64, 103, 300, 12)
	laSq      = npR(dF64, 104, 6, 6)
	laSq32    = npR(dF32, 105, 6, 6)
	laWide    = npR(dF64, 106, 5, 23)
	laWide32  = npR(dF32, 107, 4, 9)
	laOne     = npR(dF64, 108, 1, 1)
	laRow     = npR(dF64, 109, 1, 6)
	laIntTall = npI(dI64, 110, -9, 9, 20, 4)
	laB6      = npR(dF64, 111, 6)
	laB63     = npR(dF64, 112, 6, 3)
	laB37     = npR(dF64, 113, 37)
	laB372    = npR(dF64, 114, 37, 2)
	laB5      = npR(dF64, 115, 5, 2)
	laB37f    = npR(dF32, 116, 37, 2)
	laStack   = npR(dF64, 117, 2, 3, 4, 4)
	laTri     = laAddDiag(npR(dF64, 118, 6, 6), 6)
	laTri32   = laAddDiag(npR(dF64, 119, 6, 6), 6).Astype(dF32)
	laSPD     = laGram(npR(dF64, 120, 6, 6))
	laSPD32   = laGram(npR(dF64, 121, 5, 5)).Astype(dF32)
	laSPDs    = laGramStack(npR(dF64, 122, 3, 4, 4))
	laSing    = npFill(dF64, 0, []int{3, 3}, func(i int, _ *npLCG) float64 { return float64(i/3+1) * float64(i%3+1) })
	laNotPD   = npFill(dF64, 0, []int{2, 2}, func(i int, _ *npLCG) float64 { return []float64{1, 2, 2, 1}[i] })
	laVec     = npR(dF64, 123, 5)
	laRect    = npR(dF64, 124, 3, 4)
	// laRankDef is 37×5 of rank 4: column 4 = column 1 + column 2.
	laRankDef = npFill(dF64, 0, []int{37, 5}, func(i int, _ *npLCG) float64 {
		r, c := i/5, i%5
		if c == 4 {
			return laTall.AtFlat(r*5+1) + laTall.AtFlat(r*5+2)
		}
		return laTall.AtFlat(i)
	})
)

// laAddDiag is a + v·I (a square).
func laAddDiag(a *ndarray.Array, v float64) *ndarray.Array {
	n := a.Shape()[0]
	out := a.Copy()
	for i := range n {
		out.SetFlat(i*n+i, out.AtFlat(i*n+i)+v)
	}
	return out
}

// laGram is a aᵀ + n·I: symmetric positive definite.
func laGram(a *ndarray.Array) *ndarray.Array {
	at, _ := a.Transpose(1, 0)
	g, err := ndarray.MatMul(a, at)
	if err != nil {
		panic(err)
	}
	return laAddDiag(g, float64(a.Shape()[0]))
}

// laGramStack is laGram of every matrix of a (s, n, n).
func laGramStack(a *ndarray.Array) *ndarray.Array {
	s, n := a.Shape()[0], a.Shape()[1]
	out, _ := ndarray.New(dF64, s, n, n)
	for i := range s {
		m, _ := a.Index(0, i)
		g := laGram(m.Copy())
		for j := range n * n {
			out.SetFlat(i*n*n+j, g.AtFlat(j))
		}
	}
	return out
}

// Tolerances: TSQR factors in a different order than one LAPACK call, so
// results agree to rounding, not bit for bit.
const laWhy = "a different factorisation order (TSQR tree, blocked QR) than NumPy's single LAPACK call"

func laTol64(c npCase) npCase { return c.tol(1e-9, 1e-11, laWhy) }
func laTol32(c npCase) npCase { return c.tol(1e-3, 1e-4, laWhy+", in float32") }

func laCases() []npCase {
	return append(append(append(append(append(append(laCoreCases(), laNormCases()...), laEinsumCases()...), laComposedCases()...), laLUCases()...), laRSVDCases()...), laProductCases()...)
}

// laComposedCases are matrix_rank, pinv, cond, multi_dot and matrix_power.
func laComposedCases() []npCase {
	one := func(name, expr string, a *ndarray.Array, f func(*tensor.Tensor) *tensor.Tensor) npCase {
		return laTol64(npOne(name, expr, ins("a", a), func(e *npEnv) *tensor.Tensor { return f(e.v("a")) }))
	}
	var cases []npCase
	for _, c := range []struct {
		name string
		a    *ndarray.Array
	}{{"tall", laTall}, {"wide", laWide}, {"rank deficient", laRankDef}, {"square", laSq}} {
		cases = append(cases,
			one("matrix_rank "+c.name, "np.linalg.matrix_rank(a)", c.a, func(a *tensor.Tensor) *tensor.Tensor { return linalg.MatrixRank(a) }),
			one("pinv "+c.name, "np.linalg.pinv(a)", c.a, func(a *tensor.Tensor) *tensor.Tensor { return linalg.Pinv(a) }),
		)
		if c.a != laRankDef { // there s_min is rounding noise: cond is ~1e16 of no fixed value
			cases = append(cases, one("cond "+c.name, "np.linalg.cond(a)", c.a, func(a *tensor.Tensor) *tensor.Tensor { return linalg.Cond(a, nil) }))
		}
	}
	for _, p := range []struct {
		py  string
		ord any
	}{{"2", 2}, {"-2", -2}, {"'fro'", "fro"}, {"'nuc'", "nuc"}, {"1", 1}, {"-1", -1}, {"np.inf", math.Inf(1)}, {"-np.inf", math.Inf(-1)}} {
		ord := p.ord
		cases = append(cases, one("cond p="+p.py, "np.linalg.cond(a, "+p.py+")", laSq, func(a *tensor.Tensor) *tensor.Tensor { return linalg.Cond(a, ord) }).
			tol(1e-8, 0, "a condition number multiplies two norms, one of an inverse"))
	}
	cases = append(cases,
		one("matrix_rank tol", "np.linalg.matrix_rank(a, tol=0.5)", laTall, func(a *tensor.Tensor) *tensor.Tensor { return linalg.MatrixRank(a, 0.5) }),
		one("pinv rcond", "np.linalg.pinv(a, rcond=0.1)", laTall, func(a *tensor.Tensor) *tensor.Tensor { return linalg.Pinv(a, 0.1) }),
		one("pinv float32", "np.linalg.pinv(a)", laTall32, func(a *tensor.Tensor) *tensor.Tensor { return linalg.Pinv(a) }).tol(1e-3, 1e-4, laWhy+", in float32"),
	)
	for _, n := range []int{0, 1, 2, 3, 5, -1, -2} {
		cases = append(cases, one(fmt.Sprintf("matrix_power %d", n), fmt.Sprintf("np.linalg.matrix_power(a, %d)", n), laSq,
			func(a *tensor.Tensor) *tensor.Tensor { return linalg.MatrixPower(a, n) }).tol(1e-9, 1e-9, "powers and inverses accumulate rounding"))
	}
	cases = append(cases,
		one("matrix_power stack", "np.linalg.matrix_power(a, 3)", laStack, func(a *tensor.Tensor) *tensor.Tensor { return linalg.MatrixPower(a, 3) }),
		npOne("matrix_power int", "np.linalg.matrix_power(a, 3)", ins("a", npI(dI64, 150, -3, 3, 4, 4)), func(e *npEnv) *tensor.Tensor { return linalg.MatrixPower(e.v("a"), 3) }),
		npOne("matrix_power int 0", "np.linalg.matrix_power(a, 0)", ins("a", npI(dI32, 151, -3, 3, 4, 4)), func(e *npEnv) *tensor.Tensor { return linalg.MatrixPower(e.v("a"), 0) }),
		laTol64(npOne("multi_dot", "np.linalg.multi_dot([a, b, c])", ins("a", laSq, "b", laB63, "c", npR(dF64, 152, 3, 7)), func(e *npEnv) *tensor.Tensor {
			return linalg.MultiDot(e.v("a"), e.v("b"), e.v("c"))
		})),
		laTol64(npOne("multi_dot vectors", "np.linalg.multi_dot([u, a, b, v])", ins("u", laB6, "a", laSq, "b", laB63, "v", npR(dF64, 153, 3)), func(e *npEnv) *tensor.Tensor {
			return linalg.MultiDot(e.v("u"), e.v("a"), e.v("b"), e.v("v"))
		})),
		laTol64(npOne("multi_dot row", "np.linalg.multi_dot([u, a, b])", ins("u", laB6, "a", laSq, "b", laB63), func(e *npEnv) *tensor.Tensor {
			return linalg.MultiDot(e.v("u"), e.v("a"), e.v("b"))
		})),
		npOne("multi_dot misaligned", "np.linalg.multi_dot([a, b])", ins("a", laSq, "b", laTall), func(e *npEnv) *tensor.Tensor {
			return linalg.MultiDot(e.v("a"), e.v("b"))
		}).fails(),
		npOne("matrix_power not square", "np.linalg.matrix_power(a, 2)", ins("a", laTall), func(e *npEnv) *tensor.Tensor {
			return linalg.MatrixPower(e.v("a"), 2)
		}).fails(),
	)
	return cases
}

// laEinsumCases are numpy.einsum's, planned as tensordot, multiply and sum.
func laEinsumCases() []npCase {
	b3 := npR(dF64, 130, 2, 4, 4)
	c3 := npR(dF64, 131, 2, 4, 3)
	t3 := npR(dF64, 132, 3, 6, 4)
	i32a := npI(dI32, 133, -9, 9, 5, 6)
	i32b := npI(dI32, 134, -9, 9, 6, 4)
	boa := npB(135, 5, 6)
	bob := npB(136, 6, 4)
	v6 := npR(dF64, 137, 6)
	v3 := npR(dF64, 138, 3)
	type ec struct {
		sub  string
		args []*ndarray.Array
	}
	var cases []npCase
	for _, c := range []ec{
		{"ij,jk->ik", []*ndarray.Array{laSq, laB63}},
		{"ij,jk", []*ndarray.Array{laSq, laB63}},
		{"ij->ji", []*ndarray.Array{laTall}},
		{"ij->", []*ndarray.Array{laTall}},
		{"ij->j", []*ndarray.Array{laTall}},
		{"ii->i", []*ndarray.Array{laSq}},
		{"ii", []*ndarray.Array{laSq}},
		{"i,i->", []*ndarray.Array{laB6, v6}},
		{"i,j->ij", []*ndarray.Array{laB6, v3}},
		{"bij,bjk->bik", []*ndarray.Array{b3, c3}},
		{"ijk,jl->ikl", []*ndarray.Array{t3, laB63}},
		{"ij,jk,kl->il", []*ndarray.Array{laSq, laSq, laB63}},
		{"ij,ij->i", []*ndarray.Array{laSq, laTri}},
		{"ji,jk->ki", []*ndarray.Array{laSq, laB63}},
		{"ij,jk->ik int32", []*ndarray.Array{i32a, i32b}},
		{"ij,jk->ik bool", []*ndarray.Array{boa, bob}},
		{"ij->i int32", []*ndarray.Array{i32a}},
		{"ij,ij->j bool", []*ndarray.Array{boa, boa}},
		{"iij->j", []*ndarray.Array{npR(dF64, 139, 3, 3, 5)}},
		{"ij,jk->ik float32", []*ndarray.Array{laSq32, laSq32}},
	} {
		sub, _, _ := strings.Cut(c.sub, " ")
		var names []string
		var pairs []any
		for i, a := range c.args {
			n := string(rune('a' + i))
			names = append(names, n)
			pairs = append(pairs, n, a)
		}
		expr := fmt.Sprintf("np.einsum(%q, %s)", sub, strings.Join(names, ", "))
		cs := npOne("einsum "+c.sub, expr, ins(pairs...), func(e *npEnv) *tensor.Tensor {
			var ts []*tensor.Tensor
			for _, n := range names {
				ts = append(ts, e.v(n))
			}
			return linalg.Einsum(sub, ts...)
		})
		if c.args[0].DType() == dF32 {
			cs = laTol32(cs)
		} else if c.args[0].DType() == dF64 {
			cs = cs.tol(1e-12, 1e-13, "einsum sums in another order than NumPy's")
		}
		cases = append(cases, cs)
	}
	fail := func(name, sub string, args ...*ndarray.Array) npCase {
		var names []string
		var pairs []any
		for i, a := range args {
			n := string(rune('a' + i))
			names = append(names, n)
			pairs = append(pairs, n, a)
		}
		return npOne(name, fmt.Sprintf("np.einsum(%q, %s)", sub, strings.Join(names, ", ")), ins(pairs...), func(e *npEnv) *tensor.Tensor {
			var ts []*tensor.Tensor
			for _, n := range names {
				ts = append(ts, e.v(n))
			}
			return linalg.Einsum(sub, ts...)
		}).fails()
	}
	return append(cases,
		fail("einsum size mismatch", "ij,jk->ik", laTall, laB63),
		fail("einsum too many subscripts", "ijk->i", laTall),
		fail("einsum unknown output", "ij->k", laTall),
		fail("einsum operand count", "ij,jk->ik", laSq),
	)
}

// laNormCases are numpy.linalg.norm's: vector and matrix orders, axes, stacks.
func laNormCases() []npCase {
	type nc struct {
		name, py string
		a        *ndarray.Array
		ord      any
		axes     []int
	}
	inf, ninf := math.Inf(1), math.Inf(-1)
	var cases []npCase
	for _, c := range []nc{
		{"norm", "", laTall, nil, nil},
		{"norm int", "", laIntTall, nil, nil},
		{"norm stack", "", laStack, nil, nil},
		{"norm vector", "", laB37, nil, nil},
		{"norm vector 2", "ord=2", laB37, 2, nil},
		{"norm vector 1", "ord=1", laB37, 1, nil},
		{"norm vector inf", "ord=np.inf", laB37, inf, nil},
		{"norm vector -inf", "ord=-np.inf", laB37, ninf, nil},
		{"norm vector 0", "ord=0", laB37, 0, nil},
		{"norm vector 3", "ord=3", laB37, 3, nil},
		{"norm vector 0.5", "ord=0.5", laB37, 0.5, nil},
		{"norm rows 2", "axis=1", laTall, nil, []int{1}},
		{"norm columns 1", "ord=1, axis=0", laTall, 1, []int{0}},
		{"norm rows inf", "ord=np.inf, axis=-1", laTall, inf, []int{-1}},
		{"norm fro", "ord='fro'", laTall, "fro", nil},
		{"norm nuc", "ord='nuc'", laTall, "nuc", nil},
		{"norm nuc wide", "ord='nuc'", laWide, "nuc", nil},
		{"norm matrix 1", "ord=1", laTall, 1, nil},
		{"norm matrix -1", "ord=-1", laTall, -1, nil},
		{"norm matrix inf", "ord=np.inf", laTall, inf, nil},
		{"norm matrix -inf", "ord=-np.inf", laTall, ninf, nil},
		{"norm matrix 2", "ord=2", laTall, 2, nil},
		{"norm matrix -2", "ord=-2", laTall, -2, nil},
		{"norm matrix 2 axes 1,0", "ord=2, axis=(1, 0)", laTall, 2, []int{1, 0}},
		{"norm matrix 1 axes 1,0", "ord=1, axis=(1, 0)", laTall, 1, []int{1, 0}},
		{"norm stack fro", "ord='fro', axis=(-2, -1)", laStack, "fro", []int{-2, -1}},
		{"norm stack 1", "ord=1, axis=(1, 3)", laStack, 1, []int{1, 3}},
		{"norm stack inf", "ord=np.inf, axis=(3, 0)", laStack, inf, []int{3, 0}},
		{"norm float32", "ord=1", laTall32, 1, nil},
	} {
		expr := "np.linalg.norm(a)"
		if c.py != "" {
			expr = "np.linalg.norm(a, " + c.py + ")"
		}
		ord, axes := c.ord, c.axes
		cases = append(cases, laTol64(npOne(c.name, expr, ins("a", c.a), func(e *npEnv) *tensor.Tensor {
			return linalg.Norm(e.v("a"), ord, axes...)
		})))
		if c.a.DType() == dF32 {
			cases[len(cases)-1] = laTol32(cases[len(cases)-1])
		}
	}
	fail := func(name, expr string, a *ndarray.Array, ord any, axes ...int) npCase {
		return npOne(name, expr, ins("a", a), func(e *npEnv) *tensor.Tensor { return linalg.Norm(e.v("a"), ord, axes...) }).fails()
	}
	return append(cases,
		fail("norm bad ord", "np.linalg.norm(a, ord='bad')", laTall, "bad"),
		fail("norm vector fro", "np.linalg.norm(a, ord='fro')", laB37, "fro"),
		fail("norm matrix 3", "np.linalg.norm(a, ord=3)", laTall, 3),
		fail("norm 3-D with ord", "np.linalg.norm(a, ord=1)", laStack, 1),
		fail("norm duplicate axes", "np.linalg.norm(a, axis=(1, 1))", laTall, nil, 1, 1),
		fail("norm axis out of range", "np.linalg.norm(a, axis=2)", laTall, nil, 2),
	)
}

func laCoreCases() []npCase {
	qr := func(name string, a *ndarray.Array, mode string) npCase {
		expr := npQRSigned + "(*np.linalg.qr(a, mode='" + mode + "'))"
		return npMany(name, expr, ins("a", a), func(e *npEnv) []*tensor.Tensor {
			return laQRSigned(linalg.QR(e.v("a"), mode))
		})
	}
	qrR := func(name string, a *ndarray.Array) npCase {
		return npOne(name, "(lambda r: r * np.sign(np.diag(r))[:, None])(np.linalg.qr(a, mode='r'))", ins("a", a), func(e *npEnv) *tensor.Tensor {
			_, r := linalg.QR(e.v("a"), "r")
			return r.Mul(laDiag(r).Sign().Reshape(r.Shape()[0], 1))
		})
	}
	svd := func(name string, a *ndarray.Array) npCase {
		return npMany(name, npSVDSigned+"(*np.linalg.svd(a, full_matrices=False))", ins("a", a), func(e *npEnv) []*tensor.Tensor {
			return laSVDSigned(linalg.SVD(e.v("a"), false))
		})
	}
	one := func(name, expr string, a *ndarray.Array, f func(*tensor.Tensor) *tensor.Tensor) npCase {
		return npOne(name, expr, ins("a", a), func(e *npEnv) *tensor.Tensor { return f(e.v("a")) })
	}
	two := func(name, expr string, a, b *ndarray.Array, f func(a, b *tensor.Tensor) *tensor.Tensor) npCase {
		return npOne(name, expr, ins("a", a, "b", b), func(e *npEnv) *tensor.Tensor { return f(e.v("a"), e.v("b")) })
	}
	lstsq := func(name string, a, b *ndarray.Array, rcond string, f func(a, b *tensor.Tensor) []*tensor.Tensor) npCase {
		return npMany(name, "np.linalg.lstsq(a, b, rcond="+rcond+")", ins("a", a, "b", b), func(e *npEnv) []*tensor.Tensor { return f(e.v("a"), e.v("b")) })
	}
	lst := func(a, b *tensor.Tensor) []*tensor.Tensor {
		x, res, rank, s := linalg.Lstsq(a, b)
		return []*tensor.Tensor{x, res, rank, s}
	}
	tri := func(t linalg.Triangular) func(a, b *tensor.Tensor) *tensor.Tensor {
		return func(a, b *tensor.Tensor) *tensor.Tensor { return linalg.SolveTriangular(a, b, t) }
	}
	return []npCase{
		// QR, TSQR over the row chunks.
		laTol64(qr("qr tall", laTall, "reduced")),
		laTol32(qr("qr tall float32", laTall32, "reduced")),
		laTol64(qr("qr tall 300x12", laTallBig, "reduced")).with(laFew...),
		laTol64(qr("qr square", laSq, "reduced")),
		laTol64(qr("qr wide", laWide, "reduced")),
		laTol32(qr("qr wide float32", laWide32, "reduced")),
		laTol64(qr("qr 1x1", laOne, "reduced")),
		laTol64(qr("qr one row", laRow, "reduced")),
		laTol64(qr("qr int64", laIntTall, "reduced")),
		laTol64(qr("qr complete tall", laTall, "complete")),
		laTol64(qr("qr complete wide", laWide, "complete")),
		laTol64(qrR("qr mode r", laTallBig)).with(laFew...),
		// SVD: TSQR, then the SVD of R; a wide matrix through its transpose.
		laTol64(svd("svd tall", laTall)),
		laTol32(svd("svd tall float32", laTall32)),
		laTol64(svd("svd tall 300x12", laTallBig)).with(laFew...),
		laTol64(svd("svd square", laSq)),
		laTol64(svd("svd wide", laWide)),
		laTol64(one("svdvals", "np.linalg.svd(a, compute_uv=False)", laTallBig, linalg.SVDVals)).with(laFew...),
		// Whole-matrix kernels.
		laTol64(one("cholesky", "np.linalg.cholesky(a)", laSPD, linalg.Cholesky)),
		laTol32(one("cholesky float32", "np.linalg.cholesky(a)", laSPD32, linalg.Cholesky)),
		laTol64(one("cholesky stack", "np.linalg.cholesky(a)", laSPDs, linalg.Cholesky)),
		laTol64(one("inv", "np.linalg.inv(a)", laSq, linalg.Inv)),
		laTol32(one("inv float32", "np.linalg.inv(a)", laSq32, linalg.Inv)),
		laTol64(one("inv stack", "np.linalg.inv(a)", laStack, linalg.Inv)),
		laTol64(one("det", "np.linalg.det(a)", laSq, linalg.Det)),
		laTol32(one("det float32", "np.linalg.det(a)", laSq32, linalg.Det)),
		laTol64(one("det stack", "np.linalg.det(a)", laStack, linalg.Det)),
		laTol64(one("det singular", "np.linalg.det(a)", laSing, linalg.Det)).tol(0, 1e-12, "an exactly singular matrix: LU gives 0 to rounding"),
		laTol64(npMany("slogdet", "np.linalg.slogdet(a)", ins("a", laSq), func(e *npEnv) []*tensor.Tensor {
			s, l := linalg.Slogdet(e.v("a"))
			return []*tensor.Tensor{s, l}
		})),
		laTol64(npMany("slogdet stack", "np.linalg.slogdet(a)", ins("a", laStack), func(e *npEnv) []*tensor.Tensor {
			s, l := linalg.Slogdet(e.v("a"))
			return []*tensor.Tensor{s, l}
		})),
		// Stacks of matrices for the 2-D ops: one op per matrix.
		laTol64(one("qr stack", "np.abs(np.linalg.qr(a)[1])", laStack, func(a *tensor.Tensor) *tensor.Tensor { _, r := linalg.QR(a, ""); return r.Abs() })),
		laTol64(one("qr stack wide", "np.abs(np.linalg.qr(a)[1])", npR(dF64, 151, 3, 2, 5), func(a *tensor.Tensor) *tensor.Tensor { _, r := linalg.QR(a, ""); return r.Abs() })),
		laTol64(one("svdvals stack", "np.linalg.svd(a, compute_uv=False)", laStack, linalg.SVDVals)),
		laTol64(one("svd stack reconstructs", "a", npR(dF64, 152, 2, 3, 5, 3), func(a *tensor.Tensor) *tensor.Tensor {
			u, s, vt := linalg.SVD(a, false)
			return u.Mul(s.Reshape(2, 3, 1, 3)).MatMul(vt)
		})),
		laTol64(one("svd full tall reconstructs", "a", npR(dF64, 153, 7, 3), func(a *tensor.Tensor) *tensor.Tensor {
			u, s, vt := linalg.SVD(a, true)
			return u.Index(tensor.All(), tensor.To(3)).Mul(s).MatMul(vt)
		})),
		laTol64(one("svd full wide U is orthogonal", "np.eye(3)", npR(dF64, 154, 3, 7), func(a *tensor.Tensor) *tensor.Tensor {
			_, _, vt := linalg.SVD(a, true)
			return vt.Index(tensor.To(3)).MatMul(vt.Index(tensor.To(3)).T()).Index(tensor.To(3), tensor.To(3))
		})),
		laTol64(one("pinv stack", "np.linalg.pinv(a)", laStack, func(a *tensor.Tensor) *tensor.Tensor { return linalg.Pinv(a) })),
		one("matrix_rank stack", "np.linalg.matrix_rank(a)", laStack, func(a *tensor.Tensor) *tensor.Tensor { return linalg.MatrixRank(a) }),
		laTol64(two("solve stack", "np.linalg.solve(a, b)", laStack, npR(dF64, 155, 2, 3, 4, 2), linalg.Solve)),
		laTol64(two("solve stack broadcast", "np.linalg.solve(np.broadcast_to(a, (2, 3, 4, 4)), np.broadcast_to(b, (2, 3, 4, 1)))", laStack, npR(dF64, 156, 3, 4, 1), linalg.Solve)),
		laTol64(two("solve stack vector", "np.linalg.solve(a, np.broadcast_to(b[:, None], (2, 3, 4, 1)))[..., 0]", laStack, npR(dF64, 157, 4), linalg.Solve)),
		laTol64(two("solve vector", "np.linalg.solve(a, b)", laSq, laB6, linalg.Solve)),
		laTol64(two("solve matrix", "np.linalg.solve(a, b)", laSq, laB63, linalg.Solve)),
		laTol32(two("solve float32", "np.linalg.solve(a, b)", laSq32, laB63, linalg.Solve)),
		laTol64(two("solve_triangular upper", "np.linalg.solve(np.triu(a), b)", laTri, laB63, tri(linalg.Triangular{}))),
		laTol64(two("solve_triangular lower", "np.linalg.solve(np.tril(a), b)", laTri, laB6, tri(linalg.Triangular{Lower: true}))),
		laTol64(two("solve_triangular trans", "np.linalg.solve(np.triu(a).T, b)", laTri, laB63, tri(linalg.Triangular{Trans: true}))),
		laTol64(two("solve_triangular lower unit", "np.linalg.solve(np.tril(a, -1) + np.eye(6), b)", laTri, laB63, tri(linalg.Triangular{Lower: true, UnitDiagonal: true}))),
		laTol32(two("solve_triangular float32", "np.linalg.solve(np.triu(a), b)", laTri32, laB63, tri(linalg.Triangular{}))),
		laTol64(lstsq("lstsq tall vector", laTall, laB37, "None", lst)),
		laTol64(lstsq("lstsq tall matrix", laTall, laB372, "None", lst)),
		laTol32(lstsq("lstsq float32", laTall32, laB37f, "None", lst)),
		laTol64(lstsq("lstsq wide", laWide, laB5, "None", lst)),
		laTol32(lstsq("lstsq wide float32", laWide32, npR(dF32, 144, 4), "None", lst)),
		laTol64(lstsq("lstsq int", laIntTall, npI(dI64, 145, -5, 5, 20), "None", lst)),
		laTol64(two("solve int", "np.linalg.solve(a, b)", laAddDiag(npI(dI64, 146, -3, 3, 5, 5).Astype(dF64), 9).Astype(dI64), npI(dI32, 147, -5, 5, 5), linalg.Solve)),
		laTol64(one("det int", "np.linalg.det(a)", npI(dI32, 148, -3, 3, 4, 4), linalg.Det)),
		laTol64(one("inv bool", "np.linalg.inv(a)", laAddDiag(npI(dI64, 149, 0, 0, 3, 3).Astype(dF64), 1).Astype(dBo), linalg.Inv)),
		laTol64(lstsq("lstsq square rcond", laSq, laB63, "1e-3", func(a, b *tensor.Tensor) []*tensor.Tensor {
			x, res, rank, s := linalg.Lstsq(a, b, 1e-3)
			return []*tensor.Tensor{x, res, rank, s}
		})),
		laTol64(npMany("lstsq rank deficient", "(lambda r: (r[0], r[2], r[3]))(np.linalg.lstsq(a, b, rcond=None))", ins("a", laRankDef, "b", laB372),
			func(e *npEnv) []*tensor.Tensor {
				x, _, rank, s := linalg.Lstsq(e.v("a"), e.v("b"))
				return []*tensor.Tensor{x, rank, s}
			})).tol(1e-8, 1e-10, laWhy+"; a rank-deficient least-norm solution"),
		// Empty matrices.
		qr("qr 0x3", npR(dF64, 140, 0, 3), "reduced"),
		qr("qr 3x0", npR(dF64, 141, 3, 0), "reduced"),
		qr("qr complete 3x0", npR(dF64, 141, 3, 0), "complete"),
		one("det 0x0", "np.linalg.det(a)", npR(dF64, 142, 0, 0), linalg.Det),
		one("inv 0x0", "np.linalg.inv(a)", npR(dF64, 142, 0, 0), linalg.Inv),
		one("cholesky 0x0", "np.linalg.cholesky(a)", npR(dF64, 142, 0, 0), linalg.Cholesky),
		one("det of an empty stack", "np.linalg.det(a)", npR(dF64, 143, 0, 3, 3), linalg.Det),
		// What NumPy refuses.
		one("inv singular", "np.linalg.inv(a)", laSing, linalg.Inv).fails(),
		two("solve singular", "np.linalg.solve(a, b)", laSing, npR(dF64, 125, 3), linalg.Solve).fails(),
		one("cholesky not positive definite", "np.linalg.cholesky(a)", laNotPD, linalg.Cholesky).fails(),
		one("qr of a vector", "np.linalg.qr(a)", laVec, func(a *tensor.Tensor) *tensor.Tensor { _, r := linalg.QR(a, ""); return r }).fails(),
		one("svd of a vector", "np.linalg.svd(a)", laVec, linalg.SVDVals).fails(),
		one("det of a non-square", "np.linalg.det(a)", laRect, linalg.Det).fails(),
		one("inv of a vector", "np.linalg.inv(a)", laVec, linalg.Inv).fails(),
		two("solve with a bad b", "np.linalg.solve(a, b)", laSq, laB5, linalg.Solve).fails(),
		two("lstsq with a bad b", "np.linalg.lstsq(a, b, rcond=None)", laTall, laB6, func(a, b *tensor.Tensor) *tensor.Tensor { x, _, _, _ := linalg.Lstsq(a, b); return x }).fails(),
	}
}

// TestLinalgNumpyDifferential runs laCases against NumPy.
func TestLinalgNumpyDifferential(t *testing.T) {
	npSuite(t, "linalg", laCases(), laAll, npSuiteModes)
}

// TestLinalgQRIdentities checks the factorisations themselves on larger
// tensors and many chunkings: Qᵀ Q = I, Q R = A, R exactly upper
// triangular, U diag(s) Vᵀ = A with s descending, in float64 and float32.
func TestLinalgQRIdentities(t *testing.T) {
	sess := laSession(t)
	ctx := context.Background()
	type shape struct{ m, n int }
	cases := []struct {
		sh     shape
		chunks []tensor.Option
	}{
		{shape{5000, 40}, []tensor.Option{tensor.Chunks(333, -1), tensor.Chunks(5000, -1), tensor.Chunks(1000, 7), tensor.Chunks(20, -1)}},
		{shape{200, 3}, []tensor.Option{tensor.Chunks(1, -1), tensor.Chunks(2, 1), tensor.ChunkSplits([]int{1, 150, 2, 47}, []int{3})}},
		{shape{40, 40}, []tensor.Option{tensor.Chunks(7, 9), tensor.Chunks(40)}},
		{shape{30, 70}, []tensor.Option{tensor.Chunks(30, 7), tensor.Chunks(4, -1)}},
		{shape{100000, 8}, []tensor.Option{tensor.Chunks(7919, -1)}},
	}
	for _, dt := range []ndarray.DType{ndarray.Float64, ndarray.Float32} {
		tol := 1e-11
		if dt == ndarray.Float32 {
			tol = 2e-4
		}
		for _, c := range cases {
			for ci, opt := range c.chunks {
				name := fmt.Sprintf("%v %dx%d chunking %d", dt, c.sh.m, c.sh.n, ci)
				a := tensor.NewGenerator(uint64(c.sh.m+ci)).Uniform(-1, 1, []int{c.sh.m, c.sh.n}, opt).Astype(dt)
				k := min(c.sh.m, c.sh.n)
				q, r := linalg.QR(a, "reduced")
				u, s, vt := linalg.SVD(a, false)
				eye := tensor.Eye(k, k, 0, tensor.WithDType(dt))
				checks := []*tensor.Tensor{
					q.T().MatMul(q).Sub(eye).Abs().Max(),
					q.MatMul(r).Sub(a).Abs().Max(),
					u.Mul(s).MatMul(vt).Sub(a).Abs().Max(),
					u.T().MatMul(u).Sub(eye).Abs().Max(),
					r, s,
				}
				got, err := sess.Execute(ctx, checks...)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				scale := math.Sqrt(float64(c.sh.m))
				for i, what := range []string{"QᵀQ - I", "QR - A", "U diag(s) Vᵀ - A", "UᵀU - I"} {
					if v := got[i].AtFlat(0); !(v <= tol*scale) {
						t.Errorf("%s: max |%s| = %g", name, what, v)
					}
				}
				rr := got[4]
				for i := range k {
					for j := range i {
						if v := rr.AtFlat(i*c.sh.n + j); v != 0 {
							t.Fatalf("%s: R[%d,%d] = %g below the diagonal", name, i, j, v)
						}
					}
				}
				for i := 1; i < k; i++ {
					if got[5].AtFlat(i) > got[5].AtFlat(i-1) {
						t.Errorf("%s: singular values not descending at %d", name, i)
					}
				}
			}
		}
	}
}

// TestLinalgErrors: mistakes are tensor errors that say what is wrong;
// singular and indefinite matrices fail Execute with NumPy's messages.
func TestLinalgErrors(t *testing.T) {
	sess := laSession(t)
	ctx := context.Background()
	g := tensor.NewGenerator(3)
	m2 := g.Rand([]int{4, 3})
	for _, c := range []struct {
		name string
		t    *tensor.Tensor
		want string
	}{
		{"qr 1-D", second(linalg.QR(g.Rand([]int{5}), "")), "1-dimensional array given. Array must be two-dimensional"},
		{"qr raw", second(linalg.QR(m2, "raw")), `unrecognized mode "raw"`},
		{"qr complete too big", second(linalg.QR(tensor.Zeros([]int{10000, 3}), "complete")), "mode 'complete' of a 10000x3 matrix"},
		{"svd full_matrices too big", second3(linalg.SVD(tensor.Zeros([]int{10000, 3}), true)), "mode 'complete' of a 10000x3 matrix"},
		{"inv not square", linalg.Inv(m2), "Last 2 dimensions of the array must be square"},
		{"det 1-D", linalg.Det(g.Rand([]int{3})), "1-dimensional array given. Array must be at least two-dimensional"},
		{"inv too large", linalg.Inv(tensor.Zeros([]int{9000, 9000})), "a 9000x9000 matrix is too large"},
		{"solve bad b", linalg.Solve(g.Rand([]int{3, 3}), g.Rand([]int{4})), "b must be (3,) or (3, K)"},
		{"solve stacks that do not broadcast", linalg.Solve(g.Rand([]int{2, 3, 3}), g.Rand([]int{3, 3, 2})), "do not broadcast"},
		{"solve stack bad b", linalg.Solve(g.Rand([]int{2, 3, 3}), g.Rand([]int{4})), "b has 4 rows"},
		{"lstsq bad b", first4(linalg.Lstsq(m2, g.Rand([]int{3}))), "Incompatible dimensions"},
		{"lstsq two rconds", first4(linalg.Lstsq(m2, g.Rand([]int{4}), 1, 2)), "2 rcond values"},
		{"qr nil", second(linalg.QR(nil, "")), "nil tensor"},
		{"einsum ellipsis", linalg.Einsum("...ij->...ji", m2), "ellipses (...) are not supported"},
		{"einsum repeated output", linalg.Einsum("ij->ii", m2), "appears more than once"},
		{"norm ord type", linalg.Norm(m2, "2"), `invalid norm order "2"`},
		{"norm nuc of a stack", linalg.Norm(g.Rand([]int{2, 3, 3}), "nuc", 1, 2), "take a 2-D tensor"},
	} {
		if err := c.t.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// Wider than MaxTSQRColumns in several column chunks: refused when tiled.
	big := tensor.Zeros([]int{6000, 5000}, tensor.Chunks(6000, 1000))
	if _, err := sess.Execute(ctx, linalg.SVDVals(big)); err == nil || !strings.Contains(err.Error(), "5000 columns in 5 column chunks") {
		t.Errorf("svd of a 5000-column tensor in 5 column chunks: %v", err)
	}
	// ... but one column chunk is fine, and a wide QR goes through its first M columns.
	q, r := linalg.QR(tensor.NewGenerator(4).Rand([]int{10, 5000}, tensor.Chunks(10, 1000)), "")
	if got, err := sess.Execute(ctx, q.MatMul(r).Sub(tensor.NewGenerator(4).Rand([]int{10, 5000}, tensor.Chunks(10, 1000))).Abs().Max()); err != nil || got[0].AtFlat(0) > 1e-12 {
		t.Errorf("wide QR through its first columns: %v %v", got, err)
	}
	// Errors of Execute, with NumPy's messages.
	sing, _ := ndarray.FromFloat64s([]int{2, 2}, []float64{1, 2, 2, 4})
	notPD, _ := ndarray.FromFloat64s([]int{2, 2}, []float64{1, 2, 2, 1})
	for _, c := range []struct {
		name string
		t    *tensor.Tensor
		want string
	}{
		{"inv singular", linalg.Inv(tensor.FromArray(sing)), "Singular matrix"},
		{"solve singular", linalg.Solve(tensor.FromArray(sing), tensor.Ones([]int{2})), "Singular matrix"},
		{"cholesky", linalg.Cholesky(tensor.FromArray(notPD)), "Matrix is not positive definite"},
		{"triangular", linalg.SolveTriangular(tensor.FromArray(sing).Mul(0), tensor.Ones([]int{2}), linalg.Triangular{}), "singular matrix: resolution failed at diagonal 0"},
	} {
		if _, err := sess.Execute(ctx, c.t); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Execute error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func second(_, b *tensor.Tensor) *tensor.Tensor       { return b }
func second3(_, b, _ *tensor.Tensor) *tensor.Tensor   { return b }
func first4(a, _, _, _ *tensor.Tensor) *tensor.Tensor { return a }

// TestLinalgQRRankDeficient: a zero matrix, repeated columns and a
// constant matrix still give an orthonormal Q with Q R = A.
func TestLinalgQRRankDeficient(t *testing.T) {
	sess := laSession(t)
	g := tensor.NewGenerator(9)
	col := g.Rand([]int{300, 1}, tensor.Chunks(37, 1))
	for name, a := range map[string]*tensor.Tensor{
		"zeros":    tensor.Zeros([]int{300, 5}, tensor.Chunks(37, -1)),
		"repeated": tensor.Concatenate(1, col, col, col.Mul(2), g.Rand([]int{300, 2}, tensor.Chunks(37, 2))),
		"constant": tensor.Ones([]int{300, 4}, tensor.Chunks(1, -1)),
	} {
		q, r := linalg.QR(a, "")
		k := r.Shape()[0]
		got, err := sess.Execute(context.Background(),
			q.T().MatMul(q).Sub(tensor.Eye(k, k, 0)).Abs().Max(),
			q.MatMul(r).Sub(a).Abs().Max())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if o, d := got[0].AtFlat(0), got[1].AtFlat(0); !(o < 1e-12) || !(d < 1e-12) {
			t.Errorf("%s: |QᵀQ - I| = %g, |QR - A| = %g", name, o, d)
		}
	}
}

// TestLinalgLstsqTall: least squares of a tall tensor in many row chunks
// satisfies the normal equations, and a tall a is not limited to one
// chunk's size (it is TSQR, not a one-chunk kernel).
func TestLinalgLstsqTall(t *testing.T) {
	sess := laSession(t)
	g := tensor.NewGenerator(11)
	a := g.Uniform(-1, 1, []int{100_000, 8}, tensor.Chunks(9_999, -1))
	b := g.Uniform(-1, 1, []int{100_000, 3}, tensor.Chunks(20_000, -1))
	x, res, rank, _ := linalg.Lstsq(a, b)
	resid := a.MatMul(x).Sub(b)
	got, err := sess.Execute(context.Background(), a.T().MatMul(resid).Abs().Max(), res.Sub(resid.Square().Sum(tensor.Axis(0))).Abs().Max(), rank)
	if err != nil {
		t.Fatal(err)
	}
	if v := got[0].AtFlat(0); !(v < 1e-9) {
		t.Errorf("|Aᵀ(Ax - b)| = %g", v)
	}
	if v := got[1].AtFlat(0); !(v < 1e-8) {
		t.Errorf("residuals differ from |Ax - b|² by %g", v)
	}
	if got[2].AtFlat(0) != 8 {
		t.Errorf("rank %v, want 8", got[2])
	}
	huge, _, _, _ := linalg.Lstsq(tensor.Zeros([]int{100_000_000, 2}), tensor.Zeros([]int{100_000_000}))
	if err := huge.Err(); err != nil {
		t.Errorf("lstsq of a 1e8x2 tensor: %v", err)
	}
}
