package phobos_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// FromZarr -> ToZarr(ZarrFormat(3)) -> FromZarr through a session: a
// format 2 store converted to format 3 (each codec, odd chunkings) reads
// back equal, under several read chunkings and in an expression.
func TestZarrV3ThroughSession(t *testing.T) {
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	dir := t.TempDir()
	g := tensor.NewGenerator(11)
	src := filepath.Join(dir, "src.zarr")
	x := g.Uniform(-5, 5, []int{45, 31}, tensor.Chunks(11, 8))
	want, err := sess.Execute(ctx, x, x.Mul(2).Sum(tensor.Axis(0)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Execute(ctx, x.ToZarr(src, tensor.Chunks(10, 10))); err != nil {
		t.Fatal(err)
	}
	cases := 0
	for i, c := range []struct {
		codec  string
		chunks []int
		dt     ndarray.DType
	}{
		{"", []int{7, 31}, ndarray.Float64},
		{"none", []int{1, 31}, ndarray.Float32},
		{"gzip", []int{100, 4}, ndarray.Float64},
		{"zstd", []int{9, 9}, ndarray.Int64},
		{"blosc", []int{11, 8}, ndarray.Int32},
		{"zstd", []int{45, 31}, ndarray.Bool},
	} {
		path := filepath.Join(dir, fmt.Sprintf("v3_%d.zarr", i))
		// The format option before or after the codec: both hold.
		opts := []tensor.Option{tensor.ZarrFormat(3), tensor.ZarrCodec(c.codec), tensor.Chunks(c.chunks...)}
		if i%2 == 1 {
			opts = []tensor.Option{tensor.ZarrCodec(c.codec), tensor.Chunks(c.chunks...), tensor.ZarrFormat(3)}
		}
		if _, err := sess.Execute(ctx, tensor.FromZarr(src).Astype(c.dt).ToZarr(path, opts...)); err != nil {
			t.Fatalf("codec %q chunks %v: %v", c.codec, c.chunks, err)
		}
		if _, err := os.Stat(filepath.Join(path, "zarr.json")); err != nil {
			t.Fatalf("codec %q chunks %v: no zarr.json: %v", c.codec, c.chunks, err)
		}
		exp := want[0].Astype(c.dt)
		expSum := exp.Astype(ndarray.Float64)
		for _, opts := range [][]tensor.Option{nil, {tensor.Chunks(3)}, {tensor.Chunks(1)}, {tensor.Chunks(1000)}, {tensor.Chunks(13, 7)}} {
			y := tensor.FromZarr(path, opts...)
			res, err := sess.Execute(ctx, y, y.Astype(ndarray.Float64).Mul(2).Sum(tensor.Axis(0)))
			if err != nil {
				t.Fatalf("codec %q chunks %v, read %v: %v", c.codec, c.chunks, opts, err)
			}
			if !equalArrays(res[0], exp, 0) || res[0].DType() != c.dt {
				t.Fatalf("codec %q chunks %v, read %v: values differ", c.codec, c.chunks, opts)
			}
			sum, _ := sess.Execute(ctx, tensor.FromSlice(expSum.Float64s(), []int{45, 31}).Mul(2).Sum(tensor.Axis(0)))
			if !equalArrays(res[1], sum[0], 1e-12) {
				t.Fatalf("codec %q chunks %v, read %v: (y*2).sum(axis=0) differs", c.codec, c.chunks, opts)
			}
			cases++
		}
	}
	t.Logf("zarr v3 through a session: %d stores x read chunkings equal", cases)
	// What format 3 cannot write is refused when the tensor is built.
	if y := x.ToZarr(filepath.Join(dir, "zlib.zarr"), tensor.ZarrFormat(3), tensor.ZarrCodec("zlib")); y.Err() == nil || !strings.Contains(y.Err().Error(), "zlib") {
		t.Errorf("format 3 with zlib: %v", y.Err())
	}
	if y := x.ToZarr(filepath.Join(dir, "f4.zarr"), tensor.ZarrFormat(4)); y.Err() == nil {
		t.Error("format 4: no error")
	}
	// Format 2 stays the default.
	v2 := filepath.Join(dir, "v2.zarr")
	if _, err := sess.Execute(ctx, x.ToZarr(v2, tensor.ZarrCodec("zlib"))); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v2, ".zarray")); err != nil {
		t.Errorf("the default format: %v", err)
	}
}

