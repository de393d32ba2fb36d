package ndarray

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// dot4 agrees with dot4Go (to the rounding of a fused multiply-add) for
// every k mod 4, row strides wider than a row, and a's end exactly at the
// last row's end (the masked tail reads nothing past it).
func TestDot4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 13, 50, 64, 101} {
		for _, extra := range []int{0, 3} {
			m, lda := 37, k+extra
			a := make([]float64, (m-1)*lda+k)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			b := make([]float64, 4*k)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			got, want := make([]float64, 4*m), make([]float64, 4*m)
			dot4(got, a, lda, m, b, k)
			dot4Go(want, a, lda, m, b, k)
			for i := range got {
				row := a[(i/4)*lda : (i/4)*lda+k]
				var mag float64
				for p, x := range row {
					mag += math.Abs(x * b[(i%4)*k+p])
				}
				if math.Abs(got[i]-want[i]) > 1e-14*mag {
					t.Fatalf("k=%d lda=%d: out[%d] = %v, want %v", k, lda, i, got[i], want[i])
				}
			}
		}
	}
}

// A product with few columns gives what the general product gives, for
// every column count it takes and one past, with b and a transposed views,
// a batch, and beta = 1.
func TestMatMulSkinny(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rand := func(shape ...int) *Array {
		a, err := Zeros(Float64, shape...)
		if err != nil {
			t.Fatal(err)
		}
		v := typedAll[float64](a)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return a
	}
	for _, n := range []int{1, 3, 4, 5, 8, 9} {
		for _, k := range []int{5, 50} {
			m := 4000
			if fits := mmSkinnyFits(m, k, n, k, 1); fits != (n <= mmSkinnyMaxN) {
				t.Fatalf("n=%d k=%d: for dot4 %v", n, k, fits)
			}
			a, b := rand(m, k), rand(k, n)
			bt, err := rand(n, k).Transpose()
			if err != nil {
				t.Fatal(err)
			}
			for name, bb := range map[string]*Array{"b": b, "bᵀ view": bt} {
				t.Run(fmt.Sprintf("n=%d k=%d %s", n, k, name), func(t *testing.T) {
					got, err := MatMul(a, bb)
					if err != nil {
						t.Fatal(err)
					}
					want := naiveMatMul(a, bb)
					closeTo(t, got, want, a, bb)
				})
			}
		}
	}
	// a batch of two: (2, m, k) · (k, 3)
	a, b := rand(2, 1000, 40), rand(40, 3)
	if !mmSkinnyFits(1000, 40, 3, 40, 1) {
		t.Fatal("the batch is not one for dot4")
	}
	got, err := MatMul(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		ai, _ := a.Index(0, i)
		gi, _ := got.Index(0, i)
		closeTo(t, gi, naiveMatMul(ai, b), ai, b)
	}
}

// naiveMatMul is a·b of 2-d float64 arrays by the textbook loops.
func naiveMatMul(a, b *Array) []float64 {
	m, k, n := a.Shape()[0], a.Shape()[1], b.Shape()[1]
	av, bv := a.ToFloat64s(), b.ToFloat64s()
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for p := range k {
				s += av[i*k+p] * bv[p*n+j]
			}
			out[i*n+j] = s
		}
	}
	return out
}

// closeTo checks got against want within the rounding of sums of k
// products.
func closeTo(t *testing.T, got *Array, want []float64, a, b *Array) {
	t.Helper()
	v := got.ToFloat64s()
	k, n := a.Shape()[1], b.Shape()[1]
	av, bv := a.ToFloat64s(), b.ToFloat64s()
	if len(v) != len(want) {
		t.Fatalf("%d elements, want %d", len(v), len(want))
	}
	for i := range v {
		var mag float64
		for p := range k {
			mag += math.Abs(av[(i/n)*k+p] * bv[p*n+i%n])
		}
		if math.Abs(v[i]-want[i]) > 1e-13*mag {
			t.Fatalf("element %d: %v, want %v", i, v[i], want[i])
		}
	}
}

// BenchmarkMatMulSkinny is X·Wᵀ of a chunk of a tall X (200,000×50) and
// a few columns, with dot4 and with BLAS.
func BenchmarkMatMulSkinny(b *testing.B) {
	m, k := 200000, 50
	x, _ := Zeros(Float64, m, k)
	xv := typedAll[float64](x)
	for i := range xv {
		xv[i] = float64(i%7) - 3
	}
	for _, n := range []int{3, 8} {
		w, _ := Zeros(Float64, n, k)
		wt, _ := w.Transpose()
		out, _ := Zeros(Float64, m, n)
		b.Run(fmt.Sprintf("n=%d/dot4", n), func(b *testing.B) {
			if !hasDot4 {
				b.Skip("no AVX2 and FMA")
			}
			for range b.N {
				mmSkinny(x, wt, out, nil, m, k, n, 0)
			}
		})
		b.Run(fmt.Sprintf("n=%d/blas", n), func(b *testing.B) {
			for range b.N {
				mmFloat(x, wt, out, nil, m, k, n, 0, 1, mmBLAS.get().Dgemm)
			}
		})
	}
}
