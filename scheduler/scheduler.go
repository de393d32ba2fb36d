// Package scheduler drives chunk graphs to completion: it prepares a graph
// (depths, priorities, initial workers), then moves every chunk op through the
// operand states (Mars's) as results come back from workers, sending READY
// ops to the worker that holds most of their input bytes and releasing chunks
// as soon as all their consumers have finished.
//
// All operand state is owned by one goroutine, the event loop, and changes
// only in a pure state machine (core) fed one message at a time: a result
// from a worker, a new graph, a cancel, a dead worker, a clock tick. The
// machine's output is what to send to which worker and which runs ended;
// the loop carries it out. Workers and callers talk to the loop through
// channels. There are no per-operand goroutines.
//
// Delivery between scheduler and workers is at least once and may reorder:
// every dispatch of an op is a new attempt, and only the outcome of the
// current attempt on its worker counts, once; anything else is counted in
// Stats and ignored.
package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/protocol"
)

// Config tunes a Scheduler.
type Config struct {
	// MaxAttempts is how many times an op may run before a retryable failure
	// becomes FATAL (default 3). Kernel errors are deterministic and are not
	// retried.
	MaxAttempts int
	// ProgressTimeout fails a run in which no op changed state for this long
	// while work is outstanding (a lost message, a hung worker), with an
	// error listing what it waits for. Default 30 minutes; < 0: never.
	ProgressTimeout time.Duration
	// Logger receives refused messages, stalls and scheduler bugs; nil:
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock of progress supervision; nil: time.Now.
	Now func() time.Time
	// Fence is the fencing token Submit's runs carry (the zero Fence in a
	// cluster of one scheduler). A scheduler of several gives each
	// session's runs its own with SubmitFenced or Adopt.
	Fence protocol.Fence
	// HoldSourceBytes: a source op (no inputs) whose output is at least
	// this large waits at the scheduler while its worker's slots are all
	// taken, so that chains of large chunks finish one at a time instead of
	// every source running first (hold.go). 0: DefaultHoldSourceBytes; < 0:
	// every op is sent as soon as it is ready.
	HoldSourceBytes int64
	// QueuedSourcesPerSlot bounds the tasks in flight on a worker (per
	// slot) past which further source ops wait at the scheduler, most
	// urgent first, until some report (hold.go). 0:
	// DefaultQueuedSourcesPerSlot; < 0: no bound.
	QueuedSourcesPerSlot int
	// SourceBatch bounds the source ops a run releases at a time: it
	// starts with at most this many READY, most urgent first
	// (Plan.Sources), and releases more at the end of a step while fewer
	// than this many wait held at the scheduler, and once none of its
	// worker's wait there only as many as that worker has room for
	// (hold.go). A graph of a
	// million sources so sends its first tasks after a step of thousands
	// of ops, not of a million, and results are handled between the
	// releases. 0: DefaultSourceBatch; < 0: all at once.
	SourceBatch int
	// Knobs are hooks for tests.
	Knobs TestingKnobs
}

// TestingKnobs let tests stand between the scheduler and its workers.
type TestingKnobs struct {
	// OnSend sees each worker's batch of a step before it is sent and
	// returns what to send instead: nothing (drop), the batch twice
	// (duplicate), batches it held back earlier (delay, reorder).
	OnSend func(Send) []Send
	// OnResult sees each result from a worker before the scheduler does
	// and returns what the scheduler gets instead, in the same way.
	OnResult func(protocol.Result) []protocol.Result
	// NoTicker turns off the clock's ticks; tests call Tick.
	NoTicker bool
}

// DefaultProgressTimeout is Config.ProgressTimeout's default.
const DefaultProgressTimeout = 30 * time.Minute

// Scheduler runs chunk graphs on a set of workers.
type Scheduler struct {
	cfg     Config
	log     *slog.Logger
	results chan protocol.Result
	batches chan []protocol.Result // from BatchReporter's workers
	cmds    chan func(*core)
	stop    chan struct{}
	stopped chan struct{}
	nextID  atomic.Uint64
	opsDone atomic.Int64 // chunk ops succeeded, for the dashboard

	// owned by the event loop
	core    *core
	workers []protocol.Executor
}

// New starts a scheduler over the given workers. Close stops it.
func New(workers []protocol.Executor, cfg Config) *Scheduler {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.ProgressTimeout == 0 {
		cfg.ProgressTimeout = DefaultProgressTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var slots []int
	for _, w := range workers {
		slots = append(slots, w.Slots())
	}
	s := &Scheduler{
		cfg:     cfg,
		log:     cfg.Logger,
		results: make(chan protocol.Result, 4096),
		batches: make(chan []protocol.Result, 256),
		cmds:    make(chan func(*core), 64),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
		core:    newCore(cfg, slots),
		workers: append([]protocol.Executor(nil), workers...),
	}
	s.nextID.Store(graphEpoch())
	go s.loop()
	return s
}

// graphEpoch is where this scheduler's graph ids start: a random 31-bit
// epoch in the high half, so a late message from before a restart cannot
// name a graph of this process.
func graphEpoch() uint64 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return uint64(binary.LittleEndian.Uint32(b[:])|1) << 31
}

