// Package zarr reads and writes Zarr arrays in a directory store, in our
// own code, in format 2 and format 3.
//
// Format 2: the .zarray metadata (shape, chunks, dtype with its byte order,
// C or F order, fill_value, dimension_separator) and stored chunks
// compressed with zlib, gzip, zstd or blosc (lz4, lz4hc, zlib or zstd
// inside, byte or bit shuffle).
//
// Format 3 (the v3.0 core specification): zarr.json with node_type
// "array", data_type bool, int32, int64, float32 or float64 (others are
// refused, naming the type), the "regular" chunk grid, the "default" ("c/1/2",
// "c" for 0-d) and "v2" ("1.2", "0" for 0-d) chunk key encodings with either
// separator, fill_value in every form the specification permits (numbers,
// booleans, "NaN", "Infinity", "-Infinity", "0x" bit patterns), and the
// codecs transpose, bytes (either endian), gzip, zstd, blosc, crc32c (the
// checksum is verified) and sharding_indexed (index at the start or the end,
// through bytes and crc32c index codecs; empty inner chunks read as the fill
// value). A sharded array's chunks, as this package shows them (Chunks,
// Grid, ReadChunk), are its inner chunks: a reader reads a shard's index and
// then only the byte ranges of the inner chunks it needs. Unknown codecs,
// chunk grids, key encodings, storage transformers and members without
// "must_understand": false are refused with an error naming the store.
//
// A missing chunk reads as fill_value. Chunks are read one at a time, so a
// worker reads only the chunks its op needs; reading is safe from several
// goroutines. Everything read from disk is checked before it is allocated:
// stored chunks are bounded by MaxChunkBytes, shard indexes by
// MaxShardIndexBytes, and a chunk's stored bytes by what its decoded size
// can encode to.
//
// NewArray describes an array to write, format 2 by default or format 3
// with WithFormat(3) (codecs bytes, little-endian, then gzip, zstd or blosc).
package zarr

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Array is an opened Zarr array: its metadata, no data.
type Array struct {
	Format    int           // 2 (or 0) or 3
	Path      string        // the array's directory
	Shape     []int         // the array
	Chunks    []int         // a stored chunk (edge chunks are stored whole)
	DType     ndarray.DType // as Phobos holds it
	BigEndian bool          // stored byte order
	Fortran   bool          // each chunk in F order
	Fill      float64       // what a missing chunk holds (NaN allowed); a complex fill's real part
	FillImag  float64       // a complex fill's imaginary part
	Separator string        // between chunk indexes in keys: "." or "/"
	Codec     string        // "" (none), "zlib", "gzip", "zstd" or "blosc" (v2)

	// Check, when set, vets each file before it is read (a worker's data
	// roots: a chunk file may be a symbolic link leading out).
	Check func(path string) error

	v3 *v3Meta // format 3: its zarr.json, parsed
}

type meta struct {
	ZarrFormat int               `json:"zarr_format"`
	Shape      []int             `json:"shape"`
	Chunks     []int             `json:"chunks"`
	DType      json.RawMessage   `json:"dtype"`
	Compressor map[string]any    `json:"compressor"`
	FillValue  json.RawMessage   `json:"fill_value"`
	Order      string            `json:"order"`
	Filters    []json.RawMessage `json:"filters"`
	Separator  string            `json:"dimension_separator"`
}

// maxMetaBytes bounds a metadata document.
const maxMetaBytes = 64 << 20

// Open reads the array's metadata: its .zarray (format 2) or, without one,
// its zarr.json (format 3).
func Open(path string) (*Array, error) {
	raw, err := readMeta(filepath.Join(path, ".zarray"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			doc, err3 := readMeta(filepath.Join(path, "zarr.json"))
			if err3 == nil {
				return ParseV3(path, doc)
			}
			if !errors.Is(err3, fs.ErrNotExist) {
				return nil, fmt.Errorf("zarr %s: %w", path, err3)
			}
			return nil, fmt.Errorf("zarr %s: no .zarray (format 2) or zarr.json (format 3): %w", path, err)
		}
		return nil, fmt.Errorf("zarr %s: %w", path, err)
	}
	a, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("zarr %s/.zarray: %w", path, err)
	}
	a.Path = path
	return a, nil
}

