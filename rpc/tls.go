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

// Client is the tls.Config a role's (or a client's) requests use: the CA
// file's certificates as roots, or the system's. It is nil when neither a
// CA nor a certificate is configured (plain HTTP).
func (f TLSFiles) Client() (*tls.Config, error) {
	if f.CA == "" && !f.Enabled() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CA != "" {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("tls: CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls: CA file %s holds no PEM certificate", f.CA)
		}
		cfg.RootCAs = pool
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
