package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/phobos-tensor/phobos/internal/pki"
)

const certsUsage = `
TLS for a cluster on a network (roles refuse other hosts' addresses without it):
  phobos certs --dir DIR --hosts H[,H...] [--days N]
                                  a new CA (DIR/ca.pem) and a certificate with
                                  its key (DIR/cert.pem, DIR/key.pem) naming the
                                  hosts (addresses and DNS names) every role is
                                  reached at; give every role --tls-cert,
                                  --tls-key and --tls-ca, and clients the CA
`

// certsCmd writes a cluster's CA and role certificate.
func certsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("phobos certs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "directory to write ca.pem, cert.pem and key.pem in (made 0700 if missing)")
	var hosts listFlag
	fs.Var(&hosts, "hosts", "addresses and DNS names the roles are reached at (comma-separated or repeated); loopback is always included")
	days := fs.Int("days", 365, "validity in days")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if *dir == "" || fs.NArg() > 0 || *days < 1 {
		fmt.Fprintf(stderr, "phobos certs: want --dir DIR [--hosts H,...] [--days N >= 1]\n")
		return exitUsage
	}
	f, err := pki.Write(*dir, append(hosts.split(), pki.Loopback...), time.Duration(*days)*24*time.Hour)
	if err != nil {
		fmt.Fprintf(stderr, "phobos certs: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "ca %s\ncert %s\nkey %s\n", f.CA, f.Cert, f.Key)
	return 0
}

// clusterCerts makes the TLS files of a cluster that listens where other
// hosts reach it and was given none: a CA of its own in a new private
// directory under parent, naming loopback (where its other roles listen),
// the listen address, or every address of this machine when it listens on
// all of them, and the host name.
func clusterCerts(parent, listen string, days int) (pki.Files, string, error) {
	hosts := []string{}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = listen
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		hosts = append(hosts, host)
	} else {
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return pki.Files{}, "", fmt.Errorf("listing this machine's addresses for its certificate: %w", err)
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
				hosts = append(hosts, n.IP.String())
			}
		}
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		hosts = append(hosts, name)
	}
	dir, err := os.MkdirTemp(parent, "phobos-tls-")
	if err != nil {
		return pki.Files{}, "", err
	}
	f, err := pki.Write(dir, append(hosts, pki.Loopback...), time.Duration(days)*24*time.Hour)
	if err != nil {
		os.RemoveAll(dir)
		return pki.Files{}, "", err
	}
	return f, dir, nil
}
