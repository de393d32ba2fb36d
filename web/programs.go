package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/calls"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/tensor"
)

// maxDescribeChunkOps bounds the tiling a describe request with nsplits may
// ask for: chunk sizes are arithmetic, but tiling makes every chunk op.
const maxDescribeChunkOps = 1 << 20

// FunctionsJSON is the body of GET /api/functions.
type FunctionsJSON struct {
	APIVersion int              `json:"api_version"`
	Functions  []calls.Function `json:"functions"`
	Ufuncs     UfuncsJSON       `json:"ufuncs"`
}

// UfuncsJSON names the elementwise functions by arity.
type UfuncsJSON struct {
	Unary  []string `json:"unary"`
	Binary []string `json:"binary"`
}

func (s *Server) getFunctions(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, FunctionsJSON{
		APIVersion: APIVersion, Functions: calls.Functions(),
		Ufuncs: UfuncsJSON{Unary: ndarray.UnaryOpNames(), Binary: ndarray.BinaryOpNames()},
	})
	return nil
}

// DescribeRequest asks what a program makes without running it.
type DescribeRequest struct {
	Program calls.Program `json:"program"`
	// Nodes are the nodes to describe (default: the last).
	Nodes []int `json:"nodes,omitempty"`
	// NSplits asks for the chunk sizes along each axis too.
	NSplits bool `json:"nsplits,omitempty"`
}

// MetaJSON is what a node makes.
type MetaJSON struct {
	Shape   []int   `json:"shape"`
	DType   string  `json:"dtype"`
	NSplits [][]int `json:"nsplits,omitempty"`
}

func (s *Server) describe(w http.ResponseWriter, r *http.Request) error {
	var req DescribeRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	ts, err := req.Program.BuildWith(r.Context(), true, s.openSource)
	if err != nil {
		return programError(err)
	}
	nodes := req.Nodes
	if nodes == nil {
		nodes = []int{len(ts) - 1}
	}
	sel := make([]*tensor.Tensor, len(nodes))
	for i, n := range nodes {
		if n < 0 || n >= len(ts) {
			return badRequest(fmt.Errorf("nodes: %d is not a node of a program of %d", n, len(ts)))
		}
		sel[i] = ts[n]
	}
	out := make([]MetaJSON, len(sel))
	for i, t := range sel {
		out[i] = MetaJSON{Shape: append([]int{}, t.Shape()...), DType: t.DType().String()}
	}
	if req.NSplits && len(sel) > 0 {
		tg, ids, err := tensor.Build(sel...)
		if err != nil {
			return programError(err)
		}
		_, tiled, err := graph.TileWithin(tg, maxDescribeChunkOps)
		if err != nil {
			return badRequest(fmt.Errorf("chunks: %w", err))
		}
		for i, id := range ids {
			out[i].NSplits = tiled[id].NSplits
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"nodes": out})
	return nil
}

// ProgramRequest submits a program's results for computing.
type ProgramRequest struct {
	Program calls.Program `json:"program"`
	Results []int         `json:"results"`
	Fuse    *bool         `json:"fuse,omitempty"`
	// Wait, in seconds, holds the answer until the graph ends or Wait has
	// passed, as GET .../graphs/{gid}?wait_timeout does.
	Wait float64 `json:"wait,omitempty"`
	// Inline: results of at most this many bytes come in the answer, as
	// base64 .npy, when the graph succeeded within Wait.
	Inline int64 `json:"inline,omitempty"`
	// Release deletes the graph once all its results came inline: a small
	// graph is then one request, with nothing left to free.
	Release bool `json:"release,omitempty"`
	// Into names, per result, a shared-memory file the client made for it
	// ("" for none; see rpc.ChunkInto): its chunks are written there as
	// they are computed (results_stream.go).
	Into []string `json:"into,omitempty"`
}

// stateSucceeded is the graph state (the scheduler's) with results.
const stateSucceeded = "SUCCEEDED"

