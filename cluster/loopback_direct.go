package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// The calls on the path of every graph (submitting it, waiting for it,
// its result's layout, its release; dispatching its chunk ops and their
// reports) go from a role to another of the same process as a call of the
// other's connect service, through the same client interface the role
// uses over the network: the messages are copied as the wire would copy
// them, and a handler's error reaches the caller as a connect error, as
// it would over the wire. The role's other calls (registration,
// heartbeats, the dashboard) keep the Loopback's HTTP transport.

// services are the connect services a role of this process serves.
type services struct {
	graphs phobosv1connect.GraphServiceHandler
	sched  phobosv1connect.SchedulerServiceHandler
	worker phobosv1connect.WorkerServiceHandler
	// chunk reads a chunk a worker holds, as its GET /chunks/{graph}/{node}
	// does (WorkerProc.getChunk).
	chunk func(context.Context, protocol.ChunkKey) (*ndarray.Array, error)
}

func (l *Loopback) services(base string) (services, bool) {
	if l == nil {
		return services{}, false
	}
	host, ok := baseHost(base)
	if !ok {
		return services{}, false
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	s, ok := l.svcs[host]
	return s, ok
}

// baseHost is the host:port of a role's base URL, as url.Parse reads it;
// the plain http://host:port form, asked on every direct call, is cut
// without parsing.
func baseHost(base string) (string, bool) {
	if rest, ok := strings.CutPrefix(base, "http://"); ok && rest != "" && !strings.ContainsAny(rest, "/?#@%[") {
		return rest, true
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	return u.Host, true
}

// graphs is the graph service at base: in process when a role of this
// process serves it, else net.
func (l *Loopback) graphs(base string, net phobosv1connect.GraphServiceClient) phobosv1connect.GraphServiceClient {
	if s, ok := l.services(base); ok && s.graphs != nil {
		return &directGraphs{GraphServiceClient: net, l: l, base: base, h: s.graphs}
	}
	return net
}

// scheduler is the scheduler service at base, as graphs is.
func (l *Loopback) scheduler(base string, net phobosv1connect.SchedulerServiceClient) phobosv1connect.SchedulerServiceClient {
	if s, ok := l.services(base); ok && s.sched != nil {
		return &directScheduler{SchedulerServiceClient: net, l: l, base: base, h: s.sched}
	}
	return net
}

// worker is the worker service at base, as graphs is.
func (l *Loopback) worker(base string, net phobosv1connect.WorkerServiceClient) phobosv1connect.WorkerServiceClient {
	if s, ok := l.services(base); ok && s.worker != nil {
		return &directWorker{WorkerServiceClient: net, l: l, base: base, h: s.worker}
	}
	return net
}

// live is whether the role at base still serves in this process (a
// stopped one is reached, and fails, over the network).
func (l *Loopback) live(base string) bool {
	_, ok := l.services(base)
	return ok
}

// viaLoopback calls the role's handler h directly while the role at base
// lives in this process, and remote (over the Loopback's HTTP) otherwise.
func viaLoopback[Req, Res any](ctx context.Context, l *Loopback, base string, req *connect.Request[Req],
	remote, h func(context.Context, *connect.Request[Req]) (*connect.Response[Res], error)) (*connect.Response[Res], error) {
	if !l.live(base) {
		return remote(ctx, req)
	}
	return direct(ctx, req, h)
}

// direct calls h as the connect client would call it over the wire.
func direct[Req, Res any](ctx context.Context, req *connect.Request[Req], h func(context.Context, *connect.Request[Req]) (*connect.Response[Res], error)) (*connect.Response[Res], error) {
	in := connect.NewRequest(cloneMsg(req.Msg))
	for k, v := range req.Header() {
		in.Header()[k] = append([]string(nil), v...)
	}
	resp, err := h(ctx, in)
	if err == nil && ctx.Err() != nil {
		// Over the wire the caller's cancelled context ends its call
		// whatever the handler answers (a long-poll answers the state it
		// had when its caller left).
		err = ctx.Err()
	}
	if err != nil {
		var ce *connect.Error
		switch {
		case errors.As(err, &ce):
			return nil, err
		case errors.Is(err, context.Canceled):
			return nil, connect.NewError(connect.CodeCanceled, err)
		case errors.Is(err, context.DeadlineExceeded):
			return nil, connect.NewError(connect.CodeDeadlineExceeded, err)
		}
		return nil, connect.NewError(connect.CodeUnknown, err)
	}
	out := connect.NewResponse(cloneMsg(resp.Msg))
	for k, v := range resp.Header() {
		out.Header()[k] = append([]string(nil), v...)
	}
	return out, nil
}

// withMsg is req with m for its message: its headers go along.
func withMsg[T any](req *connect.Request[T], m *T) *connect.Request[T] {
	out := connect.NewRequest(m)
	for k, v := range req.Header() {
		out.Header()[k] = v
	}
	return out
}

func cloneMsg[T any](m *T) *T {
	if m == nil {
		return new(T)
	}
	return any(proto.Clone(any(m).(proto.Message))).(*T)
}

type directGraphs struct {
	phobosv1connect.GraphServiceClient // the calls not listed below
	l                                  *Loopback
	base                               string
	h                                  phobosv1connect.GraphServiceHandler
}

// SubmitGraph takes a graph built in this process without its encoding
// (rpc.WithBuiltGraph) to the scheduler here; to one elsewhere, encoded.
func (d *directGraphs) SubmitGraph(ctx context.Context, req *connect.Request[pb.SubmitGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	if d.l.live(d.base) {
		return direct(ctx, req, d.h.SubmitGraph)
	}
	if len(req.Msg.Graph) == 0 {
		enc, err := rpc.EncodeBuilt(ctx, nil)
		if err != nil {
			return nil, connect.NewError(connect.CodeInvalidArgument, err)
		}
		m := cloneMsg(req.Msg)
		m.Graph = enc
		req = withMsg(req, m)
	}
	return d.GraphServiceClient.SubmitGraph(ctx, req)
}

// TakesBuiltGraph implements rpc.BuiltGraphTaker.
func (d *directGraphs) TakesBuiltGraph() bool { return true }

func (d *directGraphs) GetGraph(ctx context.Context, req *connect.Request[pb.GetGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	return viaLoopback(ctx, d.l, d.base, req, d.GraphServiceClient.GetGraph, d.h.GetGraph)
}

func (d *directGraphs) CancelGraph(ctx context.Context, req *connect.Request[pb.CancelGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	return viaLoopback(ctx, d.l, d.base, req, d.GraphServiceClient.CancelGraph, d.h.CancelGraph)
}

func (d *directGraphs) GetResult(ctx context.Context, req *connect.Request[pb.GetResultRequest]) (*connect.Response[pb.ResultLayout], error) {
	return viaLoopback(ctx, d.l, d.base, req, d.GraphServiceClient.GetResult, d.h.GetResult)
}

type directScheduler struct {
	phobosv1connect.SchedulerServiceClient // the calls not listed below
	l                                      *Loopback
	base                                   string
	h                                      phobosv1connect.SchedulerServiceHandler
}

func (d *directScheduler) ReportResults(ctx context.Context, req *connect.Request[pb.ReportResultsRequest]) (*connect.Response[pb.ReportResultsResponse], error) {
	return viaLoopback(ctx, d.l, d.base, req, d.SchedulerServiceClient.ReportResults, d.h.ReportResults)
}

type directWorker struct {
	phobosv1connect.WorkerServiceClient // the calls not listed below
	l                                   *Loopback
	base                                string
	h                                   phobosv1connect.WorkerServiceHandler
}

// Dispatch takes a batch carried in the call's context
// (rpc.WithDispatchBatch) to the worker here; to one elsewhere, encoded.
func (d *directWorker) Dispatch(ctx context.Context, req *connect.Request[pb.DispatchRequest]) (*connect.Response[pb.DispatchResponse], error) {
	if d.l.live(d.base) {
		return direct(ctx, req, d.h.Dispatch)
	}
	m, err := rpc.EncodeCarried(ctx, req.Msg)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	if m != req.Msg {
		req = withMsg(req, m)
	}
	return d.WorkerServiceClient.Dispatch(ctx, req)
}

// TakesBatches implements rpc.BatchTaker.
func (d *directWorker) TakesBatches() bool { return true }

// GetChunk implements web.LocalChunks: the chunk url names on a worker of
// this process, read as GET url would read it (WorkerProc.getChunk),
// without the request; ok is false for a URL of no worker here, or one
// that is not a chunk's (which the request then answers).
func (l *Loopback) GetChunk(ctx context.Context, url string) (*ndarray.Array, bool, error) {
	rest, ok := strings.CutPrefix(url, "http://")
	if !ok || l == nil {
		return nil, false, nil
	}
	host, path, _ := strings.Cut(rest, "/")
	path, ok = strings.CutPrefix(path, "chunks/")
	if !ok {
		return nil, false, nil
	}
	g, n, ok := strings.Cut(path, "/")
	if !ok {
		return nil, false, nil
	}
	graph, err1 := strconv.ParseUint(g, 10, 64)
	node, err2 := strconv.ParseInt(n, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, false, nil
	}
	l.mu.RLock()
	s, ok := l.svcs[host]
	l.mu.RUnlock()
	if !ok || s.chunk == nil {
		return nil, false, nil
	}
	key := protocol.ChunkKey{Graph: protocol.GraphID(graph), Node: int32(node)}
	a, err := s.chunk(ctx, key)
	if err != nil {
		return nil, true, fmt.Errorf("GET %s: chunk %v: %w", url, key, err)
	}
	return a, true, nil
}
