package pki

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"strings"
	"testing"
	"time"
)

func TestWriteVerifies(t *testing.T) {
	dir := t.TempDir()
	f, err := Write(dir+"/certs", []string{"10.1.2.3", "::1", "phobos-web.default.svc", "*.phobos"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f.CA, f.Cert, f.Key} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(f.CA)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	for _, host := range []string{"10.1.2.3", "::1", "phobos-web.default.svc", "w0.phobos"} {
		for _, use := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
			if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: pool, KeyUsages: []x509.ExtKeyUsage{use}}); err != nil {
				t.Errorf("%s for %v: %v", host, use, err)
			}
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "10.1.2.4", Roots: pool}); err == nil {
		t.Error("a host not named verified")
	}
	// A second CA does not vouch for the first one's certificate.
	g, err := Write(dir+"/other", Loopback, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := os.ReadFile(g.CA)
	pool2 := x509.NewCertPool()
	pool2.AppendCertsFromPEM(other)
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "10.1.2.3", Roots: pool2}); err == nil {
		t.Error("another cluster's CA verified this certificate")
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, c := range []struct {
		hosts []string
		valid time.Duration
		want  string
	}{
		{nil, time.Hour, "no host"},
		{[]string{"http://x"}, time.Hour, "neither"},
		{[]string{"a.b:80"}, time.Hour, "neither"},
		{[]string{""}, time.Hour, "neither"},
		{[]string{"-a.b"}, time.Hour, "neither"},
		{[]string{"127.0.0.1"}, 0, "validity"},
	} {
		_, err := Write(t.TempDir(), c.hosts, c.valid)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: %v, want an error naming %q", c.hosts, c.valid, err, c.want)
		}
	}
}
