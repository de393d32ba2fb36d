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
	"sync/atomic"
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

// request is one message to an executor: calls of one function (Key),
// whose inputs lie in the arena.
type request struct {
	Key       string     `json:"key"`
	Arena     string     `json:"arena"`
	ArenaSize int        `json:"arena_size"`
	VM        bool       `json:"vm"`
	Calls     []callDesc `json:"calls"`
}

type callDesc struct {
	Op     string          `json:"op"`
	Inputs []inputDesc     `json:"inputs"`
	DType  string          `json:"dtype"`
	Shape  []int           `json:"shape"`
	Info   json.RawMessage `json:"info,omitempty"`

	// Unknown is 1 + the axis along which Shape is only a bound, or 0.
	Unknown int `json:"unknown,omitempty"`
	// Out, when set, is where in the arena the executor copies the
	// result (a large one; see arenaOutMin).
	Out int `json:"out,omitempty"`
}

// answer is an executor's reply to a request: a request for the payload
// (Need), an error unpickling it, or one result per call.
type answer struct {
	Need    bool       `json:"need"`
	Error   *userErr   `json:"error"`
	Results []response `json:"results"`
}

type userErr struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
}

// response is the answer for one call.
type response struct {
	OK       bool   `json:"ok"`
	Addr     uint64 `json:"addr"`
	Nbytes   int    `json:"nbytes"`
	File     string `json:"file"`
	Mismatch *struct {
		DType string `json:"dtype"`
		Shape []int  `json:"shape"`
	} `json:"mismatch"`
	Error *userErr `json:"error"`

	// Shape is the result's, for an output of unknown length.
	Shape []int `json:"shape"`
	// Strides, when set, are those of a result that is not contiguous
	// but whose rows are: read row by row (readRemoteRows).
	Strides []int `json:"strides"`
	// Arena says the result was copied into the arena at its call's Out.
	Arena bool `json:"arena"`
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

// runBatch calls one function on several blocks in one request and one
// answer. All calls share the payload of the first (the caller groups
// them by digest). The time limit, timeout, is each call's: one that runs
// from timeout to twice that is killed. On a death, a timeout or a cancel
// the executor is killed, every call fails alike, and isDead reports it.
func (e *executor) runBatch(ctx context.Context, calls []ops.BlockCall, timeout time.Duration) ([]*ndarray.Array, []error) {
	outs := make([]*ndarray.Array, len(calls))
	errs := make([]error, len(calls))
	all := func(f func(op string) error) ([]*ndarray.Array, []error) {
		for i, c := range calls {
			outs[i], errs[i] = nil, f(c.Op)
		}
		return outs, errs
	}
	need := arenaHeader
	blocks := make([][]ops.Join, len(calls))
	for i, c := range calls {
		blocks[i] = c.Blocks()
		for _, j := range blocks[i] {
			need += align64(j.Nbytes())
		}
		if n := c.Out.Nbytes(); n >= arenaOutMin {
			need += align64(int(n))
		}
	}
	if need > len(e.arena) {
		if err := e.growArena(e.shm, need); err != nil {
			return all(func(op string) error { return fmt.Errorf("%s: shared memory for the inputs: %w", op, err) })
		}
	}
	first := calls[0]
	key := first.Digest
	if key == "" {
		key = ops.PayloadDigest(first.Payload)
	}
	req := request{Key: key, Arena: e.arenaPath, ArenaSize: len(e.arena), VM: e.vm, Calls: make([]callDesc, len(calls))}
	e.setStarted(0)
	off := arenaHeader
	for i, c := range calls {
		d := &req.Calls[i]
		*d = callDesc{Op: c.Op, DType: c.Out.DType.String(), Shape: c.Out.Shape, Unknown: int(c.Out.Unknown), Info: c.Info}
		for _, j := range blocks[i] {
			// Each part (a whole input, or a piece of a block assembled
			// from its neighbours' borders) is written straight to its place.
			n := j.Nbytes()
			dst, err := ndarray.Wrap(j.DType, j.Shape, e.arena[off:off+n:off+n])
			if err == nil {
				err = j.Into(dst)
			}
			if err != nil {
				return all(func(op string) error { return fmt.Errorf("%s: %w", op, err) })
			}
			d.Inputs = append(d.Inputs, inputDesc{Off: off, DType: j.DType.String(), Shape: j.Shape})
			off += align64(n)
		}
		if n := int(c.Out.Nbytes()); n >= arenaOutMin {
			d.Out = off
			off += align64(n)
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return all(func(string) error { return err })
	}
	// The limit is per call: at each tick of timeout, the executor must
	// have started another call since the last (the arena's header counts
	// them), or the one running has run at least timeout, and is killed.
	var tick <-chan time.Time
	if timeout > 0 {
		t := time.NewTicker(timeout)
		defer t.Stop()
		tick = t.C
	}
	seen := uint64(0)
	if err := e.send(b); err != nil {
		return all(e.died)
	}
	for {
		var f []byte
		var ok bool
		select {
		case f, ok = <-e.resp:
		case <-ctx.Done():
			e.kill()
			return all(func(string) error { return ctx.Err() })
		case <-tick:
			if n := e.started(); n != seen {
				seen = n
				continue
			}
			e.kill()
			return all(func(op string) error { return &TimeoutError{Op: op, Limit: timeout} })
		}
		if !ok {
			return all(e.died)
		}
		var r answer
		if err := json.Unmarshal(f, &r); err != nil {
			e.kill()
			return all(func(op string) error { return fmt.Errorf("%s: malformed answer from the python executor: %w", op, err) })
		}
		if e.arenaFresh {
			// The executor has mapped the arena by now: the name can go.
			os.Remove(e.arenaPath)
			e.arenaFresh = false
		}
		if r.Need {
			if err := e.send(first.Payload); err != nil {
				return all(e.died)
			}
			continue
		}
		if r.Error != nil {
			// The function could not be unpickled: no call ran.
			ue := r.Error
			return all(func(op string) error {
				return &UserError{Op: op, Kind: ue.Type, Message: ue.Message, Traceback: ue.Traceback}
			})
		}
		if len(r.Results) != len(calls) {
			e.kill()
			return all(func(op string) error {
				return fmt.Errorf("%s: the python executor answered %d results for %d calls", op, len(r.Results), len(calls))
			})
		}
		e.results(calls, req.Calls, r.Results, outs, errs)
		return outs, errs
	}
}

// arenaOutMin is the smallest output (its declared bytes, or bound) the
// executor copies into the arena for the worker to copy out, rather than
// leaving it in its memory for process_vm_readv, which pins the pages it
// reads one by one and costs several times a copy on large blocks. Small
// outputs stay out of the arena: a batch of them is read in one call.
const arenaOutMin = 1 << 20

// arenaHeader is the arena's first bytes, before the inputs: the number
// of calls of the current request the executor has started (a uint64 it
// writes before each call), which the time limit watches.
const arenaHeader = 64

func (e *executor) setStarted(n uint64) {
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&e.arena[0])), n)
}

