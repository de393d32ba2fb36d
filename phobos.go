// Package phobos is the entry point of Phobos, a distributed tensor engine:
// build lazy tensors with package tensor, then execute them in a Session.
//
//	sess, err := phobos.NewSession()
//	...
//	g := tensor.NewGenerator(42)
//	a := g.Rand([]int{10000, 10000}, tensor.Chunks(2500))
//	s := a.Add(1).Mul(2).Sum()
//	res, err := sess.Execute(ctx, s)
//
// NewSession starts an embedded local cluster: the real scheduler and worker
// code wired in-process, no server to start.
package phobos

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/execution"
	"github.com/phobos-tensor/phobos/internal/metrics"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
)

// Option configures a Session.
type Option func(*config)

type config struct {
	workers     int
	slots       int
	maxAttempts int
	progress    func(Progress)
	noFuse      bool
	memLimit    int64       // per-worker memory budget in bytes; 0: default
	spillDir    string      // where workers spill chunks; "": a temporary directory
	token       string      // the cluster's shared token (Connect)
	tls         *tls.Config // how Connect checks an https:// cluster; nil: system roots
	noGoLimit   bool        // leave the process's Go memory limit alone
	inlineMax   int64       // client arrays above this travel as uploads (Connect); <0: all
	metricsAddr string      // where NewSession serves its metrics; "": nowhere
	dashboard   string      // address to serve a local session's dashboard on; "": none
	// failoverWait: how long Connect's requests wait out a paused cluster; 0: FailoverWait
	failoverWait time.Duration
}

// WithGoMemoryLimit lets NewSession lower the process's Go memory limit to
// its workers' budget while it is open (true, the default) or not (false).
func WithGoMemoryLimit(on bool) Option { return func(c *config) { c.noGoLimit = !on } }

// WithTLSConfig sets how Connect checks the certificate of an https://
// cluster (for a private CA: RootCAs); without it the system's roots are
// used.
func WithTLSConfig(cfg *tls.Config) Option { return func(c *config) { c.tls = cfg } }

// WithToken gives Connect the cluster's shared token (phobos roles'
// --token-file or $PHOBOS_TOKEN); without it a cluster that has one answers
// 401.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithInlineLimit sets the size in bytes above which a Connect session
// uploads a client array (FromArray, FromSlice) chunk by chunk instead of
// sending it inside the graph (default 1 MiB; 0 uploads every array).
// Local sessions never copy client arrays.
func WithInlineLimit(bytes int64) Option {
	return func(c *config) {
		c.inlineMax = bytes
		if bytes == 0 {
			c.inlineMax = -1
		}
	}
}

// WithFailoverWait sets how long a Connect session retries a request the
// cluster answers as paused (HTTP 503: its session between schedulers of
// a ring, or its scheduler cut off from etcd) before the call fails with
// that refusal (default FailoverWait). Local sessions never pause.
func WithFailoverWait(d time.Duration) Option { return func(c *config) { c.failoverWait = d } }

// WithMemoryLimit sets each worker's memory budget in bytes.
func WithMemoryLimit(bytes int64) Option { return func(c *config) { c.memLimit = bytes } }

// WithSpillDir sets the directory workers spill chunks to.
func WithSpillDir(dir string) Option { return func(c *config) { c.spillDir = dir } }

// WithWorkers sets the number of in-process workers (default 1).
func WithWorkers(n int) Option { return func(c *config) { c.workers = n } }

// WithSlots sets the ops each worker runs at once (default GOMAXPROCS / workers).
func WithSlots(n int) Option { return func(c *config) { c.slots = n } }

// WithMaxAttempts sets how often a failed op is tried before it is fatal.
func WithMaxAttempts(n int) Option { return func(c *config) { c.maxAttempts = n } }

// WithFusion turns the fusion pass on (the default) or off, so its gain can
// be measured and its results compared.
func WithFusion(on bool) Option { return func(c *config) { c.noFuse = !on } }

// WithProgress calls fn about ten times a second while Execute runs, and once at the end.
func WithProgress(fn func(Progress)) Option { return func(c *config) { c.progress = fn } }

// Progress counts the chunk ops of an execution by state.
type Progress struct {
	Total, Finished, Running, Ready int
}

// Stats describe the last execution.
type Stats struct {
	ChunkOps   int           // chunk ops executed
	TileTime   time.Duration // building, tiling and optimising the graph
	RunTime    time.Duration // scheduling and executing
	FetchTime  time.Duration // assembling results
	MovedBytes int64         // input bytes read across workers
	Recomputed int64         // lost chunks recomputed from their lineage (dead worker, lost spill file)
	PeakBytes  int64         // most bytes any worker's store has held at once since it started (remote: as of the last heartbeats)
	Memory     MemoryStats   // spilling and recomputation during this execution
}

