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
