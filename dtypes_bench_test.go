package phobos_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// dtypesBenchN elements of uint8 (an image stack's worth, 100 MB), in
// chunks of 1e7.
const dtypesBenchN = 100_000_000

func dtypesBenchInput(b *testing.B, dt ndarray.DType) *tensor.Tensor {
	b.Helper()
	raw := make([]byte, dtypesBenchN*dt.Size())
	s := uint64(11)
	for i := range raw {
		s = s*6364136223846793005 + 1442695040888963407
		raw[i] = byte(s >> 56)
	}
	a, err := ndarray.FromBytes(dt, []int{dtypesBenchN}, raw)
	if err != nil {
		b.Fatal(err)
	}
	return tensor.FromArray(a, tensor.Chunks(10_000_000))
}

// BenchmarkUint8Sum is (x // 2 + 3).sum() over 1e8 uint8 elements held in
// memory: wrapping uint8 arithmetic and a sum widened to uint64. NumPy's
// time for the same expression: python/benchmarks/dtypes_anchor.py.
//
//	go test -run '^$' -bench 'Uint8Sum|Float16Sum' -benchtime 5x .
func BenchmarkUint8Sum(b *testing.B) {
	x := dtypesBenchInput(b, ndarray.Uint8)
	benchScalar(b, tensor.FloorDiv(x, 2).Add(3).Sum())
}

// BenchmarkFloat16Sum is (x * 2 + 1).sum() over 1e8 float16 elements
// (random bit patterns, so NaNs and infinities too): computed in float32,
// rounded to float16 per element.
func BenchmarkFloat16Sum(b *testing.B) {
	x := dtypesBenchInput(b, ndarray.Float16)
	benchScalar(b, x.Mul(2).Add(1).Sum())
}

func benchScalar(b *testing.B, t *tensor.Tensor) {
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	b.ResetTimer()
	for range b.N {
		if _, err := sess.Execute(context.Background(), t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(dtypesBenchN)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
}
