package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/execution"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/scheduler"
)

// Graph states as the REST API reports them.
// (protocol's, kept here under the names callers of cluster use).
const (
	StatePreparing  = protocol.GraphPreparing
	StateRunning    = protocol.GraphRunning
	StateSucceeded  = protocol.GraphSucceeded
	StateFailed     = protocol.GraphFailed
	StateCancelling = protocol.GraphCancelling
	StateCancelled  = protocol.GraphCancelled
)

// maxWait bounds a long-poll, so a client's wait_timeout cannot pin a
// request forever.
const maxWait = 60 * time.Second

type session struct {
	id       string
	graphs   map[string]*graphRec
	finished []*graphRec // ended graphs still held, oldest first (under p.mu)
	nextID   int
	created  time.Time
	lastUsed time.Time // last request naming the session (under p.mu)
	// fence is the session's ownership on a ring (the zero Fence alone):
	// every run of its graphs carries it, so workers refuse a previous
	// owner's dispatches once a successor raised it (ha.Failover).
	fence protocol.Fence
}

// DefaultMaxFinishedGraphs is SchedulerConfig.MaxFinishedGraphs' default.
const DefaultMaxFinishedGraphs = 1000

// expireSessions closes, every tenth of idle, the sessions that have had no
// request for longer than idle and have no graph in progress, as DELETE
// would: their results are freed.
func (p *SchedulerProc) expireSessions(idle time.Duration) {
	defer p.wg.Done()
	tick := time.NewTicker(max(idle/10, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-tick.C:
			for _, ss := range p.idleSessions(now, idle) {
				p.log.Info("session expired", "session", ss.id, "idle", now.Sub(ss.lastUsed).Round(time.Second), "graphs", len(ss.graphs))
				for _, g := range ss.graphs {
					p.cancelGraph(g)
				}
				p.dropUploads(ss.id)
				p.dropSessionRecord(ss.id)
			}
		}
	}
}

// idleSessions removes and returns the sessions idle at now. Graph states
// are read without p.mu held (GetResult takes g.mu, then p.mu); a session
// that saw a request meanwhile keeps a newer lastUsed and stays.
func (p *SchedulerProc) idleSessions(now time.Time, idle time.Duration) []*session {
	type cand struct {
		ss     *session
		seen   time.Time
		graphs []*graphRec
	}
	var cands []cand
	p.mu.Lock()
	for _, ss := range p.mu.sessions {
		if now.Sub(ss.lastUsed) > idle {
			c := cand{ss: ss, seen: ss.lastUsed}
			for _, g := range ss.graphs {
				c.graphs = append(c.graphs, g)
			}
			cands = append(cands, c)
		}
	}
	p.mu.Unlock()
	var out []*session
	for _, c := range cands {
		if busy(c.graphs) {
			continue
		}
		p.mu.Lock()
		if cur, ok := p.mu.sessions[c.ss.id]; ok && cur == c.ss && c.ss.lastUsed.Equal(c.seen) {
			delete(p.mu.sessions, c.ss.id)
			p.mu.graphs -= len(c.ss.graphs)
			out = append(out, c.ss)
		}
		p.mu.Unlock()
	}
	return out
}

// busy reports whether one of the graphs is still preparing or running.
func busy(graphs []*graphRec) bool {
	for _, g := range graphs {
		g.mu.Lock()
		t := terminal(g.state)
		g.mu.Unlock()
		if !t {
			return true
		}
	}
	return false
}

