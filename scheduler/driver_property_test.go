package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/phobos-tensor/phobos/protocol"
)

// TestSchedulerUnderHostileNetwork is the core's property again, through the
// real Scheduler (its event loop, channels and TestingKnobs) and fake
// workers on their own goroutines: the knobs repeat, hold back and reorder
// batches and results, workers are killed (marked dead after going silent),
// and several graphs run at once. Every run ends within the bound; without
// failing ops it SUCCEEDED with correct values on live workers, with one it
// FAILED naming the op.
func TestSchedulerUnderHostileNetwork(t *testing.T) {
	checks := 0
	rapid.Check(t, func(rt *rapid.T) {
		checks++
		nw := rapid.IntRange(1, 4).Draw(rt, "workers")
		seed := rapid.Uint64().Draw(rt, "network seed")
		var graphs []*propGraph
		for gi := range rapid.IntRange(1, 3).Draw(rt, "graphs") {
			graphs = append(graphs, randomGraph(rt, protocol.GraphID(gi)))
		}
		killAfter := -1
		if nw > 1 && rapid.Bool().Draw(rt, "kill one") {
			killAfter = rapid.IntRange(0, 30).Draw(rt, "kill after tasks")
		}

		net := &chaosNet{rng: rand.New(rand.NewPCG(seed, 1))}
		workers := make([]*chaosWorker, nw)
		execs := make([]protocol.Executor, nw)
		for w := range nw {
			workers[w] = &chaosWorker{id: w, net: net, store: map[protocol.ChunkKey]uint64{}, cancelled: map[protocol.GraphID]bool{}, byID: map[protocol.GraphID]*propGraph{}, kick: make(chan struct{}, 1), dieAfter: -1}
			execs[w] = workers[w]
		}
		net.workers = workers
		cfg := Config{
			MaxAttempts: 3,
			Logger:      slog.New(slog.DiscardHandler),
			Knobs:       TestingKnobs{OnSend: net.onSend, OnResult: net.onResult},
			// Sources sent at once, or held while their worker is busy.
			HoldSourceBytes: rapid.SampledFrom([]int64{-1, 8}).Draw(rt, "hold sources of bytes"),
			// And small ones past a deep or a shallow worker queue.
			QueuedSourcesPerSlot: rapid.SampledFrom([]int{-1, 1, 2}).Draw(rt, "queued sources per slot"),
		}
		s := New(execs, cfg)
		net.s = s
		workers[0].dieAfter = killAfter
		stop := make(chan struct{})
		gate := make(chan struct{}) // workers start once every graph is known to them
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-gate:
				case <-stop:
					return
				}
				w.loop(stop)
			}()
		}
		// Held-back results go out a little later even if no other
		// result comes to carry them.
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					for _, r := range net.takeHeld() {
						s.Report(r)
					}
				}
			}
		}()
		defer func() { close(stop); wg.Wait(); s.Close() }()

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a failure bound only
		defer cancel()
		runs := make([]*Run, len(graphs))
		for i, pg := range graphs {
			run, err := s.Submit(ctx, pg.g, pg.results)
			if err != nil {
				rt.Fatal(err)
			}
			pg.id = run.ID()
			for _, w := range workers {
				w.register(pg)
			}
			runs[i] = run
		}
		close(gate)
		for i, pg := range graphs {
			select {
			case <-runs[i].Done():
			case <-ctx.Done():
				var diag string
				_ = s.do(func(c *core) {
					diag = runs[i].diagnose(10) + fmt.Sprintf("; busy %v dead %v held %v", c.busy, c.dead, c.held)
					for _, r := range c.sortedRuns() {
						diag += fmt.Sprintf("; run %d: inflight %d onWorker %v cancelled %v ended %v", r.id, r.inflight, r.onWorker, r.cancelled, r.ended)
					}
				})
				rt.Fatalf("graph %d did not end: waiting for %s", i, diag)
			}
			err := runs[i].Wait(ctx)
			var opErr *OpError
			switch {
			case pg.failing >= 0:
				if !errors.As(err, &opErr) || opErr.Node != pg.failing {
					rt.Fatalf("graph %d: %v, want op %d failed", i, err, pg.failing)
				}
				continue
			case err != nil:
				rt.Fatalf("graph %d: %v (counts %v)", i, err, runs[i].Counts())
			}
			// A worker that goes silent after the run ended takes results
			// with it; asking again waits for their recomputation, as a
			// client whose fetch failed would.
			for j, x := range pg.results {
				for {
					locs, err := runs[i].ResultLocations(ctx, []int32{x})
					if err != nil {
						rt.Fatalf("graph %d result %d: %v", i, x, err)
					}
					w := workers[locs[0]]
					v, ok := w.value(protocol.ChunkKey{Graph: pg.id, Node: x})
					if !ok && w.isSilent() {
						continue
					}
					if !ok || v != pg.want[x] {
						rt.Fatalf("graph %d result %d (%d) on worker %d: %d (held %v), want %d", i, j, x, locs[0], v, ok, pg.want[x])
					}
					break
				}
			}
			runs[i].Release()
		}
	})
	t.Logf("%d checks", checks)
}

