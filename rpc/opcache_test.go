package rpc_test

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
)

// A batch decoded through an OpCache decodes as without it; ops seen
// before are answered from the cache, others (another value, an
// encoding too large to keep) are decoded, and a malformed op is refused
// as it is without the cache.
func TestOpCacheDecodesAsWithout(t *testing.T) {
	meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
	batch := func(v float64, node int32) rpc.DispatchBatch {
		return rpc.DispatchBatch{Tasks: []protocol.Task{
			{Key: protocol.ChunkKey{Graph: 1, Node: node}, Op: ops.FullChunk{Shape: []int{4}, DType: ndarray.Float64, Value: v}, Meta: meta},
			{Key: protocol.ChunkKey{Graph: 1, Node: node + 1}, Op: ops.Elementwise{Kind: "binary", Name: "add"}, Meta: meta,
				Inputs: []protocol.Input{{Key: protocol.ChunkKey{Graph: 1, Node: node}, Nbytes: 32}, {Key: protocol.ChunkKey{Graph: 1, Node: node}, Nbytes: 32}}},
		}}
	}
	c := rpc.NewOpCache()
	for i, b := range []rpc.DispatchBatch{batch(1, 0), batch(1, 2), batch(2, 4), batch(1, 6)} {
		req, err := rpc.EncodeDispatch(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := rpc.DecodeDispatch(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rpc.DecodeDispatchCached(req, c)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("batch %d: cached decode %+v, want %+v", i, got, want)
		}
	}
	// batch 2 met the add and batch 1's fill; batch 3 the add; batch 4 both
	if h := c.Hits(); h != 5 {
		t.Errorf("%d hits, want 5", h)
	}

	// a malformed op: the same error with and without the cache, twice
	req, err := rpc.EncodeDispatch(batch(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	req.Ops[0] = bytes.Replace(bytes.Clone(req.Ops[0]), []byte("{"), []byte("["), 1)
	_, want := rpc.DecodeDispatch(req)
	if want == nil {
		t.Fatal("a malformed op decoded")
	}
	for range 2 {
		if _, err := rpc.DecodeDispatchCached(req, c); err == nil || err.Error() != want.Error() {
			t.Errorf("cached decode of a malformed op: %v, want %v", err, want)
		}
	}

	// an op of more than the cache keeps is decoded every time
	big := ops.UserBlock{Func: "f", Payload: bytes.Repeat([]byte("x"), 20<<10), DType: ndarray.Float64, Shape: []int{2}}
	req, err = rpc.EncodeDispatch(rpc.DispatchBatch{Tasks: []protocol.Task{{Key: protocol.ChunkKey{Graph: 2}, Op: big, Meta: ops.Meta{Shape: []int{2}, DType: ndarray.Float64}}}})
	if err != nil {
		t.Fatal(err)
	}
	before := c.Hits()
	for range 2 {
		got, err := rpc.DecodeDispatchCached(req, c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Tasks[0].Op.(ops.UserBlock).Payload, big.Payload) {
			t.Error("the large op lost its payload")
		}
	}
	if c.Hits() != before {
		t.Errorf("a large op was answered from the cache")
	}
}

// Ops of a shared payload come from the cache without it and get the
// payload of the batch they came in: another batch's payload, altered, is
// refused even though its op is cached.
func TestOpCacheKeepsPayloadsApart(t *testing.T) {
	c := rpc.NewOpCache()
	p := []byte("the pickled function")
	for range 2 {
		req, err := rpc.EncodeDispatch(userBatch(t, 3, p))
		if err != nil {
			t.Fatal(err)
		}
		back, err := rpc.DecodeDispatchCached(req, c)
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range back.Tasks {
			if op := task.Op.(ops.UserBlock); !bytes.Equal(op.Payload, p) || string(op.Info) != fmt.Sprintf(`{"block_id":[%d]}`, i) {
				t.Fatalf("task %d: payload %q info %s", i, op.Payload, op.Info)
			}
		}
	}
	if c.Hits() != 3 {
		t.Errorf("%d hits, want 3 (the second batch's ops)", c.Hits())
	}
	req, err := rpc.EncodeDispatch(userBatch(t, 3, p))
	if err != nil {
		t.Fatal(err)
	}
	last := len(req.Ops) - 1
	req.Ops[last] = bytes.Clone(req.Ops[last])
	req.Ops[last][len(req.Ops[last])-1] ^= 1
	if _, err := rpc.DecodeDispatchCached(req, c); err == nil {
		t.Error("an altered payload was taken for ops from the cache")
	}
}

// Many more distinct ops than the cache keeps, decoded from several
// goroutines (run under -race), each decode still right.
func TestOpCacheConcurrentAndBounded(t *testing.T) {
	c := rpc.NewOpCache()
	meta := ops.Meta{Shape: []int{1}, DType: ndarray.Float64}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 600 {
				v := float64(i % 300)
				req, err := rpc.EncodeDispatch(rpc.DispatchBatch{Tasks: []protocol.Task{{Key: protocol.ChunkKey{Graph: protocol.GraphID(g + 1), Node: int32(i)},
					Op: ops.FullChunk{Shape: []int{1}, DType: ndarray.Float64, Value: v}, Meta: meta}}})
				if err != nil {
					errs <- err
					return
				}
				back, err := rpc.DecodeDispatchCached(req, c)
				if err != nil {
					errs <- err
					return
				}
				if got := back.Tasks[0].Op.(ops.FullChunk).Value; got != v {
					errs <- fmt.Errorf("op %d decoded with value %v, want %v", i, got, v)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
