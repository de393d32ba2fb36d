// Package worker executes chunk ops. Submitted tasks wait in a priority queue
// (Mars's TaskQueue); a fixed number of slots take the most urgent one
// that fits in memory, load its inputs, run its kernel under the graph's
// context, store the output and report back. The worker never decides
// placement: it runs what it is given, in the order the scheduler's
// priorities say, as memory allows.
//
// Memory (Mars's QuotaActor): before an op starts, its memory is
// estimated (Estimate) and reserved in the store, which evicts chunks (by
// next use) to make room. An op that does not fit is not started: the slot
// takes a less urgent op that fits, or waits until memory frees. An op whose
// estimate exceeds the whole limit fails at once. The worker tells the store
// each chunk's next use: the priority of the most urgent queued op reading it.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/phobos-tensor/phobos/internal/keytab"
	"github.com/phobos-tensor/phobos/internal/prioq"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// Config tunes a Worker.
type Config struct {
	// ID is the worker's index in the cluster; results carry it.
	ID int
	// Slots is the number of ops run at once (default GOMAXPROCS).
	Slots int
	// Logger receives warnings (an unusable spill directory); nil: slog.Default().
	Logger *slog.Logger
	// StallTimeout is how long an idle worker's most urgent op that does not
	// fit waits for what the scheduler is probably about to send (releases
	// of finished chunks, consumers of fresh ones) before it evicts those
	// chunks anyway or fails. Normally the scheduler's
	// message wakes it long before. Default 50ms.
	StallTimeout time.Duration
	// QuietStartBytes: an op that touches fewer bytes than this (inputs
	// plus output) is not reported as started, only as ended. Such ops run
	// for microseconds, a RUNNING state nobody could see; skipping the
	// notice halves the messages of graphs of tiny ops (W5). 0 reports
	// every start.
	QuietStartBytes int64
	// Files, when set, is what file ops may touch (see ops.FileAccess);
	// nil lets them touch any path the process can (a local session).
	Files *ops.FileAccess
	// Uploads, when set, holds the chunks clients uploaded to this worker.
	Uploads *ops.UploadStore
	// Blocks, when set, runs users' Python functions (ops.UserBlock);
	// without it such ops fail, saying how to allow them.
	Blocks ops.BlockRunner
	// Observer, when set, sees every task's end (metrics): it keeps
	// Prometheus and its kin out of this package.
	Observer Observer
	// Lanes runs the tiny quiet tasks on lanes of their own, one per
	// slot, each with its own queue and store (see lanes.go). It takes
	// effect with QuietStartBytes set and more than one slot.
	Lanes bool
}

// Observer sees each task a slot takes as it ends, with how long it ran
// (0 when it never ran: it could not be admitted, or its graph was
// cancelled while it queued). It is called on the slot's goroutine before
// the result is reported, so it must be quick and must not block.
type Observer interface {
	TaskEnded(t *protocol.Task, res protocol.Result, ran time.Duration)
}

// DefaultQuietStartBytes is the QuietStartBytes the clusters use.
const DefaultQuietStartBytes = 256 << 10

// PeerReader fetches a chunk held by another worker.
type PeerReader interface {
	ReadChunk(ctx context.Context, worker int, key protocol.ChunkKey) (*ndarray.Array, error)
}

// scanDepth is how many queued tasks, most urgent first, a slot considers
// when the most urgent does not fit in memory.
const scanDepth = 16

// Worker runs tasks on its slots and keeps their outputs in its store.
type Worker struct {
	cfg   Config
	store *storage.Store
	rep   protocol.Reporter
	peers PeerReader
	log   *slog.Logger

	mu struct {
		sync.Mutex
		queue *prioq.Queue[*protocol.Task] // most urgent first
		// graphs are the graphs with tasks here, per owner: tasks of the
		// same graph sent under different fencing tokens (a previous
		// owner's and its adopter's) get separate contexts, so a cancel
		// from one does not stop the other's.
		graphs map[graphKey]*graphState
		// lastKey and last are the graph looked up last: a slot's next
		// task is nearly always of the same graph as the one before.
		lastKey graphKey
		last    *graphState
		uses    keytab.Table[protocol.GraphID, *uses] // queued consumers of stored chunks
		// usesFree are records of chunks whose queued readers all left,
		// for the next chunks: one allocation fewer per input read.
		usesFree []*uses
		// reqInputs is room for the inputs of the memory request of the
		// most urgent task, reused from one admission to the next.
		reqInputs []storage.InputRequest
		// nextUses is room for the next uses a Submit sets, reused.
		nextUses []storage.NextUse
		running  int // admitted tasks not yet done
		// lent is how many slots running tasks hold besides their own
		// (ops.Threaded): no task starts while running + lent fills the
		// slots.
		lent int
		// head is the most urgent task when it last failed to fit, and
		// bypassed the admissions of less urgent tasks since: capped, so a
		// big op is not starved by a stream of small ones.
		head     *protocol.Task
		bypassed int
		// stall is the head of an idle worker that did not fit, since when.
		stall      *protocol.Task
		stallSince time.Time
		closed     bool
		// waiting is how many slots wait in next: a slot that ends a task
		// wakes them only if there are any.
		waiting int
		// Delivery is at least once: a dispatch may arrive twice. active
		// is the dispatch of each key queued or running; ended the last
		// dispatch of each key that ran, until the key is released;
		// cancelled the graphs cancelled here, kept so that their tasks
		// arriving later never run (graph ids are not reused).
		active    keytab.Table[protocol.GraphID, dispatch]
		ended     keytab.Table[protocol.GraphID, dispatch]
		cancelled recent[protocol.GraphID, uint64] // with the cancel's token
		// fences is the highest fencing token seen per scope: a task
		// below it comes from a scheduler that no longer owns its
		// session, and is refused, queued or arriving. graphFences is
		// the highest token each graph was sent or fenced under: a
		// release or cancel below it is ignored, so a scheduler that
		// lost a session cannot free or stop what its new owner uses.
		fences      fences[string]
		graphFences fences[protocol.GraphID]
		fenced      int64 // tasks refused for a stale token
		fencedDrops int64 // releases and cancels ignored for one
		// deferred are released keys a lane's slot deletes from its
		// store before it runs its next task; reaping is set while it
		// deletes those it took, settlers how many wait for that
		// (deferred.go).
		deferred []protocol.ChunkKey
		reaping  bool
		settlers int
	}
	cond *sync.Cond // signalled when tasks arrive, memory frees or the worker closes
	// reaped is broadcast when a lane's slot has deleted the released
	// keys it took (deferred.go), for those waiting in settle.
	reaped *sync.Cond
	wg     sync.WaitGroup

	// lanes run the worker's tiny quiet tasks (Config.Lanes); home is the
	// worker a lane belongs to. A worker has one or the other or neither.
	lanes []*Worker
	home  *Worker
	// routed is the lane each key went to (route), until released: a
	// release goes to that lane alone (and to the worker), not to every
	// lane. Only the goroutines that submit and release touch it. A key
	// whose task never stored anything (refused, cancelled) is never
	// released: past max keys, the table forgets one.
	routed struct {
		sync.Mutex
		lanes keytab.Table[protocol.GraphID, int16]
		max   int
	}
}

