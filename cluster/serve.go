package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// server is one role's HTTP/1.1 listener: connect services and plain
// handlers share one mux, one port.
type server struct {
	ln   net.Listener
	srv  *http.Server
	url  string
	errc chan error
}

// listen opens addr (default 127.0.0.1:0, a free loopback port).
func listen(addr string, h http.Handler, log *slog.Logger) (*server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &server{
		ln: ln,
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		url:  advertisedURL(ln.Addr().(*net.TCPAddr)),
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
// (":8080", "0.0.0.0") is advertised as loopback: a single-machine cluster.
// Pass a concrete address to --listen on a multi-host cluster.
func advertisedURL(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP == nil || a.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(a.Port))
}

// advertise is the URL of an --advertise address: host, host:port or an
// http:// URL; without a port it gets the listening one.
func advertise(addr string, port int) (string, error) {
	u, err := baseURL(addr)
	if err != nil {
		return "", err
	}
	hostport := strings.TrimPrefix(u, "http://")
	if strings.Contains(hostport, "/") {
		return "", fmt.Errorf("address %q: want host[:port], not a path", addr)
	}
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		// no port (or a bare IPv6 host): add the listening one
		host := strings.Trim(hostport, "[]")
		if host == "" {
			return "", fmt.Errorf("address %q has no host", addr)
		}
		return "http://" + net.JoinHostPort(host, fmt.Sprint(port)), nil
	}
	return u, nil
}

// shutdown stops accepting, lets requests in progress finish for a moment,
// then closes.
func (s *server) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
}

// baseURL turns a --scheduler value ("127.0.0.1:7000" or a URL) into a URL.
func baseURL(addr string) (string, error) {
	if addr == "" {
		return "", errors.New("no address given")
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	if !strings.HasPrefix(addr, "http://") {
		return "", fmt.Errorf("address %q: only http:// is supported", addr)
	}
	return strings.TrimRight(addr, "/"), nil
}

func discardLogger(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}
