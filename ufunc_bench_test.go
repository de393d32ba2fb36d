package phobos_test

import (
	"context"
	"math"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Benchmarks of two binary ufuncs over 1e8 float64 elements held in memory
// (x, y made in Go, chunks of 1e7), fused with a sum: 1.6 GB of inputs. The
// Dask and NumPy anchor is python/benchmarks/ufunc_dask.py.
//
//	go test -run '^$' -bench 'Ufunc(Hypot|ArcTan2|Add|ExpSin)Sum' -benchtime 3x .

const ufBenchN = 100_000_000

// ufBenchInputs makes x in [-1, 1) and y in [-3, 3), deterministic.
func ufBenchInputs(b *testing.B) (x, y *tensor.Tensor) {
	b.Helper()
	xs, ys := make([]float64, ufBenchN), make([]float64, ufBenchN)
	s := uint64(1)
	for i := range xs {
		s = s*6364136223846793005 + 1442695040888963407
		xs[i] = float64(s>>11)/(1<<52) - 1
		ys[i] = 3 * (float64(s&(1<<30-1))/(1<<29) - 1)
	}
	xa, err := ndarray.FromFloat64s([]int{ufBenchN}, xs)
	if err != nil {
		b.Fatal(err)
	}
	ya, err := ndarray.FromFloat64s([]int{ufBenchN}, ys)
	if err != nil {
		b.Fatal(err)
	}
	return tensor.FromArray(xa, tensor.Chunks(10_000_000)), tensor.FromArray(ya, tensor.Chunks(10_000_000))
}

func ufBenchSum(b *testing.B, f func(x, y *tensor.Tensor) *tensor.Tensor) {
	x, y := ufBenchInputs(b)
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	b.ResetTimer()
	for range b.N {
		v, err := sess.ExecuteScalar(context.Background(), f(x, y).Sum())
		if err != nil {
			b.Fatal(err)
		}
		if math.IsNaN(v) || v == 0 {
			b.Fatalf("sum %v", v)
		}
	}
	b.ReportMetric(float64(ufBenchN)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
}

// BenchmarkUfuncHypotSum is tensor.Hypot(x, y).Sum() over 1e8 elements.
func BenchmarkUfuncHypotSum(b *testing.B) {
	ufBenchSum(b, func(x, y *tensor.Tensor) *tensor.Tensor { return tensor.Hypot(x, y) })
}

// BenchmarkUfuncArcTan2Sum is tensor.ArcTan2(y, x).Sum() over 1e8 elements.
func BenchmarkUfuncArcTan2Sum(b *testing.B) {
	ufBenchSum(b, func(x, y *tensor.Tensor) *tensor.Tensor { return tensor.ArcTan2(y, x) })
}

// BenchmarkUfuncAddSum is (x + y).Sum() over the same inputs: the same bytes
// read with almost no arithmetic, the memory-bandwidth floor of the two
// above.
func BenchmarkUfuncAddSum(b *testing.B) {
	ufBenchSum(b, func(x, y *tensor.Tensor) *tensor.Tensor { return x.Add(y) })
}

// BenchmarkUfuncExpSinSum is (exp(-x*x) * sin(x)).Sum(), of x only.
func BenchmarkUfuncExpSinSum(b *testing.B) {
	ufBenchSum(b, func(x, _ *tensor.Tensor) *tensor.Tensor { return x.Mul(x).Neg().Exp().Mul(x.Sin()) })
}
