//go:build linux

package pyexec

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

const python = "/usr/bin/python3"

// pickle returns the cloudpickle payload the Python client would send for
// the function src defines as f: (f, args, kwargs, block_id?, block_info?).
func pickle(t testing.TB, src string, blockID, blockInfo bool) []byte {
	t.Helper()
	flags := "False, False"
	switch {
	case blockID && blockInfo:
		flags = "True, True"
	case blockID:
		flags = "True, False"
	case blockInfo:
		flags = "False, True"
	}
	prog := "import sys, cloudpickle\n" + src + "\nsys.stdout.buffer.write(cloudpickle.dumps((f, (), {}, " + flags + ")))\n"
	out, err := exec.Command(python, "-c", prog).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && strings.Contains(string(ee.Stderr), "No module named") {
			t.Skipf("python3 lacks a module (apt-get install python3-numpy python3-cloudpickle): %s", ee.Stderr)
		}
		t.Fatalf("pickling: %v", err)
	}
	return out
}

func pythonPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "python")
}

func newPool(t testing.TB, cfg Config) *Pool {
	t.Helper()
	if _, err := exec.LookPath(python); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	cfg.PythonPath = pythonPath()
	p := New(cfg)
	t.Cleanup(func() { p.Close() })
	return p
}

func arange(t *testing.T, shape ...int) *ndarray.Array {
	t.Helper()
	n := ndarray.Size(shape)
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)*0.5 - 3
	}
	a, err := ndarray.FromFloat64s(shape, v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestRunBlockComputes(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	// A transposed (strided) input: it is laid out in C order in the arena.
	x, err := arange(t, 3, 5).Transpose(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	y := arange(t, 5, 3)
	payload := pickle(t, "import numpy as np\ndef f(a, b): return np.multiply(a, 2.5) - b", false, false)
	out, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: payload,
		Inputs: []*ndarray.Array{x, y}, Out: ops.Meta{Shape: []int{5, 3}, DType: ndarray.Float64}})
	if err != nil {
		t.Fatal(err)
	}
	xc, yc := x.Contiguous().Float64s(), y.Float64s()
	got := out.Float64s()
	for i := range got {
		want := xc[i]*2.5 - yc[i] // exact in float64 for these values

		if got[i] != want {
			t.Fatalf("element %d: got %v, want %v", i, got[i], want)
		}
	}
	// A second call reuses the executor and its cached function.
	if _, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: payload,
		Inputs: []*ndarray.Array{x, y}, Out: ops.Meta{Shape: []int{5, 3}, DType: ndarray.Float64}}); err != nil {
		t.Fatal(err)
	}
	if n := p.Started(); n != 1 {
		t.Fatalf("started %d executors for two calls on one slot", n)
	}
}

func TestRunBlockBlockInfo(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	src := `import numpy as np
def f(a, block_id=None, block_info=None):
    loc = block_info[0]["array-location"]
    out = block_info[None]
    assert out["chunk-shape"] == a.shape and out["dtype"] == np.dtype("int64"), out
    return np.full(a.shape, block_id[0] * 1000 + block_id[1] * 100 + loc[0][0] * 10 + loc[1][0], dtype="int64")`
	info := []byte(`{"block_id":[1,2],"inputs":[{"shape":[4,6],"num-chunks":[2,3],"chunk-location":[1,2],"array-location":[[2,4],[4,6]]}],` +
		`"output":{"shape":[4,6],"num-chunks":[2,3],"chunk-location":[1,2],"array-location":[[2,4],[4,6]]}}`)
	out, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, src, true, true),
		Inputs: []*ndarray.Array{arange(t, 2, 2)}, Out: ops.Meta{Shape: []int{2, 2}, DType: ndarray.Int64}, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range out.Int64s() {
		if v != 1000+200+20+4 {
			t.Fatalf("got %v", out.Int64s())
		}
	}
}

func TestRunBlockUserException(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	src := "def f(a):\n    raise KeyError('no such band ' + str(a.shape))"
	_, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, src, false, false),
		Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}})
	var ue *UserError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want a UserError", err)
	}
	if ue.Kind != "KeyError" || !strings.Contains(ue.Message, "no such band (2,)") ||
		!strings.Contains(ue.Traceback, "line 3, in f") || strings.Contains(ue.Traceback, "executor.py") {
		t.Fatalf("got kind %q message %q traceback %q", ue.Kind, ue.Message, ue.Traceback)
	}
	if ops.IsRetryable(err) {
		t.Fatal("a user's exception must not be retried")
	}
}

func TestRunBlockMismatch(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	for _, src := range []string{
		"def f(a): return a.astype('float32')",
		"def f(a): return a[:1]",
		"def f(a): return [1.0, 2.0]",
	} {
		_, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, src, false, false),
			Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}})
		if err == nil || !strings.Contains(err.Error(), "user_block(f)") {
			t.Fatalf("%s: got %v, want an error naming the op", src, err)
		}
	}
}

func TestExecutorDeathRestarts(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	for _, c := range []struct{ src, cause string }{
		{"import os\ndef f(a): os._exit(3)", "exited with status 3"},
		{"import ctypes\ndef f(a): return ctypes.string_at(0)", "signal segmentation fault"},
	} {
		_, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, c.src, false, false),
			Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}})
		var de *ExecutorDiedError
		if !errors.As(err, &de) || !strings.Contains(de.Cause, c.cause) || !ops.IsRetryable(err) {
			t.Fatalf("%s: got %v, want a retryable death that %s", c.src, err, c.cause)
		}
	}
	out, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, "def f(a): return a * 2", false, false),
		Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Float64s(); got[0] != -6 || got[1] != -5 {
		t.Fatalf("got %v", got)
	}
	if n := p.Started(); n != 3 {
		t.Fatalf("started %d executors, want 3 (two died)", n)
	}
}

