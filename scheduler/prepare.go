package scheduler

import (
	"sync"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/internal/hugepage"
	"github.com/phobos-tensor/phobos/protocol"
)

// Plan is the result of preparing a chunk graph for execution: everything the
// event loop needs, computed in O(V+E) off the loop.
//
// Depths (the longest path from a source op) and the depth-first
// post-order from the results are in each op's Priority; they are not kept
// beside it, as a graph of ten million ops would hold them twice.
type Plan struct {
	Adj      *graph.Adjacency
	Priority []protocol.Priority
	// Initial is the worker of each source op, -1 for others: int16 like
	// a run's worker of each op, a graph of millions of ops holds one
	// per op.
	Initial []int16
	// Sources are the source ops (no inputs) of each initial worker (those
	// with no worker, when there are none, count as worker 0's), most
	// urgent first: in Order, which is how Priority ranks ops of depth 0.
	// A run releases them in this order, a batch at a time
	// (Config.SourceBatch).
	Sources [][]int32
}

// parallelPrepare is the graph size from which Prepare's walks run at
// once: below it, starting goroutines costs more than it saves.
const parallelPrepare = 1 << 14

// prepareRun is Prepare and allocRun, side by side for a large graph:
// the run's arrays need no plan.
func prepareRun(g *graph.ChunkGraph, results []int32, slots []int) (*Plan, *Run) {
	if len(g.Nodes) < parallelPrepare {
		return Prepare(g, results, slots), allocRun(g, results)
	}
	var r *Run
	var wg sync.WaitGroup
	wg.Go(func() { r = allocRun(g, results) })
	plan := Prepare(g, results, slots)
	wg.Wait()
	return plan, r
}

// Prepare computes depths, orders, priorities and the initial assignment of
// source ops to workers with the given slot counts.
func Prepare(g *graph.ChunkGraph, results []int32, slots []int) *Plan {
	// Three independent walks over the (read-only) graph: for a graph of
	// a million ops, each is tens of milliseconds before anything runs.
	var depth, order []int32
	var adj *graph.Adjacency
	if len(g.Nodes) < parallelPrepare {
		adj, depth, order = g.Successors(), Depths(g), DepthFirstOrder(g, results)
	} else {
		var wg sync.WaitGroup
		wg.Go(func() { depth = Depths(g) })
		wg.Go(func() { order = DepthFirstOrder(g, results) })
		adj = g.Successors()
		wg.Wait()
	}
	prio := hugepage.Make[protocol.Priority](len(g.Nodes), len(g.Nodes))
	for i, nd := range g.Nodes {
		prio[i] = protocol.Priority{
			Depth: depth[i],
			Succ:  int32(len(adj.Of(i))),
			Bytes: nd.Meta.Nbytes(),
			Order: order[i],
		}
	}
	sources := sourcesInOrder(g, order)
	initial := assignInitial(g, adj, sources, slots)
	return &Plan{
		Adj:      adj,
		Priority: prio,
		Initial:  initial,
		Sources:  sourcesByWorker(sources, initial, len(slots)),
	}
}

// sourcesByWorker splits sources, kept in their order, by initial worker.
func sourcesByWorker(sources []int32, initial []int16, workers int) [][]int32 {
	if workers <= 1 {
		return [][]int32{sources}
	}
	by := make([][]int32, workers)
	for _, s := range sources {
		w := max(initial[s], 0)
		by[w] = append(by[w], s)
	}
	return by
}

// sourcesInOrder is the source ops of g (no inputs) sorted by order, a
// permutation of 0..len(g.Nodes)-1 (DepthFirstOrder's): one pass, no sort.
func sourcesInOrder(g *graph.ChunkGraph, order []int32) []int32 {
	byOrder := hugepage.Make[int32](len(g.Nodes), len(g.Nodes))
	n := 0
	for i, nd := range g.Nodes {
		if len(nd.Inputs) == 0 {
			byOrder[order[i]] = int32(i) + 1
			n++
		}
	}
	sources := make([]int32, 0, n)
	for _, s := range byOrder {
		if s > 0 {
			sources = append(sources, s-1)
		}
	}
	return sources
}

// Depths is the length of the longest path from any source op to each op.
// Nodes are in topological order, so one forward pass suffices.
func Depths(g *graph.ChunkGraph) []int32 {
	d := hugepage.Make[int32](len(g.Nodes), len(g.Nodes))
	for i, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			if d[in]+1 > d[i] {
				d[i] = d[in] + 1
			}
		}
	}
	return d
}

