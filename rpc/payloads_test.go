package rpc_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
)

// userBatch is a dispatch of n map_blocks chunk ops that differ (each its
// block_id, the last one shorter), all of one payload, pre-encoded as the
// scheduler sends them.
func userBatch(t testing.TB, n int, payload []byte) rpc.DispatchBatch {
	t.Helper()
	digest := ops.PayloadDigest(payload)
	var b rpc.DispatchBatch
	for i := range n {
		shape := []int{8}
		if i == n-1 {
			shape = []int{3}
		}
		op := ops.UserBlock{Func: "f", Payload: payload, Digest: digest, DType: ndarray.Float64, Shape: shape,
			Info: []byte(fmt.Sprintf(`{"block_id":[%d]}`, i)), InBytes: 64}
		pre, err := rpc.PreEncode(op)
		if err != nil {
			t.Fatal(err)
		}
		b.Tasks = append(b.Tasks, protocol.Task{Key: protocol.ChunkKey{Graph: 1, Node: int32(n + i)}, Op: pre,
			Meta:   ops.Meta{Shape: shape, DType: ndarray.Float64},
			Inputs: []protocol.Input{{Key: protocol.ChunkKey{Graph: 1, Node: int32(i)}, Worker: 0, Nbytes: 64}}})
	}
	return b
}

// A batch of many distinct chunk ops of one function carries its payload
// once: the encoded size does not grow with the payload per chunk, and
// every op decodes with the whole payload.
func TestDispatchPayloadOnce(t *testing.T) {
	const n = 10_000
	rng := rand.New(rand.NewPCG(1, 2))
	payload := func(size int) []byte {
		p := make([]byte, size)
		for i := range p {
			p[i] = byte(rng.UintN(256))
		}
		return p
	}
	small, large := payload(512), payload(64<<10)
	size := map[int]int{}
	for _, p := range [][]byte{small, large} {
		req, err := rpc.EncodeDispatch(userBatch(t, n, p))
		if err != nil {
			t.Fatal(err)
		}
		if len(req.Ops) != n+1 {
			t.Errorf("%d entries on the wire, want %d ops and one payload", len(req.Ops), n)
		}
		size[len(p)] = proto.Size(req)
		back, err := rpc.DecodeDispatch(req)
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range back.Tasks {
			op, ok := task.Op.(ops.UserBlock)
			if !ok || !bytes.Equal(op.Payload, p) || op.Digest != ops.PayloadDigest(p) || string(op.Info) != fmt.Sprintf(`{"block_id":[%d]}`, i) {
				t.Fatalf("task %d decoded as %T with a payload of %d bytes (want %d), info %s", i, task.Op, len(op.Payload), len(p), op.Info)
			}
		}
	}
	grew := size[len(large)] - size[len(small)]
	if grew > 2*(len(large)-len(small)) {
		t.Errorf("a payload %d bytes larger made the batch of %d ops %d bytes larger: the payload travels per op", len(large)-len(small), n, grew)
	}
	// The op a task names is the op without its payload.
	if per := size[len(small)] / n; per > 300 {
		t.Errorf("%d bytes a task", per)
	}
}

// Ops of different payloads each get theirs; an op without a digest keeps
// its payload inline.
func TestDispatchPayloadsApart(t *testing.T) {
	a, c := []byte("function a"), []byte("function c")
	meta := ops.Meta{Shape: []int{2}, DType: ndarray.Float64}
	b := rpc.DispatchBatch{Tasks: []protocol.Task{
		{Key: protocol.ChunkKey{Graph: 1, Node: 0}, Op: ops.UserBlock{Func: "a", Payload: a, Digest: ops.PayloadDigest(a), DType: ndarray.Float64, Shape: []int{2}}, Meta: meta},
		{Key: protocol.ChunkKey{Graph: 1, Node: 1}, Op: ops.UserBlock{Func: "c", Payload: c, Digest: ops.PayloadDigest(c), DType: ndarray.Float64, Shape: []int{2}}, Meta: meta},
		{Key: protocol.ChunkKey{Graph: 1, Node: 2}, Op: ops.UserBlock{Func: "a", Payload: a, DType: ndarray.Float64, Shape: []int{2}}, Meta: meta},
	}}
	req, err := rpc.EncodeDispatch(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := rpc.DecodeDispatch(req)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]byte{a, c, a} {
		if got := back.Tasks[i].Op.(ops.UserBlock).Payload; !bytes.Equal(got, want) {
			t.Errorf("task %d: payload %q, want %q", i, got, want)
		}
	}
}

// A batch whose payload is missing, altered, or named as a task's op is
// refused.
func TestDispatchPayloadRefused(t *testing.T) {
	p := []byte("the pickled function")
	for _, c := range []struct {
		name string
		edit func(ops [][]byte) [][]byte
		task int32
		want string
	}{
		{"missing", func(o [][]byte) [][]byte { return o[:1] }, 0, "does not carry"},
		{"altered", func(o [][]byte) [][]byte {
			o[1] = bytes.Clone(o[1])
			o[1][len(o[1])-1] ^= 1
			return o
		}, 0, "has digest"},
		{"truncated", func(o [][]byte) [][]byte { o[1] = o[1][:20]; return o }, 0, "too short"},
		{"named by a task", func(o [][]byte) [][]byte { return o }, 1, "a payload, not an op"},
	} {
		req, err := rpc.EncodeDispatch(userBatch(t, 1, p))
		if err != nil {
			t.Fatal(err)
		}
		if len(req.Ops) != 2 {
			t.Fatalf("%d entries, want an op and a payload", len(req.Ops))
		}
		req.Ops = c.edit(req.Ops)
		req.Tasks[0].Op = c.task
		if _, err := rpc.DecodeDispatch(req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