// graphRec is one submitted graph: compiled off the event loop, then a Run.
type graphRec struct {
	id, sid string
	done    chan struct{} // closed once the state is terminal

	mu          sync.Mutex
	state       string
	err         error
	cancel      context.CancelFunc // stops preparation
	userCancel  bool
	run         *scheduler.Run
	results     []*ops.Tiled
	chunkOps    int
	submitted   time.Time
	prepareTime time.Duration
	runStart    time.Time
	runTime     time.Duration
	released    bool
	deleted     bool // DELETE came while it ran: the record goes when it ends
	// Kept from the run when it ends, so a graph that did not succeed
	// holds no run (and no chunk graph) while its record stays.
	progress   map[string]int64
	moved      int64
	recomputed int64
	// for the dashboard (scheduler_dashboard.go): the tensor ops as submitted, the
	// run's id, and what the run showed when it was dropped
	tile     *pb.Dag
	runID    protocol.GraphID
	types    []*pb.TypeCount
	chunkDag *pb.Dag
	skelMu   sync.Mutex      // guards skel, apart from mu: building it takes long
	skel     *pb.Dag         // the shape of the chunk DAG's summary, once made
	record   *ha.GraphRecord // what etcd holds of it (nil alone, or once deleted)
	fence    protocol.Fence  // its session's, when it was submitted or adopted
	// recMu orders the writes of the record, so a state written late
	// cannot bring back a record deleted meanwhile.
	recMu sync.Mutex
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func terminal(state string) bool { return protocol.GraphTerminal(state) }

// graphService serves sessions and graphs to the web role.
type graphService struct{ p *SchedulerProc }

func (s *graphService) CreateSession(ctx context.Context, req *connect.Request[pb.CreateSessionRequest]) (*connect.Response[pb.CreateSessionResponse], error) {
	p := s.p
	if err := p.serving(); err != nil {
		return nil, err
	}
	now := time.Now()
	ss := &session{id: p.newSessionID(), graphs: make(map[string]*graphRec), created: now, lastUsed: now}
	if p.ring != nil {
		ss.fence = protocol.Fence{Scope: ss.id, Token: 1}
	}
	if err := p.recordSession(ctx, ss); err != nil {
		return nil, connect.NewError(connect.CodeUnavailable, fmt.Errorf("the session could not be recorded: %w", err))
	}
	p.mu.Lock()
	p.mu.sessions[ss.id] = ss
	p.mu.Unlock()
	return connect.NewResponse(&pb.CreateSessionResponse{SessionId: ss.id}), nil
}

func (s *graphService) DeleteSession(ctx context.Context, req *connect.Request[pb.DeleteSessionRequest]) (*connect.Response[pb.DeleteSessionResponse], error) {
	p := s.p
	p.mu.Lock()
	ss, ok := p.mu.sessions[req.Msg.SessionId]
	if ok {
		delete(p.mu.sessions, ss.id)
		p.mu.graphs -= len(ss.graphs)
	}
	p.mu.Unlock()
	if !ok {
		return nil, p.missingSession(ctx, req.Msg.SessionId)
	}
	for _, g := range ss.graphs {
		p.cancelGraph(g)
	}
	p.dropUploads(ss.id)
	p.dropSessionRecord(ss.id)
	return connect.NewResponse(&pb.DeleteSessionResponse{}), nil
}

func (s *graphService) GetSession(ctx context.Context, req *connect.Request[pb.GetSessionRequest]) (*connect.Response[pb.GetSessionResponse], error) {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	ss, ok := p.mu.sessions[req.Msg.SessionId]
	if !ok {
		p.mu.Unlock()
		err := p.missingSession(ctx, req.Msg.SessionId)
		p.mu.Lock() // for the deferred Unlock
		return nil, err
	}
	ss.lastUsed = time.Now()
	return connect.NewResponse(&pb.GetSessionResponse{SessionId: ss.id, Graphs: int32(len(ss.graphs))}), nil
}

// dropUploads asks every worker to remove the session's uploads, in the
// background: a worker that does not hear it removes them when it stops.
func (p *SchedulerProc) dropUploads(sid string) {
	p.mu.Lock()
	urls := make([]string, 0, len(p.mu.members))
	for _, m := range p.mu.members {
		if m.dead == nil {
			urls = append(urls, m.url)
		}
	}
	p.mu.Unlock()
	for _, u := range urls {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u+"/uploads/"+sid, nil)
			if err != nil {
				return
			}
			resp, err := p.http.Do(req)
			if err != nil {
				p.log.Debug("removing a session's uploads", "session", sid, "worker", u, "err", err)
				return
			}
			resp.Body.Close()
		}()
	}
}