// DepthFirstOrder numbers ops in the post-order of a depth-first walk from the
// results over inputs: the inputs of one consumer get neighbouring numbers, so
// among equally deep ops the worker finishes one subtree before starting the
// next (a and b of a+b alternate instead of all of a before any of b). Ops not
// reachable from a result come last, in graph order.
func DepthFirstOrder(g *graph.ChunkGraph, results []int32) []int32 {
	n := len(g.Nodes)
	order := hugepage.Make[int32](n, n)
	for i := range order {
		order[i] = -1
	}
	next := int32(0)
	type frame struct {
		node int32
		pos  int
	}
	stack := make([]frame, 0, 64)
	visit := func(root int32) {
		if order[root] >= 0 {
			return
		}
		order[root] = -2 // on stack
		stack = append(stack, frame{node: root})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ins := g.Nodes[top.node].Inputs
			if top.pos < len(ins) {
				c := int32(ins[top.pos])
				top.pos++
				if order[c] == -1 {
					order[c] = -2
					stack = append(stack, frame{node: c})
				}
				continue
			}
			order[top.node] = next
			next++
			stack = stack[:len(stack)-1]
		}
	}
	for _, r := range results {
		visit(r)
	}
	for i := 0; i < n; i++ {
		if order[i] < 0 {
			visit(int32(i))
		}
	}
	return order
}

// AssignInitial gives every source op (one with no inputs) a worker, by the
// heuristic of Mars's initial assignment: workers get quotas of source
// ops in proportion to their slots; repeatedly the worker with the largest
// remaining quota takes the next unassigned source op (in depth-first order)
// and breadth-first searches the undirected graph from it, taking every
// unassigned source op it reaches, until it has visited more than
// its share of the graph (len(graph)/workers for equal slots) or its quota is used. Sources that feed the same
// consumers so land on the same worker. Non-source ops get -1.
func AssignInitial(g *graph.ChunkGraph, adj *graph.Adjacency, order []int32, slots []int) []int16 {
	return assignInitial(g, adj, sourcesInOrder(g, order), slots)
}

// assignInitial is AssignInitial given the sources in depth-first order
// (sourcesInOrder), so "next unassigned" walks subtrees in turn.
func assignInitial(g *graph.ChunkGraph, adj *graph.Adjacency, ordered []int32, slots []int) []int16 {
	n := len(g.Nodes)
	assign := hugepage.Make[int16](n, n)
	for i := range assign {
		assign[i] = -1
	}
	nw := len(slots)
	if nw == 0 || n == 0 {
		return assign
	}
	if nw == 1 {
		for _, s := range ordered {
			assign[s] = 0
		}
		return assign
	}
	// A worker's weight is its slot count; one with none (dead) gets no
	// source ops, unless no worker has any.
	weight := make([]int, nw)
	totalSlots := 0
	for w, s := range slots {
		weight[w] = max(s, 0)
		totalSlots += weight[w]
	}
	if totalSlots == 0 {
		for w := range weight {
			weight[w] = 1
		}
		totalSlots = nw
	}
	quota := make([]int, nw)
	given := 0
	for w := range slots {
		quota[w] = len(ordered) * weight[w] / totalSlots
		given += quota[w]
	}
	for w := 0; given < len(ordered); w = (w + 1) % nw {
		if weight[w] > 0 {
			quota[w]++ // hand out the rounding remainder
			given++
		}
	}
	visited := hugepage.Make[bool](n, n)
	queue := make([]int32, 0, 64)
	cursor := 0
	remaining := len(ordered)
	for remaining > 0 {
		w := 0
		for i := range quota {
			if quota[i] > quota[w] {
				w = i
			}
		}
		if quota[w] == 0 {
			break
		}
		// The visit limit is graph size / workers, scaled by the worker's
		// share of slots like its quota.
		limit := n * weight[w] / totalSlots
		seen := 0
		for quota[w] > 0 && seen <= limit && remaining > 0 {
			for cursor < len(ordered) && assign[ordered[cursor]] >= 0 {
				cursor++
			}
			if cursor == len(ordered) {
				break
			}
			start := ordered[cursor]
			queue = append(queue[:0], start)
			visited[start] = true
			for len(queue) > 0 && quota[w] > 0 && seen <= limit {
				v := queue[0]
				queue = queue[1:]
				seen++
				if len(g.Nodes[v].Inputs) == 0 && assign[v] < 0 {
					assign[v] = int16(w)
					quota[w]--
					remaining--
				}
				for _, in := range g.Nodes[v].Inputs {
					if !visited[in] {
						visited[in] = true
						queue = append(queue, int32(in))
					}
				}
				for _, s := range adj.Of(int(v)) {
					if !visited[s] {
						visited[s] = true
						queue = append(queue, s)
					}
				}
			}
			// Ops left in the queue were seen but not searched from; let the
			// next worker search them again.
			for _, v := range queue {
				visited[v] = false
			}
		}
		quota[w] = 0 // this worker's turn is over
		if allZero(quota) && remaining > 0 {
			// Rounding or the visit limit left sources over: give them to the
			// workers in proportion again on the next pass.
			for w := range slots {
				quota[w] = (remaining*weight[w] + totalSlots - 1) / totalSlots
			}
			for i := range visited {
				visited[i] = false
			}
		}
	}
	return assign
}

func allZero(q []int) bool {
	for _, v := range q {
		if v != 0 {
			return false
		}
	}
	return true
}
