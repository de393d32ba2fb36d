// Package fft holds Phobos's discrete Fourier transform kernels on
// complex128 and float64 slices: complex-to-complex transforms of any
// length, the real-input forward transform (rfft) and its inverse to real
// values (irfft), all unnormalised, in O(n log n) for every n.
//
// Lengths whose prime factors are small go to gonum's dsp/fourier (a Go
// translation of FFTPACK: radix 2, 3, 4 and 5 passes and a generic pass for
// other factors, the algorithm NumPy's pocketfft descends from). A length
// with a large prime factor, for which FFTPACK's generic pass costs O(n*p),
// goes through Bluestein's chirp-z algorithm (a convolution of 2,3,5-smooth
// length); a length with more factors than FFTPACK's factor table holds (13)
// is split in two by one Cooley-Tukey step (the four-step algorithm).
//
// A Plan holds the twiddles and scratch of one length. It is built once and
// reused for every lane of a kernel call; it is not safe for concurrent use.
package fft

import (
	"fmt"
	"math"
	"math/cmplx"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// stockhamMax is the longest length the Stockham passes take whole: their
// buffers (two of 16 bytes an element) then fit in a core's L2 cache, and
// longer smooth lengths are split in two by the four-step algorithm into
// transforms that do, with O(sqrt n) twiddles instead of O(n).
const stockhamMax = 1 << 14

// maxFactors is how many factors FFTPACK's factor table (ifac, 15 ints
// holding n, the count and the factors) has room for.
const maxFactors = 13

// planKind is how a Plan computes its complex transform.
type planKind uint8

const (
	kindTrivial   planKind = iota // n <= 1: the transform is the identity
	kindFFTPACK                   // gonum's mixed radix
	kindStockham                  // our radix 4, 2, 3, 5 passes (2,3,5-smooth n)
	kindBluestein                 // chirp-z through a smooth length
	kindFourStep                  // one Cooley-Tukey split into two plans
)

// options steer the choice of algorithm; tests force the rarer paths on
// lengths small enough to check against a naive DFT.
type options struct {
	maxFactors    int  // the factor count beyond which a length is split
	bluestein     bool // always use Bluestein (for n > 1)
	noBluestein   bool // never use Bluestein
	forceFourStep bool // always split (for a composite n)
	noStockham    bool // smooth lengths go to FFTPACK too
}

// Plan computes transforms of one length. Its methods keep scratch space in
// the plan, so one plan serves one goroutine at a time.
type Plan struct {
	n    int
	kind planKind
	c    *fourier.CmplxFFT
	r    *fourier.FFT // the real transform when FFTPACK can do it, else nil
	st   *stockham
	blue *bluestein
	four *fourStep
	buf  []complex128 // scratch of the real transforms done as complex ones
	// half and rw serve real transforms of even length n without FFTPACK:
	// the even and odd samples as the real and imaginary parts of one
	// complex sequence of length n/2, and the twiddles exp(-2πik/n), k < n/2.
	half *Plan
	rw   []complex128
	opts options // what the plan was made with, for half
}

// NewPlan returns a plan for transforms of length n (n >= 1).
func NewPlan(n int) (*Plan, error) {
	return newPlan(n, options{maxFactors: maxFactors})
}

func newPlan(n int, o options) (*Plan, error) {
	if n < 1 {
		return nil, fmt.Errorf("fft: invalid length %d (want at least 1)", n)
	}
	p := &Plan{n: n, opts: o}
	if n == 1 {
		return p, nil
	}
	switch {
	case o.bluestein || (!o.noBluestein && !o.forceFourStep && useBluestein(n)):
		b, err := newBluestein(n, o)
		if err != nil {
			return nil, err
		}
		p.kind, p.blue = kindBluestein, b
	case stockhamOK(n) && !o.noStockham && !o.forceFourStep && n <= stockhamMax:
		p.kind, p.st = kindStockham, newStockham(n)
	case o.forceFourStep || countFactors(n, complexOrder) > o.maxFactors || (stockhamOK(n) && !o.noStockham && n > stockhamMax):
		f, err := newFourStep(n, o)
		if err != nil {
			return nil, err
		}
		if f == nil { // a prime cannot be split: Bluestein handles it
			b, err := newBluestein(n, o)
			if err != nil {
				return nil, err
			}
			p.kind, p.blue = kindBluestein, b
		} else {
			p.kind, p.four = kindFourStep, f
		}
	default:
		p.kind, p.c = kindFFTPACK, fourier.NewCmplxFFT(n)
	}
	// FFTPACK's generic real pass (radfg/radbg, for factors above 5) loses
	// accuracy (relative errors of 2e-14 at n = 73, ten times pocketfft's),
	// so only 2,3,5-smooth lengths take the real path; others transform
	// their real input as complex numbers, at twice the cost.
	if p.kind == kindFFTPACK && smooth5(n) && countFactors(n, realOrder) <= o.maxFactors {
		p.r = fourier.NewFFT(n)
	}
	return p, nil
}

// Len is the plan's transform length.
func (p *Plan) Len() int { return p.n }

// PlanBytes is about the memory a plan of length n holds (twiddles and
// buffers), without making one: Bluestein's chirp and two padded
// sequences with the plan of their length, or about three lanes for the
// other algorithms. Callers reserve it before they transform.
func PlanBytes(n int) int64 {
	if n <= 1 {
		return 0
	}
	if useBluestein(n) {
		m := goodSize(2*n - 1)
		return 16 * int64(n+4*m)
	}
	return 16 * 3 * int64(n)
}

// Forward computes dst[k] = sum_j src[j] exp(-2πi jk/n), unnormalised.
// dst and src have length n and may be the same slice.
func (p *Plan) Forward(dst, src []complex128) {
	p.check(len(dst), len(src))
	switch p.kind {
	case kindTrivial:
		copy(dst, src)
	case kindFFTPACK:
		p.c.Coefficients(dst, src)
	case kindStockham:
		p.st.forward(dst, src)
	case kindBluestein:
		p.blue.forward(dst, src)
	case kindFourStep:
		p.four.forward(dst, src)
	}
}

// ForwardThreads is Forward on up to threads goroutines: a length split by
// the four-step algorithm transforms its columns in parallel (each thread
// with sub-plans of its own, made on first use and kept in p); other plans
// run on one. The result is the same, bit for bit, for any thread count.
func (p *Plan) ForwardThreads(dst, src []complex128, threads int) {
	if p.kind != kindFourStep || threads <= 1 {
		p.Forward(dst, src)
		return
	}
	p.check(len(dst), len(src))
	p.four.forwardThreads(dst, src, threads)
}

// BackwardThreads is Backward on up to threads goroutines (ForwardThreads).
func (p *Plan) BackwardThreads(dst, src []complex128, threads int) {
	if p.kind != kindFourStep || threads <= 1 {
		p.Backward(dst, src)
		return
	}
	p.check(len(dst), len(src))
	for i, v := range src {
		dst[i] = cmplx.Conj(v)
	}
	p.four.forwardThreads(dst, dst, threads)
	for i, v := range dst {
		dst[i] = cmplx.Conj(v)
	}
}

// Splits reports whether NewPlan(n) splits n (four-step): the lengths
// whose transforms ForwardThreads runs on several threads.
func Splits(n int) bool {
	if n < 2 || useBluestein(n) {
		return false
	}
	if stockhamOK(n) {
		return n > stockhamMax
	}
	return countFactors(n, complexOrder) > maxFactors
}

// Split reports whether the plan splits its length (four-step), the plans
// ForwardThreads runs in parallel.
func (p *Plan) Split() bool { return p.kind == kindFourStep }

// Backward computes dst[k] = sum_j src[j] exp(+2πi jk/n), unnormalised (the
// inverse transform times n). dst and src may be the same slice.
func (p *Plan) Backward(dst, src []complex128) {
	p.check(len(dst), len(src))
	switch p.kind {
	case kindTrivial:
		copy(dst, src)
	case kindFFTPACK:
		p.c.Sequence(dst, src)
	default:
		// conj(F(conj(x))) is the backward transform.
		for i, v := range src {
			dst[i] = cmplx.Conj(v)
		}
		p.Forward(dst, dst)
		for i, v := range dst {
			dst[i] = cmplx.Conj(v)
		}
	}
}

// RealForward computes the first n/2+1 coefficients of the forward
// transform of the real sequence src (length n) into dst (length n/2+1).
func (p *Plan) RealForward(dst []complex128, src []float64) {
	p.RealForwardThreads(dst, src, 1)
}

// RealForwardThreads is RealForward on up to threads goroutines, when its
// half-length complex plan is split (ForwardThreads); the same bits.
func (p *Plan) RealForwardThreads(dst []complex128, src []float64, threads int) {
	if len(src) != p.n || len(dst) != p.n/2+1 {
		panic(fmt.Sprintf("fft: real forward of length %d given %d values into %d", p.n, len(src), len(dst)))
	}
	if p.r != nil {
		p.r.Coefficients(dst, src)
		return
	}
	if p.evenReal() {
		p.halfForward(dst, src, threads)
		return
	}
	buf := p.scratch()
	for i, v := range src {
		buf[i] = complex(v, 0)
	}
	p.Forward(buf, buf)
	copy(dst, buf)
}

// RealBackward computes the real sequence of length n whose spectrum's
// first n/2+1 coefficients are src, unnormalised (n times NumPy's irfft).
// As in pocketfft, the imaginary parts of src[0] and, for an even n, of
// src[n/2] are ignored: a real sequence's spectrum has none there.
func (p *Plan) RealBackward(dst []float64, src []complex128) {
	if len(dst) != p.n || len(src) != p.n/2+1 {
		panic(fmt.Sprintf("fft: real backward of length %d given %d coefficients into %d", p.n, len(src), len(dst)))
	}
	if p.r != nil {
		p.r.Sequence(dst, src)
		return
	}
	if p.evenReal() {
		p.halfBackward(dst, src)
		return
	}
	n := p.n
	buf := p.scratch()
	buf[0] = complex(real(src[0]), 0)
	for k := 1; k <= (n-1)/2; k++ {
		buf[k] = src[k]
		buf[n-k] = cmplx.Conj(src[k])
	}
	if n%2 == 0 {
		buf[n/2] = complex(real(src[n/2]), 0)
	}
	p.Backward(buf, buf)
	for i := range dst {
		dst[i] = real(buf[i])
	}
}

// evenReal reports whether real transforms go through a complex one of
// half the length (an even n without FFTPACK's real transform), making
// that plan and its twiddles on first use: complex transforms never pay
// for them.
func (p *Plan) evenReal() bool {
	if p.r != nil || p.n%2 != 0 {
		return false
	}
	if p.half == nil {
		h, err := newPlan(p.n/2, p.opts)
		if err != nil { // cannot happen: n/2 >= 1
			return false
		}
		p.half = h
		p.rw = make([]complex128, p.n/2)
		for k := range p.rw {
			p.rw[k] = unitRoot(k, p.n)
		}
	}
	return true
}

// halfForward is RealForward for an even n: z_j = x_2j + i x_2j+1 is
// transformed at length h = n/2, and with E_k = (Z_k + conj Z_(h-k))/2 and
// O_k = (Z_k - conj Z_(h-k))/2i, the transforms of the even and odd samples,
// X_k = E_k + exp(-2πik/n) O_k for k <= h.
func (p *Plan) halfForward(dst []complex128, src []float64, threads int) {
	h := p.n / 2
	z := p.scratch()[:h]
	for j := range z {
		z[j] = complex(src[2*j], src[2*j+1])
	}
	p.half.ForwardThreads(z, z, threads)
	z0 := z[0]
	dst[0] = complex(real(z0)+imag(z0), 0)
	dst[h] = complex(real(z0)-imag(z0), 0)
	for k := 1; k < h; k++ {
		a, b := z[k], cmplx.Conj(z[h-k])
		e := (a + b) * 0.5
		o := mulNegI(a-b) * 0.5
		dst[k] = e + p.rw[k]*o
	}
}

// halfBackward is RealBackward for an even n, halfForward undone: from
// X_k and conj X_(h-k), 2E_k = X_k + conj X_(h-k) and 2O_k =
// (X_k - conj X_(h-k)) exp(2πik/n); the length-h backward transform of
// 2E + 2iO is n times the even and odd samples.
func (p *Plan) halfBackward(dst []float64, src []complex128) {
	h := p.n / 2
	z := p.scratch()[:h]
	x0, xh := complex(real(src[0]), 0), complex(real(src[h]), 0)
	z[0] = (x0 + xh) + complex(0, 1)*(x0-xh)
	for k := 1; k < h; k++ {
		a, b := src[k], cmplx.Conj(src[h-k])
		e := a + b
		o := (a - b) * cmplx.Conj(p.rw[k])
		z[k] = e + complex(-imag(o), real(o)) // e + i*o
	}
	p.half.Backward(z, z)
	for j, v := range z {
		dst[2*j] = real(v)
		dst[2*j+1] = imag(v)
	}
}

func (p *Plan) scratch() []complex128 {
	if p.buf == nil {
		p.buf = make([]complex128, p.n)
	}
	return p.buf
}

func (p *Plan) check(nd, ns int) {
	if nd != p.n || ns != p.n {
		panic(fmt.Sprintf("fft: plan of length %d given %d values into %d", p.n, ns, nd))
	}
}

// maxRadix is the largest prime factor the Stockham passes take (a generic
// pass above 5, O(p) work per element); lengths with larger ones go to
// FFTPACK or, when pocketfft's estimate says so, Bluestein.
const maxRadix = 61

// stockhamOK reports whether n has no prime factor above maxRadix.
func stockhamOK(n int) bool {
	for f := 2; f <= maxRadix && n > 1; f++ {
		for n%f == 0 {
			n /= f
		}
	}
	return n == 1
}

// smooth5 reports whether n has no prime factor above 5.
func smooth5(n int) bool {
	for _, f := range []int{2, 3, 5} {
		for n%f == 0 {
			n /= f
		}
	}
	return n == 1
}

// The orders in which FFTPACK's initialisers try factors (cffti and rffti);
// after them come 7, 9, 11, ... (odd numbers; composites never divide).
var (
	complexOrder = []int{3, 4, 2, 5}
	realOrder    = []int{4, 2, 3, 5}
)

// countFactors is the number of factors FFTPACK's initialiser records for n
// when it tries the factors in order: more than maxFactors overflow its table.
func countFactors(n int, order []int) int {
	nf := 0
	try := 0
	for j := 0; n > 1; j++ {
		if j < len(order) {
			try = order[j]
		} else {
			try += 2
		}
		if try*try > n && j >= len(order) {
			return nf + 1 // what is left is prime
		}
		for n%try == 0 {
			n /= try
			nf++
		}
	}
	return nf
}

// costGuess estimates the work of a mixed-radix transform of length n: the
// sum of its prime factors times n, factors above 5 weighted a little more
// as they go through the generic pass (pocketfft's estimate).
func costGuess(n int) float64 {
	total := float64(n)
	cost := 0.0
	for n%2 == 0 {
		cost += 2
		n /= 2
	}
	for f := 3; f*f <= n; f += 2 {
		for n%f == 0 {
			cost += weight(f)
			n /= f
		}
	}
	if n > 1 {
		cost += weight(n)
	}
	return cost * total
}

func weight(f int) float64 {
	if f <= 5 {
		return float64(f)
	}
	return 1.1 * float64(f)
}

// useBluestein reports whether Bluestein's algorithm (two transforms of
// a smooth length of at least 2n-1, and a third for its chirp once per
// plan) is expected to beat the mixed radix transform for n.
func useBluestein(n int) bool {
	if n < 50 {
		return false
	}
	return 1.5*2*costGuess(goodSize(2*n-1)) < costGuess(n)
}

// goodSize is the smallest 2,3,5-smooth number at least n.
func goodSize(n int) int {
	if n <= 6 {
		return max(n, 1)
	}
	best := math.MaxInt
	for f5 := 1; f5 < best; f5 *= 5 {
		for f35 := f5; f35 < best; f35 *= 3 {
			x := f35
			for x < n {
				x *= 2
			}
			if x < best {
				best = x
			}
			if f35 >= n {
				break
			}
		}
		if f5 >= n {
			break
		}
	}
	return best
}

// expTable gives exp(-2πi m/n) for 0 <= m < n from two tables of about
// sqrt(n) entries each (m = hi*s + lo), so that large lengths need no
// n-entry table; each entry is computed directly, the product is within
// a few ulps.
type expTable struct {
	n, s   int
	hi, lo []complex128
}

func newExpTable(n int) *expTable {
	s := int(math.Sqrt(float64(n))) + 1
	t := &expTable{n: n, s: s, hi: make([]complex128, n/s+1), lo: make([]complex128, s)}
	for i := range t.lo {
		t.lo[i] = unitRoot(i, n)
	}
	for i := range t.hi {
		t.hi[i] = unitRoot(i*s, n)
	}
	return t
}

// at is exp(-2πi m/n) for 0 <= m < n.
func (t *expTable) at(m int) complex128 {
	return t.hi[m/t.s] * t.lo[m%t.s]
}

// unitRoot is exp(-2πi m/n), computed from the nearest octant so the
// argument handed to sin and cos stays small and exact symmetries hold.
func unitRoot(m, n int) complex128 {
	m %= n
	if m < 0 {
		m += n
	}
	// Reduce by symmetry to an angle in [0, π/4].
	// 8m/n picks the octant; work with exact integer remainders.
	num := 8 * m
	oct := num / n
	rem := num - oct*n // angle within the octant is (π/4) * rem/n
	var x float64
	if oct%2 == 0 {
		x = float64(rem) / float64(n)
	} else {
		x = float64(n-rem) / float64(n)
	}
	s, c := math.Sincos(math.Pi / 4 * x)
	// (c, s) is cos and sin of the reduced angle a; map back to the
	// angle θ = 2πm/n and return cos θ - i sin θ.
	var ct, st float64
	switch oct {
	case 0: // θ = a
		ct, st = c, s
	case 1: // θ = π/2 - a
		ct, st = s, c
	case 2: // θ = π/2 + a
		ct, st = -s, c
	case 3: // θ = π - a
		ct, st = -c, s
	case 4: // θ = π + a
		ct, st = -c, -s
	case 5: // θ = 3π/2 - a
		ct, st = -s, -c
	case 6: // θ = 3π/2 + a
		ct, st = s, -c
	default: // θ = 2π - a
		ct, st = c, -s
	}
	return complex(ct, -st)
}

// bluestein computes a length-n transform as a circular convolution of
// length m >= 2n-1: with w_k = exp(-πi k²/n), X_k = w_k Σ_j (x_j w_j) conj(w_{k-j}).
type bluestein struct {
	n, m int
	w    []complex128 // the chirp w_k, k < n
	bk   []complex128 // the transform of conj(w) wrapped to length m, divided by m
	p    *Plan        // the length-m plan
	a    []complex128 // scratch of length m
}

func newBluestein(n int, o options) (*bluestein, error) {
	m := goodSize(2*n - 1)
	inner := o
	inner.bluestein, inner.forceFourStep = false, false
	inner.noBluestein = true
	p, err := newPlan(m, inner)
	if err != nil {
		return nil, err
	}
	b := &bluestein{n: n, m: m, p: p, w: make([]complex128, n), bk: make([]complex128, m), a: make([]complex128, m)}
	// k² mod 2n, kept exact by adding 2k-1 at each step: the angle
	// πk²/n is then 2π(k² mod 2n)/(2n), a unit root of order 2n.
	kk := 0
	for k := range n {
		b.w[k] = unitRoot(kk, 2*n)
		kk += 2*k + 1
		if kk >= 2*n {
			kk %= 2 * n
		}
	}
	b.bk[0] = cmplx.Conj(b.w[0])
	for k := 1; k < n; k++ {
		c := cmplx.Conj(b.w[k])
		b.bk[k] = c
		b.bk[m-k] = c
	}
	p.Forward(b.bk, b.bk)
	scale := 1 / float64(m)
	for i := range b.bk {
		b.bk[i] *= complex(scale, 0)
	}
	return b, nil
}

func (b *bluestein) forward(dst, src []complex128) {
	a := b.a
	for k, v := range src {
		a[k] = v * b.w[k]
	}
	clear(a[b.n:])
	b.p.Forward(a, a)
	for i := range a {
		a[i] *= b.bk[i]
	}
	b.p.Backward(a, a)
	for k := range dst {
		dst[k] = a[k] * b.w[k]
	}
}

// fourStep computes a length n = n1*n2 transform as n2 transforms of length
// n1, a twiddle and n1 transforms of length n2: with j = n2*j1 + j2 and
// k = k1 + n1*k2, X_k = Σ_j2 W_n^(j2 k1) (Σ_j1 x_j W_n1^(j1 k1)) W_n2^(j2 k2).
type fourStep struct {
	n, n1, n2 int
	p1, p2    *Plan
	tw        *expTable
	t         []complex128 // n2 rows of n1
	col       []complex128 // fourStepBlock columns of length n2
	workers   []*fsWorker  // the other threads' sub-plans (forwardThreads)
}

// newFourStep splits n at its divisor nearest sqrt(n); nil for a prime.
func newFourStep(n int, o options) (*fourStep, error) {
	n1 := 0
	for d := int(math.Sqrt(float64(n))); d >= 2; d-- {
		if n%d == 0 {
			n1 = d
			break
		}
	}
	if n1 == 0 {
		return nil, nil
	}
	inner := o
	inner.forceFourStep = false
	p1, err := newPlan(n1, inner)
	if err != nil {
		return nil, err
	}
	p2, err := newPlan(n/n1, inner)
	if err != nil {
		return nil, err
	}
	return &fourStep{n: n, n1: n1, n2: n / n1, p1: p1, p2: p2, tw: newExpTable(n),
		t: make([]complex128, n), col: make([]complex128, fourStepBlock*(n/n1))}, nil
}

func (f *fourStep) forward(dst, src []complex128) {
	w := fsWorker{p1: f.p1, p2: f.p2, col: f.col}
	for j0 := 0; j0 < f.n2; j0 += fourStepBlock {
		f.rows(&w, src, j0)
	}
	for k0 := 0; k0 < f.n1; k0 += fourStepBlock {
		f.cols(&w, dst, k0)
	}
}

// fsWorker is one thread's sub-plans and column buffer.
type fsWorker struct {
	p1, p2 *Plan
	col    []complex128
}

// forwardThreads is forward with the blocks of each step shared out among
// threads (the first thread uses the plan's own sub-plans). Every block is
// computed as forward computes it, so the bits do not depend on threads.
func (f *fourStep) forwardThreads(dst, src []complex128, threads int) {
	blocks := (max(f.n1, f.n2) + fourStepBlock - 1) / fourStepBlock
	threads = min(threads, blocks)
	for len(f.workers) < threads-1 {
		p1, err1 := NewPlan(f.n1)
		p2, err2 := NewPlan(f.n2)
		if err1 != nil || err2 != nil { // cannot happen: n1, n2 >= 2
			f.forward(dst, src)
			return
		}
		f.workers = append(f.workers, &fsWorker{p1: p1, p2: p2, col: make([]complex128, len(f.col))})
	}
	ws := append([]*fsWorker{{p1: f.p1, p2: f.p2, col: f.col}}, f.workers[:threads-1]...)
	step := func(n int, do func(w *fsWorker, b0 int)) {
		nb := (n + fourStepBlock - 1) / fourStepBlock
		var wg sync.WaitGroup
		for t, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := nb * t / len(ws); b < nb*(t+1)/len(ws); b++ {
					do(w, b*fourStepBlock)
				}
			}()
		}
		wg.Wait()
	}
	step(f.n2, func(w *fsWorker, j0 int) { f.rows(w, src, j0) })
	step(f.n1, func(w *fsWorker, k0 int) { f.cols(w, dst, k0) })
}

