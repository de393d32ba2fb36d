package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/internal/cgroup"
	"github.com/phobos-tensor/phobos/internal/metrics"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/pyexec"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// WorkerConfig configures the worker role.
type WorkerConfig struct {
	// Scheduler is the scheduler's address (host:port or URL).
	Scheduler string
	// Etcd, when it names endpoints, replaces Scheduler: the worker
	// watches the ring of schedulers registered there and registers with
	// every one of them, running tasks from all with one store and one
	// memory budget.
	Etcd []string
	// Listen is the address to serve tasks and chunks on; "" is a free
	// loopback port.
	Listen string
	// Advertise is the address the scheduler and the other workers reach
	// this worker at (host, host:port or URL; a missing port is the
	// listening one). "" advertises the listening address; with an
	// unspecified host (0.0.0.0), this host's address on the route to the
	// scheduler (or etcd), or loopback when that is where they are.
	Advertise string
	// Slots is the number of chunk ops run at once (default GOMAXPROCS).
	Slots int
	// Memory is the worker's memory budget in bytes (0: storage's default,
	// half the machine; < 0: no limit); SpillDir is where its store spills
	// ("": a temporary directory).
	Memory   int64
	SpillDir string
	// RegisterTimeout is how long to keep trying to reach the scheduler at
	// start (default 10 s); GiveUpAfter is how long heartbeats may fail
	// before the worker exits (default 10 s).
	RegisterTimeout time.Duration
	GiveUpAfter     time.Duration
	// DataRoots are the directories file ops (FromNpy, ToNpy) may read and
	// write under; none refuses every file op.
	DataRoots []string
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
	// UserCode is whether users' Python functions run here (see UserCode;
	// --allow-user-code); UserCodeTimeout bounds one call of one (0: no
	// limit; --user-code-timeout).
	UserCode        UserCode
	UserCodeTimeout time.Duration
	Logger          *slog.Logger
	// Loopback, when set, carries this role's requests to the other roles
	// of its process, and theirs to it, in process (LaunchOneProcess).
	Loopback *Loopback
}

// WorkerProc is the worker role: a worker.Worker fed by the scheduler over
// the network, reporting results in batches, serving its chunks over HTTP
// and reading its peers' chunks the same way.
type WorkerProc struct {
	cfg   WorkerConfig
	log   *slog.Logger
	http  *http.Client
	sched phobosv1connect.SchedulerServiceClient
	srv   *server
	id    int
	url   string // as advertised to the cluster
	// interval is the scheduler's heartbeat interval; deadAfter its
	// heartbeat timeout (3 beats).
	interval  time.Duration
	deadAfter time.Duration
	ring      *workerRing // nil: one scheduler (p.sched, p.rep)
	w         *worker.Worker
	rep       *resultBatcher
	peers     *httpPeers
	load      loadTracker
	uploads   *ops.UploadStore
	stats     *metrics.Worker
	pyexec    *pyexec.Pool // nil: user code refused
	ops       *rpc.OpCache // the ops dispatched here, decoded

	releaseGo func() // undoes the Go memory limit held for the store

	ready chan struct{} // closed once w is set
	stop  chan struct{}
	done  chan struct{}
	err   error
	once  sync.Once
	wg    sync.WaitGroup
}

