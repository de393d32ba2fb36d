package scheduler

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// Chunks held for a later graph (persisted tensors, ops.Held): an
// ops.External chunk op reads a result chunk of another run that the
// scheduler keeps (ended, not released). It goes to the worker holding that
// chunk, with the chunk as its one input; while the chunk is being
// recomputed (its worker died: recoverWorker reruns the held run's lineage)
// the op waits here, READY, and goes when the chunk lands. A held run that
// is released, cancelled or failed fails the ops waiting on it.

// parkedOp is an External op waiting for its held chunk.
type parkedOp struct {
	run     protocol.GraphID
	node    int32
	attempt uint32
}

// HeldError is an op reading a held chunk that is not there to read: its
// run was released, failed or never existed, belongs to another session,
// or the chunk is not one of its results.
type HeldError struct {
	Node  int32
	Chunk protocol.ChunkKey
	Why   string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("chunk op %d reads held chunk %v, which %s", e.Node, e.Chunk, e.Why)
}

// keeper is the run keeping chunk key for run r, or why it cannot serve.
func (c *core) keeper(r *Run, key protocol.ChunkKey) (*Run, string) {
	x := c.runs[key.Graph]
	switch {
	case x == nil || x.released:
		return nil, "was released (or its graph is unknown to this scheduler)"
	case x == r:
		return nil, "is of the same graph"
	case x.fence.Scope != r.fence.Scope:
		return nil, "belongs to another session"
	case x.cancelled || x.err != nil:
		return nil, "is gone with its failed graph"
	case key.Node < 0 || int(key.Node) >= len(x.state) || !x.isResult[key.Node]:
		return nil, "is not a result of its graph"
	}
	return x, ""
}

// dispatchExternal sends External op i of run r to the worker holding its
// chunk, or parks it until the chunk is there.
func (c *core) dispatchExternal(r *Run, i int32, g uint64, n int32) {
	key := protocol.ChunkKey{Graph: protocol.GraphID(g), Node: n}
	x, why := c.keeper(r, key)
	if x == nil {
		c.failWith(r, &HeldError{Node: i, Chunk: key, Why: why})
		return
	}
	if !c.available(x, n) {
		if c.parked == nil {
			c.parked = make(map[protocol.GraphID][]parkedOp)
		}
		r.worker[i] = -1
		c.parked[x.id] = append(c.parked[x.id], parkedOp{run: r.id, node: i, attempt: r.attempt[i]})
		return
	}
	c.send(r, i, int(x.location[n]))
}

// externalInput is the input of External op i of run r: the held chunk
// where it is now. ok is false if the op is not External.
func (c *core) externalInput(r *Run, i int32) (protocol.Input, bool) {
	g, n, ok := ops.ExternalChunk(r.g.Nodes[i].Op)
	if !ok {
		return protocol.Input{}, false
	}
	key := protocol.ChunkKey{Graph: protocol.GraphID(g), Node: n}
	in := protocol.Input{Key: key, Worker: -1}
	if x, _ := c.keeper(r, key); x != nil {
		in.Worker, in.Nbytes = int(x.location[n]), x.nbytes[n]
	}
	return in, true
}

// resumeExternal dispatches again the ops parked on run x's chunks: after a
// result of x landed, or x was released or cancelled (they then fail).
func (c *core) resumeExternal(x *Run) {
	list := c.parked[x.id]
	if len(list) == 0 {
		return
	}
	delete(c.parked, x.id)
	cur := c.cur
	for _, p := range list {
		r := c.runs[p.run]
		if r == nil || r.cancelled || r.state[p.node] != Ready || r.open[p.node] || r.attempt[p.node] != p.attempt || r.worker[p.node] >= 0 {
			continue
		}
		c.cur = r
		c.dispatch(r, p.node)
	}
	c.cur = cur
}
