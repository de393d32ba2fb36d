package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// TestStreamResultAheadFails: a result of many small bands, fetched ahead,
// whose chunk 37 of 100 cannot be read: the stream ends with an error and
// leaves no fetch running (the test ends; -race sees the goroutines).
func TestStreamResultAheadFails(t *testing.T) {
	const n = 100
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	lay := &pb.ResultLayout{Dtype: "float64", Shape: []int64{n}, Nsplits: []*pb.Splits{{}}}
	for i := range n {
		lay.Nsplits[0].Sizes = append(lay.Nsplits[0].Sizes, 1)
		k := protocol.ChunkKey{Graph: 1, Node: int32(i)}
		lay.Chunks = append(lay.Chunks, &pb.ChunkLocation{Graph: 1, Node: int32(i), Url: srv.URL + rpc.ChunkPath(k)})
	}
	mux.Handle("GET /chunks/{graph}/{node}", rpc.ChunkHandler(func(_ context.Context, k protocol.ChunkKey) (*ndarray.Array, error) {
		if k.Node == 37 {
			return nil, errors.New("gone")
		}
		return ndarray.FromFloat64s([]int{1}, []float64{float64(k.Node)})
	}))
	s := New(Config{HTTP: srv.Client()})
	rec := httptest.NewRecorder()
	if err := s.streamResult(context.Background(), rec, lay, ""); err == nil {
		t.Fatal("a stream missing a chunk succeeded")
	}
	// The bands before the missing one were written, in order.
	body := rec.Body.Bytes()
	hdr, err := npyHeader(ndarray.Float64, []int{n})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ndarray.FromBytes(ndarray.Float64, []int{(len(body) - len(hdr)) / 8}, body[len(hdr):])
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Float64s()) != 37 {
		t.Fatalf("%d values written before the failure, want 37", len(got.Float64s()))
	}
	for i, v := range got.Float64s() {
		if v != float64(i) {
			t.Fatalf("value %d is %v", i, v)
		}
	}
}
