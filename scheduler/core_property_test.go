package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// TestCoreUnderHostileNetwork is a property of the scheduler's core, driven
// message by message (no goroutines, so every interleaving is a rapid draw
// and shrinks): fake workers compute real values; the network between them
// and the core delivers results in any order, repeats messages in both
// directions, may lose messages for good (lossy runs) and kills workers. Every
// run ends. Without losses or failing ops it SUCCEEDED, each result sits on a
// live worker that holds the right value, and once the network is drained
// no worker holds a chunk of a finished, released run. With a failing op it
// FAILED naming that op; with losses it SUCCEEDED correctly or FAILED by
// progress supervision naming what it waited for.
func TestCoreUnderHostileNetwork(t *testing.T) {
	var stats struct{ ok, failed, stalled, recomputed, ignored, dup int }
	rapid.Check(t, func(rt *rapid.T) {
		n := newNet(rt)
		n.run(rt)
		for _, g := range n.graphs {
			switch {
			case g.run.finalErr == nil:
				stats.ok++
			case errors.As(g.run.finalErr, new(*StallError)):
				stats.stalled++
			default:
				stats.failed++
			}
			if g.run.recomputed.Load() > 0 {
				stats.recomputed++
			}
		}
		stats.ignored += int(n.c.stats.Ignored())
		stats.dup += int(n.c.stats.Duplicates)
	})
	t.Logf("runs: %d succeeded, %d failed on a failing op, %d stalled; %d recomputed lost chunks; results ignored %d (duplicates %d)",
		stats.ok, stats.failed, stats.stalled, stats.recomputed, stats.ignored, stats.dup)
	if stats.ignored == 0 || stats.recomputed == 0 {
		t.Error("the generator never made the core ignore a result or recompute a chunk")
	}
}

const propTimeout = time.Minute

// traceTo logs every message and its actions when PHOBOS_TRACE is set, to
// read a failing case rapid has shrunk.
func traceTo(rt *rapid.T) *rapid.T {
	if os.Getenv("PHOBOS_TRACE") != "" {
		return rt
	}
	return nil
}

type propGraph struct {
	id       protocol.GraphID
	g        *graph.ChunkGraph
	results  []int32
	want     []uint64 // value of every op
	failing  int32    // op whose kernel fails, or -1
	run      *Run
	released bool
}

// packet is a message on the network: a batch to a worker, or a result.
type packet struct {
	send Send
	res  *protocol.Result
}

type propWorker struct {
	store     map[protocol.ChunkKey]uint64
	cancelled map[protocol.GraphID]bool
	inbox     []Send // FIFO: one batch in flight per worker, as the transport does
	dead      bool
}

type net struct {
	c       *core
	now     time.Time
	lossy   bool
	graphs  []*propGraph // in id order, so a run replays the same
	byID    map[protocol.GraphID]*propGraph
	workers []*propWorker
	results []protocol.Result // to the scheduler, delivered in any order
	draws   int
	ticks   int // clock ticks drawn (a second each)
	trace   *rapid.T
}

func newNet(rt *rapid.T) *net {
	nw := rapid.IntRange(1, 4).Draw(rt, "workers")
	n := &net{
		trace: traceTo(rt),
		now:   time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		lossy: rapid.IntRange(0, 3).Draw(rt, "lossy") == 0,
		byID:  map[protocol.GraphID]*propGraph{},
	}
	cfg := Config{MaxAttempts: 3, ProgressTimeout: propTimeout, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return n.now }}
	// Sources sent at once, or held while their worker is busy (every
	// op's output is 8 bytes).
	cfg.HoldSourceBytes = rapid.SampledFrom([]int64{-1, 8}).Draw(rt, "hold sources of bytes")
	// Small sources held past a deep or a shallow worker queue.
	cfg.QueuedSourcesPerSlot = rapid.SampledFrom([]int{-1, 1, 2}).Draw(rt, "queued sources per slot")
	n.c = newCore(cfg, slices.Repeat([]int{1}, nw))
	for range nw {
		n.workers = append(n.workers, &propWorker{store: map[protocol.ChunkKey]uint64{}, cancelled: map[protocol.GraphID]bool{}})
	}
	for gi := range rapid.IntRange(1, 3).Draw(rt, "graphs") {
		pg := randomGraph(rt, protocol.GraphID(100+gi))
		n.graphs = append(n.graphs, pg)
		n.byID[pg.id] = pg
		pg.run = newRun(nil, pg.id, pg.g, Prepare(pg.g, pg.results, n.c.slots), pg.results)
		n.step(msgSubmit{run: pg.run})
	}
	return n
}