// StartWorker starts serving, registers with the scheduler and starts the
// heartbeat.
func StartWorker(ctx context.Context, cfg WorkerConfig) (*WorkerProc, error) {
	if cfg.Slots <= 0 {
		cfg.Slots = DefaultSlots()
	}
	if cfg.RegisterTimeout <= 0 {
		cfg.RegisterTimeout = 10 * time.Second
	}
	if cfg.GiveUpAfter <= 0 {
		cfg.GiveUpAfter = 10 * time.Second
	}
	if cfg.Memory == 0 {
		cfg.Memory = storage.DefaultLimit()
	}
	srvTLS, hc, err := roleHTTP(cfg.Token, cfg.TLS, true)
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	hc = cfg.Loopback.client(hc)
	files, err := ops.NewFileAccess(cfg.DataRoots)
	if err != nil {
		return nil, fmt.Errorf("worker: --data-root: %w", err)
	}
	userCode, err := allowUserCode(cfg.UserCode, cfg.Listen, cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	var schedURL string
	if len(cfg.Etcd) == 0 {
		if schedURL, err = baseURL(cfg.Scheduler, cfg.TLS.Enabled()); err != nil {
			return nil, fmt.Errorf("worker: --scheduler: %w", err)
		}
	}
	if cfg.SpillDir != "" {
		if err := os.MkdirAll(cfg.SpillDir, 0o755); err != nil {
			return nil, fmt.Errorf("worker: --spill-dir: %w", err)
		}
	}
	p := &WorkerProc{
		cfg:   cfg,
		log:   discardLogger(cfg.Logger),
		http:  hc,
		ops:   rpc.NewOpCache(),
		ready: make(chan struct{}),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		stats: metrics.NewWorker(),
	}
	p.load.started = make(map[protocol.ChunkKey]bool)
	// Uploads are files beside the spill files: they are the client's
	// data, kept until its session ends or this worker stops.
	updir := cfg.SpillDir
	if updir == "" {
		updir = os.TempDir()
	}
	if updir, err = os.MkdirTemp(updir, "phobos-uploads-"); err != nil {
		return nil, fmt.Errorf("worker: uploads directory: %w", err)
	}
	if p.uploads, err = ops.NewUploadStore(updir); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	started := false
	defer func() {
		if !started {
			p.uploads.Close()
		}
	}()
	p.sched = cfg.Loopback.scheduler(schedURL, phobosv1connect.NewSchedulerServiceClient(p.http, schedURL, rpc.ClientOptions()...))
	p.peers = &httpPeers{p: p, sched: p.sched, urls: make(map[int]string)}

	mux := http.NewServeMux()
	mux.Handle(phobosv1connect.NewWorkerServiceHandler(&workerService{p}, rpc.HandlerOptions()...))
	mux.Handle("GET /chunks/{graph}/{node}", rpc.ChunkHandler(p.getChunk))
	mux.Handle("GET /chunks/{graph}", rpc.ChunkBatchHandler(p.getChunk))
	mux.Handle("POST /chunks/{graph}/{node}/into", rpc.ChunkIntoBorrowHandler(p.borrowChunk))
	mux.Handle("GET /metrics", p.stats.Handler())
	mux.Handle("POST "+rpc.SourcePath, rpc.SourceHandler(files))
	mux.Handle("POST "+rpc.CheckPath, rpc.CheckHandler(files))
	rpc.UploadHandlers(mux, p.uploads, func(ctx context.Context) (int, error) {
		if err := p.waitReady(ctx); err != nil {
			return 0, err
		}
		return p.id, nil
	})
	p.srv, err = listen(cfg.Listen, p.stats.Instrument(withHealth(rpc.RefuseBrowsers(rpc.RequireClientCert(cfg.TLS.Mutual(), rpc.RequireToken(cfg.Token, mux))), p.readiness)), p.log, srvTLS, cfg.Token, cfg.Exposure)
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}

	url := p.srv.url
	if cfg.Advertise == "" {
		peer := schedURL
		if len(cfg.Etcd) > 0 {
			peer = cfg.Etcd[0]
		}
		url = towards(url, cfg.Listen, peer)
	} else {
		scheme, _, _ := strings.Cut(p.srv.url, "://")
		if url, err = advertise(cfg.Advertise, p.srv.ln.Addr().(*net.TCPAddr).Port, scheme); err != nil {
			p.srv.shutdown()
			return nil, fmt.Errorf("worker: --advertise: %w", err)
		}
	}
	p.url = url
	cfg.Loopback.serve(url, p.srv.srv.Handler, services{worker: &workerService{p}, chunk: p.getChunk})
	rctx, cancel := context.WithTimeout(ctx, cfg.RegisterTimeout)
	defer cancel()
	var peers worker.PeerReader = p.peers
	if len(cfg.Etcd) > 0 {
		// A ring: registered with every scheduler, results and peer
		// reads routed by the scheduler a graph came from.
		r, err := p.joinRing(rctx)
		if err != nil {
			p.srv.shutdown()
			return nil, fmt.Errorf("worker: %w", err)
		}
		p.ring, p.load.next, peers = r, r, r
	} else {
		resp, err := p.register(rctx, p.sched)
		if err != nil {
			cfg.Loopback.drop(url)
			p.srv.shutdown()
			return nil, fmt.Errorf("worker: registering with the scheduler at %s: %w", schedURL, err)
		}
		p.id = int(resp.Msg.WorkerId)
		p.interval = time.Duration(resp.Msg.HeartbeatIntervalMs) * time.Millisecond
		if p.interval <= 0 {
			p.interval = time.Second
		}
		p.deadAfter = 3 * p.interval
		p.rep = newResultBatcher(p.id, p.sched, p.log, cfg.GiveUpAfter, p.undeliverable, p.busy)
		p.load.next = p.rep
	}
	p.releaseGo = func() {}
	if cfg.Memory > 0 {
		// Keep the Go heap near the budget rather than letting it double
		// before a collection (as the local cluster does).
		p.releaseGo = storage.HoldGoMemoryLimit(storage.GoHeapLimit(cfg.Memory))
	}
	store := storage.Open(storage.Config{Limit: max(cfg.Memory, 0), SpillDir: cfg.SpillDir})
	wcfg := worker.Config{ID: p.id, Slots: cfg.Slots, Logger: p.log, QuietStartBytes: worker.DefaultQuietStartBytes, Lanes: true, Files: files, Uploads: p.uploads, Observer: p.stats}
	if userCode {
		p.pyexec = pyexec.New(pyexec.Config{Slots: cfg.Slots, Timeout: cfg.UserCodeTimeout, Logger: p.log, Memory: store.SetExternal})
		wcfg.Blocks = p.pyexec
	}
	p.w = worker.New(wcfg, store, &p.load, peers)
	if err := p.stats.Register(p.id, workerFigures{p.w}); err != nil {
		// Only a bug makes the series clash: serve without them.
		p.log.Error("worker metrics", "worker", p.id, "err", err)
	}
	close(p.ready)
	started = true
	if p.ring != nil {
		p.ring.start()
		p.log.Info("worker registered", "worker", p.id, "url", p.url, "listen", p.srv.url, "schedulers", p.ring.count(), "slots", cfg.Slots)
		return p, nil
	}
	p.wg.Add(1)
	go p.heartbeat(p.interval)
	p.log.Info("worker registered", "worker", p.id, "url", p.url, "listen", p.srv.url, "scheduler", schedURL, "slots", cfg.Slots)
	return p, nil
}

