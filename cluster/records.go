package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// GraphRecord is what etcd keeps of a graph submitted to a scheduler of a
// ring, at graphsPrefix + session + "/" + graph: enough for the scheduler
// the ring moves the session to (failover) to find the graph, read it
// again and rebuild its state from the chunks the workers hold. The owner
// writes it before it acknowledges the submission and rewrites it at
// each state change (PREPARING, RUNNING, the end), never per chunk op.
type GraphRecord struct {
	Session   string `json:"session"`
	Graph     string `json:"graph"`
	Scheduler string `json:"scheduler"` // the owner's ring id
	State     string `json:"state"`
	Error     string `json:"error,omitempty"`
	// Run is the run's id once it runs: the Graph of the keys of its
	// chunks on the workers (compiling Tileable again gives the same
	// chunk graph, so the same nodes).
	Run uint64 `json:"run,omitempty"`
	// Tileable is the graph's versioned JSON (graph.EncodeTileable)
	// without client arrays: a literal's data is left out (its chunks
	// live on the workers that hold them; uploads are named by worker
	// already), listed in StrippedLiterals.
	Tileable         json.RawMessage `json:"tileable"`
	StrippedLiterals []int           `json:"stripped_literals,omitempty"`
	Results          []int           `json:"results"`
	NoFuse           bool            `json:"no_fuse,omitempty"`
	Submitted        time.Time       `json:"submitted"`
}

// SessionRecord is a session of a ring in etcd, at sessionsPrefix + id.
type SessionRecord struct {
	Session   string    `json:"session"`
	Scheduler string    `json:"scheduler"`
	Created   time.Time `json:"created"`
	// Fence is the owner's fencing token for the session (its scope): 1
	// when made, raised by each scheduler that takes it over, with a
	// transaction on this record so no two take the same token.
	Fence uint64 `json:"fence"`
}

func graphKey(sid, gid string) string { return graphsPrefix + sid + "/" + gid }

// recordTimeout bounds the wait for a record: a scheduler that cannot
// write one within it refuses the submission rather than acknowledge what
// it did not record.
const recordTimeout = 3 * time.Second

// maxTxnOps is etcd's default limit of operations in one transaction.
const maxTxnOps = 128

