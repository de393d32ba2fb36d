package cluster

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"

	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// A request to a role of this process reaches its handler with no
// listener behind the address (nothing listens on port 9 here), streams
// its body, carries the cluster's token; a handler that panics fails the
// request; a dropped role is reached over the network, where nothing
// answers.
func TestLoopbackTransport(t *testing.T) {
	lb := NewLoopback("secret")
	const base = "http://127.0.0.1:9"
	parts := make(chan string)
	lb.serve(base, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("X-Auth", r.Header.Get("Authorization"))
			w.WriteHeader(http.StatusTeapot)
			_, _ = w.Write(b)
		case "/stream":
			// each part is written only once the client read the one before
			for p := range parts {
				_, _ = io.WriteString(w, p)
				w.(http.Flusher).Flush()
			}
		case "/panic":
			panic("boom")
		}
	}), services{})
	hc := lb.client(&http.Client{})

	resp, err := hc.Post(base+"/echo", "text/plain", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot || string(b) != "hello" || resp.Header.Get("X-Auth") != "Bearer secret" {
		t.Fatalf("echo: %d %q auth %q", resp.StatusCode, b, resp.Header.Get("X-Auth"))
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(parts)
		parts <- "a"
		parts <- "b"
	}()
	resp, err = hc.Get(base + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	wg.Wait()
	if string(b) != "ab" {
		t.Fatalf("stream: %q", b)
	}

	if _, err := hc.Get(base + "/panic"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panic: err %v, want the handler's panic", err)
	}

	lb.drop(base)
	if resp, err := hc.Get(base + "/echo"); err == nil {
		resp.Body.Close()
		t.Fatal("a dropped role still answered")
	}
}

// stubGraphs answers GetGraph from what it was asked, and fails CancelGraph
// with a plain error.
type stubGraphs struct {
	phobosv1connect.UnimplementedGraphServiceHandler
	seen *pb.GetGraphRequest
}

func (s *stubGraphs) GetGraph(ctx context.Context, req *connect.Request[pb.GetGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	s.seen = req.Msg
	if req.Msg.WaitTimeoutMs > 0 {
		<-ctx.Done()
	}
	return connect.NewResponse(&pb.GraphStatus{GraphId: req.Msg.GraphId}), nil
}

func (s *stubGraphs) CancelGraph(context.Context, *connect.Request[pb.CancelGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	return nil, errors.New("no such graph")
}

// A direct call copies its messages as the wire would, makes a plain
// error a connect error, and ends with its caller's context.
func TestLoopbackDirectCalls(t *testing.T) {
	lb := NewLoopback("")
	const base = "http://127.0.0.1:9"
	h := &stubGraphs{}
	lb.serve(base, http.NotFoundHandler(), services{graphs: h})
	net := phobosv1connect.NewGraphServiceClient(http.DefaultClient, base)
	c := lb.graphs(base, net)
	if _, ok := c.(*directGraphs); !ok {
		t.Fatalf("client %T, want the direct one", c)
	}
	req := &pb.GetGraphRequest{GraphId: "g1"}
	resp, err := c.GetGraph(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Msg.GraphId != "g1" || h.seen == req {
		t.Fatalf("answer %v; handler saw the caller's own message: %v", resp.Msg, h.seen == req)
	}
	_, err = c.CancelGraph(context.Background(), connect.NewRequest(&pb.CancelGraphRequest{GraphId: "g1"}))
	if connect.CodeOf(err) != connect.CodeUnknown || !strings.Contains(err.Error(), "no such graph") {
		t.Fatalf("plain error came back as %v (%v)", err, connect.CodeOf(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.GetGraph(ctx, connect.NewRequest(&pb.GetGraphRequest{GraphId: "g2", WaitTimeoutMs: 1000}))
	if connect.CodeOf(err) != connect.CodeCanceled {
		t.Fatalf("a call whose caller left: %v, want canceled", err)
	}
	// a role that stopped is no longer called in process
	lb.drop(base)
	if _, err := c.GetGraph(context.Background(), connect.NewRequest(&pb.GetGraphRequest{GraphId: "g3"})); err == nil || h.seen.GraphId == "g3" {
		t.Fatalf("a dropped role was called in process (err %v)", err)
	}
}

// baseHost reads a role's base URL as url.Parse does.
func TestBaseHost(t *testing.T) {
	for _, base := range []string{
		"http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:8080", "http://127.0.0.1:8080/",
		"http://127.0.0.1:8080/api", "https://127.0.0.1:9443", "http://user@127.0.0.1:1", "http://127.0.0.1:1?x=1",
		"http://127.0.0.1:1#f", "http://", "127.0.0.1:80", "http://h%41st:1", "",
	} {
		got, ok := baseHost(base)
		u, err := url.Parse(base)
		if (err == nil) != ok || err == nil && got != u.Host {
			t.Errorf("baseHost(%q) = %q, %v; url.Parse: %v, %v", base, got, ok, u, err)
		}
	}
}
