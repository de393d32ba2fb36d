// Package worker executes chunk ops. Submitted tasks wait in a priority queue
// (seeds/002's TaskQueue); a fixed number of slots take the most urgent one,
// load its inputs, run its kernel under the graph's context, store the output
// and report back. The worker never decides placement: it runs what it is
// given, in the order the scheduler's priorities say.
package worker

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// Config tunes a Worker.
type Config struct {
	// ID is the worker's index in the cluster; results carry it.
	ID int
	// Slots is the number of ops run at once (default GOMAXPROCS).
	Slots int
}

// PeerReader fetches a chunk held by another worker.
type PeerReader interface {
	ReadChunk(ctx context.Context, worker int, key protocol.ChunkKey) (*ndarray.Array, error)
}

// Worker runs tasks on its slots and keeps their outputs in its store.
type Worker struct {
	cfg   Config
	store *storage.Store
	rep   protocol.Reporter
	peers PeerReader

	mu struct {
		sync.Mutex
		queue  taskHeap
		graphs map[protocol.GraphID]*graphState
		closed bool
	}
	wake chan struct{} // one token per queued task, bounded by slots
	quit chan struct{}
	wg   sync.WaitGroup
}

type graphState struct {
	ctx       context.Context
	cancel    context.CancelFunc
	tasks     int // queued + running
	cancelled bool
}

// New starts a worker whose results go to rep. peers may be nil when the
// worker is alone. Close stops it.
func New(cfg Config, store *storage.Store, rep protocol.Reporter, peers PeerReader) *Worker {
	if cfg.Slots <= 0 {
		cfg.Slots = runtime.GOMAXPROCS(0)
	}
	w := &Worker{
		cfg:   cfg,
		store: store,
		rep:   rep,
		peers: peers,
		wake:  make(chan struct{}, 1),
		quit:  make(chan struct{}),
	}
	w.mu.graphs = make(map[protocol.GraphID]*graphState)
	w.wg.Add(cfg.Slots)
	for range cfg.Slots {
		go w.slot()
	}
	return w
}

// Slots is the number of tasks the worker runs at once.
func (w *Worker) Slots() int { return w.cfg.Slots }

// Store is the worker's chunk store.
func (w *Worker) Store() *storage.Store { return w.store }

// Submit queues tasks.
func (w *Worker) Submit(tasks []protocol.Task) {
	w.mu.Lock()
	for i := range tasks {
		t := &tasks[i]
		g := w.mu.graphs[t.Key.Graph]
		if g == nil {
			ctx, cancel := context.WithCancel(context.Background())
			g = &graphState{ctx: ctx, cancel: cancel}
			w.mu.graphs[t.Key.Graph] = g
		}
		g.tasks++
		heap.Push(&w.mu.queue, t)
	}
	w.mu.Unlock()
	w.signal()
}

func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Release frees stored chunks.
func (w *Worker) Release(keys []protocol.ChunkKey) { w.store.Delete(keys) }

// CancelGraph interrupts the graph's running kernels through their context;
// its queued tasks are reported cancelled as slots reach them.
func (w *Worker) CancelGraph(id protocol.GraphID) {
	w.mu.Lock()
	if g := w.mu.graphs[id]; g != nil {
		g.cancelled = true
		g.cancel()
	}
	w.mu.Unlock()
}

// Get reads a stored chunk (for fetching results and serving peers).
func (w *Worker) Get(_ context.Context, key protocol.ChunkKey) (*ndarray.Array, error) {
	return w.store.Get(key)
}

// Close stops the slots after their current tasks; queued tasks are dropped.
func (w *Worker) Close() {
	w.mu.Lock()
	if w.mu.closed {
		w.mu.Unlock()
		return
	}
	w.mu.closed = true
	for _, g := range w.mu.graphs {
		g.cancel()
	}
	w.mu.Unlock()
	close(w.quit)
	w.wg.Wait()
}

