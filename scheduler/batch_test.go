package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/protocol"
)

// driveBatches runs a tree of n leaves on a bare core whose workers
// (slots[w] each) succeed every task at once and report in batches of
// size: each batch through applyResults when batched, else result by
// result through applyResult, the path of results reported one at a time.
// It returns the run and the tasks each worker was sent, in order.
func driveBatches(tb testing.TB, n int, slots []int, size int, batched bool) (*Run, [][]protocol.ChunkKey) {
	tb.Helper()
	g, root := treeGraph(n)
	c := newCore(Config{MaxAttempts: 3, Now: batchNow}, slots)
	r := newRun(nil, 1, g, Prepare(g, []int32{root}, slots), []int32{root})
	queues := make([][]protocol.Task, len(slots))
	sent := make([][]protocol.ChunkKey, len(slots))
	collect := func(a Actions) {
		for _, snd := range a.Sends {
			queues[snd.Worker] = append(queues[snd.Worker], snd.Tasks...)
			for _, t := range snd.Tasks {
				sent[snd.Worker] = append(sent[snd.Worker], t.Key)
			}
		}
	}
	collect(c.Step(msgSubmit{run: r}))
	batch := make([]protocol.Result, 0, size)
	for steps := 0; !r.ended; steps++ {
		if steps > 10*n+100 {
			tb.Fatalf("run not ended after %d steps: %s", steps, r.diagnose(8))
		}
		progressed := false
		for w := range queues {
			k := min(size, len(queues[w]))
			if k == 0 {
				continue
			}
			progressed = true
			batch = batch[:0]
			for _, t := range queues[w][:k] {
				batch = append(batch, protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w, Outcome: protocol.Succeeded, Nbytes: 8, Fence: t.Fence.Token})
			}
			queues[w] = queues[w][k:]
			if batched {
				c.applyResults(batch)
			} else {
				for _, res := range batch {
					c.applyResult(res)
				}
			}
			collect(c.take())
		}
		if !progressed {
			tb.Fatalf("nothing queued and the run has not ended: %s", r.diagnose(8))
		}
	}
	return r, sent
}

// A worker's batch applied as one step ends the run as results applied one
// by one do: every op run once, the result kept, the rest freed, and no op
// sent more than once; the sources still go most urgent first per worker.
func TestBatchStepSameOutcome(t *testing.T) {
	for _, tc := range []struct {
		n     int
		slots []int
		size  int
	}{
		{1, []int{1}, 1}, {7, []int{1}, 3}, {1000, []int{2}, 64}, {20000, []int{2}, 64},
		{20000, []int{1, 2, 3}, 17}, {5000, []int{1, 1}, 1000},
	} {
		t.Run(fmt.Sprintf("n%d_w%d_b%d", tc.n, len(tc.slots), tc.size), func(t *testing.T) {
			one, sentOne := driveBatches(t, tc.n, tc.slots, tc.size, false)
			all, sentAll := driveBatches(t, tc.n, tc.slots, tc.size, true)
			for _, r := range []*Run{one, all} {
				if r.err != nil || r.finished != len(r.g.Nodes) {
					t.Fatalf("run ended with %v, %d of %d finished", r.err, r.finished, len(r.g.Nodes))
				}
				for i, st := range r.state {
					want := Freed
					if r.isResult[i] {
						want = Finished
					}
					if st != want || r.attempt[i] != 1 {
						t.Fatalf("op %d: %v after %d attempts, want %v after 1", i, st, r.attempt[i], want)
					}
				}
			}
			for w := range tc.slots {
				if len(sentOne[w]) != len(sentAll[w]) {
					t.Errorf("worker %d: %d tasks one by one, %d batched", w, len(sentOne[w]), len(sentAll[w]))
				}
				// Sources go out in Plan.Sources order on either path.
				src := func(keys []protocol.ChunkKey) []int32 {
					var out []int32
					for _, k := range keys {
						if len(all.g.Nodes[k.Node].Inputs) == 0 {
							out = append(out, k.Node)
						}
					}
					return out
				}
				if a, b := src(sentOne[w]), src(sentAll[w]); !slices.Equal(a, b) {
					t.Errorf("worker %d: sources sent in another order batched", w)
				}
			}
		})
	}
}

// BenchmarkBatchStep is the event loop's core alone on a tree of 2^17
// leaves, results in batches of 64 (as the local worker's slots report
// them): applied result by result, or a batch per step.
func BenchmarkBatchStep(b *testing.B) {
	for _, batched := range []bool{false, true} {
		name := "per-result"
		if batched {
			name = "per-batch"
		}
		b.Run(name, func(b *testing.B) {
			n := 1 << 17
			for range b.N {
				driveBatches(b, n, []int{2}, 64, batched)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(2*n-1)), "ns/chunk-op")
		})
	}
}

// batchNow is the bare core's clock in these tests: progress supervision
// never fires and task times are all one instant.
func batchNow() time.Time { return time.Unix(1, 0) }
