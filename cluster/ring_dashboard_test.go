package cluster_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// TestRingDashboard: the dashboard of a ring of three schedulers shows
// the whole cluster. The cluster view lists the three schedulers and the
// graphs of every session, whichever scheduler holds it; a graph's ops
// name workers as GET /api/workers numbers them (s0, the first by id,
// numbers them differently from s1 and s2: ringRoles' phantom worker);
// and a worker's page holds the tasks every scheduler ran on it.
func TestRingDashboard(t *testing.T) {
	_, _, wp := ringRoles(t, 3, 2, ha.DefaultLeaseTTL)
	base := wp.URL()
	const nSessions = 9
	runW1Sessions(t, api{t: t, base: base}, nSessions)

	var sessions struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
			Graphs    int    `json:"graphs"`
			Scheduler struct {
				ID string `json:"id"`
			} `json:"scheduler"`
		} `json:"sessions"`
	}
	if code := getJSONStatus(base+"/api/sessions", &sessions); code != http.StatusOK || len(sessions.Sessions) != nSessions {
		t.Fatalf("GET /api/sessions: %d, %d sessions", code, len(sessions.Sessions))
	}
	owner, graphsHeld := map[string]string{}, 0
	for _, s := range sessions.Sessions {
		owner[s.SessionID] = s.Scheduler.ID
		graphsHeld += s.Graphs
	}

	var view struct {
		OpsDone     int64 `json:"ops_done"`
		GraphsTotal int   `json:"graphs_total"`
		Graphs      []struct {
			SessionID string `json:"session_id"`
			GraphID   string `json:"graph_id"`
			State     string `json:"state"`
			ChunkOps  int64  `json:"chunk_ops"`
		} `json:"graphs"`
		Schedulers []struct {
			ID     string `json:"id"`
			State  string `json:"state"`
			Graphs int    `json:"graphs"`
		} `json:"schedulers"`
	}
	if code := getJSONStatus(base+"/api/dashboard/cluster", &view); code != http.StatusOK {
		t.Fatalf("GET /api/dashboard/cluster: %d", code)
	}
	var schedIDs []string
	schedGraphs := 0
	for _, s := range view.Schedulers {
		schedIDs = append(schedIDs, s.ID)
		schedGraphs += s.Graphs
		if s.State != "serving" {
			t.Errorf("scheduler %s: state %q", s.ID, s.State)
		}
	}
	if !slices.Equal(schedIDs, []string{"s0", "s1", "s2"}) {
		t.Errorf("the cluster view lists schedulers %v, want s0, s1, s2", schedIDs)
	}
	if view.GraphsTotal != graphsHeld || schedGraphs != graphsHeld || len(view.Graphs) != graphsHeld {
		t.Errorf("the cluster view holds %d graphs (%d listed; its schedulers %d), GET /api/sessions %d", view.GraphsTotal, len(view.Graphs), schedGraphs, graphsHeld)
	}
	var chunkOps int64
	owners := map[string]bool{}
	for _, g := range view.Graphs {
		if _, ok := owner[g.SessionID]; !ok || g.State != "SUCCEEDED" {
			t.Errorf("graph %s/%s (%s) of no listed session, or not succeeded", g.SessionID, g.GraphID, g.State)
		}
		owners[owner[g.SessionID]] = true
		chunkOps += g.ChunkOps
	}
	if view.OpsDone != chunkOps {
		t.Errorf("ops done %d, the graphs' chunk ops %d", view.OpsDone, chunkOps)
	}
	if !owners["s1"] && !owners["s2"] {
		t.Fatalf("every session is on s0 (%v): nothing tells numberings apart", owner)
	}

	var workers struct {
		Workers []struct {
			ID    int  `json:"id"`
			Alive bool `json:"alive"`
		} `json:"workers"`
	}
	if code := getJSONStatus(base+"/api/workers", &workers); code != http.StatusOK {
		t.Fatalf("GET /api/workers: %d", code)
	}
	live := map[int32]bool{}
	for _, w := range workers.Workers {
		if w.Alive {
			live[int32(w.ID)] = true
		}
	}
	if len(live) != 2 {
		t.Fatalf("GET /api/workers: %+v, want 2 live workers", workers.Workers)
	}

	// Every op ran on, and is held by, a live worker in that numbering.
	ran := map[int32]int{}
	for _, g := range view.Graphs {
		var ops struct {
			Ops []struct {
				Node   int32 `json:"node"`
				Worker int32 `json:"worker"`
				Holder int32 `json:"holder"`
			} `json:"ops"`
		}
		path := fmt.Sprintf("/api/sessions/%s/graphs/%s/ops", g.SessionID, g.GraphID)
		if code := getJSONStatus(base+path, &ops); code != http.StatusOK || len(ops.Ops) == 0 {
			t.Fatalf("GET %s: %d, %d ops", path, code, len(ops.Ops))
		}
		for _, o := range ops.Ops {
			if !live[o.Worker] || (o.Holder >= 0 && !live[o.Holder]) {
				t.Errorf("%s (held by %s): op %d ran on worker %d, held by %d; live workers %v", path, owner[g.SessionID], o.Node, o.Worker, o.Holder, live)
			}
			ran[o.Worker]++
		}
	}

	// Each worker's page holds every scheduler's tasks on it.
	var tasks int64
	for id := range live {
		var wv struct {
			Recent []struct {
				SessionID string `json:"session_id"`
				Outcome   string `json:"outcome"`
			} `json:"recent"`
		}
		if code := getJSONStatus(fmt.Sprintf("%s/api/dashboard/workers/%d", base, id), &wv); code != http.StatusOK {
			t.Fatalf("GET /api/dashboard/workers/%d: %d", id, code)
		}
		tasks += int64(len(wv.Recent))
		for _, e := range wv.Recent {
			if _, ok := owner[e.SessionID]; !ok || e.Outcome != "SUCCEEDED" {
				t.Errorf("worker %d: a task of session %q, %s", id, e.SessionID, e.Outcome)
			}
		}
		if len(wv.Recent) < ran[id] {
			t.Errorf("worker %d's page shows %d tasks; the graphs' ops say %d ran there", id, len(wv.Recent), ran[id])
		}
	}
	if tasks != chunkOps {
		t.Errorf("the workers' pages show %d tasks, the graphs ran %d chunk ops", tasks, chunkOps)
	}
}