// rows is the first step for the block of columns j0.. of src: gathered
// into rows of t (each cache line read serves the whole block),
// transformed at length n1 and twiddled.
func (f *fourStep) rows(w *fsWorker, src []complex128, j0 int) {
	n1, n2 := f.n1, f.n2
	jb := min(fourStepBlock, n2-j0)
	for j1 := range n1 {
		run := src[n2*j1+j0 : n2*j1+j0+jb]
		for d, v := range run {
			f.t[(j0+d)*n1+j1] = v
		}
	}
	for j2 := j0; j2 < j0+jb; j2++ {
		row := f.t[j2*n1 : (j2+1)*n1]
		w.p1.Forward(row, row)
		// W_n^(j2*k1) = hi[a] * lo[b] with j2*k1 mod n = a*s + b,
		// stepped by j2 without a division per element.
		t := f.tw
		dh, dl := j2/t.s, j2%t.s
		a, b := 0, 0
		for k1 := range n1 {
			row[k1] *= t.hi[a] * t.lo[b]
			a, b = a+dh, b+dl
			if b >= t.s {
				a, b = a+1, b-t.s
			}
			if m := a*t.s + b; m >= f.n {
				m -= f.n
				a, b = m/t.s, m%t.s
			}
		}
	}
}

// cols is the second step for the block of columns k0.. of t: gathered,
// transformed at length n2 and written to dst in runs.
func (f *fourStep) cols(w *fsWorker, dst []complex128, k0 int) {
	n1, n2 := f.n1, f.n2
	kb := min(fourStepBlock, n1-k0)
	for j2 := range n2 {
		run := f.t[j2*n1+k0 : j2*n1+k0+kb]
		for d, v := range run {
			w.col[d*n2+j2] = v
		}
	}
	for d := range kb {
		c := w.col[d*n2 : (d+1)*n2]
		w.p2.Forward(c, c)
	}
	for k2 := range n2 {
		out := dst[k0+n1*k2 : k0+n1*k2+kb]
		for d := range out {
			out[d] = w.col[d*n2+k2]
		}
	}
}

// fourStepBlock is how many columns the four-step gathers at once.
const fourStepBlock = 16