// dispatch names one dispatch of a key: the fencing token it was sent
// under, then its attempt. A new owner's attempts start again from 1, so
// the token orders first.
type dispatch struct {
	fence   uint64
	attempt int
}

func dispatchOf(t *protocol.Task) dispatch { return dispatch{fence: t.Fence.Token, attempt: t.Attempt} }

// after reports whether d is a later dispatch than e.
func (d dispatch) after(e dispatch) bool {
	if d.fence != e.fence {
		return d.fence > e.fence
	}
	return d.attempt > e.attempt
}

// graphLocked is the state of t's graph under t's token, nil if none.
func (w *Worker) graphLocked(t *protocol.Task) *graphState {
	k := graphOf(t)
	if w.mu.last != nil && w.mu.lastKey == k {
		return w.mu.last
	}
	g := w.mu.graphs[k]
	if g != nil {
		w.mu.lastKey, w.mu.last = k, g
	}
	return g
}

// graphKey names a graph's tasks sent under one fencing token.
type graphKey struct {
	graph protocol.GraphID
	fence uint64
}

func graphOf(t *protocol.Task) graphKey { return graphKey{graph: t.Key.Graph, fence: t.Fence.Token} }

type graphState struct {
	ctx       context.Context
	cancel    context.CancelFunc
	tasks     int // queued + running
	cancelled bool
}

// uses are the queued tasks reading one chunk, and the most urgent priority
// among them (the chunk's next use).
type uses struct {
	tasks []*protocol.Task
	best  protocol.Priority
	one   [1]*protocol.Task // tasks' first backing: most chunks have one reader
}

// maxUsesFree bounds the emptied uses records a worker keeps.
const maxUsesFree = 1 << 10

// New starts a worker whose results go to rep. peers may be nil when the
// worker is alone. The store's limit is the worker's memory budget. Close
// stops the worker; the caller closes the store afterwards.
func New(cfg Config, store *storage.Store, rep protocol.Reporter, peers PeerReader) *Worker {
	if cfg.Slots <= 0 {
		cfg.Slots = runtime.GOMAXPROCS(0)
	}
	w := newWorker(cfg, store, rep, peers)
	if cfg.Lanes && cfg.QuietStartBytes > 0 && cfg.Slots > 1 {
		w.startLanes()
	}
	return w
}

// newWorker starts a worker without lanes: a worker's own queue and slots,
// or one of its lanes.
func newWorker(cfg Config, store *storage.Store, rep protocol.Reporter, peers PeerReader) *Worker {
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = 50 * time.Millisecond
	}
	w := &Worker{cfg: cfg, store: store, rep: rep, peers: peers, log: cfg.Logger}
	if w.log == nil {
		w.log = slog.Default()
	}
	w.cond = sync.NewCond(&w.mu.Mutex)
	w.reaped = sync.NewCond(&w.mu.Mutex)
	w.mu.queue = prioq.New(func(a, b *protocol.Task) bool { return a.Priority.Less(b.Priority) })
	w.mu.graphs = make(map[graphKey]*graphState)
	w.mu.cancelled = newRecent[protocol.GraphID, uint64](rememberCancelled)
	w.mu.fences = newFences[string](rememberFences)
	w.mu.graphFences = newFences[protocol.GraphID](rememberCancelled)
	if err := store.SpillErr(); err != nil {
		w.log.Warn("worker cannot spill: ops that need to will fail", "worker", cfg.ID, "err", err)
	}
	w.wg.Add(cfg.Slots)
	for range cfg.Slots {
		go w.slot()
	}
	return w
}

// Slots is the number of tasks the worker runs at once.
func (w *Worker) Slots() int { return w.cfg.Slots }

// Store is the worker's chunk store. Its lanes keep stores of their own
// (StoreStats counts them in).
func (w *Worker) Store() *storage.Store { return w.store }

// Busy is the number of tasks running on the slots and waiting in the
// queue now, its lanes' included.
func (w *Worker) Busy() (running, queued int) {
	for _, u := range w.units() {
		r, q := u.busy()
		running, queued = running+r, queued+q
	}
	return running, queued
}

func (w *Worker) busy() (running, queued int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mu.running, w.mu.queue.Len()
}

// local reports whether the input is read from this worker's store.
func (w *Worker) local(in protocol.Input) bool {
	return in.Worker == w.cfg.ID || in.Worker < 0 || w.peers == nil
}

// Submit queues tasks. A dispatch (key, token and attempt) the worker
// already has queued or running, or ran recently, is ignored: the
// scheduler's messages may arrive twice. A task of a graph cancelled here
// is reported cancelled without running. A task whose fencing token is
// below the highest seen for its scope is refused (a failure with a
// *protocol.FencedError, not retryable); one above it raises it, and the
// scope's queued tasks of lower tokens are refused when a slot reaches
// them. Tiny quiet tasks go to the worker's lanes, if it has any.
func (w *Worker) Submit(tasks []protocol.Task) {
	if len(w.lanes) == 0 {
		w.submit(tasks, nil, 0)
		return
	}
	w.route(tasks)
}

