package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"time"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// core is the scheduler's state machine: every operand state, worker load
// and run lives here, and changes only through step, one message at a time.
// It does no I/O and starts no goroutines: what it wants done (tasks,
// releases and cancels to send, runs that ended) accumulates in a Ready the
// driver takes and carries out. So the scheduler's behaviour can be driven
// message by message in tests, duplicates, reorders and losses included.
type core struct {
	cfg Config
	log *slog.Logger

	slots []int
	busy  []int   // per-worker tasks submitted and not reported
	dead  []error // per-worker: why it is dead, nil while alive
	runs  map[protocol.GraphID]*Run
	out   []outbox // per-worker messages to send, in order
	ended []*Run   // runs that ended since the last take
	cur   *Run     // the run being worked on, for panic reports
	buggy []*Run   // runs with a refused transition, to fail at the end of the step
	stats Stats
	tasks []taskRing   // per worker: its last ended tasks, for the dashboard
	held  []*heldQueue // per worker: sources waiting for room there (hold.go)
	// feeding are the runs with source ops still to release, in the order
	// they started (feed, hold.go).
	feeding []*Run
	// parked are External ops waiting for a held chunk, by the run
	// keeping it (external.go).
	parked map[protocol.GraphID][]parkedOp
	// arrivedNs is when the batch of results being applied arrived, in
	// Unix nanoseconds (0 outside one): its tasks' end, read once for the
	// batch.
	arrivedNs int64
	// dirty are the runs whose counts changed in this step (counts.go).
	dirty []*Run
	// inputs is the block dispatches' input lists are cut from (takeInputs).
	inputs []protocol.Input
}

// outbox is what one worker is sent at the end of a step, applied in this
// order: releases first (they name copies that existed before the step;
// a task of the same step may store a new copy under the same key), then
// tasks, then cancels, so a cancel always follows the tasks of the same
// turn.
type outbox struct {
	tasks    slab[protocol.Task]
	releases slab[protocol.ChunkKey]
	cancels  []protocol.GraphID
	// The fencing tokens of the releases' and cancels' graphs, parallel
	// to them.
	releaseFences slab[uint64]
	cancelFences  []uint64
}

// release queues the release of key, under its graph's token.
func (o *outbox) release(key protocol.ChunkKey, token uint64) {
	o.releases.add(key)
	o.releaseFences.add(token)
}

// reset forgets what was queued and not taken (the worker died).
func (o *outbox) reset() {
	o.tasks.drop()
	o.releases.drop()
	o.releaseFences.drop()
	o.cancels, o.cancelFences = nil, nil
}

// cancel queues the cancel of graph g, under its token.
func (o *outbox) cancel(g protocol.GraphID, token uint64) {
	o.cancels = append(o.cancels, g)
	o.cancelFences = append(o.cancelFences, token)
}

// Send is one worker's share of an Actions, to apply in field order:
// releases, tasks, cancels.
type Send struct {
	Worker   int
	Releases []protocol.ChunkKey
	Tasks    []protocol.Task
	Cancels  []protocol.GraphID
	// ReleaseFences and CancelFences are the fencing tokens of the
	// releases' and cancels' graphs, parallel to them (nil: all 0).
	ReleaseFences []uint64
	CancelFences  []uint64
}

// Actions is what a step asks the driver to do, in order.
type Actions struct {
	Sends []Send
	Ended []*Run // runs that ended; Run.finish(Run.err) closes their Done
}

// Stats counts what the scheduler did with the messages it got. The
// ignored counts are results the network delivered that changed nothing:
// repeats, stale attempts, late words from dead workers, names of nothing.
type Stats struct {
	Results        int64 // results received
	Duplicates     int64 // an outcome already counted (the same attempt reported again)
	Stale          int64 // a result of an earlier attempt, or from a worker the op is no longer on
	FromDead       int64 // a result from a worker already declared dead
	Unknown        int64 // naming no live graph
	Invalid        int64 // naming a worker or op that does not exist
	Bugs           int64 // graphs failed on a transition the state machine refused
	Panics         int64 // panics recovered in the event loop
	Stalled        int64 // graphs failed by progress supervision
	ReleasedOrphan int64 // chunks a worker stored for an ignored result, released
	Adopted        int64 // graphs taken over from another scheduler (Adopt)
}

