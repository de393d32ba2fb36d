package scheduler

import (
	"fmt"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// Where a READY op goes: its worker (the initial assignment of a source,
// the holder of most input bytes otherwise, the lightest live worker when
// that one is dead) and the task it is sent as.

// dispatch sends a READY op to a worker: a source op to its initial worker,
// any other op to the worker holding most of its input bytes, ties broken by
// the fewest tasks per slot in flight. A source with a large output may wait
// for a free slot there instead (hold.go).
func (c *core) dispatch(r *Run, i int32) {
	nd := &r.g.Nodes[i]
	if r.placed && len(nd.Inputs) == 0 {
		if g, n, ok := ops.ExternalChunk(nd.Op); ok {
			c.dispatchExternal(r, i, g, n)
			return
		}
	}
	w := 0
	if pw, ok := pinnedWorker(r, nd); ok {
		// Its data is on that worker only (an upload): there or nowhere.
		w = pw
		if w < 0 || w >= len(c.slots) || c.dead[w] != nil {
			err := &PinnedError{Node: i, Op: ops.Label(nd.Op), Worker: w}
			if w >= 0 && w < len(c.slots) {
				err.Err = c.dead[w]
			}
			c.failWith(r, err)
			return
		}
	} else if len(c.slots) > 1 {
		if len(nd.Inputs) == 0 {
			w = int(max(r.plan.Initial[i], 0))
		} else {
			w = c.chooseWorker(r, nd)
		}
	}
	if w >= len(c.slots) || c.dead[w] != nil {
		w = c.liveWorker()
		if w < 0 {
			err := fmt.Errorf("scheduler: no live worker for chunk op %d (%s)", i, nd.Op.Type())
			for _, d := range c.dead {
				if d != nil {
					err = fmt.Errorf("%w: %w", err, d) // each death, for errors.As
				}
			}
			c.failWith(r, err)
			return
		}
	}
	if c.holds(nd, w) {
		c.hold(r, i, w)
		return
	}
	c.send(r, i, w)
}

// send dispatches READY op i of run r to worker w. Every dispatch is a new
// attempt.
func (c *core) send(r *Run, i int32, w int) {
	nd := &r.g.Nodes[i]
	if r.attempt[i] > 0 {
		r.startNs[i], r.endNs[i] = 0, 0 // an earlier attempt's
	}
	r.attempt[i]++
	r.open[i] = true
	r.seq++
	r.sentAt[i] = r.seq
	// Written in place in the worker's batch (the slab's elements are
	// zero until used).
	task := c.out[w].tasks.next()
	task.Key = protocol.ChunkKey{Graph: r.id, Node: i}
	task.Op = nd.Op
	task.Meta = nd.Meta
	task.Priority = r.plan.Priority[i]
	task.Attempt = int(r.attempt[i])
	task.Fence = r.fence
	if len(nd.Inputs) > 0 {
		task.Inputs = c.takeInputs(len(nd.Inputs))
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
	} else if r.placed {
		if in, ok := c.externalInput(r, i); ok {
			task.Inputs = []protocol.Input{in}
			if in.Worker != w {
				r.moved.Add(in.Nbytes)
			}
		}
	}
	r.worker[i] = int16(w)
	c.busy[w]++
	r.inflight++
	for len(r.onWorker) <= w {
		r.onWorker = append(r.onWorker, 0)
	}
	r.onWorker[w]++
}

// pinnedWorker is the worker op nd of r must run on, if it is Pinned.
func pinnedWorker(r *Run, nd *graph.ChunkNode) (int, bool) {
	if !r.placed {
		return 0, false
	}
	return ops.PinnedWorker(nd.Op)
}

// isPlaced reports whether op is External or Pinned (through any
// wrappers).
func isPlaced(op ops.ChunkOp) bool {
	_, _, ext := ops.ExternalChunk(op)
	_, pin := ops.PinnedWorker(op)
	return ext || pin
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

func (c *core) chooseWorker(r *Run, nd *graph.ChunkNode) int {
	bytes := make([]int64, len(c.slots))
	for _, in := range nd.Inputs {
		if w := r.location[in]; w >= 0 {
			bytes[w] += r.nbytes[in]
		}
	}
	for w, d := range c.dead {
		if d != nil {
			bytes[w] = -1
		}
	}
	return ChooseWorker(bytes, c.busy, c.slots)
}

// liveWorker is the least loaded live worker, or -1.
func (c *core) liveWorker() int {
	best := -1
	for i, d := range c.dead {
		if d != nil {
			continue
		}
		if best < 0 || c.busy[i]*max(c.slots[best], 1) < c.busy[best]*max(c.slots[i], 1) {
			best = i
		}
	}
	return best
}

// inputSlab is how many inputs one block of dispatches' input lists holds.
const inputSlab = 1024

// takeInputs is a dispatch's list of n inputs, cut from a block shared by
// the dispatches before and after it instead of allocated alone. A block is
// never reused: a worker keeps a task's inputs while the task queues, and
// the block lives as long as one of its lists does. Each list is capped, so
// an append to one never writes over the next.
func (c *core) takeInputs(n int) []protocol.Input {
	if n > inputSlab/8 {
		return make([]protocol.Input, n)
	}
	if len(c.inputs)+n > cap(c.inputs) {
		c.inputs = make([]protocol.Input, 0, inputSlab)
	}
	start := len(c.inputs)
	c.inputs = c.inputs[:start+n]
	return c.inputs[start : start+n : start+n]
}
