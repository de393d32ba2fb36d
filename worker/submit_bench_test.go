package worker_test

import (
	"sync"
	"testing"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// countingReporter counts terminal results and signals when n arrived.
type countingReporter struct {
	mu   sync.Mutex
	n    int
	want int
	done chan struct{}
}

func (c *countingReporter) Report(r protocol.Result) {
	if r.Outcome == protocol.Started {
		return
	}
	c.mu.Lock()
	c.n++
	if c.n == c.want {
		close(c.done)
	}
	c.mu.Unlock()
}

// BenchmarkSubmitTinyTasks is the worker's per-task overhead: batches of
// tasks with no inputs and an 8-byte output (as in W5), submitted, run and
// reported, then released. The worker is configured as the clusters do
// (DefaultQuietStartBytes: such tasks run quietly, in runs, their results
// held and reported in batches). Reports tasks per second.
func BenchmarkSubmitTinyTasks(b *testing.B) {
	const batch, batches = 256, 40
	st := storage.Open(storage.Config{Limit: 1 << 30})
	rep := &countingReporter{}
	w := worker.New(worker.Config{Slots: 2, QuietStartBytes: worker.DefaultQuietStartBytes}, st, rep, nil)
	defer func() { w.Close(); st.Close() }()
	op := &testOp{name: "tiny", n: 1}
	graph := protocol.GraphID(0)
	for b.Loop() {
		graph++
		rep.mu.Lock()
		rep.n, rep.want, rep.done = 0, batch*batches, make(chan struct{})
		rep.mu.Unlock()
		var keys []protocol.ChunkKey
		for j := range batches {
			tasks := make([]protocol.Task, batch)
			for i := range tasks {
				tasks[i] = task(int32(j*batch+i), op, 1, depth(0))
				tasks[i].Key.Graph = graph
				tasks[i].Attempt = 1
				keys = append(keys, tasks[i].Key)
			}
			w.Submit(tasks)
		}
		<-rep.done
		w.Release(keys)
	}
	b.ReportMetric(float64(batch*batches*b.N)/b.Elapsed().Seconds(), "tasks/s")
}