// submit queues tasks on this worker's own slots (see Submit): those i
// with which[i] == mine, all of them if which is nil.
func (w *Worker) submit(tasks []protocol.Task, which []int16, mine int16) {
	var refused []protocol.Result
	// A batch is mostly tasks of one graph under one token: what was
	// checked and looked up for the previous task queued holds for the
	// next of the same graph and token (nothing here changes it).
	var prev *protocol.Task
	var prevG *graphState
	w.mu.Lock()
	queued := w.mu.queue.Len()
	nextUses := w.mu.nextUses[:0]
	for i := range tasks {
		if which != nil && which[i] != mine {
			continue
		}
		t := &tasks[i]
		same := prev != nil && t.Key.Graph == prev.Key.Graph && t.Fence == prev.Fence
		if !same {
			if err := w.fenceLocked(t, true); err != nil {
				refused = append(refused, w.fencedResult(t, err))
				continue
			}
			if tok, ok := w.mu.cancelled.get(t.Key.Graph); ok && t.Fence.Token <= tok {
				refused = append(refused, protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w.cfg.ID, Outcome: protocol.Cancelled, Fence: t.Fence.Token})
				continue
			}
		}
		d := dispatchOf(t)
		if e, ok := w.mu.ended.Get(t.Key.Graph, t.Key.Node); ok && !d.after(e) {
			continue
		}
		if e, ok := w.mu.active.Get(t.Key.Graph, t.Key.Node); ok && !d.after(e) {
			continue
		}
		w.mu.active.Set(t.Key.Graph, t.Key.Node, d)
		g := prevG
		if !same {
			w.noteGraphLocked(t.Key.Graph, t.Fence.Token)
			g = w.graphLocked(t)
		}
		if g == nil {
			base := context.Background()
			if w.cfg.Files != nil {
				base = ops.WithFileAccess(base, w.cfg.Files)
			}
			if w.cfg.Uploads != nil {
				base = ops.WithUploads(base, w.cfg.Uploads)
			}
			if w.cfg.Blocks != nil {
				base = ops.WithBlockRunner(base, w.cfg.Blocks)
			}
			ctx, cancel := context.WithCancel(base)
			g = &graphState{ctx: ctx, cancel: cancel}
			w.mu.graphs[graphOf(t)] = g
		}
		g.tasks++
		prev, prevG = t, g
		w.mu.queue.Push(t)
		if !w.tracksUses() {
			continue
		}
		for _, in := range t.Inputs {
			if w.local(in) {
				nextUses = w.addUseLocked(nextUses, in.Key, t)
			}
		}
	}
	// Under w.mu still: a slot dequeuing one of these tasks must not set
	// its inputs' next use before this does.
	w.store.SetNextUses(nextUses)
	clear(nextUses)
	w.mu.nextUses = nextUses[:0]
	// Slots idle on an empty queue wait for tasks alone: one per new
	// task is woken (a slot woken for nothing still costs a thread's
	// wake-up, and a small graph's dispatch would wake every slot). With
	// tasks queued before, slots may wait for memory or for the tasks a
	// raised fence now refuses: all of them look.
	signals := -1
	if queued == 0 {
		signals = min(w.mu.queue.Len(), w.mu.waiting)
	}
	w.mu.Unlock()
	w.wake(signals)
	var fenced []protocol.Result
	for _, r := range refused {
		if r.Outcome == protocol.Failed {
			fenced = append(fenced, r)
		}
	}
	if len(fenced) > 0 {
		// Once per batch: a stale scheduler sends many.
		w.log.Warn("tasks refused: stale fencing token", "worker", w.cfg.ID, "tasks", len(fenced), "first", fenced[0].Err)
	}
	if len(refused) > 0 {
		// Not from here: Submit may be called on the scheduler's own event
		// loop (a local cluster), which reports must not wait for.
		go w.report(refused)
	}
}

// How many ended dispatches, routed keys (route), cancelled graphs and
// fencing scopes a worker remembers. An ended dispatch, or a routed key, is
// forgotten when its chunk is released, or, past rememberEnded or
// rememberRouted (tasks that stored nothing), whichever the table yields
// first; cancelled graphs and scopes, oldest first. A release of a
// forgotten routed key goes to every lane. A dispatch repeated after it was
// forgotten runs again: the scheduler ignores its result and releases what
// it stored, so that costs work, not correctness. A scope forgotten (the
// least recently raised of more than rememberFences sessions) accepts any
// token again until one is seen.
const (
	rememberEnded     = 1 << 16
	rememberRouted    = 1 << 16
	rememberCancelled = 1 << 12
	rememberFences    = 1 << 12
)

// fenceLocked checks t's fencing token against the highest seen for its
// scope, raising it when t's is higher if raise is set. It returns the
// refusal of a stale token.
func (w *Worker) fenceLocked(t *protocol.Task, raise bool) error {
	cur, ok := w.mu.fences.get(t.Fence.Scope)
	switch {
	case ok && t.Fence.Token < cur:
		return &protocol.FencedError{Key: t.Key, Scope: t.Fence.Scope, Token: t.Fence.Token, Current: cur}
	case raise && w.mu.fences.raises(t.Fence.Scope, t.Fence.Token, t.Fence.Scope != ""):
		w.mu.fences.raise(t.Fence.Scope, t.Fence.Token)
	case raise && ok:
		w.mu.fences.touch(t.Fence.Scope)
	}
	return nil
}

// fencedResult is the report of a task refused for a stale token; it
// counts it.
func (w *Worker) fencedResult(t *protocol.Task, err error) protocol.Result {
	w.mu.fenced++
	return protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w.cfg.ID, Outcome: protocol.Failed, Err: err, Fence: t.Fence.Token}
}

// Fenced is the number of tasks refused for a stale fencing token.
func (w *Worker) Fenced() int64 {
	var n int64
	for _, u := range w.units() {
		u.mu.Lock()
		n += u.mu.fenced
		u.mu.Unlock()
	}
	return n
}

// tracksUses reports whether w records its queued tasks' inputs' next
// uses: for its store's eviction, which a lane's store never does.
func (w *Worker) tracksUses() bool { return w.home == nil }

// addUseLocked records queued task t as a reader of the chunk under key,
// appending the chunk's next use to nu if t is now its most urgent reader
// (for the store, in one call for a batch).
func (w *Worker) addUseLocked(nu []storage.NextUse, key protocol.ChunkKey, t *protocol.Task) []storage.NextUse {
	u, _ := w.mu.uses.Get(key.Graph, key.Node)
	if u == nil {
		if n := len(w.mu.usesFree); n > 0 {
			u = w.mu.usesFree[n-1]
			w.mu.usesFree = w.mu.usesFree[:n-1]
			u.best = t.Priority
		} else {
			u = &uses{best: t.Priority}
		}
		u.tasks = u.one[:0]
		w.mu.uses.Set(key.Graph, key.Node, u)
	} else if !t.Priority.Less(u.best) {
		u.tasks = append(u.tasks, t)
		return nu
	}
	u.tasks = append(u.tasks, t)
	u.best = t.Priority
	return append(nu, storage.NextUse{Key: key, Priority: u.best, OK: true})
}

