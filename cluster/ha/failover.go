package ha

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"connectrpc.com/connect"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
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
//
// This file decides when to take over and hand back and does it in etcd;
// what a session and its graphs are in memory is the scheduler process's
// (package cluster), reached through Graphs.

// Graphs is what failover needs of the scheduler's graph service.
type Graphs interface {
	// Serving is nil while the scheduler may take sessions and graphs.
	Serving() error
	// Holds reports whether session sid is held in memory.
	Holds(sid string) bool
	// Inventory fences every live worker with fence and lists what each
	// holds of runs, in this scheduler's numbering of the workers.
	Inventory(ctx context.Context, fence protocol.Fence, runs []protocol.GraphID) (*rpc.Inventory, error)
	// NewSession starts rebuilding session rec under fence, not yet held.
	NewSession(rec SessionRecord, fence protocol.Fence) Adopting
	// Sessions are the sessions held now.
	Sessions() []Held
}

// Adopting is a session being taken over, its graphs added one by one
// from their records (each record already names this scheduler).
type Adopting interface {
	// Ended adds a graph that ended in state, with err its failure.
	Ended(gr GraphRecord, state string, err error)
	// Restart adds a graph recorded but not known to have run: it is
	// prepared again once the session is held.
	Restart(gr GraphRecord, tg *graph.TileableGraph)
	// Adopt recompiles a graph that ran and adopts its run under the
	// recorded id from what the workers hold of it (held), reporting the
	// chunk ops kept and those to run again.
	Adopt(ctx context.Context, gr GraphRecord, tg *graph.TileableGraph, held map[int][]rpc.HeldChunk) (reused, rerun int, err error)
	// Hold makes the session held (its graphs' records rewritten under
	// this scheduler, restarted graphs preparing, adopted ones followed)
	// and returns how many graphs it has; an error if it is held already.
	Hold() (int, error)
}

// Held is a session the scheduler holds, as handing back sees it.
type Held interface {
	ID() string
	// Token is its fencing token: above 1 once taken over.
	Token() uint64
	// Detach takes the session out of memory, so no graph starts in it,
	// and reports whether it did: not if it is no longer held, nor if a
	// graph of it is preparing or running (then it stays).
	Detach() bool
	// Keep puts a detached session back.
	Keep()
	// Drop forgets a detached session's graphs and returns how many.
	Drop() int
	// Release releases the runs of a dropped session's graphs.
	Release()
}

// Failover takes over a scheduler's orphaned sessions and hands back
// those the ring moves away.
type Failover struct {
	cli     *clientv3.Client
	members *Members
	self    string
	ttl     time.Duration
	graphs  Graphs
	log     *slog.Logger

	takeover *takeovers
	stop     chan struct{}
	wg       sync.WaitGroup
}

// NewFailover is the failover of scheduler self (its ring id), whose
// lease lives ttl, watching members.
func NewFailover(cli *clientv3.Client, members *Members, self string, ttl time.Duration, graphs Graphs, log *slog.Logger) *Failover {
	return &Failover{cli: cli, members: members, self: self, ttl: ttl, graphs: graphs, log: log,
		takeover: &takeovers{sid: map[string]bool{}}, stop: make(chan struct{})}
}

// Close stops the releases of sessions handed back that still wait for
// their successor's fence (their runs are kept), and waits for them.
func (f *Failover) Close() {
	close(f.stop)
	f.wg.Wait()
}

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

