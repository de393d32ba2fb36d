package phobos_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkMaskSum is x[x > 0].sum() over 1e8 float64 elements held in
// memory (x of ufBenchInputs, uniform in [-1, 1), chunks of 1e7): half of
// them selected. Its anchors: python/benchmarks/mask_anchor.py.
//
//	go test -run '^$' -bench MaskSum -benchtime 5x .
func BenchmarkMaskSum(b *testing.B) {
	x, _ := ufBenchInputs(b)
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	b.ResetTimer()
	for range b.N {
		v, err := sess.ExecuteScalar(context.Background(), x.Index(tensor.Mask(x.Greater(0))).Sum())
		if err != nil {
			b.Fatal(err)
		}
		if !(v > 0) {
			b.Fatalf("sum %v", v)
		}
	}
	b.ReportMetric(float64(ufBenchN)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
}

// BenchmarkTakeRandom is x[idx] with 1e7 random indices (int64, chunks of
// 1e6) into the 1e8-element in-memory x of ufBenchInputs, summed. Its
// anchors: python/benchmarks/mask_anchor.py.
//
//	go test -run '^$' -bench TakeRandom -benchtime 5x .
func BenchmarkTakeRandom(b *testing.B) {
	x, _ := ufBenchInputs(b)
	const m = 10_000_000
	idx := make([]int64, m)
	s := uint64(7)
	for i := range idx {
		s = s*6364136223846793005 + 1442695040888963407
		idx[i] = int64((s >> 11) % ufBenchN)
	}
	ind := tensor.FromSlice(idx, []int{m}, tensor.Chunks(1_000_000))
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	b.ResetTimer()
	for range b.N {
		v, err := sess.ExecuteScalar(context.Background(), x.Index(tensor.Array(ind)).Sum())
		if err != nil {
			b.Fatal(err)
		}
		if v == 0 {
			b.Fatalf("sum %v", v)
		}
	}
	b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mindex/s")
}

// BenchmarkTopK is TopK(x, 100) of x = rand(2e8) in chunks of 1e7,
// generated (as the anchors do: python/benchmarks/sort_anchor.py, Dask's
// da.topk), summed.
//
//	go test -run '^$' -bench TopK -benchtime 3x .
func BenchmarkTopK(b *testing.B) {
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	x := tensor.NewGenerator(1).Rand([]int{200_000_000}, tensor.Chunks(10_000_000))
	b.ResetTimer()
	for range b.N {
		v, err := sess.ExecuteScalar(context.Background(), tensor.TopK(x, 100, 0, true).Sum())
		if err != nil {
			b.Fatal(err)
		}
		if !(v > 99 && v <= 100) {
			b.Fatalf("sum of the top 100 of 2e8 uniform values: %v", v)
		}
	}
}
