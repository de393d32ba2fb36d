package phobos

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/tensor"
)

// memStats sums the store statistics of the session's workers (peaks: the
// largest).
func memStats(s *Session) storage.Stats {
	var sum storage.Stats
	for _, w := range s.be.(*localBackend).local.Workers {
		st := w.Store().Stats()
		sum.PeakBytes = max(sum.PeakBytes, st.PeakBytes)
		sum.PeakUsed = max(sum.PeakUsed, st.PeakUsed)
		sum.SpilledBytes += st.SpilledBytes
		sum.LoadedBytes += st.LoadedBytes
		sum.PrivateLoads += st.PrivateLoads
		sum.DroppedBytes += st.DroppedBytes
		sum.RecomputedBytes += st.RecomputedBytes
		sum.Reserved += st.Reserved
	}
	return sum
}

// evalScalar runs t in a new session with opts and returns its value and
// the session's memory statistics.
func evalScalar(t *testing.T, build func() *tensor.Tensor, opts ...Option) (float64, storage.Stats) {
	t.Helper()
	s, err := NewSession(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := s.ExecuteScalar(ctx, build())
	if err != nil {
		t.Fatal(err)
	}
	return v, memStats(s)
}

const chunkBytes = 100 * 100 * 8

// W7's shape at small size, with fusion off so that every random chunk is
// materialised: under a budget of a few chunks the store never holds more,
// and the mean is exactly the unlimited run's.
func TestW7UnderSmallBudget(t *testing.T) {
	build := func() *tensor.Tensor {
		return tensor.NewGenerator(7).Rand([]int{1200, 1200}, tensor.Chunks(100, 100)).Mean()
	}
	want, _ := evalScalar(t, build, WithFusion(false), WithMemoryLimit(-1))
	const limit = 8 * chunkBytes // 144 chunks of x, 11.5 MB
	for _, workers := range []int{1, 2} {
		got, st := evalScalar(t, build, WithFusion(false), WithWorkers(workers), WithMemoryLimit(limit))
		if got != want || math.Abs(got-0.5) > 0.01 {
			t.Errorf("%d workers: mean %v, want %v", workers, got, want)
		}
		if st.PeakUsed > limit || st.PeakBytes > limit {
			t.Errorf("%d workers: peak store %d, peak used %d, over the limit %d", workers, st.PeakBytes, st.PeakUsed, limit)
		}
	}
}

// x is needed again after x.mean() (a mean absolute deviation; W8's
// variance reads x once, see tensor's centredMoments), so it cannot all
// stay in a small budget. Generated chunks are dropped and recomputed; chunks that
// are not generated spill and come back. Results equal the unlimited run.
func TestW8UnderSmallBudget(t *testing.T) {
	for _, generated := range []bool{true, false} {
		build := func() *tensor.Tensor {
			x := tensor.NewGenerator(8).Rand([]int{800, 800}, tensor.Chunks(100, 100)) // 64 chunks, 5 MB
			if !generated {
				x = x.Add(1) // materialised by an elementwise op: not regenerable
			}
			return x.Sub(x.Mean()).Abs().Mean()
		}
		want, _ := evalScalar(t, build, WithFusion(false), WithMemoryLimit(-1))
		const limit = 16 * chunkBytes
		got, st := evalScalar(t, build, WithFusion(false), WithMemoryLimit(limit))
		if got != want || math.Abs(got-0.25) > 0.01 { // E|U - 1/2| of a uniform U
			t.Errorf("generated=%v: mean absolute deviation %v, want %v", generated, got, want)
		}
		if st.PeakUsed > limit {
			t.Errorf("generated=%v: peak used %d over the limit %d", generated, st.PeakUsed, limit)
		}
		// (Outputs of other ops may spill if a release is slow to come.)
		if generated && (st.DroppedBytes == 0 || st.RecomputedBytes == 0 || st.SpilledBytes > st.DroppedBytes/4) {
			t.Errorf("generated x: dropped %d, recomputed %d, spilled %d bytes; want drops and recomputes, few spills",
				st.DroppedBytes, st.RecomputedBytes, st.SpilledBytes)
		}
		if !generated && (st.SpilledBytes == 0 || st.LoadedBytes == 0) {
			t.Errorf("computed x: spilled %d, loaded %d bytes; want both", st.SpilledBytes, st.LoadedBytes)
		}
		if st.Reserved != 0 {
			t.Errorf("generated=%v: %d bytes still reserved", generated, st.Reserved)
		}
	}
}

// A long chain of materialised chunks under a budget of a few chunks.
func TestLongChainUnderTinyBudget(t *testing.T) {
	build := func() *tensor.Tensor {
		y := tensor.NewGenerator(3).Rand([]int{400, 400}, tensor.Chunks(100, 100))
		for range 30 {
			y = y.Mul(1.01).Add(-0.001)
		}
		return y.Sum()
	}
	want, _ := evalScalar(t, build, WithFusion(false), WithMemoryLimit(-1))
	got, st := evalScalar(t, build, WithFusion(false), WithMemoryLimit(5*chunkBytes))
	if got != want {
		t.Errorf("sum %v, want %v", got, want)
	}
	if st.PeakUsed > 5*chunkBytes {
		t.Errorf("peak used %d over the limit", st.PeakUsed)
	}
}

// An op larger than the budget fails at once with a clear error; one that
// needs a spill into a missing directory fails naming it; in both cases the
// session goes on working.
func TestMemoryErrorsKeepSessionServing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	s, err := NewSession(WithMemoryLimit(10*chunkBytes), WithSpillDir(dir), WithFusion(false), WithMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	big := tensor.NewGenerator(1).Rand([]int{1000, 1000}, tensor.Chunks(1000, 1000)).Sum() // one 8 MB chunk
	_, err = s.Execute(ctx, big)
	var tl *storage.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "random_chunk") || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("op over the budget: %v; want a TooLargeError naming the op and the limit", err)
	}

	x := tensor.NewGenerator(2).Rand([]int{800, 800}, tensor.Chunks(100, 100)).Add(1)
	_, err = s.Execute(ctx, x.Sub(x.Mean()).Abs().Mean())
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("computation needing a spill into a missing directory: %v; want an error naming %s", err, dir)
	}

	v, err := s.ExecuteScalar(ctx, tensor.Ones([]int{300, 300}, tensor.Chunks(100, 100)).Sum())
	if err != nil || v != 90000 {
		t.Fatalf("small computation afterwards = %v, %v", v, err)
	}
}

