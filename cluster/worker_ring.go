package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"connectrpc.com/connect"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// workerRing is a worker serving a ring of schedulers: one worker.Worker
// (one store, one memory budget, one set of slots) registered with every
// scheduler. Each scheduler numbers its workers its own way, so the tasks
// of each are read in that numbering: an input on this worker becomes
// local, an input on a peer becomes a handle naming (scheduler, worker)
// that peer reads resolve through that scheduler's member list. Results
// go back to the scheduler that dispatched their graph.
type workerRing struct {
	p       *WorkerProc
	cli     *clientv3.Client
	members *ha.Members
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu      sync.Mutex
	links   map[string]*schedLink // by scheduler id
	graphs  map[protocol.GraphID]*schedLink
	order   []protocol.GraphID // graphs in the order first seen, to bound the map
	handles map[peerRef]int
	refs    []peerRef // refs[h-handleBase] is handle h
}

// schedLink is the worker's registration with one scheduler.
type schedLink struct {
	sid    string // the scheduler's ring id
	url    string
	client phobosv1connect.SchedulerServiceClient
	wid    int // this worker's id at that scheduler
	beat   time.Duration
	rep    *resultBatcher
	peers  *httpPeers // peers in that scheduler's numbering
	stop   chan struct{}
	once   sync.Once
}

// peerRef is a peer worker as one scheduler numbers it.
type peerRef struct {
	link *schedLink
	wid  int
}

// handleBase starts the handles of peers, above any worker id a scheduler
// gives (ids count registrations), so a handle is never this worker's own.
const handleBase = 1 << 24

// maxRoutedGraphs bounds the graphs whose scheduler the worker remembers;
// the oldest are forgotten first (a graph that old has long ended).
const maxRoutedGraphs = 1 << 16

// joinRing watches the schedulers in etcd and registers with each of them;
// it returns once it is registered with at least one (within ctx).
func (p *WorkerProc) joinRing(ctx context.Context) (*workerRing, error) {
	cli, err := ha.DialEtcd(p.cfg.Etcd, p.cfg.TLS)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	r := &workerRing{
		p: p, cli: cli, members: ha.NewMembers(), ctx: wctx, cancel: cancel,
		links: map[string]*schedLink{}, graphs: map[protocol.GraphID]*schedLink{}, handles: map[peerRef]int{},
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.members.Watch(wctx, cli, p.log)
	}()
	fail := func(err error) (*workerRing, error) {
		cancel()
		r.wg.Wait()
		_ = cli.Close()
		return nil, err
	}
	for {
		_, by, changed := r.members.Snapshot()
		var errs []error
		for _, rec := range by {
			if err := r.link(ctx, rec); err != nil {
				errs = append(errs, err)
			}
		}
		if r.count() > 0 {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			if len(errs) == 0 {
				errs = append(errs, errors.New("no scheduler is registered there"))
			}
			return fail(fmt.Errorf("joining the schedulers of etcd %v: %w", p.cfg.Etcd, errors.Join(append(errs, ctx.Err())...)))
		}
	}
	// The worker's own id is its id at one scheduler; tasks of the others
	// are translated to it.
	r.mu.Lock()
	for _, l := range r.links {
		p.id, p.interval, p.deadAfter = l.wid, l.beat, 3*l.beat
		break
	}
	r.mu.Unlock()
	return r, nil
}

// link registers with one scheduler, unless already registered at its
// address.
func (r *workerRing) link(ctx context.Context, rec ha.SchedulerRecord) error {
	p := r.p
	url, err := baseURL(rec.Address, p.cfg.TLS.Enabled())
	if err != nil {
		return fmt.Errorf("scheduler %s: %w", rec.ID, err)
	}
	r.mu.Lock()
	old := r.links[rec.ID]
	r.mu.Unlock()
	if old != nil {
		if old.url == url {
			return nil
		}
		// Restarted elsewhere under the same id: the old registration is
		// gone with the old process.
		r.drop(old, fmt.Errorf("scheduler %s moved to %s", rec.ID, url))
	}
	client := phobosv1connect.NewSchedulerServiceClient(p.http, url, rpc.ClientOptions()...)
	resp, err := p.register(ctx, client)
	if err != nil {
		return fmt.Errorf("registering with scheduler %s at %s: %w", rec.ID, url, err)
	}
	l := &schedLink{sid: rec.ID, url: url, client: client, wid: int(resp.Msg.WorkerId), stop: make(chan struct{})}
	l.peers = &httpPeers{p: p, sched: client, urls: make(map[int]string)}
	if l.wid >= handleBase {
		return fmt.Errorf("scheduler %s gave worker id %d, beyond %d", rec.ID, l.wid, handleBase)
	}
	l.rep = newResultBatcher(l.wid, client, p.log, p.cfg.GiveUpAfter, func(err error) { r.drop(l, fmt.Errorf("results undeliverable: %w", err)) }, p.busy)
	l.beat = time.Duration(resp.Msg.HeartbeatIntervalMs) * time.Millisecond
	if l.beat <= 0 {
		l.beat = time.Second
	}
	r.mu.Lock()
	r.links[rec.ID] = l
	r.mu.Unlock()
	p.log.Info("registered with a scheduler of the ring", "scheduler", rec.ID, "url", url, "worker", l.wid)
	r.wg.Add(1)
	go r.heartbeat(l, l.beat)
	return nil
}

// start follows the ring once the worker runs: it registers with
// schedulers that join (or rejoin after dropping this worker).
func (r *workerRing) start() {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			_, by, changed := r.members.Snapshot()
			for _, rec := range by {
				ctx, cancel := context.WithTimeout(r.ctx, r.p.cfg.RegisterTimeout)
				if err := r.link(ctx, rec); err != nil && r.ctx.Err() == nil {
					r.p.log.Warn("joining a scheduler of the ring", "scheduler", rec.ID, "err", err)
				}
				cancel()
			}
			select {
			case <-r.ctx.Done():
				return
			case <-changed:
			case <-tick.C:
			}
		}
	}()
}

