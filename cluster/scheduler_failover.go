package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/scheduler"
)

// failoverGraphs is the scheduler process's graph service as failover
// (ha.Failover: taking sessions over, handing them back) sees it: its
// sessions and graphs in memory, its workers and its scheduler.
type failoverGraphs struct{ p *SchedulerProc }

var _ ha.Graphs = failoverGraphs{}

func (a failoverGraphs) Serving() error { return a.p.serving() }

func (a failoverGraphs) Holds(sid string) bool {
	a.p.mu.Lock()
	defer a.p.mu.Unlock()
	_, held := a.p.mu.sessions[sid]
	return held
}

func (a failoverGraphs) Inventory(ctx context.Context, fence protocol.Fence, ids []protocol.GraphID) (*rpc.Inventory, error) {
	p := a.p
	workers := map[int]phobosv1connect.WorkerServiceClient{}
	p.mu.Lock()
	for _, m := range p.mu.members {
		if m.dead == nil {
			workers[m.id] = m.exec.client
		}
	}
	p.mu.Unlock()
	ictx, cancel := context.WithTimeout(ctx, p.cfg.HeartbeatTimeout)
	defer cancel()
	inv, err := rpc.GatherInventory(ictx, workers, fence, ids)
	if err != nil {
		return nil, fmt.Errorf("fencing and listing the workers: %w", err)
	}
	return inv, nil
}

func (a failoverGraphs) NewSession(rec ha.SessionRecord, fence protocol.Fence) ha.Adopting {
	now := time.Now()
	return &adopting{p: a.p, now: now, ss: &session{id: rec.Session, graphs: map[string]*graphRec{}, created: rec.Created, lastUsed: now, fence: fence}}
}

func (a failoverGraphs) Sessions() []ha.Held {
	p := a.p
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ha.Held, 0, len(p.mu.sessions))
	for _, ss := range p.mu.sessions {
		out = append(out, &heldSession{p: p, ss: ss})
	}
	return out
}

// adopting is a session being taken over (ha.Adopting).
type adopting struct {
	p       *SchedulerProc
	now     time.Time
	ss      *session
	follow  []*graphRec
	runs    []*scheduler.Run
	prepare []func()
}

// add makes the graph of record gr in state, not yet ended.
func (s *adopting) add(gr ha.GraphRecord, state string) *graphRec {
	g := &graphRec{id: gr.Graph, sid: gr.Session, state: state, submitted: gr.Submitted, done: make(chan struct{}), fence: s.ss.fence}
	if n, err := strconv.Atoi(strings.TrimPrefix(gr.Graph, "g")); err == nil {
		s.ss.nextID = max(s.ss.nextID, n)
	}
	g.record = &gr
	s.ss.graphs[g.id] = g
	return g
}

func (s *adopting) Ended(gr ha.GraphRecord, state string, err error) {
	g := s.add(gr, state)
	g.err = err
	close(g.done)
	s.ss.finished = append(s.ss.finished, g)
}

func (s *adopting) Restart(gr ha.GraphRecord, tg *graph.TileableGraph) {
	g := s.add(gr, StatePreparing)
	pctx, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	s.prepare = append(s.prepare, func() { go s.p.prepare(pctx, g, tg, gr.Results, !gr.NoFuse) })
}

func (s *adopting) Adopt(ctx context.Context, gr ha.GraphRecord, tg *graph.TileableGraph, held map[int][]rpc.HeldChunk) (int, int, error) {
	run, st, err := s.p.adoptGraph(ctx, gr, tg, held, s.ss.fence)
	if err != nil {
		return 0, 0, err
	}
	g := s.add(gr, StateRunning)
	g.run, g.results, g.chunkOps = run, st.tiled, run.Graph().Len()
	g.runStart = s.now
	s.follow = append(s.follow, g)
	s.runs = append(s.runs, run)
	return st.reused, st.rerun, nil
}

