package phobos_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestLocalSessionMetrics: a local session WithMetrics serves its workers'
// series; parsed with the Prometheus text parser, the succeeded chunk ops
// of both workers add up to the ops the execution ran. Closing the session
// stops serving.
func TestLocalSessionMetrics(t *testing.T) {
	ctx := context.Background()
	s, err := phobos.NewSession(phobos.WithWorkers(2), phobos.WithSlots(1), phobos.WithMetrics("127.0.0.1:0"), phobos.WithGoMemoryLimit(false))
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.NewGenerator(5).Rand([]int{120, 90}, tensor.Chunks(25))
	if _, err := s.Execute(ctx, x.MatMul(x.T()).Sum(tensor.Axis(0))); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	url := s.MetricsURL()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	ops := 0.0
	workers := map[string]bool{}
	for _, m := range fams["phobos_worker_chunk_ops_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		workers[labels["worker"]] = true
		if labels["outcome"] == "succeeded" {
			ops += m.GetCounter().GetValue()
		}
	}
	if int(ops) != st.ChunkOps || len(workers) != 2 {
		t.Errorf("%v succeeded chunk ops on workers %v; the execution ran %d on 2", ops, workers, st.ChunkOps)
	}
	for _, name := range []string{"phobos_worker_slots", "phobos_worker_store_memory_bytes", "phobos_worker_chunk_op_duration_seconds", "go_goroutines"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no %s at %s", name, url)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(url); err == nil {
		resp.Body.Close()
		t.Errorf("GET %s after Close: %s, want no server", url, resp.Status)
	}
	plain, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if u := plain.MetricsURL(); u != "" {
		t.Errorf("a session without WithMetrics serves metrics at %q", u)
	}
}
