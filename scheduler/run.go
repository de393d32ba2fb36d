package scheduler

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/internal/hugepage"
	"github.com/phobos-tensor/phobos/protocol"
)

// errCancelled is a run's error when it was cancelled with no other cause.
var errCancelled = context.Canceled

// errReleased is a run's error when it was released before it ended.
var errReleased = fmt.Errorf("scheduler: released before it finished: %w", context.Canceled)

// Run is one graph in execution.
type Run struct {
	s      *Scheduler // nil when driven by a bare core (tests)
	core   *core      // set when the core starts the run
	id     protocol.GraphID
	g      *graph.ChunkGraph
	plan   *Plan
	result []int32
	fence  protocol.Fence // carried by every dispatch of the run

	// owned by the event loop (the core)
	fed       []int // per initial worker, the sources released: plan.Sources[w][:fed[w]]
	state     []State
	pending   []int32 // unfinished input edges
	consumers []int32 // unfinished consumer edges
	isResult  []bool
	location  []int16  // worker holding each finished op's output, or -1
	worker    []int16  // worker each op was last sent to
	attempt   []uint32 // dispatches of each op so far; the last is current
	open      []bool   // the current dispatch awaits its outcome
	nbytes    []int64
	failures  []uint8 // failed attempts, against Config.MaxAttempts
	// seq orders dispatches and landings: sentAt is when each op's
	// current dispatch was sent, landedAt when its output last landed. An
	// op that reports an input lost which landed again after it was sent
	// read an old copy. 32 bits, as a graph of ten million ops holds two
	// per op: a run wraps only past four billion events, and then at worst
	// retries an op whose lost inputs are all there again without counting
	// that attempt a failure (landedSince).
	seq       uint32
	sentAt    []uint32
	landedAt  []uint32
	inflight  int   // tasks handed to workers and not yet reported
	onWorker  []int // in-flight tasks per worker
	finished  int
	cancelled bool
	released  bool  // Release was called: forget the run once it ended
	ended     bool  // the outcome is decided (Done is closed by the driver)
	err       error // the run's outcome once ended
	bug       error // a transition the state machine refused, to fail the run

	// progress supervision
	changes     uint64 // op state changes so far
	tickChanges uint64 // changes at the last tick that saw some
	lastChange  time.Time

	// for the dashboard (dashboard.go): each op's type among types, ops
	// per type and state, and when each op started and ended (Unix ns)
	types []string
	// placed is set when some op is External or Pinned (its worker
	// follows from its op, dispatch.go); a run without such ops skips
	// asking each op.
	placed     bool
	typeOf     []uint8
	typeCounts [][numStates]atomic.Int64
	startNs    []int64
	endNs      []int64

	restored chan struct{} // closed (and cleared) when recomputed results land or recovery fails
	places   places        // where the results are, while published (result_snapshot.go)

	// counts are the ops per State, readable from any goroutine; the
	// event loop counts changes in stateDelta and typeDelta and adds them
	// at the end of each step (counts.go).
	counts     [8]atomic.Int64
	stateDelta [numStates]int64
	typeDelta  [][numStates]int64
	doneDelta  int64        // ops succeeded, for Scheduler.opsDone
	dirty      bool         // some delta is not added yet
	moved      atomic.Int64 // input bytes read from another worker
	recomputed atomic.Int64 // lost chunks recomputed from their lineage
	reused     atomic.Int64 // ops an adoption found done (Adopt)
	done       chan struct{}
	finalErr   error
	closeOnce  sync.Once
}

func newRun(s *Scheduler, id protocol.GraphID, g *graph.ChunkGraph, plan *Plan, results []int32) *Run {
	r := allocRun(g, results)
	r.bind(s, id, plan)
	return r
}