// MemoryStats count what the workers' stores did to stay within their
// budgets during one execution, summed over workers.
type MemoryStats struct {
	SpilledBytes    int64   `json:"spilled_bytes"`    // written to spill files
	LoadedBytes     int64   `json:"loaded_bytes"`     // read back from spill files
	DroppedBytes    int64   `json:"dropped_bytes"`    // generated chunks evicted to be recomputed instead of spilled
	RecomputedBytes int64   `json:"recomputed_bytes"` // regenerated after a drop or a lost spill file
	SpillSeconds    float64 `json:"spill_s"`
	LoadSeconds     float64 `json:"load_s"`
	PeakUsedBytes   int64   `json:"peak_used_bytes"` // most memory in use (stored + reserved) on one worker, since the session began
}

func (b *localBackend) memory() MemoryStats {
	var m MemoryStats
	for _, w := range b.local.Workers {
		st := w.StoreStats()
		m.SpilledBytes += st.SpilledBytes
		m.LoadedBytes += st.LoadedBytes
		m.DroppedBytes += st.DroppedBytes
		m.RecomputedBytes += st.RecomputedBytes
		m.SpillSeconds += st.SpillTime.Seconds()
		m.LoadSeconds += st.LoadTime.Seconds()
		m.PeakUsedBytes = max(m.PeakUsedBytes, st.PeakUsed)
	}
	return m
}

// since is the activity between two cumulative readings.
func (m MemoryStats) since(before MemoryStats) MemoryStats {
	return MemoryStats{
		SpilledBytes:    m.SpilledBytes - before.SpilledBytes,
		LoadedBytes:     m.LoadedBytes - before.LoadedBytes,
		DroppedBytes:    m.DroppedBytes - before.DroppedBytes,
		RecomputedBytes: m.RecomputedBytes - before.RecomputedBytes,
		SpillSeconds:    m.SpillSeconds - before.SpillSeconds,
		LoadSeconds:     m.LoadSeconds - before.LoadSeconds,
		PeakUsedBytes:   m.PeakUsedBytes,
	}
}

// Session executes tensors, on an embedded local cluster (NewSession) or on
// a remote one (Connect); both have the same methods.
//
// A Session may run several Executes at once, from several goroutines.
type Session struct {
	cfg config
	be  backend

	mu   sync.Mutex
	last Stats // of the last Execute to end

	metricsURL string
}

// backend runs tensors somewhere: in-process, or through a cluster's REST API.
type backend interface {
	execute(ctx context.Context, s *Session, ts []*tensor.Tensor) ([]*ndarray.Array, Stats, error)
	close() error
}

// localBackend is the embedded cluster: the real scheduler and workers,
// wired in-process.
type localBackend struct {
	local   *cluster.Local
	metrics *metricsServer  // nil without WithMetrics
	dash    *localDashboard // nil without WithDashboard

	heldMu sync.Mutex
	held   map[uint64]*scheduler.Run // persisted runs by graph id (persist.go)
}

// NewSession starts an embedded local cluster.
//
// While it is open, the process's Go memory limit (runtime/debug's
// SetMemoryLimit) is lowered to the workers' memory budget plus headroom,
// so the garbage collector keeps the heap near the budget instead of
// letting it double; the limits of several open sessions add up, a lower
// GOMEMLIMIT wins, and closing the last session restores the limit. This is
// its only effect on the process; WithGoMemoryLimit(false) turns it off.
func NewSession(opts ...Option) (*Session, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.workers < 0 || c.slots < 0 {
		return nil, fmt.Errorf("phobos: bad session size: %d workers, %d slots", c.workers, c.slots)
	}
	lcfg := cluster.LocalConfig{Workers: c.workers, Slots: c.slots, MaxAttempts: c.maxAttempts, MemoryLimit: c.memLimit, SpillDir: c.spillDir, NoGoMemoryLimit: c.noGoLimit}
	var ms *metricsServer
	if c.metricsAddr != "" {
		lcfg.Metrics = metrics.NewLocal()
		var err error
		if ms, err = serveMetrics(c.metricsAddr, lcfg.Metrics); err != nil {
			return nil, err
		}
	}
	local := cluster.NewLocal(lcfg)
	b := &localBackend{local: local, metrics: ms}
	if c.dashboard != "" {
		d, err := startDashboard(c.dashboard, local)
		if err != nil {
			ms.close()
			local.Close()
			return nil, err
		}
		b.dash = d
	}
	s := &Session{cfg: c, be: b}
	if ms != nil {
		s.metricsURL = ms.url
	}
	return s, nil
}

// Close stops the session's cluster (or disconnects from a remote one).
func (s *Session) Close() error { return s.be.close() }

func (b *localBackend) close() error {
	b.releaseAll()
	b.metrics.close()
	var err error
	if b.dash != nil {
		err = b.dash.close()
	}
	b.local.Close()
	return err
}

