// Package scheduler drives chunk graphs to completion: it prepares a graph
// (depths, priorities, initial workers), then moves every chunk op through the
// operand states of seeds/002 as results come back from workers, sending READY
// ops to the worker that holds most of their input bytes and releasing chunks
// as soon as all their consumers have finished.
//
// All operand state is owned by one goroutine, the event loop; workers and
// callers talk to it through channels. There are no per-operand goroutines.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// Config tunes a Scheduler.
type Config struct {
	// MaxAttempts is how many times an op may run before a retryable failure
	// becomes FATAL (default 3). Kernel errors are deterministic and are not
	// retried.
	MaxAttempts int
}

// Scheduler runs chunk graphs on a fixed set of workers.
type Scheduler struct {
	cfg     Config
	workers []protocol.Executor
	slots   []int

	results chan protocol.Result
	cmds    chan func()
	stop    chan struct{}
	stopped chan struct{}
	nextID  atomic.Uint64

	// owned by the event loop
	runs map[protocol.GraphID]*Run
	out  [][]protocol.Task     // per-worker tasks to flush
	rel  [][]protocol.ChunkKey // per-worker releases to flush
	busy []int                 // per-worker tasks submitted and not reported
	dead []error               // per-worker: why it is dead, nil while alive
}

// New starts a scheduler over the given workers. Close stops it.
func New(workers []protocol.Executor, cfg Config) *Scheduler {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	s := &Scheduler{
		cfg:     cfg,
		workers: workers,
		results: make(chan protocol.Result, 4096),
		cmds:    make(chan func(), 64),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
		runs:    make(map[protocol.GraphID]*Run),
		out:     make([][]protocol.Task, len(workers)),
		rel:     make([][]protocol.ChunkKey, len(workers)),
		busy:    make([]int, len(workers)),
		dead:    make([]error, len(workers)),
	}
	for _, w := range workers {
		s.slots = append(s.slots, w.Slots())
	}
	go s.loop()
	return s
}

// AddWorker registers another worker and returns its index, which the
// worker must put in its results.
func (s *Scheduler) AddWorker(w protocol.Executor) (int, error) {
	id := -1
	err := s.do(func() {
		id = len(s.workers)
		s.workers = append(s.workers, w)
		s.slots = append(s.slots, w.Slots())
		s.out = append(s.out, nil)
		s.rel = append(s.rel, nil)
		s.busy = append(s.busy, 0)
		s.dead = append(s.dead, nil)
	})
	return id, err
}

// ErrWorkerDead is the cause of failures due to a worker that stopped
// answering; callers branch on it with errors.As.
type ErrWorkerDead struct {
	Worker int
	Cause  error
}

func (e *ErrWorkerDead) Error() string {
	return fmt.Sprintf("worker %d is dead: %v", e.Worker, e.Cause)
}

func (e *ErrWorkerDead) Unwrap() error { return e.Cause }

// MarkWorkerDead takes a worker out of service: no more ops go to it, and
// every unfinished run that had ops in flight on it or chunks stored on it
// carries on without it: those ops go to live workers, and the chunks are
// recomputed there from their lineage. A run fails (with an error wrapping
// ErrWorkerDead) only when no live worker is left. Results of runs that
// already finished, and are not yet released, are recomputed the same way;
// ResultLocations waits for them.
func (s *Scheduler) MarkWorkerDead(w int, cause error) {
	_ = s.do(func() {
		if w < 0 || w >= len(s.workers) || s.dead[w] != nil {
			return
		}
		s.dead[w] = &ErrWorkerDead{Worker: w, Cause: cause}
		s.busy[w] = 0
		s.out[w], s.rel[w] = nil, nil
		for _, r := range s.runs {
			switch {
			case r.cancelled:
				// Already stopping: do not wait for tasks the dead worker
				// will never report.
				s.forgetDead(r)
				s.maybeFinish(r)
			case r.dependsOn(w):
				s.recoverWorker(r, w)
				s.maybeFinish(r)
			}
		}
	})
}

