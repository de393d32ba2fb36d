package worker_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// A lane's released chunk is deleted by the lane's slot, not by the
// goroutine that released it: while the slot runs a task, the key waits
// in the lane. What reads the worker's chunks from outside finds it gone
// all the same, and a key made again after its release keeps its new
// chunk.
func TestLaneDeletesItsReleases(t *testing.T) {
	w, _, rec := newLaneWorker(t, storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	ls := worker.LaneStore(w, 0)
	succeed := func(k protocol.ChunkKey) {
		t.Helper()
		if res := rec.wait(t, k); res.Outcome != protocol.Succeeded {
			t.Fatalf("%v: %v %v", k, res.Outcome, res.Err)
		}
	}
	w.Submit([]protocol.Task{ordered(0, &intoOp{testOp{name: "part", n: 1}}, 1, 0)})
	succeed(key(0))
	if tier := ls.Tier(key(0)); tier != storage.TierMemory {
		t.Fatalf("op 0's chunk: %v in lane 0's store, want memory", tier)
	}

	// Lane 0's slot busy in op 1's kernel: op 0's release waits for it.
	gate, started := make(chan struct{}), make(chan struct{})
	w.Submit([]protocol.Task{ordered(1, &intoOp{testOp{name: "held", n: 1, gate: gate, onRun: func() { close(started) }}}, 1, 0)})
	<-started
	w.Release([]protocol.ChunkKey{key(0)})
	if n := worker.Deferred(w, 0); n != 1 {
		t.Errorf("lane 0 has %d releases to delete, want 1 (its slot is busy)", n)
	}
	if tier := ls.Tier(key(0)); tier != storage.TierMemory {
		t.Errorf("op 0's chunk: %v while lane 0's slot runs, want memory (deleted by the slot, later)", tier)
	}
	close(gate)
	succeed(key(1))
	if held := w.Chunks([]protocol.GraphID{1}); len(held) != 1 || held[0].Key != key(1) {
		t.Errorf("after op 0's release, Chunks lists %+v, want op 1's chunk alone", held)
	}
	if tier := ls.Tier(key(0)); tier != storage.TierNone {
		t.Errorf("op 0's chunk: %v after Chunks, want deleted", tier)
	}

	// Op 1 released and made again from op 2's chunk (1 + 1): the
	// release, deleted on the lane later than it was sent, must not take
	// the new chunk.
	w.Submit([]protocol.Task{ordered(2, &intoOp{testOp{name: "part", n: 1}}, 1, 0)})
	succeed(key(2))
	w.Release([]protocol.ChunkKey{key(1)})
	again := ordered(1, &intoOp{testOp{name: "again", n: 1}}, 1, 0, key(2))
	again.Inputs = tinyInputs(again.Inputs)
	again.Attempt = 2
	w.Submit([]protocol.Task{again})
	succeed(key(1))
	a, err := w.Get(context.Background(), key(1))
	if err != nil {
		t.Fatalf("op 1 made again: %v", err)
	}
	if v := a.AtFlat(0); v != 2 {
		t.Errorf("op 1 made again = %v, want 2", v)
	}
	if n := worker.Deferred(w, 0); n != 0 {
		t.Errorf("lane 0 still has %d releases to delete", n)
	}
}
