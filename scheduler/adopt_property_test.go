package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/phobos-tensor/phobos/protocol"
)

// TestAdoptionUnderHostileNetwork is a property of failover, driven message
// by message like TestCoreUnderHostileNetwork: fake workers compute real
// values and fence as real ones do (per graph, the highest token seen;
// stale tasks refused, stale releases and cancels ignored); the network
// repeats and reorders messages both ways and kills workers; and once or
// twice the scheduler dies at a random moment. A new core, under a higher
// token, fences the live workers, takes their inventory and adopts every
// graph the dead one had not failed, while the dead one's batches still
// reach workers and the results meant for it reach the new one. Every
// graph ends: with each result on a live worker holding the right value,
// or failed on its failing op; nothing is left on the workers by the
// current owner once all is released.
func TestAdoptionUnderHostileNetwork(t *testing.T) {
	var stats struct{ failovers, adopted, reused, ok, failed int }
	rapid.Check(t, func(rt *rapid.T) {
		n := newFailoverNet(rt)
		n.run(rt)
		stats.failovers += n.failovers
		stats.adopted += int(n.c.stats.Adopted)
		for _, g := range n.graphs {
			stats.reused += int(g.run.Reused())
			if g.run.finalErr == nil {
				stats.ok++
			} else {
				stats.failed++
			}
		}
	})
	t.Logf("%d failovers, %d graphs adopted reusing %d ops; %d succeeded, %d failed on a failing op",
		stats.failovers, stats.adopted, stats.reused, stats.ok, stats.failed)
	if stats.adopted == 0 || stats.reused == 0 {
		t.Error("the generator never adopted a graph or reused an op")
	}
}

type fenceWorker struct {
	store      map[protocol.ChunkKey]storedValue
	cancelled  map[protocol.GraphID]uint64 // token of the cancel
	graphFence map[protocol.GraphID]uint64
	inbox      []Send
	dead       bool
}

type storedValue struct {
	v     uint64
	token uint64 // of the task that stored it
}

func (w *fenceWorker) stale(g protocol.GraphID, token uint64) bool {
	cur, ok := w.graphFence[g]
	return ok && token < cur
}

type failoverNet struct {
	c         *core
	token     uint64
	cfg       Config
	graphs    []*propGraph
	byID      map[protocol.GraphID]*propGraph
	workers   []*fenceWorker
	results   []protocol.Result
	failovers int
	trace     *rapid.T
}

func newFailoverNet(rt *rapid.T) *failoverNet {
	nw := rapid.IntRange(1, 4).Draw(rt, "workers")
	n := &failoverNet{token: 1, byID: map[protocol.GraphID]*propGraph{}, trace: traceTo(rt)}
	n.cfg = Config{MaxAttempts: 3, ProgressTimeout: -1, Logger: slog.New(slog.DiscardHandler), Fence: protocol.Fence{Scope: "s", Token: 1}}
	n.c = newCore(n.cfg, slices.Repeat([]int{1}, nw))
	for range nw {
		n.workers = append(n.workers, &fenceWorker{store: map[protocol.ChunkKey]storedValue{}, cancelled: map[protocol.GraphID]uint64{}, graphFence: map[protocol.GraphID]uint64{}})
	}
	for gi := range rapid.IntRange(1, 3).Draw(rt, "graphs") {
		pg := randomGraph(rt, protocol.GraphID(100+gi))
		n.graphs = append(n.graphs, pg)
		n.byID[pg.id] = pg
		pg.run = newRun(nil, pg.id, pg.g, Prepare(pg.g, pg.results, n.c.slots), pg.results)
		pg.run.fence = n.cfg.Fence
		n.step(msgSubmit{run: pg.run})
	}
	return n
}

func (n *failoverNet) step(m any) {
	a := n.c.Step(m)
	if n.trace != nil {
		n.trace.Logf("token %d: %T %+v -> %+v", n.token, m, m, a.Sends)
	}
	for _, s := range a.Sends {
		if w := n.workers[s.Worker]; !w.dead {
			w.inbox = append(w.inbox, s)
		}
	}
	for _, r := range a.Ended {
		r.finish(r.err)
	}
}

func (n *failoverNet) live() int {
	k := 0
	for _, w := range n.workers {
		if !w.dead {
			k++
		}
	}
	return k
}