// maxInline bounds ProgramRequest.Inline: bigger results stream.
const maxInline = 1 << 20

func (s *Server) submitProgram(w http.ResponseWriter, r *http.Request) error {
	var req ProgramRequest
	if err := s.decodeProgram(w, r, &req); err != nil {
		return err
	}
	if req.Wait < 0 || req.Wait > 3600 {
		return badRequest(fmt.Errorf("wait: %v seconds, want a number from 0 to 3600", req.Wait))
	}
	if req.Inline < 0 || req.Inline > maxInline {
		return badRequest(fmt.Errorf("inline: %d bytes, want 0 to %d", req.Inline, maxInline))
	}
	// A source a worker opened was checked against its data roots then;
	// the check below is for the paths no worker has seen yet (writes).
	opened := map[string]bool{}
	open := func(ctx context.Context, kind, path string, spec ops.ChunkSpec) (ops.TensorOp, error) {
		op, err := s.openSource(ctx, kind, path, spec)
		if err == nil {
			for _, p := range ops.FilePaths(op) {
				opened[p] = true
			}
		}
		return op, err
	}
	ts, err := req.Program.BuildWith(r.Context(), false, open)
	if err != nil {
		return programError(err)
	}
	if len(req.Results) == 0 {
		return badRequest(errors.New(`"results": name at least one node to compute`))
	}
	if err := checkInto(req.Into, len(req.Results)); err != nil {
		return badRequest(err)
	}
	sel := make([]*tensor.Tensor, len(req.Results))
	for i, n := range req.Results {
		if n < 0 || n >= len(ts) {
			return badRequest(fmt.Errorf("results: %d is not a node of a program of %d", n, len(ts)))
		}
		sel[i] = ts[n]
	}
	tg, ids, err := tensor.Build(sel...)
	if err != nil {
		return programError(err)
	}
	// The one check of each of the program's files: the graph goes on as
	// built, not searched or decoded again here.
	if err := s.checkFiles(r.Context(), tg, opened); err != nil {
		return err
	}
	// A scheduler of this process takes tg as it is (rpc.WithBuiltGraph,
	// rpc.DecodeSubmitted): the graph is encoded only for one elsewhere.
	// It is not used here after.
	var gj []byte
	if t, ok := s.cfg.Graphs.(rpc.BuiltGraphTaker); !ok || !t.TakesBuiltGraph() {
		if gj, err = graph.EncodeTileable(tg); err != nil {
			return badRequest(err)
		}
	}
	st, err := s.submitEncoded(r.WithContext(rpc.WithBuiltGraph(r.Context(), tg)), gj, ids, req.Fuse)
	if err != nil {
		return err
	}
	if len(req.Into) > 0 && onThisHost(r) {
		s.streamInto(st.SessionId, st.GraphId, req.Into)
	}
	answered := false
	defer func() {
		if !answered {
			// No answer names the graph (the client left while it
			// waited, as on Ctrl-C, or the wait failed): nobody could
			// follow or free it, so it is cancelled here.
			s.abandon(r, st)
		}
	}()
	if req.Wait > 0 {
		resp, err := s.cfg.Graphs.GetGraph(r.Context(), connect.NewRequest(&pb.GetGraphRequest{
			SessionId: st.SessionId, GraphId: st.GraphId, WaitTimeoutMs: int64(req.Wait * 1000)}))
		if err != nil {
			if r.Context().Err() != nil {
				return errAborted
			}
			return err
		}
		st = resp.Msg
	}
	out := graphJSON(st)
	release := false
	if req.Inline > 0 && st.State == stateSucceeded {
		all, err := s.inlineResults(r, &out, req.Inline)
		if err != nil {
			if r.Context().Err() != nil {
				return errAborted
			}
			return err
		}
		release = all && req.Release
	}
	answered = true
	w.Header().Set("Location", out.URL)
	if !release {
		writeJSON(w, http.StatusCreated, &out)
		return nil
	}
	// Every result is in the answer: the graph is deleted, after the
	// answer is on its way, so the client does not wait for that. Only
	// the cluster going away between the two can keep the graph: the
	// session then frees it with its oldest finished graphs, or when it
	// closes.
	out.Released = true
	writeJSONFlushed(w, http.StatusCreated, &out)
	if _, err := s.cfg.Graphs.CancelGraph(context.WithoutCancel(r.Context()), connect.NewRequest(&pb.CancelGraphRequest{SessionId: out.SessionID, GraphId: out.GraphID})); err != nil {
		s.log.Warn("deleting a graph whose results were answered inline", "session", out.SessionID, "graph", out.GraphID, "err", err)
	}
	return nil
}

