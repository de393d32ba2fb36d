package rpc

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRequireToken(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "in") })
	srv := httptest.NewServer(RequireToken("s3cret", ok))
	defer srv.Close()
	get := func(c *http.Client) (int, string) {
		t.Helper()
		resp, err := c.Get(srv.URL + "/api")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(NewHTTPClient()); code != 401 || !strings.Contains(body, "needs a token") {
		t.Errorf("no token: %d %s", code, body)
	}
	if code, body := get(WithToken(NewHTTPClient(), "wrong")); code != 401 || !strings.Contains(body, "wrong token") {
		t.Errorf("wrong token: %d %s", code, body)
	}
	if code, body := get(WithToken(NewHTTPClient(), "s3cret")); code != 200 || body != "in" {
		t.Errorf("right token: %d %s", code, body)
	}
	open := httptest.NewServer(RequireToken("", ok))
	defer open.Close()
	resp, err := NewHTTPClient().Get(open.URL)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("no token configured: %v %v", resp, err)
	}
	resp.Body.Close()
}

func TestLoadToken(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "token")
	if err := os.WriteFile(f, []byte("  abc  \nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := LoadToken(f); err != nil || tok != "abc" {
		t.Errorf("LoadToken(file) = %q, %v", tok, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadToken(empty); err == nil {
		t.Error("an empty token file must be an error")
	}
	if _, err := LoadToken(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing token file must be an error")
	}
	t.Setenv(TokenEnv, " fromenv ")
	if tok, err := LoadToken(""); err != nil || tok != "fromenv" {
		t.Errorf("LoadToken(env) = %q, %v", tok, err)
	}
}
