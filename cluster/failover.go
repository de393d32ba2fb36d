package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/scheduler"
)

// Failover on a ring (docs/ARCHITECTURE.md, "Taking over a session"):
// when a scheduler's lease expires the ring maps its sessions to the
// others; each survivor takes over the sessions the ring now gives it
// whose records name an owner that is gone. It raises the session's
// fencing token in etcd (a transaction on the session's record, so two
// adopters never hold the same token), fences the workers and takes
// their inventory of the session's graphs, recompiles each graph from its
// record and adopts it under its old id (scheduler.Adopt): what the
// workers hold stays, the rest runs again. Clients see 503s meanwhile,
// which they retry, then the same session and graph ids on the new owner.

// takeovers are the sessions a scheduler is taking over now.
type takeovers struct {
	mu  sync.Mutex
	sid map[string]bool
}

func (t *takeovers) start(sid string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sid[sid] {
		return false
	}
	t.sid[sid] = true
	return true
}

func (t *takeovers) done(sid string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.sid, sid)
}

func (t *takeovers) has(sid string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sid[sid]
}

// watchOrphans takes over orphaned sessions at each change of the ring,
// and once per lease TTL besides (a takeover that failed is tried again;
// a change missed while etcd was unreachable is caught up).
func (p *SchedulerProc) watchOrphans(ctx context.Context) {
	for {
		r, _, changed := p.ring.members.Snapshot()
		if r.Has(p.ringID()) && p.serving() == nil {
			if err := p.takeOverOrphans(ctx); err != nil && ctx.Err() == nil {
				p.log.Warn("looking for sessions to take over", "err", err)
			}
			p.handBack(ctx)
		}
		t := time.NewTimer(p.cfg.LeaseTTL)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// orphaned reports whether a session recorded as owned by owner must be
// taken over by this scheduler: the ring maps it here, and its owner is
// out of the ring, or is this scheduler's id without the session held
// (a restart under the same id, faster than the lease).
func (p *SchedulerProc) orphaned(sid, owner string) bool {
	r, _, _ := p.ring.members.Snapshot()
	self := p.ringID()
	if r.Owner(sid) != self {
		return false
	}
	if owner != self {
		return !r.Has(owner)
	}
	p.mu.Lock()
	_, held := p.mu.sessions[sid]
	p.mu.Unlock()
	return !held
}

// takeOverOrphans lists the sessions in etcd and takes over, one after
// the other, those orphaned here.
func (p *SchedulerProc) takeOverOrphans(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, ha.RecordTimeout)
	resp, err := p.ring.cli.Get(lctx, ha.SessionsPrefix, clientv3.WithPrefix())
	cancel()
	if err != nil {
		return fmt.Errorf("listing the sessions in etcd: %w", err)
	}
	for _, kv := range resp.Kvs {
		var rec ha.SessionRecord
		if err := json.Unmarshal(kv.Value, &rec); err != nil || rec.Session == "" {
			p.log.Warn("a session record that does not decode", "key", string(kv.Key), "err", err)
			continue
		}
		if !p.orphaned(rec.Session, rec.Scheduler) || !p.ring.takeover.start(rec.Session) {
			continue
		}
		err := p.takeOver(ctx, rec, kv.ModRevision)
		p.ring.takeover.done(rec.Session)
		if errors.Is(err, errOwnerAlive) {
			// The ring's watch is behind etcd; its next change makes
			// the session not orphaned here.
			p.log.Info("not taking over a session: its owner is alive", "session", rec.Session, "owner", rec.Scheduler)
			continue
		}
		if err != nil && ctx.Err() == nil {
			p.log.Error("taking over a session failed; it is tried again", "session", rec.Session, "from", rec.Scheduler, "err", err)
		}
	}
	return nil
}

// errTakenOver: another scheduler changed the session's record first.
var errTakenOver = errors.New("the session's record changed meanwhile (another scheduler took it over)")

// errOwnerAlive: the scheduler a session's record names is registered in
// etcd, although this scheduler's ring did not show it yet.
var errOwnerAlive = errors.New("its owner is registered in etcd")

// takeOver makes this scheduler the owner of a session whose owner is
// gone: it raises the session's token in etcd, then adopts its graphs.
func (p *SchedulerProc) takeOver(ctx context.Context, rec ha.SessionRecord, rev int64) error {
	start := time.Now()
	from := rec.Scheduler
	rec.Scheduler = p.ringID()
	rec.Fence++
	val, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	key := ha.SessionsPrefix + rec.Session
	// The ring and the session records come from separate watches, so a
	// session can be seen before its owner's registration; the owner must
	// then still be absent from etcd itself, or a live owner would lose
	// its session. A record naming this scheduler (a restart under the
	// same id, or a session handed back) is ours to take.
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(key), "=", rev)}
	ownerKey := ha.SchedulersPrefix + from
	if from != p.ringID() {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(ownerKey), "=", 0))
	}
	tctx, cancel := context.WithTimeout(ctx, ha.RecordTimeout)
	tr, err := p.ring.cli.Txn(tctx).If(cmps...).Then(clientv3.OpPut(key, string(val))).Else(clientv3.OpGet(ownerKey, clientv3.WithCountOnly())).Commit()
	cancel()
	if err != nil {
		return fmt.Errorf("raising the fencing token of session %s in etcd: %w", rec.Session, err)
	}
	if !tr.Succeeded {
		if from != p.ringID() && len(tr.Responses) == 1 && tr.Responses[0].GetResponseRange().GetCount() > 0 {
			return fmt.Errorf("session %s: %w (%s)", rec.Session, errOwnerAlive, from)
		}
		return errTakenOver
	}
	fence := protocol.Fence{Scope: rec.Session, Token: rec.Fence}
	gctx, cancel := context.WithTimeout(ctx, ha.RecordTimeout)
	resp, err := p.ring.cli.Get(gctx, ha.GraphsPrefix+rec.Session+"/", clientv3.WithPrefix())
	cancel()
	if err != nil {
		return fmt.Errorf("reading the graphs of session %s: %w", rec.Session, err)
	}
	lctx, cancel := context.WithTimeout(ctx, ha.RecordTimeout)
	lresp, err := p.ring.cli.Get(lctx, ha.LiteralsPrefix+rec.Session+"/", clientv3.WithPrefix())
	cancel()
	if err != nil {
		return fmt.Errorf("reading the client arrays of session %s: %w", rec.Session, err)
	}
	lits := map[string][]byte{}
	for _, kv := range lresp.Kvs {
		lits[string(kv.Key)] = kv.Value
	}
	var recs []ha.GraphRecord
	for _, kv := range resp.Kvs {
		var gr ha.GraphRecord
		if err := json.Unmarshal(kv.Value, &gr); err != nil || gr.Graph == "" {
			p.log.Warn("a graph record that does not decode", "key", string(kv.Key), "err", err)
			continue
		}
		recs = append(recs, gr)
	}
	inv, err := p.gatherInventory(ctx, fence, recs)
	if err != nil {
		return fmt.Errorf("session %s: %w", rec.Session, err)
	}
	now := time.Now()
	ss := &session{id: rec.Session, graphs: map[string]*graphRec{}, created: rec.Created, lastUsed: now, fence: fence}
	var follow []*graphRec
	var runs []*scheduler.Run
	var prepare []func()
	reused, rerun := 0, 0
	for _, gr := range recs {
		g := &graphRec{id: gr.Graph, sid: gr.Session, state: gr.State, submitted: gr.Submitted, done: make(chan struct{}), fence: fence}
		if n, err := strconv.Atoi(strings.TrimPrefix(gr.Graph, "g")); err == nil {
			ss.nextID = max(ss.nextID, n)
		}
		gr.Scheduler = p.ringID()
		g.record = &gr
		ss.graphs[g.id] = g
		if terminal(gr.State) && gr.State != StateSucceeded {
			if gr.Error != "" {
				g.err = errors.New(gr.Error)
			}
			close(g.done)
			ss.finished = append(ss.finished, g)
			continue
		}
		tg, err := ha.RecordedGraph(gr, lits)
		if err != nil {
			g.state, g.err = StateFailed, fmt.Errorf("taking over graph %s from scheduler %s: %w", gr.Graph, from, err)
			close(g.done)
			ss.finished = append(ss.finished, g)
			continue
		}
		if gr.Run == 0 {
			// Recorded, but not known to have run: start it again, as
			// its owner would have (what the old run may have made is
			// under another id, unowned).
			pctx, cancel := context.WithCancel(context.Background())
			g.state, g.cancel = StatePreparing, cancel
			prepare = append(prepare, func() { go p.prepare(pctx, g, tg, gr.Results, !gr.NoFuse) })
			continue
		}
		run, st, err := p.adoptGraph(ctx, gr, tg, inv.Held[protocol.GraphID(gr.Run)], fence)
		if err != nil {
			g.state, g.err = StateFailed, fmt.Errorf("taking over graph %s from scheduler %s: %w", gr.Graph, from, err)
			close(g.done)
			ss.finished = append(ss.finished, g)
			continue
		}
		reused += st.reused
		rerun += st.rerun
		g.run, g.results, g.chunkOps = run, st.tiled, run.Graph().Len()
		g.state, g.runStart = StateRunning, now
		follow = append(follow, g)
		runs = append(runs, run)
	}
	p.mu.Lock()
	if old, ok := p.mu.sessions[ss.id]; ok {
		// Made here meanwhile cannot be (ids are this scheduler's own
		// only when the ring maps them here), but do not drop it.
		p.mu.Unlock()
		for _, r := range runs {
			r.Cancel()
			r.Release()
		}
		return fmt.Errorf("session %s is already held here (%d graphs)", old.id, len(old.graphs))
	}
	p.mu.sessions[ss.id] = ss
	p.mu.graphs += len(ss.graphs)
	p.mu.Unlock()
	for _, g := range ss.graphs {
		p.rewriteRecord(g)
	}
	for _, f := range prepare {
		f()
	}
	for i, g := range follow {
		go p.follow(g, runs[i])
	}
	p.log.Info("session taken over", "session", ss.id, "from", from, "fence", fence.Token, "graphs", len(ss.graphs),
		"adopted", len(follow), "restarted", len(prepare), "ops_kept", reused, "ops_rerun", rerun,
		"unreachable_workers", len(inv.Unreachable), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// gatherInventory fences every live worker with fence and lists what it
// holds of the recorded runs, in this scheduler's numbering of the
// workers (each scheduler of a ring numbers them its own way, so the
// inventory is asked for by this scheduler's members, not read from the
// previous owner's).
func (p *SchedulerProc) gatherInventory(ctx context.Context, fence protocol.Fence, recs []ha.GraphRecord) (*rpc.Inventory, error) {
	var ids []protocol.GraphID
	for _, gr := range recs {
		if gr.Run != 0 && !(terminal(gr.State) && gr.State != StateSucceeded) {
			ids = append(ids, protocol.GraphID(gr.Run))
		}
	}
	if len(ids) == 0 {
		return &rpc.Inventory{}, nil
	}
	if len(ids) > rpc.MaxListGraphs {
		return nil, fmt.Errorf("%d graphs to take over, more than %d", len(ids), rpc.MaxListGraphs)
	}
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
	for w, err := range inv.Unreachable {
		p.log.Warn("a worker did not answer the inventory; what it holds is computed again", "worker", w, "err", err)
	}
	return inv, nil
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
// hold: on a ring, a session whose owner is gone and which is being (or
// is about to be) taken over is Unavailable, so clients retry rather than
// give up; any other is not found (the web service asks the next
// scheduler).
func (p *SchedulerProc) missingSession(ctx context.Context, sid string) error {
	if p.ring == nil {
		return errNoSession(sid)
	}
	if p.ring.takeover.has(sid) {
		return connect.NewError(connect.CodeUnavailable, fmt.Errorf("session %q is being taken over by scheduler %s; try again shortly", sid, p.ringID()))
	}
	gctx, cancel := context.WithTimeout(ctx, time.Second)
	resp, err := p.ring.cli.Get(gctx, ha.SessionsPrefix+sid)
	cancel()
	if err != nil || len(resp.Kvs) == 0 {
		return errNoSession(sid)
	}
	var rec ha.SessionRecord
	if json.Unmarshal(resp.Kvs[0].Value, &rec) != nil {
		return errNoSession(sid)
	}
	r, _, _ := p.ring.members.Snapshot()
	if rec.Scheduler == p.ringID() || !r.Has(rec.Scheduler) {
		return connect.NewError(connect.CodeUnavailable, fmt.Errorf("session %q: its scheduler %s is gone and scheduler %s takes it over; try again shortly", sid, rec.Scheduler, r.Owner(sid)))
	}
	return errNoSession(sid)
}

// handBack gives back, one by one, the idle sessions this scheduler took
// over that the ring now maps to another live scheduler (the one that
// died, restarted under its id): the ring's share moves back without
// moving work in flight. A session with a graph preparing or running
// stays; the next change of the ring, or the next TTL, tries again.
func (p *SchedulerProc) handBack(ctx context.Context) {
	r, _, _ := p.ring.members.Snapshot()
	self := p.ringID()
	type cand struct {
		ss *session
		to string
	}
	var cands []cand
	p.mu.Lock()
	for _, ss := range p.mu.sessions {
		// Only sessions that were taken over (token above 1) move: a
		// session stays with the scheduler that made it otherwise.
		if to := r.Owner(ss.id); ss.fence.Token > 1 && to != self && r.Has(to) {
			cands = append(cands, cand{ss, to})
		}
	}
	p.mu.Unlock()
	for _, c := range cands {
		if err := p.handOver(ctx, c.ss, c.to); err != nil && ctx.Err() == nil {
			p.log.Warn("handing a session back", "session", c.ss.id, "to", c.to, "err", err)
		}
	}
}

// errBusy: the session has a graph in progress, so it stays.
var errBusy = errors.New("the session has a graph in progress")

// handOver names scheduler to as the session's owner in its record, for
// it to take the session over as from a dead owner (a higher token, the
// workers' inventory, Adopt). The session leaves this scheduler's memory
// first, so no graph starts here meanwhile (requests naming it are a
// pause), and returns if it has a graph in progress or the record
// changed. Its runs are released only once the successor's token is in
// etcd: the releases carry the old token, so workers ignore them for
// every graph the successor fenced.
func (p *SchedulerProc) handOver(ctx context.Context, ss *session, to string) error {
	p.mu.Lock()
	if p.mu.sessions[ss.id] != ss {
		p.mu.Unlock()
		return nil
	}
	delete(p.mu.sessions, ss.id)
	p.mu.Unlock()
	graphs := make([]*graphRec, 0, len(ss.graphs))
	for _, g := range ss.graphs {
		graphs = append(graphs, g)
	}
	keep := func(err error) error {
		p.mu.Lock()
		p.mu.sessions[ss.id] = ss
		p.mu.Unlock()
		return err
	}
	if busy(graphs) {
		return keep(nil)
	}
	key := ha.SessionsPrefix + ss.id
	gctx, cancel := context.WithTimeout(ctx, ha.RecordTimeout)
	defer cancel()
	resp, err := p.ring.cli.Get(gctx, key)
	if err != nil {
		return keep(fmt.Errorf("reading the session's record: %w", err))
	}
	if len(resp.Kvs) == 0 {
		return keep(errors.New("the session has no record"))
	}
	var rec ha.SessionRecord
	if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil {
		return keep(fmt.Errorf("the session's record: %w", err))
	}
	if rec.Scheduler != p.ringID() || rec.Fence != ss.fence.Token {
		return keep(fmt.Errorf("the session's record names %s under token %d, not this scheduler under %d", rec.Scheduler, rec.Fence, ss.fence.Token))
	}
	rec.Scheduler = to
	val, err := json.Marshal(rec)
	if err != nil {
		return keep(err)
	}
	tr, err := p.ring.cli.Txn(gctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", resp.Kvs[0].ModRevision)).Then(clientv3.OpPut(key, string(val))).Commit()
	if err != nil {
		return keep(fmt.Errorf("naming %s in the session's record: %w", to, err))
	}
	if !tr.Succeeded {
		return keep(errTakenOver)
	}
	p.mu.Lock()
	p.mu.graphs -= len(ss.graphs)
	p.mu.Unlock()
	p.log.Info("session handed back", "session", ss.id, "to", to, "graphs", len(graphs), "fence", ss.fence.Token)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.releaseWhenFenced(ss, graphs)
	}()
	return nil
}

// releaseWhenFenced releases the runs of a session handed over once its
// record holds a higher token (its successor fenced the workers first),
// or keeps them if that does not come while this scheduler runs: a
// release before the successor's fence could free what it adopts.
func (p *SchedulerProc) releaseWhenFenced(ss *session, graphs []*graphRec) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	key := ha.SessionsPrefix + ss.id
	for ctx.Err() == nil {
		gctx, gcancel := context.WithTimeout(ctx, ha.RecordTimeout)
		resp, err := p.ring.cli.Get(gctx, key)
		gcancel()
		if err == nil {
			var rec ha.SessionRecord
			if len(resp.Kvs) == 0 || (json.Unmarshal(resp.Kvs[0].Value, &rec) == nil && rec.Fence > ss.fence.Token) {
				// Fenced by the successor, or the session was closed.
				for _, g := range graphs {
					g.release()
				}
				return
			}
		}
		// Until the record changes, or a TTL (a watch that ends at once,
		// etcd without a leader, waits the TTL out).
		wctx, wcancel := context.WithTimeout(ctx, p.cfg.LeaseTTL)
		if _, ok := <-p.ring.cli.Watch(clientv3.WithRequireLeader(wctx), key); !ok {
			<-wctx.Done()
		}
		wcancel()
	}
}
