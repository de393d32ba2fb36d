package cluster

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/rpc"
)

// A request marked rpc.BufferedAnswer is served in the caller's goroutine
// with the same answer (status, headers, body, token) the piped transport
// gives; a handler that writes nothing answers 200; one that panics fails
// the request; an unmarked request runs elsewhere, as before.
func TestLoopbackBufferedAnswer(t *testing.T) {
	lb := NewLoopback("secret")
	const base = "http://127.0.0.1:9"
	ran := make(chan int, 1)
	lb.serve(base, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran <- goid()
		switch r.URL.Path {
		case "/echo":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("X-Auth", r.Header.Get("Authorization"))
			w.WriteHeader(http.StatusTeapot)
			_, _ = w.Write(b[:2])
			w.(http.Flusher).Flush()
			_, _ = w.Write(b[2:])
		case "/empty":
		case "/panic":
			panic("boom")
		}
	}), services{})
	hc := lb.client(&http.Client{})
	do := func(ctx context.Context, path string) (int, string, http.Header, int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, strings.NewReader("hello"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		g := <-ran
		if err != nil {
			return 0, "", nil, g, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header, g, err
	}
	buffered := rpc.BufferedAnswer(context.Background())
	me := goid()
	for _, ctx := range []context.Context{context.Background(), buffered} {
		code, body, h, g, err := do(ctx, "/echo")
		if err != nil || code != http.StatusTeapot || body != "hello" || h.Get("X-Auth") != "Bearer secret" {
			t.Fatalf("echo (buffered %v): %d %q auth %q, %v", rpc.WantsBufferedAnswer(ctx), code, body, h.Get("X-Auth"), err)
		}
		if (g == me) != rpc.WantsBufferedAnswer(ctx) {
			t.Errorf("echo (buffered %v) ran on goroutine %d, the caller is %d", rpc.WantsBufferedAnswer(ctx), g, me)
		}
	}
	if code, body, _, _, err := do(buffered, "/empty"); err != nil || code != http.StatusOK || body != "" {
		t.Errorf("empty: %d %q %v", code, body, err)
	}
	if _, _, _, _, err := do(buffered, "/panic"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panic: %v, want the request failed naming it", err)
	}
}
