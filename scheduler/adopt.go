package scheduler

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/protocol"
)

// Adoption: a scheduler taking over a session from one that died carries
// its graphs on. It recompiles each graph's tileable JSON (deterministic:
// the same chunk ops under the same indexes), asks the workers which chunks
// of the graph they still hold (their inventory), and rebuilds the operand
// states from that alone: the old owner's states died with it. What is
// held and still needed stays finished where it is; everything else needed
// runs again from its lineage. The graph keeps its id, since the chunks on
// the workers are stored under it.

// HeldChunk is one chunk of a graph a worker reports holding.
type HeldChunk struct {
	Node   int32
	Nbytes int64
}

// Inventory is, per worker index, the chunks of one graph it holds.
type Inventory map[int][]HeldChunk

// Rebuilt is a graph's operand states rebuilt from an inventory.
type Rebuilt struct {
	// State is Finished (output held and needed), Freed (not needed
	// again: every consumer's output is held, or nothing reads it) or
	// Unscheduled (runs again).
	State []State
	// Location is the worker holding each Finished op's output, -1 for the
	// others; Nbytes its size.
	Location []int
	Nbytes   []int64
	// Release lists copies nobody needs, per worker: outputs of Freed ops
	// and extra copies of Finished ones.
	Release map[int][]int32
	// Reused and Rerun count the ops kept Finished and the ops to run.
	Reused, Rerun int
}

// InventoryError is an inventory entry that cannot be one of the graph's
// chunks.
type InventoryError struct {
	Worker int
	Node   int32
	Nbytes int64
	Reason string
}

func (e *InventoryError) Error() string {
	return fmt.Sprintf("scheduler: inventory of worker %d: chunk op %d (%d bytes): %s", e.Worker, e.Node, e.Nbytes, e.Reason)
}

// Rebuild computes the operand states of graph g (results kept) from the
// chunks the live workers hold. It walks the graph once from the results
// back to the sources (nodes are in topological order): an op is needed
// if it is a result or an op that runs again reads it; a needed op whose
// output is held stays Finished, one whose output is missing runs again,
// and then so may its inputs. An op no one needs is Freed, as if its
// consumers had finished and released it. Pure, O(V+E).
//
// A chunk held by several workers stays on the lowest-numbered one; the
// other copies are released. A chunk whose size cannot be its op's planned
// output is an error: the inventory does not describe this graph.
func Rebuild(g *graph.ChunkGraph, results []int32, inv Inventory) (*Rebuilt, error) {
	n := len(g.Nodes)
	rb := &Rebuilt{
		State:    make([]State, n),
		Location: make([]int, n),
		Nbytes:   make([]int64, n),
		Release:  map[int][]int32{},
	}
	for i := range rb.Location {
		rb.Location[i] = -1
	}
	// Workers in order, so the kept copy and the releases do not depend on
	// map order.
	workers := slices.Sorted(func(yield func(int) bool) {
		for w := range inv {
			if !yield(w) {
				return
			}
		}
	})
	var extra [][2]int // (worker, node) copies beyond the first
	for _, w := range workers {
		if w < 0 {
			return nil, &InventoryError{Worker: w, Node: -1, Reason: "no such worker"}
		}
		for _, h := range inv[w] {
			if err := checkHeld(g, w, h); err != nil {
				return nil, err
			}
			if rb.Location[h.Node] >= 0 {
				if rb.Location[h.Node] != w {
					extra = append(extra, [2]int{w, int(h.Node)})
				}
				continue
			}
			rb.Location[h.Node] = w
			rb.Nbytes[h.Node] = h.Nbytes
		}
	}
	need := make([]bool, n)
	for _, x := range results {
		if x < 0 || int(x) >= n {
			return nil, fmt.Errorf("scheduler: result %d is not a chunk op of the graph (%d ops)", x, n)
		}
		need[x] = true
	}
	for v := n - 1; v >= 0; v-- {
		switch {
		case need[v] && rb.Location[v] >= 0:
			rb.State[v] = Finished
			rb.Reused++
		case need[v]:
			rb.State[v] = Unscheduled
			rb.Rerun++
			for _, in := range g.Nodes[v].Inputs {
				need[in] = true
			}
		default:
			rb.State[v] = Freed
			if w := rb.Location[v]; w >= 0 {
				rb.Release[w] = append(rb.Release[w], int32(v))
				rb.Location[v], rb.Nbytes[v] = -1, 0
			}
		}
	}
	for _, e := range extra {
		rb.Release[e[0]] = append(rb.Release[e[0]], int32(e[1]))
	}
	for w := range rb.Release {
		slices.Sort(rb.Release[w])
		rb.Release[w] = slices.Compact(rb.Release[w])
	}
	return rb, nil
}

// checkHeld refuses an inventory entry that cannot be op h.Node's output:
// no such op, or a size its planned output cannot have (a shorter one only
// along an axis of unknown length).
func checkHeld(g *graph.ChunkGraph, w int, h HeldChunk) error {
	if h.Node < 0 || int(h.Node) >= len(g.Nodes) {
		return &InventoryError{Worker: w, Node: h.Node, Nbytes: h.Nbytes, Reason: fmt.Sprintf("not an op of the graph (%d ops)", len(g.Nodes))}
	}
	m := g.Nodes[h.Node].Meta
	planned := m.Nbytes()
	switch {
	case h.Nbytes < 0:
		return &InventoryError{Worker: w, Node: h.Node, Nbytes: h.Nbytes, Reason: "negative size"}
	case m.Unknown > 0 && h.Nbytes > planned:
		return &InventoryError{Worker: w, Node: h.Node, Nbytes: h.Nbytes, Reason: fmt.Sprintf("larger than its planned bound %v (%d bytes)", m, planned)}
	case m.Unknown == 0 && h.Nbytes != planned:
		return &InventoryError{Worker: w, Node: h.Node, Nbytes: h.Nbytes, Reason: fmt.Sprintf("its planned output %v has %d bytes", m, planned)}
	}
	return nil
}