// register admits the worker at a scheduler, retrying while it comes up.
func (p *WorkerProc) register(ctx context.Context, sched phobosv1connect.SchedulerServiceClient) (*connect.Response[pb.RegisterWorkerResponse], error) {
	for {
		resp, err := sched.RegisterWorker(ctx, connect.NewRequest(&pb.RegisterWorkerRequest{
			Url: p.url, Slots: int32(p.cfg.Slots), MemoryBytes: p.cfg.Memory, SpillDir: p.cfg.SpillDir, Pid: int32(os.Getpid()),
		}))
		if err == nil || connect.CodeOf(err) != connect.CodeUnavailable || ctx.Err() != nil {
			return resp, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// URL is where the worker serves tasks and chunks, as advertised.
func (p *WorkerProc) URL() string { return p.url }

// ID is the worker's index in the cluster.
func (p *WorkerProc) ID() int { return p.id }

// Done is closed when the worker stops on its own (the scheduler gave up on
// it, or could not be reached for GiveUpAfter); Err says why.
func (p *WorkerProc) Done() <-chan struct{} { return p.done }

// Err is why the worker stopped on its own.
func (p *WorkerProc) Err() error {
	<-p.done
	return p.err
}

func (p *WorkerProc) exit(err error) {
	p.once.Do(func() {
		p.err = err
		close(p.done)
	})
}

// Close stops the worker: no more requests, slots stopped, results flushed.
func (p *WorkerProc) Close() {
	select {
	case <-p.stop:
		return
	default:
	}
	close(p.stop)
	if p.ring != nil {
		p.ring.leave()
	} else if p.id >= 0 {
		// Leave the cluster before going quiet, so the scheduler moves
		// this worker's work elsewhere now rather than after the
		// heartbeat timeout.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := p.sched.DeregisterWorker(ctx, connect.NewRequest(&pb.DeregisterWorkerRequest{WorkerId: int32(p.id), Reason: "stopped"}))
		cancel()
		if err != nil {
			p.log.Debug("deregistering", "worker", p.id, "err", err)
		}
	}
	p.cfg.Loopback.drop(p.url)
	p.srv.shutdown()
	p.wg.Wait()
	p.w.Close()
	if p.pyexec != nil {
		p.pyexec.Close()
	}
	if p.ring != nil {
		p.ring.close()
	} else {
		p.rep.close()
	}
	if err := p.w.Store().Close(); err != nil {
		p.log.Warn("closing the store", "err", err)
	}
	if err := p.uploads.Close(); err != nil {
		p.log.Warn("removing the uploads", "err", err)
	}
	p.releaseGo()
	p.exit(nil)
}

// undeliverable stops the worker when its results cannot reach the
// scheduler: a worker that keeps running while its reports are lost leaves
// its graphs waiting. It leaves the cluster (best effort) and ends, so the
// scheduler moves its work, as after a death.
func (p *WorkerProc) undeliverable(err error) {
	p.log.Error("results cannot be delivered to the scheduler; the worker stops", "worker", p.id, "err", err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, derr := p.sched.DeregisterWorker(ctx, connect.NewRequest(&pb.DeregisterWorkerRequest{WorkerId: int32(p.id), Reason: "results undeliverable: " + err.Error()}))
	cancel()
	if derr != nil {
		p.log.Debug("deregistering", "worker", p.id, "err", derr)
	}
	p.exit(fmt.Errorf("worker %d: results undeliverable: %w", p.id, err))
}

func (p *WorkerProc) heartbeat(interval time.Duration) {
	defer p.wg.Done()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	lastOK := time.Now()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), interval)
		_, err := p.sched.Heartbeat(ctx, connect.NewRequest(&pb.HeartbeatRequest{WorkerId: int32(p.id), Load: p.loadNow()}))
		cancel()
		switch {
		case err == nil:
			lastOK = time.Now()
		case connect.CodeOf(err) == connect.CodeFailedPrecondition || connect.CodeOf(err) == connect.CodeNotFound:
			p.log.Error("the scheduler no longer counts this worker; exiting", "worker", p.id, "err", err)
			p.exit(fmt.Errorf("worker %d: %w", p.id, err))
			return
		case time.Since(lastOK) > p.cfg.GiveUpAfter:
			p.log.Error("scheduler unreachable; exiting", "worker", p.id, "err", err)
			p.exit(fmt.Errorf("worker %d: no answer from the scheduler for %v: %w", p.id, p.cfg.GiveUpAfter, err))
			return
		default:
			p.log.Warn("heartbeat failed", "worker", p.id, "err", err)
		}
	}
}

func (p *WorkerProc) loadNow() *pb.WorkerLoad {
	st := p.w.StoreStats()
	running, queued := p.load.counts()
	return &pb.WorkerLoad{Running: int32(running), Queued: int32(queued), StoreBytes: st.Bytes, PeakStoreBytes: st.PeakBytes, StoreChunks: int32(st.Chunks),
		LimitBytes: st.Limit, DiskBytes: st.DiskBytes, SpilledBytes: st.SpilledBytes, LoadedBytes: st.LoadedBytes}
}

// DefaultSlots is a worker's slots when none are set: the CPUs its cgroup
// allows (a container's CPU limit, rounded up), else GOMAXPROCS, at least
// one. Go's own GOMAXPROCS follows the cgroup too but keeps at least two,
// which would run two kernels on a container's one CPU.
func DefaultSlots() int {
	n := runtime.GOMAXPROCS(0)
	if c := cgroup.CPULimit(); c > 0 {
		n = min(n, int(math.Ceil(c)))
	}
	return max(n, 1)
}

// readiness is the worker's answer to GET /readyz: nil once it is
// registered (in a ring, with at least one scheduler) and until it stops.
func (p *WorkerProc) readiness(context.Context) error {
	select {
	case <-p.stop:
		return errors.New("stopping")
	case <-p.done:
		return errors.New("stopped")
	default:
	}
	select {
	case <-p.ready:
	default:
		return errors.New("not registered with a scheduler yet")
	}
	if p.ring != nil && p.ring.count() == 0 {
		return errors.New("registered with no scheduler of the ring")
	}
	return nil
}

func (p *WorkerProc) waitReady(ctx context.Context) error {
	select {
	case <-p.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *WorkerProc) getChunk(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, error) {
	if err := p.waitReady(ctx); err != nil {
		return nil, err
	}
	return p.w.Get(ctx, key)
}

// workerService applies the scheduler's batches.
type workerService struct{ p *WorkerProc }

func (s *workerService) Dispatch(ctx context.Context, req *connect.Request[pb.DispatchRequest]) (*connect.Response[pb.DispatchResponse], error) {
	p := s.p
	if err := p.waitReady(ctx); err != nil {
		return nil, connect.NewError(connect.CodeUnavailable, err)
	}
	b, err := rpc.TakeDispatch(ctx, req.Msg, p.ops)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	if p.ring != nil {
		if err := p.ring.adopt(req.Msg.SchedulerId, &b); err != nil {
			return nil, connect.NewError(connect.CodeFailedPrecondition, err)
		}
	}
	if len(b.Releases) > 0 {
		p.w.ReleaseFenced(b.Releases, b.ReleaseFences)
	}
	if len(b.Tasks) > 0 {
		p.load.submitted(len(b.Tasks))
		p.w.Submit(b.Tasks)
	}
	for i, g := range b.Cancels {
		var token uint64
		if i < len(b.CancelFences) {
			token = b.CancelFences[i]
		}
		p.w.CancelGraphFenced(g, token)
	}
	return connect.NewResponse(&pb.DispatchResponse{}), nil
}

// ListChunks tells an adopting scheduler which chunks of its graphs this
// worker holds (rpc.ListChunks pages through it), after raising the
// session's fence to the adopter's token.
func (s *workerService) ListChunks(ctx context.Context, req *connect.Request[pb.ListChunksRequest]) (*connect.Response[pb.ListChunksResponse], error) {
	p := s.p
	if err := p.waitReady(ctx); err != nil {
		return nil, connect.NewError(connect.CodeUnavailable, err)
	}
	q, err := rpc.DecodeChunkQuery(req.Msg)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	// Fence first: no task of the previous owner starts after the list.
	if err := p.w.Fence(q.Fence, q.Graphs...); err != nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, err)
	}
	stored := p.w.Chunks(q.Graphs)
	held := make([]rpc.HeldChunk, len(stored))
	for i, h := range stored {
		held[i] = rpc.HeldChunk{Key: h.Key, Nbytes: h.Nbytes}
	}
	return connect.NewResponse(rpc.EncodeChunkPage(q, held)), nil
}