func errNoSession(sid string) error {
	return connect.NewError(connect.CodeNotFound, fmt.Errorf("no session %q", sid))
}

func (p *SchedulerProc) lookup(ctx context.Context, sid, gid string) (*graphRec, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ss, ok := p.mu.sessions[sid]
	if !ok {
		p.mu.Unlock()
		err := p.missingSession(ctx, sid)
		p.mu.Lock() // for the deferred Unlock
		return nil, err
	}
	ss.lastUsed = time.Now()
	g, ok := ss.graphs[gid]
	if !ok {
		// Ids are handed out in order: one already given is a graph
		// that was deleted.
		if n, err := strconv.Atoi(strings.TrimPrefix(gid, "g")); err == nil && strings.HasPrefix(gid, "g") && n >= 1 && n <= ss.nextID {
			return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("graph %q of session %q was deleted and its results released (by DELETE, or as the oldest of more than %d finished graphs)", gid, sid, p.cfg.MaxFinishedGraphs))
		}
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no graph %q in session %q", gid, sid))
	}
	return g, nil
}

func (s *graphService) SubmitGraph(ctx context.Context, req *connect.Request[pb.SubmitGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	p := s.p
	m := req.Msg
	p.mu.Lock()
	_, ok := p.mu.sessions[m.SessionId]
	p.mu.Unlock()
	if !ok {
		return nil, p.missingSession(ctx, m.SessionId)
	}
	if err := p.serving(); err != nil {
		return nil, err
	}
	tg, err := rpc.DecodeSubmitted(ctx, m.Graph)
	if err == nil {
		err = CheckChunkCounts(tg)
	}
	if err == nil {
		err = checkUploads(tg, m.SessionId)
	}
	if err == nil {
		err = p.resolveHeld(ctx, tg, m.SessionId)
	}
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	if len(m.Results) == 0 {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("no results: name at least one tensor of the graph to compute"))
	}
	results := make([]int, len(m.Results))
	for i, r := range m.Results {
		if r < 0 || int(r) >= len(tg.Nodes) {
			return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("result %d is tensor %d, which is not in the graph (it has %d tensors)", i, r, len(tg.Nodes)))
		}
		results[i] = int(r)
	}
	if p.liveWorkers() == 0 {
		return nil, connect.NewError(connect.CodeUnavailable, errors.New("no live workers: start one with `phobos worker --scheduler "+p.URL()+"`"))
	}
	pctx, cancel := context.WithCancel(context.Background())
	g := &graphRec{sid: m.SessionId, state: StatePreparing, cancel: cancel, submitted: time.Now(), done: make(chan struct{}), tile: dashboard.TileableDag(tg)}
	p.mu.Lock()
	ss, ok := p.mu.sessions[m.SessionId]
	if !ok {
		p.mu.Unlock()
		cancel()
		return nil, errNoSession(m.SessionId)
	}
	ss.nextID++
	ss.lastUsed = time.Now()
	g.id = fmt.Sprintf("g%d", ss.nextID)
	g.fence = ss.fence
	ss.graphs[g.id] = g
	p.mu.graphs++
	p.mu.Unlock()
	// A ring's graph is in etcd before it is acknowledged: failover
	// finds every graph a client was told about.
	if err := p.recordGraph(ctx, g, tg, results, m.NoFuse); err != nil {
		cancel()
		p.forget(g)
		return nil, connect.NewError(connect.CodeUnavailable, fmt.Errorf("the graph could not be recorded, so it was not started: %w", err))
	}
	if smallGraph(tg) {
		// Compiled here, on the caller's goroutine and while its graph is
		// still in the caches: a preparer woken for it would cost more.
		// Only the run's end is waited for on a preparer.
		if run := p.start(pctx, g, tg, results, !m.NoFuse); run != nil {
			p.prep.run(func() {
				defer p.runs.remove(run.ID())
				p.follow(g, run)
			})
		}
	} else {
		p.prep.run(func() { p.prepare(pctx, g, tg, results, !m.NoFuse) })
	}
	return connect.NewResponse(g.status()), nil
}