// Watch takes over orphaned sessions at each change of the ring, and
// once per lease TTL besides (a takeover that failed is tried again; a
// change missed while etcd was unreachable is caught up), until ctx ends.
func (f *Failover) Watch(ctx context.Context) {
	for {
		r, _, changed := f.members.Snapshot()
		if r.Has(f.self) && f.graphs.Serving() == nil {
			if err := f.takeOverOrphans(ctx); err != nil && ctx.Err() == nil {
				f.log.Warn("looking for sessions to take over", "err", err)
			}
			f.handBack(ctx)
		}
		t := time.NewTimer(f.ttl)
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

// Orphaned reports whether a session recorded as owned by owner must be
// taken over by this scheduler: the ring maps it here, and its owner is
// out of the ring, or is this scheduler's id without the session held
// (a restart under the same id, faster than the lease).
func (f *Failover) Orphaned(sid, owner string) bool {
	r, _, _ := f.members.Snapshot()
	if r.Owner(sid) != f.self {
		return false
	}
	if owner != f.self {
		return !r.Has(owner)
	}
	return !f.graphs.Holds(sid)
}

// takeOverOrphans lists the sessions in etcd and takes over, one after
// the other, those orphaned here.
func (f *Failover) takeOverOrphans(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	resp, err := f.cli.Get(lctx, SessionsPrefix, clientv3.WithPrefix())
	cancel()
	if err != nil {
		return fmt.Errorf("listing the sessions in etcd: %w", err)
	}
	held := map[string]Held{}
	for _, h := range f.graphs.Sessions() {
		held[h.ID()] = h
	}
	for _, kv := range resp.Kvs {
		var rec SessionRecord
		if err := json.Unmarshal(kv.Value, &rec); err != nil || rec.Session == "" {
			f.log.Warn("a session record that does not decode", "key", string(kv.Key), "err", err)
			continue
		}
		if h, ok := held[rec.Session]; ok && h.Token() < rec.Fence {
			f.loseStale(h, rec)
		}
		if !f.Orphaned(rec.Session, rec.Scheduler) || !f.takeover.start(rec.Session) {
			continue
		}
		err := f.TakeOver(ctx, rec, kv.ModRevision)
		f.takeover.done(rec.Session)
		if errors.Is(err, ErrOwnerAlive) {
			// The ring's watch is behind etcd; its next change makes
			// the session not orphaned here.
			f.log.Info("not taking over a session: its owner is alive", "session", rec.Session, "owner", rec.Scheduler)
			continue
		}
		if err != nil && ctx.Err() == nil {
			f.log.Error("taking over a session failed; it is tried again", "session", rec.Session, "from", rec.Scheduler, "err", err)
		}
	}
	return nil
}

// loseStale takes out of memory a session held here under a token below
// its record's: another scheduler took it over meanwhile (this one was cut
// off from etcd, its lease lapsed, and came back), so every dispatch of
// it here is refused by the workers the successor fenced. Its runs are
// released at once: the successor's token is in etcd, so the workers
// ignore the releases for every graph it fenced. A session with a graph
// preparing or running stays until a later pass (such a graph fails
// soon: its tasks are refused). Once out, the record decides as for any
// session: it is taken over here again if it names this scheduler.
func (f *Failover) loseStale(h Held, rec SessionRecord) {
	if !h.Detach() {
		return
	}
	n := h.Drop()
	f.log.Warn("a session held here was taken over meanwhile; dropping it", "session", rec.Session, "token", h.Token(), "record_token", rec.Fence, "owner", rec.Scheduler, "graphs", n)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		h.Release()
	}()
}

// ErrTakenOver: another scheduler changed the session's record first.
var ErrTakenOver = errors.New("the session's record changed meanwhile (another scheduler took it over)")

// ErrOwnerAlive: the scheduler a session's record names is registered in
// etcd, although this scheduler's ring did not show it yet.
var ErrOwnerAlive = errors.New("its owner is registered in etcd")

// TakeOver makes this scheduler the owner of a session whose owner is
// gone (rec, read at revision rev): it raises the session's token in
// etcd, then adopts its graphs.
func (f *Failover) TakeOver(ctx context.Context, rec SessionRecord, rev int64) error {
	start := time.Now()
	from := rec.Scheduler
	rec.Scheduler = f.self
	rec.Fence++
	val, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	key := SessionsPrefix + rec.Session
	// The ring and the session records come from separate watches, so a
	// session can be seen before its owner's registration; the owner must
	// then still be absent from etcd itself, or a live owner would lose
	// its session. A record naming this scheduler (a restart under the
	// same id, or a session handed back) is ours to take.
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(key), "=", rev)}
	ownerKey := SchedulersPrefix + from
	if from != f.self {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(ownerKey), "=", 0))
	}
	tctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	tr, err := f.cli.Txn(tctx).If(cmps...).Then(clientv3.OpPut(key, string(val))).Else(clientv3.OpGet(ownerKey, clientv3.WithCountOnly())).Commit()
	cancel()
	if err != nil {
		return fmt.Errorf("raising the fencing token of session %s in etcd: %w", rec.Session, err)
	}
	if !tr.Succeeded {
		if from != f.self && len(tr.Responses) == 1 && tr.Responses[0].GetResponseRange().GetCount() > 0 {
			return fmt.Errorf("session %s: %w (%s)", rec.Session, ErrOwnerAlive, from)
		}
		return ErrTakenOver
	}
	fence := protocol.Fence{Scope: rec.Session, Token: rec.Fence}
	gctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	resp, err := f.cli.Get(gctx, GraphsPrefix+rec.Session+"/", clientv3.WithPrefix())
	cancel()
	if err != nil {
		return fmt.Errorf("reading the graphs of session %s: %w", rec.Session, err)
	}
	lctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	lresp, err := f.cli.Get(lctx, LiteralsPrefix+rec.Session+"/", clientv3.WithPrefix())
	cancel()
	if err != nil {
		return fmt.Errorf("reading the client arrays of session %s: %w", rec.Session, err)
	}
	lits := map[string][]byte{}
	for _, kv := range lresp.Kvs {
		lits[string(kv.Key)] = kv.Value
	}
	var recs []GraphRecord
	for _, kv := range resp.Kvs {
		var gr GraphRecord
		if err := json.Unmarshal(kv.Value, &gr); err != nil || gr.Graph == "" {
			f.log.Warn("a graph record that does not decode", "key", string(kv.Key), "err", err)
			continue
		}
		recs = append(recs, gr)
	}
	inv, err := f.gatherInventory(ctx, fence, recs)
	if err != nil {
		return fmt.Errorf("session %s: %w", rec.Session, err)
	}
	ss := f.graphs.NewSession(rec, fence)
	adopted, restarted, reused, rerun := 0, 0, 0, 0
	for _, gr := range recs {
		gr.Scheduler = f.self
		if ended(gr.State) {
			var err error
			if gr.Error != "" {
				err = errors.New(gr.Error)
			}
			ss.Ended(gr, gr.State, err)
			continue
		}
		tg, err := RecordedGraph(gr, lits)
		if err != nil {
			ss.Ended(gr, protocol.GraphFailed, fmt.Errorf("taking over graph %s from scheduler %s: %w", gr.Graph, from, err))
			continue
		}
		if gr.Run == 0 {
			// Recorded, but not known to have run: start it again, as
			// its owner would have (what the old run may have made is
			// under another id, unowned).
			ss.Restart(gr, tg)
			restarted++
			continue
		}
		k, r, err := ss.Adopt(ctx, gr, tg, inv.Held[protocol.GraphID(gr.Run)])
		if err != nil {
			ss.Ended(gr, protocol.GraphFailed, fmt.Errorf("taking over graph %s from scheduler %s: %w", gr.Graph, from, err))
			continue
		}
		reused += k
		rerun += r
		adopted++
	}
	n, err := ss.Hold()
	if err != nil {
		return err
	}
	f.log.Info("session taken over", "session", rec.Session, "from", from, "fence", fence.Token, "graphs", n,
		"adopted", adopted, "restarted", restarted, "ops_kept", reused, "ops_rerun", rerun,
		"unreachable_workers", len(inv.Unreachable), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// ended reports whether a recorded graph ended without success (a graph
// that succeeded is adopted: its results are on the workers).
func ended(state string) bool {
	return protocol.GraphTerminal(state) && state != protocol.GraphSucceeded
}

// gatherInventory fences every live worker with fence and lists what it
// holds of the recorded runs, in this scheduler's numbering of the
// workers (each scheduler of a ring numbers them its own way, so the
// inventory is asked for by this scheduler's members, not read from the
// previous owner's).
func (f *Failover) gatherInventory(ctx context.Context, fence protocol.Fence, recs []GraphRecord) (*rpc.Inventory, error) {
	var ids []protocol.GraphID
	for _, gr := range recs {
		if gr.Run != 0 && !ended(gr.State) {
			ids = append(ids, protocol.GraphID(gr.Run))
		}
	}
	if len(ids) == 0 {
		return &rpc.Inventory{}, nil
	}
	if len(ids) > rpc.MaxListGraphs {
		return nil, fmt.Errorf("%d graphs to take over, more than %d", len(ids), rpc.MaxListGraphs)
	}
	inv, err := f.graphs.Inventory(ctx, fence, ids)
	if err != nil {
		return nil, err
	}
	for w, err := range inv.Unreachable {
		f.log.Warn("a worker did not answer the inventory; what it holds is computed again", "worker", w, "err", err)
	}
	return inv, nil
}

// Missing is the answer about a session this scheduler does not hold: a
// session whose owner is gone and which is being (or is about to be)
// taken over is Unavailable, so clients retry rather than give up; nil
// for any other (not found: the web service asks the next scheduler).
func (f *Failover) Missing(ctx context.Context, sid string) error {
	if f.takeover.has(sid) {
		return connect.NewError(connect.CodeUnavailable, fmt.Errorf("session %q is being taken over by scheduler %s; try again shortly", sid, f.self))
	}
	gctx, cancel := context.WithTimeout(ctx, time.Second)
	resp, err := f.cli.Get(gctx, SessionsPrefix+sid)
	cancel()
	if err != nil || len(resp.Kvs) == 0 {
		return nil
	}
	var rec SessionRecord
	if json.Unmarshal(resp.Kvs[0].Value, &rec) != nil {
		return nil
	}
	r, _, _ := f.members.Snapshot()
	if rec.Scheduler == f.self || !r.Has(rec.Scheduler) {
		return connect.NewError(connect.CodeUnavailable, fmt.Errorf("session %q: its scheduler %s is gone and scheduler %s takes it over; try again shortly", sid, rec.Scheduler, r.Owner(sid)))
	}
	return nil
}

// handBack gives back, one by one, the idle sessions this scheduler took
// over that the ring now maps to another live scheduler (the one that
// died, restarted under its id): the ring's share moves back without
// moving work in flight. A session with a graph preparing or running
// stays; the next change of the ring, or the next TTL, tries again.
func (f *Failover) handBack(ctx context.Context) {
	r, _, _ := f.members.Snapshot()
	type cand struct {
		ss Held
		to string
	}
	var cands []cand
	for _, ss := range f.graphs.Sessions() {
		// Only sessions that were taken over (token above 1) move: a
		// session stays with the scheduler that made it otherwise.
		if to := r.Owner(ss.ID()); ss.Token() > 1 && to != f.self && r.Has(to) {
			cands = append(cands, cand{ss, to})
		}
	}
	for _, c := range cands {
		if err := f.handOver(ctx, c.ss, c.to); err != nil && ctx.Err() == nil {
			f.log.Warn("handing a session back", "session", c.ss.ID(), "to", c.to, "err", err)
		}
	}
}

// handOver names scheduler to as the session's owner in its record, for
// it to take the session over as from a dead owner (a higher token, the
// workers' inventory, Adopt). The session leaves this scheduler's memory
// first, so no graph starts here meanwhile (requests naming it are a
// pause), and returns if it has a graph in progress or the record
// changed. Its runs are released only once the successor's token is in
// etcd: the releases carry the old token, so workers ignore them for
// every graph the successor fenced.
func (f *Failover) handOver(ctx context.Context, ss Held, to string) error {
	if !ss.Detach() {
		return nil
	}
	keep := func(err error) error {
		ss.Keep()
		return err
	}
	sid, token := ss.ID(), ss.Token()
	key := SessionsPrefix + sid
	gctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	defer cancel()
	resp, err := f.cli.Get(gctx, key)
	if err != nil {
		return keep(fmt.Errorf("reading the session's record: %w", err))
	}
	if len(resp.Kvs) == 0 {
		return keep(errors.New("the session has no record"))
	}
	var rec SessionRecord
	if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil {
		return keep(fmt.Errorf("the session's record: %w", err))
	}
	if rec.Scheduler != f.self || rec.Fence != token {
		return keep(fmt.Errorf("the session's record names %s under token %d, not this scheduler under %d", rec.Scheduler, rec.Fence, token))
	}
	rec.Scheduler = to
	val, err := json.Marshal(rec)
	if err != nil {
		return keep(err)
	}
	tr, err := f.cli.Txn(gctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", resp.Kvs[0].ModRevision)).Then(clientv3.OpPut(key, string(val))).Commit()
	if err != nil {
		return keep(fmt.Errorf("naming %s in the session's record: %w", to, err))
	}
	if !tr.Succeeded {
		return keep(ErrTakenOver)
	}
	n := ss.Drop()
	f.log.Info("session handed back", "session", sid, "to", to, "graphs", n, "fence", token)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.releaseWhenFenced(sid, token, ss.Release)
	}()
	return nil
}

// releaseWhenFenced releases the runs of a session handed over once its
// record holds a higher token than token (its successor fenced the
// workers first), or keeps them if that does not come before Close: a
// release before the successor's fence could free what it adopts.
func (f *Failover) releaseWhenFenced(sid string, token uint64, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-f.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	key := SessionsPrefix + sid
	for ctx.Err() == nil {
		gctx, gcancel := context.WithTimeout(ctx, RecordTimeout)
		resp, err := f.cli.Get(gctx, key)
		gcancel()
		if err == nil {
			var rec SessionRecord
			if len(resp.Kvs) == 0 || (json.Unmarshal(resp.Kvs[0].Value, &rec) == nil && rec.Fence > token) {
				// Fenced by the successor, or the session was closed.
				release()
				return
			}
		}
		// Until the record changes, or a TTL (a watch that ends at once,
		// etcd without a leader, waits the TTL out).
		wctx, wcancel := context.WithTimeout(ctx, f.ttl)
		if _, ok := <-f.cli.Watch(clientv3.WithRequireLeader(wctx), key); !ok {
			<-wctx.Done()
		}
		wcancel()
	}
}
