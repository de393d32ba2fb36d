//go:build linux

package cluster_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/internal/pki"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
)

// netns is a network namespace this test made, joined to the test's own
// namespace by a veth pair: the cluster serves inside it at addr, and the
// test reaches it from outside as another host on the link would.
type netns struct {
	name string
	addr string // the namespace's side of the link
}

// The link's /30: the test's side is .1, the namespace's .2. It exists
// only while the test runs, and no traffic leaves the pair.
const (
	nsHostSide = "10.213.77.1"
	nsSide     = "10.213.77.2"
)

// newNetns makes the namespace and its link, removed when t ends; it skips
// t where that cannot be done (not root, no ip command, no namespaces).
func newNetns(t *testing.T) *netns {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	ipCmd, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("no ip command (apt-get install iproute2)")
	}
	id := os.Getpid() % 100000
	ns := &netns{name: fmt.Sprintf("phobos-sec-%d", id), addr: nsSide}
	outer, inner := fmt.Sprintf("phs%da", id), fmt.Sprintf("phs%db", id)
	ip := func(args ...string) error {
		out, err := exec.Command(ipCmd, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := ip("netns", "add", ns.name); err != nil {
		t.Skipf("cannot make a network namespace here: %v", err)
	}
	t.Cleanup(func() {
		_ = ip("link", "del", outer)
		_ = ip("netns", "del", ns.name)
	})
	for _, args := range [][]string{
		{"link", "add", outer, "type", "veth", "peer", "name", inner},
		{"link", "set", inner, "netns", ns.name},
		{"addr", "add", nsHostSide + "/30", "dev", outer},
		{"link", "set", outer, "up"},
		{"-n", ns.name, "addr", "add", nsSide + "/30", "dev", inner},
		{"-n", ns.name, "link", "set", inner, "up"},
		{"-n", ns.name, "link", "set", "lo", "up"},
	} {
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	return ns
}

// nsProc is a phobos process running in the namespace.
type nsProc struct {
	cmd   *exec.Cmd
	lines chan string // its stdout, line by line
	logs  *syncBuffer
	done  chan error
}

// start runs `phobos args...` inside the namespace (in the test's own for
// a netns without a name), stopped when t ends.
func (ns *netns) start(t *testing.T, args ...string) *nsProc {
	t.Helper()
	p := &nsProc{lines: make(chan string, 16), logs: &syncBuffer{}, done: make(chan error, 1)}
	if ns.name == "" { // this host's own namespace
		p.cmd = exec.Command(phobosBin, args...)
	} else {
		p.cmd = exec.Command("ip", append([]string{"netns", "exec", ns.name, phobosBin}, args...)...)
	}
	p.cmd.Stderr = p.logs
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("phobos %s:\n%s", strings.Join(args, " "), p.logs)
		}
	})
	return p
}

// line is the process's next line of stdout ("" once it has exited).
func (p *nsProc) line(t *testing.T) string {
	t.Helper()
	select {
	case l := <-p.lines:
		return l
	case <-time.After(60 * time.Second):
		t.Fatalf("no line in 60 s; logs:\n%s", p.logs)
		return ""
	}
}

// ready is the URL of the role's ready line.
func (p *nsProc) ready(t *testing.T) string {
	t.Helper()
	l := p.line(t)
	if !strings.HasPrefix(l, cluster.ReadyPrefix) {
		t.Fatalf("want a ready line, got %q; logs:\n%s", l, p.logs)
	}
	f := strings.Fields(l)
	return f[len(f)-1]
}

// refusal is how the role refused to start: its exit and its error.
func (p *nsProc) refusal(t *testing.T) string {
	t.Helper()
	if l := p.line(t); l != "" {
		t.Fatalf("it started: %q", l)
	}
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		if err == nil {
			t.Fatalf("it exited 0 without serving")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("it neither served nor exited in 30 s")
	}
	return p.logs.String()
}