// Graphs whose sources make at most smallSourceChunks chunks, in at most
// smallTensors tensors, are compiled in the call that submits them.
const (
	smallSourceChunks = 16
	smallTensors      = 32
)

// smallGraph reports whether tg is compiled in the call that submits it:
// its compile takes about as long as handing it to a preparer. A source
// whose chunks its chunk spec does not count (client data, a kept result)
// may make any number of them: such a graph goes to a preparer.
func smallGraph(tg *graph.TileableGraph) bool {
	if len(tg.Nodes) > smallTensors {
		return false
	}
	chunks := 0.0
	for _, nd := range tg.Nodes {
		spec, ok := ops.ChunkSpecOf(nd.Op)
		switch {
		case ok:
			if chunks += spec.Count(nd.Meta); chunks > smallSourceChunks {
				return false
			}
		case len(nd.Inputs) == 0:
			return false
		}
	}
	return true
}

// prepare compiles and submits a graph, then follows its run to the end.
func (p *SchedulerProc) prepare(ctx context.Context, g *graphRec, tg *graph.TileableGraph, results []int, fuse bool) {
	if run := p.start(ctx, g, tg, results, fuse); run != nil {
		defer p.runs.remove(run.ID())
		p.follow(g, run)
	}
}

// start compiles and submits a graph: its run, or nil when it failed or
// was cancelled meanwhile (its record then says so). The caller follows
// the run and removes it from p.runs at its end.
func (p *SchedulerProc) start(ctx context.Context, g *graphRec, tg *graph.TileableGraph, results []int, fuse bool) *scheduler.Run {
	ex, err := p.compile(ctx, tg, results, fuse)
	var run *scheduler.Run
	if err == nil && ctx.Err() == nil {
		if err = ex.Submit(ctx, p.sched, g.fence); err == nil {
			run = ex.Run
		}
	}
	g.mu.Lock()
	if g.userCancel || ctx.Err() != nil {
		// Cancelled while preparing: the graph is already CANCELLED;
		// its record goes once the run it may have made is released.
		g.mu.Unlock()
		if run != nil {
			run.Cancel()
			run.Release()
		}
		p.forget(g)
		p.log.Info("graph cancelled", "session", g.sid, "graph", g.id, "phase", "prepare")
		p.stats.GraphEnded(StateCancelled, 0, 0)
		return nil
	}
	g.prepareTime = time.Since(g.submitted)
	if err != nil {
		g.state, g.err = StateFailed, err
		close(g.done)
		g.mu.Unlock()
		p.log.Error("graph failed", "session", g.sid, "graph", g.id, "phase", "prepare", "err", err)
		p.stats.GraphEnded(StateFailed, g.prepareTime, 0)
		p.recordState(g)
		return nil
	}
	g.run, g.results, g.chunkOps, g.runID = run, ex.Results, ex.Graph.Len(), run.ID()
	g.state, g.runStart = StateRunning, time.Now()
	g.mu.Unlock()
	p.runs.add(run.ID(), g)
	p.log.Info("graph running", "session", g.sid, "graph", g.id, "run", uint64(run.ID()), "chunk_ops", ex.Graph.Len(), "prepare_ms", g.prepareTime.Milliseconds())
	p.recordState(g)
	return run
}

// follow waits for a graph's run to end and files its end state.
func (p *SchedulerProc) follow(g *graphRec, run *scheduler.Run) {
	err := execution.Follow(context.Background(), run, 0, nil)
	g.mu.Lock()
	g.runTime = time.Since(g.runStart)
	switch {
	case g.userCancel:
		g.state = StateCancelled
	case err != nil:
		g.state, g.err = StateFailed, err
	default:
		g.state = StateSucceeded
	}
	if g.state != StateSucceeded {
		// Nothing to fetch: free the run now (a cancel that raced
		// success must not leave it in the scheduler) and keep only
		// what the status shows.
		g.snapshotLocked(true)
		run.Release()
	}
	state, prep, took, gerr := g.state, g.prepareTime, g.runTime, g.err
	close(g.done)
	g.mu.Unlock()
	p.logEnd(g, run, state, took, gerr)
	p.stats.GraphEnded(state, prep, took)
	p.recordState(g)
	p.ended(g)
}

