package cluster_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/cluster/ring"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
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

// ringFailover is a ring of three scheduler processes, three workers and
// the web service, with what the kill tests need: the sessions seen in
// GET /api/sessions so far, and the children's logs.
type ringFailover struct {
	t    *testing.T
	c    *cluster.ProcCluster
	logs *syncBuffer
	seen map[string]bool
}

var ringNames = []string{"scheduler-0", "scheduler-1", "scheduler-2"}

// launchRingFailover starts the cluster: schedulers with the given lease
// TTL, workers of one slot and the given memory budget.
func launchRingFailover(t *testing.T, lease time.Duration, memory int64) *ringFailover {
	t.Helper()
	logs := &syncBuffer{}
	lctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := cluster.Launch(lctx, cluster.LaunchConfig{
		Exe: phobosBin, Workers: 3, Schedulers: 3, Slots: 1, Memory: memory, Stderr: logs,
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
	r := &ringFailover{t: t, c: c, logs: logs, seen: map[string]bool{}}
	for _, s := range r.listed().Sessions {
		r.seen[s.SessionID] = true
	}
	return r
}

func (r *ringFailover) listed() sessionsRunning {
	var got sessionsRunning
	if code := getJSONStatus(r.c.URL+"/api/sessions", &got); code != http.StatusOK {
		r.t.Fatalf("GET /api/sessions: %d", code)
	}
	return got
}

// connect opens a client session and finds it, and its owner, in GET
// /api/sessions.
func (r *ringFailover) connect(ctx context.Context, what string) (s *phobos.Session, sid, owner string) {
	s, err := phobos.Connect(ctx, r.c.URL)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, ls := range r.listed().Sessions {
		if !r.seen[ls.SessionID] {
			r.seen[ls.SessionID] = true
			sid, owner = ls.SessionID, ls.Scheduler.ID
		}
	}
	if sid == "" {
		r.t.Fatalf("%s: the new session is not in GET /api/sessions", what)
	}
	return s, sid, owner
}

// killDuring starts run, SIGKILLs owner once the session's graph runs
// there and after (from the start) has passed, and returns run's answer,
// when the kill came and how long run took in all; killed is false (and
// nobody killed) when run ended before.
func (r *ringFailover) killDuring(sid, owner string, after time.Duration, run func() (float64, error)) (v float64, killed bool, killedAt, took time.Duration, err error) {
	type answer struct {
		v   float64
		err error
	}
	done := make(chan answer, 1)
	t1 := time.Now()
	go func() {
		v, err := run()
		done <- answer{v, err}
	}()
	running := false
	tick := time.NewTicker(5 * time.Millisecond)
	for !running || time.Since(t1) < after {
		select {
		case a := <-done:
			tick.Stop()
			return a.v, false, 0, time.Since(t1), a.err
		case <-tick.C:
		}
		for _, ls := range r.listed().Sessions {
			if ls.SessionID == sid && ls.Running > 0 {
				running = true
			}
		}
	}
	tick.Stop()
	if err := r.c.Kill(owner); err != nil {
		r.t.Fatal(err)
	}
	killedAt = time.Since(t1)
	a := <-done
	return a.v, true, killedAt, time.Since(t1), a.err
}

// takenOver checks that a scheduler logged taking sid over and that the
// session is on the ring's owner without the dead one, and returns the
// log line.
func (r *ringFailover) takenOver(what, sid, dead string) string {
	var line string
	// The adopter logs the takeover just after it holds the session; the
	// pipe of its logs may lag the client.
	eventually(r.t, 10*time.Second, what+": a scheduler logs taking the session over", func() bool {
		line = r.logs.line("session taken over", "session="+sid)
		return line != ""
	})
	left := slices.DeleteFunc(slices.Clone(ringNames), func(n string) bool { return n == dead })
	shrunk, _ := ring.New(left, 0)
	for _, ls := range r.listed().Sessions {
		if ls.SessionID == sid && ls.Scheduler.ID != shrunk.Owner(sid) {
			r.t.Errorf("%s: session %s listed on %s, want %s", what, sid, ls.Scheduler.ID, shrunk.Owner(sid))
		}
	}
	return line
}

// restart starts the killed scheduler again under the same id and waits
// for the ring of three.
func (r *ringFailover) restart(ctx context.Context, what, name string) {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := r.c.RestartScheduler(rctx, name)
	if err == nil {
		hc, _ := cluster.NewClient("", rpc.TLSFiles{})
		err = cluster.WaitRing(rctx, hc, r.c.URL, 3, 3)
	}
	if err != nil {
		r.t.Fatalf("%s: restarting %s: %v", what, name, err)
	}
}

func evalWorkload(ctx context.Context, s *phobos.Session, name string, p workloads.Params) (float64, error) {
	wl, _ := workloads.Get(name)
	pp, err := wl.Resolve(p)
	if err != nil {
		return 0, err
	}
	return wl.Eval(ctx, s, pp, 7)
}

// evalCase is evalWorkload, or for "literal" W4's x + x.T scaled by a
// vector of client data (n float64s, inline in the graph) and summed.
func evalCase(ctx context.Context, s *phobos.Session, name string, p workloads.Params) (float64, error) {
	if name != "literal" {
		return evalWorkload(ctx, s, name, p)
	}
	n, c := p["n"], p["chunk"]
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%7) - 3
	}
	x := tensor.NewGenerator(7).Rand([]int{n, n}, tensor.Chunks(c, c))
	lit := tensor.FromSlice(v, []int{n}, tensor.Chunks(c))
	return s.ExecuteScalar(ctx, x.Add(x.T()).Mul(lit).Sum())
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
// graph on the same session is logged. TestFailoverFullSize does the
// kills at the workloads' full sizes.
func TestFailoverProcesses(t *testing.T) {
	needBinary(t)
	ctx := context.Background()
	const lease = 2 * time.Second
	r := launchRingFailover(t, lease, 1<<30)

	cases := []struct {
		name string
		p    workloads.Params
	}{
		{"W1", workloads.Params{"n": 2000, "chunk": 125}},
		{"W4", workloads.Params{"n": 1600, "chunk": 100}},
		{"W8", workloads.Params{"n": 2000, "chunk": 125}},
		// W4 times a vector of client data sent inside the graph: its
		// record keeps the array aside, so the graph can be rebuilt.
		{"literal", workloads.Params{"n": 1600, "chunk": 100}},
	}
	local, err := phobos.NewSession(phobos.WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want := map[string]float64{}
	for _, tc := range cases {
		if want[tc.name], err = evalCase(ctx, local, tc.name, tc.p); err != nil {
			t.Fatal(err)
		}
	}

	var added []time.Duration
	const rounds = 2
	for round := range rounds {
		for _, tc := range cases {
			what := fmt.Sprintf("round %d, %s", round, tc.name)
			s, sid, owner := r.connect(ctx, what)
			eval := func() (float64, error) { return evalCase(ctx, s, tc.name, tc.p) }
			t0 := time.Now()
			if got, err := eval(); err != nil || got != want[tc.name] {
				t.Fatalf("%s, clean run: %v, %v; local %v", what, got, err, want[tc.name])
			}
			clean := time.Since(t0)

			// Kill the owner once the session's graph runs there.
			v, killed, killedAt, took, err := r.killDuring(sid, owner, 0, eval)
			if !killed {
				t.Fatalf("%s: the graph ended (%v, %v) before the kill; make it larger", what, v, err)
			}
			if err != nil || v != want[tc.name] {
				t.Fatalf("%s: after killing %s: %v, %v; local %v", what, owner, v, err, want[tc.name])
			}
			t.Logf("%s: %s", what, r.takenOver(what, sid, owner))
			added = append(added, took-clean)
			t.Logf("%s: killed %s %v into the run; clean run %v, with the kill %v (+%v)", what, owner,
				killedAt.Round(time.Millisecond), clean.Round(time.Millisecond), took.Round(time.Millisecond), (took - clean).Round(time.Millisecond))

			// Back under the same id: it rejoins the ring; the session
			// stays with the scheduler that took it over.
			r.restart(ctx, what, owner)
			// The idle session moves back to its owner in the ring, by
			// the same takeover, and computes there.
			eventually(t, 30*time.Second, what+": the session back on "+owner, func() bool {
				for _, ls := range r.listed().Sessions {
					if ls.SessionID == sid {
						return ls.Scheduler.ID == owner
					}
				}
				return false
			})
			eventually(t, 10*time.Second, what+": "+owner+" logs taking the session back", func() bool {
				return r.logs.line("session taken over", "session="+sid, "fence=3") != ""
			})
			if got, err := eval(); err != nil || got != want[tc.name] {
				t.Fatalf("%s, after %s rejoined: %v, %v; local %v", what, owner, got, err, want[tc.name])
			}
			s.Close()
		}
	}
	slices.Sort(added)
	t.Logf("added time per kill (%d kills, lease TTL %v): median %v, min %v, max %v", len(added), lease,
		added[len(added)/2].Round(time.Millisecond), added[0].Round(time.Millisecond), added[len(added)-1].Round(time.Millisecond))
}

// TestFailoverFullSize is issue 15's must-show at the workloads' full
// sizes (W1 10000^2, W4 8000^2, W8 40000^2: an x of 12.8 GB, more than
// the workers' 3 x 2 GiB, which the fused kernels generate again for
// x - mean instead of storing it): on the ring of TestFailoverProcesses,
// each workload runs clean on a new session, then again on it with the
// session's owner (found through GET /api/sessions) SIGKILLed halfway
// through the clean run's time; the second run must give the clean run's
// result bit for bit, and the time the kill added is logged. The killed
// scheduler is restarted before the next workload, so each kill is 1 of
// 3. It takes many minutes and most of the machine's memory and disk, so
// it runs only when asked:
//
//	PHOBOS_FULL_FAILOVER=1 go test ./cluster -run TestFailoverFullSize -v -timeout 90m
func TestFailoverFullSize(t *testing.T) {
	if os.Getenv("PHOBOS_FULL_FAILOVER") != "1" {
		t.Skip("set PHOBOS_FULL_FAILOVER=1 to run the kill tests at full size")
	}
	needBinary(t)
	ctx := context.Background()
	const lease = 2 * time.Second
	r := launchRingFailover(t, lease, 2<<30)
	for _, name := range []string{"W1", "W4", "W8"} {
		s, sid, owner := r.connect(ctx, name)
		eval := func() (float64, error) { return evalWorkload(ctx, s, name, nil) }
		t0 := time.Now()
		want, err := eval()
		if err != nil {
			t.Fatalf("%s, clean run: %v", name, err)
		}
		clean := time.Since(t0)
		if wl, _ := workloads.Get(name); wl.Expected != nil {
			p, _ := wl.Resolve(nil)
			if exp, sigma := wl.Expected(p); math.Abs(want-exp) > 6*sigma {
				t.Errorf("%s, clean run: %v, expected %v (sigma %v)", name, want, exp, sigma)
			}
		}
		// Halfway through the clean run's time; a run that ends before
		// (the polling of GET /api/sessions is slow beside a short
		// graph) is tried again with the kill sooner.
		var (
			v                    float64
			killed               bool
			killedAt, took, wait = time.Duration(0), time.Duration(0), clean / 2
		)
		for try := 0; !killed; try++ {
			if v, killed, killedAt, took, err = r.killDuring(sid, owner, wait, eval); !killed && (err != nil || v != want) {
				t.Fatalf("%s: a run without a kill: %v, %v; the clean run gave %v", name, v, err, want)
			}
			if !killed && try == 3 {
				t.Fatalf("%s: the graph ended before it was seen running, 4 times", name)
			}
			wait /= 4
		}
		if err != nil || v != want {
			t.Fatalf("%s: after killing %s: %v, %v; the clean run gave %v", name, owner, v, err, want)
		}
		t.Logf("%s: %s", name, r.takenOver(name, sid, owner))
		t.Logf("%s: killed %s %v into the run; clean run %v, with the kill %v (+%v, lease TTL %v); result %v both times", name, owner,
			killedAt.Round(time.Millisecond), clean.Round(time.Millisecond), took.Round(time.Millisecond), (took - clean).Round(time.Millisecond), lease, v)
		s.Close()
		r.restart(ctx, name, owner)
	}
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
