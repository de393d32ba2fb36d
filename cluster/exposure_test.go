package cluster_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/internal/pki"
	"github.com/phobos-tensor/phobos/rpc"
)

// TestCheckExposure: the refusal of each combination of address, token,
// TLS and the operator's acceptance.
func TestCheckExposure(t *testing.T) {
	open, plain := cluster.Exposure{Open: true}, cluster.Exposure{PlainHTTP: true}
	cases := []struct {
		addr  string
		token string
		tls   bool
		x     cluster.Exposure
		need  string // "" for no refusal
	}{
		{"127.0.0.1:7100", "", false, cluster.Exposure{}, ""},
		{"127.8.9.10:0", "", false, cluster.Exposure{}, ""},
		{"[::1]:0", "", false, cluster.Exposure{}, ""},
		{"localhost:0", "", false, cluster.Exposure{}, ""},
		{"127.0.0.1:0", "tok", false, cluster.Exposure{}, ""},
		{"0.0.0.0:7100", "", false, cluster.Exposure{}, "token"},
		{":7100", "", false, cluster.Exposure{}, "token"},
		{"[::]:0", "", false, cluster.Exposure{}, "token"},
		{"10.1.2.3:0", "", true, cluster.Exposure{}, "token"},
		{"phobos-web:7103", "", false, cluster.Exposure{}, "token"},
		{"0.0.0.0:0", "", false, open, ""},
		{"0.0.0.0:0", "", false, plain, "token"},
		{"0.0.0.0:0", "tok", false, cluster.Exposure{}, "tls"},
		{"0.0.0.0:0", "tok", false, open, "tls"},
		{"0.0.0.0:0", "tok", false, plain, ""},
		{"0.0.0.0:0", "tok", true, cluster.Exposure{}, ""},
		{"192.168.1.5:0", "tok", true, cluster.Exposure{}, ""},
	}
	for _, c := range cases {
		err := cluster.CheckExposure(c.addr, c.token, c.tls, c.x)
		var xe *cluster.ExposureError
		switch {
		case c.need == "" && err != nil:
			t.Errorf("%s token=%q tls=%v %+v: %v, want no refusal", c.addr, c.token, c.tls, c.x, err)
		case c.need != "" && (!errors.As(err, &xe) || xe.Need != c.need):
			t.Errorf("%s token=%q tls=%v %+v: %v, want a refusal for want of %s", c.addr, c.token, c.tls, c.x, err, c.need)
		}
	}
	// Each refusal names its fixes.
	for need, flags := range map[string][]string{"token": {"--token-file", "--insecure-no-token", "127.0.0.1"}, "tls": {"--tls-cert", "phobos certs", "--insecure-no-tls"}} {
		msg := (&cluster.ExposureError{Addr: "0.0.0.0:1", Need: need}).Error()
		for _, f := range flags {
			if !strings.Contains(msg, f) {
				t.Errorf("the refusal for want of %s does not name %s: %s", need, f, msg)
			}
		}
	}
}

// TestRolesRefuseExposure: every role refuses to serve all addresses
// without a token, and with one but without TLS; each starts when the
// operator accepts that, or with certificates. Started roles are closed at
// once: nothing is sent to them here (the network-namespace test does).
func TestRolesRefuseExposure(t *testing.T) {
	ctx := context.Background()
	sp, err := cluster.StartScheduler(cluster.SchedulerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	f, err := pki.Write(t.TempDir(), pki.Loopback, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certs := rpc.TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}
	const all = "0.0.0.0:0"
	start := map[string]func(token string, files rpc.TLSFiles, x cluster.Exposure) (func(), error){
		"scheduler": func(token string, files rpc.TLSFiles, x cluster.Exposure) (func(), error) {
			p, err := cluster.StartScheduler(cluster.SchedulerConfig{Listen: all, Token: token, TLS: files, Exposure: x})
			if err != nil {
				return nil, err
			}
			return p.Close, nil
		},
		"worker": func(token string, files rpc.TLSFiles, x cluster.Exposure) (func(), error) {
			// Refused before it registers: the scheduler it names is never reached.
			p, err := cluster.StartWorker(ctx, cluster.WorkerConfig{Scheduler: "127.0.0.1:1", Listen: all, Slots: 1, SpillDir: t.TempDir(),
				Token: token, TLS: files, Exposure: x, RegisterTimeout: time.Millisecond})
			if err != nil && !errors.As(err, new(*cluster.ExposureError)) {
				return func() {}, nil // it got past the listener: not refused
			}
			if err != nil {
				return nil, err
			}
			return p.Close, nil
		},
		"web": func(token string, files rpc.TLSFiles, x cluster.Exposure) (func(), error) {
			p, err := cluster.StartWeb(cluster.WebConfig{Scheduler: sp.URL(), Listen: all, Token: token, TLS: files, Exposure: x})
			if err != nil {
				return nil, err
			}
			return p.Close, nil
		},
	}
	for role, st := range start {
		for _, c := range []struct {
			name  string
			token string
			files rpc.TLSFiles
			x     cluster.Exposure
			need  string
		}{
			{"no token", "", rpc.TLSFiles{}, cluster.Exposure{}, "token"},
			{"no token, TLS", "", certs, cluster.Exposure{}, "token"},
			{"token, plain HTTP", "tok", rpc.TLSFiles{}, cluster.Exposure{}, "tls"},
			{"no token, accepted", "", rpc.TLSFiles{}, cluster.Exposure{Open: true}, ""},
			{"token, plain HTTP accepted", "tok", rpc.TLSFiles{}, cluster.Exposure{PlainHTTP: true}, ""},
			{"token and TLS", "tok", certs, cluster.Exposure{}, ""},
		} {
			stop, err := st(c.token, c.files, c.x)
			var xe *cluster.ExposureError
			switch {
			case c.need == "" && err != nil:
				t.Errorf("%s, %s: %v, want it to start", role, c.name, err)
			case c.need != "" && (!errors.As(err, &xe) || xe.Need != c.need):
				t.Errorf("%s, %s: %v, want a refusal for want of %s", role, c.name, err, c.need)
			}
			if stop != nil {
				stop()
			}
		}
	}
}

// TestRolesRefuseBrowsers: schedulers and workers answer no request a web
// browser makes (Origin or fetch metadata), with the token or without.
func TestRolesRefuseBrowsers(t *testing.T) {
	const token = "browser-test"
	sp, ws, _ := startRoles(t, cluster.SchedulerConfig{Token: token}, nil, 1)
	for _, u := range []string{sp.URL() + "/phobos.v1.SchedulerService/ListWorkers", ws[0].URL() + "/metrics"} {
		for _, h := range []map[string]string{
			{"Origin": "http://evil.example"},
			{"Origin": "http://evil.example", "Authorization": "Bearer " + token},
			{"Sec-Fetch-Site": "cross-site", "Authorization": "Bearer " + token},
			{"Sec-Fetch-Site": "same-origin", "Authorization": "Bearer " + token},
		} {
			req, _ := http.NewRequest("POST", u, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range h {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s with %v: %d, want 403", u, h, resp.StatusCode)
			}
		}
	}
}
