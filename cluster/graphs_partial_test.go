package cluster_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/tensor"
)

// GetResult asked with rpc.PartialResultHeader on a graph that has
// succeeded names every chunk where the plain GetResult does; on a
// deleted graph it fails with a code other than FailedPrecondition (the
// one a stream takes as "ask again").
func TestPartialResultLayout(t *testing.T) {
	ctx := context.Background()
	sp, _, _ := startRoles(t, cluster.SchedulerConfig{}, nil, 2)
	gs, sid, gid := runOnScheduler(ctx, t, sp.URL(), tensor.NewGenerator(5).Rand([]int{41, 30}, tensor.Chunks(7, 11)).Mul(2))
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
