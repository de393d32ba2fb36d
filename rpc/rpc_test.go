package rpc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
)

func TestDispatchRoundTrip(t *testing.T) {
	full := ops.FullChunk{Shape: []int{4}, DType: ndarray.Float64, Value: 1}
	pre, err := rpc.PreEncode(full)
	if err != nil {
		t.Fatal(err)
	}
	meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
	b := rpc.DispatchBatch{
		Tasks: []protocol.Task{
			{Key: protocol.ChunkKey{Graph: 7, Node: 0}, Op: full, Meta: meta, Priority: protocol.Priority{Depth: 2, Order: 1, Bytes: 32, Succ: 1}},
			{Key: protocol.ChunkKey{Graph: 7, Node: 1}, Op: pre, Meta: meta, Attempt: 2},
			{Key: protocol.ChunkKey{Graph: 7, Node: 2}, Op: ops.Elementwise{Kind: "binary", Name: "add"}, Meta: meta, Inputs: []protocol.Input{
				{Key: protocol.ChunkKey{Graph: 7, Node: 0}, Worker: 1, Nbytes: 32},
				{Key: protocol.ChunkKey{Graph: 3, Node: 9}, Worker: 0, Nbytes: 32}, // another graph's chunk
			}},
		},
		Releases: []protocol.ChunkKey{{Graph: 5, Node: 4}},
		Cancels:  []protocol.GraphID{6},
	}
	req, err := rpc.EncodeDispatch(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Ops) != 2 {
		t.Errorf("%d ops on the wire, want 2 (equal ops sent once)", len(req.Ops))
	}
	back, err := rpc.DecodeDispatch(req)
	if err != nil {
		t.Fatal(err)
	}
	b.Tasks[1].Op = full // decoded ops are plain
	if !reflect.DeepEqual(back, b) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, b)
	}
	req.Tasks[0].Op = 5
	if _, err := rpc.DecodeDispatch(req); err == nil || !strings.Contains(err.Error(), "names op 5") {
		t.Errorf("bad op index: %v", err)
	}
}

func TestResultRoundTrip(t *testing.T) {
	for _, r := range []protocol.Result{
		{Key: protocol.ChunkKey{Graph: 1, Node: 2}, Worker: 3, Outcome: protocol.Started},
		{Key: protocol.ChunkKey{Graph: 1, Node: 2}, Worker: 3, Outcome: protocol.Succeeded, Nbytes: 800},
		{Key: protocol.ChunkKey{Graph: 1, Node: 2}, Worker: 3, Outcome: protocol.Failed, Err: errors.New("boom"), Retryable: true},
		{Key: protocol.ChunkKey{Graph: 1, Node: 2}, Worker: 3, Outcome: protocol.Cancelled},
	} {
		back, err := rpc.DecodeResult(rpc.EncodeResult(r), 3)
		if err != nil {
			t.Fatal(err)
		}
		if back.Outcome != r.Outcome || back.Key != r.Key || back.Nbytes != r.Nbytes || back.Retryable != r.Retryable || (r.Err != nil) != (back.Err != nil) {
			t.Errorf("round trip of %+v: %+v", r, back)
		}
	}
}

func TestChunkStreaming(t *testing.T) {
	base, _ := ndarray.FromFloat64s([]int{300, 700}, make([]float64, 300*700))
	for i := range 300 * 700 {
		base.SetFlat(i, float64(i))
	}
	tr, _ := base.Transpose() // strided: streamed in blocks
	flip, _ := base.Slice([]ndarray.Range{{Start: 299, Step: -2, Len: 150}, {Start: 3, Step: 1, Len: 5}})
	scalar := ndarray.Scalar(ndarray.Int32, 7)
	empty, _ := ndarray.New(ndarray.Bool, 0, 3)
	chunks := map[protocol.ChunkKey]*ndarray.Array{
		{Graph: 1, Node: 0}: base, {Graph: 1, Node: 1}: tr, {Graph: 1, Node: 2}: flip,
		{Graph: 1, Node: 3}: scalar, {Graph: 1, Node: 4}: empty,
	}
	// Every dtype, strided: the narrow, unsigned and half types travel as
	// their bytes with their names.
	for i, dt := range ndarray.DTypes() {
		v, _ := tr.Astype(dt).Transpose()
		chunks[protocol.ChunkKey{Graph: 2, Node: int32(i)}] = v
	}
	mux := http.NewServeMux()
	mux.Handle("GET /chunks/{graph}/{node}", rpc.ChunkHandler(func(_ context.Context, k protocol.ChunkKey) (*ndarray.Array, error) {
		if a, ok := chunks[k]; ok {
			return a, nil
		}
		return nil, errors.New("not here")
	}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for k, want := range chunks {
		got, err := rpc.FetchChunk(context.Background(), srv.Client(), srv.URL+rpc.ChunkPath(k))
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if got.DType() != want.DType() || !ndarray.SameShape(got.Shape(), want.Shape()) || string(got.Bytes()) != string(want.Bytes()) {
			t.Errorf("%v: got %v, want %v", k, got, want)
		}
	}
	_, err := rpc.FetchChunk(context.Background(), srv.Client(), srv.URL+"/chunks/1/99")
	if err == nil || !strings.Contains(err.Error(), "not here") || errors.Is(err, rpc.ErrUnreachable) {
		t.Errorf("missing chunk: %v", err)
	}
	srv.Close()
	if _, err := rpc.FetchChunk(context.Background(), http.DefaultClient, srv.URL+"/chunks/1/0"); !errors.Is(err, rpc.ErrUnreachable) {
		t.Errorf("closed server: %v", err)
	}
}
