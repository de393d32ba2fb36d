package scheduler

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// TestScenarios drives the scheduler's core, message by message, through
// the stories in testdata/scenarios: each command is one message (a worker's
// result, a death, a cancel, a clock tick), and its output is what the core
// sends, which runs end, and what it ignored or logged.
//
// Commands:
//
//	workers n=N [slots=S] [hold=B] [queue=Q]
//	                             a core over N workers of S slots (1); sources
//	                             of B bytes wait for a free slot, other sources
//	                             once Q tasks per slot are in flight
//	graph id=G results=(x,...)   a graph, one op per line: "name" or "name <- in1 in2"
//	submit id=G                  start graph G
//	adopt id=G [fence=T]         take graph G over from a dead scheduler, one
//	                             line per worker of what it holds: "wN: a b"
//	report w=W op=NAME [id=G] [attempt=A] [fence=T] outcome=OUT [lost=NAME]
//	                             OUT: started|ok|fail|retry|cancelled|fenced; attempt and
//	                             fence default to the run's current ones
//	raw w=W id=G node=N attempt=A outcome=OUT   a result with raw numbers (hostile or stale)
//	dead w=W                     the worker is declared dead
//	cancel id=G / release id=G
//	tick after=DURATION          the clock moves on and supervision looks
//	state id=G                   each op's state, worker and attempt
//	stats                        what the core counted
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata/scenarios", func(t *testing.T, path string) {
		h := &harness{t: t}
		datadriven.RunTest(t, path, h.cmd)
	})
}

type harness struct {
	t      *testing.T
	c      *core
	logs   bytes.Buffer
	now    time.Time
	graphs map[protocol.GraphID]*scenarioGraph
}

type scenarioGraph struct {
	g       *graph.ChunkGraph
	names   []string
	index   map[string]int32
	results []int32
	run     *Run
}

func (h *harness) cmd(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "workers":
		var n int
		d.ScanArgs(t, "n", &n)
		h.now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		h.graphs = map[protocol.GraphID]*scenarioGraph{}
		log := slog.New(slog.NewTextHandler(&h.logs, &slog.HandlerOptions{
			Level: slog.LevelWarn,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == "stack" {
					return slog.Attr{}
				}
				return a
			},
		}))
		cfg := Config{MaxAttempts: 3, ProgressTimeout: 10 * time.Minute, Logger: log, Now: func() time.Time { return h.now }, HoldSourceBytes: -1}
		if d.HasArg("hold") {
			// Sources of at least this many bytes wait for a free slot
			// (every op's output is 8 bytes here).
			d.ScanArgs(t, "hold", &cfg.HoldSourceBytes)
		}
		if d.HasArg("queue") {
			// Tasks in flight per slot past which small sources wait.
			d.ScanArgs(t, "queue", &cfg.QueuedSourcesPerSlot)
		}
		slots := 1
		if d.HasArg("slots") {
			d.ScanArgs(t, "slots", &slots)
		}
		h.c = newCore(cfg, slices.Repeat([]int{slots}, n))
		return fmt.Sprintf("%d workers", n)
	case "graph":
		return h.graph(t, d)
	case "submit":
		sg := h.graphOf(t, d)
		plan := Prepare(sg.g, sg.results, h.c.slots)
		sg.run = newRun(nil, h.id(t, d), sg.g, plan, sg.results)
		return h.step(msgSubmit{run: sg.run})
	case "adopt":
		return h.adopt(t, d)
	case "report":
		return h.report(t, d)
	case "raw":
		var w, node, attempt int
		var id uint64
		var out string
		d.ScanArgs(t, "w", &w)
		d.ScanArgs(t, "id", &id)
		d.ScanArgs(t, "node", &node)
		d.ScanArgs(t, "attempt", &attempt)
		d.ScanArgs(t, "outcome", &out)
		res := protocol.Result{Key: protocol.ChunkKey{Graph: protocol.GraphID(id), Node: int32(node)}, Worker: w, Attempt: attempt}
		h.outcome(t, &res, out)
		return h.step(msgResult{res: res})
	case "dead":
		var w int
		d.ScanArgs(t, "w", &w)
		return h.step(msgWorkerDead{worker: w, cause: errors.New("no heartbeat")})
	case "cancel":
		return h.step(msgCancel{graph: h.id(t, d)})
	case "release":
		return h.step(msgRelease{graph: h.id(t, d)})
	case "tick":
		var after string
		d.ScanArgs(t, "after", &after)
		dur, err := time.ParseDuration(after)
		if err != nil {
			d.Fatalf(t, "after: %v", err)
		}
		h.now = h.now.Add(dur)
		return h.step(msgTick{now: h.now})
	case "state":
		return h.state(h.graphOf(t, d))
	case "stats":
		s := h.c.stats
		return fmt.Sprintf("results %d: duplicates %d, stale %d, from dead %d, unknown %d, invalid %d; orphans released %d; bugs %d, panics %d, stalled %d; runs held %d",
			s.Results, s.Duplicates, s.Stale, s.FromDead, s.Unknown, s.Invalid, s.ReleasedOrphan, s.Bugs, s.Panics, s.Stalled, len(h.c.runs))
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func (h *harness) id(t *testing.T, d *datadriven.TestData) protocol.GraphID {
	id := uint64(1)
	if d.HasArg("id") {
		d.ScanArgs(t, "id", &id)
	}
	return protocol.GraphID(id)
}

