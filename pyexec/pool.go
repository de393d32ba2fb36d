// Package pyexec runs users' Python functions on chunks (ops.UserBlock) in
// long-lived executor processes beside a worker: `python3 -m
// phobos.executor`, one per slot, started on first use and started again
// when one dies. The function arrives as a cloudpickle payload, unpickled
// once per executor and kept by its hash.
//
// A chunk crosses once each way. In: the worker copies each input block
// into a shared-memory arena (a file in /dev/shm mapped by both
// processes), which the executor wraps as NumPy arrays without copying.
// Out: the worker reads the function's result straight from the
// executor's memory into the output chunk's buffer (process_vm_readv);
// where the kernel refuses that, the executor writes the result into a
// shared-memory file the worker reads, a second copy. Only small JSON
// control messages cross the pipes.
package pyexec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Config sets up a Pool.
type Config struct {
	// Python is the interpreter (default /usr/bin/python3).
	Python string
	// PythonPath is prepended to the executors' PYTHONPATH: the directory
	// holding the phobos package, when it is not installed (default
	// $PHOBOS_PYTHONPATH).
	PythonPath string
	// Slots is the most executors run at once (default 1).
	Slots int
	// Timeout is the longest one call may run before its executor is
	// killed; 0 means no limit.
	Timeout time.Duration
	// ShmDir holds the shared-memory arenas (default /dev/shm).
	ShmDir string
	// Logger receives executor starts and deaths; nil: slog.Default().
	Logger *slog.Logger
	// Memory, when set, is told the executors' resident memory in all
	// (their anonymous and shared pages, read from /proc) whenever it is
	// read again: at each start and end of an executor, and after calls
	// (at most every 50 ms unless a call moved a megabyte or more). A
	// worker charges it to its memory budget (storage.Store.SetExternal).
	Memory func(bytes int64)
}

// Pool is a worker's executors. It implements ops.BlockRunner; it is safe
// for concurrent use.
type Pool struct {
	cfg  Config
	idle chan *executor // started executors not running a call
	sem  chan struct{}  // one token per slot
	log  *slog.Logger

	mu      sync.Mutex
	all     map[*executor]bool
	closed  bool
	started int // executors started, for tests and logs
}

// New makes a pool; no process starts before the first call.
func New(cfg Config) *Pool {
	if cfg.Python == "" {
		cfg.Python = "/usr/bin/python3"
	}
	if cfg.PythonPath == "" {
		cfg.PythonPath = os.Getenv("PHOBOS_PYTHONPATH")
	}
	if cfg.Slots <= 0 {
		cfg.Slots = 1
	}
	if cfg.ShmDir == "" {
		cfg.ShmDir = "/dev/shm"
	}
	p := &Pool{cfg: cfg, idle: make(chan *executor, cfg.Slots), sem: make(chan struct{}, cfg.Slots), log: cfg.Logger, all: map[*executor]bool{}}
	if p.log == nil {
		p.log = slog.Default()
	}
	return p
}

// Started is how many executor processes the pool has started so far.
func (p *Pool) Started() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// Close stops every executor. Calls running end with an error.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	all := p.all
	p.all = map[*executor]bool{}
	p.reportLocked()
	p.mu.Unlock()
	for e := range all {
		e.kill()
	}
	// Idle executors are nobody's: their arenas go now. Running ones are
	// released by their calls, which see them dead.
	for {
		select {
		case e := <-p.idle:
			e.release()
		default:
			return nil
		}
	}
}

// ExecutorDiedError is an executor process that ended during a call
// (a crash, os._exit, killed for memory). The call may succeed on another
// attempt, so it is retryable.
type ExecutorDiedError struct {
	Op    string
	Cause string // "killed by signal segmentation fault", "exited with status 3"
}

func (e *ExecutorDiedError) Error() string {
	return fmt.Sprintf("%s: the Python executor running it died (%s)", e.Op, e.Cause)
}

// Retryable implements ops.Retryable.
func (e *ExecutorDiedError) Retryable() bool { return true }

// TimeoutError is a call that ran past the pool's Timeout; its executor
// was killed.
type TimeoutError struct {
	Op    string
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: the user function ran longer than the time limit of %v and was killed (--user-code-timeout)", e.Op, e.Limit)
}

// UserError is an exception raised by the user's function. Kind is the
// exception's class as module.qualname; Traceback is Python's own text.
type UserError struct {
	Op        string
	Kind      string
	Message   string
	Traceback string
}

// Error keeps a fixed form, which the Python client parses to raise the
// same exception class: "<op>: user function raised <Kind>: <message>",
// then the traceback.
func (e *UserError) Error() string {
	return fmt.Sprintf("%s: user function raised %s: %s\n%s", e.Op, e.Kind, e.Message, e.Traceback)
}

// RunBlock implements ops.BlockRunner.
func (p *Pool) RunBlock(ctx context.Context, call ops.BlockCall) (*ndarray.Array, error) {
	outs, errs := p.RunBlocks(ctx, []ops.BlockCall{call})
	return outs[0], errs[0]
}

// RunBlocks implements ops.BatchRunner: the calls, of one function, go
// to one executor in one request. The time limit is Timeout per call.
func (p *Pool) RunBlocks(ctx context.Context, calls []ops.BlockCall) ([]*ndarray.Array, []error) {
	outs := make([]*ndarray.Array, len(calls))
	errs := make([]error, len(calls))
	fail := func(f func(op string) error) ([]*ndarray.Array, []error) {
		for i, c := range calls {
			errs[i] = f(c.Op)
		}
		return outs, errs
	}
	if len(calls) == 0 {
		return outs, errs
	}
	for _, c := range calls[1:] {
		if c.Digest != calls[0].Digest || (c.Digest == "" && string(c.Payload) != string(calls[0].Payload)) {
			return fail(func(op string) error { return fmt.Errorf("%s: a batch of calls of different functions", op) })
		}
	}
	if n := len(calls[0].Payload); n > ops.MaxUserPayload {
		return fail(func(op string) error {
			return fmt.Errorf("%s: pickled function is %d bytes, over the limit of %d", op, n, ops.MaxUserPayload)
		})
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return fail(func(string) error { return ctx.Err() })
	}
	defer func() { <-p.sem }()
	var e *executor
	select {
	case e = <-p.idle:
	default:
		var err error
		if e, err = p.start(); err != nil {
			return fail(func(op string) error { return fmt.Errorf("%s: %w", op, err) })
		}
	}
	outs, errs = e.runBatch(ctx, calls, p.cfg.Timeout)
	if e.isDead() {
		p.forget(e)
	} else {
		var moved int64
		for _, c := range calls {
			moved += c.Out.Nbytes() + c.InBytes()
		}
		p.chargeMemory(e, false, int(moved))
		p.idle <- e
	}
	return outs, errs
}

func (p *Pool) forget(e *executor) {
	e.kill()
	e.release()
	p.mu.Lock()
	if p.all[e] {
		delete(p.all, e)
		p.reportLocked()
	}
	p.mu.Unlock()
}

func (p *Pool) start() (*executor, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("python executor pool closed")
	}
	p.started++
	n := p.started
	p.mu.Unlock()
	e, err := startExecutor(p.cfg)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		e.kill()
		e.release()
		return nil, errors.New("python executor pool closed")
	}
	p.all[e] = true
	p.mu.Unlock()
	p.chargeMemory(e, true, 0)
	p.log.Debug("python executor started", "n", n)
	return e, nil
}
