package web

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

func TestNpyHeaderMatchesNpyWrite(t *testing.T) {
	for _, shape := range [][]int{{}, {0}, {5}, {3, 4}, {2, 0, 7}, {123456789, 2}} {
		for _, dt := range []ndarray.DType{ndarray.Float64, ndarray.Float32, ndarray.Int64, ndarray.Int32, ndarray.Bool} {
			h, err := npyHeader(dt, shape)
			if err != nil {
				t.Fatal(err)
			}
			if ndarray.Size(shape) > 1000 {
				// Parse it back: the header of a huge array, no data.
				if _, err := npy.Read(bytes.NewReader(h)); err == nil || !strings.Contains(err.Error(), "truncated") {
					t.Errorf("%v%v: header does not read back: %v", dt, shape, err)
				}
				continue
			}
			a, _ := ndarray.New(dt, shape...)
			var full bytes.Buffer
			if err := npy.Write(&full, a); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(full.Bytes(), h) || full.Len() != len(h)+a.Nbytes() {
				t.Errorf("%v%v: header %q is not npy.Write's", dt, shape, h)
			}
		}
	}
}

// randomSpec makes a slice spec for shape, with integers, steps and
// negative bounds.
func randomSpec(r *rand.Rand, shape []int) string {
	n := r.IntN(len(shape) + 1)
	items := make([]string, n)
	for ax := range n {
		d := shape[ax]
		switch r.IntN(4) {
		case 0:
			items[ax] = fmt.Sprint(r.IntN(2*d) - d)
		case 1:
			items[ax] = ":"
		default:
			part := func() string {
				if r.IntN(3) == 0 {
					return ""
				}
				return fmt.Sprint(r.IntN(2*d+4) - d - 2)
			}
			step := r.IntN(7) - 3
			if step == 0 {
				step = 1
			}
			items[ax] = part() + ":" + part() + ":" + fmt.Sprint(step)
		}
	}
	return strings.Join(items, ",")
}

// sliceBySpec is the reference: the same selection through ndarray views.
func sliceBySpec(a *ndarray.Array, sel []axisSel) *ndarray.Array {
	ranges := make([]ndarray.Range, len(sel))
	var shape []int
	for ax, s := range sel {
		ranges[ax] = ndarray.Range{Start: s.start, Step: s.step, Len: s.n}
		if !s.drop {
			shape = append(shape, s.n)
		}
	}
	v, err := a.Slice(ranges)
	if err != nil {
		panic(err)
	}
	out, err := v.Copy().Reshape(shape...)
	if err != nil {
		panic(err)
	}
	return out
}

// TestStreamResultSlices streams random slices of chunked arrays served by a
// fake worker and checks them against slicing the whole array.
func TestStreamResultSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		nd := r.IntN(3) + 1
		shape := make([]int, nd)
		nsplits := make([][]int, nd)
		for ax := range nd {
			shape[ax] = r.IntN(9) + 1
			left := shape[ax]
			for left > 0 {
				c := min(left, r.IntN(4)+1)
				nsplits[ax] = append(nsplits[ax], c)
				left -= c
			}
		}
		full, _ := ndarray.New(ndarray.Float64, shape...)
		for i := range full.Size() {
			full.SetFlat(i, float64(i))
		}
		// Cut it into chunks, some stored as transposed views, and serve them.
		chunks := map[protocol.ChunkKey]*ndarray.Array{}
		lay := &pb.ResultLayout{Dtype: "float64"}
		for _, d := range shape {
			lay.Shape = append(lay.Shape, int64(d))
		}
		for _, sp := range nsplits {
			s := &pb.Splits{}
			for _, n := range sp {
				s.Sizes = append(s.Sizes, int64(n))
			}
			lay.Nsplits = append(lay.Nsplits, s)
		}
		offs := ops.AxisOffsets(nsplits)
		grid := make([]int, nd)
		for ax := range nd {
			grid[ax] = len(nsplits[ax])
		}
		node := int32(0)
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		ops.ForEachGrid(grid, func(idx []int) {
			ranges := make([]ndarray.Range, nd)
			for ax := range nd {
				ranges[ax] = ndarray.Range{Start: offs[ax][idx[ax]], Step: 1, Len: nsplits[ax][idx[ax]]}
			}
			v, _ := full.Slice(ranges)
			if node%2 == 1 {
				v = v.Copy() // contiguous; others stay strided views
			}
			k := protocol.ChunkKey{Graph: 1, Node: node}
			chunks[k] = v
			lay.Chunks = append(lay.Chunks, &pb.ChunkLocation{Graph: 1, Node: node, Url: srv.URL + rpc.ChunkPath(k)})
			node++
		})
		get := func(_ context.Context, k protocol.ChunkKey) (*ndarray.Array, error) {
			return chunks[k], nil
		}
		mux.Handle("GET /chunks/{graph}/{node}", rpc.ChunkHandler(get))
		mux.Handle("GET /chunks/{graph}", rpc.ChunkBatchHandler(get))
		s := New(Config{HTTP: srv.Client()})
		for range 10 {
			spec := randomSpec(r, shape)
			sel, err := parseSlice(spec, shape)
			if err != nil {
				continue // out of bounds integers are an error, checked elsewhere
			}
			rec := httptest.NewRecorder()
			if err := s.streamResult(context.Background(), rec, lay, spec); err != nil {
				t.Fatalf("trial %d %v %v slice %q: %v", trial, shape, nsplits, spec, err)
			}
			got, err := npy.Read(rec.Body)
			if err != nil {
				t.Fatalf("trial %d slice %q: %v", trial, spec, err)
			}
			want := sliceBySpec(full, sel)
			if !ndarray.SameShape(got.Shape(), want.Shape()) || fmt.Sprint(got.ToFloat64s()) != fmt.Sprint(want.ToFloat64s()) {
				t.Fatalf("trial %d shape %v nsplits %v slice %q:\n got %v %v\nwant %v %v", trial, shape, nsplits, spec, got.Shape(), got.ToFloat64s(), want.Shape(), want.ToFloat64s())
			}
		}
		srv.Close()
	}
}

func TestParseSliceErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"1,2,3":   "3 items",
		"a":       "want an integer",
		"5":       "out of bounds",
		"-6":      "out of bounds",
		"::0":     "step cannot be zero",
		"1:2:3:4": "too many colons",
		"1:x":     `"x" is not an integer`,
	} {
		if _, err := parseSlice(spec, []int{5, 4}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", spec, err, want)
		}
	}
}

// TestStreamResultManyBands streams results of more bands than are fetched
// ahead, in order, and stops cleanly when a chunk in the middle is missing.
func TestStreamResultManyBands(t *testing.T) {
	for _, tc := range []struct {
		shape, chunk []int
		missing      int32 // a chunk the worker does not have; -1: none
	}{
		{[]int{1000}, []int{3}, -1},
		{[]int{97, 10}, []int{2, 3}, -1},
		{[]int{1000}, []int{1}, 700},
		{[]int{60, 6}, []int{1, 4}, 5},
	} {
		nd := len(tc.shape)
		nsplits := make([][]int, nd)
		grid := make([]int, nd)
		for ax, d := range tc.shape {
			for left := d; left > 0; left -= tc.chunk[ax] {
				nsplits[ax] = append(nsplits[ax], min(left, tc.chunk[ax]))
			}
			grid[ax] = len(nsplits[ax])
		}
		full, _ := ndarray.New(ndarray.Float64, tc.shape...)
		for i := range full.Size() {
			full.SetFlat(i, float64(i))
		}
		lay := &pb.ResultLayout{Dtype: "float64"}
		for ax, d := range tc.shape {
			lay.Shape = append(lay.Shape, int64(d))
			s := &pb.Splits{}
			for _, n := range nsplits[ax] {
				s.Sizes = append(s.Sizes, int64(n))
			}
			lay.Nsplits = append(lay.Nsplits, s)
		}
		offs := ops.AxisOffsets(nsplits)
		chunks := map[protocol.ChunkKey]*ndarray.Array{}
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		node := int32(0)
		ops.ForEachGrid(grid, func(idx []int) {
			ranges := make([]ndarray.Range, nd)
			for ax := range nd {
				ranges[ax] = ndarray.Range{Start: offs[ax][idx[ax]], Step: 1, Len: nsplits[ax][idx[ax]]}
			}
			v, _ := full.Slice(ranges)
			k := protocol.ChunkKey{Graph: 1, Node: node}
			if node != tc.missing {
				chunks[k] = v
			}
			lay.Chunks = append(lay.Chunks, &pb.ChunkLocation{Graph: 1, Node: node, Url: srv.URL + rpc.ChunkPath(k)})
			node++
		})
		get := func(_ context.Context, k protocol.ChunkKey) (*ndarray.Array, error) {
			if a, ok := chunks[k]; ok {
				return a, nil
			}
			return nil, fmt.Errorf("no chunk %v", k)
		}
		mux.Handle("GET /chunks/{graph}/{node}", rpc.ChunkHandler(get))
		var batches atomic.Int32
		batch := rpc.ChunkBatchHandler(get)
		mux.Handle("GET /chunks/{graph}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			batches.Add(1)
			batch.ServeHTTP(w, r)
		}))
		s := New(Config{HTTP: srv.Client()})
		rec := httptest.NewRecorder()
		err := s.streamResult(context.Background(), rec, lay, "")
		if tc.missing >= 0 {
			if err == nil {
				t.Errorf("%v: a missing chunk streamed without an error", tc.shape)
			}
			srv.Close()
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.shape, err)
		}
		got, err := npy.Read(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Shape()) != fmt.Sprint(full.Shape()) || fmt.Sprint(got.ToFloat64s()) != fmt.Sprint(full.ToFloat64s()) {
			t.Errorf("%v in %v: streamed result differs", tc.shape, tc.chunk)
		}
		if nd == 1 && batches.Load() == 0 {
			t.Errorf("%v in %v: whole small chunks were not fetched in batches", tc.shape, tc.chunk)
		}
		srv.Close()
	}
}