// TestNetworkSecurity runs the cluster's roles on an address of a network
// namespace, as hosts of a network would, and sends the hostile-request
// suite to each of them from outside it:
//   - without a token a role refuses to start unless --insecure-no-token
//     is given, and with a token but without TLS unless --insecure-no-tls;
//   - with the token and TLS (the default), and with the token over plain
//     HTTP (--insecure-no-tls), every request without the token, or with a
//     wrong one, is refused, and schedulers and workers refuse a TLS client
//     without a certificate of the cluster's CA; every role answers its
//     health probes without either;
//   - `phobos cluster` on that address makes its token and its CA, and a
//     session given both computes across the link.
func TestNetworkSecurity(t *testing.T) {
	needBinary(t)
	ns := newNetns(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	const token = "network-test-token-0123456789abcdef"
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	certs, err := pki.Write(filepath.Join(dir, "tls"), append([]string{ns.addr}, pki.Loopback...), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	tlsArgs := []string{"--tls-cert", certs.Cert, "--tls-key", certs.Key, "--tls-ca", certs.CA}
	listen := ns.addr + ":0"

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			name string
			args []string
			want string
		}{
			{"scheduler, no token", []string{"scheduler", "--listen", listen}, "--insecure-no-token"},
			{"scheduler, no token, TLS", append([]string{"scheduler", "--listen", listen}, tlsArgs...), "--insecure-no-token"},
			{"scheduler, token, plain", []string{"scheduler", "--listen", listen, "--token-file", tokenFile}, "--insecure-no-tls"},
			{"worker, no token", []string{"worker", "--listen", listen, "--scheduler", "127.0.0.1:1"}, "--insecure-no-token"},
			{"worker, token, plain", []string{"worker", "--listen", listen, "--scheduler", "127.0.0.1:1", "--token-file", tokenFile}, "--insecure-no-tls"},
			{"web, no token", []string{"web", "--listen", listen, "--scheduler", "127.0.0.1:1"}, "--insecure-no-token"},
			{"web, token, plain", []string{"web", "--listen", listen, "--scheduler", "127.0.0.1:1", "--token-file", tokenFile}, "--insecure-no-tls"},
			{"etcd, plain", []string{"etcd", "--listen", listen}, "--insecure-no-tls"},
			{"etcd, TLS without a CA", []string{"etcd", "--listen", listen, "--tls-cert", certs.Cert, "--tls-key", certs.Key}, "--tls-ca"},
		} {
			logs := ns.start(t, c.args...).refusal(t)
			if !strings.Contains(logs, "refusing to serve") || !strings.Contains(logs, ns.addr) || !strings.Contains(logs, c.want) {
				t.Errorf("%s: %q, want a refusal naming %s", c.name, logs, c.want)
			}
		}
	})

	// roles starts a scheduler, a worker and a web service in the
	// namespace, each on the namespace's address, with extra flags.
	roles := func(t *testing.T, extra ...string) (sched, worker, web string) {
		sched = ns.start(t, append([]string{"scheduler", "--listen", listen}, extra...)...).ready(t)
		worker = ns.start(t, append([]string{"worker", "--listen", listen, "--scheduler", sched, "--slots", "1", "--memory", "256MiB", "--spill-dir", t.TempDir()}, extra...)...).ready(t)
		web = ns.start(t, append([]string{"web", "--listen", listen, "--scheduler", sched}, extra...)...).ready(t)
		for _, u := range []string{sched, worker, web} {
			if !strings.Contains(u, "://"+ns.addr+":") {
				t.Fatalf("a role serves at %s, not on the namespace's address", u)
			}
		}
		return sched, worker, web
	}

	t.Run("token and TLS", func(t *testing.T) {
		sched, worker, web := roles(t, append([]string{"--token-file", tokenFile}, tlsArgs...)...)
		ca, err := (rpc.TLSFiles{CA: certs.CA}).Client()
		if err != nil {
			t.Fatal(err)
		}
		role, err := (rpc.TLSFiles{CA: certs.CA, Cert: certs.Cert, Key: certs.Key}).Client()
		if err != nil {
			t.Fatal(err)
		}
		// A client trusting the CA without a role's certificate, and one
		// with it (as if stolen): neither has the token.
		hostileSuite(t, sched, worker, web, ca, true)
		hostileSuite(t, sched, worker, web, role, false)
		checkProbes(t, rpc.WithTLS(rpc.NewHTTPClient(), ca), sched, worker, web)
		computes(t, web, token, ca)
	})

	t.Run("token over plain HTTP, accepted", func(t *testing.T) {
		sched, worker, web := roles(t, "--token-file", tokenFile, "--insecure-no-tls")
		hostileSuite(t, sched, worker, web, nil, false)
		computes(t, web, token, nil)
	})

	t.Run("no token, accepted: an open cluster", func(t *testing.T) {
		_, _, web := roles(t, "--insecure-no-token")
		computes(t, web, "", nil)
	})

	t.Run("phobos cluster makes its token and CA", func(t *testing.T) {
		p := ns.start(t, "cluster", "--listen", listen, "--workers", "1", "--log-level", "warn")
		url := p.line(t)
		tok, _ := strings.CutPrefix(p.line(t), "token ")
		caFile, _ := strings.CutPrefix(p.line(t), "ca ")
		if !strings.HasPrefix(url, "https://"+ns.addr+":") || len(tok) < 32 || caFile == "" {
			t.Fatalf("phobos cluster printed %q, a token of %d characters and CA %q", url, len(tok), caFile)
		}
		cfg, err := (rpc.TLSFiles{CA: caFile}).Client()
		if err != nil {
			t.Fatal(err)
		}
		checkTokenHidden(t, tok)
		for _, auth := range []string{"", "Bearer wrong"} {
			req, _ := http.NewRequest("GET", url+"/api", nil)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := rpc.WithTLS(rpc.NewHTTPClient(), cfg).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("GET /api with %q: %d, want 401", auth, resp.StatusCode)
			}
		}
		computes(t, url, tok, cfg)
	})
}