// dequeuedLocked forgets a task that left the queue as a future reader of
// its inputs, updating their next use.
func (w *Worker) dequeuedLocked(t *protocol.Task) {
	if !w.tracksUses() {
		return
	}
	var buf [4]storage.NextUse
	nu := buf[:0]
	for _, in := range t.Inputs {
		if !w.local(in) {
			continue
		}
		u, _ := w.mu.uses.Get(in.Key.Graph, in.Key.Node)
		if u == nil {
			continue // a repeated input, already handled
		}
		k := 0
		for _, x := range u.tasks {
			if x != t {
				u.tasks[k] = x
				k++
			}
		}
		clear(u.tasks[k:])
		u.tasks = u.tasks[:k]
		if k == 0 {
			w.mu.uses.Delete(in.Key.Graph, in.Key.Node)
			if len(w.mu.usesFree) < maxUsesFree {
				*u = uses{}
				w.mu.usesFree = append(w.mu.usesFree, u)
			}
			nu = append(nu, storage.NextUse{Key: in.Key})
			continue
		}
		best := u.tasks[0].Priority
		for _, x := range u.tasks[1:] {
			if x.Priority.Less(best) {
				best = x.Priority
			}
		}
		if best != u.best {
			u.best = best
			nu = append(nu, storage.NextUse{Key: in.Key, Priority: best, OK: true})
		}
	}
	w.store.SetNextUses(nu)
}

// Release frees stored chunks, as ReleaseFenced with no token.
func (w *Worker) Release(keys []protocol.ChunkKey) { w.ReleaseFenced(keys, nil) }

// ReleaseFenced frees stored chunks; tokens (nil: all 0) are the sender's
// fencing tokens of each key's graph. A key of a graph sent or fenced
// here under a higher token is kept: the sender no longer owns it.
func (w *Worker) ReleaseFenced(keys []protocol.ChunkKey, tokens []uint64) {
	kept := w.release(keys, tokens)
	if len(w.lanes) > 0 {
		w.releaseLanes(keys, tokens)
	}
	if kept > 0 {
		w.log.Warn("releases ignored: stale fencing token", "worker", w.cfg.ID, "chunks", kept)
	}
}

// release is ReleaseFenced on this worker's own store; it returns how many
// keys it kept for a stale token.
func (w *Worker) release(keys []protocol.ChunkKey, tokens []uint64) int {
	w.mu.Lock()
	// fresh is keys until a stale key is met, a copy from then on.
	fresh := keys[:0:0]
	copied := false
	// Releases come in runs of one graph and token: the check holds for
	// a run (nothing here changes it).
	var last struct {
		graph protocol.GraphID
		token uint64
		stale bool
		ok    bool
	}
	// A worker's lanes see every release, mostly of chunks another lane
	// or the worker holds: nothing to forget when nothing ran here.
	ended := w.mu.ended.Len() > 0
	for i, k := range keys {
		tok := tokenAt(tokens, i)
		if !last.ok || k.Graph != last.graph || tok != last.token {
			last.graph, last.token, last.stale, last.ok = k.Graph, tok, w.staleForGraphLocked(k.Graph, tok), true
		}
		if last.stale {
			if !copied {
				fresh = append(make([]protocol.ChunkKey, 0, len(keys)), keys[:i]...)
				copied = true
			}
			continue
		}
		if ended {
			w.mu.ended.Delete(k.Graph, k.Node)
		}
		if copied {
			fresh = append(fresh, k)
		}
	}
	if !copied {
		fresh = keys
	}
	kept := len(keys) - len(fresh)
	w.mu.fencedDrops += int64(kept)
	if w.defersDeletesLocked() {
		w.mu.deferred = append(w.mu.deferred, fresh...)
		wake := w.mu.waiting > 0
		w.mu.Unlock()
		if wake {
			w.cond.Signal()
		}
		return kept
	}
	w.mu.Unlock()
	w.store.Delete(fresh)
	w.wakeForMemory()
	return kept
}

// wake wakes n slots waiting for a task, every waiting slot if n < 0.
func (w *Worker) wake(n int) {
	if n < 0 {
		w.cond.Broadcast()
		return
	}
	for range n {
		w.cond.Signal()
	}
}

// wakeForMemory wakes the waiting slots after memory was freed, if one of
// them may wait for it: tasks are queued. Asked under the lock after the
// memory is free, so a slot that found it short is seen waiting, and one
// that had not looked yet finds it free.
func (w *Worker) wakeForMemory() {
	w.mu.Lock()
	wake := w.mayUnblockLocked()
	w.mu.Unlock()
	if wake {
		w.cond.Broadcast()
	}
}

// mayUnblockLocked reports whether memory or a slot given back may let a
// waiting slot start a task: one waits while tasks are queued. A slot
// waiting on an empty queue waits for a task, which submit wakes it for.
func (w *Worker) mayUnblockLocked() bool {
	return w.mu.waiting > 0 && w.mu.queue.Len() > 0
}

func tokenAt(tokens []uint64, i int) uint64 {
	if i < len(tokens) {
		return tokens[i]
	}
	return 0
}

// CancelGraph cancels the graph, as CancelGraphFenced with token 0.
func (w *Worker) CancelGraph(id protocol.GraphID) { w.CancelGraphFenced(id, 0) }

// CancelGraphFenced interrupts the graph's running kernels sent under
// tokens up to token, through their context; its queued tasks are
// reported cancelled as slots reach them, and tasks of the graph under
// such tokens that arrive later are reported cancelled at once. A cancel
// below the graph's highest token here is ignored: the sender no longer
// owns it.
func (w *Worker) CancelGraphFenced(id protocol.GraphID, token uint64) {
	if !w.cancelGraph(id, token) {
		w.log.Warn("cancel ignored: stale fencing token", "worker", w.cfg.ID, "graph", id, "token", token)
	}
	for _, l := range w.lanes {
		l.cancelGraph(id, token)
	}
}

// cancelGraph is CancelGraphFenced on this worker's own slots; false: the
// token was stale.
func (w *Worker) cancelGraph(id protocol.GraphID, token uint64) bool {
	w.mu.Lock()
	if w.staleForGraphLocked(id, token) {
		w.mu.fencedDrops++
		w.mu.Unlock()
		return false
	}
	if tok, ok := w.mu.cancelled.get(id); !ok || token > tok {
		w.mu.cancelled.add(id, token)
	}
	for k, g := range w.mu.graphs {
		if k.graph == id && k.fence <= token {
			g.cancelled = true
			g.cancel()
		}
	}
	w.mu.Unlock()
	w.cond.Broadcast()
	return true
}

// noteGraphLocked records that graph g was sent or fenced under token.
func (w *Worker) noteGraphLocked(g protocol.GraphID, token uint64) {
	if w.mu.graphFences.raises(g, token, false) {
		w.mu.graphFences.raise(g, token)
	} else {
		w.mu.graphFences.touch(g)
	}
}

// staleForGraphLocked reports whether graph g was sent or fenced here
// under a higher token than token.
func (w *Worker) staleForGraphLocked(g protocol.GraphID, token uint64) bool {
	cur, ok := w.mu.graphFences.get(g)
	return ok && token < cur
}

