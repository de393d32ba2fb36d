package zarr

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/phobos-tensor/phobos/ndarray"
)

// The Zarr v3 stores of these tests are built byte by byte from the
// specification: zarr.json written here, each chunk encoded by the stages
// below (transpose, bytes in either byte order, gzip, zstd, the package's
// blosc encoder, crc32c) and shards laid out with their index by hand.

// stage is one codec of a chunk's encoding: an *ndarray.Array or []byte in,
// the encoded value out.
type stage func(t testing.TB, x any) any

func transposeStage(order ...int) stage {
	return func(t testing.TB, x any) any {
		a, err := x.(*ndarray.Array).Transpose(order...)
		if err != nil {
			t.Fatal(err)
		}
		return a.Copy()
	}
}

func bytesStage(big bool) stage {
	return func(t testing.TB, x any) any {
		a := x.(*ndarray.Array)
		b := bytes.Clone(a.Bytes())
		if big {
			swap(b, a.DType().Size())
		}
		return b
	}
}

func gzipStage(t testing.TB, x any) any {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, 5)
	w.Write(x.([]byte))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstdStage(t testing.TB, x any) any {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(x.([]byte), nil)
}

func bloscStage(typesize int) stage {
	return func(t testing.TB, x any) any { return bloscEncode(x.([]byte), typesize) }
}

