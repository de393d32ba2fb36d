//go:build linux

package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/internal/pki"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/workloads"
)

// lan is a network of hosts for one test: a bridge in the test's own
// namespace (the client's side, lanClient) and one network namespace per
// host on it, each joined by a veth pair whose two directions are limited
// by tc tbf to rate. Nothing leaves the bridge.
type lan struct {
	hosts []*netns
	links []string // the bridge's side of each host's link
}

const (
	lanPrefix = "10.213.78."
	lanClient = lanPrefix + "1"
)

// newLAN makes n hosts (addresses lanPrefix 10, 11, ...) on a bridge, each
// link limited to rate (a tc rate such as "1gbit"), removed when t ends;
// it skips t where namespaces, bridges or tbf cannot be made.
func newLAN(t *testing.T, n int, rate string) *lan {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (apt-get install iproute2)")
	}
	if _, err := exec.LookPath("tc"); err != nil {
		t.Skip("no tc command (apt-get install iproute2)")
	}
	run := func(args ...string) error {
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	id := os.Getpid() % 10000
	br := fmt.Sprintf("plbr%d", id)
	if err := run("ip", "link", "add", br, "type", "bridge"); err != nil {
		t.Skipf("cannot make a bridge here: %v", err)
	}
	t.Cleanup(func() { _ = run("ip", "link", "del", br) })
	for _, args := range [][]string{{"ip", "addr", "add", lanClient + "/24", "dev", br}, {"ip", "link", "set", br, "up"}} {
		if err := run(args...); err != nil {
			t.Fatal(err)
		}
	}
	l := &lan{}
	for i := range n {
		ns := &netns{name: fmt.Sprintf("phobos-lan-%d-%d", id, i), addr: fmt.Sprintf("%s%d", lanPrefix, 10+i)}
		outer, inner := fmt.Sprintf("pl%d-%da", id, i), fmt.Sprintf("pl%d-%db", id, i)
		if err := run("ip", "netns", "add", ns.name); err != nil {
			t.Skipf("cannot make a network namespace here: %v", err)
		}
		t.Cleanup(func() {
			_ = run("ip", "link", "del", outer)
			_ = run("ip", "netns", "del", ns.name)
		})
		for _, args := range [][]string{
			{"ip", "link", "add", outer, "type", "veth", "peer", "name", inner},
			{"ip", "link", "set", inner, "netns", ns.name},
			{"ip", "link", "set", outer, "master", br},
			{"ip", "link", "set", outer, "up"},
			{"ip", "-n", ns.name, "addr", "add", ns.addr + "/24", "dev", inner},
			{"ip", "-n", ns.name, "link", "set", inner, "up"},
			{"ip", "-n", ns.name, "link", "set", "lo", "up"},
		} {
			if err := run(args...); err != nil {
				t.Fatal(err)
			}
		}
		// Both directions: out of the host, and out of the bridge to it.
		for _, args := range [][]string{
			{"ip", "netns", "exec", ns.name, "tc", "qdisc", "add", "dev", inner, "root", "tbf", "rate", rate, "burst", "256kb", "latency", "50ms"},
			{"tc", "qdisc", "add", "dev", outer, "root", "tbf", "rate", rate, "burst", "256kb", "latency", "50ms"},
		} {
			if err := run(args...); err != nil {
				t.Skipf("cannot limit a link with tc tbf here: %v", err)
			}
		}
		l.hosts = append(l.hosts, ns)
		l.links = append(l.links, outer)
	}
	return l
}

// setLink takes host i's link down or up (from inside its namespace, as a
// cut cable would).
func (l *lan) setLink(t *testing.T, i int, state string) {
	t.Helper()
	inner := strings.TrimSuffix(l.links[i], "a") + "b"
	if out, err := exec.Command("ip", "-n", l.hosts[i].name, "link", "set", inner, state).CombinedOutput(); err != nil {
		t.Fatalf("link %s of host %d: %v: %s", state, i, err, out)
	}
}

