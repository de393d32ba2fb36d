package worker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/rng"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// unit is the size of the test chunks: 1024 float64s. Ops that are not
// fused or views are estimated at output + an output-sized temporary.
const (
	unit  = 8 << 10
	elems = unit / 8
)

// testOp outputs n float64s, each 1 + the sum of its inputs' first
// elements. It waits for gate (if any) and records its run.
type testOp struct {
	name  string
	n     int
	gate  <-chan struct{}
	onRun func()        // called as the kernel starts
	done  chan struct{} // closed as the kernel returns
}

func (o *testOp) Type() string { return o.name }

func (o *testOp) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if o.done != nil {
		defer close(o.done)
	}
	if o.onRun != nil {
		o.onRun()
	}
	if o.gate != nil {
		select {
		case <-o.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	v := 1.0
	for _, a := range in {
		v += a.AtFlat(0)
	}
	return ndarray.FillScalar(ndarray.Float64, []int{o.n}, v), nil
}

func meta(n int) ops.Meta { return ops.Meta{Shape: []int{n}, DType: ndarray.Float64} }

func key(n int32) protocol.ChunkKey { return protocol.ChunkKey{Graph: 1, Node: n} }

func task(node int32, op ops.ChunkOp, n int, p protocol.Priority, inputs ...protocol.ChunkKey) protocol.Task {
	t := protocol.Task{Key: key(node), Op: op, Meta: meta(n), Priority: p}
	for _, k := range inputs {
		t.Inputs = append(t.Inputs, protocol.Input{Key: k, Worker: 0, Nbytes: unit})
	}
	return t
}

// recorder collects reports; results read while waiting for another task
// are kept for later.
type recorder struct {
	ch   chan protocol.Result
	seen map[protocol.ChunkKey][]protocol.Result
}

func newRecorder() *recorder {
	return &recorder{ch: make(chan protocol.Result, 1024), seen: map[protocol.ChunkKey][]protocol.Result{}}
}

func (r *recorder) Report(res protocol.Result) { r.ch <- res }

// next returns the next report of k (Started or terminal); a generous
// timeout only turns a hang into a failure.
func (r *recorder) next(t *testing.T, k protocol.ChunkKey) protocol.Result {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		if q := r.seen[k]; len(q) > 0 {
			r.seen[k] = q[1:]
			return q[0]
		}
		select {
		case res := <-r.ch:
			r.seen[res.Key] = append(r.seen[res.Key], res)
		case <-timeout:
			t.Fatalf("no report for %v", k)
		}
	}
}

// wait returns the terminal result of k.
func (r *recorder) wait(t *testing.T, k protocol.ChunkKey) protocol.Result {
	t.Helper()
	for {
		if res := r.next(t, k); res.Outcome != protocol.Started {
			return res
		}
	}
}

// started waits for the Started report of k.
func (r *recorder) started(t *testing.T, k protocol.ChunkKey) {
	t.Helper()
	if res := r.next(t, k); res.Outcome != protocol.Started {
		t.Fatalf("%v ended (%v: %v) before it was seen starting", k, res.Outcome, res.Err)
	}
}

func newWorker(t *testing.T, slots int, cfg storage.Config) (*worker.Worker, *storage.Store, *recorder) {
	t.Helper()
	st := storage.Open(cfg)
	rec := newRecorder()
	w := worker.New(worker.Config{Slots: slots}, st, rec, nil)
	t.Cleanup(func() { w.Close(); st.Close() })
	return w, st, rec
}

func depth(d int32) protocol.Priority { return protocol.Priority{Depth: d} }

// An op that does not fit is not started until memory frees.
func TestQuotaWaitsForMemory(t *testing.T) {
	w, st, rec := newWorker(t, 2, storage.Config{Limit: 4 * unit, SpillDir: t.TempDir()})
	gate := make(chan struct{})
	first := &testOp{name: "first", n: elems, gate: gate, done: make(chan struct{})}
	w.Submit([]protocol.Task{task(1, first, elems, depth(0))}) // reserves 2 units
	rec.started(t, key(1))
	var early atomic.Bool
	second := &testOp{name: "second", n: elems * 3 / 2, onRun: func() { // needs 3 units
		select {
		case <-first.done:
		default:
			early.Store(true)
		}
	}}
	w.Submit([]protocol.Task{task(2, second, elems*3/2, depth(0))})
	close(gate)
	for _, k := range []protocol.ChunkKey{key(1), key(2)} {
		if res := rec.wait(t, k); res.Outcome != protocol.Succeeded {
			t.Fatalf("%v: %v %v", k, res.Outcome, res.Err)
		}
	}
	if early.Load() {
		t.Error("the second op started while the first held the memory it needed")
	}
	if s := st.Stats(); s.PeakUsed > 4*unit || s.Reserved != 0 {
		t.Errorf("store stats %+v: over the limit or leaking reservations", s)
	}
}

