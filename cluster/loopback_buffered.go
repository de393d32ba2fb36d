package cluster

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// serveBuffered serves r (sr as the handler sees it) with h in the
// caller's goroutine, its answer kept and handed over whole: for a caller
// that said its answer is small and prompt (rpc.BufferedAnswer), a
// goroutine and a pipe cost more than the answer.
func serveBuffered(h http.Handler, sr, r *http.Request) (resp *http.Response, err error) {
	w := &bufferedResponse{header: http.Header{}}
	defer func() {
		if p := recover(); p != nil {
			// As the piped transport does: the request fails, the
			// process goes on.
			resp, err = nil, fmt.Errorf("cluster: in-process handler for %s panicked: %v", sr.URL.Path, p)
		}
	}()
	func() {
		defer sr.Body.Close()
		h.ServeHTTP(w, sr)
	}()
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	w.WriteHeader(http.StatusOK) // a handler that wrote nothing answered 200
	return loopbackResponse(r, w.status, w.sent, io.NopCloser(bytes.NewReader(w.body.Bytes())), int64(w.body.Len())), nil
}

// bufferedResponse is the http.ResponseWriter of serveBuffered.
type bufferedResponse struct {
	header http.Header
	sent   http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedResponse) Header() http.Header { return w.header }

func (w *bufferedResponse) WriteHeader(code int) {
	if w.sent == nil {
		w.status, w.sent = code, w.header.Clone()
	}
}

func (w *bufferedResponse) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// Flush implements http.Flusher; everything is held until the handler
// returns.
func (w *bufferedResponse) Flush() { w.WriteHeader(http.StatusOK) }