func (n *failoverNet) run(rt *rapid.T) {
	maxFailovers := rapid.IntRange(1, 2).Draw(rt, "failovers")
	for draws := 0; draws < 5000; draws++ {
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
			if !n.allEnded() {
				rt.Fatalf("network drained but runs still going: %s", n.describe())
			}
			n.releaseAll(rt)
			if n.idle() {
				n.check(rt)
				return
			}
			continue
		}
		choices = append(choices, "kill")
		if n.failovers < maxFailovers {
			choices = append(choices, "failover")
		}
		switch pick := rapid.SampledFrom(choices).Draw(rt, "event"); pick {
		case "result":
			i := rapid.IntRange(0, len(n.results)-1).Draw(rt, "which result")
			r := n.results[i]
			if rapid.IntRange(0, 4).Draw(rt, "repeat result") != 0 {
				n.results = slices.Delete(n.results, i, i+1)
			}
			n.step(msgResult{res: r})
		case "kill":
			if n.live() > 1 && rapid.IntRange(0, 9).Draw(rt, "really kill") == 0 {
				w := rapid.IntRange(0, len(n.workers)-1).Draw(rt, "victim")
				if !n.workers[w].dead {
					n.workers[w] = &fenceWorker{dead: true}
					n.step(msgWorkerDead{worker: w, cause: errors.New("killed")})
				}
			}
		case "failover":
			if rapid.IntRange(0, 5).Draw(rt, "really fail over") == 0 {
				n.failover()
			}
		default:
			var w int
			fmt.Sscanf(pick, "w%d", &w)
			pw := n.workers[w]
			batch := pw.inbox[0]
			if rapid.IntRange(0, 4).Draw(rt, "repeat batch") != 0 {
				pw.inbox = pw.inbox[1:]
			}
			n.apply(rt, w, batch)
		}
	}
	rt.Fatalf("runs still going after 5000 events: %s", n.describe())
}

// failover replaces the core by a new one under a higher token: it fences
// the live workers, then adopts every graph the old core had not failed
// from their inventory. Batches and results in flight stay in flight.
func (n *failoverNet) failover() {
	n.failovers++
	n.token++
	n.cfg.Fence.Token = n.token
	n.c = newCore(n.cfg, slices.Repeat([]int{1}, len(n.workers)))
	for w, pw := range n.workers {
		if pw.dead {
			n.step(msgWorkerDead{worker: w, cause: errors.New("dead before the failover")})
		}
	}
	for _, pg := range n.graphs {
		if pg.released || (pg.run.ended && pg.run.err != nil) {
			continue // failed under its old owner: its record says so
		}
		inv := Inventory{}
		for w, pw := range n.workers {
			if pw.dead {
				continue
			}
			// Fenced first (ListChunks does both), so the old owner's
			// batches still on their way are refused from now on.
			pw.graphFence[pg.id] = max(pw.graphFence[pg.id], n.token)
			for k := range pw.store {
				if k.Graph == pg.id {
					inv[w] = append(inv[w], HeldChunk{Node: k.Node, Nbytes: 8})
				}
			}
			slices.SortFunc(inv[w], func(a, b HeldChunk) int { return int(a.Node - b.Node) })
		}
		pg.run = newRun(nil, pg.id, pg.g, Prepare(pg.g, pg.results, n.c.liveSlots()), pg.results)
		pg.run.fence = n.cfg.Fence
		n.step(msgAdopt{run: pg.run, inv: inv})
	}
}

