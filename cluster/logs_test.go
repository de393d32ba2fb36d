package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/tensor"
)

// lockedBuffer is a log sink shared by several roles' goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines parses every line as a JSON object: the roles' logs are JSON
// lines and nothing else.
func (b *lockedBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// TestLogsFollowAGraph: with JSON logs, a graph's lines carry its session,
// graph and run ids, and a graph that fails because one check fails in
// every chunk logs its root cause once, at ERROR, naming the op, across
// the scheduler and the workers.
func TestLogsFollowAGraph(t *testing.T) {
	ctx := context.Background()
	var sink lockedBuffer
	logger := func(role string) *slog.Logger {
		return slog.New(slog.NewJSONHandler(&sink, &slog.HandlerOptions{Level: slog.LevelInfo})).With("role", role)
	}
	_, _, wp := startRoles(t, cluster.SchedulerConfig{Logger: logger("scheduler")}, func(i int, cfg *cluster.WorkerConfig) {
		cfg.Slots, cfg.Logger = 2, logger("worker")
	}, 2)
	sess, err := phobos.Connect(ctx, wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	// A mask assignment of 3 values where the mask selects 40: the count
	// is checked in every chunk of the result, so 6 ops fail alike.
	x := tensor.ArangeN(40, tensor.Chunks(7))
	bad := x.Set([]tensor.Idx{tensor.Mask(x.GreaterEqual(0))}, tensor.FromSlice([]float64{1, 2, 3}, []int{3}))
	_, err = sess.Execute(ctx, bad)
	const cause = "cannot assign 3 input values"
	if err == nil || !strings.Contains(err.Error(), cause) {
		t.Fatalf("executing the bad assignment: %v, want it to fail with %q", err, cause)
	}
	if v, err := sess.ExecuteScalar(ctx, x.Sum()); err != nil || v != 780 {
		t.Fatalf("a graph after the failure: %v, %v", v, err)
	}

	lines := sink.lines(t)
	var failed, running []map[string]any
	errorsNamingCause := 0
	for _, l := range lines {
		if l["level"] == "ERROR" && strings.Contains(l["err"].(string), cause) {
			errorsNamingCause++
		}
		switch l["msg"] {
		case "graph failed":
			failed = append(failed, l)
		case "graph running":
			running = append(running, l)
		}
	}
	if len(failed) != 1 || errorsNamingCause != 1 {
		t.Fatalf("%d 'graph failed' lines and %d ERROR lines naming the cause, want 1 and 1:\n%v", len(failed), errorsNamingCause, lines)
	}
	f := failed[0]
	for _, k := range []string{"role", "session", "graph", "run", "op", "op_type", "err"} {
		if _, ok := f[k]; !ok {
			t.Errorf("the failure's line lacks %q: %v", k, f)
		}
	}
	if f["op_type"] != "check" || f["role"] != "scheduler" {
		t.Errorf("the failure's line %v: want op_type check, role scheduler", f)
	}
	if len(running) != 2 {
		t.Fatalf("%d 'graph running' lines, want one per graph: %v", len(running), running)
	}
	// The failed graph's run line and its failure line name the same graph.
	r := running[0]
	for _, k := range []string{"session", "graph", "run"} {
		if r[k] == nil || r[k] != f[k] {
			t.Errorf("%s: %v when running, %v when failed", k, r[k], f[k])
		}
	}
	if r["graph"] == running[1]["graph"] || r["session"] != running[1]["session"] {
		t.Errorf("two graphs of one session: %v and %v", r, running[1])
	}
}
