package worker

import (
	"github.com/phobos-tensor/phobos/internal/keytab"
	"github.com/phobos-tensor/phobos/protocol"
)

// dispatches are a key's dispatch queued or running (active) and the last
// one that ran (ended), in one record: a task's arrival, end and release
// each look the key up once.
type dispatches struct {
	active, ended       dispatch
	hasActive, hasEnded bool
}

// dispatchTable holds the dispatches of each key the worker has queued,
// running, or ran and still holds the output of; ended counts the keys
// with an ended dispatch (bounded by rememberEnded).
type dispatchTable struct {
	recs  keytab.Table[protocol.GraphID, dispatches]
	ended int
}

// queue records d as k's active dispatch unless k has one, queued,
// running or ended, no earlier than d (a repeated message); it reports
// whether it did.
func (dt *dispatchTable) queue(k protocol.ChunkKey, d dispatch) bool {
	r, _ := dt.recs.Get(k.Graph, k.Node)
	if (r.hasEnded && !d.after(r.ended)) || (r.hasActive && !d.after(r.active)) {
		return false
	}
	r.active, r.hasActive = d, true
	dt.recs.Set(k.Graph, k.Node, r)
	return true
}

// end records that dispatch d of k ran: it is no longer active, and it is
// k's ended dispatch unless a later one ended first. Past rememberEnded
// ended dispatches, one, whichever comes first, is forgotten.
func (dt *dispatchTable) end(k protocol.ChunkKey, d dispatch) {
	r, _ := dt.recs.Get(k.Graph, k.Node)
	if r.hasActive && r.active == d {
		r.hasActive = false
	}
	if !r.hasEnded || d.after(r.ended) {
		if !r.hasEnded {
			if dt.ended >= rememberEnded {
				dt.forgetOne()
			}
			dt.ended++
		}
		r.ended, r.hasEnded = d, true
	}
	dt.put(k, r)
}

// forgetOne forgets the ended dispatch of some key.
func (dt *dispatchTable) forgetOne() {
	var k protocol.ChunkKey
	var r dispatches
	found := false
	dt.recs.All(func(g protocol.GraphID, n int32, v dispatches) bool {
		if v.hasEnded {
			k, r, found = protocol.ChunkKey{Graph: g, Node: n}, v, true
			return false
		}
		return true
	})
	if found {
		r.hasEnded = false
		dt.ended--
		dt.put(k, r)
	}
}

// release forgets k's ended dispatch: its output is gone.
func (dt *dispatchTable) release(k protocol.ChunkKey) {
	r, ok := dt.recs.Get(k.Graph, k.Node)
	if !ok || !r.hasEnded {
		return
	}
	r.hasEnded = false
	dt.ended--
	dt.put(k, r)
}

// put stores r under k, or deletes k when r holds nothing.
func (dt *dispatchTable) put(k protocol.ChunkKey, r dispatches) {
	if !r.hasActive && !r.hasEnded {
		dt.recs.Delete(k.Graph, k.Node)
		return
	}
	dt.recs.Set(k.Graph, k.Node, r)
}