// FencedDrops is the number of releases and cancels ignored because a
// newer owner of their graph had shown up. The worker sees every release
// and cancel its lanes see, under the same fences (syncFences), so its own
// count is the whole.
func (w *Worker) FencedDrops() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mu.fencedDrops
}

// Chunks lists the chunks of the given graphs this worker holds, memory
// and spill files alike, in key order: what an adopting scheduler rebuilds
// the graphs from.
func (w *Worker) Chunks(graphs []protocol.GraphID) []storage.Held {
	held := w.store.List(graphs)
	if len(w.lanes) == 0 {
		return held
	}
	for _, l := range w.lanes {
		l.settle()
		held = append(held, l.store.List(graphs)...)
	}
	slices.SortFunc(held, func(a, b storage.Held) int { return protocol.CompareKeys(a.Key, b.Key) })
	return held
}

// Fence raises the token of f's scope, and of the given graphs of that
// scope, to f's, as tasks carrying it would: an adopting scheduler calls
// it on every worker before it takes their inventory, so that from then on
// the previous owner's tasks are refused and its releases and cancels of
// those graphs ignored, even when the adopter has nothing left to
// dispatch. A token below the scope's is refused with a
// *protocol.FencedError: a newer owner exists.
func (w *Worker) Fence(f protocol.Fence, graphs ...protocol.GraphID) error {
	err := w.fence(f, graphs...)
	for _, l := range w.lanes {
		_ = l.fence(f, graphs...) // refused where the worker itself refused
	}
	return err
}

// fence is Fence on this worker's own tables.
func (w *Worker) fence(f protocol.Fence, graphs ...protocol.GraphID) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur, ok := w.mu.fences.get(f.Scope); ok && f.Token < cur {
		return &protocol.FencedError{Key: protocol.ChunkKey{Node: -1}, Scope: f.Scope, Token: f.Token, Current: cur}
	}
	// An adopter's fence is remembered even at token zero.
	if w.mu.fences.raises(f.Scope, f.Token, true) {
		w.mu.fences.raise(f.Scope, f.Token)
	}
	for _, g := range graphs {
		w.noteGraphLocked(g, f.Token)
	}
	return nil
}

// Get reads a stored chunk (for fetching results and serving peers). A
// chunk on disk is read for the caller without coming back into memory.
func (w *Worker) Get(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, error) {
	a, err := w.store.Read(ctx, key)
	var missing *storage.ErrNotFound
	if err != nil && len(w.lanes) > 0 && errors.As(err, &missing) {
		w.settleLanes()
		if b, ok := w.readLanes(ctx, key, nil); ok {
			return b, nil
		}
	}
	return a, err
}

// Close stops the slots after their current tasks, its lanes' too, and
// closes the lanes' stores; queued tasks are dropped.
func (w *Worker) Close() {
	w.close()
	for _, l := range w.lanes {
		l.close()
		l.store.Close()
	}
}

func (w *Worker) close() {
	w.mu.Lock()
	if w.mu.closed {
		w.mu.Unlock()
		return
	}
	w.mu.closed = true
	for _, g := range w.mu.graphs {
		g.cancel()
	}
	w.mu.Unlock()
	w.cond.Broadcast()
	w.wg.Wait()
}

// Estimate is the memory an op needs besides its inputs: its output and its
// kernel's temporaries. These are rough bounds for admission, not promises:
//   - views (transpose, slices, ...) share their input's buffer: nothing;
//   - ops that know their scratch memory say it (ops.ScratchEstimator:
//     fused kernels evaluate tile by tile, one tile per node);
//   - other kernels: the output plus one output-sized temporary (a
//     contiguous copy of a strided operand, a broadcast intermediate, ...).
func Estimate(t *protocol.Task) (output, temp int64) {
	out := t.Meta.Nbytes()
	switch op := t.Op.(type) {
	case ops.View:
		return 0, 0
	case ops.ScratchEstimator:
		return out, op.ScratchBytes(t.Meta)
	}
	return out, out
}

// request is the memory request of a task. Its inputs are appended to
// inputs[:0], which the caller may reuse once the store has answered.
func (w *Worker) request(t *protocol.Task, inputs []storage.InputRequest) storage.Request {
	out, temp := Estimate(t)
	req := storage.Request{Op: t.Op.Type(), Output: out, Temp: temp, Priority: t.Priority, Inputs: inputs[:0]}
	if len(t.Inputs) == 0 {
		// A source op leaves room for another op as large: the consumers of
		// the chunks sources already made must not find memory full of
		// sources whose consumers are far away.
		req.Headroom = out + temp
	}
	req.Spare = intoTiny(t) != nil
	for _, in := range t.Inputs {
		if w.local(in) {
			req.Inputs = append(req.Inputs, storage.InputRequest{Key: in.Key, Nbytes: in.Nbytes})
		} else {
			req.Remote += in.Nbytes
		}
	}
	return req
}

// pick is what a slot does next: run t under res, report it failed with err
// (it could not be admitted), or report it cancelled (neither).
type pick struct {
	t   *protocol.Task
	g   *graphState
	res *storage.Reservation
	err error
	// threads is the slots t holds: its own and those lent to it.
	threads int
}

// next blocks until a task can be started (or must be reported) or the
// worker closes.
func (w *Worker) next(st *slotState) (pick, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.mu.closed {
		if len(w.mu.deferred) > 0 {
			w.takeDeferredLocked(st)
			w.mu.Unlock()
			w.reap(st)
			w.mu.Lock()
			continue
		}
		if p, ok := w.takeLocked(st.spare); ok {
			return p, true
		}
		w.mu.waiting++
		w.cond.Wait()
		w.mu.waiting--
	}
	return pick{}, false
}

// takeLocked picks the next task; spare (may be nil) is a closed
// reservation of the slot's to build the task's in.
func (w *Worker) takeLocked(spare *storage.Reservation) (pick, bool) {
	p, ok := w.pickLocked(spare)
	if ok {
		p.threads = 1
		if p.res != nil && p.err == nil {
			w.lendLocked(&p)
		}
	}
	return p, ok
}

// lendLocked lends an admitted ops.Threaded task the idle slots, when no
// other task is queued: a lone big product (the only op ready, or the last
// of a graph) then runs on every core instead of one. They are the slots
// it uses, held until it ends; a task arriving meanwhile waits for them.
func (w *Worker) lendLocked(p *pick) {
	if w.mu.queue.Len() > 0 {
		return // checked first: cheaper than the interface assertion
	}
	th, ok := p.t.Op.(ops.Threaded)
	if !ok {
		return
	}
	if extra := min(th.MaxThreads(p.t.Meta)-1, w.cfg.Slots-w.mu.running-w.mu.lent); extra > 0 {
		w.mu.lent += extra
		p.threads += extra
	}
}