func (e *executor) started() uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&e.arena[0])))
}

// results turns the executor's answers into arrays or errors, reading
// the successful calls' results from its memory in one system call.
func (e *executor) results(calls []ops.BlockCall, descs []callDesc, rs []response, outs []*ndarray.Array, errs []error) {
	var dsts [][]byte
	var addrs []uint64
	var idx []int
	for i, c := range calls {
		r := rs[i]
		switch {
		case r.Error != nil:
			errs[i] = &UserError{Op: c.Op, Kind: r.Error.Type, Message: r.Error.Message, Traceback: r.Error.Traceback}
		case r.Mismatch != nil:
			if dt, err := ndarray.ParseDType(r.Mismatch.DType); err == nil {
				errs[i] = &ops.BlockMismatchError{Op: c.Op, Got: ops.Meta{Shape: r.Mismatch.Shape, DType: dt}, Want: c.Out}
			} else {
				errs[i] = fmt.Errorf("%s returned a block of %s %v, but %v %v was declared (give dtype= and chunks= as the function's output is)",
					c.Op, r.Mismatch.DType, r.Mismatch.Shape, c.Out.DType, c.Out.Shape)
			}
		case r.OK:
			out, raw, err := resultBuffer(c, r)
			if err != nil {
				errs[i] = err
				continue
			}
			outs[i] = out
			switch {
			case len(raw) == 0:
			case r.Arena:
				// Out was reserved for the declared bytes, which the
				// result's (checked by resultBuffer) do not exceed.
				at := descs[i].Out
				if at < arenaHeader || at+len(raw) > len(e.arena) || len(raw) > int(c.Out.Nbytes()) {
					errs[i] = fmt.Errorf("%s: the executor answered a result in the arena where none was reserved", c.Op)
					continue
				}
				copy(raw, e.arena[at:at+len(raw)])
			case r.File != "":
				errs[i] = readFile(c.Op, r.File, raw)
			case r.Strides != nil:
				// a view of long rows (a trimmed block), read row by row
				if err := readRemoteRows(e.pid, raw, r.Addr, out.Shape(), r.Strides, c.Out.DType.Size()); err != nil {
					errs[i] = fmt.Errorf("%s: reading the result from the executor: %w", c.Op, err)
				}
			default:
				dsts, addrs, idx = append(dsts, raw), append(addrs, r.Addr), append(idx, i)
			}
		default:
			errs[i] = fmt.Errorf("%s: unexpected answer from the python executor", c.Op)
		}
	}
	if len(dsts) == 0 {
		return
	}
	if err := readRemoteMany(e.pid, dsts, addrs); err != nil {
		for _, i := range idx {
			errs[i] = fmt.Errorf("%s: reading the result from the executor: %w", calls[i].Op, err)
		}
	}
	for i := range errs {
		if errs[i] != nil {
			outs[i] = nil
		}
	}
}

