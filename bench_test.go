package phobos_test

import (
	"context"
	"fmt"
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
	ops := executeN(b, sess, w5())
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}

// executeN executes x b.N times in sess and returns the chunk ops run.
func executeN(b *testing.B, sess *phobos.Session, x *tensor.Tensor) int {
	ops := 0
	for range b.N {
		if _, err := sess.ExecuteScalar(context.Background(), x); err != nil {
			b.Fatal(err)
		}
		ops += sess.Stats().ChunkOps
	}
	return ops
}

// BenchmarkExecuteW5Layouts is W5 at 2e7 on local sessions of different
// shapes with the same cores: one worker of two slots (the default on two
// cores), one of one, two of one. Each session runs the graph warm, over
// and over, so the figures are steadier than cold runs of phobos run. On
// two cores two workers of one slot have been the fastest (see
// docs/interactive.md, round 7): the gap a worker whose slots share no
// per-op state is to close.
func BenchmarkExecuteW5Layouts(b *testing.B) {
	for _, l := range []struct{ workers, slots int }{{1, 2}, {1, 1}, {2, 1}} {
		b.Run(fmt.Sprintf("workers=%d,slots=%d", l.workers, l.slots), func(b *testing.B) {
			sess, err := phobos.NewSession(phobos.WithWorkers(l.workers), phobos.WithSlots(l.slots))
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			// 266,668 chunk ops: long enough for the run, not the compile,
			// to be most of the time.
			x := tensor.Ones([]int{20_000_000}, tensor.Chunks(100)).Add(1).Sum()
			ops := executeN(b, sess, x)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/chunk-op")
		})
	}
}

// BenchmarkW5Scale is W5 at about 1e5, 1e6 and 1e7 chunk ops (n = 75 ×
// ops in chunks of 100: a partial per chunk and a combine per three), each
// run on a fresh session: the cost per chunk op (ns/chunk-op, wall time of
// compiling and running over the chunk ops run) must stay flat as the
// graph grows. The largest takes a minute and gigabytes:
// go test -run NONE -bench W5Scale -benchtime 1x.
func BenchmarkW5Scale(b *testing.B) {
	for _, ops := range []int{100_000, 1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("ops=%.0e", float64(ops)), func(b *testing.B) {
			sess, err := phobos.NewSession()
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			x := tensor.Ones([]int{75 * ops}, tensor.Chunks(100)).Add(1).Sum()
			b.ResetTimer()
			chunkOps := executeN(b, sess, x)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(chunkOps), "ns/chunk-op")
			b.ReportMetric(float64(chunkOps)/float64(b.N), "chunk-ops")
		})
	}
}