// AddWorker registers another worker and returns its index, which the
// worker must put in its results.
func (s *Scheduler) AddWorker(w protocol.Executor) (int, error) {
	id := -1
	err := s.do(func(c *core) {
		id = c.addWorker(w.Slots())
		s.workers = append(s.workers, w)
	})
	return id, err
}

// MarkWorkerDead takes a worker out of service: no more ops go to it, and
// every unfinished run that had ops in flight on it or chunks stored on it
// carries on without it: those ops go to live workers, and the chunks are
// recomputed there from their lineage. A run fails (with an error wrapping
// ErrWorkerDead) only when no live worker is left. Results of runs that
// already finished, and are not yet released, are recomputed the same way;
// ResultLocations waits for them.
func (s *Scheduler) MarkWorkerDead(w int, cause error) {
	_ = s.step(msgWorkerDead{worker: w, cause: cause})
}

// LiveWorkers is the number of workers not marked dead.
func (s *Scheduler) LiveWorkers() int {
	n := 0
	_ = s.do(func(c *core) {
		for _, d := range c.dead {
			if d == nil {
				n++
			}
		}
	})
	return n
}

// Stats counts the results the scheduler got and what it ignored,
// including every result whose Report returned before the call.
func (s *Scheduler) Stats() Stats {
	var st Stats
	_ = s.do(func(c *core) { st = c.stats })
	return st
}

// Runs is the number of runs the scheduler holds: running, or finished
// with results not yet released.
func (s *Scheduler) Runs() int {
	n := 0
	_ = s.do(func(c *core) { n = len(c.runs) })
	return n
}

// Tick runs progress supervision at the given time (tests with
// Knobs.NoTicker; otherwise the scheduler ticks by itself).
func (s *Scheduler) Tick(now time.Time) {
	_ = s.step(msgTick{now: now})
}

// Report implements protocol.Reporter: workers send results here.
func (s *Scheduler) Report(r protocol.Result) {
	select {
	case s.results <- r:
	case <-s.stop:
	}
}

// ReportBatch implements protocol.BatchReporter: a worker's results in the
// order it made them.
func (s *Scheduler) ReportBatch(rs []protocol.Result) {
	if len(rs) == 0 {
		return
	}
	select {
	case s.batches <- rs:
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

// do runs fn on the event loop and waits for it; what fn changed is sent
// out before do returns.
func (s *Scheduler) do(fn func(*core)) error {
	done := make(chan error, 1)
	wrapped := func(c *core) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("scheduler: panic in the event loop", "panic", p, "stack", string(debug.Stack()))
				done <- fmt.Errorf("scheduler: internal error: %v", p)
			}
		}()
		fn(c)
		done <- nil
	}
	select {
	case s.cmds <- wrapped:
	case <-s.stop:
		return ErrClosed
	}
	select {
	case err := <-done:
		return err
	case <-s.stopped:
		return ErrClosed
	}
}

// step applies one message to the core on the event loop.
func (s *Scheduler) step(m any) error {
	return s.do(func(c *core) { c.apply(m) })
}

// drainResults bounds the results the loop applies after the one that
// woke it before it sends the tasks they made ready: about a batch from
// each of two slots (protocol.ResultBatchCap). While it applies them the
// workers run only what they already hold, and a queue of tiny tasks
// lasts about as long as applying a few hundred results: a loop that
// caught up on a thousand before sending left both slots of a local
// session idle for long stretches of a graph of tiny ops
// (docs/interactive.md, round 13).
const drainResults = 2 * protocol.ResultBatchCap

func (s *Scheduler) loop() {
	defer close(s.stopped)
	var tick <-chan time.Time
	if s.cfg.ProgressTimeout > 0 && !s.cfg.Knobs.NoTicker {
		t := time.NewTicker(min(max(s.cfg.ProgressTimeout/4, 10*time.Millisecond), time.Minute))
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case r := <-s.results:
			s.result(r)
			// Drain what else is waiting so one flush carries a batch.
			s.drain(drainResults)
		case rs := <-s.batches:
			s.resultBatch(rs)
			s.drain(drainResults)
		case fn := <-s.cmds:
			// Results reported before the command was sent are applied
			// first, so a caller sees the effect of every report that
			// returned before its call.
			s.drain(-1)
			fn(s.core)
		case now := <-tick:
			if s.cfg.Now != nil {
				now = s.cfg.Now()
			}
			s.core.apply(msgTick{now: now})
		case <-s.stop:
			for _, run := range s.core.runs {
				run.finish(ErrClosed)
			}
			return
		}
		s.carryOut(s.core.take())
	}
}

