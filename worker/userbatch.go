package worker

import (
	"context"
	"sync"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// Calls of a user's Python function on small blocks cost mostly the round
// trip to an executor, not the function. A slot that takes such a task
// also takes the ready tasks of the same function and graph behind it at
// the head of the queue, and the executor gets them in one request and
// answers them in one reply (ops.BatchRunner). Only what is already queued
// joins: a lone call never waits for company. Each task keeps its own
// reservation, result and report; the batch holds one slot.
const (
	// maxBatchCalls bounds the calls in one batch.
	maxBatchCalls = 64
	// maxBatchBytes bounds the inputs and outputs of one batch.
	maxBatchBytes = 1 << 20
)

// takeBatchIf is takeBatch for a quiet p, else nothing.
func (w *Worker) takeBatchIf(quiet bool, p pick) []pick {
	if !quiet || w.cfg.Blocks == nil {
		return nil
	}
	return w.takeBatch(p)
}

// takeBatch returns the tasks to run with p, admitted as p was, or none.
// p must be quiet (small, local inputs; see reportsStart and allLocal).
// It leaves each other slot its share of the queue.
func (w *Worker) takeBatch(p pick) []pick {
	if _, ok := w.cfg.Blocks.(ops.BatchRunner); !ok {
		return nil
	}
	key := ops.BatchKey(p.t.Op)
	if key == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	limit := min(maxBatchCalls-1, w.mu.queue.Len()/w.cfg.Slots)
	bytes := touched(p.t)
	var extra []pick
	for len(extra) < limit && !w.mu.closed {
		t, ok := w.mu.queue.Peek()
		if !ok || graphOf(t) != graphOf(p.t) || p.g.cancelled || w.mu.head == t {
			break
		}
		if bytes += touched(t); bytes > maxBatchBytes || w.reportsStart(t) || !w.allLocal(t) || ops.BatchKey(t.Op) != key {
			break
		}
		if w.fenceLocked(t, false) != nil {
			break
		}
		res, err := w.store.Reserve(w.request(t, nil))
		if res == nil || err != nil {
			break // left for a slot to take, or fail, alone
		}
		w.mu.queue.Pop()
		w.dequeuedLocked(t)
		extra = append(extra, pick{t: t, g: p.g, res: res, threads: 1})
	}
	return extra
}

// touched is the bytes a task reads and writes.
func touched(t *protocol.Task) int64 {
	n := t.Meta.Nbytes()
	for _, in := range t.Inputs {
		n += in.Nbytes
	}
	return n
}

// runBatch runs head and extra together, each through run (its inputs,
// its kernel, its stored output), with their executor calls gathered into
// one. It ends the extra tasks as the slot ends a task (observer, held
// result, ending) and returns head's result for the slot to end.
func (w *Worker) runBatch(ctx context.Context, st *slotState, head pick, extra []pick, start time.Time) protocol.Result {
	br, _ := w.cfg.Blocks.(ops.BatchRunner)
	all := append([]pick{head}, extra...)
	c := &collector{r: br, ctx: ctx, pending: len(all), outs: make([]*ndarray.Array, len(all)), errs: make([]error, len(all)), done: make(chan struct{})}
	results := make([]protocol.Result, len(all))
	runOne := func(i int) {
		m := &member{c: c, i: i}
		results[i] = w.run(ops.WithBlockRunner(ctx, m), all[i].t, all[i].res)
		m.leave()
	}
	var wg sync.WaitGroup
	for i := 1; i < len(all); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runOne(i)
		}()
	}
	// The head runs on the slot's own goroutine.
	runOne(0)
	wg.Wait()
	ran := time.Since(start)
	each := ran / time.Duration(len(all))
	if len(st.held) == 0 {
		st.heldSince = start
	}
	for i, p := range extra {
		res := results[i+1]
		res.Elapsed = each
		p.res.Close()
		w.endExtra(st, p, res)
	}
	return results[0]
}

// collector gathers the executor calls of a batch's tasks, each made from
// its own goroutine, and makes them as one once every task has either
// called or ended without calling (an input it could not read).
type collector struct {
	r   ops.BatchRunner
	ctx context.Context

	mu      sync.Mutex
	pending int // tasks that have neither called nor ended
	calls   []ops.BlockCall
	who     []int // the task of each call

	outs []*ndarray.Array // per task, once done is closed
	errs []error
	done chan struct{}
}

// member is one task's view of its collector: its ops.BlockRunner.
type member struct {
	c      *collector
	i      int
	called bool
}

// RunBlock implements ops.BlockRunner: it waits for the batch's answer.
func (m *member) RunBlock(ctx context.Context, call ops.BlockCall) (*ndarray.Array, error) {
	c := m.c
	c.mu.Lock()
	if m.called {
		c.mu.Unlock()
		return c.r.RunBlock(ctx, call)
	}
	m.called = true
	c.calls = append(c.calls, call)
	c.who = append(c.who, m.i)
	c.pending--
	last := c.pending == 0
	c.mu.Unlock()
	if last {
		c.fire()
	}
	<-c.done
	return c.outs[m.i], c.errs[m.i]
}

// leave records that m's task ended; the last to end without calling
// makes the others' calls.
func (m *member) leave() {
	c := m.c
	c.mu.Lock()
	if m.called {
		c.mu.Unlock()
		return
	}
	m.called = true
	c.pending--
	last := c.pending == 0 && len(c.calls) > 0
	c.mu.Unlock()
	if last {
		c.fire()
	}
}

// fire makes the gathered calls; every task has called or ended, so
// nothing else touches calls now.
func (c *collector) fire() {
	outs, errs := c.r.RunBlocks(c.ctx, c.calls)
	for k, i := range c.who {
		c.outs[i], c.errs[i] = outs[k], errs[k]
	}
	close(c.done)
}
