package ops_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/zarr"
	"github.com/phobos-tensor/phobos/ops"
)

// Zarr sink ops carry their format only when it is 3: graphs written
// before format 3 decode unchanged, and format 3 survives the op codec.
func TestZarrWriteFormatJSON(t *testing.T) {
	old := `{"type":"zarr_write","params":{"path":"/d/x.zarr","temp":"/d/.x.zarr.phobos-0123456789abcdef.tmp","chunks":[4,4],"codec":"zstd"}}`
	op, err := ops.UnmarshalTensorOp([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := op.(ops.ZarrWrite); !ok || w.Format != 0 || w.Codec != "zstd" {
		t.Fatalf("an old zarr_write decoded as %#v", op)
	}
	b, err := ops.MarshalOp(op)
	if err != nil || string(b) != old {
		t.Errorf("an old zarr_write encodes as %s (%v), want it unchanged", b, err)
	}
	for _, op := range []any{
		ops.ZarrWrite{Path: "/d/x.zarr", Temp: "/d/t", Chunks: []int{2}, Format: 3},
		ops.ZarrCreate{Path: "/d/x.zarr", Temp: "/d/t", Shape: []int{4}, Chunks: []int{2}, DType: ndarray.Float32, Format: 3},
		ops.ZarrWriteChunk{Path: "/d/x.zarr", Temp: "/d/t", Shape: []int{4}, Chunks: []int{2}, DType: ndarray.Float32, Format: 3, Index: []int{1}},
	} {
		b, err := ops.MarshalOp(op)
		if err != nil || !strings.Contains(string(b), `"format":3`) {
			t.Fatalf("%T encodes as %s (%v)", op, b, err)
		}
		back, err := ops.UnmarshalOp(b)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := ops.MarshalOp(back)
		if string(b2) != string(b) {
			t.Errorf("%T: %s decodes and encodes as %s", op, b, b2)
		}
	}
	// Infer refuses what format 3 cannot write.
	in := []ops.Meta{{Shape: []int{4}, DType: ndarray.Float64}}
	for _, w := range []ops.ZarrWrite{
		{Path: "/d/x.zarr", Temp: "/d/t", Chunks: []int{2}, Codec: "zlib", Format: 3},
		{Path: "/d/x.zarr", Temp: "/d/t", Chunks: []int{2}, Format: 5},
	} {
		if _, err := w.Infer(in); err == nil {
			t.Errorf("%+v: no error", w)
		}
	}
}

// A format 3 store read by ops: its zarr.json travels in the op (without
// attributes), survives the op codec, and a worker reads chunks with it; a
// tampered copy is refused; a sharded store's default chunks are its
// inner chunks.
func TestZarrReadV3Op(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "a.zarr")
	z, err := zarr.NewArray([]int{7, 5}, []int{3, 2}, ndarray.Float64, "gzip", zarr.WithFormat(3))
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(store, 0o755)
	if err := z.WriteMeta(store); err != nil {
		t.Fatal(err)
	}
	data := make([]float64, 35)
	for i := range data {
		data[i] = float64(i) - 0.5
	}
	full, _ := ndarray.FromFloat64s([]int{7, 5}, data)
	for i := range 3 {
		for j := range 3 {
			part, _ := full.Slice([]ndarray.Range{{Start: 3 * i, Step: 1, Len: min(3, 7-3*i)}, {Start: 2 * j, Step: 1, Len: min(2, 5-2*j)}})
			if _, err := z.WriteChunk(store, []int{i, j}, part); err != nil {
				t.Fatal(err)
			}
		}
	}
	r, err := ops.NewZarrRead(store, ops.ChunkSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Store.V3 == "" || !slices.Equal(r.Chunks.Size, []int{3, 2}) {
		t.Fatalf("store %+v, chunks %+v", r.Store, r.Chunks)
	}
	op := ops.ZarrReadChunk{Store: r.Store, Offset: []int{2, 1}, Shape: []int{4, 3}}
	b, err := ops.MarshalOp(op)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ops.UnmarshalChunkOp(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Exec(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := full.Slice([]ndarray.Range{{Start: 2, Step: 1, Len: 4}, {Start: 1, Step: 1, Len: 3}})
	if !slices.Equal(got.ToFloat64s(), want.ToFloat64s()) {
		t.Errorf("read %v, want %v", got, want)
	}
	// A worker whose data roots exclude the store refuses it.
	fa, err := ops.NewFileAccess([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.Exec(ops.WithFileAccess(context.Background(), fa), nil); err == nil {
		t.Error("a store outside the data roots was read")
	}
	// Tampered metadata.
	for _, edit := range []func(*ops.ZarrStore){
		func(s *ops.ZarrStore) { s.V3 = strings.Replace(s.V3, `"shape":[7,5]`, `"shape":[70,5]`, 1) },
		func(s *ops.ZarrStore) {
			s.V3 = strings.Replace(s.V3, `"data_type":"float64"`, `"data_type":"float32"`, 1)
		},
		func(s *ops.ZarrStore) { s.V3 = "{" },
		func(s *ops.ZarrStore) { s.Codec = "zlib" },
		func(s *ops.ZarrStore) { s.Chunks = []int{3, 3} },
	} {
		bad := op
		edit(&bad.Store)
		if _, err := bad.Exec(context.Background(), nil); err == nil {
			t.Errorf("tampered store %+v: no error", bad.Store)
		}
	}

	// A sharded store: the tensor's default chunks are the inner chunks.
	sh := filepath.Join(dir, "s.zarr")
	os.Mkdir(sh, 0o755)
	meta := `{"zarr_format": 3, "node_type": "array", "shape": [8, 8], "data_type": "int32",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 8]}},
  "chunk_key_encoding": {"name": "default"}, "fill_value": -3,
  "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 4],
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}],
  "attributes": {"big": "` + strings.Repeat("x", 1000) + `"}}`
	if err := os.WriteFile(filepath.Join(sh, "zarr.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = ops.NewZarrRead(sh, ops.ChunkSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Chunks.Size, []int{2, 4}) || !slices.Equal(r.Store.Chunks, []int{2, 4}) || strings.Contains(r.Store.V3, "xxxx") {
		t.Errorf("sharded: chunks %+v, store %+v", r.Chunks, r.Store)
	}
	got, err = ops.ZarrReadChunk{Store: r.Store, Offset: []int{1, 1}, Shape: []int{3, 3}}.Exec(context.Background(), nil)
	if err != nil || got.Size() != 9 || got.ToFloat64s()[0] != -3 || math.IsNaN(got.ToFloat64s()[8]) {
		t.Errorf("missing shards: %v %v", got, err)
	}
}