func (h *harness) graphOf(t *testing.T, d *datadriven.TestData) *scenarioGraph {
	sg := h.graphs[h.id(t, d)]
	if sg == nil {
		d.Fatalf(t, "no graph %d", h.id(t, d))
	}
	return sg
}

func (h *harness) graph(t *testing.T, d *datadriven.TestData) string {
	sg := &scenarioGraph{g: &graph.ChunkGraph{}, index: map[string]int32{}}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		name, ins, _ := strings.Cut(line, "<-")
		name = strings.TrimSpace(name)
		var refs []ops.ChunkRef
		for _, in := range strings.Fields(ins) {
			j, ok := sg.index[in]
			if !ok {
				d.Fatalf(t, "op %s: no input %s above it", name, in)
			}
			refs = append(refs, ops.ChunkRef(j))
		}
		sg.index[name] = int32(len(sg.names))
		sg.names = append(sg.names, name)
		sg.g.AddChunk(nop{}, refs, scalarMeta)
	}
	var results []string
	d.ScanArgs(t, "results", &results)
	for _, r := range results {
		sg.results = append(sg.results, sg.index[r])
	}
	h.graphs[h.id(t, d)] = sg
	return fmt.Sprintf("%d ops", len(sg.names))
}

// adopt takes graph G over: the lines say which worker holds which ops'
// outputs.
func (h *harness) adopt(t *testing.T, d *datadriven.TestData) string {
	sg := h.graphOf(t, d)
	var fence uint64
	if d.HasArg("fence") {
		d.ScanArgs(t, "fence", &fence)
	}
	inv := Inventory{}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		if line == "" {
			continue
		}
		wname, names, ok := strings.Cut(line, ":")
		var w int
		if _, err := fmt.Sscanf(strings.TrimSpace(wname), "w%d", &w); !ok || err != nil {
			d.Fatalf(t, "adopt: line %q is not \"wN: op op...\"", line)
		}
		inv[w] = []HeldChunk{}
		for _, name := range strings.Fields(names) {
			i, ok := sg.index[name]
			if !ok {
				d.Fatalf(t, "adopt: no op %s", name)
			}
			inv[w] = append(inv[w], HeldChunk{Node: i, Nbytes: scalarMeta.Nbytes()})
		}
	}
	plan := Prepare(sg.g, sg.results, h.c.liveSlots())
	sg.run = newRun(nil, h.id(t, d), sg.g, plan, sg.results)
	sg.run.fence = protocol.Fence{Scope: "s", Token: fence}
	return h.step(msgAdopt{run: sg.run, inv: inv})
}

func (h *harness) outcome(t *testing.T, res *protocol.Result, out string) {
	switch out {
	case "started":
		res.Outcome = protocol.Started
	case "ok":
		res.Outcome, res.Nbytes = protocol.Succeeded, 8
	case "fail":
		res.Outcome, res.Err = protocol.Failed, errors.New("kernel error")
	case "retry":
		res.Outcome, res.Err, res.Retryable = protocol.Failed, errors.New("input gone"), true
	case "cancelled":
		res.Outcome = protocol.Cancelled
	case "fenced":
		res.Outcome = protocol.Failed
		res.Err = &protocol.FencedError{Key: res.Key, Scope: "s", Token: res.Fence, Current: res.Fence + 1}
	default:
		t.Fatalf("unknown outcome %q", out)
	}
}