// Ignored is the number of results that changed nothing.
func (s Stats) Ignored() int64 {
	return s.Duplicates + s.Stale + s.FromDead + s.Unknown + s.Invalid
}

// Messages of the core.
type (
	msgSubmit     struct{ run *Run }
	msgResult     struct{ res protocol.Result }
	msgAddWorker  struct{ slots int }
	msgWorkerDead struct {
		worker int
		cause  error
	}
	msgCancel  struct{ graph protocol.GraphID }
	msgRelease struct{ graph protocol.GraphID }
	msgTick    struct{ now time.Time }
)

func newCore(cfg Config, slots []int) *core {
	c := &core{
		cfg:  cfg,
		log:  cfg.Logger,
		runs: make(map[protocol.GraphID]*Run),
	}
	for _, n := range slots {
		c.addWorker(n)
	}
	return c
}

func (c *core) addWorker(slots int) int {
	c.slots = append(c.slots, slots)
	c.busy = append(c.busy, 0)
	c.dead = append(c.dead, nil)
	c.out = append(c.out, outbox{})
	c.held = append(c.held, newHeldQueue())
	return len(c.slots) - 1
}

// Step applies one message and returns what to do about it.
func (c *core) Step(m any) Actions {
	c.apply(m)
	return c.take()
}

// apply changes the state by one message. A panic (a scheduler bug) is
// caught here: it is logged with the graph being worked on, which fails;
// every other graph carries on.
func (c *core) apply(m any) {
	defer func() {
		if p := recover(); p != nil {
			c.recoverPanic(p, debug.Stack())
		}
		c.cur = nil
	}()
	switch m := m.(type) {
	case msgSubmit:
		c.start(m.run)
	case msgAdopt:
		c.adopt(m.run, m.inv)
	case msgResult:
		c.handle(&m.res)
	case msgAddWorker:
		c.addWorker(m.slots)
	case msgWorkerDead:
		c.markDead(m.worker, m.cause)
	case msgCancel:
		if r := c.runs[m.graph]; r != nil {
			c.cur = r
			c.cancel(r, nil)
		}
	case msgRelease:
		if r := c.runs[m.graph]; r != nil {
			c.cur = r
			c.release(r)
		}
	case msgTick:
		c.tick(m.now)
	default:
		panic(fmt.Sprintf("scheduler: unknown message %T", m))
	}
	c.checkBugs()
	c.drainHeld()
	c.feed()
}

// applyResult is apply(msgResult{res}) without boxing the result into an
// interface: an allocation per result, a million for a graph of a
// million ops.
func (c *core) applyResult(res protocol.Result) {
	defer func() {
		if p := recover(); p != nil {
			c.recoverPanic(p, debug.Stack())
		}
		c.cur = nil
	}()
	c.handle(&res)
	c.checkBugs()
	c.drainHeld()
	c.feed()
}

// take hands over the accumulated actions.
func (c *core) take() Actions {
	c.publishCounts()
	var rd Actions
	for w := range c.out {
		o := &c.out[w]
		if o.tasks.len()+o.releases.len()+len(o.cancels) == 0 {
			continue
		}
		// The tasks and releases are cut from blocks the step wrote them
		// into (slab): workers may keep pointers into a batch while its
		// tasks queue, and a block is never written again.
		rd.Sends = append(rd.Sends, Send{Worker: w, Tasks: o.tasks.cut(), Releases: o.releases.cut(), Cancels: o.cancels, ReleaseFences: o.releaseFences.cut(), CancelFences: o.cancelFences})
		o.cancels, o.cancelFences = nil, nil
	}
	rd.Ended, c.ended = c.ended, nil
	return rd
}

func (c *core) recoverPanic(p any, stack []byte) {
	c.stats.Panics++
	r := c.cur
	if r == nil {
		c.log.Error("scheduler: panic in the event loop", "panic", p, "stack", string(stack))
		return
	}
	c.log.Error("scheduler: panic in the event loop; failing the graph", "graph", r.id, "panic", p, "stack", string(stack))
	// The run's state may be half-changed: do not trust it further. Stop
	// its work everywhere and end it now.
	err := fmt.Errorf("scheduler: internal error while running graph %d: %v", r.id, p)
	if r.err == nil {
		r.err = err
	}
	r.cancelled = true
	r.touched() // its result places are withdrawn (result_snapshot.go)
	for w, d := range c.dead {
		if d == nil {
			c.out[w].cancel(r.id, r.fence.Token)
		}
	}
	c.forget(r)
	c.end(r)
}

