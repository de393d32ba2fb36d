package scheduler

import (
	"slices"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/internal/prioq"
	"github.com/phobos-tensor/phobos/protocol"
)

// DefaultHoldSourceBytes is Config.HoldSourceBytes's default.
const DefaultHoldSourceBytes = 16 << 20

// DefaultQueuedSourcesPerSlot is Config.QueuedSourcesPerSlot's default:
// deep enough that a worker's queue hides many round trips to the
// scheduler even for ops of microseconds, shallow enough that a graph of a
// million sources is not a million tasks in the worker's queue and tables.
// Deeper queues cost more than they hide: each task in flight holds a
// queue entry, a table slot and, once run, a stored chunk, and past a few
// hundred per slot these leave the core's cache (docs/interactive.md,
// round 12).
const DefaultQueuedSourcesPerSlot = 256

// Source ops (no inputs) are all READY the moment a graph starts. Sent at
// once, they fill a worker's queue, and every slot that frees takes the
// next source before the consumer of the chunk it just made has come back
// from the scheduler: a chain such as rand -> square -> sum then holds a
// chunk of every stage at once instead of finishing one chain before it
// starts the next. So a source whose output is large waits here while its
// worker's slots are all taken, and goes out, most urgent first, when a slot
// frees and the consumers that slot's result made ready have been sent
// first. Small outputs go at once: for them the worker's queue is what hides
// the round trip to the scheduler; but only up to QueuedSourcesPerSlot
// tasks per slot in flight on the worker, the rest waits here in the same
// order (a graph of a million tiny sources would otherwise be a million
// tasks, each a few hundred bytes, in the worker's priority queue and
// deduplication tables at once).

// heldOp is a READY source op kept back from worker w's queue.
type heldOp struct {
	run     protocol.GraphID
	node    int32
	attempt uint32 // r.attempt[node] when held: a later dispatch makes the entry stale
	prio    protocol.Priority
	large   bool // its output is at least HoldSourceBytes: one per free slot
}

// heldQueue is a worker's held sources, most urgent first.
type heldQueue = prioq.Queue[heldOp]

func newHeldQueue() *heldQueue {
	return prioq.New(func(a, b heldOp) bool { return a.prio.Less(b.prio) })
}

func (c *core) holdSourceBytes() int64 {
	if c.cfg.HoldSourceBytes == 0 {
		return DefaultHoldSourceBytes
	}
	return c.cfg.HoldSourceBytes
}

// DefaultSourceBatch is Config.SourceBatch's default: a release short
// enough to keep the event loop's step under a millisecond, and more than
// the queues of a few workers of many slots (QueuedSourcesPerSlot each).
const DefaultSourceBatch = 8192

func (c *core) sourceBatch() int {
	if c.cfg.SourceBatch == 0 {
		return DefaultSourceBatch
	}
	return c.cfg.SourceBatch
}

// feed releases more source ops of the runs that started with more than
// a batch of them, in the order the runs started: for each initial worker
// (Plan.Sources), most urgent first, while fewer than sourceBatch sources
// wait held for that worker (and, once none wait there, only while it has
// room: waits), and at most sourceBatch per worker and step.
// A run leaves the list once all its sources are out, or when it was
// cancelled or ended. It runs at the end of every step, after drainHeld,
// so a release never overtakes a held source it ranks below: a source not
// yet released is less urgent than every released one of its worker
// (Plan.Sources), and than every op with inputs (depth first).
func (c *core) feed() {
	for i := 0; i < len(c.feeding); {
		r := c.feeding[i]
		if r.cancelled || r.ended || c.releaseSources(r, false) {
			c.feeding = slices.Delete(c.feeding, i, i+1)
			continue
		}
		i++
	}
	c.cur = nil
}

// releaseSources releases the next source ops of run r for each worker,
// at most sourceBatch, and unless first (the run's start) only while
// fewer than sourceBatch wait held for that worker. It reports whether all
// of them are out.
func (c *core) releaseSources(r *Run, first bool) bool {
	batch := c.sourceBatch()
	if r.fed == nil {
		r.fed = make([]int, len(r.plan.Sources))
	}
	c.cur = r
	done := true
	for w, list := range r.plan.Sources {
		for n := 0; r.fed[w] < len(list) && (batch < 0 || n < batch) && !r.cancelled; n++ {
			if !first && batch > 0 && w < len(c.held) && c.held[w].Len() >= batch {
				break
			}
			i := list[r.fed[w]]
			if !first && c.waits(r, i) {
				break
			}
			r.fed[w]++
			// A source cancelled with its run is not released.
			if r.state[i] == Unscheduled && r.step(i, EvInputsReady) {
				c.dispatch(r, i)
			}
		}
		done = done && r.fed[w] == len(list)
	}
	return done || r.cancelled
}

