//go:build linux

package pyexec

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// batchOf is one call of payload per shape, each on arange(shape).
func batchOf(t *testing.T, payload []byte, shapes ...[]int) []ops.BlockCall {
	t.Helper()
	calls := make([]ops.BlockCall, len(shapes))
	for i, s := range shapes {
		calls[i] = ops.BlockCall{Op: "user_block(f)", Payload: payload, Inputs: []*ndarray.Array{arange(t, s...)},
			Out: ops.Meta{Shape: s, DType: ndarray.Float64}}
	}
	return calls
}

// checkTimes3 checks that out is 3 * in - 1, element by element.
func checkTimes3(t *testing.T, i int, in, out *ndarray.Array) {
	t.Helper()
	if !slices.Equal(out.Shape(), in.Shape()) {
		t.Fatalf("call %d: shape %v, want %v", i, out.Shape(), in.Shape())
	}
	x, y := in.Float64s(), out.Float64s()
	for j := range x {
		if y[j] != 3*x[j]-1 {
			t.Fatalf("call %d element %d: got %v, want %v", i, j, y[j], 3*x[j]-1)
		}
	}
}

// Several calls in one request: each gets its own result, read from the
// executor's memory, or from shared files where that read is refused.
func TestRunBlocksBatch(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	payload := pickle(t, "def f(a): return a * 3 - 1", false, false)
	shapes := [][]int{{8}, {1}, {0}, {3, 5}, {2, 1, 4}, {1000}, {8}}
	for _, vm := range []bool{true, false} {
		calls := batchOf(t, payload, shapes...)
		if !vm {
			e := <-p.idle
			e.vm = false
			p.idle <- e
		}
		outs, errs := p.RunBlocks(context.Background(), calls)
		for i, c := range calls {
			if errs[i] != nil {
				t.Fatalf("vm %v, call %d: %v", vm, i, errs[i])
			}
			checkTimes3(t, i, c.Inputs[0], outs[i])
		}
	}
	if n := p.Started(); n != 1 {
		t.Fatalf("started %d executors for two batches on one slot", n)
	}
}

// One call's exception or mismatch is its own: the other calls of the
// batch succeed, and the executor lives on.
func TestRunBlocksOneCallFails(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	src := `def f(a):
    if a.shape == (3,):
        raise ValueError("bad block %d" % a.size)
    if a.shape == (4,):
        return a.astype("float32")
    return a * 3 - 1`
	calls := batchOf(t, pickle(t, src, false, false), []int{2}, []int{3}, []int{5}, []int{4}, []int{6})
	outs, errs := p.RunBlocks(context.Background(), calls)
	var ue *UserError
	if !errors.As(errs[1], &ue) || ue.Kind != "ValueError" || ue.Message != "bad block 3" || ops.IsRetryable(errs[1]) {
		t.Fatalf("the raising call: %v", errs[1])
	}
	if !strings.Contains(ue.Traceback, "line 4, in f") || strings.Contains(ue.Traceback, "executor.py") {
		t.Fatalf("traceback %q", ue.Traceback)
	}
	var me *ops.BlockMismatchError
	if !errors.As(errs[3], &me) || me.Op != "user_block(f)" || me.Got.DType != ndarray.Float32 {
		t.Fatalf("the mismatching call: %v", errs[3])
	}
	for _, i := range []int{0, 2, 4} {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		checkTimes3(t, i, calls[i].Inputs[0], outs[i])
	}
	if n := p.Started(); n != 1 {
		t.Fatalf("started %d executors; a user's exception must not kill one", n)
	}
}

// An executor that dies in the middle of a batch fails every call of it,
// retryably; the next batch runs on a new executor.
func TestRunBlocksExecutorKilledMidBatch(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	src := `import os, signal
def f(a):
    if a.shape == (3,):
        os.kill(os.getpid(), signal.SIGKILL)
    return a * 3 - 1`
	payload := pickle(t, src, false, false)
	_, errs := p.RunBlocks(context.Background(), batchOf(t, payload, []int{2}, []int{3}, []int{4}))
	for i, err := range errs {
		var de *ExecutorDiedError
		if !errors.As(err, &de) || !strings.Contains(de.Cause, "signal killed") || !ops.IsRetryable(err) {
			t.Fatalf("call %d: got %v, want a retryable death by SIGKILL", i, err)
		}
	}
	calls := batchOf(t, payload, []int{2}, []int{4})
	outs, errs := p.RunBlocks(context.Background(), calls)
	for i := range calls {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		checkTimes3(t, i, calls[i].Inputs[0], outs[i])
	}
	if n := p.Started(); n != 2 {
		t.Fatalf("started %d executors, want 2 (one died)", n)
	}
}

// A call that hangs in a batch: the time limit kills the executor and
// fails every call. The limit is each call's, not the batch's: calls that
// each take a fifth of it run to the end, however many there are.
func TestRunBlocksTimeLimit(t *testing.T) {
	p := newPool(t, Config{Slots: 1, Timeout: 200 * time.Millisecond})
	src := `import time
def f(a):
    if a.shape == (3,):
        time.sleep(3600)
    return a * 3 - 1`
	_, errs := p.RunBlocks(context.Background(), batchOf(t, pickle(t, src, false, false), []int{2}, []int{3}, []int{4}))
	for i, err := range errs {
		var te *TimeoutError
		if !errors.As(err, &te) || te.Limit != 200*time.Millisecond || ops.IsRetryable(err) {
			t.Fatalf("call %d: got %v, want a TimeoutError", i, err)
		}
	}
	p = newPool(t, Config{Slots: 1, Timeout: time.Second})
	slow := pickle(t, "import time\ndef f(a):\n    time.sleep(0.2)\n    return a * 3 - 1", false, false)
	calls := batchOf(t, slow, []int{1}, []int{2}, []int{3}, []int{4}, []int{5}, []int{6}, []int{7}, []int{8})
	outs, errs := p.RunBlocks(context.Background(), calls)
	for i := range calls {
		if errs[i] != nil {
			t.Fatalf("call %d of a batch longer than the limit, each call within it: %v", i, errs[i])
		}
		checkTimes3(t, i, calls[i].Inputs[0], outs[i])
	}
}

// Calls of different functions are refused as one batch.
func TestRunBlocksMixedFunctions(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	a := batchOf(t, pickle(t, "def f(a): return a", false, false), []int{2})
	b := batchOf(t, pickle(t, "def f(a): return a + 1", false, false), []int{2})
	_, errs := p.RunBlocks(context.Background(), append(a, b...))
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "different functions") {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n := p.Started(); n != 0 {
		t.Fatalf("started %d executors for a refused batch", n)
	}
}

func BenchmarkRunBlocksSmall(b *testing.B) {
	t := &testing.T{}
	p := New(Config{Slots: 1, PythonPath: pythonPath()})
	defer p.Close()
	calls := batchOf(t, pickle(t, "def f(a): return a + 1", false, false), [][]int{{8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}, {8}}...)
	if _, errs := p.RunBlocks(context.Background(), calls); errs[0] != nil {
		b.Fatal(errs[0])
	}
	b.ResetTimer()
	for range b.N {
		if _, errs := p.RunBlocks(context.Background(), calls); errs[0] != nil {
			b.Fatal(errs[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(calls))/1e3, "µs/call")
}
