// Package web is the REST API of a Phobos cluster (docs/rest-api.md): the
// client's one door. It creates sessions, takes tensor graphs as versioned
// JSON, reports their state with long-polls, and streams results as .npy,
// assembled from the chunks on the workers. It keeps no state of its own:
// sessions and graphs live in the scheduler's graph service.
package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/protocol"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// APIVersion is the version of the REST API and of the graph JSON it takes.
const APIVersion = 1

// DefaultMaxRequestBytes bounds a request body (a graph, literal data
// included) unless Config says otherwise.
const DefaultMaxRequestBytes = 64 << 20

// Config wires the web service to the scheduler.
type Config struct {
	Graphs    phobosv1connect.GraphServiceClient
	Scheduler phobosv1connect.SchedulerServiceClient
	// HTTP fetches chunks from workers.
	HTTP *http.Client
	// Chunks, when set, reads the chunks of workers of this process
	// without a request (cluster's Loopback); the others come through HTTP.
	Chunks LocalChunks
	// MaxRequestBytes bounds a request body (default 64 MiB).
	MaxRequestBytes int64
	// Version is reported by GET /api.
	Version string
	// Ring, when set, lists the schedulers of a ring of schedulers (Graphs
	// and Scheduler then route each session's calls to its owner). GET
	// /api/sessions and /api/schedulers ask each; uploads take the
	// worker numbering of the session's scheduler.
	Ring   func() []RingMember
	Logger *slog.Logger
}

// Server serves the REST API.
type Server struct {
	cfg  Config
	http *http.Client
	log  *slog.Logger
	mux  *http.ServeMux
	// streams are the results being written into clients' files while
	// their graphs run (results_stream.go).
	streams intoStreams
}

// New makes a Server.
func New(cfg Config) *Server {
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	s := &Server{cfg: cfg, http: cfg.HTTP, log: cfg.Logger}
	if s.http == nil {
		s.http = http.DefaultClient
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /api", s.handle(s.getAPI))
	m.HandleFunc("GET /api/workers", s.handle(s.getWorkers))
	m.HandleFunc("GET /api/sessions", s.handle(s.getSessions))
	m.HandleFunc("GET /api/schedulers", s.handle(s.getSchedulers))
	m.HandleFunc("POST /api/sessions", s.handle(s.createSession))
	m.HandleFunc("DELETE /api/sessions/{sid}", s.handle(s.deleteSession))
	m.HandleFunc("POST /api/sessions/{sid}/graphs", s.handle(s.submitGraph))
	m.HandleFunc("GET /api/sessions/{sid}/graphs/{gid}", s.handle(s.getGraph))
	m.HandleFunc("DELETE /api/sessions/{sid}/graphs/{gid}", s.handle(s.cancelGraph))
	m.HandleFunc("POST /api/sessions/{sid}/release", s.handle(s.releaseGraphs))
	m.HandleFunc("GET /api/sessions/{sid}/graphs/{gid}/results/{i}", s.handle(s.getResult))
	m.HandleFunc("POST /api/sessions/{sid}/graphs/{gid}/results/{i}/into", s.handle(s.resultInto))
	m.HandleFunc("GET /api/functions", s.handle(s.getFunctions))
	m.HandleFunc("POST /api/describe", s.handle(s.describe))
	m.HandleFunc("POST /api/sessions/{sid}/programs", s.handle(s.submitProgram))
	m.HandleFunc("POST /api/sessions/{sid}/uploads", s.handle(s.createUpload))
	m.HandleFunc("PUT /api/sessions/{sid}/uploads/{uid}/chunks/{index}", s.handle(s.putChunk))
	m.HandleFunc("/", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return &httpError{code: http.StatusNotFound, msg: fmt.Sprintf("no such endpoint: %s %s (see docs/rest-api.md)", r.Method, r.URL.Path)}
	}))
	s.mux = m
	return s
}

// Handler is the REST API's handler.
func (s *Server) Handler() http.Handler { return s.mux }

// httpError is an error with its status code; the body is {"error": msg}.
type httpError struct {
	code int
	msg  string
	kind string // the Python exception a client raises, when known
}

func (e *httpError) Error() string { return e.msg }

func badRequest(err error) error { return &httpError{code: http.StatusBadRequest, msg: err.Error()} }

// errAborted: the response had started when the error came; the handler
// cuts the connection so the client sees a truncated body, not a bad array.
var errAborted = errors.New("response aborted")

