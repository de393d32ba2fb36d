package metrics

import (
	"testing"

	"github.com/phobos-tensor/phobos/storage"
	"time"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

func BenchmarkTaskEnded(b *testing.B) {
	m := NewWorker()
	t := &protocol.Task{Op: ops.Fused{}}
	res := protocol.Result{Outcome: protocol.Succeeded}
	b.ReportAllocs()
	for b.Loop() {
		m.TaskEnded(t, res, 3*time.Microsecond)
	}
}

// TestTaskEndedCounts: each end is counted under its op type and outcome,
// and only ran ops are timed.
func TestTaskEndedCounts(t *testing.T) {
	m := NewWorker()
	if err := m.Register(3, idle{}); err != nil {
		t.Fatal(err)
	}
	fused, full := &protocol.Task{Op: ops.Fused{}}, &protocol.Task{Op: ops.ArgsortBounds{}}
	for range 3 {
		m.TaskEnded(fused, protocol.Result{Outcome: protocol.Succeeded}, time.Millisecond)
	}
	m.TaskEnded(fused, protocol.Result{Outcome: protocol.Failed}, time.Millisecond)
	m.TaskEnded(full, protocol.Result{Outcome: protocol.Cancelled}, 0)
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	timed := map[string]uint64{}
	for _, f := range fams {
		for _, x := range f.Metric {
			var op, outcome string
			for _, l := range x.Label {
				switch l.GetName() {
				case "op":
					op = l.GetValue()
				case "outcome":
					outcome = l.GetValue()
				}
			}
			switch f.GetName() {
			case "phobos_worker_chunk_ops_total":
				got[op+"/"+outcome] = x.GetCounter().GetValue()
			case "phobos_worker_chunk_op_duration_seconds":
				timed[op] = x.GetHistogram().GetSampleCount()
			}
		}
	}
	want := map[string]float64{"fuse/succeeded": 3, "fuse/failed": 1, "fuse/cancelled": 0, "argsort_bounds/succeeded": 0, "argsort_bounds/failed": 0, "argsort_bounds/cancelled": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) || timed["fuse"] != 4 || timed["argsort_bounds"] != 0 {
		t.Errorf("series %v, timed %v: want exactly %v, fuse timed 4 times, argsort_bounds never", got, timed, want)
	}
}

type idle struct{}

func (idle) Load() (slots, running, queued int) { return 1, 0, 0 }
func (idle) StoreStats() storage.Stats          { return storage.Stats{} }