// allocRun is the part of newRun that needs no plan: the per-op arrays,
// each op's type, its unfinished inputs and its result mark. Submit makes
// it beside Prepare.
func allocRun(g *graph.ChunkGraph, results []int32) *Run {
	n := len(g.Nodes)
	r := &Run{
		g: g, result: results,
		state:     hugepage.Make[State](n, n),
		pending:   hugepage.Make[int32](n, n),
		consumers: hugepage.Make[int32](n, n),
		isResult:  hugepage.Make[bool](n, n),
		location:  hugepage.Make[int16](n, n),
		worker:    hugepage.Make[int16](n, n),
		attempt:   hugepage.Make[uint32](n, n),
		open:      hugepage.Make[bool](n, n),
		nbytes:    hugepage.Make[int64](n, n),
		failures:  hugepage.Make[uint8](n, n),
		sentAt:    hugepage.Make[uint32](n, n),
		landedAt:  hugepage.Make[uint32](n, n),
		startNs:   hugepage.Make[int64](n, n),
		endNs:     hugepage.Make[int64](n, n),
		done:      make(chan struct{}),
	}
	r.typeIndex()
	for i, nd := range g.Nodes {
		r.pending[i] = int32(len(nd.Inputs))
		r.location[i] = -1
		r.worker[i] = -1
	}
	if n >= prefaultOps {
		// The arrays the event loop first writes op by op: their pages
		// are faulted in here, beside Prepare, not one by one on the
		// loop's path while the graph runs.
		prefault(r.state)
		prefault(r.attempt)
		prefault(r.open)
		prefault(r.nbytes)
		prefault(r.sentAt)
		prefault(r.landedAt)
		prefault(r.startNs)
		prefault(r.endNs)
	}
	for _, x := range results {
		r.isResult[x] = true
	}
	r.counts[Unscheduled].Store(int64(n))
	return r
}

