package cluster_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/tensor"
)

// runOnScheduler runs x in a new session of the scheduler process at url,
// through its graph service, and returns the service, the session and
// the graph, which has succeeded.
func runOnScheduler(ctx context.Context, t *testing.T, url string, x *tensor.Tensor) (gs phobosv1connect.GraphServiceClient, sid, gid string) {
	t.Helper()
	hc, err := cluster.NewClient("", rpc.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	gs = phobosv1connect.NewGraphServiceClient(hc, url, rpc.ClientOptions()...)
	sess, err := gs.CreateSession(ctx, connect.NewRequest(&pb.CreateSessionRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	sid = sess.Msg.SessionId
	tg, results, err := tensor.Build(x)
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
	gid = st.Msg.GraphId
	done, err := gs.GetGraph(ctx, connect.NewRequest(&pb.GetGraphRequest{SessionId: sid, GraphId: gid, WaitTimeoutMs: 60_000}))
	if err != nil || done.Msg.State != cluster.StateSucceeded {
		t.Fatalf("graph: %v %v", done.Msg.GetState(), err)
	}
	return gs, sid, gid
}
