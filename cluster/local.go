// Package cluster wires the scheduler and worker roles together: in one
// process for the local session, and (later) as separate processes.
package cluster

import (
	"context"
	"fmt"
	"runtime"

	"github.com/phobos-tensor/phobos/internal/metrics"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// LocalConfig sizes an in-process cluster.
type LocalConfig struct {
	Workers     int // default 1
	Slots       int // per worker; default GOMAXPROCS / Workers
	MaxAttempts int
	MemoryLimit int64  // per worker, bytes; 0: half of the machine's memory shared by the workers; < 0: no limit
	SpillDir    string // "": a temporary directory per worker
	// NoGoMemoryLimit leaves the process's Go memory limit alone (by
	// default it is lowered to the workers' budget while the cluster runs).
	NoGoMemoryLimit bool
	// Metrics, when set, receives the workers' series (each with its
	// worker label); the caller serves it.
	Metrics *metrics.Local
}

// Local is a scheduler and its workers in one process: the same code as a
// distributed cluster, wired with direct calls instead of the network.
type Local struct {
	Scheduler *scheduler.Scheduler
	Workers   []*worker.Worker

	releaseGoLimit func()
}

// relay forwards worker reports to the scheduler, which is created after the
// workers it reports to.
type relay struct{ s *scheduler.Scheduler }

func (r *relay) Report(res protocol.Result) { r.s.Report(res) }

// ReportBatch implements protocol.BatchReporter.
func (r *relay) ReportBatch(rs []protocol.Result) { r.s.ReportBatch(rs) }

// NewLocal starts an in-process cluster.
func NewLocal(cfg LocalConfig) *Local {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Slots <= 0 {
		cfg.Slots = max(1, runtime.GOMAXPROCS(0)/cfg.Workers)
	}
	limit := cfg.MemoryLimit
	if limit == 0 {
		limit = storage.DefaultLimit() / int64(cfg.Workers)
	}
	l := &Local{releaseGoLimit: func() {}}
	if limit > 0 && !cfg.NoGoMemoryLimit {
		// Keep the Go heap near the workers' budgets instead of letting it
		// grow to twice the live data before collecting.
		l.releaseGoLimit = storage.HoldGoMemoryLimit(storage.GoHeapLimit(limit * int64(cfg.Workers)))
	}
	rel := &relay{}
	execs := make([]protocol.Executor, cfg.Workers)
	for i := range cfg.Workers {
		st := storage.Open(storage.Config{Limit: max(limit, 0), SpillDir: cfg.SpillDir})
		wcfg := worker.Config{ID: i, Slots: cfg.Slots, QuietStartBytes: worker.DefaultQuietStartBytes, Lanes: true}
		var wm *metrics.Worker
		if cfg.Metrics != nil {
			wm = cfg.Metrics.Worker()
			wcfg.Observer = wm
		}
		w := worker.New(wcfg, st, rel, l)
		if wm != nil {
			// Fresh collectors with a label of their own cannot clash.
			_ = wm.Register(i, workerFigures{w})
		}
		l.Workers = append(l.Workers, w)
		execs[i] = w
	}
	l.Scheduler = scheduler.New(execs, scheduler.Config{MaxAttempts: cfg.MaxAttempts})
	rel.s = l.Scheduler
	return l
}

// ReadChunk implements worker.PeerReader between in-process workers.
func (l *Local) ReadChunk(ctx context.Context, w int, key protocol.ChunkKey) (*ndarray.Array, error) {
	if w < 0 || w >= len(l.Workers) {
		return nil, fmt.Errorf("cluster: no worker %d for chunk %v", w, key)
	}
	return l.Workers[w].Get(ctx, key)
}

// Close stops the scheduler, then the workers, removes their spill files and
// restores the Go memory limit.
func (l *Local) Close() {
	l.Scheduler.Close()
	for _, w := range l.Workers {
		w.Close()
		w.Store().Close()
	}
	l.releaseGoLimit()
}