// An op that can never fit fails at once, not retryable, naming op,
// estimate and limit; the worker goes on serving.
func TestNeverFitsFailsAtOnce(t *testing.T) {
	w, _, rec := newWorker(t, 1, storage.Config{Limit: 4 * unit, SpillDir: t.TempDir()})
	w.Submit([]protocol.Task{task(1, &testOp{name: "huge", n: 3 * elems}, 3*elems, depth(0))})
	res := rec.wait(t, key(1))
	var tl *storage.TooLargeError
	if res.Outcome != protocol.Failed || res.Retryable || !errors.As(res.Err, &tl) {
		t.Fatalf("huge op: %v retryable=%v %v; want a non-retryable TooLargeError", res.Outcome, res.Retryable, res.Err)
	}
	for _, s := range []string{"huge", "48 KiB", "32 KiB"} {
		if !strings.Contains(res.Err.Error(), s) {
			t.Errorf("error %q does not mention %q", res.Err, s)
		}
	}
	w.Submit([]protocol.Task{task(2, &testOp{name: "small", n: elems}, elems, depth(0))})
	if res := rec.wait(t, key(2)); res.Outcome != protocol.Succeeded {
		t.Fatalf("small op after a failure: %v %v", res.Outcome, res.Err)
	}
}

// The worker tells the store each chunk's next use: a chunk a queued urgent
// op will read survives an eviction made for a less urgent op, while a chunk
// nobody reads goes.
func TestNextUseProtectsQueuedInputs(t *testing.T) {
	w, st, rec := newWorker(t, 2, storage.Config{Limit: 12 * unit, SpillDir: t.TempDir()})
	gate := make(chan struct{})
	w.Submit([]protocol.Task{task(1, &testOp{name: "running", n: 2 * elems, gate: gate}, 2*elems, depth(0))}) // 4 units
	rec.started(t, key(1))
	a, b, z := key(10), key(11), key(12)
	st.Put(a, ndarray.FillScalar(ndarray.Float64, []int{2 * elems}, 1)) // 2 units
	st.Put(b, ndarray.FillScalar(ndarray.Float64, []int{2 * elems}, 1)) // 2 units
	st.Put(z, ndarray.Scalar(ndarray.Float64, 1))                       // 8 bytes
	// The consumer of a needs 8 units: only 4 are free and b is all it may
	// evict, so it waits. The other op needs 5: it evicts b, not a.
	consumer := task(2, &testOp{name: "consumer", n: 4 * elems}, 4*elems, depth(2), a)
	source := task(3, &testOp{name: "other", n: 5 * elems / 2}, 5*elems/2, depth(0), z)
	w.Submit([]protocol.Task{consumer, source})
	if res := rec.wait(t, key(3)); res.Outcome != protocol.Succeeded {
		t.Fatalf("source: %v %v", res.Outcome, res.Err)
	}
	if got := st.Tier(b); got != storage.TierDisk {
		t.Errorf("unread chunk is in %v, want disk", got)
	}
	if got := st.Tier(a); got != storage.TierMemory {
		t.Errorf("chunk a queued op reads is in %v, want memory", got)
	}
	close(gate)
	if res := rec.wait(t, key(2)); res.Outcome != protocol.Succeeded {
		t.Fatalf("consumer: %v %v", res.Outcome, res.Err)
	}
	if s := st.Stats(); s.PeakUsed > 12*unit {
		t.Errorf("peak used %d over the limit", s.PeakUsed)
	}
}

