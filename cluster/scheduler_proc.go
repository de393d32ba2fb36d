package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/internal/metrics"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/scheduler"
)

// SchedulerConfig configures the scheduler role.
type SchedulerConfig struct {
	// Listen is the address to serve on; "" is a free loopback port.
	Listen string
	// MaxAttempts is how often a failed chunk op is tried (default 3).
	MaxAttempts int
	// HeartbeatTimeout is the silence after which a worker is marked dead
	// (default 3 s; workers beat every second).
	HeartbeatTimeout time.Duration
	// SessionIdleTimeout is how long a session may go without a request
	// before it is closed and its results freed (default 1 h; < 0: never).
	// A session with a graph in progress is not idle.
	SessionIdleTimeout time.Duration
	// MaxFinishedGraphs is how many ended graphs a session keeps (with
	// their results, until DELETE); past it the oldest are released
	// (default DefaultMaxFinishedGraphs).
	MaxFinishedGraphs int
	// ProgressTimeout fails a graph in which no chunk op changed state for
	// this long (default scheduler.DefaultProgressTimeout; < 0: never).
	ProgressTimeout time.Duration
	// Token, when not "", is the cluster's shared secret: every request to
	// this role must carry it ("Authorization: Bearer <token>"), and the
	// role sends it on its own requests.
	Token string
	// TLS, when it names a certificate, makes this role serve HTTPS; its CA
	// (or the system's roots) checks the other roles' certificates.
	TLS rpc.TLSFiles
	// Exposure accepts serving a non-loopback Listen address without a
	// token or without TLS (refused by default).
	Exposure Exposure
	// Etcd, when it names endpoints, makes this scheduler one of a ring
	// (docs/ARCHITECTURE.md): it registers under a lease, watches the
	// others, and owns the sessions the ring maps to it. None: it runs
	// alone, as it always has.
	Etcd []string
	// Advertise is the address workers and web services reach this
	// scheduler at (host, host:port or a URL; without a port, the
	// listening one), as written into the ring. "" advertises the
	// listening address. A name the TLS certificate holds when the
	// listening address is one it cannot (a pod's IP).
	Advertise string
	// ID is the scheduler's name in the ring (default: its URL). A
	// scheduler restarted under the same ID gets the same share back.
	ID string
	// LeaseTTL is how long its membership outlives its last renewal, and
	// so how long etcd may be unreachable before the scheduler stops
	// taking graphs (default ha.DefaultLeaseTTL; etcd rounds to seconds).
	LeaseTTL time.Duration
	Logger   *slog.Logger
	// Loopback, when set, carries this role's requests to the other roles
	// of its process, and theirs to it, in process (LaunchOneProcess).
	Loopback *Loopback
}

// SchedulerProc is the scheduler role: the scheduler's event loop with remote
// workers, worker membership (registration, heartbeats, failure detection),
// and the session/graph service the web role calls.
type SchedulerProc struct {
	cfg   SchedulerConfig
	log   *slog.Logger
	sched *scheduler.Scheduler
	http  *http.Client
	srv   *server
	stats *metrics.Scheduler
	runs  runNames
	ring  *ringMember // nil: alone
	stop  chan struct{}
	wg    sync.WaitGroup
	prep  *preparers // goroutines that prepare and follow graphs

	mu struct {
		sync.Mutex
		members  []*member
		sessions map[string]*session
		graphs   int
	}
}

// member is one registered worker.
type member struct {
	id       int
	url      string
	slots    int
	memory   int64
	spillDir string
	pid      int
	exec     *remoteExecutor
	// guarded by SchedulerProc.mu
	lastBeat time.Time
	load     *pb.WorkerLoad
	dead     error
}

