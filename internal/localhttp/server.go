// Package localhttp serves HTTP/1.1 to clients on this host (a session's
// Unix socket) with the same handlers net/http's server runs, doing less
// per request.
//
// For every request, net/http's server starts a goroutine that reads the
// connection in the background (to see the client leave), arms it, and at
// the end wakes it with a read deadline in the past and waits for it; it
// also makes a context and a response of several buffers. A small request
// from a client on this host is answered in well under a millisecond, so
// those hand-offs are a visible part of it. Here a request is read by
// net/http's own parser (http.ReadRequest), and the connection is watched
// for the client leaving only once a handler has run for WatchAfter:
// requests answered sooner never start the watch.
//
// What the server refuses is what net/http's refuses: headers over
// MaxHeaderBytes (431), a malformed request or header (400), a protocol
// other than HTTP/1.x (505), an HTTP/1.1 request without a Host.
package localhttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultWatchAfter is how long a handler runs before its client is watched
// when Server.WatchAfter is 0.
const DefaultWatchAfter = 2 * time.Millisecond

// maxDiscard is the most of a request body a handler left unread that is
// read and dropped to keep the connection; over it the connection closes.
const maxDiscard = 256 << 10

// Server serves HTTP/1.1 on listeners. Its fields are set before Serve.
type Server struct {
	// Handler answers every request.
	Handler http.Handler
	// ReadHeaderTimeout bounds reading a request's head, from its first
	// byte (0: no bound).
	ReadHeaderTimeout time.Duration
	// MaxHeaderBytes bounds a request's head (0: http.DefaultMaxHeaderBytes).
	MaxHeaderBytes int
	// ConnContext, if set, gives the context of a new connection's
	// requests.
	ConnContext func(ctx context.Context, c net.Conn) context.Context
	// WatchAfter is how long a handler runs before the connection is
	// watched for the client leaving, which cancels the request's
	// context (0: DefaultWatchAfter).
	WatchAfter time.Duration
	// Log, if set, gets handler panics.
	Log *slog.Logger

	// peeked, in tests, hears what each watch's peek returned.
	peeked func(error)

	mu       sync.Mutex
	lns      map[net.Listener]struct{}
	conns    map[*conn]bool // true while a request is in progress
	shutting bool
	idle     chan struct{} // closed when shutting and no connection is left
}

// ErrServerClosed is what Serve returns after Shutdown or Close.
var ErrServerClosed = http.ErrServerClosed

// Serve accepts connections on ln and serves each on its own goroutine,
// until ln fails or the server is shut down (then ErrServerClosed). ln is
// closed when Serve returns.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.shutting {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	if s.lns == nil {
		s.lns = map[net.Listener]struct{}{}
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lns, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var delay time.Duration
	for {
		rwc, err := ln.Accept()
		if err != nil {
			if s.closing() {
				return ErrServerClosed
			}
			// Out of descriptors and the like pass: wait and try again,
			// as net/http's server does.
			var te interface{ Temporary() bool }
			if errors.As(err, &te) && te.Temporary() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		c := s.newConn(rwc)
		if c == nil {
			rwc.Close()
			return ErrServerClosed
		}
		go c.serve()
	}
}

func (s *Server) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shutting
}

// Shutdown stops accepting, closes the idle connections, and waits until
// the requests in progress are answered or ctx is done (then ctx's error).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutting = true
	for ln := range s.lns {
		ln.Close()
	}
	for c, busy := range s.conns {
		if !busy {
			c.rwc.Close()
		}
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
		if len(s.conns) == 0 {
			close(s.idle)
		}
	}
	idle := s.idle
	s.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting and closes every connection now.
func (s *Server) Close() error {
	s.mu.Lock()
	s.shutting = true
	for ln := range s.lns {
		ln.Close()
	}
	for c := range s.conns {
		c.rwc.Close()
	}
	s.mu.Unlock()
	return nil
}

// newConn registers a connection; nil when the server is shutting down.
func (s *Server) newConn(rwc net.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutting {
		return nil
	}
	if s.conns == nil {
		s.conns = map[*conn]bool{}
	}
	c := &conn{srv: s, rwc: rwc}
	s.conns[c] = false
	return c
}

