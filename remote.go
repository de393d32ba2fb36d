package phobos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/web"
)

// remoteBackend runs tensors on a cluster through its REST API: the graph
// goes up as JSON, its state comes back by long-poll, results come back as
// .npy. It is what `phobos.Connect` gives a Session.
type remoteBackend struct {
	base string // the web service, e.g. http://127.0.0.1:7103
	sid  string
	http *http.Client
	ups  uploads
	// inlineMax: client arrays of more bytes are uploaded (< 0: all).
	inlineMax int64
	// failoverWait bounds the retries of a request the cluster answered
	// as paused (retry).
	failoverWait time.Duration
}

// Connect opens a session on the cluster whose web service is at url
// (http://HOST:PORT, as `phobos cluster` prints it). The session has the
// methods of a local one; options that size an embedded cluster (workers,
// slots, memory) do not apply, fusion and progress do.
func Connect(ctx context.Context, url string, opts ...Option) (*Session, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	b := &remoteBackend{base: strings.TrimRight(url, "/"), http: rpc.WithToken(rpc.WithTLS(rpc.NewHTTPClient(), c.tls), c.token), inlineMax: c.inlineMax}
	if b.inlineMax == 0 {
		b.inlineMax = inlineMaxBytes
	}
	b.failoverWait = FailoverWait
	if c.failoverWait > 0 {
		b.failoverWait = c.failoverWait
	}
	if !strings.Contains(b.base, "://") {
		b.base = "http://" + b.base
	}
	var info web.APIInfo
	if err := b.do(ctx, http.MethodGet, "/api", nil, &info, http.StatusOK); err != nil {
		return nil, fmt.Errorf("phobos: connect %s: %w", b.base, err)
	}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if err := b.do(ctx, http.MethodPost, "/api/sessions", nil, &sess, http.StatusCreated); err != nil {
		return nil, fmt.Errorf("phobos: connect %s: %w", b.base, err)
	}
	b.sid = sess.SessionID
	return &Session{cfg: c, be: b}, nil
}

// apiError is the {"error": ...} body the REST API answers failures with.
type apiError struct {
	Status int
	Msg    string
}

func (e *apiError) Error() string { return fmt.Sprintf("%s (HTTP %d)", e.Msg, e.Status) }

// do sends a request and decodes a JSON answer with status want into out.
func (b *remoteBackend) do(ctx context.Context, method, path string, body []byte, out any, want int) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		return readAPIError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func readAPIError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error != "" {
		return &apiError{Status: resp.StatusCode, Msg: e.Error}
	}
	return &apiError{Status: resp.StatusCode, Msg: strings.TrimSpace(string(raw))}
}

func (b *remoteBackend) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := b.do(ctx, http.MethodDelete, "/api/sessions/"+b.sid, nil, nil, http.StatusOK)
	// The session's connections would otherwise stay open, on both ends,
	// until they time out.
	b.http.CloseIdleConnections()
	return err
}

