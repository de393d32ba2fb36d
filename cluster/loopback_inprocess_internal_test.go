package cluster

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/tensor"
)

// serveElsewhere serves a connect service over HTTP for the length of the
// test: a role of another process.
func serveElsewhere(t *testing.T) func(path string, h http.Handler) *httptest.Server {
	return func(path string, h http.Handler) *httptest.Server {
		mux := http.NewServeMux()
		mux.Handle(path, h)
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv
	}
}

// submittedGraphs keeps the graphs submitted to it, as its scheduler would
// read them (rpc.DecodeSubmitted).
type submittedGraphs struct {
	phobosv1connect.UnimplementedGraphServiceHandler
	mu      sync.Mutex
	encoded [][]byte
	graphs  []*graph.TileableGraph
}

func (s *submittedGraphs) SubmitGraph(ctx context.Context, req *connect.Request[pb.SubmitGraphRequest]) (*connect.Response[pb.GraphStatus], error) {
	g, err := rpc.DecodeSubmitted(ctx, req.Msg.Graph)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.encoded = append(s.encoded, req.Msg.Graph)
	s.graphs = append(s.graphs, g)
	return connect.NewResponse(&pb.GraphStatus{SessionId: req.Msg.SessionId}), nil
}

// A graph the web service built goes to the scheduler of its process
// without an encoding, taken as it is; to a scheduler elsewhere (here:
// once the local one stopped) encoded.
func TestLoopbackSubmitsBuiltGraphs(t *testing.T) {
	tg, _, err := tensor.Build(tensor.ArangeN(100).Mul(2).Sum())
	if err != nil {
		t.Fatal(err)
	}
	enc, err := graph.EncodeTileable(tg)
	if err != nil {
		t.Fatal(err)
	}
	remote := &submittedGraphs{}
	srv := serveElsewhere(t)(phobosv1connect.NewGraphServiceHandler(remote))

	lb := NewLoopback("")
	local := &submittedGraphs{}
	lb.serve(srv.URL, http.NotFoundHandler(), services{graphs: local})
	c := lb.graphs(srv.URL, phobosv1connect.NewGraphServiceClient(srv.Client(), srv.URL))
	if tk, ok := c.(rpc.BuiltGraphTaker); !ok || !tk.TakesBuiltGraph() {
		t.Fatalf("client %T does not take built graphs", c)
	}
	submit := func() {
		t.Helper()
		ctx := rpc.WithBuiltGraph(context.Background(), tg)
		if _, err := c.SubmitGraph(ctx, connect.NewRequest(&pb.SubmitGraphRequest{SessionId: "s1"})); err != nil {
			t.Fatal(err)
		}
	}
	submit()
	if len(local.graphs) != 1 || local.graphs[0] != tg || len(local.encoded[0]) != 0 || len(remote.graphs) != 0 {
		t.Fatalf("in process: local took %d graphs (the built one: %v), remote %d", len(local.graphs), len(local.graphs) == 1 && local.graphs[0] == tg, len(remote.graphs))
	}
	lb.drop(srv.URL)
	submit()
	if len(remote.graphs) != 1 || string(remote.encoded[0]) != string(enc) || len(local.graphs) != 1 {
		t.Fatalf("elsewhere: remote got %d graphs, encoded as %q; want %q", len(remote.graphs), remote.encoded, enc)
	}
	// and a submission without a graph at all is refused there, as before
	_, err = c.SubmitGraph(context.Background(), connect.NewRequest(&pb.SubmitGraphRequest{SessionId: "s1"}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("no graph: %v, want invalid argument", err)
	}
}

// A chunk of a worker of this process is read without a request; any
// other URL is left to HTTP, and a worker's refusal comes back as the
// request's would, an error naming the chunk.
func TestLoopbackGetChunk(t *testing.T) {
	lb := NewLoopback("")
	const base = "http://127.0.0.1:9"
	held, err := ndarray.FromFloat64s([]int{3}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	lb.serve(base, http.NotFoundHandler(), services{chunk: func(_ context.Context, key protocol.ChunkKey) (*ndarray.Array, error) {
		if key != (protocol.ChunkKey{Graph: 7, Node: 2}) {
			return nil, errors.New("no such chunk")
		}
		return held, nil
	}})
	a, ok, err := lb.GetChunk(context.Background(), base+"/chunks/7/2")
	if !ok || err != nil || a != held {
		t.Fatalf("held chunk: %v, %v, %v", a, ok, err)
	}
	if _, ok, err := lb.GetChunk(context.Background(), base+"/chunks/7/3"); !ok || err == nil || !strings.Contains(err.Error(), "no such chunk") {
		t.Fatalf("missing chunk: ok %v, err %v", ok, err)
	}
	for _, u := range []string{"http://127.0.0.1:10/chunks/7/2", base + "/chunks/x/2", base + "/chunks/7", base + "/api/chunks/7/2", "https://127.0.0.1:9/chunks/7/2", base} {
		if _, ok, _ := lb.GetChunk(context.Background(), u); ok {
			t.Errorf("%s read in process", u)
		}
	}
	lb.drop(base)
	if _, ok, _ := lb.GetChunk(context.Background(), base+"/chunks/7/2"); ok {
		t.Fatal("a dropped worker's chunk was read in process")
	}
	var none *Loopback
	if _, ok, _ := none.GetChunk(context.Background(), base+"/chunks/7/2"); ok {
		t.Fatal("no loopback read a chunk")
	}
}

// takenDispatches keeps the batches dispatched to it, as its worker reads
// them (rpc.TakeDispatch).
type takenDispatches struct {
	phobosv1connect.UnimplementedWorkerServiceHandler
	mu      sync.Mutex
	batches []rpc.DispatchBatch
	encoded []int // tasks on the wire per message
}

func (s *takenDispatches) Dispatch(ctx context.Context, req *connect.Request[pb.DispatchRequest]) (*connect.Response[pb.DispatchResponse], error) {
	b, err := rpc.TakeDispatch(ctx, req.Msg, rpc.NewOpCache())
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, b)
	s.encoded = append(s.encoded, len(req.Msg.Tasks))
	return connect.NewResponse(&pb.DispatchResponse{}), nil
}

// A scheduler's batch goes to a worker of its process in the call's
// context, its tasks taken as they are; to a worker elsewhere (here: once
// the local one stopped) encoded.
func TestLoopbackCarriesDispatches(t *testing.T) {
	remote := &takenDispatches{}
	srv := serveElsewhere(t)(phobosv1connect.NewWorkerServiceHandler(remote))

	lb := NewLoopback("")
	local := &takenDispatches{}
	lb.serve(srv.URL, http.NotFoundHandler(), services{worker: local})
	c := lb.worker(srv.URL, phobosv1connect.NewWorkerServiceClient(srv.Client(), srv.URL))
	if bt, ok := c.(rpc.BatchTaker); !ok || !bt.TakesBatches() {
		t.Fatalf("client %T does not take carried batches", c)
	}
	meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
	b := rpc.DispatchBatch{Tasks: []protocol.Task{{Key: protocol.ChunkKey{Graph: 3, Node: 1}, Op: ops.FullChunk{Shape: []int{4}, DType: ndarray.Float64, Value: 2}, Meta: meta}}}
	send := func() {
		t.Helper()
		ctx := rpc.WithDispatchBatch(context.Background(), b)
		if _, err := c.Dispatch(ctx, connect.NewRequest(&pb.DispatchRequest{SchedulerId: "s"})); err != nil {
			t.Fatal(err)
		}
	}
	send()
	if len(local.batches) != 1 || &local.batches[0].Tasks[0] != &b.Tasks[0] || local.encoded[0] != 0 || len(remote.batches) != 0 {
		t.Fatalf("in process: local took %d batches (on the wire %v), remote %d", len(local.batches), local.encoded, len(remote.batches))
	}
	lb.drop(srv.URL)
	send()
	if len(remote.batches) != 1 || remote.encoded[0] != 1 || remote.batches[0].Tasks[0].Key != b.Tasks[0].Key || len(local.batches) != 1 {
		t.Fatalf("elsewhere: remote got %d batches, %v tasks on the wire", len(remote.batches), remote.encoded)
	}
}
