package localhttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// bound is how long a test waits for something that should happen at once.
const bound = 10 * time.Second

// serve starts s on a Unix socket in a test directory; its path.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no Unix sockets: %v", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-errc; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return path
}

// client is net/http's client on the socket at path: its checks of what
// the server sends are the strict ones.
func client(path string) *http.Client {
	return &http.Client{Timeout: bound, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
}

func get(t *testing.T, c *http.Client, method, url string, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: %v", method, url, err)
	}
	return resp, string(b)
}

// The framings a handler can ask for reach net/http's client whole, on one
// kept-alive connection.
func TestFramings(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 3*holdMax/16+7)
	var conns sync.Map
	s := &Server{
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			conns.Store(c, true)
			return ctx
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			switch r.URL.Path {
			case "/small": // held whole: sent with its length
				fmt.Fprintf(w, "got %d bytes: %s", len(b), b)
			case "/length":
				w.Header().Set("Content-Length", "5")
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, "hello")
			case "/big": // over what is held: chunked
				io.WriteString(w, big)
			case "/flushed":
				io.WriteString(w, "part one,")
				w.(http.Flusher).Flush()
				io.WriteString(w, "part two")
			case "/empty":
			case "/nocontent":
				w.WriteHeader(http.StatusNoContent)
				if _, err := io.WriteString(w, "x"); !errors.Is(err, http.ErrBodyNotAllowed) {
					t.Errorf("a body on a 204: %v", err)
				}
			case "/error":
				http.Error(w, "no such thing", http.StatusNotFound)
			}
		}),
	}
	path := serve(t, s)
	c := client(path)
	cases := []struct {
		method, path, body string
		code               int
		want               string
		length             int64
		chunked            bool
	}{
		{"POST", "/small", "abc", 200, "got 3 bytes: abc", 16, false},
		{"GET", "/length", "", 201, "hello", 5, false},
		{"GET", "/big", "", 200, big, -1, true},
		{"GET", "/flushed", "", 200, "part one,part two", -1, true},
		{"GET", "/empty", "", 200, "", 0, false},
		{"GET", "/nocontent", "", 204, "", 0, false},
		{"GET", "/error", "", 404, "no such thing\n", 14, false},
		{"HEAD", "/length", "", 201, "", 5, false},
		{"POST", "/small", strings.Repeat("y", 100000), 200, "got 100000 bytes: " + strings.Repeat("y", 100000), -1, true},
	}
	for _, tc := range cases {
		var body io.Reader
		if tc.body != "" {
			body = strings.NewReader(tc.body)
		}
		resp, got := get(t, c, tc.method, "http://phobos"+tc.path, body)
		if resp.StatusCode != tc.code || got != tc.want || resp.ContentLength != tc.length {
			t.Errorf("%s %s: %d, %d bytes (length %d), want %d, %d bytes (length %d)", tc.method, tc.path,
				resp.StatusCode, len(got), resp.ContentLength, tc.code, len(tc.want), tc.length)
		}
		if chunked := len(resp.TransferEncoding) > 0; chunked != tc.chunked {
			t.Errorf("%s %s: chunked %v, want %v", tc.method, tc.path, chunked, tc.chunked)
		}
		if resp.Header.Get("Date") == "" {
			t.Errorf("%s %s: no Date", tc.method, tc.path)
		}
	}
	n := 0
	conns.Range(func(_, _ any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d connections for %d requests, want 1 kept alive", n, len(cases))
	}
}

// rawConn is a connection to path for writing requests by hand.
func rawConn(t *testing.T, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(bound))
	return c, bufio.NewReader(c)
}

func readResponse(t *testing.T, br *bufio.Reader, method string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading a response's body: %v", err)
	}
	return resp, string(b)
}

