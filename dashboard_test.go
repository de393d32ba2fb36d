package phobos_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

func getDash(t *testing.T, hc *http.Client, url string, v any) int {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("GET %s: %d %q: %v", url, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode
}

type dashCluster struct {
	Workers []struct {
		ID    int `json:"id"`
		Slots int `json:"slots"`
	} `json:"workers"`
	OpsDone int64 `json:"ops_done"`
	Graphs  []struct {
		SessionID string           `json:"session_id"`
		GraphID   string           `json:"graph_id"`
		State     string           `json:"state"`
		ChunkOps  int64            `json:"chunk_ops"`
		Progress  map[string]int64 `json:"progress"`
		Types     []struct {
			Type   string           `json:"type"`
			Counts map[string]int64 `json:"counts"`
		} `json:"types"`
	} `json:"graphs"`
}

// dashboardLogin is a client with the cookie a one-time login link of
// sess's dashboard sets; the link works once only.
func dashboardLogin(t *testing.T, sess *phobos.Session) *http.Client {
	t.Helper()
	link, err := sess.DashboardLogin()
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	for i, want := range []int{200, 403} {
		resp, err := hc.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("login link, use %d: %s, want %d", i+1, resp.Status, want)
		}
	}
	return hc
}

// TestLocalDashboard: a local session with WithDashboard serves the pages
// and their data: its workers, each Execute as a graph with its DAGs, and
// a cancel that ends the Execute.
func TestLocalDashboard(t *testing.T) {
	sess, err := phobos.NewSession(phobos.WithWorkers(2), phobos.WithSlots(1), phobos.WithDashboard("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	base := sess.DashboardURL()
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("DashboardURL %q", base)
	}
	// The data needs the dashboard's token; a one-time link sets its cookie.
	if code := getDash(t, http.DefaultClient, base+"/api/dashboard/cluster", new(map[string]any)); code != 401 {
		t.Fatalf("the dashboard's data without logging in: %d, want 401", code)
	}
	hc := dashboardLogin(t, sess)
	ctx := context.Background()
	v, err := sess.ExecuteScalar(ctx, tensor.Arange(0, 100, 1, tensor.Chunks(7)).Sum())
	if err != nil || v != 4950 {
		t.Fatalf("sum: %v, %v", v, err)
	}
	st := sess.Stats()

	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "Phobos dashboard") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("GET /: %s %q", resp.Status, page)
	}
	var c dashCluster
	if code := getDash(t, hc, base+"/api/dashboard/cluster", &c); code != 200 {
		t.Fatalf("cluster: %d", code)
	}
	if len(c.Workers) != 2 || c.Workers[0].Slots != 1 {
		t.Fatalf("workers: %+v", c.Workers)
	}
	if len(c.Graphs) != 1 || c.Graphs[0].State != "SUCCEEDED" || c.Graphs[0].ChunkOps != int64(st.ChunkOps) || c.OpsDone != int64(st.ChunkOps) {
		t.Fatalf("graphs %+v, ops done %d: want one SUCCEEDED of %d ops", c.Graphs, c.OpsDone, st.ChunkOps)
	}
	var byType int64
	for _, tc := range c.Graphs[0].Types {
		for _, n := range tc.Counts {
			byType += n
		}
	}
	if byType != int64(st.ChunkOps) {
		t.Errorf("ops by type: %d, want %d", byType, st.ChunkOps)
	}
	var d struct {
		Tileable struct{ Nodes []struct{ Type string } }
		Chunks   struct {
			Nodes []struct{ Counts map[string]int64 }
			Ops   int64
		}
	}
	getDash(t, hc, base+"/api/sessions/local/graphs/g1/dag", &d)
	if len(d.Tileable.Nodes) != 2 || d.Tileable.Nodes[0].Type != "arange" || d.Chunks.Ops != int64(st.ChunkOps) || len(d.Chunks.Nodes) != st.ChunkOps {
		t.Errorf("dag: %+v", d)
	}
	var e map[string]any
	if code := getDash(t, hc, base+"/api/sessions/local/graphs/g9/dag", &e); code != 404 || !strings.Contains(e["error"].(string), `no graph "g9"`) {
		t.Errorf("unknown graph: %d %v", code, e)
	}
	if code := getDash(t, hc, base+"/api/sessions/local/graphs/g1/ops?nodes=x", &e); code != 400 {
		t.Errorf("bad nodes: %d %v", code, e)
	}

	// A cancel from the dashboard ends a running Execute as cancelled.
	g := tensor.NewGenerator(1)
	x := g.Rand([]int{1500, 1500}, tensor.Chunks(150))
	done := make(chan error, 1)
	go func() {
		_, err := sess.Execute(ctx, x.MatMul(x).Sum())
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		getDash(t, hc, base+"/api/dashboard/cluster", &c)
		if len(c.Graphs) == 2 && c.Graphs[1].Progress["RUNNING"]+c.Graphs[1].Progress["FINISHED"] > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second graph never ran: %+v", c.Graphs)
		}
	}
	req, _ := http.NewRequest("DELETE", base+"/api/sessions/local/graphs/g2", nil)
	resp, err = hc.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	resp.Body.Close()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled Execute returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the Execute did not end within 30 s of the cancel")
	}
	getDash(t, hc, base+"/api/dashboard/cluster", &c)
	if c.Graphs[1].State != "CANCELLED" {
		t.Errorf("after the cancel: %+v", c.Graphs[1])
	}
}
