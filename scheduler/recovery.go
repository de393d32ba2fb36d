package scheduler

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

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

// markDead takes worker w out of service: every unfinished run that had
// ops in flight on it or chunks stored on it carries on without it.
func (c *core) markDead(w int, cause error) {
	if w < 0 || w >= len(c.slots) || c.dead[w] != nil {
		return
	}
	c.dead[w] = &ErrWorkerDead{Worker: w, Cause: cause}
	c.busy[w] = 0
	c.out[w].reset()
	for _, r := range c.sortedRuns() {
		c.cur = r
		r.touched() // its result places may name w (result_snapshot.go)
		switch {
		case r.cancelled:
			// Already stopping: do not wait for tasks the dead worker
			// will never report.
			c.forgetDead(r)
			c.maybeFinish(r)
		case r.dependsOn(w):
			c.recoverWorker(r, w)
			c.maybeFinish(r)
		}
	}
}

// recoverWorker carries run r past the death of worker w: ops queued or
// running there wait for their inputs again and go to live workers; chunks
// kept there are recomputed from their lineage (their producers run again,
// and recursively the producers of inputs already freed).
func (c *core) recoverWorker(r *Run, w int) {
	var redo, lost []int32
	for i, st := range r.state {
		switch {
		case (st == Ready || st == Running) && int(r.worker[i]) == w:
			r.open[i] = false // its outcome will never come
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
		c.recompute(r, v)
	}
	r.recomputed.Add(int64(len(lost)))
	for _, op := range redo {
		if r.state[op] == Unscheduled && !r.cancelled {
			c.rewait(r, op)
		}
	}
}

// rewait makes op v, back in UNSCHEDULED, wait for those of its inputs that
// are not available (recomputing them) and dispatches it when none is.
func (c *core) rewait(r *Run, v int32) {
	for _, in := range r.g.Nodes[v].Inputs {
		c.recompute(r, int32(in))
	}
	r.pending[v] = c.missing(r, v)
	if r.pending[v] == 0 && r.step(v, EvInputsReady) {
		c.dispatch(r, v)
	}
}

// missing counts op v's inputs whose output is not stored on a live worker.
func (c *core) missing(r *Run, v int32) int32 {
	var n int32
	for _, in := range r.g.Nodes[v].Inputs {
		if !c.available(r, int32(in)) {
			n++
		}
	}
	return n
}

// available reports whether op v's output is stored on a live worker.
func (c *core) available(r *Run, v int32) bool {
	w := r.location[v]
	return r.state[v] == Finished && w >= 0 && c.dead[w] == nil
}

// dependsOn reports whether the run has an op in flight on worker w or
// keeps a chunk there.
func (r *Run) dependsOn(w int) bool {
	if r.cancelled {
		return false
	}
	for i, loc := range r.location {
		if int(loc) == w && r.state[i] == Finished {
			return true
		}
	}
	return w < len(r.onWorker) && r.onWorker[w] > 0
}

// recoverLost handles an op that failed because inputs were gone: the lost
// chunks are recomputed from their lineage (their producers run again, and
// so, recursively, do producers of inputs that were already freed), and the
// op waits for them. It reports false if some lost chunk is not one of the
// op's inputs, leaving the failure to the ordinary path.
func (c *core) recoverLost(r *Run, v int32, lost []protocol.ChunkKey) bool {
	for _, k := range lost {
		if k.Graph != r.id || k.Node < 0 || int(k.Node) >= len(r.state) || !slices.Contains(r.g.Nodes[v].Inputs, ops.ChunkRef(k.Node)) {
			return false
		}
	}
	if !r.step(v, EvInputLost) {
		return false
	}
	for _, k := range lost {
		if r.state[k.Node] == Finished || r.state[k.Node] == Freed {
			// The copy there is gone or unreachable; if its worker lives,
			// tell it to drop whatever is left.
			if w := r.location[k.Node]; w >= 0 && c.dead[w] == nil {
				c.out[w].release(k, r.fence.Token)
			}
			r.location[k.Node] = -1
		}
	}
	r.recomputed.Add(int64(len(lost)))
	c.rewait(r, v)
	return true
}

// recompute makes op v's output available again. It reports whether v is
// (now) being computed, so its consumers must wait for it; false means the
// output is there.
func (c *core) recompute(r *Run, v int32) bool {
	switch st := r.state[v]; {
	case c.available(r, v):
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
	for _, s := range r.plan.Adj.Of(int(v)) {
		if r.state[s] == Unscheduled {
			r.pending[s]++
		}
	}
	// It will be consumed again by every consumer that has not finished.
	r.consumers[v] = 0
	for _, s := range r.plan.Adj.Of(int(v)) {
		if st := r.state[s]; st != Finished && st != Freed {
			r.consumers[v]++
		}
	}
	for _, in := range r.g.Nodes[v].Inputs {
		if !c.recompute(r, int32(in)) {
			r.consumers[in]++ // held for v's second run
		}
	}
	r.pending[v] = c.missing(r, v)
	if r.pending[v] == 0 && r.step(v, EvInputsReady) {
		c.dispatch(r, v)
	}
	return true
}