// checkBugs fails the graphs in which the state machine refused a
// transition during this step: their state no longer adds up.
func (c *core) checkBugs() {
	for len(c.buggy) > 0 {
		r := c.buggy[0]
		c.buggy = c.buggy[1:]
		err := r.bug
		c.stats.Bugs++
		c.log.Error("scheduler: refused transition; failing the graph", "graph", r.id, "err", err)
		c.cur = r
		c.failWith(r, err)
	}
}

// sortedRuns is the runs in id order: the core's output must not depend on
// map order, so that a sequence of messages always gives the same actions.
func (c *core) sortedRuns() []*Run {
	ids := slices.Sorted(maps.Keys(c.runs))
	rs := make([]*Run, len(ids))
	for i, id := range ids {
		rs[i] = c.runs[id]
	}
	return rs
}

// end records that run r ended (with r.err); the driver closes its Done.
func (c *core) end(r *Run) {
	if r.ended {
		return
	}
	r.ended = true
	c.ended = append(c.ended, r)
}

func (c *core) start(r *Run) {
	c.cur = r
	c.runs[r.id] = r
	r.core = c
	r.lastChange = c.now()
	r.tickChanges = r.changes
	if len(r.g.Nodes) == 0 {
		c.end(r)
		return
	}
	if !c.releaseSources(r, true) {
		c.feeding = append(c.feeding, r)
	}
}

func (c *core) now() time.Time {
	if c.cfg.Now != nil {
		return c.cfg.Now()
	}
	return time.Now()
}

// failWith ends a run with err, cancelling what is still going.
func (c *core) failWith(r *Run, err error) {
	if r.cancelled {
		return
	}
	if r.err == nil {
		r.err = err
	}
	c.forgetDead(r)
	c.cancel(r, err)
}

// forgetDead stops waiting for a run's tasks on dead workers: they will
// never report.
func (c *core) forgetDead(r *Run) {
	for w, d := range c.dead {
		if d != nil && w < len(r.onWorker) {
			r.inflight -= r.onWorker[w]
			r.onWorker[w] = 0
		}
	}
}

