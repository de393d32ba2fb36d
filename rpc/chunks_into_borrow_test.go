//go:build linux

package rpc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// The borrowing handler copies the chunk while it is lent, answers 404
// when the lookup fails (fn never called), 409 when the copy fails, and
// the copy's bytes land in the file.
func TestChunkIntoBorrowHandler(t *testing.T) {
	a, _ := ndarray.New(ndarray.Float64, 3, 4)
	for i := range a.Size() {
		a.SetFlat(i, float64(i)*1.5)
	}
	lent := 0
	mux := http.NewServeMux()
	mux.Handle("POST /chunks/{graph}/{node}/into", ChunkIntoBorrowHandler(func(_ context.Context, k protocol.ChunkKey, fn func(*ndarray.Array) error) error {
		if k.Node != 1 {
			return errors.New("no such chunk")
		}
		lent++
		defer func() { lent-- }()
		return fn(a)
	}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	path := resultFile(t, a.Nbytes())
	u := func(n int32) string { return srv.URL + ChunkPath(protocol.ChunkKey{Graph: 1, Node: n}) }
	if err := PostChunkInto(context.Background(), srv.Client(), u(1), ChunkInto{Path: path, DType: "float64", Shape: []int{3, 4}, Start: []int{0, 0}}); err != nil {
		t.Fatal(err)
	}
	if lent != 0 {
		t.Fatal("the chunk is still lent after the copy")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := ndarray.Wrap(ndarray.Float64, []int{3, 4}, b)
	for i := range a.Size() {
		if got.Float64s()[i] != a.Float64s()[i] {
			t.Fatalf("element %d: %v, want %v", i, got.Float64s()[i], a.Float64s()[i])
		}
	}
	for _, c := range []struct {
		node int32
		req  ChunkInto
		want string
	}{
		{2, ChunkInto{Path: path, DType: "float64", Shape: []int{3, 4}, Start: []int{0, 0}}, "404"},
		{1, ChunkInto{Path: path, DType: "float64", Shape: []int{3, 5}, Start: []int{0, 0}}, "409"},
		{1, ChunkInto{Path: path, DType: "float64", Shape: []int{3, 4}, Start: []int{1, 0}}, "does not fit"},
	} {
		err := PostChunkInto(context.Background(), srv.Client(), u(c.node), c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("node %d %+v: got %v, want an error saying %q", c.node, c.req, err, c.want)
		}
	}
}
