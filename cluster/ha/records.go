package ha

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// GraphRecord is what etcd keeps of a graph submitted to a scheduler of a
// ring, at GraphsPrefix + session + "/" + graph: enough for the scheduler
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
	// RecordedLiterals are the stripped literals whose data is kept beside
	// the record, each at LiteralKey (those of up to MaxLiteralRecord
	// bytes encoded: the Python client sends arrays of up to 1 MiB inline).
	// A graph whose other stripped literals are missing cannot be rebuilt.
	RecordedLiterals []int     `json:"recorded_literals,omitempty"`
	Results          []int     `json:"results"`
	NoFuse           bool      `json:"no_fuse,omitempty"`
	Submitted        time.Time `json:"submitted"`
}

// SessionRecord is a session of a ring in etcd, at SessionsPrefix + id.
type SessionRecord struct {
	Session   string    `json:"session"`
	Scheduler string    `json:"scheduler"`
	Created   time.Time `json:"created"`
	// Fence is the owner's fencing token for the session (its scope): 1
	// when made, raised by each scheduler that takes it over, with a
	// transaction on this record so no two take the same token.
	Fence uint64 `json:"fence"`
}

func GraphKey(sid, gid string) string { return GraphsPrefix + sid + "/" + gid }

// LiteralKey is where the data of literal node of graph gid is kept: a
// one-node tileable graph holding that literal. Literals live under their
// own prefix, so reading a session's graph records reads no client data.
func LiteralKey(sid, gid string, node int) string {
	return LiteralsPrefix + sid + "/" + gid + "/" + strconv.Itoa(node)
}

// MaxLiteralRecord bounds one literal's record: etcd refuses requests
// over 1.5 MiB by default, and the Python client's largest inline array
// (1 MiB) takes about 1.34 MiB encoded.
const MaxLiteralRecord = 1_450_000

// maxTxnBytes bounds the keys and values of one transaction (one write
// alone may be larger, up to etcd's request limit).
const maxTxnBytes = 1 << 20

// RecordTimeout bounds the wait for a record: a scheduler that cannot
// write one within it refuses the submission rather than acknowledge what
// it did not record.
const RecordTimeout = 3 * time.Second

// maxTxnOps is etcd's default limit of operations in one transaction.
const maxTxnOps = 128