func (r *workerRing) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.links)
}

// heartbeat beats to one scheduler; a scheduler that no longer counts the
// worker, or cannot be reached for GiveUpAfter, is dropped (start
// registers again while it is in the ring).
func (r *workerRing) heartbeat(l *schedLink, interval time.Duration) {
	defer r.wg.Done()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	lastOK := time.Now()
	for {
		select {
		case <-l.stop:
			return
		case <-r.ctx.Done():
			// Leaving: a link made while leave listed the others stops
			// here too.
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(r.ctx, interval)
		_, err := l.client.Heartbeat(ctx, connect.NewRequest(&pb.HeartbeatRequest{WorkerId: int32(l.wid), Load: r.p.loadNow()}))
		cancel()
		switch {
		case err == nil:
			lastOK = time.Now()
		case connect.CodeOf(err) == connect.CodeFailedPrecondition || connect.CodeOf(err) == connect.CodeNotFound:
			go r.drop(l, err)
			return
		case time.Since(lastOK) > r.p.cfg.GiveUpAfter:
			go r.drop(l, fmt.Errorf("no answer for %v: %w", r.p.cfg.GiveUpAfter, err))
			return
		}
	}
}

// drop ends the registration with one scheduler: it stops beating to it
// and sending it results (its tasks here are void: it gave up on this
// worker or is gone).
func (r *workerRing) drop(l *schedLink, cause error) {
	l.once.Do(func() {
		r.mu.Lock()
		if r.links[l.sid] == l {
			delete(r.links, l.sid)
		}
		for g, gl := range r.graphs {
			if gl == l {
				delete(r.graphs, g)
			}
		}
		r.mu.Unlock()
		close(l.stop)
		r.p.log.Warn("left a scheduler of the ring", "scheduler", l.sid, "url", l.url, "cause", cause)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, _ = l.client.DeregisterWorker(ctx, connect.NewRequest(&pb.DeregisterWorkerRequest{WorkerId: int32(l.wid), Reason: cause.Error()}))
		cancel()
		l.rep.close()
	})
}

// adopt reads a dispatch from scheduler sid in this worker's terms: the
// graphs it names are that scheduler's, and its tasks' inputs name
// workers in that scheduler's numbering.
func (r *workerRing) adopt(sid string, b *rpc.DispatchBatch) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.links[sid]
	if l == nil {
		return fmt.Errorf("worker %s is not registered with scheduler %q", r.p.url, sid)
	}
	for i := range b.Tasks {
		t := &b.Tasks[i]
		r.routeLocked(t.Key.Graph, l)
		for j := range t.Inputs {
			in := &t.Inputs[j]
			switch {
			case in.Worker < 0:
			case in.Worker == l.wid:
				in.Worker = r.p.id
			default:
				in.Worker = r.handleLocked(peerRef{link: l, wid: in.Worker})
			}
		}
	}
	for _, g := range b.Cancels {
		r.routeLocked(g, l)
	}
	return nil
}

func (r *workerRing) routeLocked(g protocol.GraphID, l *schedLink) {
	if _, ok := r.graphs[g]; !ok {
		r.order = append(r.order, g)
		for len(r.order) > maxRoutedGraphs {
			delete(r.graphs, r.order[0])
			r.order = r.order[1:]
		}
	}
	r.graphs[g] = l
}

func (r *workerRing) handleLocked(ref peerRef) int {
	if h, ok := r.handles[ref]; ok {
		return h
	}
	h := handleBase + len(r.refs)
	r.refs = append(r.refs, ref)
	r.handles[ref] = h
	return h
}

// Report sends a result to the scheduler that dispatched its graph.
func (r *workerRing) Report(res protocol.Result) {
	r.mu.Lock()
	l := r.graphs[res.Key.Graph]
	r.mu.Unlock()
	if l == nil {
		r.p.log.Debug("a result for a graph of no scheduler dropped", "chunk", res.Key)
		return
	}
	l.rep.Report(res)
}

// ReadChunk implements worker.PeerReader for handles made by adopt.
func (r *workerRing) ReadChunk(ctx context.Context, h int, key protocol.ChunkKey) (*ndarray.Array, error) {
	r.mu.Lock()
	var ref peerRef
	ok := h >= handleBase && h-handleBase < len(r.refs)
	if ok {
		ref = r.refs[h-handleBase]
	}
	r.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("reading %v: no peer %d", key, h)
	}
	return ref.link.peers.ReadChunk(ctx, ref.wid, key)
}

// leave deregisters from every scheduler, so each moves this worker's
// work now rather than after its heartbeat timeout.
func (r *workerRing) leave() {
	r.cancel()
	r.mu.Lock()
	links := make([]*schedLink, 0, len(r.links))
	for _, l := range r.links {
		links = append(links, l)
	}
	r.mu.Unlock()
	for _, l := range links {
		l.once.Do(func() {
			close(l.stop)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, _ = l.client.DeregisterWorker(ctx, connect.NewRequest(&pb.DeregisterWorkerRequest{WorkerId: int32(l.wid), Reason: "stopped"}))
			cancel()
		})
	}
	r.wg.Wait()
}

// close flushes the results still queued (after the worker stopped) and
// closes the etcd client.
func (r *workerRing) close() {
	r.mu.Lock()
	links := make([]*schedLink, 0, len(r.links))
	for _, l := range r.links {
		links = append(links, l)
	}
	r.mu.Unlock()
	for _, l := range links {
		l.rep.close()
	}
	_ = r.cli.Close()
}
