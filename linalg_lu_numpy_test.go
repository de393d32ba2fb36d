package phobos_test

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// LU against SciPy's (NumPy has none; both are LAPACK's getrf with partial
// pivoting, so the factors agree, not only their product), and the
// randomised SVD against NumPy's SVD on matrices whose rank the sampled
// range covers, where it is exact.

// npScipyLU is scipy.linalg.lu reachable from the expression evaluator.
const npScipyLU = "__import__('scipy.linalg').linalg.lu"

// laLowRank is 37×20 of rank 5.
var laLowRank = func() *ndarray.Array {
	p, err := ndarray.MatMul(laTall, npR(dF64, 130, 5, 20))
	if err != nil {
		panic(err)
	}
	return p
}()

// scipyAvailable: the LU cases need SciPy beside NumPy (.ci/run installs
// it); without it they are left out, and TestLinalgLUAndRSVDErrors still
// checks the factors' defining properties.
var scipyAvailable = sync.OnceValue(func() bool {
	return exec.Command("/usr/bin/python3", "-c", "import scipy.linalg").Run() == nil
})

func laLUCases() []npCase {
	if !scipyAvailable() {
		return nil
	}
	lu := func(e *npEnv) []*tensor.Tensor {
		p, l, u := linalg.LU(e.v("a"))
		return []*tensor.Tensor{p, l, u}
	}
	var cases []npCase
	for _, c := range []struct {
		name string
		a    *ndarray.Array
	}{{"square", laSq}, {"tall", laTall}, {"wide", laWide}, {"singular", laSing}, {"one", laOne}, {"row", laRow}, {"int", laIntTall}} {
		cases = append(cases, npMany("lu "+c.name, npScipyLU+"(a)", ins("a", c.a), lu).
			tol(1e-12, 1e-13, "the same getrf, but OpenBLAS's blocking may differ between SciPy's copy and ours"))
	}
	cases = append(cases,
		npMany("lu float32", npScipyLU+"(a)", ins("a", laSq32), lu).tol(1e-4, 1e-5, "float32"),
		npMany("lu permute_l", npScipyLU+"(a, permute_l=True)", ins("a", laTall), func(e *npEnv) []*tensor.Tensor {
			pl, u := linalg.LUPermuted(e.v("a"))
			return []*tensor.Tensor{pl, u}
		}).tol(1e-12, 1e-13, "a product of the factors"),
		npOne("lu reconstructs", "a", ins("a", laWide), func(e *npEnv) *tensor.Tensor {
			p, l, u := linalg.LU(e.v("a"))
			return p.MatMul(l).MatMul(u)
		}).tol(1e-12, 1e-13, "a product of the factors"),
	)
	return cases
}

func laProductCases() []npCase {
	two := func(name, expr string, a, b *ndarray.Array, f func(a, b *tensor.Tensor) *tensor.Tensor) npCase {
		return laTol64(npOne(name, expr, ins("a", a, "b", b), func(e *npEnv) *tensor.Tensor { return f(e.v("a"), e.v("b")) }))
	}
	return []npCase{
		two("inner vectors", "np.inner(a, b)", laB37, laB37, linalg.Inner),
		two("inner matrices", "np.inner(a, b)", laTall, npR(dF64, 132, 7, 5), linalg.Inner),
		two("inner 3-d", "np.inner(a, b)", laStack, npR(dF64, 133, 3, 4), linalg.Inner),
		two("vdot", "np.vdot(a, b)", laSq, npR(dF64, 131, 36), linalg.Vdot),
		laTol64(npOne("linalg trace", "np.trace(a, axis1=-2, axis2=-1)", ins("a", laStack), func(e *npEnv) *tensor.Tensor { return linalg.Trace(e.v("a")) })),
		npOne("linalg diagonal", "np.diagonal(a, axis1=-2, axis2=-1)", ins("a", laWide), func(e *npEnv) *tensor.Tensor { return linalg.Diagonal(e.v("a")) }),
		npOne("inner misaligned", "np.inner(a, b)", ins("a", laTall, "b", laSq), func(e *npEnv) *tensor.Tensor { return linalg.Inner(e.v("a"), e.v("b")) }).fails(),
		npOne("vdot sizes", "np.vdot(a, b)", ins("a", laTall, "b", laSq), func(e *npEnv) *tensor.Tensor { return linalg.Vdot(e.v("a"), e.v("b")) }).fails(),
	}
}