// The session keeps the Go heap near its workers' budgets and restores the
// runtime's limit when it closes.
func TestSessionSetsGoMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	s, err := NewSession(WithMemoryLimit(1<<30), WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := debug.SetMemoryLimit(-1), min(orig, storage.GoHeapLimit(2<<30)); got != want {
		t.Errorf("Go memory limit %d during the session, want %d", got, want)
	}
	s.Close()
	if got := debug.SetMemoryLimit(-1); got != orig {
		t.Errorf("Go memory limit %d after Close, want the original %d", got, orig)
	}
}

// Results larger than the budget stay stored (spilled) until fetched, even
// while other ops need the memory, and come back exact.
func TestResultsLargerThanBudget(t *testing.T) {
	build := func() []*tensor.Tensor {
		x := tensor.NewGenerator(4).Rand([]int{600, 600}, tensor.Chunks(100, 100)).Mul(2) // 36 chunks, 2.9 MB
		return []*tensor.Tensor{x, x.Sum(), x.Add(1).Max()}
	}
	run := func(opts ...Option) ([]float64, float64, float64, storage.Stats) {
		s, err := NewSession(append(opts, WithFusion(false))...)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := s.Execute(ctx, build()...)
		if err != nil {
			t.Fatal(err)
		}
		sum, _ := out[1].Item()
		mx, _ := out[2].Item()
		return out[0].ToFloat64s(), sum, mx, memStats(s)
	}
	wx, wsum, wmax, _ := run(WithMemoryLimit(-1))
	x, sum, mx, st := run(WithMemoryLimit(8 * chunkBytes))
	if sum != wsum || mx != wmax {
		t.Errorf("sum %v, max %v; want %v, %v", sum, mx, wsum, wmax)
	}
	for i := range wx {
		if x[i] != wx[i] {
			t.Fatalf("x[%d] = %v, want %v", i, x[i], wx[i])
		}
	}
	if st.SpilledBytes == 0 || st.PeakUsed > 8*chunkBytes {
		t.Errorf("spilled %d bytes, peak used %d (limit %d)", st.SpilledBytes, st.PeakUsed, 8*chunkBytes)
	}
}
