package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/phobos-tensor/phobos/rpc"
)

// OneProcessConfig describes a one-machine cluster whose roles (one
// scheduler, the workers, the web service) run in this process
// (`phobos cluster --one-process`, the cluster a Python session starts
// for itself). Each role listens on loopback as it would alone; their
// requests to each other go through a Loopback.
type OneProcessConfig struct {
	Workers  int   // default 1
	Slots    int   // per worker; default GOMAXPROCS / Workers
	Memory   int64 // per worker, bytes (0: the worker's default)
	SpillDir string
	// Listen is the web service's address (default: a free loopback port).
	Listen       string
	Token        string
	Exposure     Exposure
	AllowedHosts []string
	DataRoots    []string
	UserCode     UserCode
	// UserCodeTimeout bounds one call of a user's function (0: none).
	UserCodeTimeout time.Duration
	Version         string
	Logger          *slog.Logger
	// ReadyTimeout bounds the start (default 30 s).
	ReadyTimeout time.Duration
	// UnixSocket, when not "", is a path the web service also serves on
	// (WebConfig.UnixSocket).
	UnixSocket string
}

// OneProcess is a running cluster of roles in this process.
type OneProcess struct {
	URL          string // the web service
	SchedulerURL string
	WorkerURLs   []string

	sched    *SchedulerProc
	workers  []*WorkerProc
	web      *WebProc
	spillTmp string
	failed   chan error
	stopping chan struct{}
	stopOnce sync.Once
}

// LaunchOneProcess starts a scheduler, the workers and a web service in
// this process and returns once GET /api says the cluster can take work.
func LaunchOneProcess(ctx context.Context, cfg OneProcessConfig) (*OneProcess, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Slots <= 0 {
		cfg.Slots = max(1, runtime.GOMAXPROCS(0)/cfg.Workers)
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = 30 * time.Second
	}
	c := &OneProcess{failed: make(chan error, 1), stopping: make(chan struct{})}
	if err := defaultSpillDir(&cfg.SpillDir, &c.spillTmp); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.ReadyTimeout)
	defer cancel()
	fail := func(err error) (*OneProcess, error) {
		c.Stop()
		return nil, err
	}
	lb := NewLoopback(cfg.Token)
	log := discardLogger(cfg.Logger)
	var err error
	c.sched, err = StartScheduler(SchedulerConfig{Listen: "127.0.0.1:0", Token: cfg.Token, Loopback: lb, Logger: log.With("role", "scheduler")})
	if err != nil {
		return fail(err)
	}
	c.SchedulerURL = c.sched.URL()
	for i := range cfg.Workers {
		w, err := StartWorker(ctx, WorkerConfig{
			Scheduler: c.SchedulerURL, Listen: "127.0.0.1:0", Slots: cfg.Slots, Memory: cfg.Memory,
			SpillDir: filepath.Join(cfg.SpillDir, fmt.Sprintf("worker-%d", i)), DataRoots: cfg.DataRoots,
			Token: cfg.Token, UserCode: cfg.UserCode, UserCodeTimeout: cfg.UserCodeTimeout,
			Loopback: lb, Logger: log.With("role", "worker"),
		})
		if err != nil {
			return fail(err)
		}
		c.workers = append(c.workers, w)
		c.WorkerURLs = append(c.WorkerURLs, w.URL())
	}
	c.web, err = StartWeb(WebConfig{
		Scheduler: c.SchedulerURL, Listen: cfg.Listen, Version: cfg.Version, Token: cfg.Token,
		Exposure: cfg.Exposure, AllowedHosts: cfg.AllowedHosts, Loopback: lb, Logger: log.With("role", "web"),
		UnixSocket: cfg.UnixSocket,
	})
	if err != nil {
		return fail(err)
	}
	c.URL = c.web.URL()
	hc, err := NewClient(cfg.Token, rpc.TLSFiles{})
	if err != nil {
		return fail(err)
	}
	hc.Timeout = 2 * time.Second
	if err := WaitReady(ctx, hc, c.URL, cfg.Workers); err != nil {
		return fail(err)
	}
	go c.watch()
	return c, nil
}

// watch reports the first role that stops on its own.
func (c *OneProcess) watch() {
	var err error
	dones := make(chan error, len(c.workers))
	for _, w := range c.workers {
		go func() {
			select {
			case <-w.Done():
				err := w.Err()
				if err == nil {
					err = errors.New("it stopped")
				}
				dones <- fmt.Errorf("worker %d: %w", w.ID(), err)
			case <-c.stopping:
			}
		}()
	}
	select {
	case err = <-c.sched.Err():
		err = fmt.Errorf("scheduler: %w", err)
	case err = <-c.web.Err():
		err = fmt.Errorf("web: %w", err)
	case err = <-dones:
	case <-c.stopping:
		return
	}
	c.failed <- err
}

// Failed receives the error of a role that stopped while the cluster ran
// (the cluster is then stopped: a worker of this process does not die
// alone).
func (c *OneProcess) Failed() <-chan error { return c.failed }

// Stop stops the web service, then the workers, then the scheduler, and
// removes a temporary spill directory.
func (c *OneProcess) Stop() error {
	var errs []error
	c.stopOnce.Do(func() { errs = c.stop() })
	return errors.Join(errs...)
}

func (c *OneProcess) stop() []error {
	close(c.stopping)
	if c.web != nil {
		c.web.Close()
	}
	for _, w := range c.workers {
		w.Close()
	}
	if c.sched != nil {
		c.sched.Close()
	}
	var errs []error
	if c.spillTmp != "" {
		if err := os.RemoveAll(c.spillTmp); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