// statusOf maps a scheduler RPC error to an HTTP status.
func statusOf(err error) int {
	switch connect.CodeOf(err) {
	case connect.CodeInvalidArgument:
		return http.StatusBadRequest
	case connect.CodeNotFound:
		return http.StatusNotFound
	case connect.CodeFailedPrecondition:
		return http.StatusConflict
	case connect.CodeUnavailable:
		return http.StatusServiceUnavailable
	case connect.CodeDeadlineExceeded:
		return http.StatusGatewayTimeout
	case connect.CodeResourceExhausted:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadGateway
}

func (s *Server) handle(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := checkIDs(r)
		if sid := r.PathValue("sid"); sid != "" && err == nil {
			r = r.WithContext(WithSession(r.Context(), sid))
		}
		if err == nil {
			err = fn(w, r)
		}
		if err == nil {
			return
		}
		if errors.Is(err, errAborted) {
			panic(http.ErrAbortHandler)
		}
		var he *httpError
		code, msg, kind := http.StatusInternalServerError, err.Error(), ""
		var ce *connect.Error
		switch {
		case errors.As(err, &he):
			code, kind = he.code, he.kind
		case errors.As(err, &ce):
			code, msg = statusOf(err), ce.Message()
		}
		if code >= 500 {
			s.log.Warn("request failed", "method", r.Method, "path", r.URL.Path, "status", code, "err", msg)
		}
		body := map[string]string{"error": msg}
		if kind != "" {
			body["kind"] = kind
		}
		writeJSON(w, code, body)
	}
}

