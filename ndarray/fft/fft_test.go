package fft

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// naive is the O(n²) DFT, each twiddle computed from its exact index.
func naive(x []complex128, sign int) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	roots := make([]complex128, n)
	for m := range roots {
		roots[m] = unitRoot(m, n)
		if sign > 0 {
			roots[m] = cmplx.Conj(roots[m])
		}
	}
	for k := range n {
		var s complex128
		m := 0 // j*k mod n
		for _, v := range x {
			s += v * roots[m]
			m += k
			if m >= n {
				m -= n
			}
		}
		out[k] = s
	}
	return out
}

func randomComplex(r *rand.Rand, n int) []complex128 {
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(r.NormFloat64(), r.NormFloat64())
	}
	return x
}

// relErr is ||got - want|| / ||want|| in the 2-norm, the measure NumPy's
// own FFT tests and pocketfft's accuracy figures use.
func relErr(got, want []complex128) float64 {
	var num, den float64
	for i := range want {
		d := got[i] - want[i]
		num += real(d)*real(d) + imag(d)*imag(d)
		den += real(want[i])*real(want[i]) + imag(want[i])*imag(want[i])
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// tol is the accepted relative error for length n: pocketfft's is about
// 1e-16 * log2(n) on random data; the naive reference adds its own.
func tol(n int) float64 { return 2e-15 * (1 + math.Log2(float64(n))) }

var variants = map[string]options{
	"default":   {maxFactors: maxFactors},
	"bluestein": {maxFactors: maxFactors, bluestein: true},
	"fourstep":  {maxFactors: maxFactors, forceFourStep: true},
	"fewfactor": {maxFactors: 2, noStockham: true}, // splits anything of three factors or more
	"fftpack":   {maxFactors: maxFactors, noStockham: true},
}

func checkLength(t *testing.T, r *rand.Rand, name string, o options, n int) {
	t.Helper()
	p, err := newPlan(n, o)
	if err != nil {
		t.Fatalf("%s n=%d: %v", name, n, err)
	}
	x := randomComplex(r, n)
	orig := append([]complex128(nil), x...)
	got := make([]complex128, n)
	p.Forward(got, x)
	if e := relErr(got, naive(orig, -1)); e > tol(n) {
		t.Errorf("%s n=%d (kind %d): forward relative error %.3g > %.3g", name, n, p.kind, e, tol(n))
	}
	if relErr(x, orig) != 0 {
		t.Errorf("%s n=%d: forward changed its input", name, n)
	}
	p.Backward(got, x)
	if e := relErr(got, naive(orig, 1)); e > tol(n) {
		t.Errorf("%s n=%d (kind %d): backward relative error %.3g > %.3g", name, n, p.kind, e, tol(n))
	}
	// in place
	y := append([]complex128(nil), x...)
	p.Forward(y, y)
	p.Backward(y, y)
	for i := range y {
		y[i] /= complex(float64(n), 0)
	}
	if e := relErr(y, orig); e > tol(n) {
		t.Errorf("%s n=%d: in-place round trip relative error %.3g", name, n, e)
	}
	// real transforms
	xr := make([]float64, n)
	xc := make([]complex128, n)
	for i := range xr {
		xr[i] = r.NormFloat64()
		xc[i] = complex(xr[i], 0)
	}
	want := naive(xc, -1)
	half := make([]complex128, n/2+1)
	p.RealForward(half, xr)
	if e := relErr(half, want[:n/2+1]); e > tol(n) {
		t.Errorf("%s n=%d: real forward relative error %.3g", name, n, e)
	}
	// The inverse of a spectrum with junk imaginary parts at DC (and
	// Nyquist) must ignore them, as pocketfft does.
	spec := append([]complex128(nil), want[:n/2+1]...)
	spec[0] += 5i
	if n%2 == 0 {
		spec[n/2] -= 3i
	}
	back := make([]float64, n)
	p.RealBackward(back, spec)
	bc := make([]complex128, n)
	for i, v := range back {
		bc[i] = complex(v/float64(n), 0)
	}
	if e := relErr(bc, xc); e > tol(n) {
		t.Errorf("%s n=%d: real round trip relative error %.3g", name, n, e)
	}
}

func TestLengthsAgainstNaiveDFT(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, o := range variants {
		for n := 1; n <= 300; n++ {
			checkLength(t, r, name, o, n)
		}
	}
}

func TestLargePrimes(t *testing.T) {
	if testing.Short() {
		t.Skip("naive DFTs of thousands of points")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1009, 2 * 1009, 4099, 7919, 10007, 3 * 5 * 7 * 11 * 13} {
		p, err := NewPlan(n)
		if err != nil {
			t.Fatal(err)
		}
		if isPrime(n) && p.kind != kindBluestein {
			t.Errorf("n=%d is prime but planned as kind %d, want Bluestein", n, p.kind)
		}
		checkLength(t, r, "default", options{maxFactors: maxFactors}, n)
	}
}

func isPrime(n int) bool {
	for d := 2; d*d <= n; d++ {
		if n%d == 0 {
			return false
		}
	}
	return n > 1
}

// TestManyFactors covers a length FFTPACK's factor table cannot hold (3^14
// has 14 factors) and longer than the Stockham passes take whole: it is
// split (four-step) into Stockham plans or FFTPACK plans, and both must agree with a Bluestein plan of the same
// length, an independent algorithm.
func TestManyFactors(t *testing.T) {
	if testing.Short() {
		t.Skip("transforms of millions of points")
	}
	n := 4782969 // 3^14
	if countFactors(n, complexOrder) <= maxFactors {
		t.Fatalf("3^14 has %d factors, expected more than %d", countFactors(n, complexOrder), maxFactors)
	}
	r := rand.New(rand.NewPCG(5, 6))
	x := randomComplex(r, n)
	ref, err := newPlan(n, options{maxFactors: maxFactors, bluestein: true})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]complex128, n)
	ref.Forward(want, x)
	for _, c := range []struct {
		name string
		o    options
		kind planKind
	}{
		{"split into Stockham plans", options{maxFactors: maxFactors}, kindFourStep},
		{"fftpack split", options{maxFactors: maxFactors, noStockham: true}, kindFourStep},
	} {
		p, err := newPlan(n, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if p.kind != c.kind {
			t.Fatalf("%s: 3^14 planned as kind %d, want %d", c.name, p.kind, c.kind)
		}
		got := make([]complex128, n)
		p.Forward(got, x)
		if e := relErr(got, want); e > tol(n) {
			t.Errorf("%s: 3^14 differs from Bluestein by %.3g", c.name, e)
		}
	}
}

func TestCountFactors(t *testing.T) {
	for _, c := range []struct{ n, cplx, real int }{
		{1, 0, 0}, {2, 1, 1}, {4, 1, 1}, {8, 2, 2}, {12, 2, 2}, {7, 1, 1}, {49, 2, 2},
		{1 << 24, 12, 12}, {1 << 26, 13, 13}, {1 << 27, 14, 14}, {1009, 1, 1}, {2 * 3 * 1009, 3, 3},
	} {
		if got := countFactors(c.n, complexOrder); got != c.cplx {
			t.Errorf("complex factors of %d: %d, want %d", c.n, got, c.cplx)
		}
		if got := countFactors(c.n, realOrder); got != c.real {
			t.Errorf("real factors of %d: %d, want %d", c.n, got, c.real)
		}
	}
}

func TestGoodSize(t *testing.T) {
	smooth := func(n int) bool {
		for _, f := range []int{2, 3, 5} {
			for n%f == 0 {
				n /= f
			}
		}
		return n == 1
	}
	for n := 1; n < 5000; n++ {
		g := goodSize(n)
		if g < n || !smooth(g) {
			t.Fatalf("goodSize(%d) = %d", n, g)
		}
		for m := n; m < g; m++ {
			if smooth(m) {
				t.Fatalf("goodSize(%d) = %d, but %d is smaller and smooth", n, g, m)
			}
		}
	}
}

func TestUnitRoot(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 360, 1 << 20, 1000003} {
		for _, m := range []int{0, 1, n / 8, n / 4, n / 3, n / 2, n - 1, 3 * n / 4} {
			want := cmplx.Exp(complex(0, -2*math.Pi*float64(m)/float64(n)))
			if d := cmplx.Abs(unitRoot(m, n) - want); d > 4e-16*(1+float64(m)/float64(n)*8) {
				t.Errorf("unitRoot(%d, %d) off by %.3g", m, n, d)
			}
		}
	}
	if unitRoot(1, 4) != complex(0, -1) || unitRoot(2, 4) != -1 {
		t.Errorf("quarter turns not exact: %v %v", unitRoot(1, 4), unitRoot(2, 4))
	}
}