// recoverWorker carries run r past the death of worker w: ops queued or
// running there wait for their inputs again and go to live workers; chunks
// kept there are recomputed from their lineage (their producers run again,
// and recursively the producers of inputs already freed).
func (s *Scheduler) recoverWorker(r *Run, w int) {
	var redo, lost []int32
	for i, st := range r.state {
		switch {
		case (st == Ready || st == Running) && int(r.worker[i]) == w:
			if r.step(int32(i), EvWorkerLost) {
				redo = append(redo, int32(i))
			}
		case st == Finished && int(r.location[i]) == w:
			r.location[i] = -1
			lost = append(lost, int32(i))
		}
	}
	if w < len(r.onWorker) {
		r.inflight -= r.onWorker[w]
		r.onWorker[w] = 0
	}
	for _, v := range lost {
		s.recompute(r, v)
	}
	r.recomputed.Add(int64(len(lost)))
	for _, c := range redo {
		if r.state[c] == Unscheduled && !r.cancelled {
			s.rewait(r, c)
		}
	}
}

// rewait makes op c, back in UNSCHEDULED, wait for those of its inputs that
// are not available (recomputing them) and dispatches it when none is.
func (s *Scheduler) rewait(r *Run, c int32) {
	for _, in := range r.g.Nodes[c].Inputs {
		s.recompute(r, int32(in))
	}
	r.pending[c] = s.missing(r, c)
	if r.pending[c] == 0 && r.step(c, EvInputsReady) {
		s.dispatch(r, c)
	}
}

// missing counts op c's inputs whose output is not stored on a live worker.
func (s *Scheduler) missing(r *Run, c int32) int32 {
	var n int32
	for _, in := range r.g.Nodes[c].Inputs {
		if !s.available(r, int32(in)) {
			n++
		}
	}
	return n
}

// available reports whether op v's output is stored on a live worker.
func (s *Scheduler) available(r *Run, v int32) bool {
	w := r.location[v]
	return r.state[v] == Finished && w >= 0 && s.dead[w] == nil
}

// LiveWorkers is the number of workers not marked dead.
func (s *Scheduler) LiveWorkers() int {
	n := 0
	_ = s.do(func() {
		for _, d := range s.dead {
			if d == nil {
				n++
			}
		}
	})
	return n
}

// Report implements protocol.Reporter: workers send results here.
func (s *Scheduler) Report(r protocol.Result) {
	select {
	case s.results <- r:
	case <-s.stop:
	}
}

// Close stops the event loop. Runs still in progress end with an error.
func (s *Scheduler) Close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.stopped
}

// ErrClosed is returned for work submitted to or interrupted by a closed scheduler.
var ErrClosed = errors.New("scheduler: closed")

// do runs fn on the event loop and waits for it.
func (s *Scheduler) do(fn func()) error {
	done := make(chan struct{})
	select {
	case s.cmds <- func() { fn(); close(done) }:
	case <-s.stop:
		return ErrClosed
	}
	select {
	case <-done:
		return nil
	case <-s.stopped:
		return ErrClosed
	}
}

func (s *Scheduler) loop() {
	defer close(s.stopped)
	for {
		select {
		case r := <-s.results:
			s.handle(r)
			// Drain what else is waiting so one flush carries a batch.
			for drained := 0; drained < 1024; drained++ {
				select {
				case r := <-s.results:
					s.handle(r)
					continue
				default:
				}
				break
			}
		case fn := <-s.cmds:
			fn()
		case <-s.stop:
			for _, run := range s.runs {
				run.finish(ErrClosed)
			}
			return
		}
		s.flush()
	}
}

func (s *Scheduler) flush() {
	for w, ts := range s.out {
		if len(ts) > 0 {
			s.workers[w].Submit(ts)
			s.out[w] = nil
		}
	}
	for w, ks := range s.rel {
		if len(ks) > 0 {
			s.workers[w].Release(ks)
			s.rel[w] = nil
		}
	}
}

