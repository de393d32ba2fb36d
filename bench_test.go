package phobos_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

func w5() *tensor.Tensor {
	return tensor.Ones([]int{2000000}, tensor.Chunks(100)).Add(1).Sum()
}

// BenchmarkCompileW5 is graph building, tiling, culling and fusion of W5's
// 66,668 chunk ops: preparation must stay linear in the graph.
func BenchmarkCompileW5(b *testing.B) {
	for range b.N {
		if _, err := phobos.Compile(w5()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecuteW5 is W5 end to end in a local session; ops/s counts the
// chunk ops executed (after fusion).
func BenchmarkExecuteW5(b *testing.B) {
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	ops := 0
	for range b.N {
		if _, err := sess.ExecuteScalar(context.Background(), w5()); err != nil {
			b.Fatal(err)
		}
		ops += sess.Stats().ChunkOps
	}
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}
