package rpc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
)

// Fencing tokens and scopes travel with each task; a batch names each
// scope once; the zero fence costs nothing on the wire.
func TestDispatchCarriesFences(t *testing.T) {
	meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
	full := ops.FullChunk{Shape: []int{4}, DType: ndarray.Float64, Value: 1}
	fences := []protocol.Fence{{Scope: "s-a", Token: 3}, {}, {Scope: "s-b", Token: 1 << 40}, {Scope: "s-a", Token: 3}, {Token: 2}}
	var b rpc.DispatchBatch
	for i, f := range fences {
		b.Tasks = append(b.Tasks, protocol.Task{Key: protocol.ChunkKey{Graph: 7, Node: int32(i)}, Op: full, Meta: meta, Attempt: 1, Fence: f})
	}
	req, err := rpc.EncodeDispatch(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := req.FenceScopes; !reflect.DeepEqual(got, []string{"", "s-a", "s-b"}) {
		t.Errorf("scopes on the wire %q", got)
	}
	back, err := rpc.DecodeDispatch(req)
	if err != nil {
		t.Fatal(err)
	}
	for i, tk := range back.Tasks {
		if tk.Fence != fences[i] {
			t.Errorf("task %d: fence %+v, want %+v", i, tk.Fence, fences[i])
		}
	}
	// A batch of lone-scheduler tasks sends no scopes at all.
	req, err = rpc.EncodeDispatch(rpc.DispatchBatch{Tasks: b.Tasks[1:2]})
	if err != nil {
		t.Fatal(err)
	}
	if len(req.FenceScopes) != 0 || req.Tasks[0].Fence != 0 || req.Tasks[0].FenceScope != 0 {
		t.Errorf("zero fence on the wire: scopes %q, task %v", req.FenceScopes, req.Tasks[0])
	}

	valid := func() *pb.DispatchRequest {
		req, err := rpc.EncodeDispatch(b)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	for _, c := range []struct {
		name  string
		spoil func(*pb.DispatchRequest)
		want  string
	}{
		{"scope past the list", func(r *pb.DispatchRequest) { r.Tasks[0].FenceScope = 3 }, "fencing scope 3 of 3"},
		{"negative scope", func(r *pb.DispatchRequest) { r.Tasks[0].FenceScope = -1 }, "fencing scope -1"},
		{"scope without a list", func(r *pb.DispatchRequest) { r.FenceScopes = nil }, "fencing scope 1 of 0"},
		{"long scope", func(r *pb.DispatchRequest) { r.FenceScopes[1] = strings.Repeat("x", rpc.MaxFenceScopeBytes+1) }, "fencing scope 1 is 257 bytes"},
		{"too many scopes", func(r *pb.DispatchRequest) { r.FenceScopes = make([]string, rpc.MaxFenceScopes+1) }, "fencing scopes in one batch"},
	} {
		req := valid()
		c.spoil(req)
		if _, err := rpc.DecodeDispatch(req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// A refusal for a stale token crosses the wire as a typed error, so the
// stale scheduler can tell it lost the session; results echo the token.
func TestResultCarriesFence(t *testing.T) {
	key := protocol.ChunkKey{Graph: 4, Node: 2}
	ok := protocol.Result{Key: key, Attempt: 1, Outcome: protocol.Succeeded, Nbytes: 8, Fence: 5}
	back, err := rpc.DecodeResult(rpc.EncodeResult(ok), 3)
	if err != nil || back.Fence != 5 || back.Worker != 3 {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	refused := protocol.Result{Key: key, Attempt: 1, Outcome: protocol.Failed, Fence: 5,
		Err: &protocol.FencedError{Key: key, Scope: "s", Token: 5, Current: 9}}
	back, err = rpc.DecodeResult(rpc.EncodeResult(refused), 3)
	if err != nil {
		t.Fatal(err)
	}
	var fe *protocol.FencedError
	if !errors.As(back.Err, &fe) || fe.Token != 5 || fe.Current != 9 || fe.Key != key || back.Retryable {
		t.Fatalf("decoded refusal %+v (%v)", back, back.Err)
	}
	for _, c := range []struct {
		name string
		m    *pb.Result
	}{
		{"refused by a lower token", &pb.Result{Graph: 1, Node: 1, Outcome: pb.Outcome_OUTCOME_FAILED, Fence: 5, FencedBy: 4}},
		{"refused by the same token", &pb.Result{Graph: 1, Node: 1, Outcome: pb.Outcome_OUTCOME_FAILED, Fence: 5, FencedBy: 5}},
		{"a refusal that succeeded", &pb.Result{Graph: 1, Node: 1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED, Fence: 1, FencedBy: 2}},
	} {
		if _, err := rpc.DecodeResult(c.m, 0); err == nil || !strings.Contains(err.Error(), "a refusal") {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
}

// fakeInventory serves ListChunks from a fixed list, as a worker would.
type fakeInventory struct {
	phobosv1connect.UnimplementedWorkerServiceHandler
	held  []rpc.HeldChunk
	spoil func(*pb.ListChunksResponse)
	calls int
	fence protocol.Fence // as the last request carried it
	// seen is the token the worker has seen for the scope: a lower one
	// is refused, as a worker process does.
	seen uint64
}

func (f *fakeInventory) ListChunks(_ context.Context, req *connect.Request[pb.ListChunksRequest]) (*connect.Response[pb.ListChunksResponse], error) {
	f.calls++
	q, err := rpc.DecodeChunkQuery(req.Msg)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	f.fence = q.Fence
	if q.Fence.Token < f.seen {
		return nil, connect.NewError(connect.CodeFailedPrecondition, &protocol.FencedError{Key: protocol.ChunkKey{Node: -1}, Scope: q.Fence.Scope, Token: q.Fence.Token, Current: f.seen})
	}
	var held []rpc.HeldChunk
	for _, h := range f.held {
		for _, g := range q.Graphs {
			if h.Key.Graph == g {
				held = append(held, h)
			}
		}
	}
	resp := rpc.EncodeChunkPage(q, held)
	if f.spoil != nil {
		f.spoil(resp)
	}
	return connect.NewResponse(resp), nil
}

func serveInventory(t *testing.T, f *fakeInventory) phobosv1connect.WorkerServiceClient {
	mux := http.NewServeMux()
	mux.Handle(phobosv1connect.NewWorkerServiceHandler(f, rpc.HandlerOptions()...))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return phobosv1connect.NewWorkerServiceClient(srv.Client(), srv.URL, rpc.ClientOptions()...)
}

// ListChunks pages through a worker's inventory: more chunks than one
// answer holds come back whole, in key order, each page bounded.
func TestListChunksPages(t *testing.T) {
	f := &fakeInventory{}
	n := rpc.MaxListChunks*2 + 17
	for i := range n {
		f.held = append(f.held, rpc.HeldChunk{Key: protocol.ChunkKey{Graph: protocol.GraphID(1 + i/rpc.MaxListChunks), Node: int32(i % rpc.MaxListChunks)}, Nbytes: int64(i)})
	}
	f.held = append(f.held, rpc.HeldChunk{Key: protocol.ChunkKey{Graph: 9, Node: 0}, Nbytes: 1}) // not asked for
	client := serveInventory(t, f)
	got, err := rpc.ListChunks(context.Background(), client, protocol.Fence{Scope: "s", Token: 4}, []protocol.GraphID{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f.held[:n]) {
		t.Fatalf("got %d chunks, want %d (first %v, last %v)", len(got), n, got[0], got[len(got)-1])
	}
	if f.calls != 3 {
		t.Errorf("%d requests for %d chunks, want 3", f.calls, n)
	}
	if f.fence != (protocol.Fence{Scope: "s", Token: 4}) {
		t.Errorf("the worker got fence %+v", f.fence)
	}
}

// Hostile inventories and queries are refused, naming what is wrong.
func TestListChunksRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		req  *pb.ListChunksRequest
		want string
	}{
		{"no graphs", &pb.ListChunksRequest{}, "no graphs"},
		{"too many graphs", &pb.ListChunksRequest{Graphs: make([]uint64, rpc.MaxListGraphs+1)}, "more than"},
		{"negative max", &pb.ListChunksRequest{Graphs: []uint64{1}, MaxChunks: -1}, "max_chunks -1"},
		{"negative after", &pb.ListChunksRequest{Graphs: []uint64{1}, HasAfter: true, AfterNode: -1}, "after chunk g0/c-1"},
		{"long scope", &pb.ListChunksRequest{Graphs: []uint64{1}, FenceScope: strings.Repeat("s", rpc.MaxFenceScopeBytes+1)}, "fencing scope of 257 bytes"},
	} {
		if _, err := rpc.DecodeChunkQuery(c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	q, err := rpc.DecodeChunkQuery(&pb.ListChunksRequest{Graphs: []uint64{1}, MaxChunks: 1 << 30})
	if err != nil || q.Max != rpc.MaxListChunks {
		t.Errorf("a max above the bound: %+v, %v", q, err)
	}
	held := []rpc.HeldChunk{{Key: protocol.ChunkKey{Graph: 1, Node: 0}, Nbytes: 8}, {Key: protocol.ChunkKey{Graph: 1, Node: 1}, Nbytes: 8}}
	for _, c := range []struct {
		name  string
		spoil func(*pb.ListChunksResponse)
		want  string
	}{
		{"lists of different lengths", func(r *pb.ListChunksResponse) { r.Nbytes = r.Nbytes[:1] }, "different lengths"},
		{"a graph not asked", func(r *pb.ListChunksResponse) { r.Graphs[1] = 5 }, "not asked about"},
		{"negative size", func(r *pb.ListChunksResponse) { r.Nbytes[0] = -1 }, "-1 bytes"},
		{"negative node", func(r *pb.ListChunksResponse) { r.Nodes[0] = -3 }, "g1/c-3"},
		{"out of order", func(r *pb.ListChunksResponse) { r.Nodes[0], r.Nodes[1] = 1, 0 }, "out of order"},
		{"repeated, never ending", func(r *pb.ListChunksResponse) { r.Nodes[1] = 0; r.More = true }, "out of order"},
	} {
		client := serveInventory(t, &fakeInventory{held: held, spoil: c.spoil})
		if _, err := rpc.ListChunks(context.Background(), client, protocol.Fence{}, []protocol.GraphID{1}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// A worker that answers each page with the same chunks again is out
	// of order on the second page, so paging ends.
	loop := &fakeInventory{held: held, spoil: func(r *pb.ListChunksResponse) {
		r.Graphs, r.Nodes, r.Nbytes, r.More = []uint64{1}, []int32{0}, []int64{8}, true
	}}
	if _, err := rpc.ListChunks(context.Background(), serveInventory(t, loop), protocol.Fence{}, []protocol.GraphID{1}); err == nil || loop.calls != 2 {
		t.Errorf("a looping worker: %v after %d requests", err, loop.calls)
	}
	if _, err := rpc.ListChunks(context.Background(), nil, protocol.Fence{}, nil); err == nil {
		t.Error("no graphs: no error")
	}
}

// Releases and cancels carry their graphs' tokens when any is not 0, and
// lists of the wrong length are refused both ways.
func TestDispatchCarriesReleaseFences(t *testing.T) {
	b := rpc.DispatchBatch{
		Releases:      []protocol.ChunkKey{{Graph: 1, Node: 2}, {Graph: 3, Node: 4}},
		ReleaseFences: []uint64{0, 7},
		Cancels:       []protocol.GraphID{5},
		CancelFences:  []uint64{9},
	}
	req, err := rpc.EncodeDispatch(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := rpc.DecodeDispatch(req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.ReleaseFences, b.ReleaseFences) || !reflect.DeepEqual(back.CancelFences, b.CancelFences) {
		t.Errorf("fences back: %v %v", back.ReleaseFences, back.CancelFences)
	}
	zero := rpc.DispatchBatch{Releases: b.Releases, ReleaseFences: []uint64{0, 0}, Cancels: b.Cancels, CancelFences: []uint64{0}}
	if req, err := rpc.EncodeDispatch(zero); err != nil || req.ReleaseFences != nil || req.CancelFences != nil {
		t.Errorf("zero tokens on the wire: %v %v (%v)", req.GetReleaseFences(), req.GetCancelFences(), err)
	}
	if _, err := rpc.EncodeDispatch(rpc.DispatchBatch{Releases: b.Releases, ReleaseFences: []uint64{3}}); err == nil {
		t.Error("one release fence for two releases: no error")
	}
	req.ReleaseFences = req.ReleaseFences[:1]
	if _, err := rpc.DecodeDispatch(req); err == nil || !strings.Contains(err.Error(), "1 release fences for 2 releases") {
		t.Errorf("decoding short release fences: %v", err)
	}
	req.ReleaseFences, req.CancelFences = nil, []uint64{1, 2}
	if _, err := rpc.DecodeDispatch(req); err == nil || !strings.Contains(err.Error(), "2 cancel fences for 1 cancels") {
		t.Errorf("decoding long cancel fences: %v", err)
	}
}

// GatherInventory fences and asks every worker at once and groups what
// they hold by graph and worker; an unreachable worker is reported apart,
// a worker that has seen a newer owner stops the adoption.
func TestGatherInventory(t *testing.T) {
	k := func(g protocol.GraphID, n int32) rpc.HeldChunk {
		return rpc.HeldChunk{Key: protocol.ChunkKey{Graph: g, Node: n}, Nbytes: 8 * int64(n+1)}
	}
	w0 := &fakeInventory{held: []rpc.HeldChunk{k(1, 0), k(1, 3), k(2, 1), k(5, 0)}}
	w2 := &fakeInventory{held: []rpc.HeldChunk{k(1, 3), k(2, 2)}}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	workers := map[int]phobosv1connect.WorkerServiceClient{
		0: serveInventory(t, w0),
		2: serveInventory(t, w2),
		3: phobosv1connect.NewWorkerServiceClient(http.DefaultClient, gone.URL, rpc.ClientOptions()...),
	}
	fence := protocol.Fence{Scope: "s", Token: 3}
	inv, err := rpc.GatherInventory(context.Background(), workers, fence, []protocol.GraphID{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := map[protocol.GraphID]map[int][]rpc.HeldChunk{
		1: {0: {k(1, 0), k(1, 3)}, 2: {k(1, 3)}},
		2: {0: {k(2, 1)}, 2: {k(2, 2)}},
	}
	if !reflect.DeepEqual(inv.Held, want) {
		t.Errorf("held %v, want %v", inv.Held, want)
	}
	if len(inv.Unreachable) != 1 || inv.Unreachable[3] == nil {
		t.Errorf("unreachable %v, want worker 3", inv.Unreachable)
	}
	if w0.fence != fence || w2.fence != fence {
		t.Errorf("fences sent %+v, %+v", w0.fence, w2.fence)
	}
	w2.seen = 4
	_, err = rpc.GatherInventory(context.Background(), workers, fence, []protocol.GraphID{1})
	var sf *rpc.StaleFenceError
	if !errors.As(err, &sf) || sf.Worker != 2 || connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Errorf("a worker that saw token 4: %v", err)
	}
}
