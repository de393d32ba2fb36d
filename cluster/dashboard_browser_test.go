package cluster_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/dashboard"
	"github.com/phobos-tensor/phobos/tensor"
)

var screenshots = flag.String("dashboard-screenshots", "", "directory to write the dashboard's screenshots to (docs/dashboard)")

// browser starts headless Chromium (Debian's chromium) for a test, or skips
// the test saying how to install it.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		t.Skip("no Chromium: the dashboard's browser tests need it (Debian: apt-get install chromium)")
	}
	return startBrowser(t, exe)
}

// browserNiced is browser with Chromium at the lowest CPU priority
// (nice 19): for measuring a cluster with a browser open on a machine
// whose cores the browser would otherwise take from it (a user's
// browser runs on the user's machine).
func browserNiced(t *testing.T) context.Context {
	t.Helper()
	exe, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no Chromium: the dashboard's browser tests need it (Debian: apt-get install chromium)")
	}
	wrapper := filepath.Join(t.TempDir(), "chromium-niced")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec nice -n 19 "+exe+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return startBrowser(t, wrapper)
}

func startBrowser(t *testing.T, exe string) context.Context {
	t.Helper()
	// This machine's network is closed: Chromium must not reach out on
	// its own (updates, sync, QUIC probes), or it stalls.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// js evaluates expr in the page.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitJS polls expr in the page until it is true.
func waitJS(t *testing.T, ctx context.Context, timeout time.Duration, what, expr string) {
	t.Helper()
	eventually(t, timeout, what, func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		return err == nil && ok
	})
}

func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return js[string](t, ctx, fmt.Sprintf("(document.getElementById(%q) || {}).textContent || ''", id))
}