// StartScheduler starts the scheduler role and serves its RPCs.
func StartScheduler(cfg SchedulerConfig) (*SchedulerProc, error) {
	if cfg.SessionIdleTimeout == 0 {
		cfg.SessionIdleTimeout = time.Hour
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = 3 * time.Second
	}
	if cfg.MaxFinishedGraphs <= 0 {
		cfg.MaxFinishedGraphs = DefaultMaxFinishedGraphs
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = ha.DefaultLeaseTTL
	}
	srvTLS, hc, err := roleHTTP(cfg.Token, cfg.TLS, true)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	hc = cfg.Loopback.client(hc)
	log := discardLogger(cfg.Logger)
	p := &SchedulerProc{
		cfg:  cfg,
		log:  log,
		http: hc,
		stop: make(chan struct{}),
	}
	p.prep = newPreparers(p.stop)
	schedLog := slog.New(runHandler{log.Handler(), &p.runs})
	p.sched = scheduler.New(nil, scheduler.Config{MaxAttempts: cfg.MaxAttempts, ProgressTimeout: cfg.ProgressTimeout, Logger: schedLog})
	p.mu.sessions = make(map[string]*session)
	p.stats = metrics.NewScheduler(schedulerFigures{p})
	if len(cfg.Etcd) > 0 {
		if err := p.newRing(); err != nil {
			p.sched.Close()
			return nil, fmt.Errorf("scheduler: --etcd: %w", err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle(phobosv1connect.NewSchedulerServiceHandler(&schedulerService{p}, rpc.HandlerOptions()...))
	mux.Handle(phobosv1connect.NewGraphServiceHandler(&graphService{p}, rpc.HandlerOptions()...))
	mux.Handle(phobosv1connect.NewDashboardServiceHandler(dashboard.NewSchedulerService(dashboardGraphs{p}), rpc.HandlerOptions()...))
	mux.Handle("GET /metrics", p.stats.Handler())
	srv, err := listen(cfg.Listen, p.stats.Instrument(withHealth(rpc.RefuseBrowsers(rpc.RequireClientCert(cfg.TLS.Mutual(), rpc.RequireToken(cfg.Token, mux))), p.ready)), p.log, srvTLS, cfg.Token, cfg.Exposure)
	if err != nil {
		p.leaveRing()
		p.sched.Close()
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	if cfg.Advertise != "" {
		scheme, _, _ := strings.Cut(srv.url, "://")
		if srv.url, err = advertise(cfg.Advertise, srv.ln.Addr().(*net.TCPAddr).Port, scheme); err != nil {
			srv.shutdown()
			p.leaveRing()
			p.sched.Close()
			return nil, fmt.Errorf("scheduler: --advertise: %w", err)
		}
	}
	p.srv = srv
	cfg.Loopback.serve(srv.url, srv.srv.Handler, services{graphs: &graphService{p}, sched: &schedulerService{p}})
	if p.ring != nil {
		p.startRing()
	}
	p.wg.Add(1)
	go p.monitor()
	if cfg.SessionIdleTimeout > 0 {
		p.wg.Add(1)
		go p.expireSessions(cfg.SessionIdleTimeout)
	}
	return p, nil
}

// ready is the scheduler's answer to GET /readyz: nil while it may take
// sessions and graphs (in a ring, while its lease lives and the ring holds
// it).
func (p *SchedulerProc) ready(context.Context) error {
	select {
	case <-p.stop:
		return errors.New("stopping")
	default:
	}
	if err := p.serving(); err != nil {
		return err
	}
	if p.ring != nil {
		if r, _, _ := p.ring.members.Snapshot(); !r.Has(p.ring.lease.Rec.ID) {
			return fmt.Errorf("scheduler %q is not in the ring yet", p.ring.lease.Rec.ID)
		}
	}
	return nil
}

// URL is where workers and the web role reach the scheduler.
func (p *SchedulerProc) URL() string { return p.srv.url }

// Err receives the server's error if it stops on its own.
func (p *SchedulerProc) Err() <-chan error { return p.srv.errc }

// Close stops serving, then the scheduler; graphs still running fail.
func (p *SchedulerProc) Close() {
	select {
	case <-p.stop:
		return
	default:
	}
	close(p.stop)
	p.leaveRing()
	p.cfg.Loopback.drop(p.srv.url)
	p.srv.shutdown()
	p.wg.Wait()
	p.sched.Close()
	p.mu.Lock()
	for _, m := range p.mu.members {
		m.exec.close()
	}
	p.mu.Unlock()
}

// monitor marks workers dead when their heartbeats stop.
func (p *SchedulerProc) monitor() {
	defer p.wg.Done()
	tick := time.NewTicker(p.cfg.HeartbeatTimeout / 10)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-tick.C:
			p.mu.Lock()
			late := lateMembers(p.mu.members, now, p.cfg.HeartbeatTimeout, p.cfg.Loopback.live)
			p.mu.Unlock()
			for _, m := range late {
				p.markDead(m, fmt.Errorf("no heartbeat from %s for %v", m.url, now.Sub(m.lastBeat).Round(100*time.Millisecond)))
			}
		}
	}
}

// lateMembers are the live members whose last heartbeat is older than
// timeout, except those inProcess says run in this process: a worker of a
// one-process cluster cannot die alone (its failure stops the process),
// so a heartbeat late because the machine is loaded must not take it out,
// and with it the cluster. A stopped one is no longer in process.
func lateMembers(members []*member, now time.Time, timeout time.Duration, inProcess func(url string) bool) []*member {
	var late []*member
	for _, m := range members {
		if m.dead == nil && now.Sub(m.lastBeat) > timeout && !inProcess(m.url) {
			late = append(late, m)
		}
	}
	return late
}

// markDead takes a worker out: nothing more is sent to it, and the scheduler
// moves the work of unfinished graphs to the other workers.
func (p *SchedulerProc) markDead(m *member, cause error) {
	p.mu.Lock()
	if m.dead != nil {
		p.mu.Unlock()
		return
	}
	m.dead = cause
	p.mu.Unlock()
	p.log.Warn("worker marked dead", "worker", m.id, "url", m.url, "cause", cause)
	m.exec.close()
	p.sched.MarkWorkerDead(m.id, cause)
}

func (p *SchedulerProc) liveWorkers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, m := range p.mu.members {
		if m.dead == nil {
			n++
		}
	}
	return n
}

// memberURL is the base URL of worker w, or an error if it is unknown or dead.
func (p *SchedulerProc) memberURL(w int) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w < 0 || w >= len(p.mu.members) {
		return "", fmt.Errorf("no worker %d", w)
	}
	m := p.mu.members[w]
	if m.dead != nil {
		return "", fmt.Errorf("worker %d (%s) is dead: %v", w, m.url, m.dead)
	}
	return m.url, nil
}

