package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/cluster/ring"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// ringRoles starts an embedded etcd and, in this process, schedulers
// s0..s{n-1} registered in it, workers that register with all of them,
// and a web service routing by the ring; it returns once every scheduler
// serves in a ring of n and sees every worker.
func ringRoles(t *testing.T, schedulers, workers int, ttl time.Duration) (*ha.EmbeddedEtcd, []*cluster.SchedulerProc, *cluster.WebProc) {
	t.Helper()
	ctx := context.Background()
	ee, err := ha.StartEtcd(ctx, ha.EtcdConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ee.Close)
	etcd := []string{ee.Endpoint()}
	var ss []*cluster.SchedulerProc
	for i := range schedulers {
		sp, err := cluster.StartScheduler(cluster.SchedulerConfig{Etcd: etcd, ID: fmt.Sprintf("s%d", i), LeaseTTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sp.Close)
		ss = append(ss, sp)
	}
	// A worker that registers with s0 alone and leaves at once: s0 then
	// numbers the real workers from 1, the others from 0, so tasks,
	// peer reads and uploads are read in numberings that differ.
	phantom := phobosv1connect.NewSchedulerServiceClient(http.DefaultClient, ss[0].URL(), rpc.ClientOptions()...)
	reg, err := phantom.RegisterWorker(ctx, connect.NewRequest(&pb.RegisterWorkerRequest{Url: "http://127.0.0.1:9", Slots: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := phantom.DeregisterWorker(ctx, connect.NewRequest(&pb.DeregisterWorkerRequest{WorkerId: reg.Msg.WorkerId, Reason: "test"})); err != nil {
		t.Fatal(err)
	}
	for range workers {
		w, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Etcd: etcd, Slots: 2, Memory: 128 << 20, SpillDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
	}
	wp, err := cluster.StartWeb(cluster.WebConfig{Etcd: etcd})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wp.Close)
	eventually(t, 60*time.Second, "every scheduler serving with every worker", func() bool {
		var got struct {
			Schedulers []struct {
				ID          string `json:"id"`
				State       string `json:"state"`
				RingMembers int    `json:"ring_members"`
				LiveWorkers int    `json:"live_workers"`
			} `json:"schedulers"`
		}
		if getJSONStatus(wp.URL()+"/api/schedulers", &got) != http.StatusOK || len(got.Schedulers) != schedulers {
			return false
		}
		for _, s := range got.Schedulers {
			if s.State != "serving" || s.RingMembers != schedulers || s.LiveWorkers != workers {
				return false
			}
		}
		return true
	})
	return ee, ss, wp
}

func getJSONStatus(url string, v any) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if json.NewDecoder(resp.Body).Decode(v) != nil {
		return 0
	}
	return resp.StatusCode
}

// TestRingInProcess: three schedulers share two workers; twelve sessions
// spread over the schedulers as the ring says, each computing W1 and W4
// (W4 reads chunks across workers, in each scheduler's numbering of the
// workers) with the local session's exact results; GET /api/sessions
// names each session's owner.
func TestRingInProcess(t *testing.T) {
	ctx := context.Background()
	_, _, wp := ringRoles(t, 3, 2, ha.DefaultLeaseTTL)
	local, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want := map[string]float64{}
	p := workloads.Params{"n": 300, "chunk": 70}
	for _, name := range []string{"W1", "W4"} {
		wl, _ := workloads.Get(name)
		pp, _ := wl.Resolve(p)
		if want[name], err = wl.Eval(ctx, local, pp, 5); err != nil {
			t.Fatal(err)
		}
	}
	var sessions []*phobos.Session
	for range 12 {
		s, err := phobos.Connect(ctx, wp.URL())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions = append(sessions, s)
	}
	errs := make(chan error, len(sessions))
	for i, s := range sessions {
		go func() {
			for _, name := range []string{"W1", "W4"} {
				wl, _ := workloads.Get(name)
				pp, _ := wl.Resolve(p)
				got, err := wl.Eval(ctx, s, pp, 5)
				if err == nil && got != want[name] {
					err = fmt.Errorf("%s = %v, local %v", name, got, want[name])
				}
				if err != nil {
					errs <- fmt.Errorf("session %d: %w", i, err)
					return
				}
			}
			// 1.6 MB of client data travels as an upload, its chunks on
			// workers named as this session's scheduler numbers them.
			const n = 200_000
			data := make([]float64, n)
			for k := range data {
				data[k] = float64(k + i)
			}
			got, err := s.ExecuteScalar(ctx, tensor.FromSlice(data, []int{n}, tensor.Chunks(30_000)).Sum())
			if want := float64(n*(n-1)/2 + n*i); err != nil || got != want {
				errs <- fmt.Errorf("session %d: sum of an uploaded array: %v, %v; want %v", i, got, err, want)
				return
			}
			errs <- nil
		}()
	}
	for range sessions {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	var listed struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
			Scheduler struct {
				ID      string `json:"id"`
				Address string `json:"address"`
				PID     int    `json:"pid"`
			} `json:"scheduler"`
		} `json:"sessions"`
	}
	if code := getJSONStatus(wp.URL()+"/api/sessions", &listed); code != http.StatusOK {
		t.Fatalf("GET /api/sessions: %d", code)
	}
	if len(listed.Sessions) != len(sessions) {
		t.Fatalf("GET /api/sessions lists %d sessions, want %d", len(listed.Sessions), len(sessions))
	}
	r, _ := ring.New([]string{"s0", "s1", "s2"}, 0)
	owners := map[string]int{}
	for _, s := range listed.Sessions {
		if owner := r.Owner(s.SessionID); s.Scheduler.ID != owner || s.Scheduler.Address == "" || s.Scheduler.PID == 0 {
			t.Errorf("session %s held by %+v; the ring's owner is %s", s.SessionID, s.Scheduler, owner)
		}
		owners[s.Scheduler.ID]++
	}
	if len(owners) < 2 {
		t.Errorf("12 sessions all on one scheduler: %v", owners)
	}
	t.Logf("sessions per scheduler: %v", owners)
}

// TestRingEtcdOutage: when etcd stops for longer than the lease, the
// schedulers refuse new graphs with a 503 that says why (not split-brain:
// no one may hold their sessions meanwhile), and take graphs again once
// etcd is back.
func TestRingEtcdOutage(t *testing.T) {
	ctx := context.Background()
	ee, _, wp := ringRoles(t, 2, 1, 3*time.Second)
	// The refusal below comes once the session has waited the pause out.
	sess, err := phobos.Connect(ctx, wp.URL(), phobos.WithFailoverWait(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	wl, _ := workloads.Get("W1")
	p, _ := wl.Resolve(workloads.Params{"n": 200, "chunk": 50})
	want, err := wl.Eval(ctx, sess, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ee.Config()
	ee.Stop()
	eventually(t, 20*time.Second, "a 503 once the leases lapse", func() bool {
		code, body := post(wp.URL() + "/api/sessions")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "etcd lease lapsed") && strings.Contains(body, "takes no graphs")
	})
	_, err = wl.Eval(ctx, sess, p, 1)
	if err == nil || !strings.Contains(err.Error(), "etcd") {
		t.Fatalf("a graph submitted while etcd is down: %v, want a refusal naming etcd", err)
	}
	ee2, err := ha.StartEtcd(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ee2.Close)
	back := time.Now()
	failed, last := 0, error(nil)
	defer func() {
		t.Logf("graphs taken again %v after etcd's restart, after %d failed (the last: %v)", time.Since(back).Round(time.Millisecond), failed, last)
	}()
	eventually(t, 20*time.Second, "graphs taken again once etcd is back", func() bool {
		got, err := wl.Eval(ctx, sess, p, 1)
		if err != nil {
			failed, last = failed+1, err
		}
		return err == nil && got == want
	})
}

func post(url string) (int, string) {
	resp, err := http.Post(url, "application/json", nil)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRingGraphRecords: a graph of a ring is in etcd when its submission
// is acknowledged (tileable JSON without the client's array, its session,
// its results), its record follows its state to SUCCEEDED, and records go
// with their session.
func TestRingGraphRecords(t *testing.T) {
	ee, _, wp := ringRoles(t, 2, 1, ha.DefaultLeaseTTL)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ee.Endpoint()}, DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	get := func(key string) (ha.GraphRecord, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		resp, err := cli.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		var rec ha.GraphRecord
		if len(resp.Kvs) == 0 {
			return rec, false
		}
		if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return rec, true
	}
	a := api{t, wp.URL()}
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	// A literal of client data: the record must not carry it.
	x := tensor.FromSlice(make([]float64, 5000), []int{5000}, tensor.Chunks(700))
	tg, ids, err := tensor.Build(x.Add(x).Sum())
	if err != nil {
		t.Fatal(err)
	}
	st := a.json("POST", "/api/sessions/"+sid+"/graphs", submitBody(t, tg, ids), 201)
	gid := st["graph_id"].(string)
	key := "/phobos/graphs/" + sid + "/" + gid
	rec, ok := get(key)
	if !ok {
		t.Fatalf("no record at %s once the submission was acknowledged", key)
	}
	if rec.Session != sid || rec.Graph != gid || !slices.Equal(rec.Results, ids) || rec.Scheduler == "" || len(rec.StrippedLiterals) != 1 {
		t.Errorf("record %+v", rec)
	}
	if len(rec.Tileable) > 2000 {
		t.Errorf("record's graph is %d bytes: the client's 40,000 bytes were not left out", len(rec.Tileable))
	}
	// The array is kept aside, under its own prefix, for a takeover.
	if !slices.Equal(rec.RecordedLiterals, rec.StrippedLiterals) {
		t.Errorf("recorded literals %v, stripped %v: want the 40,000 bytes kept aside", rec.RecordedLiterals, rec.StrippedLiterals)
	}
	litKey := fmt.Sprintf("/phobos/literals/%s/%s/%d", sid, gid, rec.StrippedLiterals[0])
	litCount := func() int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		resp, err := cli.Get(ctx, "/phobos/literals/"+sid+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		return resp.Count
	}
	{
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		resp, err := cli.Get(ctx, litKey)
		cancel()
		if err != nil || len(resp.Kvs) != 1 || len(resp.Kvs[0].Value) < 40000 {
			t.Errorf("the literal's record at %s: %v, %d values", litKey, err, len(resp.Kvs))
		}
	}
	waitState(a, st["url"].(string), 30*time.Second)
	eventually(t, 10*time.Second, "the record at SUCCEEDED", func() bool {
		rec, ok := get(key)
		return ok && rec.State == cluster.StateSucceeded && rec.Run != 0
	})
	a.json("DELETE", "/api/sessions/"+sid, nil, 200)
	eventually(t, 10*time.Second, "the records gone with the session", func() bool {
		_, g := get(key)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		resp, err := cli.Get(ctx, "/phobos/sessions/"+sid)
		return !g && err == nil && len(resp.Kvs) == 0 && litCount() == 0
	})
}

// TestSessionsAlone: one scheduler without etcd answers GET /api/sessions
// and GET /api/schedulers too, as the owner of every session.
func TestSessionsAlone(t *testing.T) {
	sp, _, wp := startRoles(t, cluster.SchedulerConfig{}, nil, 1)
	a := api{t, wp.URL()}
	sid := a.json("POST", "/api/sessions", nil, 201)["session_id"].(string)
	var listed listedSessions
	if code := getJSONStatus(wp.URL()+"/api/sessions", &listed); code != http.StatusOK || len(listed.Sessions) != 1 {
		t.Fatalf("GET /api/sessions: %d, %+v", code, listed)
	}
	if s := listed.Sessions[0]; s.SessionID != sid || s.Scheduler.ID != "" || s.Scheduler.PID != os.Getpid() {
		t.Errorf("listed %+v, want session %s of pid %d", s, sid, os.Getpid())
	}
	var got struct {
		Schedulers []struct {
			Address     string `json:"address"`
			State       string `json:"state"`
			RingMembers int    `json:"ring_members"`
			Sessions    int    `json:"sessions"`
		} `json:"schedulers"`
	}
	if code := getJSONStatus(wp.URL()+"/api/schedulers", &got); code != http.StatusOK || len(got.Schedulers) != 1 {
		t.Fatalf("GET /api/schedulers: %d, %+v", code, got)
	}
	if s := got.Schedulers[0]; s.Address != sp.URL() || s.State != "serving" || s.RingMembers != 1 || s.Sessions != 1 {
		t.Errorf("GET /api/schedulers: %+v", s)
	}
}

// TestSchedulerStopHandsOver: a scheduler of a ring that stops as SIGTERM
// stops it (Close) revokes its lease, so another takes its sessions over
// at once rather than after the lease's time to live: the session's next
// graph computes there, well before the TTL, here set far beyond the
// test's wait.
func TestSchedulerStopHandsOver(t *testing.T) {
	ctx := context.Background()
	const ttl = 10 * time.Minute // a takeover by expiry would time the test out
	_, ss, wp := ringRoles(t, 2, 1, ttl)
	sess, err := phobos.Connect(ctx, wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := tensor.Arange(0, 1000, 1, tensor.Chunks(100))
	if v, err := sess.ExecuteScalar(ctx, x.Sum()); err != nil || v != 499500 {
		t.Fatalf("before: %v, %v", v, err)
	}
	var listed struct {
		Sessions []struct {
			Scheduler struct {
				ID string `json:"id"`
			} `json:"scheduler"`
		} `json:"sessions"`
	}
	if code := getJSONStatus(wp.URL()+"/api/sessions", &listed); code != http.StatusOK || len(listed.Sessions) != 1 {
		t.Fatalf("GET /api/sessions: %d %+v", code, listed)
	}
	owner := listed.Sessions[0].Scheduler.ID
	i := slices.IndexFunc([]string{"s0", "s1"}, func(s string) bool { return s == owner })
	if i < 0 {
		t.Fatalf("owner %q", owner)
	}
	ss[i].Close()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if v, err := sess.ExecuteScalar(cctx, x.Mul(2).Sum()); err != nil || v != 999000 {
		t.Fatalf("after %s stopped: %v, %v", owner, v, err)
	}
	if code := getJSONStatus(wp.URL()+"/api/sessions", &listed); code != http.StatusOK || len(listed.Sessions) != 1 || listed.Sessions[0].Scheduler.ID == owner {
		t.Errorf("after %s stopped the session is held by %+v", owner, listed)
	}
}
