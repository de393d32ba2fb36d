package worker

import (
	"context"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// Lanes. A graph of a million tiny ops (W5: a partial per chunk of a
// hundred elements, then combines) costs a worker more in bookkeeping than
// in kernels, and when its slots share that bookkeeping (the queue, the
// dedup tables, the store's table and counters) every op moves it between
// the cores' caches and makes the slots wait for each other: one worker of
// two slots ran such a graph no faster than one of one slot, and slower
// than two workers of one slot each (docs/interactive.md, rounds 7 and 8).
// So a worker with Config.Lanes gives each slot a lane: a worker of one
// slot inside it, with its own queue, tables and store, that runs the
// worker's tiny quiet tasks whose outputs are tiny arrays of their own
// (those a slot would take in a run of tiny tasks, tinyrun.go, that write
// into a spare, tinyout.go). The worker's own slots run everything else,
// as before.
//
// A tiny task goes to a lane by its place in the priority order, in blocks
// of laneBlock: a chunk and its consumers are mostly neighbours in that
// order (depth first), so a lane mostly reads what it stored itself, and a
// repeated dispatch meets its first in the same lane. An input stored
// elsewhere in the worker (a lane's chunk read by another lane or by the
// worker's slots, or the other way) is read from that store as a peer's
// read would be (storage.Store.Read: zero-copy, its buffer never reused
// under the reader).
//
// The lanes' stores have no limit of their own: their chunks are a few
// bytes each and are never evicted (so a lane keeps no next uses of its
// queued tasks' inputs: tracksUses); their bytes count against the
// worker's store's limit (storage.Config.ChargeTo). A release goes to the
// worker and to the lane its key was routed to (every lane for a key the
// worker does not know); cancels and fences go to the worker and every
// lane, and a fencing token the worker sees rise in a batch is raised on
// every lane before the batch is queued (syncFences), so a lane refuses
// what the worker would.

// laneBlock is log2 of the run of consecutive priority orders that go to
// one lane.
const laneBlock = 6

// startLanes makes w's lanes, one per slot.
func (w *Worker) startLanes() {
	cfg := w.cfg
	cfg.Slots, cfg.Lanes = 1, false
	for range w.cfg.Slots {
		l := newWorker(cfg, storage.Open(storage.Config{ChargeTo: w.store}), w.rep, w.peers)
		l.home = w
		w.lanes = append(w.lanes, l)
	}
	w.routed.max = rememberRouted
}

// units are the worker and its lanes.
func (w *Worker) units() []*Worker {
	if len(w.lanes) == 0 {
		return []*Worker{w}
	}
	return append([]*Worker{w}, w.lanes...)
}

// laneOf is the lane that runs t, -1 for the worker's own slots: a tiny
// task that would run quietly on local inputs and write its output into
// a tiny array of its own (tinyout.go). So a lane's store holds only such
// arrays: never a view of a buffer the worker's store (or another lane's)
// counts too, nothing it would be worth evicting.
func (w *Worker) laneOf(t *protocol.Task) int {
	if len(w.lanes) == 0 || intoTiny(t) == nil || !w.allLocal(t) {
		return -1
	}
	if n := touched(t); !tiny(t, n) || w.loud(t, n) {
		return -1
	}
	return int(uint32(t.Priority.Order)>>laneBlock) % len(w.lanes)
}

// route queues tasks on the worker's slots and lanes (Submit). Each
// queues its own from the same slice (the queues keep pointers into it).
func (w *Worker) route(tasks []protocol.Task) {
	w.syncFences(tasks)
	which := make([]int16, len(tasks))
	used := make([]bool, len(w.lanes)+1)
	w.routed.Lock()
	for i := range tasks {
		l := w.laneOf(&tasks[i])
		which[i] = int16(l)
		used[l+1] = true
		if l >= 0 {
			w.routeLocked(tasks[i].Key, int16(l))
		}
	}
	w.routed.Unlock()
	for i, u := range used {
		if u {
			w.unit(i-1).submit(tasks, which, int16(i-1))
		}
	}
}

// routeLocked remembers that key went to lane l. A full table forgets a
// key first, whichever comes first: its release will go to every lane.
func (w *Worker) routeLocked(key protocol.ChunkKey, l int16) {
	t := &w.routed.lanes
	if t.Len() >= w.routed.max {
		if _, ok := t.Get(key.Graph, key.Node); !ok {
			var old protocol.ChunkKey
			t.All(func(g protocol.GraphID, n int32, _ int16) bool {
				old = protocol.ChunkKey{Graph: g, Node: n}
				return false
			})
			t.Delete(old.Graph, old.Node)
		}
	}
	t.Set(key.Graph, key.Node, l)
}

// releaseLanes is ReleaseFenced on the lanes: each key to the lane it
// was routed to, a key never routed (or released before) to every lane.
func (w *Worker) releaseLanes(keys []protocol.ChunkKey, tokens []uint64) {
	parts := make([]struct {
		keys   []protocol.ChunkKey
		tokens []uint64
	}, len(w.lanes))
	add := func(l int, i int) {
		if parts[l].keys == nil {
			// Room for all: a batch of releases is mostly one lane's
			// or evenly spread, and is dropped once released.
			parts[l].keys = make([]protocol.ChunkKey, 0, len(keys))
			if tokens != nil {
				parts[l].tokens = make([]uint64, 0, len(keys))
			}
		}
		parts[l].keys = append(parts[l].keys, keys[i])
		if tokens != nil {
			parts[l].tokens = append(parts[l].tokens, tokenAt(tokens, i))
		}
	}
	w.routed.Lock()
	for i, k := range keys {
		if l, ok := w.routed.lanes.Take(k.Graph, k.Node); ok {
			add(int(l), i)
			continue
		}
		for l := range w.lanes {
			add(l, i)
		}
	}
	w.routed.Unlock()
	for l, p := range parts {
		if len(p.keys) > 0 {
			w.lanes[l].release(p.keys, p.tokens)
		}
	}
}

// unit is lane i, or the worker itself for -1.
func (w *Worker) unit(i int) *Worker {
	if i < 0 {
		return w
	}
	return w.lanes[i]
}

// syncFences raises, on the worker and on every lane, the fencing tokens
// of the scopes and graphs of tasks that are higher than the worker has
// seen: each lane queues only some of the tasks, and must refuse a stale
// scheduler's tasks, releases and cancels as the worker would.
func (w *Worker) syncFences(tasks []protocol.Task) {
	type raise struct {
		f protocol.Fence
		g protocol.GraphID
	}
	var raises []raise
	var prev *protocol.Task
	w.mu.Lock()
	for i := range tasks {
		t := &tasks[i]
		if prev != nil && t.Key.Graph == prev.Key.Graph && t.Fence == prev.Fence {
			continue
		}
		prev = t
		tok := t.Fence.Token
		if w.mu.fences.raises(t.Fence.Scope, tok, t.Fence.Scope != "") || w.mu.graphFences.raises(t.Key.Graph, tok, false) {
			raises = append(raises, raise{f: t.Fence, g: t.Key.Graph})
		}
	}
	w.mu.Unlock()
	for _, r := range raises {
		_ = w.Fence(r.f, r.g) // a lower token is refused by submit as usual
	}
}

// hasSiblings reports whether w is a worker with lanes or a lane.
func (w *Worker) hasSiblings() bool { return len(w.lanes) > 0 || w.home != nil }

// readSiblings reads a chunk that w's store lacks from the other stores
// of its worker: its lanes', then, for a lane, the worker's own (a lane's
// inputs are mostly other lanes' tiny outputs).
func (w *Worker) readSiblings(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, bool) {
	root := w
	if w.home != nil {
		root = w.home
	}
	if a, ok := root.readLanes(ctx, key, w); ok {
		return a, true
	}
	if root != w {
		if a, err := root.store.Read(ctx, key); err == nil {
			return a, true
		}
	}
	return nil, false
}

// readLanes reads a chunk from the first of w's lanes, but skip, that
// holds it.
func (w *Worker) readLanes(ctx context.Context, key protocol.ChunkKey, skip *Worker) (*ndarray.Array, bool) {
	for _, l := range w.lanes {
		if l == skip {
			continue
		}
		if a, err := l.store.Read(ctx, key); err == nil {
			return a, true
		}
	}
	return nil, false
}

// StoreStats is the worker's store's Stats with its lanes' chunks and
// bytes in memory counted in (and not also as external bytes, as the
// store counts what they charge it).
func (w *Worker) StoreStats() storage.Stats {
	st := w.store.Stats()
	for _, l := range w.lanes {
		l.settle()
		ls := l.store.Stats()
		st.Chunks += ls.Chunks
		st.Bytes += ls.Bytes
		st.PeakBytes += ls.PeakBytes
	}
	if len(w.lanes) > 0 {
		st.External -= w.store.Charged()
	}
	return st
}