// handle applies a result from a worker. Delivery is at least once, in any
// order: a result counts only if it is the outcome of the op's current
// dispatch (the same attempt, on the same worker) and the op is still
// waiting for one. Everything else is counted, logged and ignored, after
// freeing any chunk it left on a worker that nobody will ask for.
func (c *core) handle(res *protocol.Result) {
	c.stats.Results++
	w := res.Worker
	if w < 0 || w >= len(c.slots) {
		c.stats.Invalid++
		c.log.Warn("scheduler: result from an unknown worker ignored", "worker", w, "workers", len(c.slots), "chunk", res.Key)
		return
	}
	if c.dead[w] != nil {
		// A late word from a worker already given up on: its ops have
		// gone back to waiting or to other workers.
		c.stats.FromDead++
		return
	}
	r := c.runs[res.Key.Graph]
	if r == nil {
		// The run is gone (released, cancelled or never here): drop any
		// data it left.
		c.stats.Unknown++
		if res.Outcome == protocol.Succeeded {
			c.releaseOrphan(w, res.Key, res.Fence)
		}
		return
	}
	c.cur = r
	i := res.Key.Node
	if i < 0 || int(i) >= len(r.state) || res.Nbytes < 0 {
		c.stats.Invalid++
		c.log.Warn("scheduler: result naming no op of its graph, or negative bytes, ignored", "worker", w, "chunk", res.Key, "ops", len(r.state), "nbytes", res.Nbytes)
		return
	}
	if res.Attempt != int(r.attempt[i]) || int(r.worker[i]) != w || res.Fence != r.fence.Token {
		c.stats.Stale++
		c.log.Debug("scheduler: stale result ignored", "chunk", res.Key, "attempt", res.Attempt, "current", r.attempt[i], "worker", w, "on", r.worker[i], "fence", res.Fence, "outcome", res.Outcome)
		c.dropIgnored(r, i, res)
		return
	}
	if !r.open[i] {
		// This dispatch's outcome was counted already.
		c.stats.Duplicates++
		c.log.Debug("scheduler: repeated result ignored", "chunk", res.Key, "attempt", res.Attempt, "state", r.state[i], "outcome", res.Outcome)
		c.dropIgnored(r, i, res)
		return
	}
	if res.Outcome == protocol.Started {
		if r.state[i] == Ready {
			r.step(i, EvStart)
			c.taskStarted(r, i)
		}
		return
	}
	// The dispatch has its outcome: it no longer counts as in flight.
	r.open[i] = false
	c.busy[w]--
	r.inflight--
	if w < len(r.onWorker) {
		r.onWorker[w]--
	}
	c.taskEnded(r, i, w, res)
	switch res.Outcome {
	case protocol.Succeeded:
		c.succeeded(r, i, res)
	case protocol.Failed:
		c.failed(r, i, res)
	case protocol.Cancelled:
		if r.cancelled {
			r.step(i, EvStopped)
			break
		}
		// Cancelled by the worker itself (it is shutting down): the op
		// must run again, within its attempts.
		r.failures[i]++
		if int(r.failures[i]) < c.cfg.MaxAttempts {
			if r.step(i, EvFailRetry) {
				c.dispatch(r, i)
			}
			break
		}
		r.step(i, EvFailFinal)
		nd := &r.g.Nodes[i]
		r.err = &OpError{Node: i, Op: ops.Label(nd.Op), Meta: nd.Meta.String(), Attempts: int(r.failures[i]), Err: fmt.Errorf("cancelled by worker %d", res.Worker)}
		c.fail(r, i)
	default:
		r.bugf("chunk op %d (%s): result with outcome %d", i, r.g.Nodes[i].Op.Type(), res.Outcome)
	}
	c.maybeFinish(r)
}

// dropIgnored frees the chunk an ignored success left on its worker
// (a stale attempt, or a dispatch that ran twice with the other outcome
// counted), unless that worker's copy is the one the run uses or is about
// to make: keys do not name attempts.
func (c *core) dropIgnored(r *Run, i int32, res *protocol.Result) {
	if res.Outcome != protocol.Succeeded {
		return
	}
	w := res.Worker
	if (r.state[i] == Finished && int(r.location[i]) == w) || (r.open[i] && int(r.worker[i]) == w) {
		return
	}
	// Under the run's token: this scheduler owns the graph and knows the
	// copy is not the one it uses, whoever made it.
	c.releaseOrphan(w, res.Key, r.fence.Token)
}

// releaseOrphan frees a chunk a worker stored for a result that was
// ignored: nothing refers to it. For a graph this scheduler does not know,
// it goes under the token of the result's dispatch: if the graph has a
// newer owner, the worker keeps the chunk.
func (c *core) releaseOrphan(w int, key protocol.ChunkKey, token uint64) {
	c.stats.ReleasedOrphan++
	c.out[w].release(key, token)
}

func (c *core) succeeded(r *Run, i int32, res *protocol.Result) {
	if r.cancelled {
		r.step(i, EvSucceed)
		c.out[res.Worker].release(res.Key, r.fence.Token)
		return
	}
	if !r.step(i, EvSucceed) {
		return
	}
	r.location[i] = int16(res.Worker)
	r.nbytes[i] = res.Nbytes
	r.seq++
	r.landedAt[i] = r.seq
	r.finished++
	for _, s := range r.plan.Adj.Of(int(i)) {
		r.pending[s]--
		if r.pending[s] == 0 && r.step(s, EvInputsReady) {
			c.dispatch(r, s)
		}
	}
	for _, in := range r.g.Nodes[i].Inputs {
		r.consumers[in]--
		if r.consumers[in] == 0 && !r.isResult[in] {
			c.free(r, int32(in))
		}
	}
	if r.consumers[i] == 0 && !r.isResult[i] {
		c.free(r, i)
	}
	if r.isResult[i] {
		r.wake()
		c.resumeExternal(r)
	}
}

