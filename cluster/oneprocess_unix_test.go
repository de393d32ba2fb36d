package cluster_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/cluster"
)

// A one-process cluster given a Unix socket serves its REST API there
// too: for its owner alone, with the token as on TCP, a program answered
// over it; the socket goes with the cluster, and a path in use is refused.
func TestOneProcessUnixSocket(t *testing.T) {
	const token = "unix-socket-test-token"
	path := filepath.Join(t.TempDir(), "web.sock")
	c, err := cluster.LaunchOneProcess(context.Background(), cluster.OneProcessConfig{Workers: 1, Memory: 64 << 20, Token: token, UnixSocket: path})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			c.Stop()
		}
	}()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: mode %v, want a socket for its owner alone (0600)", path, fi.Mode())
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}}
	// The URL's host is the TCP one's: the Host header the guard checks.
	do := func(method, p, body, tok string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, c.URL+p, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := do("POST", "/api/sessions", "", ""); code != http.StatusUnauthorized {
		t.Fatalf("no token over the socket: %d, want 401", code)
	}
	code, body := do("POST", "/api/sessions", "", token)
	if code != http.StatusCreated {
		t.Fatalf("session: %d %s", code, body)
	}
	sid := strings.Split(strings.Split(body, `"session_id":"`)[1], `"`)[0]
	prog := `{"program":{"nodes":[{"fn":"arange","args":[0,100,1]},{"fn":"multiply","args":[{"ref":0},2]},{"fn":"sum","args":[{"ref":1}]}]},"results":[2],"wait":5,"inline":65536,"release":true}`
	if code, body = do("POST", "/api/sessions/"+sid+"/programs", prog, token); code != http.StatusCreated || !strings.Contains(body, `"SUCCEEDED"`) || !strings.Contains(body, `"data":"`) {
		t.Fatalf("program over the socket: %d %s", code, body)
	}
	if _, err := cluster.LaunchOneProcess(context.Background(), cluster.OneProcessConfig{Workers: 1, Memory: 64 << 20, Token: token, UnixSocket: path}); err == nil {
		t.Fatal("a second cluster took a socket in use")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the refused cluster removed the first one's socket: %v", err)
	}
	stopped = true
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("socket left after the cluster stopped: %v", err)
	}
}
