//go:build linux

package rpc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

func resultFile(t *testing.T, size int) string {
	t.Helper()
	if _, err := os.Stat(ResultFileDir); err != nil {
		t.Skipf("no %s", ResultFileDir)
	}
	f, err := os.CreateTemp(ResultFileDir, ResultFilePrefix+"test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if err := f.Truncate(int64(size)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return f.Name()
}

// Chunks, contiguous or strided views, land in their boxes of the result
// file; other files are refused.
func TestChunkIntoResultFile(t *testing.T) {
	full, _ := ndarray.New(ndarray.Float64, 7, 5)
	for i := range full.Size() {
		full.SetFlat(i, float64(i)+0.25)
	}
	// Two chunks along axis 0 (rows 0-3, 4-6), the first a transposed view.
	top, _ := full.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: 4}, {Start: 0, Step: 1, Len: 5}})
	topT, _ := top.Copy().Transpose(1, 0)
	topView, _ := topT.Transpose(1, 0) // strided, same values as top
	bottom, _ := full.Slice([]ndarray.Range{{Start: 4, Step: 1, Len: 3}, {Start: 0, Step: 1, Len: 5}})
	chunks := map[int32]*ndarray.Array{0: topView, 1: bottom.Copy()}
	mux := http.NewServeMux()
	mux.Handle("POST /chunks/{graph}/{node}/into", ChunkIntoHandler(func(_ context.Context, k protocol.ChunkKey) (*ndarray.Array, error) {
		return chunks[k.Node], nil
	}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	path := resultFile(t, full.Nbytes())
	for n, start := range map[int32][]int{0: {0, 0}, 1: {4, 0}} {
		u := srv.URL + ChunkPath(protocol.ChunkKey{Graph: 1, Node: n})
		if err := PostChunkInto(context.Background(), srv.Client(), u, ChunkInto{Path: path, DType: "float64", Shape: []int{7, 5}, Start: start}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ndarray.Wrap(ndarray.Float64, []int{7, 5}, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range full.Size() {
		if got.Float64s()[i] != full.Float64s()[i] {
			t.Fatalf("element %d: %v, want %v", i, got.Float64s()[i], full.Float64s()[i])
		}
	}

	u := srv.URL + ChunkPath(protocol.ChunkKey{Graph: 1, Node: 1})
	link := filepath.Join(ResultFileDir, ResultFilePrefix+"link-"+filepath.Base(path))
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(link)
	other := filepath.Join(t.TempDir(), ResultFilePrefix+"x")
	os.WriteFile(other, make([]byte, full.Nbytes()), 0o600)
	for _, c := range []struct {
		req  ChunkInto
		want string
	}{
		{ChunkInto{Path: other, DType: "float64", Shape: []int{7, 5}, Start: []int{4, 0}}, "only /dev/shm/phobos-result-"},
		{ChunkInto{Path: "/dev/shm/../dev/shm/" + filepath.Base(path), DType: "float64", Shape: []int{7, 5}, Start: []int{4, 0}}, "only"},
		{ChunkInto{Path: link, DType: "float64", Shape: []int{7, 5}, Start: []int{4, 0}}, "symbolic links"},
		{ChunkInto{Path: path, DType: "float64", Shape: []int{7, 6}, Start: []int{4, 0}}, "bytes, but a result"},
		{ChunkInto{Path: path, DType: "float64", Shape: []int{7, 5}, Start: []int{5, 0}}, "does not fit"},
		{ChunkInto{Path: path, DType: "float32", Shape: []int{7, 10}, Start: []int{4, 0}}, "the chunk is float64"},
		// 8 bytes times 2^61+35 elements wraps around to the file's 280 bytes.
		{ChunkInto{Path: path, DType: "float64", Shape: []int{1<<61 + 35}, Start: []int{0}}, "out of range"},
	} {
		err := PostChunkInto(context.Background(), srv.Client(), u, c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error saying %q", c.req, err, c.want)
		}
	}
}