// AdoptRequest describes a graph a scheduler takes over.
type AdoptRequest struct {
	// ID is the graph's id under its previous owner: the workers hold its
	// chunks under it, and the adopted run keeps it.
	ID protocol.GraphID
	// Graph and Results are the recompiled chunk graph and its result ops,
	// as the previous owner had them (compiling is deterministic).
	Graph   *graph.ChunkGraph
	Results []int32
	// Inventory is what the workers hold of the graph, by this scheduler's
	// worker indexes, taken after each worker was fenced with Fence (as
	// rpc.ListChunks does), so the previous owner adds nothing to it
	// afterwards but the outputs of tasks already running. Entries of
	// workers dead by the time the adoption is applied are ignored.
	Inventory Inventory
	// Fence is this scheduler's ownership of the graph's session; it must
	// be above the previous owner's token, so workers refuse the previous
	// owner's dispatches from now on.
	Fence protocol.Fence
}

// msgAdopt starts a run from rebuilt states instead of from nothing.
type msgAdopt struct {
	run *Run
	inv Inventory
}

// Adopt takes over a graph another scheduler ran: its operand states are
// rebuilt from the workers' inventory (Rebuild), finished results are kept
// where they are (ResultLocations finds them) and what is missing runs again
// from its lineage, under the graph's old id and the given fence. The run
// ends at once when every result is held. It fails if this scheduler already
// runs a graph with that id.
func (s *Scheduler) Adopt(ctx context.Context, req AdoptRequest) (*Run, error) {
	g := req.Graph
	if g == nil {
		return nil, fmt.Errorf("scheduler: adopting graph %d: no chunk graph", req.ID)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("scheduler: adopting graph %d: %w", req.ID, err)
	}
	// Check the inventory and results here, so that a bad one is the
	// caller's error rather than a failed run.
	if _, err := Rebuild(g, req.Results, req.Inventory); err != nil {
		return nil, fmt.Errorf("scheduler: adopting graph %d: %w", req.ID, err)
	}
	var slots []int
	if err := s.do(func(c *core) { slots = c.liveSlots() }); err != nil {
		return nil, err
	}
	plan := Prepare(g, req.Results, slots)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scheduler: cancelled while preparing graph %d for adoption: %w", req.ID, err)
	}
	run := newRun(s, req.ID, g, plan, req.Results)
	run.fence = req.Fence
	var err error
	if derr := s.do(func(c *core) {
		if c.runs[req.ID] != nil {
			err = fmt.Errorf("scheduler: adopting graph %d: this scheduler already runs a graph with that id", req.ID)
			return
		}
		c.apply(msgAdopt{run: run, inv: req.Inventory})
	}); derr != nil {
		return nil, derr
	}
	if err != nil {
		return nil, err
	}
	return run, nil
}

// liveSlots is each worker's slots, none for a dead one (so Prepare
// assigns no source op to it).
func (c *core) liveSlots() []int {
	slots := append([]int(nil), c.slots...)
	for w, d := range c.dead {
		if d != nil {
			slots[w] = 0
		}
	}
	return slots
}

// adopt starts run r from the states rebuilt from inv: held and needed
// outputs Finished where they are, copies nobody needs released, the ops
// to run again waiting for their inputs like those of a new run.
func (c *core) adopt(r *Run, inv Inventory) {
	c.cur = r
	c.runs[r.id] = r
	r.core = c
	r.lastChange = c.now()
	live := Inventory{}
	for w, held := range inv {
		if w >= 0 && w < len(c.slots) && c.dead[w] == nil {
			live[w] = held
		}
	}
	rb, err := Rebuild(r.g, r.result, live)
	if err != nil {
		c.failWith(r, err)
		return
	}
	c.stats.Adopted++
	r.reused.Store(int64(rb.Reused))
	for i, st := range rb.State {
		v := int32(i)
		switch st {
		case Finished:
			r.set(v, Finished)
			r.location[i] = int16(rb.Location[i])
			r.nbytes[i] = rb.Nbytes[i]
			r.seq++
			r.landedAt[i] = r.seq
			r.finished++
		case Freed:
			r.set(v, Freed)
			r.finished++
		}
	}
	// Edges still to be crossed: an input of an op that runs is pending
	// until it has run too, and is consumed once more by it.
	for i, st := range rb.State {
		r.pending[i], r.consumers[i] = 0, 0
		if st != Unscheduled {
			continue
		}
		for _, in := range r.g.Nodes[i].Inputs {
			if rb.State[in] == Unscheduled {
				r.pending[i]++
			}
			r.consumers[in]++
		}
	}
	for _, w := range slices.Sorted(func(yield func(int) bool) {
		for w := range rb.Release {
			if !yield(w) {
				return
			}
		}
	}) {
		for _, v := range rb.Release[w] {
			c.out[w].release(protocol.ChunkKey{Graph: r.id, Node: v}, r.fence.Token)
		}
	}
	r.tickChanges = r.changes
	for i, st := range rb.State {
		if st == Unscheduled && r.pending[i] == 0 {
			if r.step(int32(i), EvInputsReady) {
				c.dispatch(r, int32(i))
			}
		}
	}
	c.maybeFinish(r)
}