// readMeta reads a metadata document of at most maxMetaBytes.
func readMeta(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMetaBytes+1))
	if err == nil && len(b) > maxMetaBytes {
		err = fmt.Errorf("%s is over %d bytes", name, maxMetaBytes)
	}
	return b, err
}

func parse(raw []byte) (*Array, error) {
	var m meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m.ZarrFormat != 2 {
		return nil, fmt.Errorf("zarr_format %d (only 2 is read)", m.ZarrFormat)
	}
	if len(m.Chunks) != len(m.Shape) {
		return nil, fmt.Errorf("chunks %v for shape %v", m.Chunks, m.Shape)
	}
	elems := int64(1)
	for i, n := range m.Shape {
		if n < 0 || m.Chunks[i] <= 0 {
			return nil, fmt.Errorf("shape %v with chunks %v", m.Shape, m.Chunks)
		}
		if n > 0 && elems > math.MaxInt64/8/int64(n) {
			return nil, fmt.Errorf("shape %v is too large", m.Shape)
		}
		elems *= int64(n)
	}
	if err := checkChunkBytes(m.Chunks, 8); err != nil {
		return nil, err
	}
	a := &Array{Shape: m.Shape, Chunks: m.Chunks, Separator: "."}
	var dt string
	if err := json.Unmarshal(m.DType, &dt); err != nil {
		return nil, fmt.Errorf("dtype %s: structured dtypes are not read", m.DType)
	}
	var err error
	if a.DType, a.BigEndian, err = parseDType(dt); err != nil {
		return nil, err
	}
	switch m.Order {
	case "C", "":
	case "F":
		a.Fortran = true
	default:
		return nil, fmt.Errorf("order %q", m.Order)
	}
	if len(m.Filters) > 0 {
		return nil, fmt.Errorf("filters %s are not supported", m.Filters)
	}
	switch m.Separator {
	case "", ".":
	case "/":
		a.Separator = "/"
	default:
		return nil, fmt.Errorf("dimension_separator %q", m.Separator)
	}
	if m.Compressor != nil {
		id, _ := m.Compressor["id"].(string)
		switch id {
		case "zlib", "gzip", "zstd", "blosc":
			a.Codec = id
		default:
			return nil, fmt.Errorf("compressor %q is not supported (zlib, gzip, zstd and blosc are)", id)
		}
	}
	if a.DType.IsComplex() {
		a.Fill, a.FillImag, err = parseFillComplex(m.FillValue)
	} else {
		a.Fill, err = parseFill(m.FillValue, a.DType)
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// MaxChunkBytes bounds a stored chunk: reading or writing one holds it
// whole in memory.
const MaxChunkBytes = 1 << 31

// checkChunkBytes refuses stored chunks over MaxChunkBytes of itemsize-byte
// elements.
func checkChunkBytes(chunks []int, itemsize int) error {
	b := float64(itemsize)
	for _, c := range chunks {
		b *= float64(c)
	}
	if b > MaxChunkBytes {
		return fmt.Errorf("stored chunks %v of %d-byte elements are over %d bytes", chunks, itemsize, MaxChunkBytes)
	}
	return nil
}

// parseDType maps a NumPy type string to a Phobos dtype and byte order.
func parseDType(s string) (ndarray.DType, bool, error) {
	if len(s) < 3 {
		return 0, false, fmt.Errorf("dtype %q", s)
	}
	big := s[0] == '>'
	if s[0] != '<' && s[0] != '>' && s[0] != '|' {
		return 0, false, fmt.Errorf("dtype %q: unknown byte order", s)
	}
	dt := ndarray.Invalid
	if len(s) == 3 && s[2] >= '1' && s[2] <= '8' {
		dt = ndarray.DTypeOf(s[1], int(s[2]-'0'))
	}
	if s[1:] == "c16" {
		dt = ndarray.Complex128
	}
	if dt == ndarray.Invalid {
		return 0, false, fmt.Errorf("dtype %q: Phobos has bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, complex64 and complex128", s)
	}
	return dt, big && dt.Size() > 1, nil
}

// parseFill reads fill_value: a number, "NaN", "Infinity", "-Infinity", a
// boolean, or null (missing chunks then read as zeros).
func parseFill(raw json.RawMessage, dt ndarray.DType) (float64, error) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "", "null":
		return 0, nil
	case `"NaN"`:
		return math.NaN(), nil
	case `"Infinity"`:
		return math.Inf(1), nil
	case `"-Infinity"`:
		return math.Inf(-1), nil
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("fill_value %s", s)
	}
	return v, nil
}