// waits reports whether source op i of run r, not yet released and past
// the run's first batch, would only be held if it were released now: its
// worker is full, or already holds sources (which rank before it). It then
// stays in the plan's list, in the order the held queue would give it,
// instead of going through that queue: once the first batch has gone out,
// a graph of a million sources sends them straight from its list as room
// frees, not with a push and a pop each. Sources whose worker is not
// simply their initial one (External or Pinned ops, a dead worker) take
// the usual way.
func (c *core) waits(r *Run, i int32) bool {
	if r.placed || r.state[i] != Unscheduled {
		return false
	}
	w := 0
	if len(c.slots) > 1 {
		w = int(max(r.plan.Initial[i], 0))
	}
	if w >= len(c.slots) || c.dead[w] != nil {
		return false
	}
	return c.held[w].Len() > 0 || c.full(w, c.large(&r.g.Nodes[i]))
}

func (c *core) queuedSourcesPerSlot() int {
	if c.cfg.QueuedSourcesPerSlot == 0 {
		return DefaultQueuedSourcesPerSlot
	}
	return c.cfg.QueuedSourcesPerSlot
}

// large reports whether source op nd waits for a free slot, not just for
// room in its worker's queue.
func (c *core) large(nd *graph.ChunkNode) bool {
	limit := c.holdSourceBytes()
	return limit > 0 && nd.Meta.Nbytes() >= limit
}

// full reports whether worker w takes no more held sources (large ones if
// large is set) now.
func (c *core) full(w int, large bool) bool {
	if large {
		return c.busy[w] >= c.slots[w]
	}
	q := c.queuedSourcesPerSlot()
	return q > 0 && c.busy[w] >= max(c.slots[w], 1)*q
}

// holds reports whether op nd, bound for worker w, waits at the scheduler.
func (c *core) holds(nd *graph.ChunkNode, w int) bool {
	return len(nd.Inputs) == 0 && c.full(w, c.large(nd))
}

// hold keeps READY op i of run r back for worker w.
func (c *core) hold(r *Run, i int32, w int) {
	r.worker[i] = -1 // on no worker: recovery from a death has nothing to redo
	nd := &r.g.Nodes[i]
	c.held[w].Push(heldOp{run: r.id, node: i, attempt: r.attempt[i], prio: r.plan.Priority[i], large: c.large(nd)})
}

// drainHeld sends held sources to workers with free slots, and the held
// sources of dead workers to live ones. It runs at the end of every step,
// after the step's own dispatches, so consumers made ready by a result go
// before the sources that result's slot could otherwise take.
func (c *core) drainHeld() {
	for w := range c.held {
		q := c.held[w]
		if c.dead[w] != nil {
			// Most urgent first; they go to live workers, not back here.
			for h, ok := q.Pop(); ok; h, ok = q.Pop() {
				if r, ok := c.heldRun(h); ok {
					c.cur = r
					c.dispatch(r, h.node) // a live worker, held there if need be
				}
			}
			continue
		}
		for {
			h, ok := q.Peek()
			if !ok || c.full(w, h.large) {
				break
			}
			q.Pop()
			if r, ok := c.heldRun(h); ok {
				c.cur = r
				c.send(r, h.node, w)
			}
		}
	}
	c.cur = nil
}

// heldRun is the run of a held op that still wants sending: the run is
// not cancelled (it may have ended, recomputing results a dead worker
// held), and the op is READY and was not sent or held again meanwhile.
func (c *core) heldRun(h heldOp) (*Run, bool) {
	r := c.runs[h.run]
	if r == nil || r.cancelled {
		return nil, false
	}
	i := h.node
	if r.state[i] != Ready || r.open[i] || r.attempt[i] != h.attempt || r.worker[i] >= 0 {
		return nil, false
	}
	return r, true
}