// linkBytes is the bytes host i sent and received over its link so far.
func (l *lan) linkBytes(t *testing.T, i int) (sent, received int64) {
	t.Helper()
	read := func(f string) int64 {
		b, err := os.ReadFile(filepath.Join("/sys/class/net", l.links[i], "statistics", f))
		if err != nil {
			t.Fatal(err)
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v
	}
	// The bridge's side receives what the host sends.
	return read("rx_bytes"), read("tx_bytes")
}

// hostCluster is an etcd, a scheduler on a ring over it, workers and a
// web service, each a process on a host of its own (or all on this
// host's loopback with hosts nil).
type hostCluster struct {
	web, sched, etcd string
	workers          []string
	hc               *http.Client // token and the role certificate, for /metrics and the REST API
	session          []phobos.Option
	token            string
}

// startHostCluster runs the roles with TLS and a token: on lan's hosts 0
// (etcd and the scheduler), 1..workers (workers, listening on every
// interface with no --advertise) and workers+1 (web), or on loopback when
// l is nil. Every role finds the others through etcd.
func startHostCluster(t *testing.T, l *lan, workers int) *hostCluster {
	t.Helper()
	dir := t.TempDir()
	hosts := append([]string{}, pki.Loopback...)
	if l != nil {
		for _, h := range l.hosts {
			hosts = append(hosts, h.addr)
		}
	}
	certs, err := pki.Write(filepath.Join(dir, "tls"), hosts, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	const token = "multi-host-token-0123456789abcdef"
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--token-file", tokenFile, "--tls-cert", certs.Cert, "--tls-key", certs.Key, "--tls-ca", certs.CA, "--log-level", "warn"}
	start := func(host int, args ...string) *nsProc {
		if l == nil {
			return (&netns{}).start(t, append(args, common...)...)
		}
		return l.hosts[host].start(t, append(args, common...)...)
	}
	addr := func(host int) string {
		if l == nil {
			return "127.0.0.1"
		}
		return l.hosts[host].addr
	}
	c := &hostCluster{token: token}
	c.etcd = start(0, "etcd", "--listen", addr(0)+":0", "--data-dir", t.TempDir()).ready(t)
	c.sched = start(0, "scheduler", "--listen", addr(0)+":0", "--etcd", c.etcd, "--id", "sched-0", "--heartbeat-timeout", "1500ms").ready(t)
	for i := range workers {
		listen := "0.0.0.0:0"
		if l == nil {
			listen = "127.0.0.1:0"
		}
		c.workers = append(c.workers, start(1+i, "worker", "--etcd", c.etcd, "--listen", listen, "--slots", "1", "--memory", "1GiB", "--spill-dir", t.TempDir()).ready(t))
	}
	c.web = start(workers+1, "web", "--etcd", c.etcd, "--listen", addr(workers+1)+":0").ready(t)
	cli, err := (rpc.TLSFiles{CA: certs.CA, Cert: certs.Cert, Key: certs.Key}).Client()
	if err != nil {
		t.Fatal(err)
	}
	c.hc = rpc.WithToken(rpc.WithTLS(rpc.NewHTTPClient(), cli), token)
	ca, err := (rpc.TLSFiles{CA: certs.CA}).Client()
	if err != nil {
		t.Fatal(err)
	}
	c.session = []phobos.Option{phobos.WithToken(token), phobos.WithTLSConfig(ca)}
	eventually(t, 30*time.Second, "every worker registered", func() bool { return c.liveWorkers(t) == workers })
	return c
}

// liveWorkers is GET /api/workers' count of live workers.
func (c *hostCluster) liveWorkers(t *testing.T) int {
	t.Helper()
	resp, err := c.hc.Get(c.web + "/api/workers")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var got struct {
		Workers []struct {
			Alive   bool `json:"alive"`
			Running int  `json:"running"`
		} `json:"workers"`
	}
	if json.NewDecoder(resp.Body).Decode(&got) != nil {
		return 0
	}
	n := 0
	for _, w := range got.Workers {
		if w.Alive {
			n++
		}
	}
	return n
}

// peerBytes is the sum over the workers of phobos_worker_peer_fetch_bytes_total.
func (c *hostCluster) peerBytes(t *testing.T) int64 {
	t.Helper()
	var sum int64
	for _, w := range c.workers {
		resp, err := c.hc.Get(w + "/metrics")
		if err != nil {
			t.Fatalf("scraping %s: %v", w, err)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "phobos_worker_peer_fetch_bytes_total") {
				f := strings.Fields(line)
				v, _ := strconv.ParseFloat(f[len(f)-1], 64)
				sum += int64(v)
			}
		}
		resp.Body.Close()
	}
	return sum
}

// runWorkload evaluates a workload on the cluster: its value, wall time
// and the bytes its chunk ops read from other workers.
func (c *hostCluster) runWorkload(t *testing.T, name string, p workloads.Params) (float64, time.Duration, int64) {
	t.Helper()
	wl, _ := workloads.Get(name)
	params, err := wl.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sess, err := phobos.Connect(ctx, c.web, c.session...)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	t0 := time.Now()
	v, err := wl.Eval(ctx, sess, params, 11)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v, time.Since(t0), sess.Stats().MovedBytes
}

// TestMultiHost runs a cluster whose roles each live on a host of their
// own, a network namespace on a bridge with every link limited to 1 Gbit/s
// (etcd and the scheduler, over TLS, on one host):
// W4 and W6 give the values they give on one host, the bytes they move
// between hosts are reported from the workers' metrics and the links'
// counters beside the inputs' size, and a worker host whose link is cut
// mid-graph does not change the result; once the link is back its worker
// rejoins by itself.
func TestMultiHost(t *testing.T) {
	needBinary(t)
	if testing.Short() {
		t.Skip("-short: the multi-host test runs workloads across namespaces")
	}
	const workers = 3
	l := newLAN(t, workers+2, "1gbit")
	lc := startHostCluster(t, l, workers)
	for i, w := range lc.workers {
		if !strings.HasPrefix(w, "https://"+l.hosts[1+i].addr+":") {
			t.Fatalf("worker %d advertises %s, not its host's address %s", i, w, l.hosts[1+i].addr)
		}
	}
	one := startHostCluster(t, nil, workers)

	cases := []struct {
		name  string
		p     workloads.Params
		input int64 // bytes of the generated input
	}{
		{"W4", workloads.Params{"n": 4000, "chunk": 1000}, 4000 * 4000 * 8},
		{"W6", workloads.Params{"m": 400_000, "n": 50, "chunk": 50_000}, 400_000 * 50 * 8},
	}
	for _, c := range cases {
		var sent0, recv0 int64
		for i := 1; i <= workers; i++ {
			s, r := l.linkBytes(t, i)
			sent0, recv0 = sent0+s, recv0+r
		}
		peer0 := lc.peerBytes(t)
		v, wall, moved := lc.runWorkload(t, c.name, c.p)
		var sent, recv int64
		for i := 1; i <= workers; i++ {
			s, r := l.linkBytes(t, i)
			sent, recv = sent+s, recv+r
		}
		peer := lc.peerBytes(t) - peer0
		v1, wall1, moved1 := one.runWorkload(t, c.name, c.p)
		if math.Abs(v-v1) > 1e-12*math.Abs(v1) {
			t.Errorf("%s: %v across hosts, %v on one host", c.name, v, v1)
		}
		if peer != moved {
			t.Errorf("%s: the workers' metrics count %d bytes read from peers, the session %d", c.name, peer, moved)
		}
		if sent-sent0 < moved {
			t.Errorf("%s: the worker hosts' links sent %d bytes, fewer than the %d moved between workers", c.name, sent-sent0, moved)
		}
		t.Logf("%s %v: across hosts %.3f s, moved %d bytes between workers (%.1f%% of the %d input bytes; metrics %d), worker links sent %d and received %d bytes; on one host %.3f s, moved %d",
			c.name, c.p, wall.Seconds(), moved, 100*float64(moved)/float64(c.input), c.input, peer, sent-sent0, recv-recv0, wall1.Seconds(), moved1)
	}

	// Cut worker 2's link while W4 runs on a larger grid: large enough to
	// run for several of the workers' heartbeats (a third of the 1.5 s
	// timeout), which are what shows worker 2 busy with it.
	big := workloads.Params{"n": 12000, "chunk": 500}
	want, _, _ := one.runWorkload(t, "W4", big)
	type outcome struct {
		v   float64
		err error
	}
	// Worker 2 (host 3) is named by its URL, not by its place in the
	// list; what it holds before the graph is the baseline.
	type workerLoad struct {
		URL         string `json:"url"`
		Running     int    `json:"running"`
		Queued      int    `json:"queued"`
		StoreChunks int    `json:"store_chunks"`
	}
	worker2 := func() (workerLoad, bool) {
		resp, err := lc.hc.Get(lc.web + "/api/workers")
		if err != nil {
			return workerLoad{}, false
		}
		defer resp.Body.Close()
		var got struct {
			Workers []workerLoad `json:"workers"`
		}
		if json.NewDecoder(resp.Body).Decode(&got) != nil {
			return workerLoad{}, false
		}
		for _, w := range got.Workers {
			if strings.TrimSuffix(w.URL, "/") == strings.TrimSuffix(lc.workers[2], "/") {
				return w, true
			}
		}
		return workerLoad{}, false
	}
	base, ok := worker2()
	if !ok {
		t.Fatalf("worker 2 (%s) is not in GET /api/workers", lc.workers[2])
	}
	done := make(chan outcome, 1)
	go func() {
		wl, _ := workloads.Get("W4")
		params, _ := wl.Resolve(big)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		sess, err := phobos.Connect(ctx, lc.web, lc.session...)
		if err != nil {
			done <- outcome{err: err}
			return
		}
		defer sess.Close()
		v, err := wl.Eval(ctx, sess, params, 11)
		done <- outcome{v, err}
	}()
	// Worker 2 has work of the graph: tasks running or queued, or chunks
	// it computed and holds (heartbeats carry these, and a poll may fall
	// between its short tasks; its store keeps what it made). The graph
	// must still be running when the link is cut.
	eventually(t, 60*time.Second, "worker 2 with work of the graph", func() bool {
		if len(done) > 0 {
			t.Fatal("W4 ended before worker 2 was seen with work of it: the cut would not be mid-graph")
		}
		w, ok := worker2()
		return ok && (w.Running+w.Queued > 0 || w.StoreChunks > base.StoreChunks)
	})
	l.setLink(t, 3, "down") // host 3 is worker 2's
	var got outcome
	select {
	case got = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("W4 did not end within 5 minutes of the cut")
	}
	if got.err != nil || math.Abs(got.v-want) > 1e-12*math.Abs(want) {
		t.Fatalf("W4 with a link cut mid-graph: %v (%v), want %v", got.v, got.err, want)
	}
	t.Logf("W4 %v with worker 2's link cut mid-graph: %v, the same as on one host", big, got.v)
	l.setLink(t, 3, "up")
	// The worker, dropped by the scheduler while it could not be reached,
	// registers again by itself once the ring is in reach.
	eventually(t, 90*time.Second, "the cut host's worker back", func() bool { return lc.liveWorkers(t) == workers })
	if v, _, _ := lc.runWorkload(t, "W4", workloads.Params{"n": 4000, "chunk": 1000}); math.Abs(v-mustValue(t, one, "W4", workloads.Params{"n": 4000, "chunk": 1000})) > 1e-12*math.Abs(v) {
		t.Errorf("W4 after the host rejoined: %v", v)
	}
}

// mustValue is a workload's value on c.
func mustValue(t *testing.T, c *hostCluster, name string, p workloads.Params) float64 {
	t.Helper()
	v, _, _ := c.runWorkload(t, name, p)
	return v
}