// schedulerService serves the workers.
type schedulerService struct{ p *SchedulerProc }

func (s *schedulerService) RegisterWorker(ctx context.Context, req *connect.Request[pb.RegisterWorkerRequest]) (*connect.Response[pb.RegisterWorkerResponse], error) {
	p := s.p
	m := req.Msg
	url, err := baseURL(m.Url, false)
	if err == nil {
		err = reachableURL(url)
	}
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("worker url: %w", err))
	}
	if m.Slots <= 0 {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("worker %s offers %d slots", url, m.Slots))
	}
	if err := reachableFrom(url, req.Peer().Addr); err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	client := p.cfg.Loopback.worker(url, phobosv1connect.NewWorkerServiceClient(p.http, url, rpc.ClientOptions()...))
	mem := &member{url: url, slots: int(m.Slots), memory: m.MemoryBytes, spillDir: m.SpillDir, pid: int(m.Pid), lastBeat: time.Now()}
	// Hold the lock across AddWorker so member indexes match worker ids.
	p.mu.Lock()
	defer p.mu.Unlock()
	id := len(p.mu.members)
	mem.id = id
	mem.exec = newRemoteExecutor(p.ringID(), id, mem.slots, client, p.log, p.sched.Report, func(err error) { go p.markDead(mem, err) })
	got, err := p.sched.AddWorker(mem.exec)
	if err != nil {
		mem.exec.close()
		return nil, connect.NewError(connect.CodeUnavailable, err)
	}
	if got != id {
		mem.exec.close()
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("scheduler gave worker id %d, want %d", got, id))
	}
	p.mu.members = append(p.mu.members, mem)
	p.log.Info("worker registered", "worker", id, "url", url, "slots", m.Slots, "memory", m.MemoryBytes)
	return connect.NewResponse(&pb.RegisterWorkerResponse{WorkerId: int32(id), HeartbeatIntervalMs: (p.cfg.HeartbeatTimeout / 3).Milliseconds()}), nil
}

func (s *schedulerService) DeregisterWorker(ctx context.Context, req *connect.Request[pb.DeregisterWorkerRequest]) (*connect.Response[pb.DeregisterWorkerResponse], error) {
	p := s.p
	id := int(req.Msg.WorkerId)
	p.mu.Lock()
	if id < 0 || id >= len(p.mu.members) {
		p.mu.Unlock()
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no worker %d is registered", id))
	}
	m := p.mu.members[id]
	p.mu.Unlock()
	reason := req.Msg.Reason
	if reason == "" {
		reason = "stopping"
	}
	p.markDead(m, fmt.Errorf("worker left: %s", reason))
	return connect.NewResponse(&pb.DeregisterWorkerResponse{}), nil
}

func (s *schedulerService) Heartbeat(ctx context.Context, req *connect.Request[pb.HeartbeatRequest]) (*connect.Response[pb.HeartbeatResponse], error) {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	id := int(req.Msg.WorkerId)
	if id < 0 || id >= len(p.mu.members) {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no worker %d is registered", id))
	}
	m := p.mu.members[id]
	if m.dead != nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("worker %d was marked dead: %v", id, m.dead))
	}
	m.lastBeat = time.Now()
	m.load = req.Msg.Load
	return connect.NewResponse(&pb.HeartbeatResponse{}), nil
}