// bind gives a run from allocRun its scheduler, id and plan.
func (r *Run) bind(s *Scheduler, id protocol.GraphID, plan *Plan) {
	r.s, r.id, r.plan = s, id, plan
	for i := range r.consumers {
		r.consumers[i] = int32(len(plan.Adj.Of(i)))
	}
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
	_ = r.s.step(msgCancel{graph: r.id})
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

// Reused is the number of ops an adoption found done and did not run
// again (0 for a run that was not adopted).
func (r *Run) Reused() int64 { return r.reused.Load() }

// Fence is the fencing token the run's dispatches carry.
func (r *Run) Fence() protocol.Fence { return r.fence }

// MovedBytes is the input bytes ops read from a worker other than their own.
func (r *Run) MovedBytes() int64 { return r.moved.Load() }

// Location is the worker holding a result chunk, read right after a
// successful Wait in the goroutine that waited (the local session, whose
// workers cannot die). Elsewhere use ResultLocations.
func (r *Run) Location(node int32) int { return int(r.location[node]) }

// ChunkBytes returns the sizes the workers reported for the given
// finished chunks (0 for a chunk not finished): how a chunk of unknown
// length (ops.Meta.Unknown) tells its length.
func (r *Run) ChunkBytes(nodes []int32) ([]int64, error) {
	out := make([]int64, len(nodes))
	err := r.s.do(func(*core) {
		for j, n := range nodes {
			if n >= 0 && int(n) < len(r.nbytes) {
				out[j] = r.nbytes[n]
			}
		}
	})
	return out, err
}

// ResultLocations returns the workers holding the given finished chunks
// (result chunks of a successful run). If some are being recomputed because
// their worker died, it waits for them, until ctx ends; it fails if the
// recomputation failed or a chunk is not a result kept by the run.
func (r *Run) ResultLocations(ctx context.Context, nodes []int32) ([]int, error) {
	if p := r.places.Load(); p != nil {
		if locs, ok := p.lookup(nodes); ok {
			return locs, nil
		}
	}
	for {
		var locs []int
		var wait chan struct{}
		var err error
		if derr := r.s.do(func(c *core) {
			locs, wait, err = r.resultLocations(c, nodes)
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

// resultLocations is ResultLocations' look on the event loop: the
// locations, or a channel to wait on for recomputed chunks, or why not.
func (r *Run) resultLocations(c *core, nodes []int32) ([]int, chan struct{}, error) {
	switch {
	case r.err != nil:
		return nil, nil, fmt.Errorf("scheduler: results of graph %d are gone: %w", r.id, r.err)
	case r.cancelled:
		return nil, nil, fmt.Errorf("scheduler: graph %d was cancelled", r.id)
	case r.released:
		return nil, nil, fmt.Errorf("scheduler: the results of graph %d were released", r.id)
	}
	locs := make([]int, len(nodes))
	for i, v := range nodes {
		if v < 0 || int(v) >= len(r.state) || !r.isResult[v] {
			return nil, nil, fmt.Errorf("scheduler: chunk op %d is not a result of graph %d", v, r.id)
		}
		if r.state[v] == Freed {
			return nil, nil, fmt.Errorf("scheduler: result chunk %d of graph %d was released", v, r.id)
		}
		if !c.available(r, v) {
			if r.restored == nil {
				r.restored = make(chan struct{})
			}
			return nil, r.restored, nil
		}
		locs[i] = int(r.location[v])
	}
	return locs, nil, nil
}

// wake tells ResultLocations waiters to look again.
func (r *Run) wake() {
	if r.restored != nil {
		close(r.restored)
		r.restored = nil
	}
}

// Release frees the run's result chunks and forgets the run; a run still
// going is cancelled first.
func (r *Run) Release() {
	_ = r.s.step(msgRelease{graph: r.id})
}

func (r *Run) finish(err error) {
	r.closeOnce.Do(func() {
		r.finalErr = err
		close(r.done)
	})
}

func (r *Run) set(i int32, st State) {
	from := r.state[i]
	r.stateDelta[from]--
	r.stateDelta[st]++
	td := &r.typeDelta[r.typeOf[i]]
	td[from]--
	td[st]++
	r.state[i] = st
	r.changes++
	r.touched()
}

// step applies an event to op i through the pure state machine. A refused
// event is a scheduler bug: it is kept, and the run fails with it at the end
// of the step, its message naming the op, its state and the event.
func (r *Run) step(i int32, e Event) bool {
	next, err := Transition(r.state[i], e)
	if err != nil {
		r.bugf("chunk op %d (%s): %v", i, r.g.Nodes[i].Op.Type(), err)
		return false
	}
	if next != r.state[i] {
		r.set(i, next)
	}
	return true
}

func (r *Run) bugf(format string, args ...any) {
	if r.bug == nil {
		r.bug = fmt.Errorf("scheduler bug in graph %d: "+format, append([]any{r.id}, args...)...)
		if r.core != nil {
			r.core.buggy = append(r.core.buggy, r)
		}
	}
}

// diagnose lists up to n outstanding ops (not finished, freed or failed):
// state, op, worker and attempt, and how many there are per state.
func (r *Run) diagnose(n int) string {
	var b strings.Builder
	per := map[State]int{}
	listed := 0
	for i, st := range r.state {
		if st == Finished || st == Freed || st == Fatal || (st == Cancelled && !r.open[i]) {
			continue
		}
		per[st]++
		if listed < n {
			if listed > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "chunk op %d (%s) %v", i, r.g.Nodes[i].Op.Type(), st)
			if r.open[i] {
				fmt.Fprintf(&b, " on worker %d (attempt %d)", r.worker[i], r.attempt[i])
			}
			listed++
		}
	}
	total := 0
	for _, k := range per {
		total += k
	}
	if total == 0 {
		return "nothing (bookkeeping out of step)"
	}
	if total > listed {
		fmt.Fprintf(&b, " and %d more", total-listed)
	}
	fmt.Fprintf(&b, "; %d in flight", r.inflight)
	return b.String()
}