// parseFillComplex reads a complex fill_value: zarr-python writes
// [real, imag], each part as parseFill reads a float; null reads as 0 and
// a plain number as a real value.
func parseFillComplex(raw json.RawMessage) (float64, float64, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		re, err := parseFill(raw, ndarray.Float64)
		return re, 0, err
	}
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("fill_value %s: want [real, imag]", raw)
	}
	re, err := parseFill(parts[0], ndarray.Float64)
	if err != nil {
		return 0, 0, err
	}
	im, err := parseFill(parts[1], ndarray.Float64)
	return re, im, err
}

// fillScalar is a chunk of shape holding the fill value.
func (a *Array) fillScalar(shape []int) *ndarray.Array {
	out := ndarray.FillScalar(a.DType, shape, a.Fill)
	if a.DType.IsComplex() && a.FillImag != 0 {
		for i := range out.Size() {
			out.SetComplexFlat(i, complex(a.Fill, a.FillImag))
		}
	}
	return out
}

// Grid is the number of stored chunks along each axis.
func (a *Array) Grid() []int {
	g := make([]int, len(a.Shape))
	for i, n := range a.Shape {
		g[i] = (n + a.Chunks[i] - 1) / a.Chunks[i]
	}
	return g
}

// Key is the store key of the stored chunk at grid index idx (for a
// sharded array, of the shard at shard-grid index idx).
func (a *Array) Key(idx []int) string {
	if a.v3 != nil {
		return a.keyV3(idx)
	}
	if len(idx) == 0 {
		return "0"
	}
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, a.Separator)
}

// ReadChunk returns the stored chunk at grid index idx, whole (edge chunks
// as stored, beyond the array's end included), in C order; a missing chunk
// is filled with Fill. For a sharded array idx is an inner chunk's index.
func (a *Array) ReadChunk(idx []int) (*ndarray.Array, error) {
	return a.readChunk(idx, nil)
}

func (a *Array) readChunk(idx []int, cache shardCache) (*ndarray.Array, error) {
	if a.v3 != nil {
		return a.readChunkV3(idx, cache)
	}
	key := a.Key(idx)
	name := filepath.Join(a.Path, filepath.FromSlash(key))
	fail := func(err error) error { return fmt.Errorf("zarr %s: chunk %s: %w", a.Path, key, err) }
	shape := a.Chunks
	if a.Fortran {
		shape = reversed(shape)
	}
	out, err := ndarray.New(a.DType, shape...)
	if err != nil {
		return nil, fail(err)
	}
	if a.Check != nil {
		if err := a.Check(name); err != nil {
			return nil, err
		}
	}
	want := out.Nbytes()
	raw, err := readBounded(name, encodedCap(want))
	if errors.Is(err, fs.ErrNotExist) {
		return a.fillScalar(a.Chunks), nil
	}
	if err != nil {
		return nil, fail(err)
	}
	b := out.Bytes()
	var data []byte
	if a.Codec == "blosc" {
		// Straight into the chunk: no second buffer and copy.
		data, err = bloscDecodeTo(b, raw, want)
	} else {
		data, err = a.decode(raw, want)
	}
	if err != nil {
		return nil, fail(err)
	}
	if len(data) != want {
		return nil, fail(fmt.Errorf("%d bytes decoded, the metadata says %d (%v %v)", len(data), want, a.DType, a.Chunks))
	}
	if want > 0 && &data[0] != &b[0] {
		copy(b, data)
	}
	if a.BigEndian {
		swap(b, partSize(a.DType))
	}
	if a.DType == ndarray.Bool {
		for i, v := range b {
			if v > 1 {
				b[i] = 1
			}
		}
	}
	if a.Fortran && len(shape) > 1 {
		t, err := out.Transpose()
		if err != nil {
			return nil, fail(err)
		}
		out = t.Copy()
	}
	return out, nil
}