// Submit prepares g (in the caller's goroutine) and starts running it. The
// chunks in results are kept until Run.Release.
func (s *Scheduler) Submit(ctx context.Context, g *graph.ChunkGraph, results []int32) (*Run, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	for _, r := range results {
		if r < 0 || int(r) >= len(g.Nodes) {
			return nil, fmt.Errorf("scheduler: result %d is not a chunk op of the graph (%d ops)", r, len(g.Nodes))
		}
	}
	// Slots as the event loop sees them (workers may register meanwhile);
	// dead workers get none, so no source op is assigned to them.
	var slots []int
	if err := s.do(func() {
		slots = append([]int(nil), s.slots...)
		for w, d := range s.dead {
			if d != nil {
				slots[w] = 0
			}
		}
	}); err != nil {
		return nil, err
	}
	plan := Prepare(g, results, slots)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scheduler: cancelled while preparing: %w", err)
	}
	run := newRun(s, protocol.GraphID(s.nextID.Add(1)), g, plan, results)
	if err := s.do(func() { s.start(run) }); err != nil {
		return nil, err
	}
	return run, nil
}

// Run is one graph in execution.
type Run struct {
	s      *Scheduler
	id     protocol.GraphID
	g      *graph.ChunkGraph
	plan   *Plan
	result []int32

	// owned by the event loop
	state     []State
	pending   []int32 // unfinished input edges
	consumers []int32 // unfinished consumer edges
	isResult  []bool
	location  []int16 // worker holding each finished op's output, or -1
	worker    []int16 // worker each op was last sent to
	nbytes    []int64
	attempts  []uint8
	inflight  int   // tasks handed to workers and not yet reported
	onWorker  []int // in-flight tasks per worker
	finished  int
	cancelled bool
	err       error

	restored chan struct{} // closed (and cleared) when recomputed results land or recovery fails

	counts     [8]atomic.Int64 // ops per State, readable from any goroutine
	moved      atomic.Int64    // input bytes read from another worker
	recomputed atomic.Int64    // lost chunks recomputed from their lineage
	done       chan struct{}
	finalErr   error
	closeOnce  sync.Once
}

func newRun(s *Scheduler, id protocol.GraphID, g *graph.ChunkGraph, plan *Plan, results []int32) *Run {
	n := len(g.Nodes)
	r := &Run{
		s: s, id: id, g: g, plan: plan, result: results,
		state:     make([]State, n),
		pending:   make([]int32, n),
		consumers: make([]int32, n),
		isResult:  make([]bool, n),
		location:  make([]int16, n),
		worker:    make([]int16, n),
		nbytes:    make([]int64, n),
		attempts:  make([]uint8, n),
		done:      make(chan struct{}),
	}
	for i, nd := range g.Nodes {
		r.pending[i] = int32(len(nd.Inputs))
		r.consumers[i] = int32(len(plan.Adj.Of(i)))
		r.location[i] = -1
		r.worker[i] = -1
	}
	for _, x := range results {
		r.isResult[x] = true
	}
	r.counts[Unscheduled].Store(int64(n))
	return r
}

// ID is the graph's id; chunk keys of this run carry it.
func (r *Run) ID() protocol.GraphID { return r.id }

// Graph is the chunk graph being run.
func (r *Run) Graph() *graph.ChunkGraph { return r.g }

// Done is closed when the run has ended.
func (r *Run) Done() <-chan struct{} { return r.done }

// Err is the run's outcome once Done is closed.
func (r *Run) Err() error {
	<-r.done
	return r.finalErr
}

// Wait waits for the run to end; if ctx ends first the run is cancelled and
// Wait returns once running ops have stopped.
func (r *Run) Wait(ctx context.Context) error {
	select {
	case <-r.done:
		return r.finalErr
	case <-ctx.Done():
		r.Cancel()
		<-r.done
		return fmt.Errorf("execution cancelled: %w", ctx.Err())
	}
}

// Cancel stops the run: waiting ops are cancelled at once, running ones are
// interrupted on their workers.
func (r *Run) Cancel() {
	_ = r.s.do(func() { r.s.cancel(r, nil) })
}

// Counts returns the number of ops in each state.
func (r *Run) Counts() map[State]int64 {
	m := make(map[State]int64, 8)
	for i := range r.counts {
		if v := r.counts[i].Load(); v > 0 {
			m[State(i)] = v
		}
	}
	return m
}