// ReportResults takes a worker's batch of results whole or not at all: the
// worker must be a live member and every result must decode before any
// reaches the scheduler, so a refused batch leaves nothing half-applied
// (the worker resends or stops, see resultBatcher).
func (s *schedulerService) ReportResults(ctx context.Context, req *connect.Request[pb.ReportResultsRequest]) (*connect.Response[pb.ReportResultsResponse], error) {
	p := s.p
	w := int(req.Msg.WorkerId)
	p.mu.Lock()
	var dead error
	known := w >= 0 && w < len(p.mu.members)
	if known {
		dead = p.mu.members[w].dead
	}
	p.mu.Unlock()
	switch {
	case !known:
		p.log.Warn("results from an unknown worker refused", "worker", w, "results", len(req.Msg.Results))
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no worker %d is registered", w))
	case dead != nil:
		p.log.Warn("results from a dead worker refused", "worker", w, "results", len(req.Msg.Results), "dead", dead)
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("worker %d was marked dead: %v", w, dead))
	}
	results := make([]protocol.Result, len(req.Msg.Results))
	for i, m := range req.Msg.Results {
		r, err := rpc.DecodeResult(m, w)
		if err != nil {
			p.log.Warn("malformed results refused", "worker", w, "result", i, "err", err)
			return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("result %d of %d: %w", i, len(results), err))
		}
		results[i] = r
	}
	for _, r := range results {
		p.stats.Result(r.Outcome)
		p.sched.Report(r)
	}
	return connect.NewResponse(&pb.ReportResultsResponse{}), nil
}

func (s *schedulerService) ListWorkers(ctx context.Context, req *connect.Request[pb.ListWorkersRequest]) (*connect.Response[pb.ListWorkersResponse], error) {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	out := &pb.ListWorkersResponse{}
	now := time.Now()
	for _, m := range p.mu.members {
		wi := &pb.WorkerInfo{
			Id: int32(m.id), Url: m.url, Slots: int32(m.slots), MemoryBytes: m.memory, SpillDir: m.spillDir,
			Alive: m.dead == nil, LastHeartbeatMsAgo: now.Sub(m.lastBeat).Milliseconds(), Load: m.load, Pid: int32(m.pid),
		}
		if m.dead != nil {
			wi.DeadReason = m.dead.Error()
		}
		out.Workers = append(out.Workers, wi)
	}
	return connect.NewResponse(out), nil
}

// resultKey names a result chunk of a run.
func resultKey(run *scheduler.Run, node int32) protocol.ChunkKey {
	return protocol.ChunkKey{Graph: run.ID(), Node: node}
}

// HeldRuns is the number of runs the scheduler holds: running, or finished
// with results not yet released. With no graph in progress and every
// result deleted it is 0.
func (p *SchedulerProc) HeldRuns() int { return p.sched.Runs() }

// HeldGraphs is the number of graph records the sessions hold.
func (p *SchedulerProc) HeldGraphs() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.graphs
}

// schedulerFigures is the scheduler role as its metrics read it.
type schedulerFigures struct{ p *SchedulerProc }

func (f schedulerFigures) Figures() metrics.SchedulerFigures {
	p := f.p
	out := metrics.SchedulerFigures{Graphs: map[string]int{}, Ops: map[scheduler.State]int64{}, Results: p.sched.Stats()}
	now := time.Now()
	var graphs []*graphRec
	p.mu.Lock()
	out.Sessions = len(p.mu.sessions)
	for _, ss := range p.mu.sessions {
		for _, g := range ss.graphs {
			graphs = append(graphs, g)
		}
	}
	for _, m := range p.mu.members {
		wf := metrics.WorkerFigures{ID: m.id, Alive: m.dead == nil, HeartbeatAge: now.Sub(m.lastBeat), Slots: m.slots, MemoryBytes: m.memory}
		if l := m.load; l != nil {
			wf.Running, wf.Queued, wf.StoreBytes = int(l.Running), int(l.Queued), l.StoreBytes
		}
		out.Workers = append(out.Workers, wf)
	}
	p.mu.Unlock()
	// A graph's lock is taken without p.mu held (GetResult takes g.mu,
	// then p.mu).
	for _, g := range graphs {
		g.mu.Lock()
		out.Graphs[g.state]++
		run := g.run
		g.mu.Unlock()
		if run != nil {
			for s, n := range run.Counts() {
				out.Ops[s] += n
			}
		}
	}
	return out
}