func randomGraph(rt *rapid.T, id protocol.GraphID) *propGraph {
	size := rapid.IntRange(1, 25).Draw(rt, "ops")
	pg := &propGraph{id: id, g: &graph.ChunkGraph{}, failing: -1}
	for i := range size {
		var ins []ops.ChunkRef
		for range rapid.IntRange(0, min(i, 3)).Draw(rt, "fan-in") {
			ins = append(ins, ops.ChunkRef(rapid.IntRange(0, i-1).Draw(rt, "input")))
		}
		pg.g.AddChunk(nop{}, ins, scalarMeta)
		v := uint64(i)*7919 + 1
		for _, in := range ins {
			v = (v*31 + pg.want[in]) % 1_000_000_007
		}
		pg.want = append(pg.want, v)
	}
	consumed := make([]bool, size)
	for _, nd := range pg.g.Nodes {
		for _, in := range nd.Inputs {
			consumed[in] = true
		}
	}
	for i := range size {
		if !consumed[i] || rapid.IntRange(0, 4).Draw(rt, "extra result") == 0 {
			pg.results = append(pg.results, int32(i))
		}
	}
	if rapid.IntRange(0, 5).Draw(rt, "has a failing op") == 0 {
		pg.failing = int32(rapid.IntRange(0, size-1).Draw(rt, "failing op"))
	}
	return pg
}

// step applies a message to the core and puts what it sends on the network.
func (n *net) step(m any) {
	a := n.c.Step(m)
	if n.trace != nil {
		n.trace.Logf("%T %+v -> %+v", m, m, a.Sends)
	}
	n.checkBusy()
	for _, s := range a.Sends {
		if w := n.workers[s.Worker]; !w.dead {
			w.inbox = append(w.inbox, s)
		}
	}
	for _, r := range a.Ended {
		r.finish(r.err)
	}
}

// live is the number of workers not killed.
func (n *net) live() int {
	k := 0
	for _, w := range n.workers {
		if !w.dead {
			k++
		}
	}
	return k
}

