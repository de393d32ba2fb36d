package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/cluster/ring"
	"github.com/phobos-tensor/phobos/workloads"
)

type listedSessions struct {
	Sessions []struct {
		SessionID string `json:"session_id"`
		Scheduler struct {
			ID  string `json:"id"`
			PID int    `json:"pid"`
		} `json:"scheduler"`
	} `json:"sessions"`
}

// TestClusterRingProcesses runs `phobos cluster`'s processes with three
// schedulers on a ring and three workers: sessions land where the ring
// says (GET /api/sessions names the process), compute the local
// session's results, and when one scheduler is SIGKILLed the ring shrinks
// to the other two, whose sessions go on, and new sessions avoid it.
func TestClusterRingProcesses(t *testing.T) {
	needBinary(t)
	ctx := context.Background()
	logs := &syncBuffer{}
	lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c, err := cluster.Launch(lctx, cluster.LaunchConfig{
		Exe: phobosBin, Workers: 3, Schedulers: 3, Slots: 1, Memory: 1 << 30, Stderr: logs,
		ExtraArgs: map[string][]string{"scheduler": {"--log-level", "warn", "--lease-ttl", "2s"}, "worker": {"--log-level", "warn"}, "web": {"--log-level", "warn"}},
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
	local, err := phobos.NewSession(phobos.WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	p := workloads.Params{"n": 400, "chunk": 90}
	eval := func(s *phobos.Session, name string) (float64, error) {
		wl, _ := workloads.Get(name)
		pp, _ := wl.Resolve(p)
		return wl.Eval(ctx, s, pp, 11)
	}
	want := map[string]float64{}
	for _, name := range []string{"W1", "W4"} {
		if want[name], err = eval(local, name); err != nil {
			t.Fatal(err)
		}
	}
	check := func(s *phobos.Session, what string) {
		t.Helper()
		for _, name := range []string{"W1", "W4"} {
			if got, err := eval(s, name); err != nil || got != want[name] {
				t.Fatalf("%s, %s: %v, %v; local %v", what, name, got, err, want[name])
			}
		}
	}
	// Sessions one at a time, each found in GET /api/sessions as it
	// appears, so each client knows its owner.
	r, _ := ring.New([]string{"scheduler-0", "scheduler-1", "scheduler-2"}, 0)
	type owned struct {
		s     *phobos.Session
		owner string
	}
	var sessions []owned
	seen := map[string]bool{}
	for i := range 6 {
		s, err := phobos.Connect(ctx, c.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var listed listedSessions
		if code := getJSONStatus(c.URL+"/api/sessions", &listed); code != http.StatusOK || len(listed.Sessions) != i+1 {
			t.Fatalf("GET /api/sessions: %d, %d sessions, want %d", code, len(listed.Sessions), i+1)
		}
		for _, ls := range listed.Sessions {
			if seen[ls.SessionID] {
				continue
			}
			seen[ls.SessionID] = true
			if ls.Scheduler.ID != r.Owner(ls.SessionID) || ls.Scheduler.PID != c.PID(ls.Scheduler.ID) {
				t.Errorf("session %s on %s (pid %d), the ring's owner is %s (pid %d)", ls.SessionID, ls.Scheduler.ID, ls.Scheduler.PID, r.Owner(ls.SessionID), c.PID(r.Owner(ls.SessionID)))
			}
			sessions = append(sessions, owned{s, ls.Scheduler.ID})
		}
		check(s, fmt.Sprintf("session %d", i))
	}

	if err := c.Kill("scheduler-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the ring down to two", func() bool {
		var got struct {
			Schedulers []struct {
				ID          string `json:"id"`
				State       string `json:"state"`
				RingMembers int    `json:"ring_members"`
			} `json:"schedulers"`
		}
		if getJSONStatus(c.URL+"/api/schedulers", &got) != http.StatusOK {
			return false
		}
		serving := 0
		for _, s := range got.Schedulers {
			if s.State == "serving" && s.RingMembers == 2 && s.ID != "scheduler-1" {
				serving++
			}
			if s.ID == "scheduler-1" && !strings.HasPrefix(s.State, "unreachable") {
				return false
			}
		}
		return serving == 2
	})
	// The survivors' sessions carry on. (Those of scheduler-1 are lost
	// until failover moves them.)
	for i, o := range sessions {
		if o.owner != "scheduler-1" {
			check(o.s, fmt.Sprintf("session %d of %s after the kill", i, o.owner))
		}
	}
	// New sessions go to the two left, and compute.
	for i := range 4 {
		s, err := phobos.Connect(ctx, c.URL)
		if err != nil {
			t.Fatal(err)
		}
		check(s, fmt.Sprintf("new session %d", i))
		s.Close()
	}
	var listed listedSessions
	if code := getJSONStatus(c.URL+"/api/sessions", &listed); code != http.StatusOK {
		t.Fatalf("GET /api/sessions after the kill: %d", code)
	}
	for _, s := range listed.Sessions {
		if s.Scheduler.ID == "scheduler-1" {
			t.Errorf("session %s listed on the killed scheduler", s.SessionID)
		}
	}
}