// logEnd logs a run's end once: a failure with its root cause (the run's
// error is the first op that failed for good, not its successors, which
// are cancelled), naming the op.
func (p *SchedulerProc) logEnd(g *graphRec, run *scheduler.Run, state string, took time.Duration, err error) {
	attrs := []any{"session", g.sid, "graph", g.id, "run", uint64(run.ID()), "run_ms", took.Milliseconds()}
	if state != StateFailed {
		p.log.Info("graph "+strings.ToLower(state), attrs...)
		return
	}
	var oe *scheduler.OpError
	if errors.As(err, &oe) {
		attrs = append(attrs, "op", oe.Node, "op_type", oe.Op, "attempts", oe.Attempts)
	}
	p.log.Error("graph failed", append(attrs, "err", err)...)
}

// snapshotLocked keeps the run's figures in the record and drops the run;
// withDag keeps its chunk DAG for the dashboard too (a round trip to the
// scheduler's loop for a small graph's states: not when releasing, which
// must be quick).
func (g *graphRec) snapshotLocked(withDag bool) {
	if g.run == nil {
		return
	}
	g.progress = map[string]int64{}
	for state, n := range g.run.Counts() {
		g.progress[state.String()] = n
	}
	g.moved, g.recomputed = g.run.MovedBytes(), g.run.Recomputed()
	g.types = dashboard.TypeCounts(g.run)
	if withDag {
		g.chunkDag = dashboard.ChunkDag(g.run, nil)
	}
	g.run = nil
}

// ended files a graph that reached a terminal state: a graph deleted while
// it ran goes now; the others join their session's finished graphs, of
// which at most MaxFinishedGraphs are kept, the oldest released first.
func (p *SchedulerProc) ended(g *graphRec) {
	g.mu.Lock()
	deleted := g.deleted
	g.mu.Unlock()
	if deleted {
		p.forget(g)
		return
	}
	var evict []*graphRec
	p.mu.Lock()
	if ss := p.mu.sessions[g.sid]; ss != nil && ss.graphs[g.id] == g {
		ss.finished = append(ss.finished, g)
		for len(ss.finished) > p.cfg.MaxFinishedGraphs {
			old := ss.finished[0]
			ss.finished = ss.finished[1:]
			if ss.graphs[old.id] == old {
				delete(ss.graphs, old.id)
				p.mu.graphs--
				evict = append(evict, old)
			}
		}
	}
	p.mu.Unlock()
	for _, old := range evict {
		p.log.Info("finished graph released: the session holds too many", "session", old.sid, "graph", old.id, "max", p.cfg.MaxFinishedGraphs)
		old.release()
		p.dropGraphRecord(old)
	}
}

// forget removes a graph's record from its session.
func (p *SchedulerProc) forget(g *graphRec) {
	p.mu.Lock()
	if ss := p.mu.sessions[g.sid]; ss != nil && ss.graphs[g.id] == g { // else its session went first
		delete(ss.graphs, g.id)
		p.mu.graphs--
		if i := slices.Index(ss.finished, g); i >= 0 {
			ss.finished = slices.Delete(ss.finished, i, i+1)
		}
	}
	p.mu.Unlock()
	p.dropGraphRecord(g)
}

// release frees an ended graph's results.
func (g *graphRec) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == StateSucceeded && !g.released {
		g.released = true
		run := g.run
		g.snapshotLocked(false)
		if run != nil {
			run.Release()
		}
	}
}