// TestThreads: a split plan on several threads gives Forward's bits.
func TestThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1 << 16, 177147} {
		p, err := NewPlan(n)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Split() {
			t.Fatalf("n=%d is not split", n)
		}
		x := randomComplex(r, n)
		want, back := make([]complex128, n), make([]complex128, n)
		p.Forward(want, x)
		p.Backward(back, x)
		for _, th := range []int{2, 3, 100} {
			got := make([]complex128, n)
			p.ForwardThreads(got, x, th)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("n=%d, %d threads: element %d is %v, one thread gives %v", n, th, i, got[i], want[i])
				}
			}
			copy(got, x)
			p.BackwardThreads(got, got, th)
			for i := range got {
				if got[i] != back[i] {
					t.Fatalf("n=%d, %d threads backward in place: element %d is %v, one thread gives %v", n, th, i, got[i], back[i])
				}
			}
		}
	}
}

// TestRealThreads: an even real transform whose half-length plan is split
// gives the same bits on several threads.
func TestRealThreads(t *testing.T) {
	n := 1 << 16
	p, err := NewPlan(n)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	want, got := make([]complex128, n/2+1), make([]complex128, n/2+1)
	p.RealForward(want, x)
	if !p.half.Split() {
		t.Fatalf("the half-length plan of %d is not split", n)
	}
	p.RealForwardThreads(got, x, 4)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("element %d is %v with 4 threads, %v with one", i, got[i], want[i])
		}
	}
}

func TestSplits(t *testing.T) {
	for _, n := range []int{1, 2, 97, 4096, 1 << 14, 1<<14 + 1, 1 << 15, 1009 * 64, 3 * 5 * 7 * 1024, 177147, 1 << 20} {
		p, err := NewPlan(n)
		if err != nil {
			t.Fatal(err)
		}
		if Splits(n) != p.Split() {
			t.Errorf("Splits(%d) = %v, but its plan's Split() = %v", n, Splits(n), p.Split())
		}
	}
}