func (n *net) run(rt *rapid.T) {
	const budget = 5000
	for n.draws = 0; n.draws < budget; n.draws++ {
		var choices []string
		for i, w := range n.workers {
			if len(w.inbox) > 0 {
				choices = append(choices, fmt.Sprintf("w%d", i))
			}
		}
		if len(n.results) > 0 {
			choices = append(choices, "result")
		}
		if len(choices) == 0 {
			if n.allEnded() {
				n.releaseFinished(rt)
				if n.idle() {
					break
				}
				continue
			}
			// Nothing in flight and runs still going: only the clock can
			// help (messages were lost).
			if !n.lossy {
				rt.Fatalf("lossless network drained but runs still going: %s", n.describe())
			}
			n.now = n.now.Add(propTimeout / 2)
			n.step(msgTick{now: n.now})
			continue
		}
		choices = append(choices, "kill", "tick")
		switch pick := rapid.SampledFrom(choices).Draw(rt, "event"); pick {
		case "result":
			i := rapid.IntRange(0, len(n.results)-1).Draw(rt, "which result")
			r := n.results[i]
			if rapid.IntRange(0, 4).Draw(rt, "repeat result") != 0 {
				n.results = slices.Delete(n.results, i, i+1)
			}
			if n.lossy && rapid.IntRange(0, 9).Draw(rt, "lose result") == 0 {
				continue
			}
			n.step(msgResult{res: r})
		case "kill":
			if n.live() > 1 && rapid.IntRange(0, 9).Draw(rt, "really kill") == 0 {
				w := rapid.IntRange(0, len(n.workers)-1).Draw(rt, "victim")
				if !n.workers[w].dead {
					n.workers[w] = &propWorker{dead: true}
					n.step(msgWorkerDead{worker: w, cause: errors.New("killed")})
				}
			}
		case "tick":
			if !n.lossy && n.ticks >= 29 {
				continue // a delay shorter than the progress timeout
			}
			n.ticks++
			n.now = n.now.Add(time.Second)
			n.step(msgTick{now: n.now})
		default:
			var w int
			fmt.Sscanf(pick, "w%d", &w)
			pw := n.workers[w]
			batch := pw.inbox[0]
			// A batch resent after a lost acknowledgement arrives twice.
			if rapid.IntRange(0, 4).Draw(rt, "repeat batch") != 0 {
				pw.inbox = pw.inbox[1:]
			}
			if n.lossy && rapid.IntRange(0, 9).Draw(rt, "lose batch") == 0 {
				continue
			}
			n.apply(rt, w, batch)
		}
	}
	if !n.allEnded() {
		rt.Fatalf("runs still going after %d events: %s", n.draws, n.describe())
	}
	n.check(rt)
}

// apply is a fake worker taking a batch as a real one does: releases, then
// tasks, which run at once (the value of op i from its inputs' values, read
// from the worker each input names), then cancels, which are sticky.
func (n *net) apply(rt *rapid.T, w int, b Send) {
	pw := n.workers[w]
	for _, k := range b.Releases {
		delete(pw.store, k)
	}
	for _, t := range b.Tasks {
		res := protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w}
		pg := n.byID[t.Key.Graph]
		if rapid.Bool().Draw(rt, "report start") {
			s := res
			s.Outcome = protocol.Started
			n.results = append(n.results, s)
		}
		if pw.cancelled[t.Key.Graph] {
			res.Outcome = protocol.Cancelled
			n.results = append(n.results, res)
			continue
		}
		failing := int32(-1)
		if pg != nil {
			failing = pg.failing
		}
		v, ok := runFakeKernel(t, &res, failing, func(in protocol.Input) (uint64, bool) {
			src := pw
			if in.Worker >= 0 && in.Worker < len(n.workers) {
				src = n.workers[in.Worker]
			}
			x, ok := src.store[in.Key]
			return x, ok && !src.dead
		})
		if ok {
			pw.store[t.Key] = v
		}
		n.results = append(n.results, res)
	}
	for _, g := range b.Cancels {
		pw.cancelled[g] = true
	}
}

// runFakeKernel is a fake worker's kernel: the value of op i is a pure
// function of i and its inputs' values (read with read); an input read
// cannot find is reported lost, as a real worker does, and the failing op
// fails for good. It fills in res and reports whether to store v.
func runFakeKernel(t protocol.Task, res *protocol.Result, failing int32, read func(protocol.Input) (uint64, bool)) (v uint64, store bool) {
	v = uint64(t.Key.Node)*7919 + 1
	var lost []protocol.ChunkKey
	for _, in := range t.Inputs {
		x, ok := read(in)
		if !ok {
			lost = append(lost, in.Key)
			continue
		}
		v = (v*31 + x) % 1_000_000_007
	}
	switch {
	case len(lost) > 0:
		res.Outcome, res.Retryable, res.Lost, res.Err = protocol.Failed, true, lost, errors.New("input gone")
	case t.Key.Node == failing:
		res.Outcome, res.Err = protocol.Failed, errors.New("kernel error")
	default:
		res.Outcome, res.Nbytes = protocol.Succeeded, 8
		return v, true
	}
	return 0, false
}

func (n *net) allEnded() bool {
	for _, g := range n.graphs {
		r := g.run
		if !r.ended || (!r.cancelled && r.finished < len(r.g.Nodes)) {
			return false // running, or recomputing results a dead worker held
		}
	}
	return true
}

