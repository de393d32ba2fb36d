package rpc_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// A worker takes the batch carried beside an empty dispatch once, as it
// is; a dispatch with anything in it is decoded; one leaving the process
// carries the batch's encoding, which decodes to the same tasks.
func TestCarriedDispatch(t *testing.T) {
	full := ops.FullChunk{Shape: []int{4}, DType: ndarray.Float64, Value: 1}
	meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
	b := rpc.DispatchBatch{
		Tasks:         []protocol.Task{{Key: protocol.ChunkKey{Graph: 7, Node: 0}, Op: full, Meta: meta, Priority: protocol.Priority{Depth: 1, Order: 2}}},
		Releases:      []protocol.ChunkKey{{Graph: 5, Node: 4}},
		ReleaseFences: []uint64{0},
	}
	ctx := rpc.WithDispatchBatch(context.Background(), b)
	cache := rpc.NewOpCache()

	out, err := rpc.EncodeCarried(ctx, &pb.DispatchRequest{SchedulerId: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if out.SchedulerId != "s1" || len(out.Tasks) != 1 || len(out.ReleaseNodes) != 1 {
		t.Fatalf("leaving the process: %v; want the batch encoded, from s1", out)
	}
	back, err := rpc.DecodeDispatch(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Tasks, b.Tasks) || !reflect.DeepEqual(back.Releases, b.Releases) {
		t.Fatalf("encoded on the way out:\n got %+v\nwant %+v", back, b)
	}
	// a message of its own is decoded, the carried batch left
	if got, err := rpc.TakeDispatch(ctx, out, cache); err != nil || len(got.Tasks) != 1 || &got.Tasks[0] == &b.Tasks[0] {
		t.Fatalf("a full message: %+v, %v", got, err)
	}
	got, err := rpc.TakeDispatch(ctx, &pb.DispatchRequest{}, cache)
	if err != nil || &got.Tasks[0] != &b.Tasks[0] {
		t.Fatalf("carried: %+v, %v; want the sender's own tasks", got, err)
	}
	if got, err := rpc.TakeDispatch(ctx, &pb.DispatchRequest{}, cache); err != nil || len(got.Tasks)+len(got.Releases) != 0 {
		t.Fatalf("taken twice: %+v, %v; want an empty batch", got, err)
	}
	if out, err := rpc.EncodeCarried(ctx, &pb.DispatchRequest{SchedulerId: "s1"}); err != nil || len(out.Tasks) != 0 {
		t.Fatalf("a taken batch encoded again: %v, %v", out, err)
	}
	if got, err := rpc.TakeDispatch(context.Background(), &pb.DispatchRequest{}, cache); err != nil || len(got.Tasks) != 0 {
		t.Fatalf("nothing carried: %+v, %v", got, err)
	}
}
