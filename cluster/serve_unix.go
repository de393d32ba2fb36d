package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/phobos-tensor/phobos/internal/localhttp"
	"github.com/phobos-tensor/phobos/web"
)

// unixServer serves a role's handler on a Unix socket too: a client on this
// host (the Python session that started a one-process cluster) reaches it
// without going through the TCP stack, whose overhead is a noticeable part
// of a small request's round trip. The socket is only for its owner (mode
// 0600, in a directory the caller made for it), and its requests carry the
// token as any other; they count as from this host (web.WithLocalPeer).
// Its clients are on this host, so it is served by localhttp, which does
// less per request than net/http's server.
type unixServer struct {
	path string
	srv  *localhttp.Server
}

// serveUnix listens on the socket at path (which must not exist) with h,
// sending a failure of the server to errc if it has room.
func serveUnix(path string, h http.Handler, log *slog.Logger, errc chan<- error) (*unixServer, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("unix socket %q: want an absolute path", path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("unix socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("unix socket: %w", err)
	}
	s := &unixServer{path: path, srv: &localhttp.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ConnContext:       func(ctx context.Context, _ net.Conn) context.Context { return web.WithLocalPeer(ctx) },
		Log:               log,
	}}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("unix socket server stopped", "path", path, "err", err)
			select {
			case errc <- err:
			default:
			}
		}
	}()
	return s, nil
}

// shutdown stops it as server.shutdown does, and removes the socket.
func (s *unixServer) shutdown() {
	if s == nil {
		return
	}
	stopServer(s.srv)
	_ = os.Remove(s.path)
}