// TestRingDashboardInBrowser: on a ring of three schedulers the pages
// show the whole cluster: the schedulers table as GET /api/schedulers
// says, the graphs of sessions on every scheduler, a graph page and a
// worker page served through the session's scheduler and all of them.
func TestRingDashboardInBrowser(t *testing.T) {
	ctx := browser(t)
	_, _, wp := ringRoles(t, 3, 2, ha.DefaultLeaseTTL)
	base := wp.URL()
	a := api{t: t, base: base}
	type held struct{ sid, gid, owner string }
	var graphs []held
	for _, g := range runW1Sessions(t, a, 6) {
		graphs = append(graphs, held{sid: g[0], gid: g[1]})
	}
	var listed struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
			Scheduler struct {
				ID string `json:"id"`
			} `json:"scheduler"`
		} `json:"sessions"`
	}
	tokenAPI{a, ""}.get("/api/sessions", &listed)
	for _, s := range listed.Sessions {
		for i := range graphs {
			if graphs[i].sid == s.SessionID {
				graphs[i].owner = s.Scheduler.ID
			}
		}
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/")); err != nil {
		t.Fatal(err)
	}
	checkSchedulersTable(t, ctx, tokenAPI{a, ""}.get)
	waitJS(t, ctx, 10*time.Second, "every session's graph on the cluster page", fmt.Sprintf(`document.querySelectorAll("#cluster-graphs tr[data-graph]").length === %d`, len(graphs)))
	screenshot(t, ctx, "cluster-ring", 4)

	i := slices.IndexFunc(graphs, func(g held) bool { return g.owner != "s0" })
	if i < 0 {
		t.Fatalf("every session on s0: %+v", graphs)
	}
	g := graphs[i]
	var st restGraph
	tokenAPI{a, ""}.get("/api/sessions/"+g.sid+"/graphs/"+g.gid, &st)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#/graph/"+g.sid+"/"+g.gid)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the DAG of a graph held by "+g.owner, fmt.Sprintf(`document.querySelectorAll("#dag-chunks g.node[data-state]").length === %d`, st.ChunkOps))

	var ws struct{ Workers []restWorker }
	tokenAPI{a, ""}.get("/api/workers", &ws)
	for _, w := range ws.Workers {
		if !w.Alive {
			continue
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/#/worker/%d", base, w.ID))); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, 10*time.Second, fmt.Sprintf("worker %d's task stream", w.ID), `document.querySelector("#task-stream rect[data-type]")`)
	}
}

// runW1Sessions runs a small W1 in each of n new sessions through REST, so
// the graphs stay held (a Go session deletes each graph once its result
// is read), and returns each one's session and graph ids.
func runW1Sessions(t *testing.T, a api, n int) [][2]string {
	t.Helper()
	wl, _ := workloads.Get("W1")
	p, err := wl.Resolve(workloads.Params{"n": 200, "chunk": 70})
	if err != nil {
		t.Fatal(err)
	}
	tg, ids, err := tensor.Build(wl.Build(p, workloads.DefaultSeed))
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for i := range n {
		sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
		st := a.json("POST", "/api/sessions/"+sid+"/graphs", submitBody(t, tg, ids), 201)
		if st = waitState(a, st["url"].(string), 60*time.Second); st["state"] != "SUCCEEDED" {
			t.Fatalf("session %d: %v", i, st)
		}
		out = append(out, [2]string{sid, st["graph_id"].(string)})
	}
	return out
}
