package pyexec

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// maxFrame bounds a control message from an executor (tracebacks included).
const maxFrame = 16 << 20

// executor is one Python process and its shared-memory arena.
type executor struct {
	cmd  *exec.Cmd
	pid  int
	w    *os.File    // requests (the executor's fd 3)
	resp chan []byte // frames from the executor; closed at its end
	done chan struct{}
	vm   bool // process_vm_readv works on this executor
	shm  string

	arenaPath  string
	arena      []byte // mapped; grows by replacement
	arenaFresh bool   // its file is still linked: the executor has not opened it yet

	closeOnce sync.Once

	mu      sync.Mutex
	dead    bool
	waitErr error

	// rss is the resident memory last read (rssAt), charged to the
	// worker's budget while the executor lives; the pool's lock guards it.
	rss   int64
	rssAt time.Time
}

type hello struct {
	PID       int    `json:"pid"`
	ProbeAddr uint64 `json:"probe_addr"`
	Probe     string `json:"probe"`
}

type inputDesc struct {
	Off   int    `json:"off"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
}

type request struct {
	Op        string          `json:"op"`
	Key       string          `json:"key"`
	Arena     string          `json:"arena"`
	ArenaSize int             `json:"arena_size"`
	Inputs    []inputDesc     `json:"inputs"`
	DType     string          `json:"dtype"`
	Shape     []int           `json:"shape"`
	Info      json.RawMessage `json:"info,omitempty"`
	VM        bool            `json:"vm"`

	// Unknown is 1 + the axis along which Shape is only a bound, or 0.
	Unknown int `json:"unknown,omitempty"`
}

type response struct {
	Need     bool   `json:"need"`
	OK       bool   `json:"ok"`
	Addr     uint64 `json:"addr"`
	Nbytes   int    `json:"nbytes"`
	File     string `json:"file"`
	Mismatch *struct {
		DType string `json:"dtype"`
		Shape []int  `json:"shape"`
	} `json:"mismatch"`
	Error *struct {
		Type      string `json:"type"`
		Message   string `json:"message"`
		Traceback string `json:"traceback"`
	} `json:"error"`

	// Shape is the result's, for an output of unknown length.
	Shape []int `json:"shape"`
	// Strides, when set, are those of a result that is not contiguous
	// but whose rows are: read row by row (readRemoteRows).
	Strides []int `json:"strides"`
}

func startExecutor(cfg Config) (*executor, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	cmd := exec.Command(cfg.Python, "-m", "phobos.executor")
	// The cluster's token stays with the worker: a user's function has
	// no use for it.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PHOBOS_TOKEN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if cfg.PythonPath != "" {
		pp := cfg.PythonPath
		if old := os.Getenv("PYTHONPATH"); old != "" {
			pp += string(os.PathListSeparator) + old
		}
		cmd.Env = append(cmd.Env, "PYTHONPATH="+pp)
	}
	cmd.ExtraFiles = []*os.File{reqR, respW}
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	// The executor dies with its worker.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		return nil, fmt.Errorf("starting the python executor (%s -m phobos.executor): %w", cfg.Python, err)
	}
	e := &executor{shm: cfg.ShmDir, cmd: cmd, pid: cmd.Process.Pid, w: reqW, resp: make(chan []byte, 1), done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		e.mu.Lock()
		e.waitErr, e.dead = err, true
		e.mu.Unlock()
		close(e.done)
	}()
	go e.readLoop(respR)
	var h hello
	select {
	case f, ok := <-e.resp:
		if ok {
			err = json.Unmarshal(f, &h)
		} else {
			<-e.done
			err = fmt.Errorf("it ended before it was ready (%s); is python3-cloudpickle installed, and is the phobos package on its path (PHOBOS_PYTHONPATH)?", e.cause())
		}
	case <-time.After(60 * time.Second):
		err = errors.New("it did not start within a minute")
	}
	if err != nil {
		e.kill()
		return nil, fmt.Errorf("python executor: %w", err)
	}
	// A read of the executor's memory: where the kernel refuses it (a
	// ptrace policy), results come through a shared file instead.
	probe := make([]byte, len(h.Probe))
	if len(probe) > 0 {
		if n, err := readRemote(e.pid, probe, h.ProbeAddr); err == nil && n == len(probe) && string(probe) == h.Probe {
			e.vm = true
		}
	}
	return e, nil
}

func (e *executor) readLoop(r *os.File) {
	defer close(e.resp)
	defer r.Close()
	br := bufio.NewReader(r)
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return
		}
		n := binary.LittleEndian.Uint32(hdr[:])
		if n > maxFrame {
			return
		}
		f := make([]byte, n)
		if _, err := io.ReadFull(br, f); err != nil {
			return
		}
		e.resp <- f
	}
}

// send writes one frame in one write: a call costs the executor one
// wake-up, not two.
func (e *executor) send(b []byte) error {
	f := make([]byte, 4+len(b))
	binary.LittleEndian.PutUint32(f, uint32(len(b)))
	copy(f[4:], b)
	_, err := e.w.Write(f)
	return err
}

func (e *executor) isDead() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dead
}

// cause says how a dead executor ended.
func (e *executor) cause() string {
	e.mu.Lock()
	err := e.waitErr
	e.mu.Unlock()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				return "killed by signal " + ws.Signal().String()
			}
			return fmt.Sprintf("exited with status %d", ws.ExitStatus())
		}
	}
	if err != nil {
		return err.Error()
	}
	return "exited with status 0"
}

// kill ends the process; safe to call twice and from any goroutine. The
// arena stays mapped until release: a call may still be copying into it.
func (e *executor) kill() {
	e.mu.Lock()
	dead := e.dead
	e.dead = true
	e.mu.Unlock()
	if !dead {
		_ = e.cmd.Process.Kill()
	}
	<-e.done
	e.closeOnce.Do(func() { e.w.Close() })
}

// release unmaps the arena of a dead executor; only its user calls it,
// once no call runs on it.
func (e *executor) release() { e.dropArena() }

func (e *executor) dropArena() {
	if e.arena != nil {
		_ = unix.Munmap(e.arena)
		e.arena = nil
	}
	if e.arenaFresh {
		os.Remove(e.arenaPath)
		e.arenaFresh = false
	}
}

func (e *executor) growArena(dir string, need int) error {
	e.dropArena()
	size := max(need, 1<<20)
	size = (size + 4095) &^ 4095
	f, err := os.CreateTemp(dir, "phobos-exec-*")
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(int64(size)); err != nil {
		os.Remove(f.Name())
		return err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	e.arena, e.arenaPath, e.arenaFresh = m, f.Name(), true
	return nil
}

func align64(n int) int { return (n + 63) &^ 63 }

// run calls the function on one block. On a death, a timeout or a
// cancel the executor is killed, and isDead reports it.
func (e *executor) run(ctx context.Context, call ops.BlockCall, timeout time.Duration) (*ndarray.Array, error) {
	blocks := call.Blocks()
	need := 0
	for _, j := range blocks {
		need += align64(j.Nbytes())
	}
	if need > len(e.arena) {
		if err := e.growArena(e.shm, need); err != nil {
			return nil, fmt.Errorf("%s: shared memory for the inputs: %w", call.Op, err)
		}
	}
	key := call.Digest
	if key == "" {
		key = ops.PayloadDigest(call.Payload)
	}
	req := request{Op: call.Op, Key: key, Arena: e.arenaPath, ArenaSize: len(e.arena),
		DType: call.Out.DType.String(), Shape: call.Out.Shape, Unknown: int(call.Out.Unknown), Info: call.Info, VM: e.vm}
	off := 0
	for _, j := range blocks {
		// Each part (a whole input, or a piece of a block assembled from
		// its neighbours' borders) is written straight to its place.
		n := j.Nbytes()
		dst, err := ndarray.Wrap(j.DType, j.Shape, e.arena[off:off+n:off+n])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", call.Op, err)
		}
		if err := j.Into(dst); err != nil {
			return nil, fmt.Errorf("%s: %w", call.Op, err)
		}
		req.Inputs = append(req.Inputs, inputDesc{Off: off, DType: j.DType.String(), Shape: j.Shape})
		off += align64(n)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	if err := e.send(b); err != nil {
		return nil, e.died(call.Op)
	}
	for {
		var f []byte
		var ok bool
		select {
		case f, ok = <-e.resp:
		case <-ctx.Done():
			e.kill()
			return nil, ctx.Err()
		case <-deadline:
			e.kill()
			return nil, &TimeoutError{Op: call.Op, Limit: timeout}
		}
		if !ok {
			return nil, e.died(call.Op)
		}
		var r response
		if err := json.Unmarshal(f, &r); err != nil {
			e.kill()
			return nil, fmt.Errorf("%s: malformed answer from the python executor: %w", call.Op, err)
		}
		if e.arenaFresh {
			// The executor has mapped the arena by now: the name can go.
			os.Remove(e.arenaPath)
			e.arenaFresh = false
		}
		switch {
		case r.Need:
			if err := e.send(call.Payload); err != nil {
				return nil, e.died(call.Op)
			}
			continue
		case r.Error != nil:
			return nil, &UserError{Op: call.Op, Kind: r.Error.Type, Message: r.Error.Message, Traceback: r.Error.Traceback}
		case r.Mismatch != nil:
			if dt, err := ndarray.ParseDType(r.Mismatch.DType); err == nil {
				return nil, &ops.BlockMismatchError{Op: call.Op, Got: ops.Meta{Shape: r.Mismatch.Shape, DType: dt}, Want: call.Out}
			}
			return nil, fmt.Errorf("%s returned a block of %s %v, but %v %v was declared (give dtype= and chunks= as the function's output is)",
				call.Op, r.Mismatch.DType, r.Mismatch.Shape, call.Out.DType, call.Out.Shape)
		case r.OK:
			return e.result(call, r)
		}
		e.kill()
		return nil, fmt.Errorf("%s: unexpected answer from the python executor", call.Op)
	}
}

// died is the error of a call whose executor ended under it.
func (e *executor) died(op string) error {
	e.kill()
	return &ExecutorDiedError{Op: op, Cause: e.cause()}
}

// result reads the function's result into a new array: one copy, from the
// executor's memory, or from its shared file where that read is refused.
func (e *executor) result(call ops.BlockCall, r response) (*ndarray.Array, error) {
	shape := call.Out.Shape
	if call.Out.Unknown != 0 {
		if !call.Out.Fits(r.Shape) {
			return nil, fmt.Errorf("%s: the executor answered a block of shape %v for %v", call.Op, r.Shape, call.Out)
		}
		shape = r.Shape
	}
	out, err := ndarray.NewUninit(call.Out.DType, shape...)
	if err != nil {
		return nil, err
	}
	raw, err := out.RawBytes()
	if err != nil {
		return nil, err
	}
	if r.Nbytes != len(raw) {
		return nil, fmt.Errorf("%s: the executor answered %d bytes for a block of %d", call.Op, r.Nbytes, len(raw))
	}
	if len(raw) == 0 {
		return out, nil
	}
	if r.File != "" {
		f, err := os.Open(r.File)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the result: %w", call.Op, err)
		}
		defer f.Close()
		defer os.Remove(r.File)
		if _, err := f.ReadAt(raw, 0); err != nil {
			return nil, fmt.Errorf("%s: reading the result: %w", call.Op, err)
		}
		return out, nil
	}
	if r.Strides != nil {
		if err := readRemoteRows(e.pid, raw, r.Addr, shape, r.Strides, call.Out.DType.Size()); err != nil {
			return nil, fmt.Errorf("%s: reading the result from the executor: %w", call.Op, err)
		}
		return out, nil
	}
	n, err := readRemote(e.pid, raw, r.Addr)
	if err != nil || n != len(raw) {
		return nil, fmt.Errorf("%s: reading the result from the executor (%d of %d bytes): %v", call.Op, n, len(raw), err)
	}
	return out, nil
}

// readRemote copies len(dst) bytes at addr in process pid into dst.
func readRemote(pid int, dst []byte, addr uint64) (int, error) {
	done := 0
	for done < len(dst) {
		local := []unix.Iovec{{Base: (*byte)(unsafe.Pointer(&dst[done]))}}
		local[0].SetLen(len(dst) - done)
		remote := []unix.RemoteIovec{{Base: uintptr(addr) + uintptr(done), Len: len(dst) - done}}
		n, err := unix.ProcessVMReadv(pid, local, remote, 0)
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, io.ErrUnexpectedEOF
		}
		done += n
	}
	return done, nil
}