// hostileSuite sends every hostile request to the roles without the
// token, then with a wrong one, through a client with cfg (nil: plain
// HTTP): each must be refused, with 401, or with 403 where mutual says the
// scheduler and worker want a client certificate cfg lacks.
func hostileSuite(t *testing.T, sched, worker, web string, cfg *tls.Config, mutual bool) {
	t.Helper()
	hc := rpc.WithTLS(rpc.NewHTTPClient(), cfg)
	hc.Timeout = 10 * time.Second
	hs := hostileRequests(web, sched, worker, "s1")
	counts := map[int]int{}
	for _, auth := range []string{"", "Bearer wrong-token"} {
		for _, h := range hs {
			resp, err := hc.Do(h.request(t, auth))
			if err != nil {
				t.Errorf("%s (%s): no answer: %v", h.name, h.url, err)
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			want := http.StatusUnauthorized
			if mutual && !strings.HasPrefix(h.url, web) {
				want = http.StatusForbidden
			}
			if resp.StatusCode != want {
				t.Errorf("%s (%s %s, auth %q): %d, want %d", h.name, h.method, h.url, auth, resp.StatusCode, want)
			}
			counts[resp.StatusCode]++
		}
	}
	t.Logf("%d hostile requests without the token or with a wrong one: %v", 2*len(hs), counts)
}

// computes runs a sum through the web service with token and TLS roots.
func computes(t *testing.T, web, token string, cfg *tls.Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := []phobos.Option{phobos.WithToken(token)}
	if cfg != nil {
		opts = append(opts, phobos.WithTLSConfig(cfg))
	}
	sess, err := phobos.Connect(ctx, web, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	v, err := sess.ExecuteScalar(ctx, tensor.Arange(0, 1000, 1, tensor.Chunks(7)).Sum())
	if err != nil || v != 499500 {
		t.Fatalf("a sum across the link: %v, %v", v, err)
	}
}
