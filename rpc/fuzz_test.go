package rpc_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// FuzzDecodeDispatch decodes arbitrary bytes as a worker's Dispatch: an
// error or a batch whose every field passed its checks, never a panic.
func FuzzDecodeDispatch(f *testing.F) {
	meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
	req, err := rpc.EncodeDispatch(rpc.DispatchBatch{
		Tasks: []protocol.Task{
			{Key: protocol.ChunkKey{Graph: 7, Node: 0}, Op: ops.FullChunk{Shape: []int{4}, DType: ndarray.Float64, Value: 1}, Meta: meta, Attempt: 1},
			{Key: protocol.ChunkKey{Graph: 7, Node: 1}, Op: ops.Elementwise{Kind: "binary", Name: "add"}, Meta: meta, Attempt: 2,
				Inputs: []protocol.Input{{Key: protocol.ChunkKey{Graph: 7, Node: 0}, Worker: 1, Nbytes: 32}}},
		},
		Releases: []protocol.ChunkKey{{Graph: 5, Node: 4}},
		Cancels:  []protocol.GraphID{6},
	})
	if err != nil {
		f.Fatal(err)
	}
	b, err := proto.Marshal(req)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m pb.DispatchRequest
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		batch, err := rpc.DecodeDispatch(&m)
		if err != nil {
			return
		}
		for _, task := range batch.Tasks {
			if task.Key.Node < 0 || task.Attempt < 0 || task.Op == nil {
				t.Fatalf("decoded a task that should have been refused: %+v", task)
			}
		}
	})
}

// FuzzDecodeResult decodes arbitrary bytes as a reported result.
func FuzzDecodeResult(f *testing.F) {
	b, err := proto.Marshal(rpc.EncodeResult(protocol.Result{Key: protocol.ChunkKey{Graph: 3, Node: 2}, Attempt: 1, Outcome: protocol.Failed, Retryable: true, Lost: []protocol.ChunkKey{{Graph: 3, Node: 1}}}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m pb.Result
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		r, err := rpc.DecodeResult(&m, 0)
		if err == nil && (r.Key.Node < 0 || r.Nbytes < 0 || r.Attempt < 0 || r.Outcome == 0) {
			t.Fatalf("decoded a result that should have been refused: %+v", r)
		}
	})
}