func TestRunBlockTimeLimit(t *testing.T) {
	p := newPool(t, Config{Slots: 1, Timeout: 300 * time.Millisecond})
	_, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, "import time\ndef f(a):\n    time.sleep(3600)", false, false),
		Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a TimeoutError", err)
	}
	// A cancelled call kills its executor too, and returns the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	_, err = p.RunBlock(ctx, ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, "import time\ndef f(a):\n    time.sleep(3600)", false, false),
		Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestRunBlockConcurrent(t *testing.T) {
	p := newPool(t, Config{Slots: 2})
	payload := pickle(t, "def f(a, b): return a + b", false, false)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := arange(t, 100+i)
			out, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: payload,
				Inputs: []*ndarray.Array{x, x}, Out: ops.Meta{Shape: []int{100 + i}, DType: ndarray.Float64}})
			if err != nil {
				errs <- err
				return
			}
			for j, v := range out.Float64s() {
				if v != 2*x.Float64s()[j] {
					errs <- errors.New("wrong sum")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := p.Started(); n > 2 {
		t.Fatalf("started %d executors for 2 slots", n)
	}
}

// TestCloseDuringCall closes the pool under a running call and an idle
// executor: the call ends with an error, nothing crashes or races.
func TestCloseDuringCall(t *testing.T) {
	p := newPool(t, Config{Slots: 2})
	quick := pickle(t, "def f(a): return a", false, false)
	if _, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: quick,
		Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}}); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		// Close may come before, during or after the call starts: each
		// must end it with an error.
		close(started)
		_, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, "import time\ndef f(a):\n    time.sleep(3600)", false, false),
			Inputs: []*ndarray.Array{arange(t, 1000)}, Out: ops.Meta{Shape: []int{1000}, DType: ndarray.Float64}})
		done <- err
	}()
	<-started
	p.Close()
	if err := <-done; err == nil {
		t.Fatal("a call under Close succeeded")
	}
	if _, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: quick,
		Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}}); err == nil {
		t.Fatal("a closed pool ran a call")
	}
}

func BenchmarkRunBlockSmall(b *testing.B) {
	t := &testing.T{}
	p := New(Config{Slots: 1, PythonPath: pythonPath()})
	defer p.Close()
	payload := pickle(t, "def f(a): return a + 1", false, false)
	x := arange(t, 8)
	call := ops.BlockCall{Op: "user_block(f)", Payload: payload, Inputs: []*ndarray.Array{x}, Out: ops.Meta{Shape: []int{8}, DType: ndarray.Float64}}
	if _, err := p.RunBlock(context.Background(), call); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := p.RunBlock(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}

// TestExecutorEnvironment: the executor does not inherit the cluster's
// token.
func TestExecutorEnvironment(t *testing.T) {
	t.Setenv("PHOBOS_TOKEN", "secret")
	p := newPool(t, Config{Slots: 1})
	src := "import os, numpy as np\ndef f(a): return np.full(a.shape, float('PHOBOS_TOKEN' in os.environ))"
	out, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, src, false, false),
		Inputs: []*ndarray.Array{arange(t, 2)}, Out: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Float64s()[0] != 0 {
		t.Fatal("the executor sees PHOBOS_TOKEN")
	}
}

// The executors' resident memory is reported while they live and given up
// when they end.
func TestExecutorMemoryCharged(t *testing.T) {
	var mu sync.Mutex
	var reports []int64
	p := newPool(t, Config{Slots: 1, Memory: func(n int64) {
		mu.Lock()
		reports = append(reports, n)
		mu.Unlock()
	}})
	last := func() int64 {
		mu.Lock()
		defer mu.Unlock()
		if len(reports) == 0 {
			return -1
		}
		return reports[len(reports)-1]
	}
	in := arange(t, 1<<17) // 1 MiB: the call moves enough to read the memory again
	if _, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, "def f(a): return a + 1", false, false),
		Inputs: []*ndarray.Array{in}, Out: ops.Meta{Shape: in.Shape(), DType: ndarray.Float64}}); err != nil {
		t.Fatal(err)
	}
	small := last()
	if small <= int64(in.Nbytes()) {
		t.Fatalf("an executor that ran a call on 1 MiB is charged %d bytes", small)
	}
	// The function keeps 64 MiB alive in the interpreter: the charge grows by as much.
	const keep = 64 << 20
	if _, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)",
		Payload: pickle(t, "import numpy as np\nkept = []\ndef f(a):\n    kept.append(np.ones(8 << 20))\n    return a + 1", false, false),
		Inputs:  []*ndarray.Array{in}, Out: ops.Meta{Shape: in.Shape(), DType: ndarray.Float64}}); err != nil {
		t.Fatal(err)
	}
	if big := last(); big < small+keep*9/10 {
		t.Fatalf("charged %d, then %d after the function kept 64 MiB", small, big)
	}
	// An executor that dies is charged nothing.
	_, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: pickle(t, "import os\ndef f(a): os._exit(3)", false, false),
		Inputs: []*ndarray.Array{in}, Out: ops.Meta{Shape: in.Shape(), DType: ndarray.Float64}})
	var de *ExecutorDiedError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want the executor's death", err)
	}
	if n := last(); n != 0 {
		t.Fatalf("charged %d once the only executor died", n)
	}
}

func TestParseRSS(t *testing.T) {
	status := "Name:\tpython3\nVmRSS:\t   30000 kB\nRssAnon:\t   20000 kB\nRssFile:\t    9000 kB\nRssShmem:\t    1000 kB\n"
	if got, want := parseRSS([]byte(status)), int64(21000<<10); got != want {
		t.Fatalf("parseRSS = %d, want %d", got, want)
	}
}