// resultBuffer makes the array a call's result is read into.
func resultBuffer(call ops.BlockCall, r response) (*ndarray.Array, []byte, error) {
	shape := call.Out.Shape
	if call.Out.Unknown != 0 {
		if !call.Out.Fits(r.Shape) {
			return nil, nil, fmt.Errorf("%s: the executor answered a block of shape %v for %v", call.Op, r.Shape, call.Out)
		}
		shape = r.Shape
	}
	out, err := ndarray.NewUninit(call.Out.DType, shape...)
	if err != nil {
		return nil, nil, err
	}
	raw, err := out.RawBytes()
	if err != nil {
		return nil, nil, err
	}
	if r.Nbytes != len(raw) {
		return nil, nil, fmt.Errorf("%s: the executor answered %d bytes for a block of %d", call.Op, r.Nbytes, len(raw))
	}
	return out, raw, nil
}

// readFile reads a result the executor wrote into a shared file (where
// reading its memory is refused), and removes the file.
func readFile(op, path string, raw []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: reading the result: %w", op, err)
	}
	defer f.Close()
	defer os.Remove(path)
	if _, err := f.ReadAt(raw, 0); err != nil {
		return fmt.Errorf("%s: reading the result: %w", op, err)
	}
	return nil
}

// readRemoteMany copies each of the executor's blocks at addrs into dsts:
// one process_vm_readv for all of them, then one per block for whatever
// a short read left.
func readRemoteMany(pid int, dsts [][]byte, addrs []uint64) error {
	const iovMax = 1024
	for len(dsts) > 0 {
		k := min(len(dsts), iovMax)
		local := make([]unix.Iovec, k)
		remote := make([]unix.RemoteIovec, k)
		want := 0
		for i := range k {
			local[i].Base = &dsts[i][0]
			local[i].SetLen(len(dsts[i]))
			remote[i] = unix.RemoteIovec{Base: uintptr(addrs[i]), Len: len(dsts[i])}
			want += len(dsts[i])
		}
		n, err := unix.ProcessVMReadv(pid, local, remote, 0)
		if err != nil {
			return err
		}
		if n < want {
			// A partial read stops at a block's boundary or inside one:
			// finish block by block.
			for i := range k {
				d := dsts[i]
				if n >= len(d) {
					n -= len(d)
					continue
				}
				if got, err := readRemote(pid, d[n:], addrs[i]+uint64(n)); err != nil || got != len(d)-n {
					return fmt.Errorf("%d of %d bytes: %v", n+got, len(d), err)
				}
				n = 0
			}
		}
		dsts, addrs = dsts[k:], addrs[k:]
	}
	return nil
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

// died is the error of a call whose executor ended under it.
func (e *executor) died(op string) error {
	e.kill()
	return &ExecutorDiedError{Op: op, Cause: e.cause()}
}
