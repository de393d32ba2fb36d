package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/web"
)

// TestTopOnce runs `phobos top URL -once` against an in-process cluster
// that ran graphs (one kept, succeeded) and checks its frame against the
// REST API: workers, slots, memory limits, sessions, graphs, and the chunk
// ops the workers ended against the graphs' chunk ops.
func TestTopOnce(t *testing.T) {
	ctx := context.Background()
	sp, err := cluster.StartScheduler(cluster.SchedulerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	for i := range 2 {
		w, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Scheduler: sp.URL(), Slots: 1 + i, Memory: int64(32+32*i) << 20, SpillDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
	}
	wp, err := cluster.StartWeb(cluster.WebConfig{Scheduler: sp.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wp.Close)
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := cluster.WaitReady(rctx, http.DefaultClient, wp.URL(), 2); err != nil {
		t.Fatal(err)
	}

	// A graph run through the client (deleted once fetched) and one
	// submitted over REST and kept.
	sess, err := phobos.Connect(ctx, wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := tensor.NewGenerator(1).Rand([]int{200, 200}, tensor.Chunks(50))
	if _, err := sess.Execute(ctx, x.Add(1).Sum(tensor.Axis(1))); err != nil {
		t.Fatal(err)
	}
	ops := sess.Stats().ChunkOps
	sid := postJSON(t, wp.URL()+"/api/sessions", nil)["session_id"].(string)
	tg, ids, err := tensor.Build(tensor.Ones([]int{30}, tensor.Chunks(4)).Sum())
	if err != nil {
		t.Fatal(err)
	}
	gj, err := graph.EncodeTileable(tg)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(web.SubmitRequest{Graph: gj, Results: ids})
	st := postJSON(t, wp.URL()+"/api/sessions/"+sid+"/graphs", body)
	var g web.GraphJSON
	getJSONT(t, wp.URL()+st["url"].(string)+"?wait_timeout=30", &g)
	if g.State != "SUCCEEDED" {
		t.Fatalf("kept graph: %+v", g)
	}
	ops += int(g.ChunkOps)

	var out, errb bytes.Buffer
	if code := run([]string{"top", wp.URL(), "-once", "-interval", "50ms"}, &out, &errb); code != 0 {
		t.Fatalf("phobos top -once: exit %d: %s", code, errb.String())
	}
	frame := out.String()
	t.Logf("frame:\n%s", frame)

	var info web.APIInfo
	getJSONT(t, wp.URL()+"/api", &info)
	var ws struct{ Workers []web.WorkerJSON }
	getJSONT(t, wp.URL()+"/api/workers", &ws)
	slots, limit := 0, int64(0)
	for _, w := range ws.Workers {
		slots += w.Slots
		limit += w.MemoryBytes
	}
	for _, want := range []string{
		fmt.Sprintf("workers %d/%d ", info.LiveWorkers, len(ws.Workers)),
		fmt.Sprintf(" slots 0/%d ", slots), // nothing runs now
		fmt.Sprintf("/%s ", mib(limit)),
		"graphs running 0  preparing 0  succeeded 1  failed 0  cancelled 0",
		fmt.Sprintf("sessions %d", info.Sessions),
		" ops/s 0.0",
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("the frame lacks %q", want)
		}
	}
	// The worker rows: one per worker, their figures the REST API's; the
	// ops they ended add up to the graphs' chunk ops.
	rows := map[string][]string{}
	for _, line := range strings.Split(frame, "\n") {
		f := strings.Fields(line)
		if len(f) == 10 && f[0] != "WORKER" {
			rows[f[0]] = f
		}
	}
	done := 0
	for _, w := range ws.Workers {
		r, ok := rows[strconv.Itoa(w.ID)]
		if !ok {
			t.Fatalf("no row for worker %d", w.ID)
		}
		want := []string{strconv.Itoa(w.ID), "yes", strconv.Itoa(w.Slots), "0", "0", mib(w.StoreBytes), mib(w.MemoryBytes), mib(0)}
		if got := r[:8]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("worker %d: row %v, want %v", w.ID, got, want)
		}
		n, err := strconv.Atoi(r[8])
		if err != nil {
			t.Fatalf("worker %d: ops %q", w.ID, r[8])
		}
		done += n
		if r[9] != w.URL {
			t.Errorf("worker %d: url %s, want %s", w.ID, r[9], w.URL)
		}
	}
	if done != ops {
		t.Errorf("workers ended %d chunk ops; the graphs had %d", done, ops)
	}
	if code := run([]string{"top"}, &out, &errb); code != exitUsage {
		t.Errorf("phobos top without a URL: exit %d, want %d", code, exitUsage)
	}
}

func postJSON(t *testing.T, url string, body []byte) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST %s: %s, %v", url, resp.Status, err)
	}
	return m
}

func getJSONT(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