func (b *remoteBackend) execute(ctx context.Context, s *Session, ts []*tensor.Tensor) ([]*ndarray.Array, Stats, error) {
	if len(ts) == 0 {
		return nil, Stats{}, nil
	}
	t0 := time.Now()
	tg, ids, err := tensor.Build(ts...)
	if err != nil {
		return nil, Stats{}, err
	}
	if err := b.uploadLiterals(ctx, tg); err != nil {
		return nil, Stats{}, err
	}
	gj, err := graph.EncodeTileable(tg)
	if err != nil {
		return nil, Stats{}, err
	}
	fuse := !s.cfg.noFuse
	body, err := json.Marshal(web.SubmitRequest{Graph: gj, Results: ids, Fuse: &fuse})
	if err != nil {
		return nil, Stats{}, err
	}
	encode := time.Since(t0)
	var st web.GraphJSON
	// A 503 is a refusal (the session between owners, or a scheduler
	// cut off from etcd): nothing was started, so the submission is
	// retried.
	if err := b.retry(ctx, func() error {
		return b.do(ctx, http.MethodPost, "/api/sessions/"+b.sid+"/graphs", body, &st, http.StatusCreated)
	}); err != nil {
		return nil, Stats{}, fmt.Errorf("phobos: submit: %w", err)
	}
	graphPath := st.URL
	defer func() {
		// Free the results on the workers (or stop the graph), whatever happened.
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = b.do(dctx, http.MethodDelete, graphPath, nil, nil, http.StatusOK)
	}()

	wait := "5"
	if s.cfg.progress != nil {
		wait = "0.1"
	}
	for !terminalState(st.State) {
		// A scheduler's failover is a pause: the graph goes on under
		// another owner of the ring, same ids.
		err := b.retry(ctx, func() error {
			return b.do(ctx, http.MethodGet, graphPath+"?wait_timeout="+wait, nil, &st, http.StatusOK)
		})
		if s.cfg.progress != nil && err == nil {
			s.cfg.progress(progressOf(st))
		}
		if ctx.Err() != nil {
			return nil, Stats{}, b.cancel(graphPath, ctx.Err())
		}
		if err != nil {
			return nil, Stats{}, fmt.Errorf("phobos: graph %s: %w", st.GraphID, err)
		}
	}
	stats := Stats{
		ChunkOps:   int(st.ChunkOps),
		TileTime:   encode + time.Duration(st.PrepareMs)*time.Millisecond,
		RunTime:    time.Duration(st.RunMs) * time.Millisecond,
		MovedBytes: st.MovedBytes,
		Recomputed: st.Recomputed,
		PeakBytes:  b.peakStoreBytes(ctx),
	}
	switch st.State {
	case "FAILED":
		return nil, stats, fmt.Errorf("phobos: execute: %s", st.Error)
	case "CANCELLED":
		return nil, stats, fmt.Errorf("phobos: execute: graph %s was cancelled", st.GraphID)
	}
	t2 := time.Now()
	out := make([]*ndarray.Array, len(ids))
	for i := range ids {
		var a *ndarray.Array
		err := b.retry(ctx, func() (err error) {
			a, err = b.fetch(ctx, fmt.Sprintf("%s/results/%d", graphPath, i))
			return err
		})
		if err != nil {
			return nil, stats, fmt.Errorf("phobos: fetching result %d: %w", i, err)
		}
		out[i] = a
	}
	stats.FetchTime = time.Since(t2)
	return out, stats, nil
}

// cancel stops a graph whose caller gave up and waits (briefly) for it to
// stop, so Execute returns once running kernels have stopped.
// peakStoreBytes is the most bytes any worker's store has held, as of the
// workers' last heartbeats (the local session's PeakBytes is the same
// figure, read directly); 0 if the workers cannot be listed.
func (b *remoteBackend) peakStoreBytes(ctx context.Context) int64 {
	var ws struct {
		Workers []web.WorkerJSON `json:"workers"`
	}
	if err := b.do(ctx, http.MethodGet, "/api/workers", nil, &ws, http.StatusOK); err != nil {
		return 0
	}
	var peak int64
	for _, w := range ws.Workers {
		peak = max(peak, w.PeakStoreBytes)
	}
	return peak
}

func (b *remoteBackend) cancel(graphPath string, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var st web.GraphJSON
	if err := b.do(ctx, http.MethodDelete, graphPath, nil, &st, http.StatusOK); err == nil {
		for !terminalState(st.State) && ctx.Err() == nil {
			if b.do(ctx, http.MethodGet, graphPath+"?wait_timeout=1", nil, &st, http.StatusOK) != nil {
				break
			}
		}
	}
	return fmt.Errorf("execution cancelled: %w", cause)
}

func (b *remoteBackend) fetch(ctx context.Context, path string) (*ndarray.Array, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, readAPIError(resp)
	}
	a, err := npy.Read(resp.Body)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("result stream cut short: %w", err)
		}
		return nil, err
	}
	return a, nil
}

func terminalState(s string) bool {
	return s == "SUCCEEDED" || s == "FAILED" || s == "CANCELLED"
}

func progressOf(st web.GraphJSON) Progress {
	var p Progress
	for state, n := range st.Progress {
		p.Total += int(n)
		switch state {
		case "FINISHED", "FREED":
			p.Finished += int(n)
		case "RUNNING":
			p.Running += int(n)
		case "READY":
			p.Ready += int(n)
		}
	}
	return p
}