// apply is a fenced fake worker taking a batch: releases, tasks, cancels,
// each checked against the highest token seen for its graph.
func (n *failoverNet) apply(rt *rapid.T, w int, b Send) {
	pw := n.workers[w]
	for i, k := range b.Releases {
		if !pw.stale(k.Graph, tokenOf(b.ReleaseFences, i)) {
			delete(pw.store, k)
		}
	}
	for _, t := range b.Tasks {
		res := protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w, Fence: t.Fence.Token}
		g := t.Key.Graph
		if cur, ok := pw.graphFence[g]; ok && t.Fence.Token < cur {
			res.Outcome = protocol.Failed
			res.Err = &protocol.FencedError{Key: t.Key, Scope: t.Fence.Scope, Token: t.Fence.Token, Current: cur}
			n.results = append(n.results, res)
			continue
		}
		pw.graphFence[g] = max(pw.graphFence[g], t.Fence.Token)
		if rapid.Bool().Draw(rt, "report start") {
			s := res
			s.Outcome = protocol.Started
			n.results = append(n.results, s)
		}
		if tok, ok := pw.cancelled[g]; ok && t.Fence.Token <= tok {
			res.Outcome = protocol.Cancelled
			n.results = append(n.results, res)
			continue
		}
		failing := int32(-1)
		if pg := n.byID[g]; pg != nil {
			failing = pg.failing
		}
		v, ok := runFakeKernel(t, &res, failing, func(in protocol.Input) (uint64, bool) {
			src := pw
			if in.Worker >= 0 && in.Worker < len(n.workers) {
				src = n.workers[in.Worker]
			}
			x, ok := src.store[in.Key]
			return x.v, ok && !src.dead
		})
		if ok {
			pw.store[t.Key] = storedValue{v: v, token: t.Fence.Token}
		}
		n.results = append(n.results, res)
	}
	for i, g := range b.Cancels {
		tok := tokenOf(b.CancelFences, i)
		if !pw.stale(g, tok) {
			pw.cancelled[g] = max(pw.cancelled[g], tok)
		}
	}
}

func tokenOf(tokens []uint64, i int) uint64 {
	if i < len(tokens) {
		return tokens[i]
	}
	return 0
}

func (n *failoverNet) allEnded() bool {
	for _, g := range n.graphs {
		r := g.run
		if !r.ended || (!r.cancelled && r.finished < len(r.g.Nodes)) {
			return false
		}
	}
	return true
}

func (n *failoverNet) idle() bool {
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

// releaseAll checks each ended run's results, then releases it, as a
// client fetching them would.
func (n *failoverNet) releaseAll(rt *rapid.T) {
	for _, g := range n.graphs {
		if g.released {
			continue
		}
		n.checkRun(rt, g)
		g.released = true
		if n.c.runs[g.id] == g.run {
			n.step(msgRelease{graph: g.id})
		}
	}
}

func (n *failoverNet) checkRun(rt *rapid.T, g *propGraph) {
	err := g.run.finalErr
	if err == nil && g.run.err != nil {
		err = g.run.err
	}
	var opErr *OpError
	switch {
	case err == nil && g.failing >= 0:
		rt.Fatalf("graph %d succeeded although op %d fails", g.id, g.failing)
	case err == nil:
	case errors.As(err, &opErr) && opErr.Node == g.failing:
		return
	default:
		rt.Fatalf("graph %d failed: %v (failing op %d, %d failovers): %s", g.id, err, g.failing, n.failovers, n.describe())
	}
	if g.run.core != n.c {
		rt.Fatalf("graph %d succeeded under a core that died", g.id)
	}
	locs, wait, lerr := g.run.resultLocations(n.c, g.results)
	if lerr != nil || wait != nil {
		rt.Fatalf("graph %d succeeded but its results are not fetchable: %v (waiting %v)", g.id, lerr, wait != nil)
	}
	for i, x := range g.results {
		w := n.workers[locs[i]]
		key := protocol.ChunkKey{Graph: g.id, Node: x}
		if v, ok := w.store[key]; w.dead || !ok || v.v != g.want[x] {
			rt.Fatalf("graph %d result %d on worker %d: value %d (held %v, dead %v), want %d", g.id, x, locs[i], v.v, ok, w.dead, g.want[x])
		}
	}
}

// check runs after the network drained: the current core forgot every run
// and counts no worker busy, and no live worker keeps a chunk stored under
// the current token. (A dead owner's late outputs may stay: the workers
// refuse its releases, and the new owner cannot tell them from its own.)
func (n *failoverNet) check(rt *rapid.T) {
	if len(n.c.runs) != 0 {
		rt.Fatalf("core still holds %d runs", len(n.c.runs))
	}
	for w, pw := range n.workers {
		if pw.dead {
			continue
		}
		for k, v := range pw.store {
			if v.token == n.token {
				rt.Fatalf("worker %d still holds %v (token %d) after its run was released", w, k, v.token)
			}
		}
	}
	for w, b := range n.c.busy {
		if b != 0 && n.c.dead[w] == nil {
			rt.Fatalf("worker %d counted busy with %d tasks after everything ended", w, b)
		}
	}
}

func (n *failoverNet) describe() string {
	s := ""
	for _, g := range n.graphs {
		s += fmt.Sprintf("graph %d ended %v: %s; ", g.id, g.run.ended, g.run.diagnose(5))
	}
	return s
}
