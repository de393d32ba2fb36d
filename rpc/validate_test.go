package rpc_test

import (
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// Every field of a task or result from the network is checked before use:
// a bad one is an error naming the task and the field, never a panic or a
// value taken on trust.
func TestDecodeRefusesBadFields(t *testing.T) {
	valid := func() *pb.DispatchRequest {
		meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
		req, err := rpc.EncodeDispatch(rpc.DispatchBatch{Tasks: []protocol.Task{{
			Key: protocol.ChunkKey{Graph: 7, Node: 3}, Op: ops.Elementwise{Kind: "binary", Name: "add"}, Meta: meta, Attempt: 1,
			Inputs: []protocol.Input{{Key: protocol.ChunkKey{Graph: 7, Node: 0}, Worker: 1, Nbytes: 32}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	if _, err := rpc.DecodeDispatch(valid()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		spoil func(*pb.DispatchRequest)
		want  string
	}{
		{"negative node", func(r *pb.DispatchRequest) { r.Tasks[0].Node = -1 }, "negative node"},
		{"negative attempt", func(r *pb.DispatchRequest) { r.Tasks[0].Attempt = -2 }, "attempt -2"},
		{"no priority", func(r *pb.DispatchRequest) { r.Tasks[0].Priority = nil }, "no priority"},
		{"input worker", func(r *pb.DispatchRequest) { r.Tasks[0].InputWorkers[0] = -7 }, "input 0: worker -7"},
		{"input bytes", func(r *pb.DispatchRequest) { r.Tasks[0].InputNbytes[0] = -1 }, "input 0: -1 bytes"},
		{"input node", func(r *pb.DispatchRequest) { r.Tasks[0].InputNodes[0] = -4 }, "input 0: node -4"},
		{"input lists", func(r *pb.DispatchRequest) { r.Tasks[0].InputNbytes = nil }, "input lists"},
		{"negative axis", func(r *pb.DispatchRequest) { r.Tasks[0].Shape = []int64{4, -1} }, "axis 1"},
		{"overflowing shape", func(r *pb.DispatchRequest) { r.Tasks[0].Shape = []int64{1 << 40, 1 << 40} }, "too many elements"},
		{"dtype", func(r *pb.DispatchRequest) { r.Tasks[0].Dtype = "complex256" }, "g7/c3"},
		{"empty task", func(r *pb.DispatchRequest) { r.Tasks[0] = nil }, "task 0 of the batch is empty"},
		{"release node", func(r *pb.DispatchRequest) { r.ReleaseGraphs, r.ReleaseNodes = []uint64{7}, []int32{-3} }, "g7/c-3"},
	} {
		req := valid()
		c.spoil(req)
		_, err := rpc.DecodeDispatch(req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		m    *pb.Result
		want string
	}{
		{"nil", nil, "empty result"},
		{"negative node", &pb.Result{Graph: 1, Node: -1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED}, "negative node"},
		{"negative attempt", &pb.Result{Graph: 1, Node: 1, Attempt: -1, Outcome: pb.Outcome_OUTCOME_SUCCEEDED}, "attempt -1"},
		{"negative bytes", &pb.Result{Graph: 1, Node: 1, Nbytes: -8, Outcome: pb.Outcome_OUTCOME_SUCCEEDED}, "-8 bytes"},
		{"lost node", &pb.Result{Graph: 1, Node: 1, LostNodes: []int32{-2}, Outcome: pb.Outcome_OUTCOME_FAILED}, "lost node -2"},
		{"no outcome", &pb.Result{Graph: 1, Node: 1}, "no outcome"},
		{"unknown outcome", &pb.Result{Graph: 1, Node: 1, Outcome: 99}, "no outcome"},
	} {
		_, err := rpc.DecodeResult(c.m, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}
