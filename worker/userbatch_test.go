package worker_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// blockRunner stands for a pool of Python executors: a call adds to its
// block a number named by the function's digest (d1: 1, d2: 2, ...). It
// records each batch's digests.
type blockRunner struct {
	mu      sync.Mutex
	batches [][]string
	// fail, when set, is a call's own error (its exception).
	fail func(in float64) error
	// all, when set, is every call's error (the executor died).
	all error
}

func (r *blockRunner) RunBlock(ctx context.Context, call ops.BlockCall) (*ndarray.Array, error) {
	outs, errs := r.RunBlocks(ctx, []ops.BlockCall{call})
	return outs[0], errs[0]
}

func (r *blockRunner) RunBlocks(_ context.Context, calls []ops.BlockCall) ([]*ndarray.Array, []error) {
	r.mu.Lock()
	var ds []string
	for _, c := range calls {
		ds = append(ds, c.Digest)
	}
	r.batches = append(r.batches, ds)
	r.mu.Unlock()
	outs := make([]*ndarray.Array, len(calls))
	errs := make([]error, len(calls))
	for i, c := range calls {
		if r.all != nil {
			errs[i] = r.all
			continue
		}
		in := c.Inputs[0]
		if r.fail != nil {
			if errs[i] = r.fail(in.AtFlat(0)); errs[i] != nil {
				continue
			}
		}
		var add float64
		fmt.Sscanf(c.Digest, "d%g", &add)
		v := make([]float64, in.Size())
		for j := range v {
			v[j] = in.AtFlat(j) + add
		}
		outs[i], errs[i] = ndarray.FromFloat64s(in.Shape(), v)
	}
	return outs, errs
}

func (r *blockRunner) sizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n []int
	for _, b := range r.batches {
		n = append(n, len(b))
	}
	return n
}

// userTasks are n user_block tasks over stored 8-element blocks (block i
// holds 10i, 10i+1, ...); task i calls the function of digests[i%len].
func userTasks(t *testing.T, st *storage.Store, n int, digests ...string) []protocol.Task {
	t.Helper()
	tasks := make([]protocol.Task, n)
	for i := range tasks {
		v := make([]float64, 8)
		for j := range v {
			v[j] = float64(10*i + j)
		}
		a, err := ndarray.FromFloat64s([]int{8}, v)
		if err != nil {
			t.Fatal(err)
		}
		in := protocol.ChunkKey{Graph: 1, Node: int32(100000 + i)}
		st.Put(in, a)
		d := digests[i%len(digests)]
		op := ops.UserBlock{Func: "f" + d, Payload: []byte("pickle of " + d), Digest: d, DType: ndarray.Float64, Shape: []int{8}, InBytes: 64}
		tasks[i] = protocol.Task{Key: key(int32(i)), Op: op, Meta: meta(8), Priority: depth(0),
			Inputs: []protocol.Input{{Key: in, Worker: 0, Nbytes: 64}}}
	}
	return tasks
}