// idle reports whether nothing is in flight and every run is released.
func (n *net) idle() bool {
	for _, w := range n.workers {
		if len(w.inbox) > 0 {
			return false
		}
	}
	if len(n.results) > 0 {
		return false
	}
	for _, g := range n.graphs {
		if !g.released {
			return false
		}
	}
	return true
}

// releaseFinished checks each ended run's results, then releases it, as a
// client fetching them would.
func (n *net) releaseFinished(rt *rapid.T) {
	for _, g := range n.graphs {
		if g.released {
			continue
		}
		n.checkRun(rt, g)
		g.released = true
		n.step(msgRelease{graph: g.id})
	}
}

func (n *net) checkRun(rt *rapid.T, g *propGraph) {
	err := g.run.finalErr
	if err == nil && g.run.err != nil {
		err = g.run.err // ended ok, then its results were lost
	}
	var opErr *OpError
	var stall *StallError
	switch {
	case err == nil && g.failing >= 0:
		rt.Fatalf("graph %d succeeded although op %d fails", g.id, g.failing)
	case err == nil:
	case errors.As(err, &opErr):
		if opErr.Node != g.failing {
			rt.Fatalf("graph %d failed on op %d, want the failing op %d: %v", g.id, opErr.Node, g.failing, err)
		}
		return
	case errors.As(err, &stall):
		if !n.lossy {
			rt.Fatalf("graph %d stalled on a lossless network: %v", g.id, err)
		}
		return
	default:
		rt.Fatalf("graph %d failed: %v (lossy %v, failing op %d)", g.id, err, n.lossy, g.failing)
	}
	locs, wait, lerr := g.run.resultLocations(n.c, g.results)
	if lerr != nil || wait != nil {
		rt.Fatalf("graph %d succeeded but its results are not fetchable: %v (waiting %v)", g.id, lerr, wait != nil)
	}
	for i, x := range g.results {
		w := n.workers[locs[i]]
		key := protocol.ChunkKey{Graph: g.id, Node: x}
		if v, ok := w.store[key]; w.dead || !ok || v != g.want[x] {
			rt.Fatalf("graph %d result %d on worker %d: value %d (held %v, dead %v), want %d", g.id, x, locs[i], v, ok, w.dead, g.want[x])
		}
	}
}

// check runs after the network drained: no worker keeps a chunk of a
// released run (lossless networks only: a lost release leaks, which the
// real transport prevents by retrying) and the core forgot every run.
func (n *net) check(rt *rapid.T) {
	if len(n.c.runs) != 0 {
		rt.Fatalf("core still holds %d runs", len(n.c.runs))
	}
	for w, pw := range n.workers {
		if n.lossy || pw.dead {
			continue
		}
		for k := range pw.store {
			rt.Fatalf("worker %d still holds %v after its run was released", w, k)
		}
	}
	for w, b := range n.c.busy {
		if b != 0 && n.c.dead[w] == nil {
			rt.Fatalf("worker %d counted busy with %d tasks after everything ended", w, b)
		}
	}
}

func (n *net) describe() string {
	s := ""
	for _, g := range n.graphs {
		s += fmt.Sprintf("graph %d ended %v: %s; ", g.id, g.run.ended, g.run.diagnose(5))
	}
	return s
}

// checkBusy checks that each live worker's count of tasks in flight is the
// sum of the runs' tasks in flight there: a count that leaks would keep
// held sources from a worker that is in fact idle.
func (n *net) checkBusy() {
	for w := range n.c.slots {
		if n.c.dead[w] != nil {
			continue
		}
		sum := 0
		for _, r := range n.c.runs {
			if w < len(r.onWorker) {
				sum += r.onWorker[w]
			}
		}
		if sum != n.c.busy[w] {
			panic(fmt.Sprintf("worker %d: busy %d, runs' tasks in flight there %d", w, n.c.busy[w], sum))
		}
	}
}