func (h *harness) report(t *testing.T, d *datadriven.TestData) string {
	sg := h.graphOf(t, d)
	var w int
	var op, out string
	d.ScanArgs(t, "w", &w)
	d.ScanArgs(t, "op", &op)
	d.ScanArgs(t, "outcome", &out)
	i, ok := sg.index[op]
	if !ok {
		d.Fatalf(t, "no op %s", op)
	}
	res := protocol.Result{Key: protocol.ChunkKey{Graph: h.id(t, d), Node: i}, Worker: w}
	if sg.run != nil {
		res.Attempt = int(sg.run.attempt[i])
	}
	if d.HasArg("attempt") {
		d.ScanArgs(t, "attempt", &res.Attempt)
	}
	if sg.run != nil {
		res.Fence = sg.run.fence.Token
	}
	if d.HasArg("fence") {
		d.ScanArgs(t, "fence", &res.Fence)
	}
	h.outcome(t, &res, out)
	if d.HasArg("lost") {
		var lost string
		d.ScanArgs(t, "lost", &lost)
		res.Lost = []protocol.ChunkKey{{Graph: res.Key.Graph, Node: sg.index[lost]}}
	}
	return h.step(msgResult{res: res})
}

// step applies a message and prints what came out of it.
func (h *harness) step(m any) string {
	before := h.c.stats
	a := h.c.Step(m)
	var b strings.Builder
	for _, s := range a.Sends {
		var parts []string
		for _, k := range s.Releases {
			parts = append(parts, "release "+h.name(k))
		}
		for _, task := range s.Tasks {
			run := fmt.Sprintf("run %s@%d", h.name(task.Key), task.Attempt)
			if task.Fence.Token != 0 {
				run += fmt.Sprintf(" fence %d", task.Fence.Token)
			}
			parts = append(parts, run)
		}
		for _, g := range s.Cancels {
			parts = append(parts, fmt.Sprintf("cancel g%d", g))
		}
		fmt.Fprintf(&b, "w%d <- %s\n", s.Worker, strings.Join(parts, ", "))
	}
	for _, r := range a.Ended {
		r.finish(r.err)
		if r.err == nil {
			fmt.Fprintf(&b, "g%d ended: ok\n", r.id)
		} else {
			fmt.Fprintf(&b, "g%d ended: %v\n", r.id, r.err)
		}
	}
	after := h.c.stats
	for _, c := range []struct {
		what string
		n    int64
	}{
		{"duplicate", after.Duplicates - before.Duplicates},
		{"stale", after.Stale - before.Stale},
		{"from a dead worker", after.FromDead - before.FromDead},
		{"unknown graph", after.Unknown - before.Unknown},
		{"invalid", after.Invalid - before.Invalid},
	} {
		if c.n > 0 {
			fmt.Fprintf(&b, "ignored: %s\n", c.what)
		}
	}
	if h.logs.Len() > 0 {
		for _, l := range strings.Split(strings.TrimSpace(h.logs.String()), "\n") {
			fmt.Fprintf(&b, "log: %s\n", l)
		}
		h.logs.Reset()
	}
	if b.Len() == 0 {
		return "(nothing)"
	}
	return strings.TrimSpace(b.String())
}

func (h *harness) name(k protocol.ChunkKey) string {
	sg := h.graphs[k.Graph]
	if sg == nil || k.Node < 0 || int(k.Node) >= len(sg.names) {
		return fmt.Sprintf("g%d/c%d", k.Graph, k.Node)
	}
	if len(h.graphs) > 1 {
		return fmt.Sprintf("g%d/%s", k.Graph, sg.names[k.Node])
	}
	return sg.names[k.Node]
}

func (h *harness) state(sg *scenarioGraph) string {
	if sg.run == nil {
		return "not submitted"
	}
	r := sg.run
	var b strings.Builder
	for i, name := range sg.names {
		fmt.Fprintf(&b, "%s: %v", name, r.state[i])
		if r.attempt[i] > 0 {
			fmt.Fprintf(&b, " attempt %d on w%d", r.attempt[i], r.worker[i])
		}
		if r.open[i] {
			b.WriteString(" (awaiting outcome)")
		}
		if r.location[i] >= 0 {
			fmt.Fprintf(&b, ", stored on w%d", r.location[i])
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "in flight %d", r.inflight)
	select {
	case <-r.done:
		if r.finalErr != nil {
			fmt.Fprintf(&b, "; ended: %v", r.finalErr)
		} else {
			b.WriteString("; ended: ok")
		}
	default:
	}
	return b.String()
}