func (c *core) failed(r *Run, i int32, res *protocol.Result) {
	if r.cancelled {
		r.step(i, EvFailFinal)
		return
	}
	var fenced *protocol.FencedError
	if errors.As(res.Err, &fenced) {
		// A worker has seen a newer owner of the graph's session: this
		// scheduler must stop running it, not retry anywhere.
		r.step(i, EvFailFinal)
		r.err = fmt.Errorf("scheduler: graph %d stopped: %w", r.id, res.Err)
		c.fail(r, i)
		return
	}
	if res.Retryable && c.missing(r, i) > 0 {
		// Inputs went with a dead worker: not the op's fault, so no
		// attempt is counted; it waits for their recomputation.
		if r.step(i, EvInputLost) {
			c.rewait(r, i)
		}
		return
	}
	if res.Retryable && len(res.Lost) > 0 && c.landedSince(r, i, res.Lost) {
		// The inputs it could not read were lost before and have landed
		// again since it was sent (a dead worker's chunks, recomputed):
		// not its fault, and they are there now.
		if r.step(i, EvFailRetry) {
			c.dispatch(r, i)
		}
		return
	}
	r.failures[i]++
	if res.Retryable && len(res.Lost) > 0 && int(r.failures[i]) < c.cfg.MaxAttempts && c.recoverLost(r, i, res.Lost) {
		return
	}
	if res.Retryable && int(r.failures[i]) < c.cfg.MaxAttempts {
		if r.step(i, EvFailRetry) {
			c.dispatch(r, i)
		}
		return
	}
	r.step(i, EvFailFinal)
	nd := &r.g.Nodes[i]
	err := res.Err
	if err == nil {
		err = errors.New("failed without an error message")
	}
	r.err = &OpError{Node: i, Op: ops.Label(nd.Op), Meta: nd.Meta.String(), Attempts: int(r.failures[i]), Err: err}
	c.fail(r, i)
}

// landedSince reports whether every lost input of op i is available again
// in a copy that landed after op i's current dispatch was sent.
func (c *core) landedSince(r *Run, i int32, lost []protocol.ChunkKey) bool {
	for _, k := range lost {
		if k.Graph != r.id || k.Node < 0 || int(k.Node) >= len(r.state) {
			return false
		}
		if !c.available(r, k.Node) || r.landedAt[k.Node] <= r.sentAt[i] {
			return false
		}
	}
	return true
}

// PinnedError is a chunk op whose data is on one worker only (an upload)
// that cannot run: the worker is unknown or dead.
type PinnedError struct {
	Node   int32
	Op     string
	Worker int
	Err    error // the worker's death, if it died
}

func (e *PinnedError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("chunk op %d (%s) reads data held only by worker %d, which is gone (%v): upload the data again", e.Node, e.Op, e.Worker, e.Err)
	}
	return fmt.Sprintf("chunk op %d (%s) reads data held only by worker %d, which this cluster does not have", e.Node, e.Op, e.Worker)
}

func (e *PinnedError) Unwrap() error { return e.Err }

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

func (c *core) free(r *Run, i int32) {
	if r.state[i] != Finished {
		// Lost and being recomputed when its last consumer finished with
		// the copy it had already read: freed when it lands.
		return
	}
	if !r.step(i, EvRelease) {
		return
	}
	if w := r.location[i]; w >= 0 {
		c.out[w].release(protocol.ChunkKey{Graph: r.id, Node: i}, r.fence.Token)
		r.location[i] = -1
	}
}

// fail pushes FATAL to every op downstream of op i, then cancels the rest of
// the graph: it can no longer produce its results.
func (c *core) fail(r *Run, i int32) {
	queue := []int32{i}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, s := range r.plan.Adj.Of(int(v)) {
			if st := r.state[s]; st == Unscheduled || st == Ready {
				r.step(s, EvUpstreamFatal)
				queue = append(queue, s)
			}
		}
	}
	c.cancel(r, r.err)
}

