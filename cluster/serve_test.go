package cluster

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/cluster/ha"
	"github.com/phobos-tensor/phobos/internal/pki"
	"github.com/phobos-tensor/phobos/rpc"
)

func TestAdvertise(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"10.0.0.5", "http://10.0.0.5:7200", true},
		{"10.0.0.5:9000", "http://10.0.0.5:9000", true},
		{"http://node-3.example:9000", "http://node-3.example:9000", true},
		{"http://node-3.example/", "http://node-3.example:7200", true},
		{"::1", "http://[::1]:7200", true},
		{"[::1]:9000", "http://[::1]:9000", true},
		{"https://secure:1", "https://secure:1", true},
		{"ftp://host:1", "", false},
		{"http://host:1/path", "", false},
		{"", "", false},
	} {
		got, err := advertise(c.in, 7200, "http")
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("advertise(%q) = %q, %v; want %q, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	// A worker serving HTTPS advertises https:// unless told otherwise.
	if got, err := advertise("node-3", 9000, "https"); err != nil || got != "https://node-3:9000" {
		t.Errorf("advertise over TLS = %q, %v", got, err)
	}
}

// TestTowards: a listener on every interface is advertised by this host's
// address on the route to a peer on another host, and as loopback to a
// peer on loopback; a named listen address is kept.
func TestTowards(t *testing.T) {
	const u = "http://127.0.0.1:7200"
	for _, c := range []struct{ listen, peer string }{
		{"127.0.0.1:0", "http://10.0.0.1:7100"},
		{"10.1.1.1:7200", "http://10.0.0.1:7100"},
		{"0.0.0.0:0", "http://127.0.0.1:7100"},
		{":0", "localhost:7100"},
		{"0.0.0.0:0", "not a peer"},
		{"", "http://10.0.0.1:7100"},
	} {
		if got := towards(u, c.listen, c.peer); got != u {
			t.Errorf("listen %q, peer %q: %q, want %q kept", c.listen, c.peer, got, u)
		}
	}
	// A peer at one of this host's own addresses: the route's source is
	// that address (a UDP connect sends nothing).
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.To4() == nil {
			continue
		}
		want := "http://" + net.JoinHostPort(n.IP.String(), "7200")
		if got := towards(u, "0.0.0.0:7200", "http://"+net.JoinHostPort(n.IP.String(), "7100")); got != want {
			t.Errorf("towards this host's %v: %q, want %q", n.IP, got, want)
		}
		return
	}
	t.Log("no non-loopback IPv4 address here: only the kept cases ran")
}

// TestReachableFrom: a loopback URL is refused only when registered from
// another host.
func TestReachableFrom(t *testing.T) {
	for _, c := range []struct {
		url, peer string
		ok        bool
	}{
		{"http://127.0.0.1:7200", "127.0.0.1:5000", true},
		{"http://localhost:7200", "[::1]:5000", true},
		{"http://127.0.0.1:7200", "", true},
		{"http://10.0.0.2:7200", "10.0.0.2:5000", true},
		{"http://worker-3.phobos:7200", "10.0.0.2:5000", true},
		{"http://127.0.0.1:7200", "10.0.0.2:5000", false},
		{"http://localhost:7200", "10.0.0.2:5000", false},
		{"https://[::1]:7200", "[2001:db8::2]:5000", false},
	} {
		err := reachableFrom(c.url, c.peer)
		if (err == nil) != c.ok {
			t.Errorf("%s from %q: %v, want ok=%v", c.url, c.peer, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "--advertise") {
			t.Errorf("the refusal does not name --advertise: %v", err)
		}
	}
}

// TestSchedulerAdvertise: a scheduler told to advertise a name gives that
// name (with its listening port) as its URL, the one a ring records; a
// malformed one is refused at start.
func TestSchedulerAdvertise(t *testing.T) {
	p, err := StartScheduler(SchedulerConfig{Listen: "127.0.0.1:0", Advertise: "sched-0.phobos-scheduler.example"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(p.URL(), "http://sched-0.phobos-scheduler.example"), ":")
	if !strings.HasPrefix(p.URL(), "http://sched-0.phobos-scheduler.example:") || port == "" || port == "0" {
		t.Errorf("URL %q, want http://sched-0.phobos-scheduler.example:PORT", p.URL())
	}
	if q, err := StartScheduler(SchedulerConfig{Listen: "127.0.0.1:0", Advertise: "http://host:1/path"}); err == nil {
		q.Close()
		t.Error("a scheduler started advertising a URL with a path")
	}
}

// TestSchedulerAdvertiseInRing: a ring's scheduler listening on every
// interface with --advertise records the advertised name in etcd, not
// its route's address, and a worker finding it there registers with it.
func TestSchedulerAdvertiseInRing(t *testing.T) {
	ctx := t.Context()
	ee, err := ha.StartEtcd(ctx, ha.EtcdConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ee.Close()
	etcd := []string{ee.Endpoint()}
	p, err := StartScheduler(SchedulerConfig{Listen: "0.0.0.0:0", Advertise: "localhost", Exposure: Exposure{Open: true}, Etcd: etcd, ID: "sched-0"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cli, err := ha.DialEtcd(etcd, rpc.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	w, err := StartWorker(ctx, WorkerConfig{Etcd: etcd, Slots: 1, Memory: 64 << 20, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatalf("a worker registering through the ring: %v", err)
	}
	defer w.Close()
	resp, err := cli.Get(ctx, ha.SchedulersPrefix+"sched-0")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("no ring record for sched-0: %v", resp.Kvs)
	}
	var rec struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal(resp.Kvs[0].Value, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Address != p.URL() || !strings.HasPrefix(rec.Address, "http://localhost:") {
		t.Errorf("ring record address %q, want the advertised %q", rec.Address, p.URL())
	}
}

// TestEtcdTLS: an etcd serving TLS with client certificates takes the
// roles' requests (their certificate), refuses a client with the CA alone,
// and a ring of a scheduler and a worker forms through it.
func TestEtcdTLS(t *testing.T) {
	ctx := t.Context()
	f, err := pki.Write(t.TempDir(), pki.Loopback, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	files := rpc.TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}
	ee, err := ha.StartEtcd(ctx, ha.EtcdConfig{Dir: t.TempDir(), TLS: files})
	if err != nil {
		t.Fatal(err)
	}
	defer ee.Close()
	if !strings.HasPrefix(ee.Endpoint(), "https://") {
		t.Fatalf("etcd with TLS at %s", ee.Endpoint())
	}
	etcd := []string{ee.Endpoint()}
	put := func(files rpc.TLSFiles) error {
		cli, err := ha.DialEtcd(etcd, files)
		if err != nil {
			return err
		}
		defer cli.Close()
		c, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err = cli.Put(c, "/phobos/test", "x")
		return err
	}
	if err := put(files); err != nil {
		t.Fatalf("a role's certificate: %v", err)
	}
	if err := put(rpc.TLSFiles{CA: f.CA}); err == nil {
		t.Error("a client without a certificate was served")
	}
	p, err := StartScheduler(SchedulerConfig{Etcd: etcd, ID: "sched-tls", TLS: files, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w, err := StartWorker(ctx, WorkerConfig{Etcd: etcd, Slots: 1, Memory: 64 << 20, SpillDir: t.TempDir(), TLS: files, Token: "t"})
	if err != nil {
		t.Fatalf("a worker registering through an etcd over TLS: %v", err)
	}
	w.Close()
}
