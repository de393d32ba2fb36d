package zarr_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/zarr"
)

// Format 3 stores Phobos writes (every codec, every dtype, edge chunks,
// chunks larger than the array, single-element chunks, 0-d and empty
// arrays) read back equal, whole and by regions, with the keys and
// metadata the specification gives.
func TestV3WrittenStoresReadBack(t *testing.T) {
	dir := t.TempDir()
	n := 0
	shapes := []struct{ shape, chunks []int }{
		{[]int{37, 23}, []int{10, 7}},
		{[]int{5, 300}, []int{8, 1000}},
		{[]int{200000}, []int{70000}},
		{[]int{3, 4}, []int{1, 1}},
		{[]int{}, []int{}},
		{[]int{0, 5}, []int{2, 2}},
		{[]int{4, 5, 6}, []int{3, 5, 2}},
	}
	for _, codec := range []string{"", "gzip", "zstd", "blosc"} {
		for _, dt := range ndarray.DTypes() {
			for _, c := range shapes {
				a := testArray(dt, c.shape, n)
				z, err := zarr.NewArray(c.shape, c.chunks, dt, codec, zarr.WithFormat(3))
				if err != nil {
					t.Fatal(err)
				}
				store := filepath.Join(dir, fmt.Sprintf("v%d.zarr", n))
				n++
				if err := writeAll(z, store, a); err != nil {
					t.Fatalf("%q %v %v: %v", codec, dt, c.shape, err)
				}
				if _, err := os.Stat(filepath.Join(store, ".zarray")); err == nil {
					t.Fatalf("%q %v %v: a format 3 store has a .zarray", codec, dt, c.shape)
				}
				key := "c"
				for range c.shape {
					key += "/0"
				}
				if _, err := os.Stat(filepath.Join(store, key)); err != nil && len(c.shape) > 0 && c.shape[0] > 0 {
					t.Fatalf("%q %v %v: no chunk %s: %v", codec, dt, c.shape, key, err)
				}
				back, err := zarr.Open(store)
				if err != nil {
					t.Fatal(err)
				}
				if back.Format != 3 || back.DType != dt || !slices.Equal(back.Shape, c.shape) || !slices.Equal(back.Chunks, c.chunks) {
					t.Fatalf("%q %v %v: opened as format %d %v %v chunks %v", codec, dt, c.shape, back.Format, back.DType, back.Shape, back.Chunks)
				}
				got, err := back.ReadRegion(make([]int, len(c.shape)), c.shape)
				if err != nil || !sameValues(got, a) {
					t.Fatalf("%q %v %v: read back %v", codec, dt, c.shape, err)
				}
				if len(c.shape) == 2 && c.shape[0] > 2 {
					off, shape := []int{1, 1}, []int{c.shape[0] - 2, c.shape[1] - 2}
					part, err := back.ReadRegion(off, shape)
					want, _ := a.Slice([]ndarray.Range{{Start: 1, Step: 1, Len: shape[0]}, {Start: 1, Step: 1, Len: shape[1]}})
					if err != nil || !sameValues(part, want) {
						t.Fatalf("%q %v %v: region %v+%v: %v", codec, dt, c.shape, off, shape, err)
					}
				}
			}
		}
	}
	t.Logf("zarr v3 written: %d stores written and read back equal", n)
}

// The metadata a format 3 store gets is the specification's, and what
// format 3 cannot write is refused.
func TestV3WriteMeta(t *testing.T) {
	dir := t.TempDir()
	z, err := zarr.NewArray([]int{10, 4}, []int{3, 4}, ndarray.Float32, "blosc", zarr.WithFormat(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := z.WriteMeta(dir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "zarr.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	want := `{"attributes":{},"chunk_grid":{"configuration":{"chunk_shape":[3,4]},"name":"regular"},"chunk_key_encoding":{"configuration":{"separator":"/"},"name":"default"},` +
		`"codecs":[{"configuration":{"endian":"little"},"name":"bytes"},{"configuration":{"blocksize":0,"clevel":5,"cname":"lz4","shuffle":"shuffle","typesize":4},"name":"blosc"}],` +
		`"data_type":"float32","fill_value":0,"node_type":"array","shape":[10,4],"zarr_format":3}`
	if got, _ := json.Marshal(m); string(got) != want {
		t.Errorf("zarr.json\n%s\nwant\n%s", got, want)
	}
	if got := z.Key([]int{2, 0}); got != "c/2/0" {
		t.Errorf("key %q", got)
	}
	for _, c := range []struct {
		codec  string
		format int
		want   string
	}{{"zlib", 3, "not a Zarr v3 codec"}, {"lz4", 3, "compressor"}, {"", 4, "format 4"}, {"", 1, "format 1"}} {
		if _, err := zarr.NewArray([]int{4}, []int{2}, ndarray.Float64, c.codec, zarr.WithFormat(c.format)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("codec %q format %d: %v, want %q", c.codec, c.format, err, c.want)
		}
	}
	// An opened format 3 array is not written through: its codecs are not
	// the writer's.
	opened, err := zarr.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := ndarray.New(ndarray.Float32, 3, 4)
	if _, err := opened.WriteChunk(dir, []int{0, 0}, one); err == nil {
		t.Error("an opened format 3 array wrote a chunk")
	}
	if err := opened.WriteMeta(t.TempDir()); err == nil {
		t.Error("an opened format 3 array wrote its metadata")
	}
	// 0-d, given as nil shapes.
	if _, err := zarr.NewArray(nil, nil, ndarray.Int64, "zstd", zarr.WithFormat(3)); err != nil {
		t.Errorf("0-d: %v", err)
	}
	// A chunk is never written where the store's directory is gone.
	z, _ = zarr.NewArray([]int{4, 4}, []int{2, 2}, ndarray.Float64, "", zarr.WithFormat(3))
	gone := filepath.Join(dir, "gone")
	data, _ := ndarray.New(ndarray.Float64, 2, 2)
	if _, err := z.WriteChunk(gone, []int{1, 1}, data); err == nil {
		t.Error("a chunk written into a missing directory")
	}
	if _, err := os.Stat(gone); err == nil {
		t.Error("writing a chunk made the store's directory")
	}
}