// headFitsLocked takes the most urgent queued task if it can be admitted
// now (or cannot be at all), without disturbing the heap.
func (w *Worker) headFitsLocked(spare *storage.Reservation) (pick, bool) {
	t, _ := w.mu.queue.Peek()
	g := w.graphLocked(t)
	if w.mu.head == t || g.cancelled || w.fenceLocked(t, false) != nil {
		return pick{}, false
	}
	req := w.request(t, w.mu.reqInputs)
	req.Reuse = spare
	w.mu.reqInputs = req.Inputs[:0]
	res, err := w.store.Reserve(req)
	if res == nil && err == nil {
		return pick{}, false
	}
	w.mu.queue.Pop()
	w.dequeuedLocked(t)
	if res != nil {
		w.mu.head, w.mu.bypassed, w.mu.stall = nil, 0, nil
		w.mu.running++
	}
	return pick{t: t, g: g, res: res, err: err}, true
}

// pickLocked takes the most urgent queued task that fits in memory, looking
// at most scanDepth deep, or one that cannot be admitted at all, to fail it.
// A less urgent task passes a waiting one at most 2×slots times in a row,
// so a big op is not starved by a stream of small ones.
func (w *Worker) pickLocked(spare *storage.Reservation) (pick, bool) {
	if w.mu.queue.Len() == 0 || w.mu.running+w.mu.lent >= w.cfg.Slots {
		return pick{}, false
	}
	// The common case: the most urgent task fits.
	if p, ok := w.headFitsLocked(spare); ok {
		return p, true
	}
	var cands []*protocol.Task
	defer func() {
		for _, t := range cands {
			if t != nil {
				w.mu.queue.Push(t)
			}
		}
	}()
	for w.mu.queue.Len() > 0 && len(cands) < scanDepth {
		t, _ := w.mu.queue.Pop()
		if g := w.graphLocked(t); g.cancelled {
			w.dequeuedLocked(t)
			return pick{t: t, g: g}, true
		}
		if err := w.fenceLocked(t, false); err != nil {
			// Queued before a newer owner of its session showed up.
			w.dequeuedLocked(t)
			return pick{t: t, g: w.graphLocked(t), err: err}, true
		}
		cands = append(cands, t)
	}
	head := cands[0]
	if w.mu.head != head {
		w.mu.head, w.mu.bypassed = head, 0
	}
	// The store may wait for what the scheduler is about to send; if it
	// does not come, the head of an idle worker stops waiting for it.
	stalled := w.mu.running == 0 && w.mu.stall == head && time.Since(w.mu.stallSince) >= w.cfg.StallTimeout
	n := len(cands)
	if w.mu.bypassed >= 2*w.cfg.Slots {
		n = 1 // the head has waited long enough: save memory for it
	}
	reqs := make([]storage.Request, n)
	for i, t := range cands[:n] {
		reqs[i] = w.request(t, nil)
	}
	reqs[0].NoWait = stalled
	i, res, err := w.store.ReserveFirst(reqs)
	if i < 0 && stalled {
		i, err = 0, fmt.Errorf("op %s waited %v for memory with nothing running", ops.Label(head.Op), w.cfg.StallTimeout)
	}
	if i < 0 {
		if w.mu.running == 0 && w.mu.stall != head {
			w.mu.stall, w.mu.stallSince = head, time.Now()
			time.AfterFunc(w.cfg.StallTimeout, w.cond.Broadcast)
		}
		return pick{}, false
	}
	t := cands[i]
	cands[i] = nil
	w.dequeuedLocked(t)
	p := pick{t: t, g: w.graphLocked(t), res: res, err: err}
	if err != nil {
		return p, true
	}
	if i == 0 {
		w.mu.head, w.mu.bypassed = nil, 0
	} else {
		w.mu.bypassed++
	}
	w.mu.stall = nil
	w.mu.running++
	return p, true
}

// ending is a task whose slot is being given back (done).
type ending struct {
	t        *protocol.Task
	g        *graphState
	admitted bool // it held a reservation, and so a running slot
	lent     int  // slots lent to it besides its own
}

// doneLocked gives back the slot of a task that ended; it reports
// whether slots wait for it.
func (w *Worker) doneLocked(e *ending) bool {
	t, g := e.t, e.g
	if e.admitted {
		w.mu.running--
	}
	w.mu.lent -= e.lent
	d := dispatchOf(t)
	if a, ok := w.mu.active.Get(t.Key.Graph, t.Key.Node); ok && a == d {
		w.mu.active.Delete(t.Key.Graph, t.Key.Node)
	}
	if e, ok := w.mu.ended.Get(t.Key.Graph, t.Key.Node); !ok || d.after(e) {
		if w.mu.ended.Len() >= rememberEnded {
			// Forget one, whichever comes first.
			var k protocol.ChunkKey
			w.mu.ended.All(func(g protocol.GraphID, n int32, _ dispatch) bool {
				k = protocol.ChunkKey{Graph: g, Node: n}
				return false
			})
			w.mu.ended.Delete(k.Graph, k.Node)
		}
		w.mu.ended.Set(t.Key.Graph, t.Key.Node, d)
	}
	g.tasks--
	if g.tasks == 0 {
		g.cancel()
		delete(w.mu.graphs, graphOf(t))
		if w.mu.last == g {
			w.mu.last = nil
		}
	}
	return w.mayUnblockLocked()
}

// reportsStart reports whether t is big enough for its start to be worth a
// message (see Config.QuietStartBytes).
func (w *Worker) reportsStart(t *protocol.Task) bool { return w.loud(t, touched(t)) }

// loud is reportsStart for t, which reads and writes n bytes (touched).
func (w *Worker) loud(t *protocol.Task, n int64) bool {
	q := w.cfg.QuietStartBytes
	if q <= 0 || n >= q {
		return true
	}
	if f, ok := t.Op.(ops.Fused); ok {
		// Generators inside make data no input or output shows.
		n += int64(ndarray.Size(f.Shape)) * 8
	}
	return n >= q
}

// Results of quiet ops (see reportsStart) that ran on local inputs are
// held back by their slot and reported together: before the slot waits
// for work, before it runs any other op, once heldResults have gathered
// or once the first has waited maxHold. A graph of a million tiny ops
// then wakes the scheduler once per batch instead of once per op, while a
// result is never held for longer than the quiet ops run after it. The
// slots of the tasks whose results are held are given back together, under
// the lock that takes the slot's next task.
const (
	heldResults = protocol.ResultBatchCap
	maxHold     = time.Millisecond
)

