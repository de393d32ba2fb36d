// Package pki makes the certificate authority and certificates of a
// cluster's TLS: one CA per cluster, and certificates signed by it that
// serve as both server and client certificates, so the roles check each
// other (mutual TLS) and clients check the roles with the CA alone.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Files are the PEM files Write made: the CA's certificate (give it to
// every role and client), and a certificate with its key (give both to
// every role).
type Files struct {
	CA, Cert, Key string
}

// Write creates, in dir (made with mode 0700 if missing), a new CA
// (ca.pem) and a certificate signed by it (cert.pem, key.pem) for hosts:
// IP addresses and DNS names, each checked. The keys are written
// unencrypted with mode 0600; the CA's own key is not kept, so no further
// certificate can be signed by it.
func Write(dir string, hosts []string, validity time.Duration) (Files, error) {
	ips, names, err := splitHosts(hosts)
	if err != nil {
		return Files{}, err
	}
	if validity <= 0 {
		return Files{}, fmt.Errorf("pki: validity %v is not positive", validity)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Files{}, fmt.Errorf("pki: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "phobos cluster CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return Files{}, fmt.Errorf("pki: CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Files{}, fmt.Errorf("pki: CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Files{}, fmt.Errorf("pki: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "phobos role"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  ips,
		DNSNames:     names,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return Files{}, fmt.Errorf("pki: certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Files{}, fmt.Errorf("pki: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, fmt.Errorf("pki: %w", err)
	}
	f := Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}
	for _, w := range []struct {
		path, kind string
		der        []byte
	}{{f.CA, "CERTIFICATE", caDER}, {f.Cert, "CERTIFICATE", der}, {f.Key, "EC PRIVATE KEY", keyDER}} {
		b := pem.EncodeToMemory(&pem.Block{Type: w.kind, Bytes: w.der})
		if err := os.WriteFile(w.path, b, 0o600); err != nil {
			return Files{}, fmt.Errorf("pki: %w", err)
		}
	}
	return f, nil
}

// Loopback is the host list of a certificate for one machine's loopback.
var Loopback = []string{"127.0.0.1", "::1", "localhost"}

// splitHosts sorts hosts into IP addresses and DNS names, refusing what
// is neither (a URL, a port, an empty name).
func splitHosts(hosts []string) ([]net.IP, []string, error) {
	if len(hosts) == 0 {
		return nil, nil, errors.New("pki: no host to certify: name the addresses and DNS names the roles are reached at")
	}
	var ips []net.IP
	var names []string
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
			ips = append(ips, ip)
			continue
		}
		if !validName(h) {
			return nil, nil, fmt.Errorf("pki: host %q is neither an IP address nor a DNS name", h)
		}
		names = append(names, h)
	}
	return ips, names, nil
}

// validName accepts DNS names made of letters, digits, '-' and '.', with
// a leading "*." for a wildcard.
func validName(h string) bool {
	h = strings.TrimPrefix(h, "*.")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// serial is a random 127-bit serial number, as RFC 5280 asks (unique per CA).
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}
