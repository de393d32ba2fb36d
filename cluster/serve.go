package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/phobos-tensor/phobos/rpc"
)

// server is one role's HTTP/1.1 listener: connect services and plain
// handlers share one mux, one port.
type server struct {
	ln   net.Listener
	srv  *http.Server
	url  string
	errc chan error
}

// listen opens addr (default 127.0.0.1:0, a free loopback port), serving
// TLS when tlsCfg is not nil. An address other hosts can reach is refused
// without a token, or with one but without TLS, unless x accepts it
// (CheckExposure): the check runs on the address actually bound, so a name
// is judged by what it resolved to.
func listen(addr string, h http.Handler, log *slog.Logger, tlsCfg *tls.Config, token string, x Exposure) (*server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	scheme := "http"
	tcp := ln.Addr().(*net.TCPAddr)
	if err := CheckExposure(tcp.String(), token, tlsCfg != nil, x); err != nil {
		ln.Close()
		return nil, err
	}
	if tlsCfg != nil {
		ln, scheme = tls.NewListener(ln, tlsCfg), "https"
	}
	s := &server{
		ln: ln,
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		url:  advertisedURL(scheme, tcp),
		errc: make(chan error, 1),
	}
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.errc <- err
	}()
	return s, nil
}

// advertisedURL is how others reach a listener. An unspecified host
// (":8080", "0.0.0.0") is advertised as loopback here; a role that talks
// to peers on other hosts replaces it with its address on the route to
// them (towards).
func advertisedURL(scheme string, a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP == nil || a.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, fmt.Sprint(a.Port))
}

// towards is the URL others reach a listener at u (advertisedURL's) by,
// when they call from peer (a host:port or URL of the scheduler or etcd
// the role talks to): a listener on every interface advertised as loopback
// is advertised instead as this host's address on the route to peer, so a
// loopback address never reaches a peer on another host. u is returned as
// it is when listen named a host, when peer is on loopback too, or when
// no route is found.
func towards(u, listen, peer string) string {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return u
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return u
	}
	if p, err := url.Parse(peer); err == nil && p.Host != "" {
		peer = p.Host
	}
	ph, pp, err := net.SplitHostPort(peer)
	if err != nil {
		return u
	}
	if ip := net.ParseIP(ph); ph == "localhost" || (ip != nil && ip.IsLoopback()) {
		return u
	}
	// A UDP "connection" only picks the route and the source address: no
	// packet is sent.
	c, err := net.Dial("udp", net.JoinHostPort(ph, pp))
	if err != nil {
		return u
	}
	local := c.LocalAddr().(*net.UDPAddr).IP
	c.Close()
	lu, err := url.Parse(u)
	if err != nil || local.IsLoopback() {
		return u
	}
	lu.Host = net.JoinHostPort(local.String(), lu.Port())
	return lu.String()
}

// reachableFrom refuses a loopback URL registered by a peer at another
// host (peerAddr, its host:port): only that host could reach it.
func reachableFrom(u, peerAddr string) error {
	pu, err := url.Parse(u)
	if err != nil {
		return err
	}
	h := pu.Hostname()
	if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil
	}
	ph, _, err := net.SplitHostPort(peerAddr)
	if err != nil {
		return nil // an in-process call: no peer address
	}
	if ip := net.ParseIP(ph); ip == nil || ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("a worker at %s registered the loopback address %s, which other hosts cannot reach: start it with --listen or --advertise naming an address they can", ph, u)
}

// advertise is the URL of an --advertise address: host, host:port or a URL;
// without a scheme it gets the listening one, without a port the listening
// one too.
func advertise(addr string, port int, scheme string) (string, error) {
	u, err := baseURL(addr, scheme == "https")
	if err != nil {
		return "", err
	}
	scheme, hostport, _ := strings.Cut(u, "://")
	if strings.Contains(hostport, "/") {
		return "", fmt.Errorf("address %q: want host[:port], not a path", addr)
	}
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		// no port (or a bare IPv6 host): add the listening one
		host := strings.Trim(hostport, "[]")
		if host == "" {
			return "", fmt.Errorf("address %q has no host", addr)
		}
		return scheme + "://" + net.JoinHostPort(host, fmt.Sprint(port)), nil
	}
	return u, nil
}

// shutdown stops accepting, lets requests in progress finish for a moment,
// then closes.
func (s *server) shutdown() {
	stopServer(s.srv)
}

// stoppable is a server stopServer stops: net/http's, or localhttp's for
// the session's socket.
type stoppable interface {
	Shutdown(ctx context.Context) error
	Close() error
}

// stopServer shuts srv down, giving requests in progress 3 s to finish, and
// closes it if they do not.
func stopServer(srv stoppable) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
}

// baseURL turns a --scheduler value ("127.0.0.1:7000" or a URL) into a URL;
// an address without a scheme gets https:// when secure (TLS is set up),
// else http://.
func baseURL(addr string, secure bool) (string, error) {
	if addr == "" {
		return "", errors.New("no address given")
	}
	if !strings.Contains(addr, "://") {
		if secure {
			addr = "https://" + addr
		} else {
			addr = "http://" + addr
		}
	}
	if !strings.HasPrefix(addr, "http://") && !strings.HasPrefix(addr, "https://") {
		return "", fmt.Errorf("address %q: only http:// and https:// are supported", addr)
	}
	return strings.TrimRight(addr, "/"), nil
}

// reachableURL checks a URL a worker registers under: scheme://host:port,
// nothing else, so the scheduler and peers can dial it.
func reachableURL(addr string) error {
	u, err := url.Parse(addr)
	switch {
	case err != nil:
		return err
	case u.Hostname() == "" || u.Port() == "":
		return fmt.Errorf("%q names no host and port", addr)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil || (u.Path != "" && u.Path != "/"):
		return fmt.Errorf("%q: want scheme://host:port only", addr)
	}
	return nil
}

func discardLogger(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// roleHTTP is a role's server TLS setup (nil: plain HTTP) and the client it
// makes its own requests with: TLS roots from files and the cluster token.
// A mutual server (a role only other roles call) asks its clients for a
// certificate of the cluster's CA.
func roleHTTP(token string, files rpc.TLSFiles, mutual bool) (*tls.Config, *http.Client, error) {
	serverConfig := files.Server
	if mutual {
		serverConfig = files.ServerMutual
	}
	srv, err := serverConfig()
	if err != nil {
		return nil, nil, err
	}
	hc, err := NewClient(token, files)
	return srv, hc, err
}

// NewClient is an HTTP client for a cluster: its TLS roots (files.CA, or
// the system's) and its token ("" for none) on every request.
func NewClient(token string, files rpc.TLSFiles) (*http.Client, error) {
	cli, err := files.Client()
	if err != nil {
		return nil, err
	}
	return rpc.WithToken(rpc.WithTLS(rpc.NewHTTPClient(), cli), token), nil
}