// Recomputed is the number of lost chunks recomputed from their lineage.
func (r *Run) Recomputed() int64 { return r.recomputed.Load() }

// MovedBytes is the input bytes ops read from a worker other than their own.
func (r *Run) MovedBytes() int64 { return r.moved.Load() }

// Location is the worker holding a result chunk, read right after a
// successful Wait in the goroutine that waited (the local session, whose
// workers cannot die). Elsewhere use ResultLocations.
func (r *Run) Location(node int32) int { return int(r.location[node]) }

// ResultLocations returns the workers holding the given finished chunks
// (result chunks of a successful run). If some are being recomputed because
// their worker died, it waits for them, until ctx ends; it fails if the
// recomputation failed or a chunk is not a result kept by the run.
func (r *Run) ResultLocations(ctx context.Context, nodes []int32) ([]int, error) {
	for {
		var locs []int
		var wait chan struct{}
		var err error
		if derr := r.s.do(func() {
			switch {
			case r.err != nil:
				err = fmt.Errorf("scheduler: results of graph %d are gone: %w", r.id, r.err)
				return
			case r.cancelled:
				err = fmt.Errorf("scheduler: graph %d was cancelled", r.id)
				return
			}
			locs = make([]int, len(nodes))
			for i, v := range nodes {
				if v < 0 || int(v) >= len(r.state) || !r.isResult[v] {
					err = fmt.Errorf("scheduler: chunk op %d is not a result of graph %d", v, r.id)
					return
				}
				if r.state[v] == Freed {
					err = fmt.Errorf("scheduler: result chunk %d of graph %d was released", v, r.id)
					return
				}
				if !r.s.available(r, v) {
					if r.restored == nil {
						r.restored = make(chan struct{})
					}
					wait = r.restored
					return
				}
				locs[i] = int(r.location[v])
			}
		}); derr != nil {
			return nil, derr
		}
		if err != nil || wait == nil {
			return locs, err
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, fmt.Errorf("scheduler: waiting for result chunks of graph %d being recomputed: %w", r.id, ctx.Err())
		}
	}
}

// wake tells ResultLocations waiters to look again.
func (r *Run) wake() {
	if r.restored != nil {
		close(r.restored)
		r.restored = nil
	}
}

// Release frees the run's result chunks and forgets the run.
func (r *Run) Release() {
	_ = r.s.do(func() {
		for _, x := range r.result {
			if w := r.location[x]; w >= 0 && r.state[x] == Finished {
				r.s.rel[w] = append(r.s.rel[w], protocol.ChunkKey{Graph: r.id, Node: x})
				r.location[x] = -1
				r.set(x, Freed)
			}
		}
		r.wake()
		delete(r.s.runs, r.id)
	})
}

func (r *Run) finish(err error) {
	r.closeOnce.Do(func() {
		r.finalErr = err
		close(r.done)
	})
}

func (r *Run) set(i int32, st State) {
	r.counts[r.state[i]].Add(-1)
	r.counts[st].Add(1)
	r.state[i] = st
}

// step applies an event to op i through the pure state machine.
func (r *Run) step(i int32, e Event) bool {
	next, err := Transition(r.state[i], e)
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("scheduler bug: chunk op %d (%s): %w", i, r.g.Nodes[i].Op.Type(), err)
		}
		return false
	}
	if next != r.state[i] {
		r.set(i, next)
	}
	return true
}

func (s *Scheduler) start(r *Run) {
	s.runs[r.id] = r
	if len(r.g.Nodes) == 0 {
		r.finish(nil)
		return
	}
	for i := range r.g.Nodes {
		if r.pending[i] == 0 {
			if r.step(int32(i), EvInputsReady) {
				s.dispatch(r, int32(i))
			}
		}
	}
}