// checkIDs refuses session and graph ids that no session or graph could
// have (they are short, printable ASCII) before they travel further.
func checkIDs(r *http.Request) error {
	for _, name := range []string{"sid", "gid", "uid"} {
		id := r.PathValue(name)
		if id == "" {
			continue
		}
		ok := len(id) <= 64
		for i := 0; ok && i < len(id); i++ {
			c := id[i]
			ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_'
		}
		if !ok {
			what := map[string]string{"sid": "session", "gid": "graph", "uid": "upload"}[name]
			return &httpError{code: http.StatusNotFound, msg: fmt.Sprintf("no %s %q: ids are letters, digits, '-' and '_'", what, id)}
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if a, ok := v.(jsonAppender); ok {
		_, _ = w.Write(append(a.appendJSON(nil), '\n'))
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}

// writeJSONFlushed writes v as writeJSON does, with its length, and sends
// it at once: the handler has more to do that the client need not wait
// for.
func writeJSONFlushed(w http.ResponseWriter, code int, v any) {
	var body []byte
	if a, ok := v.(jsonAppender); ok {
		body = append(a.appendJSON(nil), '\n')
	} else {
		var b bytes.Buffer
		_ = json.NewEncoder(&b).Encode(v)
		body = b.Bytes()
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
	_ = http.NewResponseController(w).Flush()
}

// APIInfo is the body of GET /api.
type APIInfo struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	APIVersion  int    `json:"api_version"`
	Ready       bool   `json:"ready"`
	LiveWorkers int    `json:"live_workers"`
	Sessions    int    `json:"sessions"`
	Graphs      int    `json:"graphs"`
	// Results counts what the scheduler did with workers' reports: a
	// non-zero ignored count is the network repeating or reordering
	// messages, which the scheduler absorbs.
	Results *ResultStatsJSON `json:"results,omitempty"`
	Error   string           `json:"error,omitempty"`
}

// ResultStatsJSON is APIInfo.Results.
type ResultStatsJSON struct {
	Received      int64 `json:"received"`
	Duplicates    int64 `json:"duplicates"`
	Stale         int64 `json:"stale"`
	FromDead      int64 `json:"from_dead"`
	Unknown       int64 `json:"unknown"`
	Invalid       int64 `json:"invalid"`
	StalledGraphs int64 `json:"stalled_graphs"`
	FailedOnBugs  int64 `json:"failed_on_bugs"`
}

func (s *Server) getAPI(w http.ResponseWriter, r *http.Request) error {
	info := APIInfo{Name: "phobos", Version: s.cfg.Version, APIVersion: APIVersion}
	st, err := s.cfg.Graphs.Status(r.Context(), connect.NewRequest(&pb.StatusRequest{}))
	if err != nil {
		info.Error = "scheduler unreachable: " + err.Error()
		writeJSON(w, http.StatusServiceUnavailable, info)
		return nil
	}
	info.LiveWorkers, info.Sessions, info.Graphs = int(st.Msg.LiveWorkers), int(st.Msg.Sessions), int(st.Msg.Graphs)
	if r := st.Msg.Results; r != nil {
		info.Results = &ResultStatsJSON{Received: r.Received, Duplicates: r.Duplicates, Stale: r.Stale, FromDead: r.FromDead,
			Unknown: r.Unknown, Invalid: r.Invalid, StalledGraphs: r.StalledGraphs, FailedOnBugs: r.FailedOnBugs}
	}
	info.Ready = info.LiveWorkers > 0
	code := http.StatusOK
	if !info.Ready {
		info.Error = "no live workers yet"
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, info)
	return nil
}

// WorkerJSON describes a worker in GET /api/workers.
type WorkerJSON struct {
	ID             int    `json:"id"`
	URL            string `json:"url"`
	Slots          int    `json:"slots"`
	MemoryBytes    int64  `json:"memory_bytes"`
	SpillDir       string `json:"spill_dir,omitempty"`
	Alive          bool   `json:"alive"`
	DeadReason     string `json:"dead_reason,omitempty"`
	LastHeartbeat  int64  `json:"last_heartbeat_ms_ago"`
	Running        int    `json:"running"`
	Queued         int    `json:"queued"`
	StoreBytes     int64  `json:"store_bytes"`
	PeakStoreBytes int64  `json:"peak_store_bytes"`
	StoreChunks    int    `json:"store_chunks"`
	PID            int    `json:"pid,omitempty"`
}

func (s *Server) getWorkers(w http.ResponseWriter, r *http.Request) error {
	resp, err := s.cfg.Scheduler.ListWorkers(r.Context(), connect.NewRequest(&pb.ListWorkersRequest{}))
	if err != nil {
		return err
	}
	out := struct {
		Workers []WorkerJSON `json:"workers"`
	}{Workers: []WorkerJSON{}}
	for _, wi := range resp.Msg.Workers {
		wj := WorkerJSON{
			ID: int(wi.Id), URL: wi.Url, Slots: int(wi.Slots), MemoryBytes: wi.MemoryBytes, SpillDir: wi.SpillDir,
			Alive: wi.Alive, DeadReason: wi.DeadReason, LastHeartbeat: wi.LastHeartbeatMsAgo, PID: int(wi.Pid),
		}
		if l := wi.Load; l != nil {
			wj.Running, wj.Queued, wj.StoreBytes, wj.PeakStoreBytes, wj.StoreChunks = int(l.Running), int(l.Queued), l.StoreBytes, l.PeakStoreBytes, int(l.StoreChunks)
		}
		out.Workers = append(out.Workers, wj)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	resp, err := s.cfg.Graphs.CreateSession(r.Context(), connect.NewRequest(&pb.CreateSessionRequest{}))
	if err != nil {
		return err
	}
	sid := resp.Msg.SessionId
	w.Header().Set("Location", "/api/sessions/"+sid)
	writeJSON(w, http.StatusCreated, map[string]string{"session_id": sid})
	return nil
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	sid := r.PathValue("sid")
	if _, err := s.cfg.Graphs.DeleteSession(r.Context(), connect.NewRequest(&pb.DeleteSessionRequest{SessionId: sid})); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"session_id": sid, "deleted": true})
	return nil
}

// SubmitRequest is the body of POST /api/sessions/{sid}/graphs.
type SubmitRequest struct {
	// Graph is the versioned TileableGraph JSON (docs/rest-api.md).
	Graph json.RawMessage `json:"graph"`
	// Results are the tensors (node indexes of Graph) to compute.
	Results []int `json:"results"`
	// Fuse turns the fusion pass on (default) or off.
	Fuse *bool `json:"fuse,omitempty"`
}

func (s *Server) submitGraph(w http.ResponseWriter, r *http.Request) error {
	var req SubmitRequest
	if err := s.decode(w, r, &req); err != nil {
		if he := (*httpError)(nil); errors.As(err, &he) && he.msg == "empty body: want a JSON object" {
			he.msg = `empty body: want {"graph": {...}, "results": [...]}`
		}
		return err
	}
	return s.submit(w, r, req)
}

func (s *Server) submit(w http.ResponseWriter, r *http.Request, req SubmitRequest) error {
	if len(req.Graph) == 0 || bytes.Equal(req.Graph, []byte("null")) {
		return badRequest(errors.New(`missing "graph"`))
	}
	if bytes.Contains(req.Graph, []byte(`"npy_`)) || bytes.Contains(req.Graph, []byte(`"zarr_`)) {
		// File ops: their paths are checked now. A graph that does not
		// decode is left for the scheduler to refuse, with its reasons.
		if tg, err := graph.DecodeTileable(req.Graph); err == nil {
			if err := s.checkFiles(r.Context(), tg, nil); err != nil {
				return err
			}
		}
	}
	st, err := s.submitEncoded(r, req.Graph, req.Results, req.Fuse)
	if err != nil {
		return err
	}
	g := graphJSON(st)
	w.Header().Set("Location", g.URL)
	writeJSON(w, http.StatusCreated, &g)
	return nil
}

// submitEncoded hands a graph whose files were checked to the scheduler.
func (s *Server) submitEncoded(r *http.Request, gj json.RawMessage, results []int, fuse *bool) (*pb.GraphStatus, error) {
	msg := &pb.SubmitGraphRequest{SessionId: r.PathValue("sid"), Graph: gj, NoFuse: fuse != nil && !*fuse}
	for _, x := range results {
		msg.Results = append(msg.Results, int32(min(max(x, -1), 1<<31-1)))
	}
	// Not cut short by a client that leaves meanwhile: a graph the
	// scheduler took is then known here, and can be cancelled.
	resp, err := s.cfg.Graphs.SubmitGraph(context.WithoutCancel(r.Context()), connect.NewRequest(msg))
	if err != nil {
		return nil, err
	}
	return resp.Msg, nil
}

// GraphJSON is a graph's state in the REST API.
type GraphJSON struct {
	SessionID  string           `json:"session_id"`
	GraphID    string           `json:"graph_id"`
	URL        string           `json:"url"`
	State      string           `json:"state"`
	Progress   map[string]int64 `json:"progress"`
	ChunkOps   int64            `json:"chunk_ops"`
	MovedBytes int64            `json:"moved_bytes"`
	Recomputed int64            `json:"recomputed"`
	Error      string           `json:"error,omitempty"`
	PrepareMs  int64            `json:"prepare_ms"`
	RunMs      int64            `json:"run_ms"`
	Results    []ResultJSON     `json:"results"`
	Released   bool             `json:"released,omitempty"`
}

// ResultJSON describes one result tensor of a graph.
type ResultJSON struct {
	Index  int     `json:"index"`
	Shape  []int64 `json:"shape"`
	DType  string  `json:"dtype"`
	Chunks int     `json:"chunks"`
	URL    string  `json:"url"`
	// Data is the result as base64 .npy, when it came inline.
	Data string `json:"data,omitempty"`
}

func graphJSON(st *pb.GraphStatus) GraphJSON {
	url := fmt.Sprintf("/api/sessions/%s/graphs/%s", st.SessionId, st.GraphId)
	g := GraphJSON{
		SessionID: st.SessionId, GraphID: st.GraphId, URL: url, State: st.State,
		Progress: map[string]int64{}, ChunkOps: st.ChunkOps, MovedBytes: st.MovedBytes, Recomputed: st.Recomputed, Error: st.Error,
		PrepareMs: st.PrepareMs, RunMs: st.RunMs, Released: st.Released, Results: []ResultJSON{},
	}
	for _, s := range protocol.StateNames {
		g.Progress[s] = st.Progress[s]
	}
	for i, r := range st.Results {
		shape := r.Shape
		if shape == nil {
			shape = []int64{}
		}
		g.Results = append(g.Results, ResultJSON{Index: i, Shape: shape, DType: r.Dtype, Chunks: int(r.Chunks), URL: fmt.Sprintf("%s/results/%d", url, i)})
	}
	return g
}

func (s *Server) getGraph(w http.ResponseWriter, r *http.Request) error {
	req := &pb.GetGraphRequest{SessionId: r.PathValue("sid"), GraphId: r.PathValue("gid")}
	if v := r.URL.Query().Get("wait_timeout"); v != "" {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs < 0 || secs > 3600 {
			return badRequest(fmt.Errorf("wait_timeout=%q: want seconds, a number from 0 to 3600", v))
		}
		req.WaitTimeoutMs = int64(secs * float64(time.Second/time.Millisecond))
	}
	resp, err := s.cfg.Graphs.GetGraph(r.Context(), connect.NewRequest(req))
	if err != nil {
		return err
	}
	g := graphJSON(resp.Msg)
	writeJSON(w, http.StatusOK, &g)
	return nil
}

func (s *Server) cancelGraph(w http.ResponseWriter, r *http.Request) error {
	resp, err := s.cfg.Graphs.CancelGraph(r.Context(), connect.NewRequest(&pb.CancelGraphRequest{SessionId: r.PathValue("sid"), GraphId: r.PathValue("gid")}))
	if err != nil {
		return err
	}
	g := graphJSON(resp.Msg)
	writeJSON(w, http.StatusOK, &g)
	return nil
}

func (s *Server) getResult(w http.ResponseWriter, r *http.Request) error {
	i, err := strconv.Atoi(r.PathValue("i"))
	if err != nil || i < 0 {
		return badRequest(fmt.Errorf("result index %q: want a non-negative integer", r.PathValue("i")))
	}
	resp, err := s.cfg.Graphs.GetResult(r.Context(), connect.NewRequest(&pb.GetResultRequest{SessionId: r.PathValue("sid"), GraphId: r.PathValue("gid"), Index: int32(i)}))
	if err != nil {
		return err
	}
	return s.streamResult(r.Context(), w, resp.Msg, r.URL.Query().Get("slice"))
}
