package ndarray

import "testing"

// Complex128 kernels on 1e6 elements, beside python/benchmarks' NumPy
// figures for the same expressions (BenchmarkComplex* in the report).
func benchComplexArrays(b *testing.B) (*Array, *Array) {
	x, y := newArray(Complex128, []int{1 << 20}), newArray(Complex128, []int{1 << 20})
	xs, ys := typed[complex128](x), typed[complex128](y)
	for i := range xs {
		xs[i] = complex(float64(i%1000)/7-50, float64(i%777)/3-100)
		ys[i] = complex(float64(i%555)/11+1, float64(i%333)/5-30)
	}
	b.SetBytes(16 << 20)
	return x, y
}

func BenchmarkComplexMul(b *testing.B) {
	x, y := benchComplexArrays(b)
	for b.Loop() {
		if _, err := Binary(Mul, x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkComplexDiv(b *testing.B) {
	x, y := benchComplexArrays(b)
	for b.Loop() {
		if _, err := Binary(Div, x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkComplexAbs(b *testing.B) {
	x, _ := benchComplexArrays(b)
	for b.Loop() {
		if _, err := Unary(Abs, x); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkComplexSum(b *testing.B) {
	x, _ := benchComplexArrays(b)
	for b.Loop() {
		if _, err := Reduce(Sum, x, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}