// allLocal reports whether every input of t is in this worker's store.
func (w *Worker) allLocal(t *protocol.Task) bool {
	for _, in := range t.Inputs {
		if !w.local(in) {
			return false
		}
	}
	return true
}

// report hands results to the reporter, in one call if it takes batches
// (the slice is then the receiver's), and reports whether rs is still the
// caller's: a reporter of single results (a process's batcher, which
// encodes each) keeps none of it.
func (w *Worker) report(rs []protocol.Result) bool {
	if b, ok := w.rep.(protocol.BatchReporter); ok {
		b.ReportBatch(rs)
		return false
	}
	for _, r := range rs {
		w.rep.Report(r)
	}
	return true
}

// slotState is what one slot holds between tasks: the tasks it ran whose
// results it holds back. A result is reported only after its task's slot
// was given back (endings), so the scheduler never frees or resends what
// the worker still counts as running.
type slotState struct {
	held []protocol.Result
	// spare is the reservation of the slot's last task, closed: the next
	// task's is built in it.
	spare     *storage.Reservation
	endings   []ending
	heldSince time.Time
	// endedAt is when the slot's last quiet task ended, zero once the
	// slot has done anything else since (flush): the start of a quiet task
	// taken straight after it, so that a run of tiny tasks reads only the
	// monotonic clock, once per task.
	endedAt time.Time
	// tiny is the room of the tasks a run of tiny tasks takes after the
	// first, spares the closed reservations they are admitted in (see
	// tinyrun.go).
	tiny   []pick
	spares []*storage.Reservation
	// ins is room for a task's input list (runIn).
	ins []*ndarray.Array
	// deleting are released keys a lane's slot deletes (deferred.go).
	deleting []protocol.ChunkKey
}

// take returns the slot's next task: one from the queue (ending the held
// tasks under the same lock), else, after reporting what it holds, the
// next to arrive.
func (w *Worker) take(st *slotState) (pick, bool) {
	if p, ok := w.tryNext(st); ok {
		return p, true
	}
	w.flush(st)
	return w.next(st)
}

// tryNext gives back the slots of st's endings and then takes what can
// start now (false when nothing can): one lock for both.
func (w *Worker) tryNext(st *slotState) (pick, bool) {
	w.mu.Lock()
	wake := w.endLocked(st)
	w.takeDeferredLocked(st)
	var p pick
	ok := false
	if !w.mu.closed {
		p, ok = w.takeLocked(st.spare)
	}
	w.mu.Unlock()
	if wake {
		w.cond.Broadcast()
	}
	if len(st.deleting) > 0 {
		w.reap(st) // before p runs: it may make a released key again
	}
	return p, ok
}

// endLocked gives back the slots of the tasks st ended and reports
// whether slots wait for them.
func (w *Worker) endLocked(st *slotState) bool {
	wake := false
	for i := range st.endings {
		if w.doneLocked(&st.endings[i]) {
			wake = true
		}
	}
	clear(st.endings)
	st.endings = st.endings[:0]
	return wake
}

// flush gives back the slots of st's ended tasks and reports their
// results.
func (w *Worker) flush(st *slotState) {
	st.endedAt = time.Time{} // the next task does not start when the last ended
	if len(st.endings) > 0 {
		w.mu.Lock()
		wake := w.endLocked(st)
		w.mu.Unlock()
		if wake {
			w.cond.Broadcast()
		}
	}
	if len(st.held) > 0 {
		if w.report(st.held) {
			clear(st.held) // no errors kept alive
			st.held = st.held[:0]
		} else {
			st.held = nil
		}
	}
}

func (w *Worker) slot() {
	defer w.wg.Done()
	var st slotState
	for {
		p, ok := w.take(&st)
		if !ok {
			return
		}
		if p.res == st.spare {
			st.spare = nil // in use again
		}
		// A quiet op's result may be held back (see heldResults); a loud
		// one's start is reported.
		runs := p.err == nil && p.res != nil
		loud := runs && w.reportsStart(p.t)
		quiet := runs && !loud && w.allLocal(p.t)
		if !quiet {
			w.flush(&st)
		}
		res := protocol.Result{Key: p.t.Key, Attempt: p.t.Attempt, Worker: w.cfg.ID, Fence: p.t.Fence.Token}
		var ran time.Duration
		var start time.Time
		switch {
		case p.err != nil && isFenced(p.err):
			w.mu.Lock()
			res = w.fencedResult(p.t, p.err)
			w.mu.Unlock()
		case p.err != nil:
			// Too large never fits; anything else may once memory frees.
			var tl *storage.TooLargeError
			var nr *storage.NoRoomError
			if errors.As(p.err, &tl) {
				tl.Op = ops.Label(p.t.Op) // the store knows only the type
			} else if errors.As(p.err, &nr) {
				nr.Op = ops.Label(p.t.Op)
			}
			res.Outcome, res.Retryable = protocol.Failed, tl == nil
			res.Err = fmt.Errorf("worker %d: %w", w.cfg.ID, p.err)
		case p.res == nil:
			res.Outcome = protocol.Cancelled
		default:
			if loud {
				w.report([]protocol.Result{{Key: p.t.Key, Attempt: p.t.Attempt, Worker: w.cfg.ID, Outcome: protocol.Started, Fence: p.t.Fence.Token}})
			}
			ctx := p.g.ctx
			if p.threads > 1 {
				ctx = ops.WithThreads(ctx, p.threads)
			}
			// A quiet task taken straight after the last starts when it
			// ended (its admission counts as its own): one clock read.
			if start = st.endedAt; start.IsZero() {
				start = time.Now()
			}
			if batch := w.takeBatchIf(quiet, p); len(batch) > 0 {
				res = w.runBatch(ctx, &st, p, batch, start) // see userbatch.go
			} else {
				res = w.runIn(ctx, p.t, p.res, &st.ins)
			}
			// Since reads only the monotonic clock (Now reads the wall
			// clock too); the end is derived from it.
			ran = time.Since(start)
			st.endedAt = time.Time{}
			if quiet {
				st.endedAt = start.Add(ran)
			}
			res.Elapsed = ran
			if res.Outcome != protocol.Succeeded {
				p.res.Close() // else run closed it
			}
			st.spare = p.res
		}
		if w.cfg.Observer != nil {
			w.cfg.Observer.TaskEnded(p.t, res, ran)
		}
		if res.Outcome == protocol.Failed {
			// Debug only: the scheduler logs a graph's failure once, with
			// this error, where every attempt of every op would log here.
			w.log.Debug("op failed", "worker", w.cfg.ID, "run", uint64(p.t.Key.Graph), "op", p.t.Key.Node, "op_type", ops.Label(p.t.Op), "attempt", p.t.Attempt, "retryable", res.Retryable, "err", res.Err)
		}
		if len(st.held) == 0 {
			st.heldSince = start
			if st.held == nil {
				st.held = protocol.NewResultBatch() // given back by the receiver once applied
			}
		}
		st.held = append(st.held, res)
		st.endings = append(st.endings, ending{t: p.t, g: p.g, admitted: p.res != nil, lent: p.threads - 1})
		ok, ended := quiet && res.Outcome == protocol.Succeeded, start.Add(ran)
		if ok {
			ok, ended = w.runTiny(&st, p, ended)
			st.endedAt = ended
		}
		if !ok || len(st.held) >= heldResults || ended.Sub(st.heldSince) >= maxHold {
			w.flush(&st)
		}
	}
}

