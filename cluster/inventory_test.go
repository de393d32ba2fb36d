package cluster_test

import (
	"context"
	"errors"
	"testing"

	"connectrpc.com/connect"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
	"github.com/phobos-tensor/phobos/rpc/phobosv1/phobosv1connect"
	"github.com/phobos-tensor/phobos/tensor"
)

// A worker process answers ListChunks with the result chunks it holds of
// a finished graph (what an adopting scheduler rebuilds the graph from),
// after raising the session's fence to the asker's token; a lower token
// is refused with FailedPrecondition and a malformed request with
// InvalidArgument.
func TestWorkerListsChunks(t *testing.T) {
	ctx := context.Background()
	sp, ws, _ := startRoles(t, cluster.SchedulerConfig{}, nil, 2)
	gs, sid, gid := runOnScheduler(ctx, t, sp.URL(), tensor.NewGenerator(3).Rand([]int{40, 30}, tensor.Chunks(7, 11)).Add(1))
	layout, err := gs.GetResult(ctx, connect.NewRequest(&pb.GetResultRequest{SessionId: sid, GraphId: gid}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]map[protocol.ChunkKey]int64{}
	var id protocol.GraphID
	for _, c := range layout.Msg.Chunks {
		id = protocol.GraphID(c.Graph)
		if want[int(c.Worker)] == nil {
			want[int(c.Worker)] = map[protocol.ChunkKey]int64{}
		}
		n := int64(8)
		for _, s := range c.Shape {
			n *= s
		}
		want[int(c.Worker)][protocol.ChunkKey{Graph: id, Node: c.Node}] = n
	}
	if len(layout.Msg.Chunks) != 6*3 {
		t.Fatalf("%d result chunks, want 18", len(layout.Msg.Chunks))
	}
	hc, err := cluster.NewClient("", rpc.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	fence := protocol.Fence{Scope: sid, Token: 5}
	total := 0
	for _, w := range ws {
		client := phobosv1connect.NewWorkerServiceClient(hc, w.URL(), rpc.ClientOptions()...)
		held, err := rpc.ListChunks(ctx, client, fence, []protocol.GraphID{id, id + 1})
		if err != nil {
			t.Fatalf("worker %d: %v", w.ID(), err)
		}
		if len(held) != len(want[w.ID()]) {
			t.Errorf("worker %d lists %d chunks, holds %d results", w.ID(), len(held), len(want[w.ID()]))
		}
		for _, h := range held {
			if n, ok := want[w.ID()][h.Key]; !ok || n != h.Nbytes {
				t.Errorf("worker %d lists %v of %d bytes; the layout says %d (%v)", w.ID(), h.Key, h.Nbytes, n, ok)
			}
		}
		total += len(held)
		_, err = rpc.ListChunks(ctx, client, protocol.Fence{Scope: sid, Token: 4}, []protocol.GraphID{id})
		if connect.CodeOf(err) != connect.CodeFailedPrecondition {
			t.Errorf("worker %d: a lower token: %v, want FailedPrecondition", w.ID(), err)
		}
		_, err = client.ListChunks(ctx, connect.NewRequest(&pb.ListChunksRequest{}))
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
			t.Errorf("worker %d: no graphs: %v, want InvalidArgument", w.ID(), err)
		}
	}
	if total != 18 {
		t.Errorf("the workers list %d chunks, want the 18 results", total)
	}
}