// preEncode wraps every chunk op with its wire encoding, spread over the
// cores, so sending tasks later costs no encoding on the scheduler's loop.
func preEncode(ctx context.Context, cg *graph.ChunkGraph) error {
	n := len(cg.Nodes)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/512))
	if workers == 1 {
		// A small graph is encoded here: a goroutine to hand it to and
		// wait for costs more than its few ops.
		return preEncodeRange(ctx, cg, 0, n)
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = preEncodeRange(ctx, cg, w*n/workers, (w+1)*n/workers)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// preEncodeRange is preEncode of the chunk ops from..to-1.
func preEncodeRange(ctx context.Context, cg *graph.ChunkGraph, from, to int) error {
	var prev ops.ChunkOp
	var prevEnc rpc.PreEncoded
	for i := from; i < to; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		op := cg.Nodes[i].Op
		// Neighbouring chunk ops are often equal (the same kernel on
		// every chunk): reuse the encoding when they are.
		if prev != nil && sameOp(prev, op) {
			cg.Nodes[i].Op = rpc.PreEncoded{ChunkOp: op, JSON: prevEnc.JSON}
			continue
		}
		enc, err := rpc.PreEncode(op)
		if err != nil {
			return fmt.Errorf("chunk op %d (%s): %w", i, op.Type(), err)
		}
		cg.Nodes[i].Op = enc
		prev, prevEnc = op, enc
	}
	return nil
}

// sameOp reports whether two chunk ops are equal in every parameter.
func sameOp(a, b ops.ChunkOp) bool { return reflect.DeepEqual(a, b) }

func (g *graphRec) status() *pb.GraphStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := &pb.GraphStatus{
		SessionId: g.sid, GraphId: g.id, State: g.state,
		ChunkOps: int64(g.chunkOps), Released: g.released,
		Progress: map[string]int64{},
	}
	if g.err != nil {
		st.Error = g.err.Error()
	}
	if g.prepareTime > 0 {
		st.PrepareMs = g.prepareTime.Milliseconds()
	} else if !terminal(g.state) {
		st.PrepareMs = time.Since(g.submitted).Milliseconds()
	}
	if g.run != nil {
		for state, n := range g.run.Counts() {
			st.Progress[state.String()] = n
		}
		st.MovedBytes = g.run.MovedBytes()
		st.Recomputed = g.run.Recomputed()
	} else if g.progress != nil {
		maps.Copy(st.Progress, g.progress)
		st.MovedBytes, st.Recomputed = g.moved, g.recomputed
	}
	if !g.runStart.IsZero() {
		if terminal(g.state) {
			st.RunMs = g.runTime.Milliseconds()
		} else {
			st.RunMs = time.Since(g.runStart).Milliseconds()
		}
	}
	for _, t := range g.results {
		ri := &pb.ResultInfo{Dtype: t.Meta.DType.String(), Chunks: int32(len(t.Chunks)), Shape: make([]int64, len(t.Meta.Shape))}
		for i, d := range t.Meta.Shape {
			ri.Shape[i] = int64(d)
		}
		st.Results = append(st.Results, ri)
	}
	return st
}