// screenshot saves the page after `updates` more updates (so its plots
// have something to show), when -dashboard-screenshots asks for them.
func screenshot(t *testing.T, ctx context.Context, name string, updates int) {
	t.Helper()
	if *screenshots == "" {
		return
	}
	start := js[int](t, ctx, `+document.body.dataset.updates || 0`)
	waitJS(t, ctx, 20*time.Second, "updates before the screenshot", fmt.Sprintf(`+document.body.dataset.updates >= %d`, start+updates))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(*screenshots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tokenAPI is api with the cluster token.
type tokenAPI struct {
	api
	token string
}

func (a tokenAPI) get(path string, v any) {
	a.t.Helper()
	req, err := http.NewRequest("GET", a.base+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		a.t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		a.t.Fatalf("GET %s: %v", path, err)
	}
}

func (a tokenAPI) send(method, path string, body []byte, v any) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, strings.NewReader(string(body)))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		a.t.Fatalf("%s %s: %s", method, path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
}

// getJSON is tokenAPI.get for another goroutine: it returns its error.
func getJSON(a tokenAPI, path string, v any) error {
	req, err := http.NewRequest("GET", a.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

type restWorker struct {
	ID          int   `json:"id"`
	Slots       int   `json:"slots"`
	Running     int   `json:"running"`
	MemoryBytes int64 `json:"memory_bytes"`
	Alive       bool  `json:"alive"`
}

type restGraph struct {
	GraphID  string           `json:"graph_id"`
	URL      string           `json:"url"`
	State    string           `json:"state"`
	ChunkOps int64            `json:"chunk_ops"`
	Progress map[string]int64 `json:"progress"`
	Error    string           `json:"error"`
}

// failingGraph fails when computed: a check of a false condition.
const failingGraph = `{"graph": {"version": 1, "nodes": [
  {"op": {"type": "full", "params": {"meta": {"shape": [], "dtype": "bool"}, "value": 0, "chunks": {}}}, "inputs": []},
  {"op": {"type": "full", "params": {"meta": {"shape": [3], "dtype": "float64"}, "value": 1, "chunks": {}}}, "inputs": []},
  {"op": {"type": "check", "params": {"msg": "the dashboard test's failure"}}, "inputs": [0, 1]}]}, "results": [2]}`

// TestDashboardInBrowser loads every page of the dashboard in headless
// Chromium against an in-process cluster with a token: the sign-in, the
// figures against the REST API's, a graph's DAG as it runs, an op's
// details, a worker's task stream, and a cancel from the page.
func TestDashboardInBrowser(t *testing.T) {
	ctx := browser(t)
	const token = "dashboard-test-token"
	_, _, wp := startRoles(t, cluster.SchedulerConfig{Token: token}, func(i int, cfg *cluster.WorkerConfig) {
		cfg.Slots, cfg.Memory = 1, 400<<20
	}, 2)
	a := tokenAPI{api{t: t, base: wp.URL()}, token}

	// Without the cookie the page asks for the token, then shows the cluster.
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the sign-in dialog", `document.getElementById("login").open`)
	if err := chromedp.Do(ctx, chromedp.SendKeys("#login-token", "wrong"), chromedp.Click("#login-form button")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "a wrong token refused", `document.getElementById("login-error").textContent.includes("refused")`)
	if err := chromedp.Do(ctx, chromedp.SetValue("#login-token", token), chromedp.Click("#login-form button")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the cluster's figures", `document.getElementById("fig-workers").textContent.includes("/")`)

	// A small graph, drawn op by op once it has run.
	var sess struct {
		SessionID string `json:"session_id"`
	}
	a.send("POST", "/api/sessions", nil, &sess)
	var small restGraph
	a.send("POST", "/api/sessions/"+sess.SessionID+"/graphs", []byte(exampleGraph), &small)
	eventually(t, 10*time.Second, "the small graph done", func() bool {
		a.get(small.URL, &small)
		return small.State == "SUCCEEDED"
	})

	// The cluster page's figures are the REST API's.
	var ws struct{ Workers []restWorker }
	a.get("/api/workers", &ws)
	slots, busy := 0, 0
	for _, w := range ws.Workers {
		slots += w.Slots
		busy += w.Running
	}
	waitJS(t, ctx, 5*time.Second, "the workers table", fmt.Sprintf(`document.querySelectorAll("#workers-table tr[data-worker]").length === %d`, len(ws.Workers)))
	if got, want := text(t, ctx, "fig-workers"), fmt.Sprintf("%d / %d", len(ws.Workers), len(ws.Workers)); got != want {
		t.Errorf("workers alive: page %q, REST %q", got, want)
	}
	if got, want := text(t, ctx, "fig-slots"), fmt.Sprintf("%d / %d", busy, slots); got != want {
		t.Errorf("slots busy: page %q, REST %q", got, want)
	}
	for _, w := range ws.Workers {
		got := js[string](t, ctx, fmt.Sprintf(`document.querySelector('#workers-table tr[data-worker="%d"] td[data-fig="memory"]').textContent`, w.ID))
		if want := "/ " + fmtBytes(w.MemoryBytes); !strings.HasSuffix(got, want) {
			t.Errorf("worker %d memory: page %q, REST limit %d bytes", w.ID, got, w.MemoryBytes)
		}
	}
	checkSchedulersTable(t, ctx, a.get)

	// The small graph's page: every chunk op drawn, in its REST state.
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/graph/"+sess.SessionID+"/"+small.GraphID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the small graph's DAG", fmt.Sprintf(`document.querySelectorAll("#dag-chunks g.node[data-state]").length === %d`, small.ChunkOps))
	if got := text(t, ctx, "fig-total"); got != fmt.Sprint(small.ChunkOps) {
		t.Errorf("chunk ops: page %q, REST %d", got, small.ChunkOps)
	}
	doneREST := small.Progress["FINISHED"] + small.Progress["FREED"]
	if got := js[int64](t, ctx, `document.querySelectorAll('#dag-chunks g.node[data-state="FINISHED"], #dag-chunks g.node[data-state="FREED"]').length`); got != doneREST {
		t.Errorf("drawn ops done: %d, REST %d", got, doneREST)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#dag-tileable g.node").length`); n != 3 {
		t.Errorf("tensor ops drawn: %d, want 3", n)
	}
	// A click shows the op's details, as GET .../ops has them.
	if err := chromedp.Do(ctx, chromedp.Click(`#dag-chunks g.node[data-id="0"]`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "op 0's details", `document.querySelector('#ops-table tr[data-node="0"]')`)
	var ops struct {
		Ops []struct {
			Worker int    `json:"worker"`
			Type   string `json:"type"`
			State  string `json:"state"`
		} `json:"ops"`
	}
	a.get(small.URL+"/ops?nodes=0", &ops)
	row := js[[]string](t, ctx, `[...document.querySelectorAll('#ops-table tr[data-node="0"] td')].map(td => td.textContent)`)
	if len(ops.Ops) != 1 || len(row) < 4 || row[1] != ops.Ops[0].Type || row[2] != ops.Ops[0].State || row[3] != fmt.Sprint(ops.Ops[0].Worker) {
		t.Errorf("op 0: page %q, REST %+v", row, ops.Ops)
	}
	screenshot(t, ctx, "graph-small", 1)

	// A failed graph: its page shows the root cause, as REST has it.
	var failed restGraph
	a.send("POST", "/api/sessions/"+sess.SessionID+"/graphs", []byte(failingGraph), &failed)
	eventually(t, 10*time.Second, "the failing graph FAILED", func() bool {
		a.get(failed.URL, &failed)
		return failed.State == "FAILED"
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/graph/"+sess.SessionID+"/"+failed.GraphID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the failed graph's error", `document.querySelector("#graph-error .errorbox")`)
	if got := js[string](t, ctx, `document.querySelector("#graph-error .errorbox").textContent`); got != failed.Error || !strings.Contains(got, "the dashboard test's failure") {
		t.Errorf("error: page %q, REST %q", got, failed.Error)
	}
	if n := js[int](t, ctx, `document.querySelectorAll('#dag-chunks g.node[data-state="FATAL"]').length`); int64(n) != failed.Progress["FATAL"] {
		t.Errorf("fatal ops drawn: %d, REST %d", n, failed.Progress["FATAL"])
	}
	screenshot(t, ctx, "graph-failed", 1)

	// A long graph: its page updates as ops finish.
	g := tensor.NewGenerator(3)
	x := g.Rand([]int{4000, 4000}, tensor.Chunks(200))
	tg, ids, err := tensor.Build(x.MatMul(x).Sum())
	if err != nil {
		t.Fatal(err)
	}
	var long restGraph
	a.send("POST", "/api/sessions/"+sess.SessionID+"/graphs", submitBody(t, tg, ids), &long)
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/graph/"+sess.SessionID+"/"+long.GraphID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 20*time.Second, "the long graph running", `document.getElementById("graph-state").textContent === "RUNNING"`)
	waitJS(t, ctx, 10*time.Second, "the summarised chunk DAG", `document.querySelector("#dag-chunks g.node[data-done]")`)
	seen := map[string]bool{}
	eventually(t, 60*time.Second, "the page's done count moving three times", func() bool {
		seen[text(t, ctx, "fig-done")] = true
		return len(seen) >= 4
	})
	a.get(long.URL, &long)
	if long.State != "RUNNING" {
		t.Fatalf("the long graph ended before the test could cancel it: %+v", long)
	}
	if got := text(t, ctx, "fig-total"); got != fmtThousands(long.ChunkOps) {
		t.Errorf("chunk ops: page %q, REST %d", got, long.ChunkOps)
	}
	var sumOps int64
	for _, n := range js[[]int64](t, ctx, `[...document.querySelectorAll("#dag-chunks g.node")].map(n => +n.dataset.total)`) {
		sumOps += n
	}
	if sumOps != long.ChunkOps {
		t.Errorf("ops in the summarised DAG: %d, REST %d", sumOps, long.ChunkOps)
	}
	screenshot(t, ctx, "graph", 0)

	// Cancel from the page: the REST API's long-poll, waiting from before
	// the click, sees it end CANCELLED (the record goes once it stopped).
	waitJS(t, ctx, 10*time.Second, "the cancel button enabled", `!document.getElementById("cancel").disabled`)
	ended := make(chan restGraph, 1)
	go func() {
		var g restGraph
		for g.State != "CANCELLED" && g.State != "SUCCEEDED" && g.State != "FAILED" {
			if err := getJSON(a, long.URL+"?wait_timeout=30", &g); err != nil {
				g.State = err.Error()
				break
			}
		}
		ended <- g
	}()
	if err := chromedp.Do(ctx, chromedp.Click("#cancel")); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-ended:
		if g.State != "CANCELLED" {
			t.Fatalf("after the page's cancel, REST says %q", g.State)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the long graph did not end within 30 s of the page's cancel")
	}
	waitJS(t, ctx, 10*time.Second, "the page showing CANCELLED", `document.getElementById("graph-state").textContent === "CANCELLED"`)

	// The other pages, while another long graph runs (or has run).
	var other restGraph
	a.send("POST", "/api/sessions/"+sess.SessionID+"/graphs", submitBody(t, tg, ids), &other)
	// #/follow shows the newest running graph's page.
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/follow")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the followed graph's page", fmt.Sprintf(`+document.body.dataset.followed >= 1 && document.querySelector("main h1").textContent.startsWith("Graph %s")`, other.GraphID))
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/worker/0")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "worker 0's task stream", `document.querySelector("#task-stream rect[data-type]")`)
	if got := text(t, ctx, "fig-slots"); !strings.HasSuffix(got, "/ 1") {
		t.Errorf("worker 0 slots: %q, want n / 1", got)
	}
	screenshot(t, ctx, "worker", 8)
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/graphs")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the three graphs listed", `document.querySelectorAll("#graphs tr[data-graph]").length === 3`)
	if got := js[string](t, ctx, fmt.Sprintf(`document.querySelector('#graphs tr[data-graph="%s"] .state').textContent`, small.GraphID)); got != "SUCCEEDED" {
		t.Errorf("small graph listed as %q", got)
	}
	screenshot(t, ctx, "graphs", 2)
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the cluster page", `document.querySelectorAll("#cluster-graphs tr[data-graph]").length === 3`)
	screenshot(t, ctx, "cluster", 8)

	// ?token= once signs a browser in too, and leaves the address bar.
	clear := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(ctx, clear, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/?token="+token+"#/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the cluster page after ?token=", `document.getElementById("fig-workers").textContent.includes("/") && !location.search.includes("token")`)
}

// TestDashboardFollowInBrowser: #/follow moves on from a graph its
// program has released (the web service no longer knows it: a 404 on the
// graph's stream, as W5's graphs through `phobos run --cluster` are once
// their results are read) to the next graph that runs.
func TestDashboardFollowInBrowser(t *testing.T) {
	ctx := browser(t)
	_, _, wp := startRoles(t, cluster.SchedulerConfig{}, func(i int, cfg *cluster.WorkerConfig) {
		cfg.Slots, cfg.Memory = 1, 400<<20
	}, 2)
	a := api{t: t, base: wp.URL()}
	if err := chromedp.Do(ctx, chromedp.Navigate(wp.URL()+"/#/follow")); err != nil {
		t.Fatal(err)
	}
	g := tensor.NewGenerator(5)
	x := g.Rand([]int{4000, 4000}, tensor.Chunks(200))
	tg, ids, err := tensor.Build(x.MatMul(x).Sum())
	if err != nil {
		t.Fatal(err)
	}
	// shown waits until the page shows session sid's graph (graph ids
	// repeat across sessions: "g1" in each).
	shown := func(sid string, followed int) {
		t.Helper()
		waitJS(t, ctx, 20*time.Second, fmt.Sprintf("graph %d followed", followed), fmt.Sprintf(
			`+document.body.dataset.followed === %d && (document.querySelector("main h1 small") || {}).textContent === "session %s" && document.getElementById("graph-state").textContent === "RUNNING"`, followed, sid))
	}
	sid1 := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	a.json("POST", "/api/sessions/"+sid1+"/graphs", submitBody(t, tg, ids), 201)
	shown(sid1, 1)
	// Deleting the session releases its graph: the page says so, then
	// follows the next graph.
	a.json("DELETE", "/api/sessions/"+sid1, nil, 200)
	waitJS(t, ctx, 10*time.Second, "the released graph's note", `document.getElementById("graph-note").textContent.includes("released") && document.getElementById("cancel").disabled`)
	if n := js[int](t, ctx, `document.querySelectorAll("#page-error").length`); n != 0 {
		t.Errorf("a released graph shown as an error: %q", text(t, ctx, "page-error"))
	}
	sid2 := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	a.json("POST", "/api/sessions/"+sid2+"/graphs", submitBody(t, tg, ids), 201)
	shown(sid2, 2)
	// The second graph's page is the first's, kept: a click on its DAG
	// shows the second graph's ops.
	waitJS(t, ctx, 10*time.Second, "the second graph's summarised DAG", `document.querySelector("#dag-chunks g.node[data-done]")`)
	if err := chromedp.Do(ctx, chromedp.Click(`#dag-chunks g.node[data-type="matmul"]`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the second graph's matmul ops", `document.querySelector('#ops-table tr[data-node]')`)

	// A hidden page closes its stream (and draws nothing); shown again,
	// it opens it and goes on updating.
	if n := js[int](t, ctx, `+document.body.dataset.streams`); n != 1 {
		t.Errorf("streams open on a graph's page: %d, want 1", n)
	}
	setHidden := func(hidden bool) {
		t.Helper()
		js[bool](t, ctx, fmt.Sprintf(`Object.defineProperty(document, "hidden", {configurable: true, get: () => %t}); document.dispatchEvent(new Event("visibilitychange")); true`, hidden))
	}
	setHidden(true)
	waitJS(t, ctx, 5*time.Second, "the hidden page's stream closed", `+document.body.dataset.streams === 0 && document.getElementById("live").textContent === "paused"`)
	before := js[int](t, ctx, `+document.body.dataset.updates`)
	setHidden(false)
	waitJS(t, ctx, 5*time.Second, "the shown page updating again", fmt.Sprintf(`+document.body.dataset.streams === 1 && +document.body.dataset.updates > %d && document.getElementById("live").textContent === "live"`, before))
	a.json("DELETE", "/api/sessions/"+sid2, nil, 200)
}

// fmtBytes is the page's byte format.
func fmtBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	switch {
	case n == 0:
		return "0 B"
	case i == 0:
		return fmt.Sprintf("%d B", n)
	case v < 10:
		return fmt.Sprintf("%.2f %s", v, units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// fmtThousands is the page's number format (en-US grouping).
func fmtThousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestLocalDashboardInBrowser: a local session's dashboard (WithDashboard)
// is the same pages: its workers, and an Execute as a graph drawn op by op.
func TestLocalDashboardInBrowser(t *testing.T) {
	ctx := browser(t)
	sess, err := phobos.NewSession(phobos.WithWorkers(2), phobos.WithSlots(1), phobos.WithDashboard("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if v, err := sess.ExecuteScalar(context.Background(), tensor.Arange(0, 100, 1, tensor.Chunks(30)).Mul(2).Sum()); err != nil || v != 9900 {
		t.Fatalf("execute: %v %v", v, err)
	}
	ops := sess.Stats().ChunkOps
	base := sess.DashboardURL()
	// The one-time link a person is given sets the token's cookie.
	link, err := sess.DashboardLogin()
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the local cluster's figures", `document.getElementById("fig-workers").textContent === "2 / 2"`)
	if got := js[string](t, ctx, `[...document.querySelectorAll("#schedulers-table tr[data-scheduler]")].map((r) => r.dataset.scheduler + " " + r.querySelector('td[data-fig="graphs"]').textContent).join()`); got != dashboard.LocalSessionID+" 1" {
		t.Errorf("the local session's schedulers table: %q, want its one scheduler holding 1 graph", got)
	}
	if got := text(t, ctx, "fig-slots"); got != "0 / 2" {
		t.Errorf("slots: %q, want 0 / 2", got)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/graph/"+dashboard.LocalSessionID+"/g1")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the local graph's DAG", fmt.Sprintf(`document.querySelectorAll("#dag-chunks g.node[data-state]").length === %d`, ops))
	if got := text(t, ctx, "graph-state"); got != "SUCCEEDED" {
		t.Errorf("state %q", got)
	}
	if got := text(t, ctx, "fig-total"); got != fmt.Sprint(ops) {
		t.Errorf("chunk ops: page %q, session %d", got, ops)
	}
}

// checkSchedulersTable: the cluster page lists the schedulers of GET
// /api/schedulers, each with the same live workers, sessions and graphs.
func checkSchedulersTable(t *testing.T, ctx context.Context, get func(path string, v any)) {
	t.Helper()
	var ss struct {
		Schedulers []struct {
			ID          string `json:"id"`
			LiveWorkers int    `json:"live_workers"`
			Sessions    int    `json:"sessions"`
			Graphs      int    `json:"graphs"`
		} `json:"schedulers"`
	}
	get("/api/schedulers", &ss)
	var want []string
	for _, s := range ss.Schedulers {
		want = append(want, fmt.Sprintf("%s %d %d %d", s.ID, s.LiveWorkers, s.Sessions, s.Graphs))
	}
	row := `[...document.querySelectorAll("#schedulers-table tr[data-scheduler]")].map((r) => [r.dataset.scheduler, ...["live-workers", "sessions", "graphs"].map((f) => r.querySelector('td[data-fig="' + f + '"]').textContent)].join(" ")).join("|")`
	waitJS(t, ctx, 10*time.Second, "the schedulers table as GET /api/schedulers says", fmt.Sprintf("%s === %q", row, strings.Join(want, "|")))
}