// What net/http's server refuses is refused, with the same status, and the
// server goes on serving.
func TestRefusals(t *testing.T) {
	s := &Server{MaxHeaderBytes: 1 << 10, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})}
	path := serve(t, s)
	cases := []struct{ req, status string }{
		{"GET / HTTP/1.1\r\n\r\n", "400 Bad Request: missing required Host header"},
		{"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", "400 Bad Request"},
		{"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 8<<10) + "\r\n\r\n", "431 Request Header Fields Too Large"},
		{"GET / HTTP/2.0\r\nHost: x\r\n\r\n", "505 HTTP Version Not Supported"},
		{"NOT A REQUEST\r\n\r\n", "400 Bad Request"},
		{"POST / HTTP/1.1\r\nHost: x\r\nExpect: something\r\nContent-Length: 3\r\n\r\nabc", "417 Expectation Failed"},
	}
	for _, tc := range cases {
		c, br := rawConn(t, path)
		io.WriteString(c, tc.req)
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("%q: %v", tc.req[:min(len(tc.req), 40)], err)
		}
		got := strings.TrimSpace(strings.TrimPrefix(line, "HTTP/1.1 "))
		rest, _ := io.ReadAll(br)
		if !strings.HasPrefix(got, strings.SplitN(tc.status, ":", 2)[0]) || !strings.Contains(got+string(rest), tc.status) {
			t.Errorf("%q: answered %q, want %q", tc.req[:min(len(tc.req), 40)], got+string(rest), tc.status)
		}
	}
	_, body := get(t, client(path), "GET", "http://phobos/", nil)
	if body != "ok" {
		t.Errorf("after the refusals: %q", body)
	}
}

// A body the handler left unread is skipped, and the next request on the
// connection is read where it starts; a body too long to skip closes the
// connection after the answer.
func TestUnreadBody(t *testing.T) {
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Path)
	})}
	path := serve(t, s)
	c, br := rawConn(t, path)
	fmt.Fprintf(c, "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n%s", strings.Repeat("z", 1000))
	fmt.Fprintf(c, "POST /two HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
	fmt.Fprintf(c, "GET /three HTTP/1.1\r\nHost: x\r\n\r\n")
	for _, want := range []string{"/one", "/two", "/three"} {
		if resp, got := readResponse(t, br, "GET"); got != want || resp.Close {
			t.Errorf("got %q (close %v), want %q kept alive", got, resp.Close, want)
		}
	}
	go fmt.Fprintf(c, "POST /huge HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", 2*maxDiscard, strings.Repeat("z", 2*maxDiscard))
	resp, got := readResponse(t, br, "GET")
	if got != "/huge" || !resp.Close {
		t.Errorf("huge body: %q, close %v; want /huge and the connection closed", got, resp.Close)
	}
}

// A handler that outlives WatchAfter sees its client leave (its context is
// cancelled); one whose client sent its next request already does not, and
// that request is answered after it.
func TestClientLeaves(t *testing.T) {
	entered := make(chan string, 4)
	release := make(chan struct{})
	cancelled := make(chan string, 4)
	peeked := make(chan error, 16)
	s := &Server{WatchAfter: time.Microsecond, peeked: func(err error) { peeked <- err }, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		entered <- r.URL.Path
		select {
		case <-r.Context().Done():
			cancelled <- r.URL.Path
		case <-release:
		case <-time.After(bound):
		}
		io.WriteString(w, r.URL.Path)
	})}
	path := serve(t, s)

	c, br := rawConn(t, path)
	io.WriteString(c, "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhiGET /second HTTP/1.1\r\nHost: x\r\n\r\n")
	if p := <-entered; p != "/first" {
		t.Fatalf("entered %s", p)
	}
	// The watch sees /second's bytes; they are the next request, not a
	// client gone.
	if err := <-peeked; err != nil {
		t.Fatalf("the peek at a pipelined request: %v", err)
	}
	select {
	case p := <-cancelled:
		t.Fatalf("%s cancelled while its client is there", p)
	default:
	}
	release <- struct{}{}
	if _, got := readResponse(t, br, "GET"); got != "/first" {
		t.Fatalf("got %q", got)
	}
	if p := <-entered; p != "/second" {
		t.Fatalf("entered %s", p)
	}
	release <- struct{}{}
	if _, got := readResponse(t, br, "GET"); got != "/second" {
		t.Fatalf("got %q", got)
	}

	// A client that goes away.
	c2, _ := rawConn(t, path)
	io.WriteString(c2, "GET /gone HTTP/1.1\r\nHost: x\r\n\r\n")
	if p := <-entered; p != "/gone" {
		t.Fatalf("entered %s", p)
	}
	c2.Close()
	wantCancelled(t, cancelled, "/gone", "a client that left")

	// A client that only closes its side: the handler is cancelled, and
	// what it answers still reaches the client.
	c3, br3 := rawConn(t, path)
	io.WriteString(c3, "GET /halfclosed HTTP/1.1\r\nHost: x\r\n\r\n")
	if p := <-entered; p != "/halfclosed" {
		t.Fatalf("entered %s", p)
	}
	if err := c3.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	wantCancelled(t, cancelled, "/halfclosed", "a client that closed its side")
	if resp, got := readResponse(t, br3, "GET"); got != "/halfclosed" || !resp.Close {
		t.Errorf("half-closed client got %q (close %v), want its answer and the connection closed", got, resp.Close)
	}
}