func laRSVDCases() []npCase {
	const svd = "np.linalg.svd(a, full_matrices=False)"
	// NumPy's SVD truncated to k and signed as scikit-learn's svd_flip
	// (the largest |u[i, j]| of each column positive).
	flip := func(k string) string {
		return "(lambda u, s, vt: (lambda d: (u * d, s, vt * d[:, None]))(np.sign(u[np.abs(u).argmax(0), range(u.shape[1])])))" +
			"(*(lambda u, s, vt: (u[:, :" + k + "], s[:" + k + "], vt[:" + k + "]))(*" + svd + "))"
	}
	rsvd := func(k int, opts ...linalg.RSVDOption) func(e *npEnv) []*tensor.Tensor {
		return func(e *npEnv) []*tensor.Tensor {
			u, s, vt := linalg.RandomizedSVD(e.v("a"), k, opts...)
			return []*tensor.Tensor{u, s, vt}
		}
	}
	const why = "a randomised range finder, exact in exact arithmetic when a's rank is within the sampled range"
	return []npCase{
		npMany("randomized_svd low rank", flip("3"), ins("a", laLowRank), rsvd(3)).tol(1e-8, 1e-10, why),
		// A wide matrix is decomposed through its transpose, and signed by
		// the rows of its vt, as scikit-learn does when it transposes.
		npMany("randomized_svd low rank wide", flip("4"), ins("a", laLowRank), func(e *npEnv) []*tensor.Tensor {
			u, s, vt := linalg.RandomizedSVD(e.v("a").T(), 4)
			return []*tensor.Tensor{vt.T(), s, u.T()}
		}).tol(1e-8, 1e-10, why),
		npMany("randomized_svd full rank", flip("5"), ins("a", laTall), rsvd(5, linalg.PowerIters(2), linalg.Seed(7))).tol(1e-8, 1e-10, why),
		npMany("randomized_svd no oversampling", flip("5"), ins("a", laLowRank), rsvd(5, linalg.Oversamples(0))).tol(1e-8, 1e-10, why),
		npMany("randomized_svd float32", flip("5"), ins("a", laTall32), rsvd(5)).tol(1e-3, 1e-4, why+", in float32"),
		npOne("randomized_svd values", "np.linalg.svd(a, compute_uv=False)[:2]", ins("a", laLowRank), func(e *npEnv) *tensor.Tensor {
			_, s, _ := linalg.RandomizedSVD(e.v("a"), 2, linalg.NoSignFlip())
			return s
		}).tol(1e-8, 1e-10, why),
	}
}

// TestLinalgLUAndRSVDErrors: wrong arguments are tensor errors that say
// what is wrong; a stack of matrices is factored matrix by matrix.
func TestLinalgLUAndRSVDErrors(t *testing.T) {
	sess := laSession(t)
	ctx := context.Background()
	g := tensor.NewGenerator(5)
	m := g.Rand([]int{40, 6}, tensor.Chunks(7, 4))
	for _, c := range []struct {
		name string
		t    *tensor.Tensor
		want string
	}{
		{"lu 1-d", first(linalg.LU(g.Rand([]int{4}))), "1-dimensional array given"},
		{"rsvd k 0", first(linalg.RandomizedSVD(m, 0)), "n_components = 0 for a 40x6 matrix: want 1 to 6"},
		{"rsvd k 7", first(linalg.RandomizedSVD(m, 7)), "n_components = 7"},
		{"rsvd oversamples", first(linalg.RandomizedSVD(m, 2, linalg.Oversamples(-1))), "n_oversamples = -1"},
		{"rsvd 3-d", first(linalg.RandomizedSVD(g.Rand([]int{2, 3, 4}), 1)), "3-dimensional array given"},
	} {
		_, err := sess.Execute(ctx, c.t)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// A stack: every matrix reconstructs from its own factors.
	a := g.Uniform(-1, 1, []int{3, 5, 4}, tensor.Chunks(2, 3, 3))
	p, l, u := linalg.LU(a)
	got, err := sess.Execute(ctx, p.MatMul(l).MatMul(u).Sub(a).Abs().Max(), l.Abs().Max())
	if err != nil {
		t.Fatal(err)
	}
	if v := got[0].AtFlat(0); !(v < 1e-14) {
		t.Errorf("stack: max |p l u - a| = %g", v)
	}
	if v := got[1].AtFlat(0); v != 1 {
		t.Errorf("stack: max |l| = %g, want 1 (unit diagonal, partial pivoting bounds the rest by 1)", v)
	}
}

func first(ts ...*tensor.Tensor) *tensor.Tensor { return ts[0] }
