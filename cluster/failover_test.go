package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/cluster/ring"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/workloads"
)

type sessionsRunning struct {
	Sessions []struct {
		SessionID string `json:"session_id"`
		Running   int    `json:"running"`
		Scheduler struct {
			ID string `json:"id"`
		} `json:"scheduler"`
	} `json:"sessions"`
}

// TestFailoverProcesses is issue 15's failover with real processes: three
// schedulers on a ring, three workers, the web service. For W1, W4 and W8
// (small sizes), a client's session is found in GET /api/sessions, its
// owner is SIGKILLed while the session's graph runs, and the same client
// gets the clean run's result, bit for bit: the ring gives the session to
// a survivor, which raises its fencing token, takes the workers'
// inventory, recompiles the graph from its record and adopts it under the
// same ids. The killed scheduler is then restarted under the same id and
// rejoins the ring; the session, idle, moves back to it by the same path
// and keeps computing there. The time a kill adds to a run of the same
// graph on the same session is logged.
func TestFailoverProcesses(t *testing.T) {
	needBinary(t)
	ctx := context.Background()
	logs := &syncBuffer{}
	lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	const lease = 2 * time.Second
	c, err := cluster.Launch(lctx, cluster.LaunchConfig{
		Exe: phobosBin, Workers: 3, Schedulers: 3, Slots: 1, Memory: 1 << 30, Stderr: logs,
		ExtraArgs: map[string][]string{"scheduler": {"--log-level", "info", "--lease-ttl", lease.String()}, "worker": {"--log-level", "warn"}, "web": {"--log-level", "warn"}},
	})
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, logs)
	}
	t.Cleanup(func() {
		_ = c.Stop()
		if t.Failed() {
			t.Logf("cluster logs:\n%s", logs)
		}
	})
	names := []string{"scheduler-0", "scheduler-1", "scheduler-2"}

	cases := []struct {
		name string
		p    workloads.Params
	}{
		{"W1", workloads.Params{"n": 2000, "chunk": 125}},
		{"W4", workloads.Params{"n": 1600, "chunk": 100}},
		{"W8", workloads.Params{"n": 2000, "chunk": 125}},
	}
	eval := func(s *phobos.Session, name string, p workloads.Params) (float64, error) {
		wl, _ := workloads.Get(name)
		pp, err := wl.Resolve(p)
		if err != nil {
			return 0, err
		}
		return wl.Eval(ctx, s, pp, 7)
	}
	local, err := phobos.NewSession(phobos.WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want := map[string]float64{}
	for _, tc := range cases {
		if want[tc.name], err = eval(local, tc.name, tc.p); err != nil {
			t.Fatal(err)
		}
	}

	listed := func() sessionsRunning {
		var got sessionsRunning
		if code := getJSONStatus(c.URL+"/api/sessions", &got); code != http.StatusOK {
			t.Fatalf("GET /api/sessions: %d", code)
		}
		return got
	}
	seen := map[string]bool{}
	for _, s := range listed().Sessions {
		seen[s.SessionID] = true
	}
	var added []time.Duration
	const rounds = 2
	for round := range rounds {
		for _, tc := range cases {
			what := fmt.Sprintf("round %d, %s", round, tc.name)
			s, err := phobos.Connect(ctx, c.URL)
			if err != nil {
				t.Fatal(err)
			}
			var sid, owner string
			for _, ls := range listed().Sessions {
				if !seen[ls.SessionID] {
					seen[ls.SessionID] = true
					sid, owner = ls.SessionID, ls.Scheduler.ID
				}
			}
			if sid == "" {
				t.Fatalf("%s: the new session is not in GET /api/sessions", what)
			}
			t0 := time.Now()
			if got, err := eval(s, tc.name, tc.p); err != nil || got != want[tc.name] {
				t.Fatalf("%s, clean run: %v, %v; local %v", what, got, err, want[tc.name])
			}
			clean := time.Since(t0)

			type answer struct {
				v   float64
				err error
			}
			done := make(chan answer, 1)
			t1 := time.Now()
			go func() {
				v, err := eval(s, tc.name, tc.p)
				done <- answer{v, err}
			}()
			// Kill the owner once the session's graph runs there.
			running := false
			tick := time.NewTicker(5 * time.Millisecond)
			for !running {
				select {
				case a := <-done:
					t.Fatalf("%s: the graph ended (%v, %v) before it was seen running; make it larger", what, a.v, a.err)
				case <-tick.C:
				}
				for _, ls := range listed().Sessions {
					if ls.SessionID == sid && ls.Running > 0 {
						running = true
					}
				}
			}
			tick.Stop()
			if err := c.Kill(owner); err != nil {
				t.Fatal(err)
			}
			killedAt := time.Since(t1)
			a := <-done
			if a.err != nil || a.v != want[tc.name] {
				t.Fatalf("%s: after killing %s: %v, %v; local %v", what, owner, a.v, a.err, want[tc.name])
			}
			took := time.Since(t1)
			// The adopter logs the takeover just after it holds the
			// session; the pipe of its logs may lag the client.
			var line string
			eventually(t, 10*time.Second, what+": a scheduler logs taking the session over", func() bool {
				line = logs.line("session taken over", "session="+sid)
				return line != ""
			})
			t.Logf("%s: %s", what, line)
			added = append(added, took-clean)
			t.Logf("%s: killed %s %v into the run; clean run %v, with the kill %v (+%v)", what, owner,
				killedAt.Round(time.Millisecond), clean.Round(time.Millisecond), took.Round(time.Millisecond), (took - clean).Round(time.Millisecond))

			// The session is on the ring's owner without the dead one,
			// and computes there.
			left := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == owner })
			shrunk, _ := ring.New(left, 0)
			for _, ls := range listed().Sessions {
				if ls.SessionID == sid && ls.Scheduler.ID != shrunk.Owner(sid) {
					t.Errorf("%s: session %s listed on %s, want %s", what, sid, ls.Scheduler.ID, shrunk.Owner(sid))
				}
			}
			// Back under the same id: it rejoins the ring; the session
			// stays with the scheduler that took it over.
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err = c.RestartScheduler(rctx, owner)
			if err == nil {
				hc, _ := cluster.NewClient("", rpc.TLSFiles{})
				err = cluster.WaitRing(rctx, hc, c.URL, 3, 3)
			}
			cancel()
			if err != nil {
				t.Fatalf("%s: restarting %s: %v", what, owner, err)
			}
			// The idle session moves back to its owner in the ring, by
			// the same takeover, and computes there.
			eventually(t, 30*time.Second, what+": the session back on "+owner, func() bool {
				for _, ls := range listed().Sessions {
					if ls.SessionID == sid {
						return ls.Scheduler.ID == owner
					}
				}
				return false
			})
			eventually(t, 10*time.Second, what+": "+owner+" logs taking the session back", func() bool {
				return logs.line("session taken over", "session="+sid, "fence=3") != ""
			})
			if got, err := eval(s, tc.name, tc.p); err != nil || got != want[tc.name] {
				t.Fatalf("%s, after %s rejoined: %v, %v; local %v", what, owner, got, err, want[tc.name])
			}
			s.Close()
		}
	}
	slices.Sort(added)
	t.Logf("added time per kill (%d kills, lease TTL %v): median %v, min %v, max %v", len(added), lease,
		added[len(added)/2].Round(time.Millisecond), added[0].Round(time.Millisecond), added[len(added)-1].Round(time.Millisecond))
}

// line is the first line of the logs holding every one of subs.
func (s *syncBuffer) line(subs ...string) string {
	for _, l := range strings.Split(s.String(), "\n") {
		if !slices.ContainsFunc(subs, func(sub string) bool { return !strings.Contains(l, sub) }) {
			return l
		}
	}
	return ""
}