// RecordWriter writes a scheduler's records to etcd in group commits: what
// is queued while one transaction is in flight goes in the next, so the
// records of many graphs submitted at once cost one raft entry, not one
// each. Writes apply in the order they were queued (a key written twice,
// or a range deleted, starts a new transaction).
type RecordWriter struct {
	cli *clientv3.Client
	log *slog.Logger

	mu    sync.Mutex
	queue []RecordOp
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

type RecordOp struct {
	key    string
	val    string
	del    bool
	prefix bool       // delete every key under key
	done   chan error // nil: nobody waits (logged on failure)
}

// PutOp is the write of val at key, one of a PutAll.
func PutOp(key, val string) RecordOp { return RecordOp{key: key, val: val} }

func NewRecordWriter(cli *clientv3.Client, log *slog.Logger) *RecordWriter {
	w := &RecordWriter{cli: cli, log: log, kick: make(chan struct{}, 1), urgent: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

// put queues a write of v as JSON at key; wait says whether to wait
// (within ctx and RecordTimeout) for etcd to have it.
func (w *RecordWriter) Put(ctx context.Context, key string, v any, wait bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.enqueue(ctx, RecordOp{key: key, val: string(b)}, wait)
}

// putAll queues the writes of ops (values already JSON) and waits, within
// ctx and RecordTimeout, for etcd to have them all.
func (w *RecordWriter) PutAll(ctx context.Context, ops []RecordOp) error {
	for i := range ops {
		ops[i].done = make(chan error, 1)
	}
	w.mu.Lock()
	w.queue = append(w.queue, ops...)
	w.mu.Unlock()
	signal(w.kick)
	signal(w.urgent)
	ctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	defer cancel()
	for _, op := range ops {
		select {
		case err := <-op.done:
			if err != nil {
				return fmt.Errorf("writing %s to etcd: %w", op.key, err)
			}
		case <-ctx.Done():
			return fmt.Errorf("writing %s to etcd: %w", op.key, ctx.Err())
		case <-w.done:
			return fmt.Errorf("writing %s to etcd: the scheduler is stopping", op.key)
		}
	}
	return nil
}

// del queues the deletion of key (every key under it with prefix).
func (w *RecordWriter) Del(key string, prefix bool) {
	_ = w.enqueue(context.Background(), RecordOp{key: key, del: true, prefix: prefix}, false)
}

func (w *RecordWriter) enqueue(ctx context.Context, op RecordOp, wait bool) error {
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
	ctx, cancel := context.WithTimeout(ctx, RecordTimeout)
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
func (w *RecordWriter) coalesceLocked(op RecordOp) bool {
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
func (w *RecordWriter) Close() {
	close(w.stop)
	<-w.done
}

func (w *RecordWriter) loop() {
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
func (w *RecordWriter) waitedFor() bool {
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
// most maxTxnOps and maxTxnBytes (at least one), no key twice, a range
// deletion alone.
func txnLen(ops []RecordOp) int {
	if ops[0].prefix {
		return 1
	}
	keys := map[string]bool{}
	size := 0
	for i, op := range ops {
		size += len(op.key) + len(op.val)
		if i == maxTxnOps || op.prefix || keys[op.key] || (i > 0 && size > maxTxnBytes) {
			return i
		}
		keys[op.key] = true
	}
	return len(ops)
}

func (w *RecordWriter) commit(ops []RecordOp, stopping bool) {
	timeout := RecordTimeout
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

// TileableRecord is tg's JSON with client arrays left out, the nodes of
// those arrays, and the records of those small enough to keep aside: each
// a one-node graph of the literal, by node.
func TileableRecord(tg *graph.TileableGraph) (json.RawMessage, []int, map[int][]byte, error) {
	stripped := &graph.TileableGraph{Nodes: slices.Clone(tg.Nodes)}
	var lits []int
	kept := map[int][]byte{}
	for i, nd := range stripped.Nodes {
		if lit, ok := nd.Op.(ops.Literal); ok && lit.Data != nil {
			if int64(lit.Data.Size())*int64(lit.Data.DType().Size()) <= MaxLiteralRecord {
				b, err := graph.EncodeTileable(&graph.TileableGraph{Nodes: []graph.TensorNode{nd}})
				if err != nil {
					return nil, nil, nil, fmt.Errorf("tensor %d: %w", i, err)
				}
				if len(b) <= MaxLiteralRecord {
					kept[i] = b
				}
			}
			lit.Data = nil
			stripped.Nodes[i].Op = lit
			lits = append(lits, i)
		}
	}
	b, err := graph.EncodeTileable(stripped)
	return b, lits, kept, err
}

// RecordedGraph decodes a graph record's tileable graph with the client
// arrays sent inside it put back from their own records (lits, by key).
// Arrays too large to be kept there cannot be, so such a graph cannot be
// rebuilt.
func RecordedGraph(gr GraphRecord, lits map[string][]byte) (*graph.TileableGraph, error) {
	if n := len(gr.StrippedLiterals) - len(gr.RecordedLiterals); n > 0 {
		return nil, fmt.Errorf("it holds %d client arrays of over %d bytes sent inside the graph, which graph records leave out; submit it again (arrays uploaded to the workers survive failover)", n, MaxLiteralRecord)
	}
	doc := gr.Tileable
	if len(gr.RecordedLiterals) > 0 {
		// Splice each literal's op into the JSON: a literal without its
		// data does not decode.
		var g struct {
			Version int                          `json:"version"`
			Nodes   []map[string]json.RawMessage `json:"nodes"`
		}
		if err := json.Unmarshal(gr.Tileable, &g); err != nil {
			return nil, fmt.Errorf("decoding its record: %w", err)
		}
		for _, i := range gr.RecordedLiterals {
			key := LiteralKey(gr.Session, gr.Graph, i)
			b, ok := lits[key]
			if !ok {
				return nil, fmt.Errorf("the client array of tensor %d is missing from etcd (%s)", i, key)
			}
			var lg struct {
				Nodes []map[string]json.RawMessage `json:"nodes"`
			}
			if err := json.Unmarshal(b, &lg); err != nil || len(lg.Nodes) != 1 || i < 0 || i >= len(g.Nodes) {
				return nil, fmt.Errorf("the client array record %s names no tensor of the graph (%v)", key, err)
			}
			g.Nodes[i]["op"] = lg.Nodes[0]["op"]
			g.Nodes[i]["meta"] = lg.Nodes[0]["meta"]
		}
		var err error
		if doc, err = json.Marshal(g); err != nil {
			return nil, err
		}
	}
	tg, err := graph.DecodeTileable(doc)
	if err != nil {
		return nil, fmt.Errorf("decoding its record: %w", err)
	}
	for _, i := range gr.RecordedLiterals {
		if _, ok := tg.Nodes[i].Op.(ops.Literal); !ok {
			return nil, fmt.Errorf("the client array record of tensor %d holds a %s, not a literal", i, tg.Nodes[i].Op.Type())
		}
	}
	return tg, nil
}

// signal wakes the writer's loop without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
