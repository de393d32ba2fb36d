package worker_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// A dispatch delivered twice (a Dispatch resent after a lost reply) runs
// once and is reported once, whether the copy arrives while the first is
// queued, running, or after it ended; used to run and report it again.
func TestRepeatedDispatchRunsOnce(t *testing.T) {
	w, _, rec := newWorker(t, 1, storage.Config{Limit: 1 << 20})
	var runs atomic.Int32
	gate := make(chan struct{})
	op := &testOp{name: "counted", n: 4, gate: gate, onRun: func() { runs.Add(1) }}
	tk := task(1, op, 4, depth(0))
	tk.Attempt = 1
	w.Submit([]protocol.Task{tk, tk}) // twice in one batch
	rec.started(t, key(1))
	w.Submit([]protocol.Task{tk}) // again while it runs
	close(gate)
	if res := rec.wait(t, key(1)); res.Outcome != protocol.Succeeded || res.Attempt != 1 {
		t.Fatalf("result %+v", res)
	}
	w.Submit([]protocol.Task{tk}) // again after it ended
	// A new attempt of the same op does run.
	tk2 := tk
	tk2.Attempt = 2
	w.Submit([]protocol.Task{tk2})
	if res := rec.wait(t, key(1)); res.Outcome != protocol.Succeeded || res.Attempt != 2 {
		t.Fatalf("second attempt: %+v", res)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("kernel ran %d times, want 2 (attempts 1 and 2)", n)
	}
	select {
	case res := <-rec.ch:
		t.Fatalf("extra report %+v", res)
	default:
	}
}

// A cancel that reaches a worker holding no task of the graph is kept: the
// graph's tasks arriving after it are reported cancelled and never run.
// The worker used to forget such a cancel and run them to completion.
func TestCancelBeforeTasksIsSticky(t *testing.T) {
	w, _, rec := newWorker(t, 1, storage.Config{Limit: 1 << 20})
	var runs atomic.Int32
	op := &testOp{name: "late", n: 4, onRun: func() { runs.Add(1) }}
	w.CancelGraph(1)
	tk := task(3, op, 4, depth(0))
	tk.Attempt = 5
	w.Submit([]protocol.Task{tk})
	res := rec.wait(t, key(3))
	if res.Outcome != protocol.Cancelled || res.Attempt != 5 {
		t.Fatalf("result %+v, want cancelled attempt 5", res)
	}
	// Another graph is not affected.
	other := task(4, op, 4, depth(0))
	other.Key.Graph = 2
	w.Submit([]protocol.Task{other})
	if res := rec.wait(t, other.Key); res.Outcome != protocol.Succeeded {
		t.Fatalf("graph 2: %+v", res)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("kernel ran %d times, want once (graph 2 only)", n)
	}
}

type panicOp struct{}

func (panicOp) Type() string { return "panicky" }
func (panicOp) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	var m map[string]int
	m["x"]++ // a nil map write: a runtime panic
	return nil, nil
}

// A kernel panic fails its op with a message naming the op and the panic,
// without the stack (which used to reach REST users); the stack is logged.
func TestKernelPanicStackOnlyInLog(t *testing.T) {
	var logs bytes.Buffer
	st := storage.Open(storage.Config{Limit: 1 << 20})
	rec := newRecorder()
	w := worker.New(worker.Config{Slots: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, st, rec, nil)
	t.Cleanup(func() { w.Close(); st.Close() })
	w.Submit([]protocol.Task{task(1, panicOp{}, 4, depth(0))})
	res := rec.wait(t, key(1))
	if res.Outcome != protocol.Failed || res.Err == nil {
		t.Fatalf("result %+v", res)
	}
	msg := res.Err.Error()
	if !strings.Contains(msg, "kernel panicky panicked") || !strings.Contains(msg, "nil map") {
		t.Errorf("error %q does not name the op and the panic", msg)
	}
	if strings.Contains(msg, "goroutine") || strings.Contains(msg, ".go:") {
		t.Errorf("error carries a stack trace: %q", msg)
	}
	if !strings.Contains(logs.String(), "goroutine") || !strings.Contains(logs.String(), "kernel panicked") {
		t.Errorf("stack not logged: %s", logs.String())
	}
}
