package cluster

import (
	"fmt"
	"net"
	"strings"
)

// Exposure is what an operator accepts when a role serves an address other
// hosts can reach. By default a role refuses such an address without a
// token, and with a token but without TLS.
type Exposure struct {
	// Open lets a role serve a non-loopback address without a token:
	// anyone who reaches the port may submit graphs, read results and use
	// the files under the workers' data roots (--insecure-no-token).
	Open bool
	// PlainHTTP lets a role serve a non-loopback address with a token but
	// over plain HTTP, where the token crosses the network in the clear
	// (--insecure-no-tls).
	PlainHTTP bool
}

// ExposureError is a role refusing to serve an address other hosts can
// reach with the settings it was given.
type ExposureError struct {
	Addr string // the address asked for
	Need string // "token" or "tls"
}

func (e *ExposureError) Error() string {
	if e.Need == "token" {
		return fmt.Sprintf("refusing to serve %s without a token: any host that reaches it could run graphs and read results and files; "+
			"give one (--token-file FILE or $PHOBOS_TOKEN), listen on a loopback address (127.0.0.1), "+
			"or accept an open cluster with --insecure-no-token", e.Addr)
	}
	return fmt.Sprintf("refusing to serve %s over plain HTTP: the token would cross the network in the clear; "+
		"give certificates (--tls-cert, --tls-key and --tls-ca; phobos certs makes them), "+
		"or accept plain HTTP with --insecure-no-tls", e.Addr)
}

// CheckExposure is the refusal a role gives before serving addr
// (host:port) with token ("" for none) and TLS on or off: nil on a
// loopback address, and elsewhere nil only when a token and TLS are set or
// the operator accepted going without them.
func CheckExposure(addr, token string, tls bool, x Exposure) error {
	if !Exposed(addr) {
		return nil
	}
	if token == "" && !x.Open {
		return &ExposureError{Addr: addr, Need: "token"}
	}
	if token != "" && !tls && !x.PlainHTTP {
		return &ExposureError{Addr: addr, Need: "tls"}
	}
	return nil
}

// Exposed reports whether a listener on addr (host:port, or a host) can
// be reached from other hosts: anything but a loopback IP address or the
// name localhost. An empty host or 0.0.0.0 listens everywhere, and a name
// is taken as reachable, since what it resolves to may change.
func Exposed(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}
