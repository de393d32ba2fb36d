package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestProcessesLogJSONAndServeMetrics: role processes started with
// --log-format json write nothing but JSON lines on stderr, the scheduler's
// lines name each graph's session, graph and run, and every process
// serves /metrics in the text format.
func TestProcessesLogJSONAndServeMetrics(t *testing.T) {
	needBinary(t)
	logs := &syncBuffer{}
	args := []string{"--log-format", "json", "--log-level", "info"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Launch(ctx, cluster.LaunchConfig{
		Exe: phobosBin, Workers: 2, Slots: 1, Memory: 1 << 30, Stderr: logs,
		ExtraArgs: map[string][]string{"scheduler": args, "worker": args, "web": args},
	})
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, logs)
	}
	sess, err := phobos.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.NewGenerator(2).Rand([]int{100, 100}, tensor.Chunks(30))
	if _, err := sess.Execute(ctx, x.MatMul(x).Sum()); err != nil {
		t.Fatal(err)
	}
	ops := sess.Stats().ChunkOps
	sess.Close()

	done := 0.0
	for _, u := range append([]string{c.URL, c.SchedulerURL}, c.WorkerURLs...) {
		resp, err := http.Get(u + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		fams, err := parseText(resp)
		if err != nil {
			t.Fatalf("%s/metrics: %v", u, err)
		}
		if _, ok := fams["phobos_http_requests_total"]; !ok {
			t.Errorf("%s/metrics has no phobos_http_requests_total", u)
		}
		for _, m := range fams["phobos_worker_chunk_ops_total"].GetMetric() {
			for _, l := range m.Label {
				if l.GetName() == "outcome" && l.GetValue() == "succeeded" {
					done += m.GetCounter().GetValue()
				}
			}
		}
	}
	if int(done) != ops {
		t.Errorf("the worker processes counted %v chunk ops, the graph had %d", done, ops)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	roles := map[string]bool{}
	var running, succeeded map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a role logged a line that is not JSON: %v: %s", err, sc.Text())
		}
		roles[m["role"].(string)] = true
		switch m["msg"] {
		case "graph running":
			running = m
		case "graph succeeded":
			succeeded = m
		}
	}
	for _, r := range []string{"scheduler", "worker", "web"} {
		if !roles[r] {
			t.Errorf("no JSON line from the %s: %v", r, roles)
		}
	}
	if running == nil || succeeded == nil {
		t.Fatalf("no 'graph running' and 'graph succeeded' lines:\n%s", logs)
	}
	for _, k := range []string{"session", "graph", "run"} {
		if running[k] == nil || running[k] != succeeded[k] {
			t.Errorf("%s: %v when running, %v when it succeeded", k, running[k], succeeded[k])
		}
	}
}