// decode undoes the compressor, reading at most limit bytes of data.
func (a *Array) decode(raw []byte, limit int) ([]byte, error) {
	switch a.Codec {
	case "":
		return raw, nil
	case "blosc":
		return bloscDecode(raw, limit)
	case "zstd":
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(limit)+64<<20))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return d.DecodeAll(raw, make([]byte, 0, limit))
	}
	var r io.ReadCloser
	var err error
	if a.Codec == "zlib" {
		r, err = zlib.NewReader(bytes.NewReader(raw))
	} else {
		r, err = gzip.NewReader(bytes.NewReader(raw))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Codec, err)
	}
	defer r.Close()
	out := make([]byte, limit)
	if err := readFull(r, out); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Codec, err)
	}
	return out, nil
}

func reversed(s []int) []int {
	r := make([]int, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

// partSize is the size of the numbers an element is made of, the unit of
// byte order: the element itself, or one part of a complex number.
func partSize(dt ndarray.DType) int {
	if dt.IsComplex() {
		return dt.Size() / 2
	}
	return dt.Size()
}

// swap reverses the bytes of each size-byte element.
func swap(b []byte, size int) {
	switch size {
	case 8:
		for i := 0; i+8 <= len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	case 4:
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 2:
		for i := 0; i+2 <= len(b); i += 2 {
			binary.LittleEndian.PutUint16(b[i:], binary.BigEndian.Uint16(b[i:]))
		}
	}
}

// ReadRegion returns the box of the array at off of the given shape, read
// from the stored chunks it overlaps (each read once).
func (a *Array) ReadRegion(off, shape []int) (*ndarray.Array, error) {
	nd := len(a.Shape)
	if len(off) != nd || len(shape) != nd {
		return nil, fmt.Errorf("zarr %s: region %v+%v of a %d-d array", a.Path, off, shape, nd)
	}
	for i := range nd {
		if off[i] < 0 || shape[i] < 0 || off[i]+shape[i] > a.Shape[i] {
			return nil, fmt.Errorf("zarr %s: region %v+%v outside shape %v", a.Path, off, shape, a.Shape)
		}
	}
	if ndarray.Size(shape) > 0 && slices.Equal(shape, a.Chunks) {
		// One stored chunk exactly (Phobos's chunks follow the stored ones
		// by default): it is the region, with no copy into another array.
		idx := make([]int, nd)
		whole := true
		for i := range nd {
			idx[i] = off[i] / a.Chunks[i]
			whole = whole && off[i]%a.Chunks[i] == 0
		}
		if whole {
			var cache shardCache
			if a.v3 != nil && a.v3.shard != nil {
				cache = shardCache{}
				defer cache.close()
			}
			return a.readChunk(idx, cache)
		}
	}
	out, err := ndarray.New(a.DType, shape...)
	if err != nil {
		return nil, err
	}
	if out.Size() == 0 {
		return out, nil
	}
	lo, hi := make([]int, nd), make([]int, nd)
	for i := range nd {
		lo[i] = off[i] / a.Chunks[i]
		hi[i] = (off[i] + shape[i] - 1) / a.Chunks[i]
	}
	var cache shardCache
	if a.v3 != nil && a.v3.shard != nil {
		cache = shardCache{}
		defer cache.close()
	}
	idx := append([]int(nil), lo...)
	for {
		c, err := a.readChunk(idx, cache)
		if err != nil {
			return nil, err
		}
		src, dst := make([]ndarray.Range, nd), make([]ndarray.Range, nd)
		for i := range nd {
			c0 := idx[i] * a.Chunks[i]
			s := max(off[i], c0)
			e := min(off[i]+shape[i], c0+a.Chunks[i])
			src[i] = ndarray.Range{Start: s - c0, Step: 1, Len: e - s}
			dst[i] = ndarray.Range{Start: s - off[i], Step: 1, Len: e - s}
		}
		sv, err := c.Slice(src)
		if err != nil {
			return nil, err
		}
		dv, err := out.Slice(dst)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dv, sv)
		ax := nd - 1
		for ; ax >= 0; ax-- {
			if idx[ax] < hi[ax] {
				idx[ax]++
				break
			}
			idx[ax] = lo[ax]
		}
		if ax < 0 {
			return out, nil
		}
	}
}

// readBounded reads a stored chunk file of at most limit bytes: a file
// larger than any encoding of its chunk could be is refused before it is
// read into memory.
func readBounded(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("the file has %d bytes, more than any encoding of the chunk (at most %d)", fi.Size(), limit)
	}
	raw := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, err
	}
	return raw, nil
}
