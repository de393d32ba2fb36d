package cluster_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/internal/pki"
	"github.com/phobos-tensor/phobos/rpc"
)

// probe is GET url with hc: its status and body.
func probe(t *testing.T, hc *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// checkProbes: every role answers /healthz and /readyz with 200 through
// hc (which has no token), and nothing else without the token.
func checkProbes(t *testing.T, hc *http.Client, urls ...string) {
	t.Helper()
	for _, u := range urls {
		for path, want := range map[string]string{cluster.HealthzPath: "ok", cluster.ReadyzPath: "ready"} {
			if code, body := probe(t, hc, u+path); code != 200 || strings.TrimSpace(body) != want {
				t.Errorf("GET %s%s: %d %q, want 200 %q", u, path, code, body, want)
			}
		}
		if code, _ := probe(t, hc, u+"/metrics"); code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("GET %s/metrics without the token: %d", u, code)
		}
	}
}

// TestHealthProbes: the roles answer their probes without the token, over
// TLS without a client certificate too, while the rest stays guarded; a
// web service whose scheduler is gone is alive but not ready, and says why.
func TestHealthProbes(t *testing.T) {
	f, err := pki.Write(t.TempDir(), pki.Loopback, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	files := rpc.TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}
	sp, ws, wp := startRoles(t, cluster.SchedulerConfig{Token: "probe-token", TLS: files}, nil, 2)
	ca, err := (rpc.TLSFiles{CA: f.CA}).Client()
	if err != nil {
		t.Fatal(err)
	}
	hc := rpc.WithTLS(rpc.NewHTTPClient(), ca)
	checkProbes(t, hc, sp.URL(), ws[0].URL(), ws[1].URL(), wp.URL())

	// Plain HTTP, no token: the same answers.
	sp2, err := cluster.StartScheduler(cluster.SchedulerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	web, err := cluster.StartWeb(cluster.WebConfig{Scheduler: sp2.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	if code, body := probe(t, http.DefaultClient, web.URL()+cluster.ReadyzPath); code != 200 {
		t.Fatalf("web with its scheduler: %d %q", code, body)
	}
	sp2.Close()
	if code, body := probe(t, http.DefaultClient, web.URL()+cluster.ReadyzPath); code != http.StatusServiceUnavailable || !strings.Contains(body, "no scheduler answers") {
		t.Errorf("web without its scheduler: %d %q, want 503 naming the scheduler", code, body)
	}
	if code, _ := probe(t, http.DefaultClient, web.URL()+cluster.HealthzPath); code != 200 {
		t.Errorf("web without its scheduler is still alive: /healthz %d", code)
	}
}

// TestMutualTLSRefusesNoCertificate: over TLS, a scheduler and a worker
// refuse a client that presents no certificate of the cluster's CA, even
// with the token, and serve one that does.
func TestMutualTLSRefusesNoCertificate(t *testing.T) {
	f, err := pki.Write(t.TempDir(), pki.Loopback, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	files := rpc.TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}
	const token = "mutual-token"
	sp, ws, _ := startRoles(t, cluster.SchedulerConfig{Token: token, TLS: files}, nil, 1)
	for _, c := range []struct {
		name  string
		files rpc.TLSFiles
		want  int
	}{
		{"the CA only", rpc.TLSFiles{CA: f.CA}, http.StatusForbidden},
		{"a role's certificate", files, http.StatusOK},
	} {
		cfg, err := c.files.Client()
		if err != nil {
			t.Fatal(err)
		}
		hc := rpc.WithToken(rpc.WithTLS(rpc.NewHTTPClient(), cfg), token)
		for _, u := range []string{sp.URL(), ws[0].URL()} {
			if code, body := probe(t, hc, u+"/metrics"); code != c.want {
				t.Errorf("%s: GET %s/metrics: %d %q, want %d", c.name, u, code, body, c.want)
			}
		}
	}
	// Another cluster's certificate fails the handshake.
	g, err := pki.Write(t.TempDir(), pki.Loopback, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(g.Cert, g.Key)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := (rpc.TLSFiles{CA: f.CA}).Client()
	cfg.Certificates = []tls.Certificate{pair}
	if _, err := rpc.WithToken(rpc.WithTLS(rpc.NewHTTPClient(), cfg), token).Get(sp.URL() + "/metrics"); err == nil {
		t.Error("a certificate of another CA was accepted")
	}
}