func crcStage(t testing.TB, x any) any {
	b := x.([]byte)
	return binary.LittleEndian.AppendUint32(bytes.Clone(b), crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func encodeStages(t testing.TB, a *ndarray.Array, stages []stage) []byte {
	var x any = a
	for _, s := range stages {
		x = s(t, x)
	}
	return x.([]byte)
}

// v3case is a store to build: its array, grid and codecs, which chunks are
// left out, and the key each chunk must have.
type v3case struct {
	name          string
	dt            ndarray.DType
	shape, chunks []int  // chunks: the grid's (the shard shape when sharded)
	inner         []int  // sharded: the inner chunk shape
	keyEnc        string // chunk_key_encoding JSON ("" for the default)
	key           func(idx []int) string
	fill          string // fill_value JSON
	fillVal       float64
	codecs        string  // codecs JSON (for a sharded store, the inner chain)
	stages        []stage // how a chunk (an inner chunk) is encoded
	indexEnd      bool    // sharded: the index at the end
	indexCRC      bool    // sharded: index_codecs bytes then crc32c
	reverse       bool    // sharded: inner chunks written last first, with gaps
	skip          []string
	skipShard     []string
}

func defaultKey(sep string) func([]int) string {
	return func(idx []int) string {
		s := "c"
		for _, v := range idx {
			s += sep + strconv.Itoa(v)
		}
		return s
	}
}

func v2Key(sep string) func([]int) string {
	return func(idx []int) string {
		if len(idx) == 0 {
			return "0"
		}
		p := make([]string, len(idx))
		for i, v := range idx {
			p[i] = strconv.Itoa(v)
		}
		return strings.Join(p, sep)
	}
}

// value is element i of a test array, as float64.
func value(dt ndarray.DType, i int) float64 {
	switch dt {
	case ndarray.Bool:
		if i%3 == 0 {
			return 1
		}
		return 0
	case ndarray.Int32:
		return float64(i*7 - 100)
	case ndarray.Int64:
		return float64(i)*1000000007 - 5e9
	case ndarray.Float32:
		return float64(float32(float64(i)*0.25 - 3))
	}
	return float64(i)*0.5 - 7.25
}

const pad = 9 // what the parts of edge chunks beyond the array hold

func dtypeName(dt ndarray.DType) string { return typeName(dt) }

func intsJSON(v []int) string {
	p := make([]string, len(v))
	for i, x := range v {
		p[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(p, ",") + "]"
}

func idxString(idx []int) string { return strings.Trim(intsJSON(idx), "[]") }

// forGrid calls f with every index of a grid, in C order (once for 0-d).
func forGrid(grid []int, f func(idx []int)) {
	for _, g := range grid {
		if g == 0 {
			return
		}
	}
	idx := make([]int, len(grid))
	for {
		f(slices.Clone(idx))
		ax := len(grid) - 1
		for ; ax >= 0; ax-- {
			if idx[ax]++; idx[ax] < grid[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func gridOf(shape, chunks []int) []int {
	g := make([]int, len(shape))
	for i := range shape {
		g[i] = ceilDiv(shape[i], chunks[i])
	}
	return g
}

// chunkData is the chunk of shape at origin: the array's values inside it,
// pad beyond its end.
func chunkData(t testing.TB, dt ndarray.DType, shape, origin, arr []int) *ndarray.Array {
	f, _ := ndarray.New(ndarray.Float64, shape...)
	v := f.Float64s()
	i := 0
	forGrid(shape, func(p []int) {
		flat, in := 0, true
		for ax := range p {
			g := origin[ax] + p[ax]
			if g >= arr[ax] {
				in = false
			}
			flat = flat*arr[ax] + g
		}
		if in {
			v[i] = value(dt, flat)
		} else {
			v[i] = pad
		}
		i++
	})
	return f.Astype(dt)
}

// doc is the case's zarr.json.
func (c v3case) doc() string {
	nd := len(c.shape)
	keyEnc := c.keyEnc
	if keyEnc == "" {
		keyEnc = `{"name": "default", "configuration": {"separator": "/"}}`
	}
	codecs := c.codecs
	if c.inner != nil {
		idx := `[{"name": "bytes", "configuration": {"endian": "little"}}]`
		if c.indexCRC {
			idx = `[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]`
		}
		loc := `"start"`
		if c.indexEnd {
			loc = `"end"`
		}
		codecs = fmt.Sprintf(`[{"name": "sharding_indexed", "configuration": {"chunk_shape": %s, "codecs": %s, "index_codecs": %s, "index_location": %s}}]`,
			intsJSON(c.inner), c.codecs, idx, loc)
	}
	return fmt.Sprintf(`{
  "zarr_format": 3, "node_type": "array", "shape": %s, "data_type": %q,
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": %s}},
  "chunk_key_encoding": %s,
  "fill_value": %s,
  "codecs": %s,
  "attributes": {"note": "built by hand", "nested": {"a": [1, 2]}},
  "dimension_names": %s
}`, intsJSON(c.shape), dtypeName(c.dt), intsJSON(c.chunks), keyEnc, c.fill, codecs, dimNames(nd))
}

// build writes the case's store into dir and returns the expected array.
func (c v3case) build(t testing.TB, dir string) *ndarray.Array {
	t.Helper()
	nd := len(c.shape)
	readChunks := c.chunks
	if c.inner != nil {
		readChunks = c.inner
	}
	doc := c.doc()
	if err := os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(key string, b []byte) {
		name := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	forGrid(gridOf(c.shape, c.chunks), func(idx []int) {
		origin := make([]int, nd)
		for i := range idx {
			origin[i] = idx[i] * c.chunks[i]
		}
		if c.inner == nil {
			if !slices.Contains(c.skip, idxString(idx)) {
				write(c.key(idx), encodeStages(t, chunkData(t, c.dt, c.chunks, origin, c.shape), c.stages))
			}
			return
		}
		if slices.Contains(c.skipShard, idxString(idx)) {
			return
		}
		write(c.key(idx), c.shardBytes(t, idx, origin))
	})
	// The expected array: values, fill where a chunk is left out.
	want, _ := ndarray.New(ndarray.Float64, c.shape...)
	v := want.Float64s()
	i := 0
	forGrid(c.shape, func(p []int) {
		ci, si := make([]int, nd), make([]int, nd)
		for ax := range p {
			ci[ax] = p[ax] / readChunks[ax]
			si[ax] = p[ax] / c.chunks[ax]
		}
		if slices.Contains(c.skip, idxString(ci)) || slices.Contains(c.skipShard, idxString(si)) {
			v[i] = c.fillVal
		} else {
			v[i] = value(c.dt, i)
		}
		i++
	})
	return want.Astype(c.dt)
}

func dimNames(nd int) string {
	p := make([]string, nd)
	for i := range p {
		p[i] = fmt.Sprintf("%q", fmt.Sprint("d", i))
	}
	if nd > 0 {
		p[0] = "null"
	}
	return "[" + strings.Join(p, ",") + "]"
}

// shardBytes lays out the shard at idx: its inner chunks encoded, in C
// order or last first with gaps, and the index at the start or the end.
func (c v3case) shardBytes(t testing.TB, idx, origin []int) []byte {
	nd := len(c.shape)
	per := make([]int, nd)
	for i := range per {
		per[i] = c.chunks[i] / c.inner[i]
	}
	type entry struct {
		off, n uint64
		data   []byte
	}
	var entries []*entry
	forGrid(per, func(local []int) {
		gi := make([]int, nd)
		o := make([]int, nd)
		for i := range local {
			gi[i] = idx[i]*per[i] + local[i]
			o[i] = origin[i] + local[i]*c.inner[i]
		}
		if slices.Contains(c.skip, idxString(gi)) {
			entries = append(entries, nil)
			return
		}
		entries = append(entries, &entry{data: encodeStages(t, chunkData(t, c.dt, c.inner, o, c.shape), c.stages)})
	})
	indexBytes := 16 * len(entries)
	if c.indexCRC {
		indexBytes += 4
	}
	var body []byte
	base := 0
	if !c.indexEnd {
		base = indexBytes
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	if c.reverse {
		slices.Reverse(order)
	}
	for _, i := range order {
		e := entries[i]
		if e == nil {
			continue
		}
		if c.reverse {
			body = append(body, "gap"...)
		}
		e.off, e.n = uint64(base+len(body)), uint64(len(e.data))
		body = append(body, e.data...)
	}
	var index []byte
	for _, e := range entries {
		if e == nil {
			index = binary.LittleEndian.AppendUint64(index, math.MaxUint64)
			index = binary.LittleEndian.AppendUint64(index, math.MaxUint64)
			continue
		}
		index = binary.LittleEndian.AppendUint64(index, e.off)
		index = binary.LittleEndian.AppendUint64(index, e.n)
	}
	if c.indexCRC {
		index = crcStage(t, index).([]byte)
	}
	if c.indexEnd {
		return append(body, index...)
	}
	return append(index, body...)
}

func sameArrays(a, b *ndarray.Array) bool {
	if a.DType() != b.DType() || !ndarray.SameShape(a.Shape(), b.Shape()) {
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

const le = `{"name": "bytes", "configuration": {"endian": "little"}}`
const be = `{"name": "bytes", "configuration": {"endian": "big"}}`

func v3cases() []v3case {
	slash, dot := defaultKey("/"), defaultKey(".")
	cases := []v3case{
		{name: "float64 little", dt: ndarray.Float64, shape: []int{7, 5}, chunks: []int{3, 2}, key: slash, fill: "0",
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "float64 big", dt: ndarray.Float64, shape: []int{7, 5}, chunks: []int{3, 2}, key: slash, fill: "0",
			codecs: "[" + be + "]", stages: []stage{bytesStage(true)}},
		{name: "float32 little gzip", dt: ndarray.Float32, shape: []int{6, 9}, chunks: []int{4, 4}, key: slash, fill: "0",
			codecs: "[" + le + `, {"name": "gzip", "configuration": {"level": 5}}]`, stages: []stage{bytesStage(false), gzipStage}},
		{name: "float32 big zstd", dt: ndarray.Float32, shape: []int{6, 9}, chunks: []int{4, 4}, key: slash, fill: "0",
			codecs: "[" + be + `, {"name": "zstd", "configuration": {"level": 3, "checksum": true}}]`, stages: []stage{bytesStage(true), zstdStage}},
		{name: "int32 big zstd", dt: ndarray.Int32, shape: []int{11}, chunks: []int{4}, key: slash, fill: "0",
			codecs: "[" + be + `, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}]`, stages: []stage{bytesStage(true), zstdStage}},
		{name: "int32 little blosc", dt: ndarray.Int32, shape: []int{40, 3}, chunks: []int{16, 2}, key: slash, fill: "0",
			codecs: "[" + le + `, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}]`,
			stages: []stage{bytesStage(false), bloscStage(4)}},
		{name: "int64 little blosc crc32c", dt: ndarray.Int64, shape: []int{5, 4, 3}, chunks: []int{2, 3, 3}, key: slash, fill: "0",
			codecs: "[" + le + `, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}}, {"name": "crc32c"}]`,
			stages: []stage{bytesStage(false), bloscStage(8), crcStage}},
		{name: "int64 big crc32c", dt: ndarray.Int64, shape: []int{9}, chunks: []int{4}, key: slash, fill: "0",
			codecs: "[" + be + `, {"name": "crc32c"}]`, stages: []stage{bytesStage(true), crcStage}},
		{name: "bool bytes without endian gzip", dt: ndarray.Bool, shape: []int{10, 3}, chunks: []int{4, 2}, key: slash, fill: "false",
			codecs: `[{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 1}}]`, stages: []stage{bytesStage(false), gzipStage}},
		{name: "bool short-hand bytes crc32c", dt: ndarray.Bool, shape: []int{5}, chunks: []int{2}, key: slash, fill: "false",
			codecs: `["bytes", "crc32c"]`, stages: []stage{bytesStage(false), crcStage}},
		{name: "transpose 2-d", dt: ndarray.Float64, shape: []int{7, 5}, chunks: []int{3, 4}, key: slash, fill: "0",
			codecs: `[{"name": "transpose", "configuration": {"order": [1, 0]}}, ` + le + `]`, stages: []stage{transposeStage(1, 0), bytesStage(false)}},
		{name: "transpose 3-d big gzip", dt: ndarray.Int32, shape: []int{5, 6, 7}, chunks: []int{2, 3, 4}, key: slash, fill: "0",
			codecs: `[{"name": "transpose", "configuration": {"order": [2, 0, 1]}}, ` + be + `, {"name": "gzip", "configuration": {"level": 1}}]`,
			stages: []stage{transposeStage(2, 0, 1), bytesStage(true), gzipStage}},
		{name: "two transposes", dt: ndarray.Float32, shape: []int{4, 5, 6}, chunks: []int{3, 2, 5}, key: slash, fill: "0",
			codecs: `[{"name": "transpose", "configuration": {"order": [1, 2, 0]}}, {"name": "transpose", "configuration": {"order": [0, 2, 1]}}, ` + le + `]`,
			stages: []stage{transposeStage(1, 2, 0), transposeStage(0, 2, 1), bytesStage(false)}},
		{name: "default key, dot separator", dt: ndarray.Float64, shape: []int{5, 5}, chunks: []int{2, 2}, key: dot, fill: "0",
			keyEnc: `{"name": "default", "configuration": {"separator": "."}}`, codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "default key, no configuration", dt: ndarray.Float64, shape: []int{5, 5}, chunks: []int{2, 2}, key: slash, fill: "0",
			keyEnc: `{"name": "default"}`, codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "v2 key, default separator", dt: ndarray.Int32, shape: []int{5, 5}, chunks: []int{2, 3}, key: v2Key("."), fill: "0",
			keyEnc: `{"name": "v2"}`, codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "v2 key, slash separator", dt: ndarray.Int32, shape: []int{5, 5}, chunks: []int{2, 3}, key: v2Key("/"), fill: "0",
			keyEnc: `{"name": "v2", "configuration": {"separator": "/"}}`, codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "0-d default key", dt: ndarray.Float64, shape: []int{}, chunks: []int{}, key: slash, fill: "0",
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "0-d v2 key", dt: ndarray.Int64, shape: []int{}, chunks: []int{}, key: v2Key("."), fill: "0",
			keyEnc: `{"name": "v2", "configuration": {"separator": "."}}`, codecs: "[" + be + "]", stages: []stage{bytesStage(true)}},
		{name: "0-d missing", dt: ndarray.Float32, shape: []int{}, chunks: []int{}, key: slash, fill: `"-Infinity"`, fillVal: math.Inf(-1),
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}, skip: []string{""}},
		{name: "edge chunks", dt: ndarray.Float64, shape: []int{10, 7}, chunks: []int{4, 3}, key: slash, fill: "0",
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "chunk larger than the array", dt: ndarray.Int32, shape: []int{3, 2}, chunks: []int{5, 5}, key: slash, fill: "0",
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
		{name: "single-element chunks", dt: ndarray.Float32, shape: []int{3, 4}, chunks: []int{1, 1}, key: slash, fill: "0",
			codecs: "[" + be + "]", stages: []stage{bytesStage(true)}},
		{name: "empty array", dt: ndarray.Float64, shape: []int{0, 4}, chunks: []int{2, 2}, key: slash, fill: "0",
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}},
	}
	// Missing chunks read as the fill value, in each of its forms.
	for i, f := range []struct {
		dt   ndarray.DType
		json string
		v    float64
	}{
		{ndarray.Float64, `"NaN"`, math.NaN()},
		{ndarray.Float64, `"Infinity"`, math.Inf(1)},
		{ndarray.Float64, `"-Infinity"`, math.Inf(-1)},
		{ndarray.Float64, `"0x7ff8000000000000"`, math.NaN()},
		{ndarray.Float64, `"0x7ff0000000000001"`, math.NaN()}, // a signalling NaN's bits
		{ndarray.Float64, `"0xc004000000000000"`, -2.5},
		{ndarray.Float32, `"0x7fc00000"`, math.NaN()},
		{ndarray.Float32, `"0x3fc00000"`, 1.5},
		{ndarray.Float32, `"NaN"`, math.NaN()},
		{ndarray.Float32, `0.1`, float64(float32(0.1))},
		{ndarray.Float64, `2.5e-3`, 2.5e-3},
		{ndarray.Float64, `-7`, -7},
		{ndarray.Int32, `-7`, -7},
		{ndarray.Int32, `2147483647`, 2147483647},
		{ndarray.Int64, `-9223372036854775808`, -9223372036854775808},
		{ndarray.Int64, `123456789012`, 123456789012},
		{ndarray.Bool, `true`, 1},
		{ndarray.Bool, `false`, 0},
		{ndarray.Float64, `null`, 0},
	} {
		codecs, stages := "["+le+"]", []stage{bytesStage(false)}
		if f.dt == ndarray.Bool {
			codecs = `[{"name": "bytes"}]`
		}
		cases = append(cases, v3case{name: fmt.Sprintf("missing chunks, fill %d %s %s", i, typeName(f.dt), f.json), dt: f.dt,
			shape: []int{6, 5}, chunks: []int{4, 2}, key: slash, fill: f.json, fillVal: f.v, codecs: codecs, stages: stages,
			skip: []string{"0,1", "1,2", "1,0"}})
	}
	// Sharded stores.
	gz := `[` + le + `, {"name": "gzip", "configuration": {"level": 1}}]`
	gzStages := []stage{bytesStage(false), gzipStage}
	cases = append(cases,
		v3case{name: "sharded, index at the end with crc32c, inner gzip, empty inner chunks", dt: ndarray.Float64,
			shape: []int{9, 10}, chunks: []int{4, 6}, inner: []int{2, 3}, key: slash, fill: `"NaN"`, fillVal: math.NaN(),
			codecs: gz, stages: gzStages, indexEnd: true, indexCRC: true, skip: []string{"0,1", "3,2", "4,3"}},
		v3case{name: "sharded, index at the start with crc32c", dt: ndarray.Int32,
			shape: []int{9, 10}, chunks: []int{4, 6}, inner: []int{2, 3}, key: slash, fill: "-1", fillVal: -1,
			codecs: gz, stages: gzStages, indexCRC: true, skip: []string{"1,1"}},
		v3case{name: "sharded, index at the start without crc32c, written last first", dt: ndarray.Float32,
			shape: []int{8, 8}, chunks: []int{4, 4}, inner: []int{2, 2}, key: slash, fill: "0",
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}, reverse: true, skip: []string{"0,0", "3,3"}},
		v3case{name: "sharded, index at the end, written last first, missing shard", dt: ndarray.Int64,
			shape: []int{10, 5}, chunks: []int{4, 5}, inner: []int{2, 5}, key: slash, fill: "7", fillVal: 7,
			codecs: "[" + be + `, {"name": "crc32c"}]`, stages: []stage{bytesStage(true), crcStage}, reverse: true, indexEnd: true,
			indexCRC: true, skipShard: []string{"1,0"}},
		v3case{name: "sharded, inner transpose big zstd crc32c", dt: ndarray.Float64,
			shape: []int{5, 7, 3}, chunks: []int{4, 4, 3}, inner: []int{2, 2, 3}, key: v2Key("."), keyEnc: `{"name": "v2"}`, fill: `"Infinity"`,
			fillVal: math.Inf(1), codecs: `[{"name": "transpose", "configuration": {"order": [2, 1, 0]}}, ` + be + `, {"name": "zstd", "configuration": {"level": 1, "checksum": true}}, {"name": "crc32c"}]`,
			stages: []stage{transposeStage(2, 1, 0), bytesStage(true), zstdStage, crcStage}, indexEnd: true, indexCRC: true, skip: []string{"2,3,0"}},
		v3case{name: "sharded 1-d blosc", dt: ndarray.Int64,
			shape: []int{100}, chunks: []int{32}, inner: []int{8}, key: dot, keyEnc: `{"name": "default", "configuration": {"separator": "."}}`, fill: "0",
			codecs: "[" + le + `, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}}]`,
			stages: []stage{bytesStage(false), bloscStage(8)}, indexEnd: true, indexCRC: true, skip: []string{"5"}},
		v3case{name: "sharded bool", dt: ndarray.Bool,
			shape: []int{7, 7}, chunks: []int{6, 6}, inner: []int{3, 2}, key: slash, fill: "true", fillVal: 1,
			codecs: `[{"name": "bytes"}]`, stages: []stage{bytesStage(false)}, indexEnd: true, indexCRC: true, skip: []string{"1,1"}},
		v3case{name: "sharded 0-d", dt: ndarray.Float64, shape: []int{}, chunks: []int{}, inner: []int{}, key: slash, fill: "0",
			codecs: "[" + le + "]", stages: []stage{bytesStage(false)}, indexCRC: true},
	)
	return cases
}

// TestV3SpecStores reads stores built from the specification with
// ReadChunk (every chunk, compared where it lies in the array) and
// ReadRegion (the whole array and boxes cutting through chunks).
func TestV3SpecStores(t *testing.T) {
	root := t.TempDir()
	regions := 0
	for n, c := range v3cases() {
		dir := filepath.Join(root, fmt.Sprintf("s%d.zarr", n))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		want := c.build(t, dir)
		a, err := Open(dir)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		chunks := c.chunks
		if c.inner != nil {
			chunks = c.inner
		}
		if a.Format != 3 || a.DType != c.dt || !slices.Equal(a.Shape, c.shape) || !slices.Equal(a.Chunks, chunks) {
			t.Errorf("%s: opened as format %d %v %v chunks %v", c.name, a.Format, a.DType, a.Shape, a.Chunks)
			continue
		}
		if c.inner == nil {
			if got, wantKey := a.Key(make([]int, len(c.shape))), c.key(make([]int, len(c.shape))); got != wantKey {
				t.Errorf("%s: key %q, want %q", c.name, got, wantKey)
			}
		}
		ok := true
		forGrid(a.Grid(), func(idx []int) {
			ch, err := a.ReadChunk(idx)
			if err != nil {
				t.Errorf("%s: chunk %v: %v", c.name, idx, err)
				ok = false
				return
			}
			if !slices.Equal(ch.Shape(), chunks) {
				t.Errorf("%s: chunk %v of shape %v", c.name, idx, ch.Shape())
				ok = false
				return
			}
			src, dst := make([]ndarray.Range, len(idx)), make([]ndarray.Range, len(idx))
			for i := range idx {
				o := idx[i] * chunks[i]
				n := min(chunks[i], c.shape[i]-o)
				src[i] = ndarray.Range{Start: 0, Step: 1, Len: n}
				dst[i] = ndarray.Range{Start: o, Step: 1, Len: n}
			}
			got, _ := ch.Slice(src)
			exp, _ := want.Slice(dst)
			if !sameArrays(got, exp) {
				t.Errorf("%s: chunk %v: %v, want %v", c.name, idx, got, exp)
				ok = false
			}
		})
		if !ok {
			continue
		}
		for _, r := range boxes(c.shape) {
			got, err := a.ReadRegion(r[0], r[1])
			if err != nil {
				t.Errorf("%s: region %v: %v", c.name, r, err)
				continue
			}
			ranges := make([]ndarray.Range, len(c.shape))
			for i := range ranges {
				ranges[i] = ndarray.Range{Start: r[0][i], Step: 1, Len: r[1][i]}
			}
			exp, _ := want.Slice(ranges)
			if !sameArrays(got, exp) {
				t.Errorf("%s: region %v: %v, want %v", c.name, r, got, exp)
			}
			regions++
		}
		// A worker's copy of the metadata reads the same.
		b, err := ParseV3(dir, a.V3Meta())
		if err != nil {
			t.Errorf("%s: canonical metadata: %v", c.name, err)
		} else if got, err := b.ReadRegion(make([]int, len(c.shape)), c.shape); err != nil || !sameArrays(got, want) {
			t.Errorf("%s: read through the canonical metadata: %v", c.name, err)
		}
	}
	t.Logf("zarr v3 spec stores: %d stores, %d regions read equal", len(v3cases()), regions)
}

// boxes are regions of an array of shape: the whole, from 1 to the end
// less 1, a single element, the last row.
func boxes(shape []int) [][2][]int {
	nd := len(shape)
	whole := [2][]int{make([]int, nd), slices.Clone(shape)}
	inner := [2][]int{make([]int, nd), make([]int, nd)}
	one := [2][]int{make([]int, nd), make([]int, nd)}
	last := [2][]int{make([]int, nd), slices.Clone(shape)}
	for i, n := range shape {
		if n >= 3 {
			inner[0][i], inner[1][i] = 1, n-2
		} else {
			inner[1][i] = n
		}
		if n > 0 {
			one[0][i], one[1][i] = n/2, 1
		}
	}
	if nd > 0 && shape[0] > 0 {
		last[0][0], last[1][0] = shape[0]-1, 1
	}
	return [][2][]int{whole, inner, one, last}
}
