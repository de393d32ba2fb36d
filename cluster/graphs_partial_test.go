package cluster_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/tensor"
)

// GetResult asked with rpc.PartialResultHeader on a graph that has
// succeeded names every chunk where the plain GetResult does; on a
// deleted graph it fails with a code other than FailedPrecondition (the
// one a stream takes as "ask again").
func TestPartialResultLayout(t *testing.T) {
	ctx := context.Background()
	sp, _, _ := startRoles(t, cluster.SchedulerConfig{}, nil, 2)
	hc, err := cluster.NewClient("", rpc.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	gs := phobosv1connect.NewGraphServiceClient(hc, sp.URL(), rpc.ClientOptions()...)
	sess, err := gs.CreateSession(ctx, connect.NewRequest(&pb.CreateSessionRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	sid := sess.Msg.SessionId
	x := tensor.NewGenerator(5).Rand([]int{41, 30}, tensor.Chunks(7, 11))
	tg, results, err := tensor.Build(x.Mul(2))
	if err != nil {
		t.Fatal(err)
	}
	js, err := graph.EncodeTileable(tg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := gs.SubmitGraph(ctx, connect.NewRequest(&pb.SubmitGraphRequest{SessionId: sid, Graph: js, Results: []int32{int32(results[0])}}))
	if err != nil {
		t.Fatal(err)
	}
	gid := st.Msg.GraphId
	done, err := gs.GetGraph(ctx, connect.NewRequest(&pb.GetGraphRequest{SessionId: sid, GraphId: gid, WaitTimeoutMs: 60_000}))
	if err != nil || done.Msg.State != cluster.StateSucceeded {
		t.Fatalf("graph: %v %v", done.Msg.GetState(), err)
	}
	partial := func() (*connect.Response[pb.ResultLayout], error) {
		req := connect.NewRequest(&pb.GetResultRequest{SessionId: sid, GraphId: gid})
		req.Header().Set(rpc.PartialResultHeader, "1")
		return gs.GetResult(ctx, req)
	}
	full, err := gs.GetResult(ctx, connect.NewRequest(&pb.GetResultRequest{SessionId: sid, GraphId: gid}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := partial()
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got.Msg, full.Msg) {
		t.Fatalf("partial layout of a finished graph\n%v\nwant\n%v", got.Msg, full.Msg)
	}
	if len(full.Msg.Chunks) != 6*3 {
		t.Fatalf("%d chunks, want 18", len(full.Msg.Chunks))
	}
	if _, err := gs.CancelGraph(ctx, connect.NewRequest(&pb.CancelGraphRequest{SessionId: sid, GraphId: gid})); err != nil {
		t.Fatal(err)
	}
	if _, err := partial(); err == nil || connect.CodeOf(err) == connect.CodeFailedPrecondition {
		t.Fatalf("partial layout of a deleted graph: %v", err)
	}
}