// dispatch sends a READY op to a worker: a source op to its initial worker,
// any other op to the worker holding most of its input bytes, ties broken by
// the fewest tasks per slot in flight.
func (s *Scheduler) dispatch(r *Run, i int32) {
	nd := &r.g.Nodes[i]
	w := 0
	if len(s.workers) > 1 {
		if len(nd.Inputs) == 0 {
			w = max(r.plan.Initial[i], 0)
		} else {
			w = s.chooseWorker(r, nd)
		}
	}
	if w >= len(s.workers) || s.dead[w] != nil {
		w = s.liveWorker(w)
		if w < 0 {
			err := fmt.Errorf("scheduler: no live worker for chunk op %d (%s)", i, nd.Op.Type())
			for _, d := range s.dead {
				if d != nil {
					err = fmt.Errorf("%w: %w", err, d) // each death, for errors.As
				}
			}
			s.failWith(r, err)
			return
		}
	}
	task := protocol.Task{
		Key:      protocol.ChunkKey{Graph: r.id, Node: i},
		Op:       nd.Op,
		Meta:     nd.Meta,
		Priority: r.plan.Priority[i],
		Attempt:  int(r.attempts[i]),
	}
	if len(nd.Inputs) > 0 {
		task.Inputs = make([]protocol.Input, len(nd.Inputs))
		var moved int64
		for j, in := range nd.Inputs {
			task.Inputs[j] = protocol.Input{
				Key:    protocol.ChunkKey{Graph: r.id, Node: int32(in)},
				Worker: int(r.location[in]),
				Nbytes: r.nbytes[in],
			}
			if int(r.location[in]) != w {
				moved += r.nbytes[in]
			}
		}
		if moved > 0 {
			r.moved.Add(moved)
		}
	}
	s.out[w] = append(s.out[w], task)
	r.worker[i] = int16(w)
	s.busy[w]++
	r.inflight++
	for len(r.onWorker) <= w {
		r.onWorker = append(r.onWorker, 0)
	}
	r.onWorker[w]++
}

// ChooseWorker picks the worker for an op from the input bytes each worker
// holds and its load (tasks in flight per slot): the most input bytes wins,
// then the lightest load, then the lowest index. Pure, for tests.
func ChooseWorker(inputBytes []int64, busy, slots []int) int {
	best := 0
	for w := 1; w < len(inputBytes); w++ {
		switch {
		case inputBytes[w] > inputBytes[best]:
			best = w
		case inputBytes[w] == inputBytes[best]:
			// compare busy/slots without division
			if busy[w]*max(slots[best], 1) < busy[best]*max(slots[w], 1) {
				best = w
			}
		}
	}
	return best
}

func (s *Scheduler) chooseWorker(r *Run, nd *graph.ChunkNode) int {
	bytes := make([]int64, len(s.workers))
	for _, in := range nd.Inputs {
		if w := r.location[in]; w >= 0 {
			bytes[w] += r.nbytes[in]
		}
	}
	for w, d := range s.dead {
		if d != nil {
			bytes[w] = -1
		}
	}
	return ChooseWorker(bytes, s.busy, s.slots)
}

// liveWorker is the least loaded live worker (preferring w), or -1.
func (s *Scheduler) liveWorker(w int) int {
	best := -1
	for i, d := range s.dead {
		if d != nil {
			continue
		}
		if best < 0 || s.busy[i]*max(s.slots[best], 1) < s.busy[best]*max(s.slots[i], 1) {
			best = i
		}
	}
	return best
}

// dependsOn reports whether the run has an op in flight on worker w or
// keeps a chunk there.
func (r *Run) dependsOn(w int) bool {
	if r.cancelled {
		return false
	}
	for i, loc := range r.location {
		if int(loc) == w && (r.state[i] == Finished) {
			return true
		}
	}
	return w < len(r.onWorker) && r.onWorker[w] > 0
}

// failWith ends a run with err, cancelling what is still going.
func (s *Scheduler) failWith(r *Run, err error) {
	if r.cancelled {
		return
	}
	if r.err == nil {
		r.err = err
	}
	s.forgetDead(r)
	s.cancel(r, err)
}

// forgetDead stops waiting for a run's tasks on dead workers: they will
// never report.
func (s *Scheduler) forgetDead(r *Run) {
	for w, d := range s.dead {
		if d != nil && w < len(r.onWorker) {
			r.inflight -= r.onWorker[w]
			r.onWorker[w] = 0
		}
	}
}

