package cluster

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/phobos-tensor/phobos/rpc"
)

// Loopback carries the requests that the roles of one process make to
// each other (the web service to the scheduler, the scheduler to its
// workers, a worker's reports and peer reads) straight to the handler of
// the role they are addressed to, instead of through a TCP connection:
// the roles run the same code as in separate processes (the same connect
// clients and services, the same middleware), only the transport differs.
// A request to an address no role of this process serves goes out on the
// network as before. The roles still listen, for clients outside.
//
// A nil *Loopback routes nothing: every role takes one, nil when it runs
// alone in its process.
type Loopback struct {
	auth string // the Authorization header a role's own client would send

	mu     sync.RWMutex
	routes map[string]http.Handler // by host:port
	svcs   map[string]services     // by host:port
}

// NewLoopback is the routing of one process's roles; token is the
// cluster's shared secret ("" for none), which their requests carry as
// they would on the network.
func NewLoopback(token string) *Loopback {
	l := &Loopback{routes: map[string]http.Handler{}, svcs: map[string]services{}}
	if token != "" {
		l.auth = "Bearer " + token
	}
	return l
}

// serve routes requests to the role at base (a URL) to h, and calls of
// its connect services (s) to them.
func (l *Loopback) serve(base string, h http.Handler, s services) {
	if l == nil {
		return
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return
	}
	l.mu.Lock()
	l.routes[u.Host] = h
	l.svcs[u.Host] = s
	l.mu.Unlock()
}

// drop stops routing to the role at base: it is stopping, and requests to
// it go to its (closed) address as they would from another process.
func (l *Loopback) drop(base string) {
	if l == nil {
		return
	}
	if u, err := url.Parse(base); err == nil {
		l.mu.Lock()
		delete(l.routes, u.Host)
		delete(l.svcs, u.Host)
		l.mu.Unlock()
	}
}

func (l *Loopback) route(host string) http.Handler {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.routes[host]
}

// client is c with requests to this process's roles routed to them; c
// itself when l is nil.
func (l *Loopback) client(c *http.Client) *http.Client {
	if l == nil {
		return c
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out := *c
	out.Transport = &loopbackTransport{l: l, next: next}
	return &out
}

type loopbackTransport struct {
	l    *Loopback
	next http.RoundTripper
}

// RoundTrip serves r with the handler of the role it is addressed to, in
// a goroutine of its own (the handler may stream its answer, as a chunk
// read does, or hold it, as a long-poll does); the answer's body is a
// pipe from that handler.
func (t *loopbackTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := t.l.route(r.URL.Host)
	if h == nil || r.URL.Scheme != "http" {
		return t.next.RoundTrip(r)
	}
	sr := r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	sr.RequestURI = r.URL.RequestURI()
	sr.RemoteAddr = "127.0.0.1:0"
	if sr.Host == "" {
		sr.Host = r.URL.Host
	}
	if t.l.auth != "" {
		sr.Header.Set("Authorization", t.l.auth)
	}
	if rpc.WantsBufferedAnswer(r.Context()) {
		return serveBuffered(h, sr, r)
	}
	pr, pw := io.Pipe()
	w := &pipeResponse{header: http.Header{}, body: pw, ready: make(chan struct{})}
	go w.run(h, sr)
	select {
	case <-w.ready:
	case <-r.Context().Done():
		pr.CloseWithError(r.Context().Err())
		return nil, r.Context().Err()
	}
	if w.failed != nil {
		pr.Close()
		return nil, w.failed
	}
	return loopbackResponse(r, w.status, w.sent, pr, -1), nil
}

// loopbackResponse is the answer to r, served in process, with the status
// and header the handler wrote and its body (length -1: unknown).
func loopbackResponse(r *http.Request, status int, header http.Header, body io.ReadCloser, length int64) *http.Response {
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          body,
		ContentLength: length,
		Request:       r,
	}
}

// pipeResponse is the http.ResponseWriter of a request served in
// process: the status and header are handed over once written, the body
// goes through the pipe as written.
type pipeResponse struct {
	header http.Header
	sent   http.Header
	status int
	body   *io.PipeWriter
	ready  chan struct{}
	failed error // the handler panicked before writing a header
}

func (w *pipeResponse) Header() http.Header { return w.header }

func (w *pipeResponse) WriteHeader(code int) {
	if w.sent != nil {
		return
	}
	w.status, w.sent = code, w.header.Clone()
	close(w.ready)
}

func (w *pipeResponse) Write(b []byte) (int, error) {
	if w.sent == nil {
		w.WriteHeader(http.StatusOK)
	}
	return w.body.Write(b)
}

// Flush implements http.Flusher: the pipe holds nothing back.
func (w *pipeResponse) Flush() {
	if w.sent == nil {
		w.WriteHeader(http.StatusOK)
	}
}

func (w *pipeResponse) run(h http.Handler, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			// As net/http does for a handler that panics: the client
			// sees the request fail, the process goes on.
			err := fmt.Errorf("cluster: in-process handler for %s panicked: %v", r.URL.Path, p)
			if w.sent == nil {
				w.failed = err
				w.sent = http.Header{}
				close(w.ready)
			}
			w.body.CloseWithError(err)
			return
		}
		if w.sent == nil {
			w.WriteHeader(http.StatusOK)
		}
		w.body.Close()
	}()
	defer r.Body.Close()
	h.ServeHTTP(w, r)
}