// abandon deletes a graph whose submission was not answered.
func (s *Server) abandon(r *http.Request, st *pb.GraphStatus) {
	ctx := context.WithoutCancel(r.Context())
	if _, err := s.cfg.Graphs.CancelGraph(ctx, connect.NewRequest(&pb.CancelGraphRequest{SessionId: st.SessionId, GraphId: st.GraphId})); err != nil {
		s.log.Warn("deleting a graph whose submission was not answered", "session", st.SessionId, "graph", st.GraphId, "err", err)
	}
}

// inlineResults puts the results of g of at most limit bytes into it, and
// reports whether every result is there.
func (s *Server) inlineResults(r *http.Request, g *GraphJSON, limit int64) (bool, error) {
	all := true
	for i := range g.Results {
		res := &g.Results[i]
		if n := resultBytes(res); n < 0 || n > limit {
			all = false
			continue
		}
		lay, err := s.cfg.Graphs.GetResult(r.Context(), connect.NewRequest(&pb.GetResultRequest{SessionId: g.SessionID, GraphId: g.GraphID, Index: int32(i)}))
		if err != nil {
			return false, err
		}
		var buf bufferWriter
		// The result is small: its chunks' answers may be handed over whole
		// by an in-process transport.
		if err := s.streamResult(rpc.BufferedAnswer(r.Context()), &buf, lay.Msg, ""); err != nil {
			if errors.Is(err, errAborted) {
				return false, &httpError{code: http.StatusBadGateway, msg: fmt.Sprintf("result %d: reading its chunks from the workers failed", i)}
			}
			return false, err
		}
		res.Data = base64.StdEncoding.EncodeToString(buf.Bytes())
	}
	return all, nil
}

// resultBytes is the size of a result's data, -1 while a length is unknown.
func resultBytes(r *ResultJSON) int64 {
	var dt ndarray.DType
	if err := dt.UnmarshalText([]byte(r.DType)); err != nil {
		return -1
	}
	n := int64(dt.Size())
	for _, d := range r.Shape {
		if d < 0 {
			return -1
		}
		n *= d
	}
	return n
}

// bufferWriter is an http.ResponseWriter that keeps the body: a result
// streamed into an answer instead of a response of its own.
type bufferWriter struct {
	bytes.Buffer
	header http.Header
}

func (b *bufferWriter) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *bufferWriter) WriteHeader(int) {}

// programError is a program that cannot be built: a 400 whose kind is the
// Python exception NumPy raises for the same mistake.
func programError(err error) error {
	var unavailable *httpError
	if errors.As(err, &unavailable) {
		return unavailable
	}
	he := &httpError{code: http.StatusBadRequest, msg: err.Error(), kind: "ValueError"}
	var ce *calls.Error
	if errors.As(err, &ce) {
		he.kind = ce.Kind
	}
	return he
}

// decode reads a JSON body of at most MaxRequestBytes into v, refusing
// unknown fields.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	return decodeBody(body, v)
}

// decodeProgram is decode for a program request: read by hand when it
// has the form clients send (program_decode.go).
func (s *Server) decodeProgram(w http.ResponseWriter, r *http.Request, req *ProgramRequest) error {
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	if fastProgramRequest(body, req) {
		return nil
	}
	*req = ProgramRequest{}
	return decodeBody(body, req)
}