func (s *Scheduler) handle(res protocol.Result) {
	r := s.runs[res.Key.Graph]
	if r != nil && (res.Key.Node < 0 || int(res.Key.Node) >= len(r.state)) {
		return // names no op of the run: nothing to do with it
	}
	if res.Worker >= 0 && res.Worker < len(s.dead) && s.dead[res.Worker] != nil {
		// A late word from a worker already given up on: its ops have
		// gone back to waiting or to other workers.
		return
	}
	if res.Outcome == protocol.Started {
		if r != nil && r.state[res.Key.Node] == Ready && int(r.worker[res.Key.Node]) == res.Worker {
			r.step(res.Key.Node, EvStart)
		}
		return
	}
	if res.Worker >= 0 && res.Worker < len(s.busy) {
		s.busy[res.Worker]--
	}
	if r == nil {
		// The run is gone (released after an error); drop any data it left.
		if res.Outcome == protocol.Succeeded && res.Worker >= 0 && res.Worker < len(s.rel) {
			s.rel[res.Worker] = append(s.rel[res.Worker], res.Key)
		}
		return
	}
	i := res.Key.Node
	r.inflight--
	if res.Worker >= 0 && res.Worker < len(r.onWorker) {
		r.onWorker[res.Worker]--
	}
	switch res.Outcome {
	case protocol.Succeeded:
		if r.cancelled {
			r.step(i, EvSucceed)
			s.rel[res.Worker] = append(s.rel[res.Worker], res.Key)
			break
		}
		if !r.step(i, EvSucceed) {
			break
		}
		r.location[i] = int16(res.Worker)
		r.nbytes[i] = res.Nbytes
		r.finished++
		for _, c := range r.plan.Adj.Of(int(i)) {
			r.pending[c]--
			if r.pending[c] == 0 && r.step(c, EvInputsReady) {
				s.dispatch(r, c)
			}
		}
		for _, in := range r.g.Nodes[i].Inputs {
			r.consumers[in]--
			if r.consumers[in] == 0 && !r.isResult[in] {
				s.free(r, int32(in))
			}
		}
		if r.consumers[i] == 0 && !r.isResult[i] {
			s.free(r, i)
		}
		if r.isResult[i] {
			r.wake()
		}
	case protocol.Failed:
		if r.cancelled {
			r.step(i, EvFailFinal)
			break
		}
		if res.Retryable && s.missing(r, i) > 0 {
			// Inputs went with a dead worker: not the op's fault, so no
			// attempt is counted; it waits for their recomputation.
			if r.step(i, EvInputLost) {
				s.rewait(r, i)
			}
			break
		}
		r.attempts[i]++
		if res.Retryable && len(res.Lost) > 0 && int(r.attempts[i]) < s.cfg.MaxAttempts && s.recoverLost(r, i, res.Lost) {
			break
		}
		if res.Retryable && int(r.attempts[i]) < s.cfg.MaxAttempts {
			if r.step(i, EvFailRetry) {
				s.dispatch(r, i)
			}
			break
		}
		r.step(i, EvFailFinal)
		nd := &r.g.Nodes[i]
		r.err = &OpError{Node: i, Op: ops.Label(nd.Op), Meta: nd.Meta.String(), Attempts: int(r.attempts[i]), Err: res.Err}
		s.fail(r, i)
	case protocol.Cancelled:
		r.step(i, EvStopped)
	}
	s.maybeFinish(r)
}

// recoverLost handles an op that failed because inputs were gone: the lost
// chunks are recomputed from their lineage (their producers run again, and
// so, recursively, do producers of inputs that were already freed), and the
// op waits for them. It reports false if some lost chunk is not one of the
// op's inputs, leaving the failure to the ordinary path.
func (s *Scheduler) recoverLost(r *Run, c int32, lost []protocol.ChunkKey) bool {
	for _, k := range lost {
		if k.Graph != r.id || k.Node < 0 || int(k.Node) >= len(r.state) || !slices.Contains(r.g.Nodes[c].Inputs, ops.ChunkRef(k.Node)) {
			return false
		}
	}
	if !r.step(c, EvInputLost) {
		return false
	}
	for _, k := range lost {
		if r.state[k.Node] == Finished || r.state[k.Node] == Freed {
			// The copy there is gone or unreachable; if its worker lives,
			// tell it to drop whatever is left.
			if w := r.location[k.Node]; w >= 0 && s.dead[w] == nil {
				s.rel[w] = append(s.rel[w], k)
			}
			r.location[k.Node] = -1
		}
	}
	r.recomputed.Add(int64(len(lost)))
	s.rewait(r, c)
	return true
}