// A sharded format 3 store (built here byte by byte: inner chunks of
// little-endian bytes, an index of offsets and sizes with a crc32c at the
// end of each shard, one inner chunk left empty and one shard missing)
// reads through a session by its inner chunks and by any other chunking.
func TestZarrV3ShardedThroughSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sharded.zarr")
	shape, shardShape, inner := []int{10, 9}, []int{4, 6}, []int{2, 3}
	meta := `{"zarr_format": 3, "node_type": "array", "shape": [10, 9], "data_type": "float64",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "NaN",
  "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3],
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
    "index_location": "end"}}]}`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	val := func(i, j int) float64 { return float64(i*100 + j) }
	empty := [2]int{1, 1} // inner chunk (grid index) left empty
	missingShard := [2]int{2, 1}
	want := make([]float64, shape[0]*shape[1])
	for i := range shape[0] {
		for j := range shape[1] {
			switch {
			case [2]int{i / inner[0], j / inner[1]} == empty, [2]int{i / shardShape[0], j / shardShape[1]} == missingShard:
				want[i*shape[1]+j] = math.NaN()
			default:
				want[i*shape[1]+j] = val(i, j)
			}
		}
	}
	per := []int{shardShape[0] / inner[0], shardShape[1] / inner[1]}
	for si := range 3 {
		for sj := range 2 {
			if [2]int{si, sj} == missingShard {
				continue
			}
			var body, index []byte
			for li := range per[0] {
				for lj := range per[1] {
					gi, gj := si*per[0]+li, sj*per[1]+lj
					if [2]int{gi, gj} == empty {
						index = binary.LittleEndian.AppendUint64(index, math.MaxUint64)
						index = binary.LittleEndian.AppendUint64(index, math.MaxUint64)
						continue
					}
					var chunk []byte
					for a := range inner[0] {
						for b := range inner[1] {
							i, j := gi*inner[0]+a, gj*inner[1]+b
							chunk = binary.LittleEndian.AppendUint64(chunk, math.Float64bits(val(i, j)))
						}
					}
					index = binary.LittleEndian.AppendUint64(index, uint64(len(body)))
					index = binary.LittleEndian.AppendUint64(index, uint64(len(chunk)))
					body = append(body, chunk...)
				}
			}
			index = binary.LittleEndian.AppendUint32(index, crc32.Checksum(index, crc32.MakeTable(crc32.Castagnoli)))
			name := filepath.Join(dir, "c", fmt.Sprint(si), fmt.Sprint(sj))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, append(body, index...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantArr, _ := ndarray.FromFloat64s(shape, want)
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	for _, opts := range [][]tensor.Option{nil, {tensor.Chunks(3)}, {tensor.Chunks(1)}, {tensor.Chunks(1000)}, {tensor.Chunks(5, 4)}} {
		x := tensor.FromZarr(dir, opts...)
		res, err := sess.Execute(ctx, x)
		if err != nil {
			t.Fatalf("read %v: %v", opts, err)
		}
		if !sameNaN(res[0], wantArr) {
			t.Fatalf("read %v: values differ", opts)
		}
	}
	// Converted to an unsharded format 3 store, it reads the same.
	out := filepath.Join(filepath.Dir(dir), "unsharded.zarr")
	if _, err := sess.Execute(ctx, tensor.FromZarr(dir).ToZarr(out, tensor.ZarrFormat(3), tensor.ZarrCodec("zstd"), tensor.Chunks(4, 4))); err != nil {
		t.Fatal(err)
	}
	res, err := sess.Execute(ctx, tensor.FromZarr(out, tensor.Chunks(3)))
	if err != nil || !sameNaN(res[0], wantArr) {
		t.Fatalf("the sharded store written unsharded: %v", err)
	}
	// A corrupt shard is an error naming the store and the shard.
	shard := filepath.Join(dir, "c", "0", "0")
	b, _ := os.ReadFile(shard)
	b[len(b)-1] ^= 1
	os.WriteFile(shard, b, 0o644)
	if _, err := sess.Execute(ctx, tensor.FromZarr(dir)); err == nil || !strings.Contains(err.Error(), "shard c/0/0") || !strings.Contains(err.Error(), "crc32c") {
		t.Errorf("a corrupt shard: %v", err)
	}
}

func sameNaN(a, b *ndarray.Array) bool {
	if !ndarray.SameShape(a.Shape(), b.Shape()) {
		return false
	}
	x, y := a.ToFloat64s(), b.ToFloat64s()
	for i := range x {
		if x[i] != y[i] && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
			return false
		}
	}
	return true
}