// readBody reads a request body of at most MaxRequestBytes.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxRequestBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &httpError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body exceeds the limit of %d bytes (the web service's --max-request-bytes)", mbe.Limit)}
		}
		return nil, badRequest(fmt.Errorf("reading the request body: %w", err))
	}
	return body, nil
}

// decodeBody decodes a JSON body into v, refusing unknown fields.
func decodeBody(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return badRequest(fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, err))
		case errors.As(err, &te):
			return badRequest(fmt.Errorf("field %q: want %v, got a JSON %s", te.Field, te.Type, te.Value))
		case errors.Is(err, io.EOF):
			return badRequest(errors.New("empty body: want a JSON object"))
		case errors.Is(err, io.ErrUnexpectedEOF):
			return badRequest(errors.New("malformed JSON: the body ends in the middle of a value"))
		}
		return badRequest(fmt.Errorf("bad request body: %v", err))
	}
	if d.More() {
		return badRequest(errors.New("trailing data after the JSON object"))
	}
	return nil
}

// openSource opens a file source on a live worker, under its data roots:
// the web service itself reads no file a program names.
func (s *Server) openSource(ctx context.Context, kind, path string, spec ops.ChunkSpec) (ops.TensorOp, error) {
	to, err := s.firstWorker(ctx, "opening "+path)
	if err != nil {
		return nil, err
	}
	op, err := rpc.OpenSource(ctx, s.http, to.Url, rpc.SourceRequest{Kind: kind, Path: path, Chunks: spec})
	var se *rpc.SourceError
	switch {
	case err == nil:
		return op, nil
	case errors.As(err, &se) && se.Status == http.StatusForbidden:
		return nil, &calls.Error{Kind: "PermissionError", Err: err}
	case errors.As(err, &se) && strings.Contains(se.Msg, "no such file or directory"):
		return nil, &calls.Error{Kind: "FileNotFoundError", Err: err}
	case errors.As(err, &se):
		return nil, &calls.Error{Kind: "OSError", Err: err}
	}
	return nil, &httpError{code: http.StatusBadGateway, msg: fmt.Sprintf("opening %s on worker %d: %v", path, to.Id, err)}
}

// checkFiles refuses a graph whose file ops name paths the workers' data
// roots do not allow (403, the worker's words), before it is accepted.
// Paths in checked were allowed already.
func (s *Server) checkFiles(ctx context.Context, tg *graph.TileableGraph, checked map[string]bool) error {
	var paths []string
	for _, nd := range tg.Nodes {
		for _, p := range ops.FilePaths(nd.Op) {
			if !checked[p] {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	to, err := s.firstWorker(ctx, "checking file paths")
	if err != nil {
		return err
	}
	err = rpc.CheckFiles(ctx, s.http, to.Url, paths)
	var se *rpc.SourceError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.Status == http.StatusForbidden:
		return &httpError{code: http.StatusForbidden, msg: se.Msg, kind: "PermissionError"}
	}
	return &httpError{code: http.StatusBadGateway, msg: fmt.Sprintf("checking file paths with worker %d: %v", to.Id, err)}
}

// firstWorker is the live worker of lowest id: the one asked about files,
// whose data roots all workers of a sane cluster share.
func (s *Server) firstWorker(ctx context.Context, what string) (*pb.WorkerInfo, error) {
	resp, err := s.cfg.Scheduler.ListWorkers(ctx, connect.NewRequest(&pb.ListWorkersRequest{}))
	if err != nil {
		return nil, &httpError{code: statusOf(err), msg: fmt.Sprintf("%s: listing the workers: %v", what, err)}
	}
	var to *pb.WorkerInfo
	for _, wi := range resp.Msg.Workers {
		if wi.Alive && (to == nil || wi.Id < to.Id) {
			to = wi
		}
	}
	if to == nil {
		return nil, &httpError{code: http.StatusServiceUnavailable, msg: what + ": no live worker"}
	}
	return to, nil
}
