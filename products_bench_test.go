package phobos_test

import (
	"context"
	"math"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Benchmarks of products on data held in memory (made in Go, not by the
// random generator): the centred Gram matrix of a tall 2e6 x 50 matrix in
// row blocks of 1e5, and a 4000 x 4000 product in blocks of 2000. The NumPy
// and Dask anchor is python/benchmarks/products_anchor.py.
//
//	go test -run '^$' -bench 'Products' -benchtime 5x .

// prBenchMatrix is an m x n matrix of values in [0, 1), deterministic.
func prBenchMatrix(b *testing.B, m, n int, seed uint64) *ndarray.Array {
	b.Helper()
	v := make([]float64, m*n)
	s := seed
	for i := range v {
		s = s*6364136223846793005 + 1442695040888963407
		v[i] = float64(s>>11) / (1 << 53)
	}
	a, err := ndarray.FromFloat64s([]int{m, n}, v)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func prBenchRun(b *testing.B, t *tensor.Tensor) {
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	b.ResetTimer()
	for range b.N {
		v, err := sess.ExecuteScalar(context.Background(), t)
		if err != nil {
			b.Fatal(err)
		}
		if math.IsNaN(v) || v == 0 {
			b.Fatalf("result %v", v)
		}
	}
}

// BenchmarkProductsGramCentred is xc.T @ xc summed, xc = x - x.mean(axis=0).
func BenchmarkProductsGramCentred(b *testing.B) {
	x := tensor.FromArray(prBenchMatrix(b, 2_000_000, 50, 1), tensor.Chunks(100_000, 50))
	xc := x.Sub(x.Mean(tensor.Axis(0)))
	prBenchRun(b, xc.T().MatMul(xc).Sum())
}

// BenchmarkProductsMatMul4000 is (a @ b).sum() of in-memory 4000 x 4000 matrices.
func BenchmarkProductsMatMul4000(b *testing.B) {
	a := tensor.FromArray(prBenchMatrix(b, 4000, 4000, 2), tensor.Chunks(2000, 2000))
	c := tensor.FromArray(prBenchMatrix(b, 4000, 4000, 3), tensor.Chunks(2000, 2000))
	prBenchRun(b, a.MatMul(c).Sum())
}
