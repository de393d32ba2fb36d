package rpc

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
)

// TLSFiles names the PEM files of a role's TLS setup. Cert and Key are the
// role's own certificate and key (a server needs both); CA is the
// certificate authority the other roles' certificates are checked against
// ("" trusts the system's roots).
type TLSFiles struct {
	Cert, Key, CA string
}

// Enabled reports whether a certificate (and so TLS serving) is configured.
func (f TLSFiles) Enabled() bool { return f.Cert != "" || f.Key != "" }

// Server is the tls.Config a role serves with, or nil without a
// certificate.
func (f TLSFiles) Server() (*tls.Config, error) {
	if !f.Enabled() {
		return nil, nil
	}
	if f.Cert == "" || f.Key == "" {
		return nil, errors.New("tls: give both a certificate and its key")
	}
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// ServerMutual is Server for the roles only other roles call (schedulers
// and workers): with a CA file, a certificate a client presents must be
// one the CA signed (checked at the handshake), and RequireClientCert
// refuses requests that came without one, so a host that holds the token
// but not a role's certificate is refused. Health probes, which carry no
// certificate, still get through to the paths left outside that guard.
// Without a CA it is Server.
func (f TLSFiles) ServerMutual() (*tls.Config, error) {
	cfg, err := f.Server()
	if err != nil || cfg == nil || f.CA == "" {
		return cfg, err
	}
	pool, err := f.caPool()
	if err != nil {
		return nil, err
	}
	cfg.ClientCAs = pool
	cfg.ClientAuth = tls.VerifyClientCertIfGiven
	return cfg, nil
}

// Mutual reports whether ServerMutual asks clients for certificates.
func (f TLSFiles) Mutual() bool { return f.Enabled() && f.CA != "" }

// RequireClientCert serves h only to requests that came over TLS with a
// client certificate the handshake verified (ServerMutual); others get
// 403. With mutual false it is h.
func RequireClientCert(mutual bool, h http.Handler) http.Handler {
	if !mutual {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "{\"error\":%q}\n", "this Phobos role serves other roles only: present a certificate of the cluster's CA")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// caPool reads the CA file's certificates.
func (f TLSFiles) caPool() (*x509.CertPool, error) {
	pem, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, fmt.Errorf("tls: CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls: CA file %s holds no PEM certificate", f.CA)
	}
	return pool, nil
}

// Client is the tls.Config a role's (or a client's) requests use: the CA
// file's certificates as roots, or the system's, and the certificate, when
// one is given, presented to servers that ask for one (ServerMutual). It is
// nil when neither a CA nor a certificate is configured (plain HTTP).
func (f TLSFiles) Client() (*tls.Config, error) {
	if f.CA == "" && !f.Enabled() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CA != "" {
		pool, err := f.caPool()
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if f.Cert != "" && f.Key != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("tls: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// WithTLS makes c verify servers with cfg (c is changed and returned); a
// nil cfg leaves c alone. Call it before WithToken.
func WithTLS(c *http.Client, cfg *tls.Config) *http.Client {
	if cfg == nil {
		return c
	}
	if t, ok := c.Transport.(*http.Transport); ok {
		t.TLSClientConfig = cfg
		return c
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = cfg
	c.Transport = t
	return c
}