// cancel stops run r: waiting ops are cancelled at once, queued and running
// ones on their workers. The cancel goes out after any task of this step,
// so a worker never gets a task of a graph after its cancel.
func (c *core) cancel(r *Run, cause error) {
	if r.cancelled {
		return
	}
	r.cancelled = true
	r.touched() // its result places are withdrawn (result_snapshot.go)
	if cause == nil && r.err == nil {
		r.err = errCancelled
	}
	r.wake()
	c.resumeExternal(r)
	for i := range r.state {
		r.step(int32(i), EvCancel)
	}
	// Free what was computed; results too, the run has no result now.
	for i := range r.state {
		if w := r.location[i]; w >= 0 && r.state[i] == Finished {
			c.out[w].release(protocol.ChunkKey{Graph: r.id, Node: int32(i)}, r.fence.Token)
			r.location[i] = -1
		}
	}
	for w, d := range c.dead {
		if d == nil {
			c.out[w].cancel(r.id, r.fence.Token)
		}
	}
	c.maybeFinish(r)
}

// release frees a run's result chunks and forgets the run.
func (c *core) release(r *Run) {
	for _, x := range r.result {
		if w := r.location[x]; w >= 0 && r.state[x] == Finished {
			c.out[w].release(protocol.ChunkKey{Graph: r.id, Node: x}, r.fence.Token)
			r.location[x] = -1
			r.set(x, Freed)
		}
	}
	if !r.ended {
		// Released while running: nothing will ask for its results.
		c.failWith(r, errReleased)
	}
	r.released = true
	r.touched() // its result places are withdrawn (result_snapshot.go)
	r.wake()
	c.resumeExternal(r)
	if r.ended {
		c.forget(r)
	}
}

// forget drops run r. Its tasks still in flight no longer count against
// their workers' slots (held sources wait on those counts); their results,
// when they come, name no run and free what they stored.
func (c *core) forget(r *Run) {
	for w, n := range r.onWorker {
		if n > 0 && w < len(c.busy) && c.dead[w] == nil {
			c.busy[w] -= n
		}
	}
	clear(r.onWorker)
	r.inflight = 0
	delete(c.runs, r.id)
}

func (c *core) maybeFinish(r *Run) {
	if r.cancelled {
		if r.inflight == 0 {
			// Nothing more will come back: forget the run, whether it
			// ended just now or had ended before the cancel.
			c.forget(r)
			c.end(r)
		}
		return
	}
	if r.ended {
		if r.released {
			c.forget(r)
		}
		return
	}
	if r.finished == len(r.g.Nodes) {
		c.end(r)
	}
}

// tick is progress supervision: a run with work outstanding in which no op
// changed state for Config.ProgressTimeout fails with a diagnosis, instead
// of waiting forever for a message that is not coming. That includes a
// finished run recomputing results a dead worker held: its results are
// then gone, and ResultLocations says why.
func (c *core) tick(now time.Time) {
	if c.cfg.ProgressTimeout <= 0 {
		return
	}
	for _, r := range c.sortedRuns() {
		if r.ended && !r.cancelled && r.finished == len(r.g.Nodes) {
			continue // finished: its results wait to be fetched
		}
		if r.changes != r.tickChanges {
			r.tickChanges, r.lastChange = r.changes, now
			continue
		}
		if now.Sub(r.lastChange) < c.cfg.ProgressTimeout {
			continue
		}
		c.cur = r
		c.stats.Stalled++
		err := &StallError{Graph: r.id, For: now.Sub(r.lastChange), Waiting: r.diagnose(8)}
		c.log.Error("scheduler: no progress; failing the graph", "graph", r.id, "err", err)
		c.failWith(r, err)
		c.abandon(r)
	}
}

// abandon stops waiting for the outcomes of a run's dispatches (they are
// not coming) and ends it.
func (c *core) abandon(r *Run) {
	for i, open := range r.open {
		if open {
			r.open[i] = false
			if w := r.worker[i]; w >= 0 && c.dead[w] == nil {
				c.busy[w]--
			}
		}
	}
	r.inflight = 0
	clear(r.onWorker)
	c.maybeFinish(r)
}

// StallError fails a run in which nothing happened for too long.
type StallError struct {
	Graph   protocol.GraphID
	For     time.Duration
	Waiting string // the ops still outstanding, and where
}

func (e *StallError) Error() string {
	return fmt.Sprintf("scheduler: graph %d made no progress for %v; still waiting for %s", e.Graph, e.For.Round(time.Millisecond), e.Waiting)
}