// recompute makes op v's output available again. It reports whether v is
// (now) being computed, so its consumers must wait for it; false means the
// output is there.
func (s *Scheduler) recompute(r *Run, v int32) bool {
	switch st := r.state[v]; {
	case s.available(r, v):
		return false
	case st == Unscheduled || st == Ready || st == Running:
		return true // already on its way
	}
	if !r.step(v, EvLost) {
		return true
	}
	r.finished--
	r.location[v] = -1
	// Consumers still waiting had counted v as done.
	for _, c := range r.plan.Adj.Of(int(v)) {
		if r.state[c] == Unscheduled {
			r.pending[c]++
		}
	}
	// It will be consumed again by every consumer that has not finished.
	r.consumers[v] = 0
	for _, c := range r.plan.Adj.Of(int(v)) {
		if st := r.state[c]; st != Finished && st != Freed {
			r.consumers[v]++
		}
	}
	for _, in := range r.g.Nodes[v].Inputs {
		if !s.recompute(r, int32(in)) {
			r.consumers[in]++ // held for v's second run
		}
	}
	r.pending[v] = s.missing(r, v)
	if r.pending[v] == 0 && r.step(v, EvInputsReady) {
		s.dispatch(r, v)
	}
	return true
}

// OpError is a chunk op that failed for good; Execute returns it wrapped.
type OpError struct {
	Node     int32
	Op       string
	Meta     string
	Attempts int
	Err      error
}

func (e *OpError) Error() string {
	return fmt.Sprintf("chunk op %d (%s -> %s) failed after %d attempt(s): %v", e.Node, e.Op, e.Meta, e.Attempts, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }

func (s *Scheduler) free(r *Run, i int32) {
	if r.state[i] != Finished {
		// Lost and being recomputed when its last consumer finished with
		// the copy it had already read: freed when it lands.
		return
	}
	if !r.step(i, EvRelease) {
		return
	}
	if w := r.location[i]; w >= 0 {
		s.rel[w] = append(s.rel[w], protocol.ChunkKey{Graph: r.id, Node: i})
		r.location[i] = -1
	}
}

// fail pushes FATAL to every op downstream of op i, then cancels the rest of
// the graph: it can no longer produce its results.
func (s *Scheduler) fail(r *Run, i int32) {
	queue := []int32{i}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, c := range r.plan.Adj.Of(int(v)) {
			if st := r.state[c]; st == Unscheduled || st == Ready {
				r.step(c, EvUpstreamFatal)
				queue = append(queue, c)
			}
		}
	}
	s.cancel(r, r.err)
}

func (s *Scheduler) cancel(r *Run, cause error) {
	if r.cancelled {
		return
	}
	r.cancelled = true
	if cause == nil && r.err == nil {
		r.err = context.Canceled
	}
	r.wake()
	for i := range r.state {
		r.step(int32(i), EvCancel)
	}
	// Free what was computed; results too, the run has no result now.
	for i := range r.state {
		if w := r.location[i]; w >= 0 && (r.state[i] == Finished) {
			s.rel[w] = append(s.rel[w], protocol.ChunkKey{Graph: r.id, Node: int32(i)})
			r.location[i] = -1
		}
	}
	for w := range s.workers {
		s.workers[w].CancelGraph(r.id)
	}
	s.maybeFinish(r)
}

func (s *Scheduler) maybeFinish(r *Run) {
	select {
	case <-r.done:
		return
	default:
	}
	if r.cancelled {
		if r.inflight == 0 {
			delete(s.runs, r.id)
			r.finish(r.err)
		}
		return
	}
	if r.finished == len(r.g.Nodes) {
		r.finish(nil)
	}
}
