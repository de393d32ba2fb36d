// Package protocol holds the messages that pass between the scheduler and
// worker roles: tasks going down, results coming back, chunk keys naming
// data. In the local session they travel as Go values through interfaces; the
// rpc layer carries the same messages over the network.
package protocol

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// GraphID names one submitted chunk graph.
type GraphID uint64

// ChunkKey names the output chunk of one chunk op of one graph.
type ChunkKey struct {
	Graph GraphID
	Node  int32
}

func (k ChunkKey) String() string { return fmt.Sprintf("g%d/c%d", k.Graph, k.Node) }

// CompareKeys orders chunk keys by graph, then op: the order inventories
// are listed in.
func CompareKeys(a, b ChunkKey) int {
	if c := cmp.Compare(a.Graph, b.Graph); c != 0 {
		return c
	}
	return cmp.Compare(a.Node, b.Node)
}

// Priority orders READY chunk ops on a worker: deeper ops first,
// so a tree reduction runs depth-first and keeps few chunks alive; then the
// graph's depth-first order, which gives the inputs of one consumer
// neighbouring places; then smaller outputs, then fewer successors.
//
// Mars ranks fewer successors before its placement order. We rank the order
// first: a shared input (a vector broadcast against every chunk of a matrix)
// has many successors and would otherwise wait behind every other source op,
// forcing all of them into memory before any consumer could run.
type Priority struct {
	Depth int32
	Order int32
	Bytes int64
	Succ  int32
}

// Less reports whether p should run before q.
func (p Priority) Less(q Priority) bool {
	if p.Depth != q.Depth {
		return p.Depth > q.Depth
	}
	if p.Order != q.Order {
		return p.Order < q.Order
	}
	if p.Bytes != q.Bytes {
		return p.Bytes < q.Bytes
	}
	return p.Succ < q.Succ
}

// Input is one input of a task: the chunk and the worker that holds it.
type Input struct {
	Key    ChunkKey
	Worker int
	Nbytes int64
}

// Task asks a worker to run one chunk op.
type Task struct {
	Key      ChunkKey // the output chunk; Key.Node is the op's index in the graph
	Op       ops.ChunkOp
	Inputs   []Input
	Meta     ops.Meta
	Priority Priority
	// Attempt numbers the dispatches of one op: the scheduler raises it
	// each time it sends the op anywhere, so (Key, Attempt) names one
	// dispatch. Workers deduplicate submissions by it and echo it in
	// their results; the scheduler ignores a result that does not carry
	// the op's current attempt and worker.
	Attempt int
	// Fence is the dispatching scheduler's ownership of the graph's
	// session: workers refuse a task whose token is below the highest
	// they have seen for its scope (FencedError).
	Fence Fence
}

// Fence is a fencing token: Scope names what is owned (a session), Token
// the ownership epoch, which rises each time the scope changes owner (the
// owner's lease revision in the coordination service). Two schedulers
// that both believe they own a scope cannot both have their tasks run:
// workers keep the highest token seen per scope and refuse lower ones. A
// cluster of one scheduler uses the zero Fence.
type Fence struct {
	Scope string
	Token uint64
}

// FencedError is a task (or a fencing, Key.Node < 0) a worker refused
// because it has seen a higher token for the scope: the scheduler that
// sent it no longer owns the session.
type FencedError struct {
	Key     ChunkKey
	Scope   string
	Token   uint64 // the task's
	Current uint64 // the highest the worker has seen for the scope
}

func (e *FencedError) Error() string {
	scope, what := "", "fencing"
	if e.Scope != "" {
		scope = fmt.Sprintf(" of scope %q", e.Scope)
	}
	if e.Key.Node >= 0 {
		what = fmt.Sprintf("task %v", e.Key)
	}
	return fmt.Sprintf("%s refused: fencing token %d%s is stale (the worker has seen %d): another scheduler owns the session now", what, e.Token, scope, e.Current)
}

// Outcome is how a task ended on a worker.
type Outcome uint8

// The outcomes of a task.
const (
	Started Outcome = iota + 1 // the task took a slot; not terminal
	Succeeded
	Failed
	Cancelled
)

// Result reports the end of a task.
type Result struct {
	Key     ChunkKey
	Attempt int // the task's Attempt
	Worker  int
	Outcome Outcome
	Nbytes  int64 // bytes of the stored output
	Err     error // the kernel's error when Failed
	// Retryable marks failures another attempt may cure (a lost input, a
	// dead peer); kernel errors are deterministic and are not retryable.
	Retryable bool
	// Lost names inputs the worker found gone (a spill file deleted behind
	// its back): the scheduler recomputes them from their lineage.
	Lost []ChunkKey
	// Fence echoes the task's fencing token: a scheduler ignores results
	// of dispatches made under another token (a previous owner's).
	Fence uint64
	// Elapsed is how long the task held its slot (inputs, kernel, store),
	// 0 when it did not run: the dashboard's timings for tasks whose
	// start the worker did not report.
	Elapsed time.Duration
}

// Reporter receives results from workers. It must not block for long.
type Reporter interface {
	Report(r Result)
}

// BatchReporter is a Reporter that also takes several results in one call:
// a worker running tiny ops back to back hands their results over
// together, one wake of the receiver for many. A worker given one sends
// every report through ReportBatch, each slot's in the order it made them,
// so a Started notice never overtakes its op's outcome. The slice becomes
// the receiver's.
type BatchReporter interface {
	Reporter
	ReportBatch(rs []Result)
}

// Executor is what the scheduler needs of a worker.
type Executor interface {
	// Submit queues tasks; the worker runs them by priority as slots free up.
	Submit(tasks []Task)
	// Release frees stored chunks that no one needs any more.
	Release(keys []ChunkKey)
	// CancelGraph interrupts running tasks of the graph and drops its queued ones.
	CancelGraph(g GraphID)
	// Slots is the number of tasks the worker runs at once.
	Slots() int
}

// FencedReleaser is an Executor whose releases and cancels carry the
// sender's fencing token for each graph: a worker that has seen a graph
// under a higher token ignores them, so a scheduler that lost a session
// cannot free or stop what the session's new owner uses.
type FencedReleaser interface {
	// ReleaseFenced is Release with the token of each key's graph
	// (parallel to keys).
	ReleaseFenced(keys []ChunkKey, tokens []uint64)
	// CancelGraphFenced is CancelGraph under the graph's token.
	CancelGraphFenced(g GraphID, token uint64)
}

// ChunkReader reads a stored chunk; the session uses it to fetch results.
type ChunkReader interface {
	Get(ctx context.Context, key ChunkKey) (*ndarray.Array, error)
}