// loadTracker counts queued and running tasks from what passes to the
// reporter: Started moves a task from queued to running, an outcome ends it.
type loadTracker struct {
	next protocol.Reporter

	mu      sync.Mutex
	queued  int
	running int
	started map[protocol.ChunkKey]bool
}

func (l *loadTracker) submitted(n int) {
	l.mu.Lock()
	l.queued += n
	l.mu.Unlock()
}

func (l *loadTracker) counts() (running, queued int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running, l.queued
}

func (l *loadTracker) Report(r protocol.Result) {
	l.mu.Lock()
	switch {
	case r.Outcome == protocol.Started:
		l.started[r.Key] = true
		l.queued--
		l.running++
	case l.started[r.Key]:
		delete(l.started, r.Key)
		l.running--
	default:
		l.queued--
	}
	l.mu.Unlock()
	l.next.Report(r)
}

// httpPeers reads other workers' chunks over HTTP. Worker URLs come from
// the scheduler's member list, fetched again when a worker is new to us.
type httpPeers struct {
	p     *WorkerProc
	sched phobosv1connect.SchedulerServiceClient // whose numbering of workers
	mu    sync.Mutex
	urls  map[int]string
}

func (h *httpPeers) url(ctx context.Context, w int) (string, error) {
	h.mu.Lock()
	u, ok := h.urls[w]
	h.mu.Unlock()
	if ok {
		return u, nil
	}
	resp, err := h.sched.ListWorkers(ctx, connect.NewRequest(&pb.ListWorkersRequest{}))
	if err != nil {
		return "", fmt.Errorf("looking up worker %d: %w", w, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, wi := range resp.Msg.Workers {
		h.urls[int(wi.Id)] = wi.Url
	}
	if u, ok := h.urls[w]; ok {
		return u, nil
	}
	return "", fmt.Errorf("no worker %d in the cluster", w)
}

// ReadChunk implements worker.PeerReader. When the peer cannot be reached it
// waits for the scheduler's verdict instead of failing at once: a dead peer
// gets the graph failed with an error naming it (and this read cancelled),
// where failing fast would burn the op's attempts on a lost input.
func (h *httpPeers) ReadChunk(ctx context.Context, w int, key protocol.ChunkKey) (*ndarray.Array, error) {
	u, err := h.url(ctx, w)
	if err != nil {
		return nil, err
	}
	a, err := h.fetch(ctx, u, key)
	if err == nil || !errors.Is(err, rpc.ErrUnreachable) {
		return a, err
	}
	deadline := time.Now().Add(2 * h.p.deadAfter)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		if dead := h.deadReason(ctx, w); dead != "" {
			return nil, fmt.Errorf("reading %v from worker %d (%s): the worker is dead: %s", key, w, u, dead)
		}
		if a, err = h.fetch(ctx, u, key); err == nil || !errors.Is(err, rpc.ErrUnreachable) {
			return a, err
		}
	}
	return nil, fmt.Errorf("reading %v from worker %d (%s): %w", key, w, u, err)
}

// fetch reads one chunk from the worker at u, counting it in the metrics.
func (h *httpPeers) fetch(ctx context.Context, u string, key protocol.ChunkKey) (*ndarray.Array, error) {
	start := time.Now()
	a, err := rpc.FetchChunk(ctx, h.p.http, u+rpc.ChunkPath(key))
	var n int64
	if err == nil {
		n = int64(a.Nbytes())
	}
	h.p.stats.PeerFetch(n, time.Since(start), err)
	return a, err
}

// deadReason asks the scheduler whether worker w is dead ("" if not, or
// if the scheduler cannot say).
func (h *httpPeers) deadReason(ctx context.Context, w int) string {
	resp, err := h.sched.ListWorkers(ctx, connect.NewRequest(&pb.ListWorkersRequest{}))
	if err != nil {
		return ""
	}
	for _, wi := range resp.Msg.Workers {
		if int(wi.Id) == w && !wi.Alive {
			return wi.DeadReason
		}
	}
	return ""
}

// resultBatcher sends results to the scheduler in batches: as soon as
// batchResults have queued, or batchDelay after the first of a batch, with
// one message in flight so results arrive in the order they were made (a
// Started notice must not overtake its op's outcome). Results made while
// the worker has nothing else running or queued go at once: no more are
// coming to share their message, and a small graph alone on the cluster
// (an interactive one) would only wait. Such a result, when nothing is
// queued or being sent, is sent by the goroutine that made it, without
// waking the batcher's.
type resultBatcher struct {
	id      int
	client  phobosv1connect.SchedulerServiceClient
	log     *slog.Logger
	giveUp  time.Duration // how long a batch may keep failing
	stopped func(error)   // called once when a batch cannot be delivered
	failed  bool          // after stopped: results are dropped (the worker is leaving)
	// busy reports whether the worker has tasks running or queued (nil:
	// always, so batches always linger).
	busy func() bool

	// sending is held by whoever sends a message (the loop, or Report
	// with a lone result), from taking its results to the answer: one
	// message in flight, taken in order. It also guards failed.
	sending sync.Mutex

	mu   sync.Mutex
	buf  []*pb.Result
	kick chan struct{} // something queued
	full chan struct{} // a full batch queued
	stop chan struct{}
	done chan struct{}
}

const (
	batchResults = 256
	batchDelay   = time.Millisecond
)

func newResultBatcher(id int, client phobosv1connect.SchedulerServiceClient, log *slog.Logger, giveUp time.Duration, stopped func(error), busy func() bool) *resultBatcher {
	b := &resultBatcher{
		id: id, client: client, log: log, giveUp: giveUp, stopped: stopped, busy: busy,
		kick: make(chan struct{}, 1),
		full: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go b.loop()
	return b
}

func (b *resultBatcher) Report(r protocol.Result) {
	m := rpc.EncodeResult(r)
	// Asked before b.mu: the worker's locks are never taken under it.
	alone := !b.lingers()
	b.mu.Lock()
	// Nothing queued and nothing in flight: every result made before this
	// one has been delivered, so it may go now, from here.
	if alone && len(b.buf) == 0 && b.sending.TryLock() {
		b.mu.Unlock()
		if b.failed || b.sendOnce(m) == nil {
			b.sending.Unlock()
			return
		}
		// Not delivered at once (the scheduler is away, or refuses it):
		// the loop retries it, or gives up, as for any batch; it goes
		// first, before the results made meanwhile. The slot is not held
		// up by retries.
		b.mu.Lock()
		b.buf = append([]*pb.Result{m}, b.buf...)
		n := len(b.buf)
		b.mu.Unlock()
		b.sending.Unlock()
		b.queued(n, true)
		return
	}
	b.buf = append(b.buf, m)
	n := len(b.buf)
	b.mu.Unlock()
	b.queued(n, n == 1)
}

// queued wakes the loop for a queue of n results: kick when it may be
// waiting for a first one, full when a batch is due now.
func (b *resultBatcher) queued(n int, kick bool) {
	if kick {
		signal(b.kick)
	}
	if n >= batchResults {
		signal(b.full)
	}
}

// lingers reports whether a batch waits batchDelay for more results: only
// while the worker has work that will make them.
func (b *resultBatcher) lingers() bool { return b.busy == nil || b.busy() }

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// close sends what is queued, then stops.
func (b *resultBatcher) close() {
	close(b.stop)
	<-b.done
}

func (b *resultBatcher) loop() {
	defer close(b.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		stopping := false
		select {
		case <-b.kick:
		case <-b.full:
		case <-b.stop:
			stopping = true
		}
		if !stopping {
			b.mu.Lock()
			n := len(b.buf)
			b.mu.Unlock()
			if n > 0 && n < batchResults && b.lingers() {
				timer.Reset(batchDelay)
				select {
				case <-timer.C:
				case <-b.full:
					timer.Stop()
				case <-b.stop:
					timer.Stop()
					stopping = true
				}
			}
		}
		b.sending.Lock()
		b.mu.Lock()
		batch := b.buf
		b.buf = nil
		b.mu.Unlock()
		// Drain a stale "full" token: this batch holds everything.
		select {
		case <-b.full:
		default:
		}
		if len(batch) > 0 {
			b.send(batch)
		}
		b.sending.Unlock()
		if stopping {
			return
		}
	}
}

// sendOnce tries to deliver a lone result once, briefly (under b.sending).
func (b *resultBatcher) sendOnce(m *pb.Result) error {
	ctx, cancel := context.WithTimeout(context.Background(), loneResultTimeout)
	defer cancel()
	_, err := b.client.ReportResults(ctx, connect.NewRequest(&pb.ReportResultsRequest{WorkerId: int32(b.id), Results: []*pb.Result{m}}))
	return err
}

// loneResultTimeout bounds the one try of a lone result from the slot that
// made it: past it, the batcher's loop takes over.
const loneResultTimeout = time.Second

// send delivers one batch (under b.sending), retrying transient failures
// with backoff for up to giveUp. A batch is never dropped while the worker
// stays: if the scheduler refuses it for good (it no longer counts this
// worker, or the batch is malformed) or cannot be reached for giveUp, the
// worker stops (stopped), so the scheduler gives up on it and moves its
// work. The scheduler ignores repeats, so resending a batch it may have
// taken is safe.
func (b *resultBatcher) send(batch []*pb.Result) {
	if b.failed {
		return
	}
	req := &pb.ReportResultsRequest{WorkerId: int32(b.id), Results: batch}
	backoff := 5 * time.Millisecond
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := b.client.ReportResults(ctx, connect.NewRequest(req))
		cancel()
		if err == nil {
			return
		}
		switch connect.CodeOf(err) {
		case connect.CodeInvalidArgument, connect.CodeNotFound, connect.CodeFailedPrecondition, connect.CodePermissionDenied, connect.CodeUnauthenticated:
			b.fail(fmt.Errorf("the scheduler refused %d results: %w", len(batch), err))
			return
		}
		if time.Since(start) > b.giveUp {
			b.fail(fmt.Errorf("could not deliver %d results for %v: %w", len(batch), b.giveUp, err))
			return
		}
		b.log.Warn("reporting results failed; retrying", "results", len(batch), "err", err)
		select {
		case <-time.After(backoff):
		case <-b.stop:
			// Stopping: a last few tries, then give the batch up with
			// the worker (its deregistration moves the work).
			if time.Since(start) > time.Second {
				b.log.Error("stopping with results undelivered", "results", len(batch), "err", err)
				return
			}
			<-time.After(backoff)
		}
		backoff = min(2*backoff, time.Second)
	}
}

func (b *resultBatcher) fail(err error) {
	b.failed = true
	if b.stopped != nil {
		go b.stopped(err) // it deregisters: not on the batcher's loop
	}
}

// busy reports whether the worker has tasks running or queued (false
// before it has started).
func (p *WorkerProc) busy() bool {
	select {
	case <-p.ready:
	default:
		return false
	}
	running, queued := p.w.Busy()
	return running+queued > 0
}

// UploadDir is where the worker keeps the chunks clients uploaded.
func (p *WorkerProc) UploadDir() string { return p.uploads.Dir() }

// workerFigures is a worker as its metrics read it.
type workerFigures struct{ w *worker.Worker }

func (f workerFigures) Load() (slots, running, queued int) {
	running, queued = f.w.Busy()
	return f.w.Slots(), running, queued
}

func (f workerFigures) StoreStats() storage.Stats { return f.w.StoreStats() }