// Stats returns the statistics of the last Execute.
// With several at once, it is the one that ended last, and its Memory
// figures include what the others did meanwhile.
func (s *Session) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Plan is a tiled and optimised chunk graph ready to run, with the graph
// after each pass for explain.
type Plan = optimize.Plan

// Compile builds, tiles and optimises (culls, fuses) the graph of the given
// tensors, as Execute does by default.
func Compile(ts ...*tensor.Tensor) (*Plan, error) { return execution.PlanTensors(true, ts) }

// Explain compiles the tensors as Execute would and describes the chunk
// graph after each pass: counts, fused groups and bytes to be materialised.
func (s *Session) Explain(ts ...*tensor.Tensor) (*Plan, error) {
	return execution.PlanTensors(!s.cfg.noFuse, ts)
}

// Execute computes the tensors together, sharing common subgraphs, and
// returns their values. If ctx ends, running kernels are interrupted and
// Execute returns once they have stopped.
func (s *Session) Execute(ctx context.Context, ts ...*tensor.Tensor) ([]*ndarray.Array, error) {
	out, st, err := s.be.execute(ctx, s, ts)
	s.mu.Lock()
	s.last = st
	s.mu.Unlock()
	return out, err
}

func (b *localBackend) execute(ctx context.Context, s *Session, ts []*tensor.Tensor) ([]*ndarray.Array, Stats, error) {
	t0 := time.Now()
	ex, err := execution.CompileTensors(!s.cfg.noFuse, ts)
	if err != nil {
		return nil, Stats{}, err
	}
	t1 := time.Now()
	memBefore := b.memory()
	// A local cluster is no ring of schedulers: no fence.
	if err := ex.Submit(ctx, b.local.Scheduler, protocol.Fence{}); err != nil {
		return nil, Stats{}, err
	}
	run := ex.Run
	defer run.Release()
	ended := b.dashboardStarted(ts, run, t0, t1.Sub(t0))
	err = execution.Follow(ctx, run, 100*time.Millisecond, s.progressReport())
	ended(err)
	t2 := time.Now()
	st := Stats{ChunkOps: ex.Graph.Len(), TileTime: t1.Sub(t0), RunTime: t2.Sub(t1), MovedBytes: run.MovedBytes(), Recomputed: run.Recomputed()}
	for _, w := range b.local.Workers {
		st.PeakBytes = max(st.PeakBytes, w.StoreStats().PeakBytes)
	}
	st.Memory = b.memory().since(memBefore)
	if err != nil {
		var oe *scheduler.OpError
		if errors.As(err, &oe) {
			return nil, st, fmt.Errorf("phobos: execute: %w", err)
		}
		return nil, st, err
	}
	out := make([]*ndarray.Array, len(ex.Results))
	for i, r := range ex.Results {
		a, err := execution.Assemble(ctx, run, r, b.read)
		if err != nil {
			return nil, st, fmt.Errorf("phobos: result %d: %w", i, err)
		}
		out[i] = a
	}
	st.FetchTime = time.Since(t2)
	return out, st, nil
}

// read reads a result chunk from the in-process worker holding it.
func (b *localBackend) read(ctx context.Context, w int, key protocol.ChunkKey) (*ndarray.Array, error) {
	if w >= len(b.local.Workers) {
		return nil, fmt.Errorf("result chunk %d has no location", key.Node)
	}
	return b.local.Workers[w].Get(ctx, key)
}

// AssembleTiled builds a whole result array from its chunks, read with get.
func AssembleTiled(t *ops.Tiled, get func(ops.ChunkRef) (*ndarray.Array, error)) (*ndarray.Array, error) {
	return execution.AssembleTiled(t, get)
}

// progressReport turns a run's ops per state into the session's Progress
// callback, if it asked for one.
func (s *Session) progressReport() func(map[scheduler.State]int64) {
	fn := s.cfg.progress
	if fn == nil {
		return nil
	}
	return func(c map[scheduler.State]int64) {
		var p Progress
		for st, n := range c {
			p.Total += int(n)
			switch st {
			case scheduler.Finished, scheduler.Freed:
				p.Finished += int(n)
			case scheduler.Running:
				p.Running += int(n)
			case scheduler.Ready:
				p.Ready += int(n)
			}
		}
		fn(p)
	}
}

// ExecuteFloat64s computes one tensor and returns its elements in C order as float64.
func (s *Session) ExecuteFloat64s(ctx context.Context, t *tensor.Tensor) ([]float64, error) {
	res, err := s.Execute(ctx, t)
	if err != nil {
		return nil, err
	}
	return res[0].ToFloat64s(), nil
}

// ExecuteScalar computes a one-element tensor and returns its value as float64.
func (s *Session) ExecuteScalar(ctx context.Context, t *tensor.Tensor) (float64, error) {
	res, err := s.Execute(ctx, t)
	if err != nil {
		return 0, err
	}
	return res[0].Item()
}