// next blocks until a task is queued or the worker closes.
func (w *Worker) next() (*protocol.Task, *graphState) {
	for {
		w.mu.Lock()
		if w.mu.closed {
			w.mu.Unlock()
			return nil, nil
		}
		if w.mu.queue.Len() > 0 {
			t := heap.Pop(&w.mu.queue).(*protocol.Task)
			g := w.mu.graphs[t.Key.Graph]
			more := w.mu.queue.Len() > 0
			w.mu.Unlock()
			if more {
				w.signal() // let another idle slot look too
			}
			return t, g
		}
		w.mu.Unlock()
		select {
		case <-w.wake:
		case <-w.quit:
			return nil, nil
		}
	}
}

func (w *Worker) done(t *protocol.Task, g *graphState) {
	w.mu.Lock()
	g.tasks--
	if g.tasks == 0 {
		g.cancel()
		delete(w.mu.graphs, t.Key.Graph)
	}
	w.mu.Unlock()
}

func (w *Worker) slot() {
	defer w.wg.Done()
	for {
		t, g := w.next()
		if t == nil {
			return
		}
		res := protocol.Result{Key: t.Key, Worker: w.cfg.ID}
		w.mu.Lock()
		cancelled := g.cancelled
		w.mu.Unlock()
		if cancelled {
			res.Outcome = protocol.Cancelled
		} else {
			w.rep.Report(protocol.Result{Key: t.Key, Worker: w.cfg.ID, Outcome: protocol.Started})
			res = w.run(g.ctx, t)
		}
		w.done(t, g)
		w.rep.Report(res)
	}
}

// run executes one task and stores its output.
func (w *Worker) run(ctx context.Context, t *protocol.Task) protocol.Result {
	res := protocol.Result{Key: t.Key, Worker: w.cfg.ID}
	ins := make([]*ndarray.Array, len(t.Inputs))
	for i, in := range t.Inputs {
		var a *ndarray.Array
		var err error
		if in.Worker == w.cfg.ID || in.Worker < 0 || w.peers == nil {
			a, err = w.store.Get(in.Key)
		} else {
			a, err = w.peers.ReadChunk(ctx, in.Worker, in.Key)
		}
		if err != nil {
			res.Outcome, res.Retryable = protocol.Failed, true
			res.Err = fmt.Errorf("worker %d: input %d (%v) of %s: %w", w.cfg.ID, i, in.Key, t.Op.Type(), err)
			return res
		}
		ins[i] = a
	}
	out, err := execKernel(ctx, t.Op, ins)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			res.Outcome = protocol.Cancelled
			return res
		}
		res.Outcome = protocol.Failed
		res.Err = err
		return res
	}
	if out.DType() != t.Meta.DType || !ndarray.SameShape(out.Shape(), t.Meta.Shape) {
		res.Outcome = protocol.Failed
		res.Err = fmt.Errorf("kernel %s produced %v%v, planned %v", t.Op.Type(), out.DType(), out.Shape(), t.Meta)
		return res
	}
	w.store.Put(t.Key, out)
	res.Outcome = protocol.Succeeded
	res.Nbytes = int64(out.Nbytes())
	return res
}

// execKernel runs a kernel, turning a panic inside it into an error so one
// bad op cannot take the worker down.
func execKernel(ctx context.Context, op ops.ChunkOp, ins []*ndarray.Array) (out *ndarray.Array, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("kernel %s panicked: %v\n%s", op.Type(), p, debug.Stack())
		}
	}()
	return op.Exec(ctx, ins)
}

// taskHeap orders tasks by priority (most urgent first).
type taskHeap []*protocol.Task

func (h taskHeap) Len() int           { return len(h) }
func (h taskHeap) Less(i, j int) bool { return h[i].Priority.Less(h[j].Priority) }
func (h taskHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *taskHeap) Push(x any)        { *h = append(*h, x.(*protocol.Task)) }
func (h *taskHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return t
}