// isFenced reports whether err is a refusal for a stale fencing token.
func isFenced(err error) bool {
	var fenced *protocol.FencedError
	return errors.As(err, &fenced)
}

// run executes one admitted task and stores its output; when it succeeds,
// it has closed r.
func (w *Worker) run(ctx context.Context, t *protocol.Task, r *storage.Reservation) protocol.Result {
	return w.runIn(ctx, t, r, nil)
}

// runIn is run with room for the kernel's input list (reused when large
// enough; cleared before it returns), so that a slot's tasks do not
// allocate one each.
func (w *Worker) runIn(ctx context.Context, t *protocol.Task, r *storage.Reservation, insRoom *[]*ndarray.Array) protocol.Result {
	res := protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w.cfg.ID, Fence: t.Fence.Token}
	fail := func(err error, retryable bool) protocol.Result {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			res.Outcome = protocol.Cancelled
			return res
		}
		res.Outcome, res.Err, res.Retryable = protocol.Failed, err, retryable
		return res
	}
	if err := r.Evict(ctx); err != nil {
		return fail(fmt.Errorf("worker %d: making room for %s: %w", w.cfg.ID, ops.Label(t.Op), err), true)
	}
	var ins []*ndarray.Array
	if insRoom != nil && cap(*insRoom) >= len(t.Inputs) {
		ins = (*insRoom)[:len(t.Inputs)]
		defer clear(ins) // the chunks are the store's to free
	} else {
		ins = make([]*ndarray.Array, len(t.Inputs))
		if insRoom != nil {
			*insRoom = ins
			defer clear(ins)
		}
	}
	for i, in := range t.Inputs {
		var a *ndarray.Array
		var err error
		if w.local(in) {
			a, err = r.Acquire(ctx, in.Key)
			// Acquire's not-found is its own *ErrNotFound, unwrapped: a
			// type assertion, not errors.As, on the path of every read of
			// a sibling's chunk.
			if _, missing := err.(*storage.ErrNotFound); missing && w.hasSiblings() {
				// Stored by a lane of the worker, or by the worker for a
				// lane.
				if b, ok := w.readSiblings(ctx, in.Key); ok {
					a, err = b, nil
				}
			}
		} else {
			a, err = w.peers.ReadChunk(ctx, in.Worker, in.Key)
		}
		if err != nil {
			// A lost input is retryable: the scheduler recomputes it. An
			// input a peer could not serve counts as lost too: retrying
			// against a dead peer would only burn attempts until the
			// scheduler notices the death.
			res := fail(fmt.Errorf("worker %d: input %d (%v) of %s: %w", w.cfg.ID, i, in.Key, ops.Label(t.Op), err), true)
			var lost *storage.LostError
			var missing *storage.ErrNotFound
			if errors.As(err, &lost) || errors.As(err, &missing) || !w.local(in) {
				res.Lost = append(res.Lost, in.Key)
			}
			return res
		}
		ins[i] = a
	}
	// Buffers lent after this are the kernel's own making; its output's
	// may then be claimed for the store, which hands it back to the buffer
	// pool when the chunk is released.
	epoch := ndarray.BufferEpoch()
	var spare *ndarray.Array
	into := intoTiny(t)
	if into != nil {
		spare = tinyOutput(r, t)
	}
	out, err := w.execKernel(ctx, t, ins, into, spare)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
		discard(t.Op, out)
	}
	if err != nil {
		// An op whose process died under it (a user function's executor)
		// may succeed on another attempt; any other kernel error would
		// only happen again.
		return fail(err, ops.IsRetryable(err))
	}
	if out.DType() != t.Meta.DType || !t.Meta.Fits(out.Shape()) {
		discard(t.Op, out)
		return fail(fmt.Errorf("kernel %s produced %v%v, planned %v", ops.Label(t.Op), out.DType(), out.Shape(), t.Meta), false)
	}
	opts := storage.PutOptions{Consumers: -1, Producer: t.Priority}
	if t.Priority.Succ > 0 {
		opts.Consumers = int(t.Priority.Succ)
	}
	if len(t.Inputs) == 0 {
		opts.Regen = t.Op // kept only if storage.Regenerable says so
	}
	if spare != nil && out == spare {
		opts.Tiny = true // the store's to make a spare of once deleted
	} else {
		opts.Owned = ndarray.ClaimBuffer(out, epoch)
	}
	var room [4]protocol.ChunkKey
	consumed := room[:0]
	for _, in := range t.Inputs {
		if w.local(in) {
			consumed = append(consumed, in.Key)
		}
	}
	// Stored, its inputs' consumers counted and its reservation closed
	// under one hold of the store's lock.
	r.Finish(t.Key, out, opts, consumed)
	res.Outcome = protocol.Succeeded
	res.Nbytes = int64(out.Nbytes())
	return res
}

// discard lets go of a kernel's output that will not be stored: what it
// stands for outside the store (a sink's temporary file) must not outlive
// it.
func discard(op ops.ChunkOp, out *ndarray.Array) {
	if f, ok := op.(ops.Finalizer); ok && out != nil {
		f.Finalize(out)
	}
}

// execKernel runs a kernel, turning a panic inside it into an error so one
// bad op cannot take the worker down. The error names the op and the panic;
// the stack goes to the worker's log, not to users.
func (w *Worker) execKernel(ctx context.Context, t *protocol.Task, ins []*ndarray.Array, into ops.OutputInto, spare *ndarray.Array) (out *ndarray.Array, err error) {
	defer func() {
		if p := recover(); p != nil {
			label := ops.Label(t.Op)
			w.log.Error("kernel panicked", "worker", w.cfg.ID, "run", uint64(t.Key.Graph), "op", t.Key.Node, "op_type", label, "attempt", t.Attempt, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("kernel %s panicked: %v", label, p)
		}
	}()
	if spare != nil {
		return into.ExecInto(ctx, ins, spare)
	}
	return t.Op.Exec(ctx, ins)
}