func newUserWorker(t *testing.T, slots int, r ops.BlockRunner) (*worker.Worker, *storage.Store, *recorder) {
	t.Helper()
	st := storage.Open(storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	rec := newRecorder()
	w := worker.New(worker.Config{Slots: slots, QuietStartBytes: worker.DefaultQuietStartBytes, Blocks: r}, st, rec, nil)
	t.Cleanup(func() { w.Close(); st.Close() })
	return w, st, rec
}

// checkBlock reads task i's stored output: block i plus add.
func checkBlock(t *testing.T, st *storage.Store, i int, add float64) {
	t.Helper()
	a, err := st.Read(context.Background(), key(int32(i)))
	if err != nil {
		t.Fatalf("block %d: %v", i, err)
	}
	for j := range 8 {
		if got, want := a.AtFlat(j), float64(10*i+j)+add; got != want {
			t.Fatalf("block %d [%d] = %v, want %v", i, j, got, want)
		}
	}
}

// Small ready calls of one function go to the runner in batches; every
// task still gets its own result, stored and reported once.
func TestUserBlocksBatched(t *testing.T) {
	const n = 300
	r := &blockRunner{}
	w, st, rec := newUserWorker(t, 2, r)
	w.Submit(userTasks(t, st, n, "d1"))
	for i := range n {
		if res := rec.wait(t, key(int32(i))); res.Outcome != protocol.Succeeded {
			t.Fatalf("task %d: %v %v", i, res.Outcome, res.Err)
		}
		checkBlock(t, st, i, 1)
	}
	total, most := 0, 0
	for _, s := range r.sizes() {
		total += s
		most = max(most, s)
	}
	if total != n {
		t.Errorf("the runner saw %d calls for %d tasks", total, n)
	}
	if most < 2 {
		t.Errorf("no batch of more than one call: %v", r.sizes())
	}
	if most > 64 {
		t.Errorf("a batch of %d calls", most)
	}
}

// Calls of different functions are never batched together.
func TestUserBlockBatchesKeepFunctionsApart(t *testing.T) {
	const n = 200
	r := &blockRunner{}
	w, st, rec := newUserWorker(t, 1, r)
	tasks := userTasks(t, st, n, "d1", "d2", "d2", "d3")
	// Runs of each function in the queue, interleaved by priority.
	for i := range tasks {
		tasks[i].Priority = depth(int32(i / 7))
	}
	w.Submit(tasks)
	for i := range n {
		if res := rec.wait(t, key(int32(i))); res.Outcome != protocol.Succeeded {
			t.Fatalf("task %d: %v %v", i, res.Outcome, res.Err)
		}
		checkBlock(t, st, i, float64([]int{1, 2, 2, 3}[i%4]))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	batched := false
	for _, b := range r.batches {
		batched = batched || len(b) > 1
		for _, d := range b[1:] {
			if d != b[0] {
				t.Fatalf("one batch holds calls of %s and %s", b[0], d)
			}
		}
	}
	if !batched {
		t.Errorf("no batch of more than one call")
	}
}

// One call's exception fails its task alone; the others of its batch
// succeed.
func TestUserBlockBatchOneCallFails(t *testing.T) {
	const n, bad = 100, 37
	boom := errors.New("user_block(f): user function raised ValueError: 370")
	r := &blockRunner{fail: func(in float64) error {
		if in == 10*bad {
			return boom
		}
		return nil
	}}
	w, st, rec := newUserWorker(t, 1, r)
	w.Submit(userTasks(t, st, n, "d1"))
	for i := range n {
		res := rec.wait(t, key(int32(i)))
		if i == bad {
			if res.Outcome != protocol.Failed || !errors.Is(res.Err, boom) || res.Retryable {
				t.Fatalf("the failing call: %v %v (retryable %v)", res.Outcome, res.Err, res.Retryable)
			}
			continue
		}
		if res.Outcome != protocol.Succeeded {
			t.Fatalf("task %d: %v %v", i, res.Outcome, res.Err)
		}
		checkBlock(t, st, i, 1)
	}
	if s := r.sizes(); len(s) >= n {
		t.Errorf("not batched: %d batches", len(s))
	}
}

// retryableErr is an executor's death.
type retryableErr struct{}

func (retryableErr) Error() string {
	return "the Python executor running it died (killed by signal killed)"
}
func (retryableErr) Retryable() bool { return true }

// A failure of the whole batch (its executor died) fails every task of
// it, retryably: the scheduler's policy retries each.
func TestUserBlockBatchDeathIsRetryable(t *testing.T) {
	const n = 50
	r := &blockRunner{all: retryableErr{}}
	w, st, rec := newUserWorker(t, 1, r)
	w.Submit(userTasks(t, st, n, "d1"))
	for i := range n {
		res := rec.wait(t, key(int32(i)))
		if res.Outcome != protocol.Failed || !res.Retryable {
			t.Fatalf("task %d: %v %v (retryable %v)", i, res.Outcome, res.Err, res.Retryable)
		}
	}
	if s := r.sizes(); len(s) >= n {
		t.Errorf("not batched: %d batches", len(s))
	}
}

// A task of a batch that ends before its call (its input is gone) does
// not hold up the others' calls.
func TestUserBlockBatchTaskWithoutCall(t *testing.T) {
	const n, lost = 40, 5
	r := &blockRunner{}
	w, st, rec := newUserWorker(t, 1, r)
	tasks := userTasks(t, st, n, "d1")
	st.Delete([]protocol.ChunkKey{tasks[lost].Inputs[0].Key})
	w.Submit(tasks)
	for i := range n {
		res := rec.wait(t, key(int32(i)))
		if i == lost {
			if res.Outcome != protocol.Failed {
				t.Fatalf("the task without its input: %v", res.Outcome)
			}
			if len(res.Lost) != 1 || res.Lost[0] != tasks[lost].Inputs[0].Key {
				t.Errorf("the task without its input names lost %v", res.Lost)
			}
			continue
		}
		if res.Outcome != protocol.Succeeded {
			t.Fatalf("task %d: %v %v", i, res.Outcome, res.Err)
		}
		checkBlock(t, st, i, 1)
	}
	total, most := 0, 0
	for _, s := range r.sizes() {
		total += s
		most = max(most, s)
	}
	if total != n-1 || most < 2 {
		t.Errorf("the runner saw %d calls in batches of %v", total, r.sizes())
	}
}

// A lone call is not held back: with one task queued it runs at once.
func TestUserBlockLoneCall(t *testing.T) {
	r := &blockRunner{}
	w, st, rec := newUserWorker(t, 2, r)
	w.Submit(userTasks(t, st, 1, "d1"))
	timeout := time.After(time.Minute) // turns a hang into a failure
	select {
	case res := <-rec.ch:
		if res.Outcome != protocol.Succeeded {
			t.Fatalf("%v %v", res.Outcome, res.Err)
		}
	case <-timeout:
		t.Fatal("no result")
	}
	checkBlock(t, st, 0, 1)
}

// gatedRunner blocks each batch until its context ends, and says when one
// has arrived.
type gatedRunner struct {
	blockRunner
	arrived chan int
}

func (r *gatedRunner) RunBlock(ctx context.Context, call ops.BlockCall) (*ndarray.Array, error) {
	outs, errs := r.RunBlocks(ctx, []ops.BlockCall{call})
	return outs[0], errs[0]
}

func (r *gatedRunner) RunBlocks(ctx context.Context, calls []ops.BlockCall) ([]*ndarray.Array, []error) {
	r.arrived <- len(calls)
	<-ctx.Done()
	errs := make([]error, len(calls))
	for i := range errs {
		errs[i] = ctx.Err()
	}
	return make([]*ndarray.Array, len(calls)), errs
}

// A graph cancelled while a batch of its calls runs: every task of the
// batch is reported cancelled, none failed.
func TestUserBlockBatchCancelled(t *testing.T) {
	const n = 30
	r := &gatedRunner{arrived: make(chan int, n)}
	w, st, rec := newUserWorker(t, 1, r)
	w.Submit(userTasks(t, st, n, "d1"))
	if got := <-r.arrived; got < 2 {
		t.Fatalf("a first batch of %d calls", got)
	}
	w.CancelGraph(1)
	for i := range n {
		if res := rec.wait(t, key(int32(i))); res.Outcome != protocol.Cancelled {
			t.Fatalf("task %d: %v %v", i, res.Outcome, res.Err)
		}
	}
}
