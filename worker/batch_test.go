package worker_test

import (
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// batchRecorder takes results in batches and notes, at each batch, the
// tasks the worker still counted as running.
type batchRecorder struct {
	w       *worker.Worker
	batches chan []protocol.Result
	running chan int
}

func (r *batchRecorder) Report(res protocol.Result) { r.ReportBatch([]protocol.Result{res}) }

func (r *batchRecorder) ReportBatch(rs []protocol.Result) {
	running, _ := r.w.Busy()
	r.running <- running
	r.batches <- rs
}

// Quiet ops (too small to report starting) have their results held back
// by their slot and reported in batches: fewer reports than ops, every
// result once, none held while the slot waits for work (the last result
// arrives with nothing more submitted), and a batch only once the slots
// of its tasks were given back.
func TestQuietResultsComeInBatches(t *testing.T) {
	const n, slots = 500, 2
	st := storage.Open(storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	rec := &batchRecorder{batches: make(chan []protocol.Result, n), running: make(chan int, n)}
	w := worker.New(worker.Config{Slots: slots, QuietStartBytes: 1 << 20}, st, rec, nil)
	rec.w = w
	t.Cleanup(func() { w.Close(); st.Close() })

	tasks := make([]protocol.Task, n)
	for i := range tasks {
		tasks[i] = task(int32(i), &testOp{name: "tiny", n: 1}, 1, depth(0))
	}
	w.Submit(tasks)
	seen := map[protocol.ChunkKey]int{}
	reports := 0
	timeout := time.After(time.Minute) // turns a hang into a failure
	for len(seen) < n {
		select {
		case rs := <-rec.batches:
			reports++
			if len(rs) > 64 {
				t.Errorf("a batch of %d results", len(rs))
			}
			if running := <-rec.running; running > slots-1 {
				t.Errorf("a batch reported while %d tasks were counted running", running)
			}
			for _, r := range rs {
				if r.Outcome != protocol.Succeeded {
					t.Fatalf("%v: %v %v", r.Key, r.Outcome, r.Err)
				}
				seen[r.Key]++
			}
		case <-timeout:
			t.Fatalf("%d of %d results after a minute", len(seen), n)
		}
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("%v reported %d times", k, c)
		}
	}
	if reports >= n/2 {
		t.Errorf("%d reports for %d quiet ops: not batched", reports, n)
	}
	if running, queued := w.Busy(); running != 0 || queued != 0 {
		t.Errorf("after every result: %d running, %d queued", running, queued)
	}
}

// An op big enough to report its start is not held back: its Started
// notice and its result come in order, each at once.
func TestLoudResultsAreNotHeld(t *testing.T) {
	st := storage.Open(storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	rec := &batchRecorder{batches: make(chan []protocol.Result, 16), running: make(chan int, 16)}
	w := worker.New(worker.Config{Slots: 1, QuietStartBytes: unit}, st, rec, nil)
	rec.w = w
	t.Cleanup(func() { w.Close(); st.Close() })
	w.Submit([]protocol.Task{task(1, &testOp{name: "big", n: elems}, elems, depth(0))})
	var got []protocol.Outcome
	for len(got) < 2 {
		rs := <-rec.batches
		<-rec.running
		if len(rs) != 1 {
			t.Fatalf("a batch of %d for one loud op", len(rs))
		}
		got = append(got, rs[0].Outcome)
	}
	if got[0] != protocol.Started || got[1] != protocol.Succeeded {
		t.Errorf("reports %v, want Started then Succeeded", got)
	}
}