// drain applies the results waiting in the channels, about max at most
// (< 0: all; a batch is applied whole).
func (s *Scheduler) drain(max int) {
	for n := 0; max < 0 || n < max; n++ {
		select {
		case r := <-s.results:
			s.result(r)
		case rs := <-s.batches:
			s.resultBatch(rs)
			n += len(rs) - 1
		default:
			return
		}
	}
}

// resultBatch applies a worker's batch of results in order. They were
// reported together, so they share one arrival time.
func (s *Scheduler) resultBatch(rs []protocol.Result) {
	s.core.arrivedNs = s.core.now().UnixNano()
	if s.cfg.Knobs.OnResult == nil {
		s.core.applyResults(rs)
	} else {
		for _, r := range rs {
			s.result(r)
		}
	}
	s.core.arrivedNs = 0
	// Applied, and nothing refers into it: the worker's next batch reuses it.
	protocol.RecycleResultBatch(rs)
}

func (s *Scheduler) result(r protocol.Result) {
	if f := s.cfg.Knobs.OnResult; f != nil {
		for _, r := range f(r) {
			s.core.applyResult(r)
		}
		return
	}
	s.core.applyResult(r)
}

// carryOut sends what a step produced and closes the Done of ended runs.
func (s *Scheduler) carryOut(rd Actions) {
	for _, snd := range rd.Sends {
		if f := s.cfg.Knobs.OnSend; f != nil {
			for _, x := range f(snd) {
				s.send(x)
			}
			continue
		}
		s.send(snd)
	}
	for _, r := range rd.Ended {
		r.finish(r.err)
	}
}

// send hands one worker its batch: releases, then tasks, then cancels.
func (s *Scheduler) send(snd Send) {
	if snd.Worker < 0 || snd.Worker >= len(s.workers) {
		return
	}
	w := s.workers[snd.Worker]
	fw, fenced := w.(protocol.FencedReleaser)
	if len(snd.Releases) > 0 {
		if fenced {
			fw.ReleaseFenced(snd.Releases, snd.ReleaseFences)
		} else {
			w.Release(snd.Releases)
		}
	}
	if len(snd.Tasks) > 0 {
		w.Submit(snd.Tasks)
	}
	for i, g := range snd.Cancels {
		if fenced {
			var token uint64
			if i < len(snd.CancelFences) {
				token = snd.CancelFences[i]
			}
			fw.CancelGraphFenced(g, token)
		} else {
			w.CancelGraph(g)
		}
	}
}

// Submit prepares g (in the caller's goroutine) and starts running it. The
// chunks in results are kept until Run.Release. Its dispatches carry
// Config.Fence.
func (s *Scheduler) Submit(ctx context.Context, g *graph.ChunkGraph, results []int32) (*Run, error) {
	return s.SubmitFenced(ctx, g, results, s.cfg.Fence)
}

// smallPrepare is the most chunk ops a graph prepared on the event loop
// has (SubmitFenced); a bigger one is prepared off it.
const smallPrepare = 64

// SubmitFenced is Submit with the fencing token of the graph's session.
func (s *Scheduler) SubmitFenced(ctx context.Context, g *graph.ChunkGraph, results []int32, fence protocol.Fence) (*Run, error) {
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
	liveSlots := func(c *core) []int {
		slots := append([]int(nil), c.slots...)
		for w, d := range c.dead {
			if d != nil {
				slots[w] = 0
			}
		}
		return slots
	}
	if len(g.Nodes) <= smallPrepare {
		// A small graph is prepared on the event loop, in the call that
		// submits it: a second trip to the loop costs more than that.
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scheduler: cancelled while preparing: %w", err)
		}
		var run *Run
		err := s.do(func(c *core) {
			plan, r := prepareRun(g, results, liveSlots(c))
			run = s.bindRun(plan, r, fence)
			c.apply(msgSubmit{run: run})
		})
		if err != nil {
			return nil, err
		}
		return run, nil
	}
	var slots []int
	if err := s.do(func(c *core) { slots = liveSlots(c) }); err != nil {
		return nil, err
	}
	plan, run := prepareRun(g, results, slots)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scheduler: cancelled while preparing: %w", err)
	}
	s.bindRun(plan, run, fence)
	if err := s.step(msgSubmit{run: run}); err != nil {
		return nil, err
	}
	return run, nil
}

// bindRun gives a prepared run its plan, a new graph id and the fence of
// its session.
func (s *Scheduler) bindRun(plan *Plan, r *Run, fence protocol.Fence) *Run {
	r.bind(s, protocol.GraphID(s.nextID.Add(1)), plan)
	r.fence = fence
	return r
}
