package zarr

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// metaDoc is a valid zarr.json with one member replaced (or, with value
// "", removed) or added.
func metaDoc(member, value string) string {
	m := map[string]string{
		"zarr_format":        `3`,
		"node_type":          `"array"`,
		"shape":              `[6, 5]`,
		"data_type":          `"float64"`,
		"chunk_grid":         `{"name": "regular", "configuration": {"chunk_shape": [4, 2]}}`,
		"chunk_key_encoding": `{"name": "default", "configuration": {"separator": "/"}}`,
		"fill_value":         `0`,
		"codecs":             `[{"name": "bytes", "configuration": {"endian": "little"}}]`,
	}
	if value == "" {
		delete(m, member)
	} else {
		m[member] = value
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%q: %s", k, v))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Metadata Phobos cannot read is refused at Open with an error naming the
// zarr.json and what is wrong; what it may ignore is read.
func TestV3MetadataRefused(t *testing.T) {
	shard := func(cfg string) string {
		return `[{"name": "sharding_indexed", "configuration": ` + cfg + `}]`
	}
	inner := `"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]`
	index := `"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]`
	cases := []struct {
		doc, want string
	}{
		{`{"zarr_format": 3, "node_type": "array", "shape": [4`, "zarr.json"},
		{`[1, 2]`, "zarr.json"},
		{`null`, "not a JSON object"},
		{metaDoc("zarr_format", "2"), "zarr_format 2"},
		{metaDoc("node_type", `"group"`), "not an array"},
		{metaDoc("shape", ""), "no shape"},
		{metaDoc("shape", `[-1, 5]`), "shape"},
		{metaDoc("shape", `null`), "shape null"},
		{metaDoc("chunk_grid", `{"name": "regular", "configuration": {"chunk_shape": null}}`), "chunk_shape null"},
		{metaDoc("shape", `[4611686018427387904, 4611686018427387904]`), "too large"},
		{metaDoc("shape", `[1e3, 5]`), "shape"},
		{metaDoc("shape", `[6]`), "chunk_shape [4 2] for shape [6]"},
		{metaDoc("chunk_grid", `{"name": "regular", "configuration": {"chunk_shape": [0, 2]}}`), "chunk_shape [0 2]"},
		{metaDoc("chunk_grid", `{"name": "regular", "configuration": {"chunk_shape": [4000000000, 4000000000]}}`), "over"},
		{metaDoc("chunk_grid", `{"name": "rectangular", "configuration": {"chunk_shape": [4, 2]}}`), `chunk_grid "rectangular"`},
		{metaDoc("chunk_grid", `{"name": "regular", "configuration": {"chunk_shape": [4, 2], "extra": 1}}`), "unknown configuration"},
		{metaDoc("chunk_grid", `{"name": "regular", "must_understand": false}`), "no chunk_shape"},
		{metaDoc("chunk_key_encoding", `{"name": "suffix"}`), `chunk_key_encoding "suffix"`},
		{metaDoc("chunk_key_encoding", `{"name": "default", "configuration": {"separator": "-"}}`), `separator "-"`},
		{metaDoc("fill_value", ""), "no fill_value"},
		{metaDoc("fill_value", `"nan"`), "fill_value"},
		{metaDoc("fill_value", `"0x7ff8"`), "fill_value"},
		{metaDoc("fill_value", `true`), "fill_value"},
		{metaDoc("codecs", `[]`), "no array-to-bytes codec"},
		{metaDoc("codecs", `[{"name": "bytes"}]`), "no endian"},
		{metaDoc("codecs", `[{"name": "bytes", "configuration": {"endian": "middle"}}]`), `endian "middle"`},
		{metaDoc("codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "lz4"}]`), `codec "lz4" is not read`},
		{metaDoc("codecs", `[{"name": "gzip", "configuration": {"level": 1}}, {"name": "bytes", "configuration": {"endian": "little"}}]`), "before the array-to-bytes"},
		{metaDoc("codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "transpose", "configuration": {"order": [1, 0]}}]`), "after the array-to-bytes"},
		{metaDoc("codecs", `[{"name": "transpose", "configuration": {"order": [0, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}]`), "not a permutation"},
		{metaDoc("codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"cname": "blosclz", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}}]`), `cname "blosclz" is not read`},
		{metaDoc("codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1, "fast": true}}]`), "unknown configuration"},
		{metaDoc("codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip"}]`), "no level"},
		{metaDoc("codecs", shard(`{"chunk_shape": [3, 2], `+inner+`, `+index+`}`)), "does not divide"},
		{metaDoc("codecs", shard(`{"chunk_shape": [2, 1], `+index+`}`)), "no codecs"},
		{metaDoc("codecs", shard(`{"chunk_shape": [2, 1], `+inner+`, "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}]}`)), "index_codecs with \"gzip\""},
		{metaDoc("codecs", shard(`{"chunk_shape": [2, 1], `+inner+`, `+index+`, "index_location": "middle"}`)), `index_location "middle"`},
		{metaDoc("codecs", shard(`{"chunk_shape": [2, 1], "codecs": `+shard(`{"chunk_shape": [1, 1], `+inner+`, `+index+`}`)+`, `+index+`}`)), "sharding inside sharding"},
		{metaDoc("codecs", `[{"name": "transpose", "configuration": {"order": [1, 0]}}, `+strings.TrimPrefix(shard(`{"chunk_shape": [2, 1], `+inner+`, `+index+`}`), "[")), "around sharding_indexed"},
		{metaDoc("storage_transformers", `[{"name": "chunk-manifest-json", "configuration": {}}]`), `storage transformer "chunk-manifest-json"`},
		{metaDoc("attributes", `[1]`), "attributes"},
		{metaDoc("dimension_names", `["x"]`), "dimension_names"},
		{metaDoc("spam", `{"name": "spam"}`), `unknown member "spam"`},
		{metaDoc("spam", `{"name": "spam", "must_understand": true}`), `unknown member "spam"`},
		{metaDoc("spam", `42`), `unknown member "spam"`},
	}
	for _, dt := range []string{"complex256", "r16", "string"} {
		cases = append(cases, struct{ doc, want string }{metaDoc("data_type", fmt.Sprintf("%q", dt)), fmt.Sprintf("data_type %q is not read", dt)})
	}
	// A shard index too large to hold.
	big := strings.Replace(metaDoc("codecs", shard(`{"chunk_shape": [1, 1], `+inner+`, `+index+`}`)), `"chunk_shape": [4, 2]`, `"chunk_shape": [100000, 100000]`, 1)
	cases = append(cases, struct{ doc, want string }{big, "an index over"})
	root := t.TempDir()
	for i, c := range cases {
		dir := filepath.Join(root, fmt.Sprintf("m%d.zarr", i))
		os.Mkdir(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(c.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Join(dir, "zarr.json")) {
			t.Errorf("%s\n  opened with %v, want an error naming zarr.json and %q", c.doc, err, c.want)
		}
	}
	// Ignorable: an extension member with must_understand false, an
	// ignorable codec, an ignorable storage transformer, short-hand names.
	for _, doc := range []string{
		metaDoc("spam", `{"name": "spam", "must_understand": false, "configuration": {"x": 1}}`),
		metaDoc("codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "x-hint", "must_understand": false}]`),
		metaDoc("storage_transformers", `[{"name": "x-cache", "must_understand": false}]`),
		metaDoc("storage_transformers", `[]`),
		metaDoc("data_type", `{"name": "float64"}`),
		metaDoc("chunk_key_encoding", `"default"`),
	} {
		dir := filepath.Join(root, "ok.zarr")
		os.RemoveAll(dir)
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(doc), 0o644)
		if _, err := Open(dir); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// Corrupt chunks and shards are errors naming the store and the chunk (the
// shard and the inner chunk), never a panic or an allocation the file does
// not justify.
func TestV3CorruptChunks(t *testing.T) {
	root := t.TempDir()
	n := 0
	store := func(c v3case) (string, *Array) {
		n++
		dir := filepath.Join(root, fmt.Sprintf("h%d.zarr", n))
		os.Mkdir(dir, 0o755)
		c.build(t, dir)
		a, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return dir, a
	}
	plain := v3case{dt: ndarray.Float64, shape: []int{6, 5}, chunks: []int{4, 2}, key: defaultKey("/"), fill: "0",
		codecs: "[" + le + `, {"name": "crc32c"}]`, stages: []stage{bytesStage(false), crcStage}}
	sharded := v3case{dt: ndarray.Int32, shape: []int{9, 10}, chunks: []int{4, 6}, inner: []int{2, 3}, key: defaultKey("/"), fill: "0",
		codecs: "[" + le + `, {"name": "gzip", "configuration": {"level": 1}}]`, stages: []stage{bytesStage(false), gzipStage},
		indexEnd: true, indexCRC: true}
	startNoCRC := sharded
	startNoCRC.indexEnd, startNoCRC.indexCRC = false, false
	gz := v3case{dt: ndarray.Float64, shape: []int{6, 5}, chunks: []int{4, 2}, key: defaultKey("/"), fill: "0",
		codecs: "[" + le + `, {"name": "gzip", "configuration": {"level": 1}}]`, stages: []stage{bytesStage(false), gzipStage}}

	gzipOf := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	type edit func(t *testing.T, dir string)
	rewrite := func(key string, f func(b []byte) []byte) edit {
		return func(t *testing.T, dir string) {
			name := filepath.Join(dir, filepath.FromSlash(key))
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, f(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	setIndex := func(entry int, off, nbytes uint64, crc bool) func([]byte) []byte {
		return func(b []byte) []byte {
			// index at the end: 4 entries of 16 bytes, then the checksum
			ix := len(b) - 4*16 - 4
			binary.LittleEndian.PutUint64(b[ix+16*entry:], off)
			binary.LittleEndian.PutUint64(b[ix+16*entry+8:], nbytes)
			if crc {
				binary.LittleEndian.PutUint32(b[len(b)-4:], crcOf(b[ix:len(b)-4]))
			}
			return b
		}
	}
	cases := []struct {
		name   string
		c      v3case
		edit   edit
		chunk  []int
		want   []string
		region bool
	}{
		{"bad crc32c", plain, rewrite("c/1/1", func(b []byte) []byte { b[3] ^= 1; return b }), []int{1, 1}, []string{"chunk c/1/1", "crc32c"}, true},
		{"chunk too short", plain, rewrite("c/0/0", func(b []byte) []byte { return crcStage(t, b[:40]).([]byte) }), []int{0, 0}, []string{"chunk c/0/0", "bytes decoded"}, true},
		{"chunk too long", plain, rewrite("c/0/2", func(b []byte) []byte { return crcStage(t, append(b[:len(b)-4], 1, 2, 3, 4, 5, 6, 7, 8)).([]byte) }), []int{0, 2}, []string{"chunk c/0/2", "bytes decoded"}, true},
		{"empty chunk file", plain, rewrite("c/1/0", func([]byte) []byte { return nil }), []int{1, 0}, []string{"chunk c/1/0", "crc32c"}, true},
		{"chunk file far too large", plain, rewrite("c/1/0", func([]byte) []byte { return make([]byte, 2<<20) }), []int{1, 0}, []string{"chunk c/1/0", "more than a chunk"}, false},
		{"gzip bomb", gz, rewrite("c/0/0", func([]byte) []byte { return gzipOf(make([]byte, 64<<20)) }), []int{0, 0}, []string{"chunk c/0/0", "gzip: more than"}, false},
		{"not gzip", gz, rewrite("c/0/1", func([]byte) []byte { return []byte("plain text") }), []int{0, 1}, []string{"chunk c/0/1", "gzip"}, false},
		{"truncated shard", sharded, rewrite("c/1/1", func(b []byte) []byte { return b[:50] }), []int{2, 3}, []string{"shard c/1/1", "inner chunk [2 ", "truncated"}, true},
		{"shard cut short", sharded, rewrite("c/0/0", func(b []byte) []byte { return b[len(b)-4*16-4:] }), []int{0, 0}, []string{"shard c/0/0", "outside the shard"}, true},
		{"index crc32c", sharded, rewrite("c/0/1", func(b []byte) []byte { b[len(b)-20] ^= 0x10; return b }), []int{0, 2}, []string{"shard c/0/1", "crc32c"}, true},
		{"index past the end", sharded, rewrite("c/0/0", setIndex(1, 1<<40, 10, true)), []int{0, 1}, []string{"shard c/0/0", "inner chunk [0 1]", "outside the shard"}, true},
		{"index into itself", sharded, rewrite("c/0/0", setIndex(2, 0, 1<<20, true)), []int{1, 0}, []string{"shard c/0/0", "outside the shard"}, true},
		{"index overflow", sharded, rewrite("c/0/0", setIndex(3, math.MaxUint64-1, 10, true)), []int{1, 1}, []string{"outside the shard"}, true},
		{"index half empty", sharded, rewrite("c/0/0", setIndex(0, math.MaxUint64, 10, true)), []int{0, 0}, []string{"outside the shard"}, true},
		{"inner chunk not gzip", sharded, rewrite("c/0/0", func(b []byte) []byte { b[0] ^= 0xff; return b }), []int{0, 0}, []string{"shard c/0/0", "inner chunk [0 0]", "gzip"}, true},
		{"index at the start, pointing into it", startNoCRC, rewrite("c/0/0", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[0:], 8)
			return b
		}), []int{0, 0}, []string{"shard c/0/0", "outside the shard's data"}, true},
		{"shard is a directory", sharded, func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "c/1/0"))
			os.Mkdir(filepath.Join(dir, "c/1/0"), 0o755)
		}, []int{2, 0}, []string{"shard c/1/0", "not a regular file"}, true},
	}
	for _, c := range cases {
		dir, a := store(c.c)
		c.edit(t, dir)
		_, err := a.ReadChunk(c.chunk)
		check := func(how string, err error) {
			if err == nil {
				t.Errorf("%s: %s: no error", c.name, how)
				return
			}
			for _, w := range append([]string{dir}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %s: %v, want it to say %q", c.name, how, err, w)
				}
			}
		}
		check("ReadChunk", err)
		if c.region {
			_, err = a.ReadRegion(make([]int, len(a.Shape)), a.Shape)
			check("ReadRegion", err)
		}
	}
	// A chunk index outside the grid is an error, not a read.
	_, a := store(plain)
	for _, idx := range [][]int{{2, 0}, {-1, 0}, {0}, {0, 3}} {
		if _, err := a.ReadChunk(idx); err == nil {
			t.Errorf("chunk %v outside the grid: no error", idx)
		}
	}
}

var t0 testing.TB

func crcOf(b []byte) uint32 {
	return binary.LittleEndian.Uint32(crcStage(t0, b).([]byte)[len(b):])
}

// A complex fill_value is [real, imag], each part a float fill_value
// ("NaN", "Infinity", a number or a hex bit pattern); missing chunks read
// as it, and a fill of another shape is refused.
func TestV3ComplexFill(t *testing.T) {
	root := t.TempDir()
	for i, c := range []struct {
		dt, fill string
		want     complex128
		bad      bool
	}{
		{"complex128", `["NaN", 2.5]`, complex(math.NaN(), 2.5), false},
		{"complex64", `[-1.5, "Infinity"]`, complex(-1.5, math.Inf(1)), false},
		{"complex64", `["0x3fc00000", 0]`, complex(1.5, 0), false},
		{"complex128", `1.5`, 0, true},
		{"complex128", `[1, 2, 3]`, 0, true},
	} {
		dir := filepath.Join(root, fmt.Sprintf("f%d.zarr", i))
		os.Mkdir(dir, 0o755)
		doc := strings.Replace(metaDoc("fill_value", c.fill), `"float64"`, fmt.Sprintf("%q", c.dt), 1)
		if err := os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := Open(dir)
		if c.bad {
			if err == nil {
				t.Errorf("%s fill %s: opened, want an error", c.dt, c.fill)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s fill %s: %v", c.dt, c.fill, err)
		}
		got, err := a.ReadRegion([]int{0, 0}, []int{6, 5})
		if err != nil {
			t.Fatal(err)
		}
		for j := range got.Size() {
			v := got.ComplexAtFlat(j)
			sameNaN := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
			if !sameNaN(real(v), real(c.want)) || !sameNaN(imag(v), imag(c.want)) {
				t.Fatalf("%s fill %s: element %d is %v, want %v", c.dt, c.fill, j, v, c.want)
			}
		}
	}
}