// A missing spill directory: ops that need a spill fail with an error naming
// it (retryable: memory may free), the others run, the worker keeps serving.
func TestSpillDirMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	w, st, rec := newWorker(t, 1, storage.Config{Limit: 4 * unit, SpillDir: dir})
	st.Put(key(10), ndarray.FillScalar(ndarray.Float64, []int{2 * elems}, 1))
	w.Submit([]protocol.Task{task(1, &testOp{name: "needs-spill", n: elems * 3 / 2}, elems*3/2, depth(0))})
	res := rec.wait(t, key(1))
	var se *storage.SpillError
	if res.Outcome != protocol.Failed || !res.Retryable || !errors.As(res.Err, &se) || !strings.Contains(res.Err.Error(), dir) {
		t.Fatalf("op needing a spill: %v retryable=%v %v; want a retryable SpillError naming %s", res.Outcome, res.Retryable, res.Err, dir)
	}
	w.Submit([]protocol.Task{task(2, &testOp{name: "fits", n: elems / 2}, elems/2, depth(0))})
	if res := rec.wait(t, key(2)); res.Outcome != protocol.Succeeded {
		t.Fatalf("op that fits: %v %v", res.Outcome, res.Err)
	}
}

// spillNow forces every unpinned chunk of st to disk (or drops it).
func spillNow(t *testing.T, st *storage.Store) {
	t.Helper()
	r, err := st.Reserve(storage.Request{Op: "spill-now", Output: st.Limit(), NoWait: true})
	if err != nil || r == nil {
		t.Fatalf("Reserve = %v, %v", r, err)
	}
	if err := r.Evict(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// A spill file deleted behind the worker's back: the consumer fails with a
// retryable error naming chunk and file (the scheduler may recompute it).
func TestLostSpillFileIsRetryable(t *testing.T) {
	w, st, rec := newWorker(t, 1, storage.Config{Limit: 2 * unit, SpillDir: t.TempDir()})
	st.Put(key(10), ndarray.FillScalar(ndarray.Float64, []int{elems}, 1))
	spillNow(t, st)
	file := st.SpillFile(key(10))
	if file == "" {
		t.Fatal("chunk was not spilled")
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	w.Submit([]protocol.Task{task(1, &testOp{name: "consumer", n: 1}, 1, depth(1), key(10))})
	res := rec.wait(t, key(1))
	var lost *storage.LostError
	if res.Outcome != protocol.Failed || !res.Retryable || !errors.As(res.Err, &lost) ||
		!strings.Contains(res.Err.Error(), "g1/c10") || !strings.Contains(res.Err.Error(), file) {
		t.Fatalf("consumer of a lost chunk: %v retryable=%v %v", res.Outcome, res.Retryable, res.Err)
	}
}

// A chunk made by a generator op is regenerated: dropped instead of spilled
// when that is cheaper, and recomputed if its spill file vanishes.
func TestGeneratedChunksAreRecomputed(t *testing.T) {
	gen := ops.RandomChunk{Shape: []int{elems}, Offset: []int{0}, Global: []int{elems}, DType: ndarray.Float64, Key: rng.NewKey(1, 2), Dist: rng.Uniform, P2: 1}
	want, _ := gen.Exec(context.Background(), nil)
	for _, spill := range []bool{false, true} {
		var costs storage.Costs
		if spill {
			costs.GenerateNsPerElement = 1e6 // spilling is cheaper: it is written
		}
		w, st, rec := newWorker(t, 1, storage.Config{Limit: 2 * unit, SpillDir: t.TempDir(), Costs: costs})
		w.Submit([]protocol.Task{{Key: key(1), Op: gen, Meta: meta(elems), Priority: protocol.Priority{Succ: 2}}})
		if res := rec.wait(t, key(1)); res.Outcome != protocol.Succeeded {
			t.Fatalf("generator: %v %v", res.Outcome, res.Err)
		}
		spillNow(t, st)
		if spill {
			if err := os.Remove(st.SpillFile(key(1))); err != nil {
				t.Fatal(err)
			}
		} else if got := st.Tier(key(1)); got != storage.TierDropped {
			t.Fatalf("generated chunk is in %v, want dropped", got)
		}
		sum := &testOp{name: "consumer", n: 1}
		w.Submit([]protocol.Task{task(2, sum, 1, depth(1), key(1))})
		if res := rec.wait(t, key(2)); res.Outcome != protocol.Succeeded {
			t.Fatalf("consumer: %v %v", res.Outcome, res.Err)
		}
		got, err := w.Get(context.Background(), key(1))
		if err != nil {
			t.Fatal(err)
		}
		if g, x := got.ToFloat64s(), want.ToFloat64s(); g[0] != x[0] || g[elems-1] != x[elems-1] {
			t.Error("regenerated chunk differs")
		}
		s := st.Stats()
		if s.RecomputeCount < 1 || (!spill && s.DroppedCount != 1) || (spill && s.SpillCount != 1) {
			t.Errorf("spill=%v: %+v", spill, s)
		}
	}
}

// relay lets workers report to a scheduler made after them.
type relay struct{ s *scheduler.Scheduler }

func (r *relay) Report(res protocol.Result) { r.s.Report(res) }

// runGraph runs g on one worker with the real scheduler and returns the
// first element of chunk root, and the worker's store stats.
func runGraph(t *testing.T, g *graph.ChunkGraph, root int32, slots int, cfg storage.Config) (float64, storage.Stats) {
	t.Helper()
	st := storage.Open(cfg)
	rel := &relay{}
	w := worker.New(worker.Config{Slots: slots}, st, rel, nil)
	s := scheduler.New([]protocol.Executor{w}, scheduler.Config{})
	rel.s = s
	defer func() { s.Close(); w.Close(); st.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := s.Submit(ctx, g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := w.Get(ctx, protocol.ChunkKey{Graph: run.ID(), Node: root})
	if err != nil {
		t.Fatal(err)
	}
	run.Release()
	return a.AtFlat(0), st.Stats()
}

// Source ops start only as memory allows: a reduction of 32 one-unit
// sources under a 10-unit budget (enough for the tree's depth), with no way
// to spill, never holds more than the budget and completes.
func TestSourcesAdmittedAsMemoryAllows(t *testing.T) {
	g := &graph.ChunkGraph{}
	var level []ops.ChunkRef
	for i := range 32 {
		level = append(level, g.AddChunk(&testOp{name: "source" + string(rune('a'+i%26)), n: elems}, nil, meta(elems)))
	}
	for len(level) > 1 {
		var next []ops.ChunkRef
		for i := 0; i < len(level); i += 2 {
			next = append(next, g.AddChunk(&testOp{name: "add", n: elems}, []ops.ChunkRef{level[i], level[i+1]}, meta(elems)))
		}
		level = next
	}
	got, s := runGraph(t, g, int32(level[0]), 2, storage.Config{Limit: 10 * unit, SpillDir: filepath.Join(t.TempDir(), "none")})
	if got != 63 { // 1 + 2×(1 + 2×(...)) over 5 levels
		t.Errorf("root = %v, want 63", got)
	}
	if s.PeakUsed > 10*unit || s.SpillCount != 0 {
		t.Errorf("peak used %d (limit %d), %d spills", s.PeakUsed, 10*unit, s.SpillCount)
	}
}

// A long chain under a budget of one op at a time completes.
func TestLongChainTinyBudget(t *testing.T) {
	g := &graph.ChunkGraph{}
	prev := g.AddChunk(&testOp{name: "source", n: elems}, nil, meta(elems))
	for range 40 {
		prev = g.AddChunk(&testOp{name: "step", n: elems}, []ops.ChunkRef{prev}, meta(elems))
	}
	got, s := runGraph(t, g, int32(prev), 2, storage.Config{Limit: 3 * unit, SpillDir: t.TempDir()})
	if got != 41 {
		t.Errorf("end of chain = %v, want 41", got)
	}
	if s.PeakUsed > 3*unit {
		t.Errorf("peak used %d over the limit %d", s.PeakUsed, 3*unit)
	}
}

// Without a limit the worker behaves as before: nothing waits or spills.
func TestNoLimit(t *testing.T) {
	g := &graph.ChunkGraph{}
	var srcs []ops.ChunkRef
	for range 8 {
		srcs = append(srcs, g.AddChunk(&testOp{name: "source", n: elems}, nil, meta(elems)))
	}
	root := g.AddChunk(&testOp{name: "sum", n: 1}, srcs, meta(1))
	got, s := runGraph(t, g, int32(root), 2, storage.Config{})
	if got != 9 || s.SpillCount != 0 {
		t.Errorf("root %v, %d spills", got, s.SpillCount)
	}
}