// Expect: 100-continue is answered when the handler reads the body.
func TestExpectContinue(t *testing.T) {
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(bytes.ToUpper(b))
	})}
	path := serve(t, s)
	c, br := rawConn(t, path)
	io.WriteString(c, "PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("got %q, %v; want 100 Continue", line, err)
	}
	if blank, _ := br.ReadString('\n'); blank != "\r\n" {
		t.Fatalf("got %q after 100 Continue", blank)
	}
	io.WriteString(c, "abc")
	if _, got := readResponse(t, br, "PUT"); got != "ABC" {
		t.Errorf("got %q", got)
	}
}

// wantCancelled waits (within bound) for the handler of path, whose client
// is who, to be cancelled.
func wantCancelled(t *testing.T, cancelled <-chan string, path, who string) {
	t.Helper()
	select {
	case p := <-cancelled:
		if p != path {
			t.Fatalf("cancelled %s, want %s", p, path)
		}
	case <-time.After(bound):
		t.Fatalf("the handler of %s was not cancelled", who)
	}
}

// A handler's panic closes its connection without an answer; the server
// goes on serving.
func TestHandlerPanic(t *testing.T) {
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic("a handler's bug")
		}
		io.WriteString(w, "fine")
	})}
	path := serve(t, s)
	c, br := rawConn(t, path)
	io.WriteString(c, "GET /panic HTTP/1.1\r\nHost: x\r\n\r\n")
	if b, err := io.ReadAll(br); err != nil || len(b) != 0 {
		t.Errorf("after a panic: %q, %v; want the connection closed", b, err)
	}
	if _, got := get(t, client(path), "GET", "http://phobos/", nil); got != "fine" {
		t.Errorf("got %q", got)
	}
}

// Shutdown closes idle connections at once and waits for a request in
// progress to be answered.
func TestShutdown(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(entered)
			<-release
		}
		io.WriteString(w, r.URL.Path)
	})}
	path := serve(t, s)
	idle, ibr := rawConn(t, path)
	io.WriteString(idle, "GET /quick HTTP/1.1\r\nHost: x\r\n\r\n")
	readResponse(t, ibr, "GET")
	busy, bbr := rawConn(t, path)
	io.WriteString(busy, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		done <- s.Shutdown(ctx)
	}()
	// the idle connection is closed
	if b, err := io.ReadAll(ibr); err != nil || len(b) != 0 {
		t.Errorf("idle connection: %q, %v; want it closed", b, err)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) with a request in progress", err)
	default:
	}
	close(release)
	if _, got := readResponse(t, bbr, "GET"); got != "/slow" {
		t.Errorf("got %q", got)
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if _, err := net.Dial("unix", path); err == nil {
		t.Error("still accepting after Shutdown")
	}
}