// chaosNet stands between the scheduler and its workers through the knobs:
// it repeats some messages and holds others back to release them with a
// later one, so batches and results arrive late, twice and out of order
// (batches to one worker keep their order, as the transport does).
type chaosNet struct {
	s       *Scheduler
	workers []*chaosWorker

	mu   sync.Mutex
	rng  *rand.Rand
	held []protocol.Result
}

func (n *chaosNet) takeHeld() []protocol.Result {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.held
	n.held = nil
	return h
}

func (n *chaosNet) roll(k int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rng.IntN(k) == 0
}

func (n *chaosNet) onSend(s Send) []Send {
	if n.roll(4) {
		return []Send{s, s} // resent after a lost acknowledgement
	}
	return []Send{s}
}

func (n *chaosNet) onResult(r protocol.Result) []protocol.Result {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := []protocol.Result{}
	switch n.rng.IntN(6) {
	case 0:
		out = append(out, r, r) // a batch sent twice
	case 1:
		n.held = append(n.held, r) // late: goes with a later result
		if len(n.held) < 4 {
			return nil
		}
	default:
		out = append(out, r)
	}
	// Release what was held, in a shuffled order.
	n.rng.Shuffle(len(n.held), func(i, j int) { n.held[i], n.held[j] = n.held[j], n.held[i] })
	out = append(out, n.held...)
	n.held = nil
	return out
}

// chaosWorker runs tasks on one goroutine, like the fake workers of the
// core's property, and may go silent after some tasks; the test then marks
// it dead, as the heartbeat monitor would.
type chaosWorker struct {
	id  int
	net *chaosNet

	mu        sync.Mutex
	inbox     []Send
	store     map[protocol.ChunkKey]uint64
	cancelled map[protocol.GraphID]bool
	byID      map[protocol.GraphID]*propGraph
	done      int
	dieAfter  int // goes silent after this many tasks; -1 never
	silent    bool
	kick      chan struct{}
}

func (w *chaosWorker) Slots() int { return 1 }
func (w *chaosWorker) Submit(ts []protocol.Task) {
	w.enqueue(Send{Tasks: ts})
}
func (w *chaosWorker) Release(keys []protocol.ChunkKey) { w.enqueue(Send{Releases: keys}) }
func (w *chaosWorker) CancelGraph(g protocol.GraphID) {
	w.enqueue(Send{Cancels: []protocol.GraphID{g}})
}

func (w *chaosWorker) enqueue(s Send) {
	w.mu.Lock()
	w.inbox = append(w.inbox, s)
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *chaosWorker) register(pg *propGraph) {
	w.mu.Lock()
	w.byID[pg.id] = pg
	w.mu.Unlock()
}

func (w *chaosWorker) value(k protocol.ChunkKey) (uint64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v, ok := w.store[k]
	return v, ok && !w.silent
}

func (w *chaosWorker) isSilent() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.silent
}

func (w *chaosWorker) loop(stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-w.kick:
		}
		for {
			w.mu.Lock()
			if len(w.inbox) == 0 || w.silent {
				w.mu.Unlock()
				break
			}
			b := w.inbox[0]
			w.inbox = w.inbox[1:]
			w.mu.Unlock()
			w.apply(b)
		}
	}
}

func (w *chaosWorker) apply(b Send) {
	var out []protocol.Result
	w.mu.Lock()
	for _, k := range b.Releases {
		delete(w.store, k)
	}
	w.mu.Unlock()
	for _, t := range b.Tasks {
		w.mu.Lock()
		if w.dieAfter >= 0 && w.done >= w.dieAfter {
			w.silent = true
			w.mu.Unlock()
			w.net.s.MarkWorkerDead(w.id, fmt.Errorf("worker %d went silent", w.id))
			return
		}
		w.done++
		res := protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w.id}
		pg := w.byID[t.Key.Graph]
		cancelled := w.cancelled[t.Key.Graph]
		w.mu.Unlock()
		if cancelled || pg == nil {
			res.Outcome = protocol.Cancelled
			out = append(out, res)
			continue
		}
		if v, ok := runFakeKernel(t, &res, pg.failing, w.read); ok {
			w.mu.Lock()
			w.store[t.Key] = v
			w.mu.Unlock()
		}
		out = append(out, res)
	}
	w.mu.Lock()
	for _, g := range b.Cancels {
		w.cancelled[g] = true
	}
	w.mu.Unlock()
	for _, r := range out {
		w.net.s.Report(r)
	}
}

// read reads an input from the worker it names, holding one lock at a time.
func (w *chaosWorker) read(in protocol.Input) (uint64, bool) {
	src := w
	if in.Worker >= 0 && in.Worker < len(w.net.workers) {
		src = w.net.workers[in.Worker]
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	v, ok := src.store[in.Key]
	return v, ok && !src.silent
}