// setBusy marks c as answering a request (or not); false when c is to
// close instead (the server is shutting down and c is idle).
func (s *Server) setBusy(c *conn, busy bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutting && !busy {
		return false
	}
	s.conns[c] = busy
	return true
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	if s.idle != nil && len(s.conns) == 0 {
		select {
		case <-s.idle:
		default:
			close(s.idle)
		}
	}
}

func (s *Server) maxHeaderBytes() int64 {
	if s.MaxHeaderBytes > 0 {
		return int64(s.MaxHeaderBytes)
	}
	return http.DefaultMaxHeaderBytes
}

func (s *Server) watchAfter() time.Duration {
	if s.WatchAfter > 0 {
		return s.WatchAfter
	}
	return DefaultWatchAfter
}

// conn is one client connection, served by one goroutine.
type conn struct {
	srv *Server
	rwc net.Conn
	lr  io.LimitedReader // rwc, bounded while a head is read
	br  *bufio.Reader
	bw  *bufio.Writer

	watch watch
}

const noLimit = 1<<63 - 1

func (c *conn) serve() {
	defer c.srv.forget(c)
	defer c.rwc.Close()
	ctx := context.Background()
	if c.srv.ConnContext != nil {
		ctx = c.srv.ConnContext(ctx, c.rwc)
	}
	c.lr = io.LimitedReader{R: c.rwc, N: noLimit}
	c.br = bufio.NewReader(&c.lr)
	c.bw = bufio.NewWriterSize(c.rwc, 4<<10)
	// A Unix socket's client is unnamed: "@", as the kernel shows it.
	remote := "@"
	if a := c.rwc.RemoteAddr(); a != nil && a.String() != "" {
		remote = a.String()
	}
	for {
		// Idle until the next request's first byte, without a bound, as
		// net/http's server without an IdleTimeout. What the reader takes
		// from here to the head's end is bounded (net/http's server
		// bounds it the same way, with the same slack).
		c.lr.N = c.srv.maxHeaderBytes() + 4096
		if _, err := c.br.Peek(1); err != nil {
			return
		}
		if !c.srv.setBusy(c, true) {
			return
		}
		req, err := c.readRequest()
		if err != nil {
			c.refuse(err)
			return
		}
		req.RemoteAddr = remote
		keep := c.answer(ctx, req)
		if !keep || !c.srv.setBusy(c, false) {
			return
		}
	}
}

// readRequest reads a request's head within the server's bounds.
func (c *conn) readRequest() (*http.Request, error) {
	if d := c.srv.ReadHeaderTimeout; d > 0 {
		c.rwc.SetReadDeadline(time.Now().Add(d))
	}
	req, err := http.ReadRequest(c.br)
	hitLimit := c.lr.N <= 0
	c.lr.N = noLimit
	if c.srv.ReadHeaderTimeout > 0 {
		c.rwc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		if hitLimit {
			return nil, errTooLarge
		}
		return nil, err
	}
	if req.ProtoMajor != 1 {
		return nil, errVersion
	}
	if req.ProtoAtLeast(1, 1) && req.Host == "" && req.Method != http.MethodConnect {
		return nil, badRequest("missing required Host header")
	}
	if err := checkHeader(req.Header); err != nil {
		return nil, err
	}
	return req, nil
}

var (
	errTooLarge = errors.New("request header too large")
	errVersion  = errors.New("unsupported protocol version")
)

type badRequest string

func (e badRequest) Error() string { return string(e) }

// refuse answers a request that could not be read, as net/http's server
// does, and the connection closes. A client that left or went quiet gets
// nothing.
func (c *conn) refuse(err error) {
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) && ne.Timeout() {
		return
	}
	msg := "400 Bad Request"
	switch {
	case errors.Is(err, errTooLarge):
		msg = "431 Request Header Fields Too Large"
	case errors.Is(err, errVersion):
		msg = "505 HTTP Version Not Supported"
	default:
		var br badRequest
		if errors.As(err, &br) {
			msg += ": " + string(br)
		}
	}
	c.rwc.SetWriteDeadline(time.Now().Add(time.Second))
	io.WriteString(c.rwc, "HTTP/1.1 "+msg+"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"+msg)
}