func (s *adopting) Hold() (int, error) {
	p, ss := s.p, s.ss
	p.mu.Lock()
	if old, ok := p.mu.sessions[ss.id]; ok {
		// Made here meanwhile cannot be (ids are this scheduler's own
		// only when the ring maps them here), but do not drop it.
		p.mu.Unlock()
		for _, r := range s.runs {
			r.Cancel()
			r.Release()
		}
		return 0, fmt.Errorf("session %s is already held here (%d graphs)", old.id, len(old.graphs))
	}
	p.mu.sessions[ss.id] = ss
	p.mu.graphs += len(ss.graphs)
	p.mu.Unlock()
	for _, g := range ss.graphs {
		p.rewriteRecord(g)
	}
	for _, f := range s.prepare {
		f()
	}
	for i, g := range s.follow {
		go p.follow(g, s.runs[i])
	}
	return len(ss.graphs), nil
}

// heldSession is a session held here, as handing back sees it (ha.Held).
type heldSession struct {
	p      *SchedulerProc
	ss     *session
	graphs []*graphRec // once detached
}

func (h *heldSession) ID() string    { return h.ss.id }
func (h *heldSession) Token() uint64 { return h.ss.fence.Token }

func (h *heldSession) Detach() bool {
	p, ss := h.p, h.ss
	p.mu.Lock()
	if p.mu.sessions[ss.id] != ss {
		p.mu.Unlock()
		return false
	}
	delete(p.mu.sessions, ss.id)
	p.mu.Unlock()
	h.graphs = make([]*graphRec, 0, len(ss.graphs))
	for _, g := range ss.graphs {
		h.graphs = append(h.graphs, g)
	}
	if busy(h.graphs) {
		h.Keep()
		return false
	}
	return true
}

func (h *heldSession) Keep() {
	h.p.mu.Lock()
	h.p.mu.sessions[h.ss.id] = h.ss
	h.p.mu.Unlock()
}

func (h *heldSession) Drop() int {
	h.p.mu.Lock()
	h.p.mu.graphs -= len(h.ss.graphs)
	h.p.mu.Unlock()
	return len(h.graphs)
}

func (h *heldSession) Release() {
	for _, g := range h.graphs {
		g.release()
	}
}

// adoption is what adopting one graph kept and made.
type adoption struct {
	tiled         []*ops.Tiled
	reused, rerun int
}

// adoptGraph recompiles a recorded graph (deterministic: the same chunk
// ops under the same indexes) and adopts its run under the recorded id
// from what the workers hold of it.
func (p *SchedulerProc) adoptGraph(ctx context.Context, gr ha.GraphRecord, tg *graph.TileableGraph, held map[int][]rpc.HeldChunk, fence protocol.Fence) (*scheduler.Run, adoption, error) {
	ex, err := p.compile(ctx, tg, gr.Results, !gr.NoFuse)
	if err != nil {
		return nil, adoption{}, fmt.Errorf("recompiling: %w", err)
	}
	inv := scheduler.Inventory{}
	for w, hs := range held {
		for _, h := range hs {
			inv[w] = append(inv[w], scheduler.HeldChunk{Node: h.Key.Node, Nbytes: h.Nbytes})
		}
	}
	rb, err := scheduler.Rebuild(ex.Graph, ex.Nodes, inv)
	if err != nil {
		return nil, adoption{}, err
	}
	run, err := p.sched.Adopt(ctx, scheduler.AdoptRequest{ID: protocol.GraphID(gr.Run), Graph: ex.Graph, Results: ex.Nodes, Inventory: inv, Fence: fence})
	if err != nil {
		return nil, adoption{}, err
	}
	return run, adoption{tiled: ex.Results, reused: rb.Reused, rerun: rb.Rerun}, nil
}

// rewriteRecord writes a taken-over graph's record under its new owner.
func (p *SchedulerProc) rewriteRecord(g *graphRec) {
	g.recMu.Lock()
	defer g.recMu.Unlock()
	g.mu.Lock()
	if g.record == nil {
		g.mu.Unlock()
		return
	}
	rec := *g.record
	g.mu.Unlock()
	_ = p.ring.records.Put(context.Background(), ha.GraphKey(g.sid, g.id), rec, false)
}

// missingSession is the answer about a session this scheduler does not
// hold: on a ring, Unavailable for one being taken over (ha's Missing);
// any other is not found (the web service asks the next scheduler).
func (p *SchedulerProc) missingSession(ctx context.Context, sid string) error {
	if p.ring != nil {
		if err := p.ring.failover.Missing(ctx, sid); err != nil {
			return err
		}
	}
	return errNoSession(sid)
}
