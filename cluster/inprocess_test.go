package cluster_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/internal/pki"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// TestRolesInProcess runs the three roles in this process (the same code the
// processes run, so `go test -race` sees their goroutines), executes graphs
// through phobos.Connect, cancels one, and shuts everything down.
func TestRolesInProcess(t *testing.T) {
	ctx := context.Background()
	// Worker 1 listens on every interface (as an open cluster, which it
	// must be told to accept) and is reached by the name it advertises.
	_, ws, wp := startRoles(t, cluster.SchedulerConfig{}, func(i int, cfg *cluster.WorkerConfig) {
		cfg.Slots, cfg.Memory = 2, 256<<20
		if i == 1 {
			cfg.Listen, cfg.Advertise, cfg.Exposure = "0.0.0.0:0", "localhost", cluster.Exposure{Open: true}
		}
	}, 2)
	if !strings.HasPrefix(ws[1].URL(), "http://localhost:") {
		t.Fatalf("worker advertised as %q, want http://localhost:PORT", ws[1].URL())
	}

	sess, err := phobos.Connect(ctx, wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, name := range []string{"W1", "W4"} {
		wl, _ := workloads.Get(name)
		p, _ := wl.Resolve(workloads.Params{"n": 300, "chunk": 100})
		if _, err := wl.Eval(ctx, sess, p, 3); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A context that ends cancels the graph on the cluster.
	g := tensor.NewGenerator(9)
	x := g.Rand([]int{2000, 2000}, tensor.Chunks(200))
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	var once sync.Once
	watcher, err := phobos.Connect(ctx, wp.URL(), phobos.WithProgress(func(p phobos.Progress) {
		if p.Running > 0 {
			once.Do(stop) // cancel once ops are running
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if _, err := watcher.Execute(cctx, x.MatMul(x).Sum()); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("a cancelled execution: %v", err)
	}
	v, err := sess.ExecuteScalar(ctx, tensor.Ones([]int{50}, tensor.Chunks(7)).Sum())
	if err != nil || v != 50 {
		t.Fatalf("after the cancel: %v %v", v, err)
	}
}

// TestIdleSessionsExpire: a session with no request for longer than the
// idle timeout is closed and its results freed; its client then gets a
// clear error, and new sessions work.
func TestIdleSessionsExpire(t *testing.T) {
	ctx := context.Background()
	_, _, wp := startRoles(t, cluster.SchedulerConfig{SessionIdleTimeout: 300 * time.Millisecond}, nil, 1)
	sess, err := phobos.Connect(ctx, wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := tensor.Ones([]int{100}, tensor.Chunks(10))
	if v, err := sess.ExecuteScalar(ctx, x.Sum()); err != nil || v != 100 {
		t.Fatalf("before expiry: %v, %v", v, err)
	}
	sessions := func() float64 {
		resp, err := http.Get(wp.URL() + "/api")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var info map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
			t.Fatal(err)
		}
		return info["sessions"].(float64)
	}
	deadline := time.Now().Add(10 * time.Second)
	for sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was not closed within 10 s")
		}
		runtime.Gosched()
	}
	if _, err := sess.ExecuteScalar(ctx, x.Sum()); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Fatalf("using an expired session: %v, want a 'no session' error", err)
	}
	fresh, err := phobos.Connect(ctx, wp.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if v, err := fresh.ExecuteScalar(ctx, x.Sum()); err != nil || v != 100 {
		t.Fatalf("new session after expiry: %v, %v", v, err)
	}
}

// startRoles runs a scheduler, n workers (each configured by setup, if
// given, from 1 slot and 64 MiB) and a web service in this process, all
// with the scheduler's token, waits
// until the web service sees the workers, and stops them all at the end of
// the test.
func startRoles(t testing.TB, scfg cluster.SchedulerConfig, setup func(i int, cfg *cluster.WorkerConfig), n int) (*cluster.SchedulerProc, []*cluster.WorkerProc, *cluster.WebProc) {
	t.Helper()
	ctx := context.Background()
	sp, err := cluster.StartScheduler(scfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	var ws []*cluster.WorkerProc
	for i := range n {
		cfg := cluster.WorkerConfig{Scheduler: sp.URL(), Slots: 1, Memory: 64 << 20, SpillDir: t.TempDir(), Token: scfg.Token, TLS: scfg.TLS}
		if setup != nil {
			setup(i, &cfg)
		}
		w, err := cluster.StartWorker(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
		ws = append(ws, w)
	}
	wp, err := cluster.StartWeb(cluster.WebConfig{Scheduler: sp.URL(), Token: scfg.Token, TLS: scfg.TLS})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wp.Close)
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hc, err := cluster.NewClient(scfg.Token, scfg.TLS)
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.WaitReady(rctx, hc, wp.URL(), n); err != nil {
		t.Fatal(err)
	}
	return sp, ws, wp
}

// TestTokenGuardsEveryRole: with a cluster token, every role refuses
// requests without it (401, saying what is missing), the roles' own
// requests carry it (W4 reads chunks across workers), and a client with it
// works.
func TestTokenGuardsEveryRole(t *testing.T) {
	ctx := context.Background()
	const token = "t0ken-for-tests"
	sp, ws, wp := startRoles(t, cluster.SchedulerConfig{Token: token}, nil, 2)
	if _, err := phobos.Connect(ctx, wp.URL()); err == nil || !strings.Contains(err.Error(), "needs a token") {
		t.Fatalf("Connect without the token: %v", err)
	}
	if _, err := phobos.Connect(ctx, wp.URL(), phobos.WithToken("wrong")); err == nil || !strings.Contains(err.Error(), "wrong token") {
		t.Fatalf("Connect with a wrong token: %v", err)
	}
	for _, u := range []string{sp.URL() + "/phobos.v1.SchedulerService/ListWorkers", ws[0].URL() + "/chunks/1/0", wp.URL() + "/api"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", u, resp.StatusCode)
		}
	}
	sess, err := phobos.Connect(ctx, wp.URL(), phobos.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	wl, _ := workloads.Get("W4")
	p, _ := wl.Resolve(workloads.Params{"n": 300, "chunk": 100})
	if _, err := wl.Eval(ctx, sess, p, 3); err != nil {
		t.Fatalf("W4 with the token: %v", err)
	}
	if st := sess.Stats(); st.MovedBytes == 0 {
		t.Errorf("stats %+v: want chunks read across workers (with the token)", st)
	}
}

// TestTLSInProcess: with certificates, every role serves HTTPS and talks
// HTTPS to the others (the worker advertises https://, W4 reads chunks
// across workers); a client trusting the CA works, one that does not gets a
// certificate error.
func TestTLSInProcess(t *testing.T) {
	ctx := context.Background()
	f, err := pki.Write(t.TempDir(), pki.Loopback, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	files := rpc.TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}
	const token = "tls-and-token"
	sp, ws, wp := startRoles(t, cluster.SchedulerConfig{Token: token, TLS: files}, nil, 2)
	for _, u := range []string{sp.URL(), ws[0].URL(), ws[1].URL(), wp.URL()} {
		if !strings.HasPrefix(u, "https://") {
			t.Fatalf("role at %s: want https://", u)
		}
	}
	if _, err := phobos.Connect(ctx, wp.URL(), phobos.WithToken(token)); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("Connect without trusting the CA: %v", err)
	}
	cli, err := files.Client()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := phobos.Connect(ctx, wp.URL(), phobos.WithToken(token), phobos.WithTLSConfig(cli))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	wl, _ := workloads.Get("W4")
	p, _ := wl.Resolve(workloads.Params{"n": 300, "chunk": 100})
	if _, err := wl.Eval(ctx, sess, p, 3); err != nil {
		t.Fatalf("W4 over TLS: %v", err)
	}
	if st := sess.Stats(); st.MovedBytes == 0 {
		t.Errorf("stats %+v: want chunks read across workers (over TLS)", st)
	}
}
