package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
)

// scrape GETs url/metrics with the cluster's client and parses it with the
// Prometheus text parser.
func scrape(t testing.TB, hc *http.Client, url string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/metrics: %s", url, resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("GET %s/metrics: Content-Type %q, want the text format", url, ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s/metrics: %v", url, err)
	}
	return fams
}

// sum adds the values of a family's series whose labels include want.
func sum(t testing.TB, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no series %s", name)
	}
	total := 0.0
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Histogram != nil:
			total += float64(m.Histogram.GetSampleCount())
		}
	}
	return total
}

func requireSeries(t *testing.T, role string, fams map[string]*dto.MetricFamily, names ...string) {
	t.Helper()
	var missing []string
	for _, n := range names {
		if _, ok := fams[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		var have []string
		for n := range fams {
			if strings.HasPrefix(n, "phobos_") {
				have = append(have, n)
			}
		}
		sort.Strings(have)
		t.Fatalf("%s /metrics lacks %v; it has %v", role, missing, have)
	}
}

// TestMetricsEveryRole runs a graph on an in-process cluster (behind a
// token) and reads every role's /metrics with the Prometheus parser: the
// series are there, and the chunk ops the workers counted and the results
// the scheduler took are the ops the run executed, the bytes the workers
// fetched from peers the bytes it moved.
func TestMetricsEveryRole(t *testing.T) {
	ctx := context.Background()
	const token = "metrics-token"
	sp, ws, wp := startRoles(t, cluster.SchedulerConfig{Token: token}, func(i int, cfg *cluster.WorkerConfig) { cfg.Slots = 2 }, 2)
	sess, err := phobos.Connect(ctx, wp.URL(), phobos.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	g := tensor.NewGenerator(3)
	x := g.Rand([]int{300, 300}, tensor.Chunks(70))
	if _, err := sess.Execute(ctx, x.MatMul(x.T()).Sum(tensor.Axis(0))); err != nil {
		t.Fatal(err)
	}
	st := sess.Stats()
	if st.ChunkOps == 0 || st.MovedBytes == 0 {
		t.Fatalf("stats %+v: want chunk ops, and bytes moved between the two workers", st)
	}
	hc, err := cluster.NewClient(token, rpc.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}

	// /metrics is behind the token like everything else.
	resp, err := http.Get(ws[0].URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token: %d, want 401", resp.StatusCode)
	}

	var ops, fetched, fetches float64
	for i, w := range ws {
		fams := scrape(t, hc, w.URL())
		requireSeries(t, fmt.Sprintf("worker %d", i), fams,
			"phobos_worker_chunk_ops_total", "phobos_worker_chunk_op_duration_seconds",
			"phobos_worker_slots", "phobos_worker_slots_busy", "phobos_worker_queued_ops",
			"phobos_worker_store_chunks", "phobos_worker_store_memory_bytes", "phobos_worker_store_memory_limit_bytes",
			"phobos_worker_store_reserved_bytes", "phobos_worker_store_disk_bytes",
			"phobos_worker_store_spilled_bytes_total", "phobos_worker_store_spill_seconds_total",
			"phobos_worker_store_loaded_bytes_total", "phobos_worker_store_load_seconds_total",
			"phobos_worker_peer_fetch_bytes_total", "phobos_worker_peer_fetches_total",
			"phobos_http_requests_total", "phobos_http_request_duration_seconds",
			"go_goroutines", "process_cpu_seconds_total")
		id := map[string]string{"worker": fmt.Sprint(w.ID())}
		ops += sum(t, fams, "phobos_worker_chunk_ops_total", map[string]string{"worker": fmt.Sprint(w.ID()), "outcome": "succeeded"})
		fetched += sum(t, fams, "phobos_worker_peer_fetch_bytes_total", id)
		fetches += sum(t, fams, "phobos_worker_peer_fetches_total", id)
		if got := sum(t, fams, "phobos_worker_slots", id); got != 2 {
			t.Errorf("worker %d: slots %v, want 2", i, got)
		}
		if got := sum(t, fams, "phobos_worker_store_memory_limit_bytes", id); got != 64<<20 {
			t.Errorf("worker %d: memory limit %v, want %d", i, got, 64<<20)
		}
		if got := sum(t, fams, "phobos_worker_chunk_op_duration_seconds", id); got == 0 {
			t.Errorf("worker %d: no op durations observed", i)
		}
		if got := sum(t, fams, "phobos_http_requests_total", map[string]string{"route": "/phobos.v1.WorkerService/", "code": "200"}); got == 0 {
			t.Errorf("worker %d: no dispatches counted by route", i)
		}
	}
	if int(ops) != st.ChunkOps {
		t.Errorf("workers counted %v succeeded chunk ops; the run executed %d", ops, st.ChunkOps)
	}
	if int64(fetched) != st.MovedBytes || fetches == 0 {
		t.Errorf("workers fetched %v bytes from peers in %v reads; the run moved %d", fetched, fetches, st.MovedBytes)
	}

	fams := scrape(t, hc, sp.URL())
	requireSeries(t, "scheduler", fams,
		"phobos_scheduler_chunk_op_results_total", "phobos_scheduler_graphs_ended_total", "phobos_scheduler_graph_phase_duration_seconds",
		"phobos_scheduler_sessions", "phobos_scheduler_graphs", "phobos_scheduler_chunk_ops", "phobos_scheduler_workers",
		"phobos_scheduler_slots", "phobos_scheduler_slots_busy", "phobos_scheduler_queued_ops", "phobos_scheduler_store_memory_bytes",
		"phobos_scheduler_memory_limit_bytes", "phobos_scheduler_worker_heartbeat_age_seconds", "phobos_scheduler_results_ignored_total",
		"phobos_http_requests_total", "phobos_http_request_duration_seconds")
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"phobos_scheduler_chunk_op_results_total", map[string]string{"outcome": "succeeded"}, float64(st.ChunkOps)},
		{"phobos_scheduler_graphs_ended_total", map[string]string{"state": "SUCCEEDED"}, 1},
		{"phobos_scheduler_graph_phase_duration_seconds", map[string]string{"phase": "run"}, 1},
		// The client deleted its graph once it had the result.
		{"phobos_scheduler_graphs", nil, 0},
		{"phobos_scheduler_chunk_ops", nil, 0},
		{"phobos_scheduler_sessions", nil, 1},
		{"phobos_scheduler_workers", map[string]string{"alive": "true"}, 2},
		{"phobos_scheduler_slots", nil, 4},
		{"phobos_scheduler_memory_limit_bytes", nil, 2 * 64 << 20},
		{"phobos_scheduler_worker_heartbeat_age_seconds", map[string]string{"worker": "1"}, -1},
	} {
		got := sum(t, fams, c.name, c.labels)
		if c.want < 0 && got <= 0 || c.want >= 0 && got != c.want {
			t.Errorf("scheduler: %s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	fams = scrape(t, hc, wp.URL())
	requireSeries(t, "web", fams, "phobos_http_requests_total", "phobos_http_request_duration_seconds", "go_goroutines",
		"phobos_scheduler_workers", "phobos_scheduler_chunk_op_results_total") // the scheduler's, forwarded
	if got := sum(t, fams, "phobos_scheduler_chunk_op_results_total", map[string]string{"outcome": "succeeded"}); int(got) != st.ChunkOps {
		t.Errorf("web: the scheduler's results forwarded as %v, want %d", got, st.ChunkOps)
	}
	for _, c := range []struct{ route, code string }{
		{"POST /api/sessions", "201"},
		{"POST /api/sessions/{sid}/graphs", "201"},
		{"GET /api/sessions/{sid}/graphs/{gid}", "200"},
	} {
		if got := sum(t, fams, "phobos_http_requests_total", map[string]string{"route": c.route, "code": c.code}); got == 0 {
			t.Errorf("web: no requests counted for %s with %s", c.route, c.code)
		}
	}
}

// parseText parses a /metrics response in the text format.
func parseText(resp *http.Response) (map[string]*dto.MetricFamily, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}