func (s *graphService) GetGraph(ctx context.Context, req *connect.Request[pb.GetGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	g, err := s.p.lookup(ctx, req.Msg.SessionId, req.Msg.GraphId)
	if err != nil {
		return nil, err
	}
	if wait := time.Duration(req.Msg.WaitTimeoutMs) * time.Millisecond; wait > 0 {
		t := time.NewTimer(min(wait, maxWait))
		select {
		case <-g.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return connect.NewResponse(g.status()), nil
}

func (s *graphService) CancelGraph(ctx context.Context, req *connect.Request[pb.CancelGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	g, err := s.p.lookup(ctx, req.Msg.SessionId, req.Msg.GraphId)
	if err != nil {
		return nil, err
	}
	s.p.cancelGraph(g)
	return connect.NewResponse(g.status()), nil
}

// cancelGraph deletes a graph: in preparation, at once; running, by
// interrupting its ops (it turns CANCELLED when they have stopped, and its
// record goes then); ended, by freeing its results and its record.
func (p *SchedulerProc) cancelGraph(g *graphRec) {
	g.mu.Lock()
	switch g.state {
	case StatePreparing:
		// prepare forgets the record once it has stopped.
		g.userCancel = true
		g.cancel()
		g.state = StateCancelled
		close(g.done)
		g.mu.Unlock()
	case StateRunning, StateCancelling:
		g.userCancel = true
		g.deleted = true
		g.state = StateCancelling
		run := g.run
		g.mu.Unlock()
		run.Cancel()
	default:
		g.mu.Unlock()
		g.release()
		p.forget(g)
	}
}

func (s *graphService) GetResult(ctx context.Context, req *connect.Request[pb.GetResultRequest]) (*connect.Response[pb.ResultLayout], error) {
	p := s.p
	g, err := p.lookup(ctx, req.Msg.SessionId, req.Msg.GraphId)
	if err != nil {
		return nil, err
	}
	if req.Header().Get(rpc.PartialResultHeader) != "" {
		return p.partialResult(g, int(req.Msg.Index))
	}
	g.mu.Lock()
	switch {
	case g.state == StateFailed:
		g.mu.Unlock()
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("graph %s failed: %v", g.id, g.err))
	case g.state != StateSucceeded:
		g.mu.Unlock()
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("graph %s is %s, not SUCCEEDED", g.id, g.state))
	case g.released:
		g.mu.Unlock()
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("the results of graph %s were released", g.id))
	}
	i := int(req.Msg.Index)
	if i < 0 || i >= len(g.results) {
		g.mu.Unlock()
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("graph %s has no result %d (it has %d)", g.id, i, len(g.results)))
	}
	t, run := g.results[i], g.run
	g.mu.Unlock()

	l, err := execution.ResultLayout(run, t)
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("result %d: %w", i, err))
	}
	out := layoutHead(t, l)
	// Chunks whose worker died are recomputed; wait for them, not forever.
	wctx, cancel := context.WithTimeout(ctx, maxWait)
	defer cancel()
	locs, err := run.ResultLocations(wctx, l.Nodes)
	if err != nil {
		return nil, connect.NewError(connect.CodeUnavailable, fmt.Errorf("result %d: %w", i, err))
	}
	for j, node := range l.Nodes {
		w := locs[j]
		url, err := p.memberURL(w)
		if err != nil {
			return nil, connect.NewError(connect.CodeUnavailable, fmt.Errorf("result %d, chunk %d: %w", i, node, err))
		}
		key := resultKey(run, node)
		loc := &pb.ChunkLocation{Graph: uint64(key.Graph), Node: node, Worker: int32(w), Url: url + rpc.ChunkPath(key)}
		for _, d := range l.ChunkShapes[j] {
			loc.Shape = append(loc.Shape, int64(d))
		}
		out.Chunks = append(out.Chunks, loc)
	}
	return connect.NewResponse(out), nil
}

func (s *graphService) Status(ctx context.Context, req *connect.Request[pb.StatusRequest]) (*connect.Response[pb.StatusResponse], error) {
	p := s.p
	live := p.liveWorkers()
	p.mu.Lock()
	defer p.mu.Unlock()
	rs := p.sched.Stats()
	return connect.NewResponse(&pb.StatusResponse{
		LiveWorkers: int32(live), Sessions: int32(len(p.mu.sessions)), Graphs: int32(p.mu.graphs),
		Results: &pb.ResultStats{
			Received: rs.Results, Duplicates: rs.Duplicates, Stale: rs.Stale, FromDead: rs.FromDead,
			Unknown: rs.Unknown, Invalid: rs.Invalid, StalledGraphs: rs.Stalled, FailedOnBugs: rs.Bugs + rs.Panics,
		},
		Scheduler: p.info(),
	}), nil
}

// checkUploads refuses a graph that reads another session's uploads: an
// upload lives as long as its session, and only its session's graphs read
// it.
func checkUploads(tg *graph.TileableGraph, sid string) error {
	for i, nd := range tg.Nodes {
		if up, ok := nd.Op.(ops.Uploaded); ok && up.Session != sid {
			return fmt.Errorf("tensor %d reads upload %s of session %q; this graph is in session %q", i, up.Upload, up.Session, sid)
		}
	}
	return nil
}
