package cluster_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/tensor"
)

// liveHeap is the process's live heap after collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The scheduler's state is bounded: 2,000 graphs in one session, each
// deleted once fetched (as phobos.Connect does), then 200 sessions opened,
// used and closed, leave no graph record and no run behind, and the live
// heap of the process (scheduler, worker and web roles) stays flat. Graph
// records used to stay for the life of their session, each with its run
// and whole chunk graph.
func TestSchedulerStateBounded(t *testing.T) {
	sp, _, wp := startRoles(t, cluster.SchedulerConfig{}, nil, 1)
	ctx := context.Background()
	x := tensor.Arange(0, 1000, 1, tensor.Chunks(100)).Sum()
	run := func(s *phobos.Session) {
		t.Helper()
		v, err := s.ExecuteScalar(ctx, x)
		if err != nil || v != 499500 {
			t.Fatalf("sum: %v, %v", v, err)
		}
	}
	sess, err := phobos.Connect(ctx, wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	graphs, sessions := 2000, 200
	if raceEnabled {
		graphs, sessions = 400, 40
	}
	var base, mid uint64
	for i := range graphs {
		run(sess)
		switch i {
		case graphs/10 - 1: // warmed up: connection pools, caches, the heap's own size classes
			base = liveHeap()
		case graphs/2 - 1:
			mid = liveHeap()
		}
	}
	after := liveHeap()
	if n := sp.HeldGraphs(); n != 0 {
		t.Errorf("%d graph records held after their deletion", n)
	}
	sess.Close()
	for range sessions {
		s, err := phobos.Connect(ctx, wp.URL())
		if err != nil {
			t.Fatal(err)
		}
		run(s)
		s.Close()
	}
	final := liveHeap()
	t.Logf("live heap: %d KiB after %d graphs, %d after %d, %d after %d, %d after %d more sessions",
		base>>10, graphs/10, mid>>10, graphs/2, after>>10, graphs, final>>10, sessions)
	if n := sp.HeldRuns(); n != 0 {
		t.Errorf("scheduler holds %d runs", n)
	}
	if n := sp.HeldGraphs(); n != 0 {
		t.Errorf("%d graph records held", n)
	}
	// 10% of the warmed-up heap, and 1 MiB for what a collection leaves
	// floating (a few KiB of records would leak 20 MB over 2,000 graphs).
	limit := base + base/10 + 1<<20
	for _, c := range []struct {
		what string
		n    uint64
	}{{"half way", mid}, {"after the graphs", after}, {"after the sessions", final}} {
		if c.n > limit {
			t.Errorf("live heap %s: %d KiB, over %d KiB (warmed-up %d KiB + 10%% + 1 MiB)", c.what, c.n>>10, limit>>10, base>>10)
		}
	}
}

// A session keeps at most MaxFinishedGraphs ended graphs; past it the
// oldest are released and a request naming one says so. A graph deleted
// while it runs (a cancel that may race its success) leaves no run.
func TestFinishedGraphsCapped(t *testing.T) {
	sp, _, wp := startRoles(t, cluster.SchedulerConfig{MaxFinishedGraphs: 3}, nil, 1)
	a := api{t: t, base: wp.URL()}
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	for i := 1; i <= 5; i++ {
		st := a.json("POST", "/api/sessions/"+sid+"/graphs", []byte(exampleGraph), 201)
		if st := waitState(a, st["url"].(string), 10*time.Second); st["state"] != "SUCCEEDED" {
			t.Fatalf("graph %d: %v", i, st)
		}
	}
	if n := sp.HeldGraphs(); n != 3 {
		t.Fatalf("%d graph records held, want 3", n)
	}
	if n := sp.HeldRuns(); n != 3 {
		t.Fatalf("%d runs held, want 3 (the kept results)", n)
	}
	a.wantError("GET", "/api/sessions/"+sid+"/graphs/g1", nil, 404, "was deleted", "more than 3 finished graphs")
	a.wantError("GET", "/api/sessions/"+sid+"/graphs/g9", nil, 404, "no graph")
	a.json("GET", "/api/sessions/"+sid+"/graphs/g5", nil, 200)

	// Deleted at once, whatever state each is in when the DELETE lands.
	for i := range 50 {
		st := a.json("POST", "/api/sessions/"+sid+"/graphs", []byte(exampleGraph), 201)
		url := st["url"].(string)
		a.json("DELETE", url, nil, 200)
		// The record goes once the graph has stopped: long-poll until then.
		for {
			code, body := a.req("GET", url+"?wait_timeout=5", nil)
			if code == 404 {
				break
			}
			if code != 200 {
				t.Fatalf("graph %d: %d %s", i, code, body)
			}
			if strings.Contains(string(body), `"SUCCEEDED"`) || strings.Contains(string(body), `"FAILED"`) {
				t.Fatalf("graph %d deleted while running ended as %s", i, body)
			}
		}
	}
	a.json("DELETE", "/api/sessions/"+sid, nil, 200)
	if g := sp.HeldGraphs(); g != 0 {
		t.Fatalf("after the session: %d graph records held", g)
	}
	// A run cancelled while it was being prepared is released at once but
	// leaves the scheduler only when its last task has reported.
	eventually(t, 30*time.Second, "the scheduler holds no run", func() bool { return sp.HeldRuns() == 0 })

}