// recordWriter writes a scheduler's records to etcd in group commits: what
// is queued while one transaction is in flight goes in the next, so the
// records of many graphs submitted at once cost one raft entry, not one
// each. Writes apply in the order they were queued (a key written twice,
// or a range deleted, starts a new transaction).
type recordWriter struct {
	cli *clientv3.Client
	log *slog.Logger

	mu    sync.Mutex
	queue []recordOp
	kick  chan struct{}
	// urgent is signalled when a write someone waits for is queued: it
	// ends a linger at once.
	urgent chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

// recordLinger is how long writes nobody waits for (state changes,
// deletions) stay queued before they go, unless a write someone waits for
// takes them along sooner: a graph's record then costs about two writes
// (its submission, and its last state or its deletion, which replaces
// what was queued before it), and the records of all the graphs that
// change meanwhile share one transaction, instead of a raft entry for
// each state of each graph. A record one state behind is what a
// scheduler that dies leaves anyway (recordState is best effort), and
// failover reads the workers' chunks, not the state.
const recordLinger = 20 * time.Millisecond

type recordOp struct {
	key    string
	val    string
	del    bool
	prefix bool       // delete every key under key
	done   chan error // nil: nobody waits (logged on failure)
}

func newRecordWriter(cli *clientv3.Client, log *slog.Logger) *recordWriter {
	w := &recordWriter{cli: cli, log: log, kick: make(chan struct{}, 1), urgent: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

// put queues a write of v as JSON at key; wait says whether to wait
// (within ctx and recordTimeout) for etcd to have it.
func (w *recordWriter) put(ctx context.Context, key string, v any, wait bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.enqueue(ctx, recordOp{key: key, val: string(b)}, wait)
}

// del queues the deletion of key (every key under it with prefix).
func (w *recordWriter) del(key string, prefix bool) {
	_ = w.enqueue(context.Background(), recordOp{key: key, del: true, prefix: prefix}, false)
}

func (w *recordWriter) enqueue(ctx context.Context, op recordOp, wait bool) error {
	if wait {
		op.done = make(chan error, 1)
	}
	w.mu.Lock()
	if !w.coalesceLocked(op) {
		w.queue = append(w.queue, op)
	}
	w.mu.Unlock()
	signal(w.kick)
	if !wait {
		return nil
	}
	signal(w.urgent)
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	select {
	case err := <-op.done:
		if err != nil {
			return fmt.Errorf("writing %s to etcd: %w", op.key, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("writing %s to etcd: %w", op.key, ctx.Err())
	case <-w.done:
		return fmt.Errorf("writing %s to etcd: the scheduler is stopping", op.key)
	}
}

// coalesceLocked replaces a queued write of the same key that nobody
// waits for with op, in its place, and reports whether it did: a graph
// that ran and was deleted while its earlier states waited costs one
// write, not three. It looks back no further than a range deletion (which
// must stay between what came before and after it).
func (w *recordWriter) coalesceLocked(op recordOp) bool {
	if op.prefix || op.done != nil {
		return false
	}
	for i := len(w.queue) - 1; i >= 0; i-- {
		q := &w.queue[i]
		if q.prefix {
			return false
		}
		if q.key == op.key {
			if q.done != nil {
				return false
			}
			q.val, q.del = op.val, op.del
			return true
		}
	}
	return false
}

// close writes what is queued (for a moment at most), then stops.
func (w *recordWriter) close() {
	close(w.stop)
	<-w.done
}

func (w *recordWriter) loop() {
	defer close(w.done)
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		stopping := false
		select {
		case <-w.kick:
		case <-w.stop:
			stopping = true
		}
		if !stopping && !w.waitedFor() {
			linger.Reset(recordLinger)
			select {
			case <-linger.C:
			case <-w.urgent:
				linger.Stop()
			case <-w.stop:
				linger.Stop()
				stopping = true
			}
		}
		// A stale token: what is taken now holds every write queued.
		select {
		case <-w.urgent:
		default:
		}
		w.mu.Lock()
		ops := w.queue
		w.queue = nil
		w.mu.Unlock()
		for len(ops) > 0 {
			n := txnLen(ops)
			w.commit(ops[:n], stopping)
			ops = ops[n:]
		}
		if stopping {
			return
		}
	}
}

// waitedFor: someone waits for a queued write.
func (w *recordWriter) waitedFor() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, op := range w.queue {
		if op.done != nil {
			return true
		}
	}
	return false
}

// txnLen is how many of ops, from the first, go in one transaction: at
// most maxTxnOps, no key twice, a range deletion alone.
func txnLen(ops []recordOp) int {
	if ops[0].prefix {
		return 1
	}
	keys := map[string]bool{}
	for i, op := range ops {
		if i == maxTxnOps || op.prefix || keys[op.key] {
			return i
		}
		keys[op.key] = true
	}
	return len(ops)
}

func (w *recordWriter) commit(ops []recordOp, stopping bool) {
	timeout := recordTimeout
	if stopping {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	eops := make([]clientv3.Op, len(ops))
	for i, op := range ops {
		switch {
		case op.del && op.prefix:
			eops[i] = clientv3.OpDelete(op.key, clientv3.WithPrefix())
		case op.del:
			eops[i] = clientv3.OpDelete(op.key)
		default:
			eops[i] = clientv3.OpPut(op.key, op.val)
		}
	}
	_, err := w.cli.Txn(ctx).Then(eops...).Commit()
	logged := false
	for _, op := range ops {
		if op.done != nil {
			op.done <- err
		} else if err != nil && !logged {
			logged = true
			w.log.Warn("records not written to etcd", "records", len(ops), "first", op.key, "err", err)
		}
	}
}

// tileableRecord is tg's JSON with client arrays left out.
func tileableRecord(tg *graph.TileableGraph) (json.RawMessage, []int, error) {
	stripped := &graph.TileableGraph{Nodes: slices.Clone(tg.Nodes)}
	var lits []int
	for i, nd := range stripped.Nodes {
		if lit, ok := nd.Op.(ops.Literal); ok && lit.Data != nil {
			lit.Data = nil
			stripped.Nodes[i].Op = lit
			lits = append(lits, i)
		}
	}
	b, err := graph.EncodeTileable(stripped)
	return b, lits, err
}

// recordGraph writes a new graph's record; the submission is refused
// when it cannot be written.
func (p *SchedulerProc) recordGraph(ctx context.Context, g *graphRec, tg *graph.TileableGraph, results []int, noFuse bool) error {
	if p.ring == nil {
		return nil
	}
	tj, lits, err := tileableRecord(tg)
	if err != nil {
		return fmt.Errorf("encoding the graph's record: %w", err)
	}
	rec := GraphRecord{Session: g.sid, Graph: g.id, Scheduler: p.ringID(), State: StatePreparing, Tileable: tj, StrippedLiterals: lits,
		Results: results, NoFuse: noFuse, Submitted: g.submitted}
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	g.record = &rec
	g.mu.Unlock()
	return p.ring.records.put(ctx, graphKey(g.sid, g.id), rec, true)
}

// recordState rewrites a graph's record with its new state. It is best
// effort (the graph goes on; the scheduler logs what it could not write):
// a record one state behind is repaired by the next, and failover reads
// the workers' chunks, not the state, to know what is done.
func (p *SchedulerProc) recordState(g *graphRec) {
	if p.ring == nil {
		return
	}
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	if g.record == nil || g.record.State == g.state {
		g.mu.Unlock()
		return
	}
	rec := *g.record
	rec.State = g.state
	if g.run != nil {
		rec.Run = uint64(g.run.ID())
	}
	if g.err != nil {
		rec.Error = g.err.Error()
	}
	g.record = &rec
	g.mu.Unlock()
	if err := p.ring.records.put(context.Background(), graphKey(g.sid, g.id), rec, false); err != nil {
		p.log.Warn("graph record not updated", "session", g.sid, "graph", g.id, "state", rec.State, "err", err)
	}
}

// dropGraphRecord deletes the record of a graph whose record went.
func (p *SchedulerProc) dropGraphRecord(g *graphRec) {
	if p.ring == nil {
		return
	}
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	g.record = nil
	g.mu.Unlock()
	p.ring.records.del(graphKey(g.sid, g.id), false)
}

// recordSession writes a new session's record.
func (p *SchedulerProc) recordSession(ctx context.Context, ss *session) error {
	if p.ring == nil {
		return nil
	}
	return p.ring.records.put(ctx, sessionsPrefix+ss.id, SessionRecord{Session: ss.id, Scheduler: p.ringID(), Created: ss.created, Fence: ss.fence.Token}, true)
}

// dropSessionRecord deletes a closed session's record and its graphs'.
func (p *SchedulerProc) dropSessionRecord(sid string) {
	if p.ring == nil {
		return
	}
	p.ring.records.del(sessionsPrefix+sid, false)
	p.ring.records.del(graphsPrefix+sid+"/", true)
}
