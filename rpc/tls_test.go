package rpc

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/internal/pki"
)

func TestTLSFiles(t *testing.T) {
	dir := t.TempDir()
	f, err := pki.Write(dir, pki.Loopback, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	files := TLSFiles{Cert: f.Cert, Key: f.Key, CA: f.CA}
	srvCfg, err := files.Server()
	if err != nil || srvCfg == nil {
		t.Fatalf("Server: %v, %v", srvCfg, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure") }))
	srv.TLS = srvCfg
	srv.StartTLS()
	defer srv.Close()

	cliCfg, err := files.Client()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := WithTLS(NewHTTPClient(), cliCfg).Get(srv.URL)
	if err != nil {
		t.Fatalf("GET with the CA: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "secure" {
		t.Errorf("body %q", b)
	}
	if _, err := NewHTTPClient().Get(srv.URL); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("GET without the CA: %v, want a certificate error", err)
	}

	if cfg, err := (TLSFiles{}).Server(); cfg != nil || err != nil {
		t.Errorf("no certificate: %v, %v; want plain HTTP", cfg, err)
	}
	if cfg, err := (TLSFiles{}).Client(); cfg != nil || err != nil {
		t.Errorf("no CA, no certificate: %v, %v; want plain HTTP", cfg, err)
	}
	if _, err := (TLSFiles{Cert: f.Cert}).Server(); err == nil {
		t.Error("a certificate without its key must be an error")
	}
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (TLSFiles{CA: bad}).Client(); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a CA file without certificates: %v", err)
	}
	if _, err := (TLSFiles{Cert: bad, Key: bad}).Server(); err == nil {
		t.Error("a certificate file without a certificate must be an error")
	}
}
