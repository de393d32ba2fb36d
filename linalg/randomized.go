package linalg

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// RSVDOption sets a parameter of RandomizedSVD.
type RSVDOption func(*rsvdConfig)

type rsvdConfig struct {
	oversamples int
	iters       int // < 0: chosen from the shape, as scikit-learn's "auto"
	seed        uint64
	flipSign    bool
}

// Oversamples sets the number of random vectors beyond the components
// sampled to capture a's range (default 10).
func Oversamples(n int) RSVDOption { return func(c *rsvdConfig) { c.oversamples = n } }

// PowerIters sets the number of power iterations (default: 7 when the
// components are fewer than a tenth of a's smaller side, else 4, as
// scikit-learn's n_iter="auto").
func PowerIters(n int) RSVDOption { return func(c *rsvdConfig) { c.iters = n } }

// Seed sets the seed of the random test matrix (default 0): the same seed
// gives the same result, under any chunking.
func Seed(s uint64) RSVDOption { return func(c *rsvdConfig) { c.seed = s } }

// NoSignFlip keeps the signs the factorisation gives instead of making the
// largest entry of each column of u positive.
func NoSignFlip() RSVDOption { return func(c *rsvdConfig) { c.flipSign = false } }

// RandomizedSVD is the truncated SVD of a 2-D tensor a (M, N) by the
// randomised range finder of Halko, Martinsson and Tropp (2011),
// scikit-learn's randomized_svd and Mars's mt.linalg.randomized_svd: u (M,
// k), s (k,) descending and vt (k, N) approximating a's k leading singular
// triplets. With l = k + oversamples random vectors Ω (N, l), it forms Y =
// a Ω, orthonormalises it, refines it by power iterations (Q ← qr(a
// qr(aᵀ Q))), and takes the SVD of the small B = Qᵀ a (l, N): u = Q Û.
// Every QR is TSQR over a's row chunks, so a tall a is never gathered; a
// wide a (M < N) is decomposed through its transpose, so it should be
// chunked along its columns. Each power iteration is orthonormalised by
// QR (scikit-learn uses LU for speed; QR is as accurate and distributed
// here). The results are exact when a's rank is at most l. As
// scikit-learn's flip_sign, each column of u is signed so that its largest
// entry in absolute value is positive (NoSignFlip keeps them as computed).
func RandomizedSVD(a *tensor.Tensor, k int, opts ...RSVDOption) (u, s, vt *tensor.Tensor) {
	if e := matrix("randomized_svd", a); e != nil {
		return e, e, e
	}
	c := rsvdConfig{oversamples: 10, iters: -1, flipSign: true}
	for _, o := range opts {
		o(&c)
	}
	m, n := a.Shape()[0], a.Shape()[1]
	fail := func(format string, args ...any) (u, s, vt *tensor.Tensor) {
		e := tensor.Error(fmt.Errorf("randomized_svd: "+format, args...))
		return e, e, e
	}
	switch {
	case k < 1 || k > min(m, n):
		return fail("n_components = %d for a %dx%d matrix: want 1 to %d", k, m, n, min(m, n))
	case c.oversamples < 0:
		return fail("n_oversamples = %d: want at least 0", c.oversamples)
	}
	if c.iters < 0 {
		c.iters = 4
		if float64(k) < 0.1*float64(min(m, n)) {
			c.iters = 7
		}
	}
	if m < n {
		// a = (aᵀ)ᵀ: the factors of aᵀ, transposed and swapped.
		ut, st, vtt := randomizedTall(a.T(), k, c)
		return vtt.T(), st, ut.T()
	}
	return randomizedTall(a, k, c)
}

// randomizedTall is RandomizedSVD of a with M >= N.
func randomizedTall(a *tensor.Tensor, k int, c rsvdConfig) (u, s, vt *tensor.Tensor) {
	n := a.Shape()[1]
	dt := ndarray.LinalgFloat(a.DType())
	l := min(k+c.oversamples, n)
	omega := tensor.NewGenerator(c.seed).Randn([]int{n, l}, tensor.Chunks(-1, -1)).Astype(dt)
	orth := func(y *tensor.Tensor) *tensor.Tensor {
		q, _ := QR(y, "reduced")
		return q
	}
	q := orth(tensor.MatMul(a, omega))
	for range c.iters {
		q = orth(tensor.MatMul(a, orth(tensor.MatMul(a.T(), q))))
	}
	ub, s, vt := SVD(tensor.MatMul(q.T(), a), false)
	u = tensor.MatMul(q, ub.Index(tensor.All(), tensor.To(k)))
	s, vt = s.Index(tensor.To(k)), vt.Index(tensor.To(k))
	if c.flipSign {
		// The largest |u[i, j]| of column j is positive exactly when max
		// u[:, j] >= -min u[:, j] (ties aside): no argmax gather needed.
		sign := tensor.Where(u.Max(tensor.Axis(0)).GreaterEqual(u.Min(tensor.Axis(0)).Neg()), 1.0, -1.0).Astype(dt)
		u = u.Mul(sign)
		vt = vt.Mul(sign.Reshape(k, 1))
	}
	return u, s, vt
}
