//go:build linux

package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// Results of random shapes and chunkings (chunks of 1, uneven last
// chunks, one chunk larger than needed) written into a shared-memory file
// by the workers equal the arrays; workers not on loopback are refused.
func TestWriteIntoResultFile(t *testing.T) {
	if _, err := os.Stat(rpc.ResultFileDir); err != nil {
		t.Skipf("no %s", rpc.ResultFileDir)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		nd := r.IntN(3) + 1
		shape := make([]int, nd)
		nsplits := make([][]int, nd)
		grid := make([]int, nd)
		for ax := range nd {
			shape[ax] = r.IntN(9) + 1
			c := r.IntN(shape[ax]+1) + 1
			for left := shape[ax]; left > 0; left -= c {
				nsplits[ax] = append(nsplits[ax], min(left, c))
			}
			grid[ax] = len(nsplits[ax])
		}
		full, _ := ndarray.New(ndarray.Float64, shape...)
		for i := range full.Size() {
			full.SetFlat(i, float64(i)*1.5)
		}
		lay := &pb.ResultLayout{Dtype: "float64"}
		for ax, d := range shape {
			lay.Shape = append(lay.Shape, int64(d))
			s := &pb.Splits{}
			for _, n := range nsplits[ax] {
				s.Sizes = append(s.Sizes, int64(n))
			}
			lay.Nsplits = append(lay.Nsplits, s)
		}
		offs := ops.AxisOffsets(nsplits)
		chunks := map[int32]*ndarray.Array{}
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		node := int32(0)
		ops.ForEachGrid(grid, func(idx []int) {
			rs := make([]ndarray.Range, nd)
			for ax := range nd {
				rs[ax] = ndarray.Range{Start: offs[ax][idx[ax]], Step: 1, Len: nsplits[ax][idx[ax]]}
			}
			v, _ := full.Slice(rs)
			chunks[node] = v
			lay.Chunks = append(lay.Chunks, &pb.ChunkLocation{Graph: 1, Node: node, Url: srv.URL + rpc.ChunkPath(protocol.ChunkKey{Graph: 1, Node: node})})
			node++
		})
		mux.Handle("POST /chunks/{graph}/{node}/into", rpc.ChunkIntoHandler(func(_ context.Context, k protocol.ChunkKey) (*ndarray.Array, error) {
			return chunks[k.Node], nil
		}))
		f, err := os.CreateTemp(rpc.ResultFileDir, rpc.ResultFilePrefix+"webtest-*")
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(int64(full.Nbytes()))
		f.Close()
		s := New(Config{HTTP: srv.Client()})
		if err := s.writeInto(context.Background(), lay, f.Name(), nil); err != nil {
			t.Fatalf("trial %d %v %v: %v", trial, shape, nsplits, err)
		}
		b, _ := os.ReadFile(f.Name())
		os.Remove(f.Name())
		got, _ := ndarray.Wrap(ndarray.Float64, shape, b)
		if fmt.Sprint(got.Float64s()) != fmt.Sprint(full.Float64s()) {
			t.Fatalf("trial %d %v %v: got %v, want %v", trial, shape, nsplits, got.Float64s(), full.Float64s())
		}
		srv.Close()
	}
	lay := &pb.ResultLayout{Dtype: "float64", Shape: []int64{2}, Nsplits: []*pb.Splits{{Sizes: []int64{2}}},
		Chunks: []*pb.ChunkLocation{{Graph: 1, Node: 0, Url: "http://10.1.2.3:9/chunks/1/0"}}}
	if err := New(Config{}).writeInto(context.Background(), lay, rpc.ResultFileDir+"/"+rpc.ResultFilePrefix+"none", nil); err == nil {
		t.Fatal("a worker on another host was asked to write into this host's memory")
	}
}
