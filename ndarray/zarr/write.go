package zarr

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Codecs names the compressors Encode writes.
var Codecs = []string{"", "zlib", "gzip", "zstd", "blosc"}

// Option sets how NewArray writes an array.
type Option func(*writeOptions)

type writeOptions struct {
	format int
}

// WithFormat chooses the Zarr format written: 2 (the default; 0 means 2)
// or 3.
func WithFormat(format int) Option { return func(o *writeOptions) { o.format = format } }

// NewArray describes a Zarr array to write: C order, little-endian, fill
// value 0 (false), codec one of Codecs ("blosc" is lz4 with byte shuffle,
// zarr-python's default). Format 2 writes .zarray with "." separators;
// format 3 (WithFormat(3)) writes zarr.json with the default chunk key
// encoding ("c/1/2") and the codecs bytes (little-endian) then gzip, zstd or
// blosc ("zlib" is not a Zarr v3 codec: it is refused).
func NewArray(shape, chunks []int, dt ndarray.DType, codec string, opts ...Option) (*Array, error) {
	var o writeOptions
	for _, f := range opts {
		f(&o)
	}
	if len(chunks) != len(shape) {
		return nil, fmt.Errorf("zarr: chunks %v for shape %v", chunks, shape)
	}
	for i, c := range chunks {
		if c <= 0 || shape[i] < 0 {
			return nil, fmt.Errorf("zarr: chunks %v for shape %v", chunks, shape)
		}
	}
	if _, err := typeString(dt); err != nil {
		return nil, err
	}
	if err := checkChunkBytes(chunks, dt.Size()); err != nil {
		return nil, fmt.Errorf("zarr: %w", err)
	}
	switch codec {
	case "", "zlib", "gzip", "zstd", "blosc":
	default:
		return nil, fmt.Errorf("zarr: compressor %q (write: none, zlib, gzip, zstd, blosc)", codec)
	}
	switch o.format {
	case 0, 2:
		return &Array{Shape: shape, Chunks: chunks, DType: dt, Separator: ".", Codec: codec}, nil
	case 3:
		doc, err := metaV3(shape, chunks, dt, codec)
		if err != nil {
			return nil, err
		}
		a, err := parseV3(doc)
		if err != nil {
			return nil, fmt.Errorf("zarr: %w", err)
		}
		a.Codec, a.v3.writable = codec, true
		return a, nil
	}
	return nil, fmt.Errorf("zarr: format %d (2 or 3 are written)", o.format)
}

// metaV3 is the zarr.json NewArray writes for format 3.
func metaV3(shape, chunks []int, dt ndarray.DType, codec string) ([]byte, error) {
	if shape == nil { // 0-d: [] in JSON, not null
		shape, chunks = []int{}, []int{}
	}
	bytesCodec := map[string]any{"name": "bytes"}
	if dt.Size() > 1 {
		bytesCodec["configuration"] = map[string]any{"endian": "little"}
	}
	codecs := []any{bytesCodec}
	switch codec {
	case "":
	case "gzip":
		codecs = append(codecs, map[string]any{"name": "gzip", "configuration": map[string]any{"level": 1}})
	case "zstd":
		codecs = append(codecs, map[string]any{"name": "zstd", "configuration": map[string]any{"level": 1, "checksum": false}})
	case "blosc":
		shuffle := "shuffle"
		if dt.Size() == 1 {
			shuffle = "noshuffle"
		}
		codecs = append(codecs, map[string]any{"name": "blosc", "configuration": map[string]any{
			"cname": "lz4", "clevel": 5, "shuffle": shuffle, "typesize": dt.Size(), "blocksize": 0}})
	default:
		return nil, fmt.Errorf("zarr: compressor %q is not a Zarr v3 codec (write: none, gzip, zstd, blosc)", codec)
	}
	var fill any = 0
	switch {
	case dt == ndarray.Bool:
		fill = false
	case dt.IsComplex():
		fill = []float64{0, 0} // [real, imag]
	}
	m := map[string]any{
		"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": typeName(dt),
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": chunks}},
		"chunk_key_encoding": map[string]any{"name": "default", "configuration": map[string]any{"separator": "/"}},
		"fill_value":         fill, "codecs": codecs, "attributes": map[string]any{},
	}
	return json.MarshalIndent(m, "", "    ")
}

func typeString(dt ndarray.DType) (string, error) {
	if !dt.Valid() {
		return "", fmt.Errorf("zarr: dtype %v cannot be written", dt)
	}
	order := "<"
	if dt.Size() == 1 {
		order = "|"
	}
	return fmt.Sprintf("%s%c%d", order, dt.Kind(), dt.Size()), nil
}

// WriteMeta writes the array's .zarray (format 2) or zarr.json (format 3)
// into dir.
func (a *Array) WriteMeta(dir string) error {
	if a.v3 != nil && !a.v3.writable {
		return errors.New("zarr: an opened format 3 array is not written (make one with NewArray)")
	}
	if a.Format == 3 {
		doc, err := metaV3(a.Shape, a.Chunks, a.DType, a.Codec)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "zarr.json"), doc, 0o644)
	}
	dt, err := typeString(a.DType)
	if err != nil {
		return err
	}
	var comp any
	switch a.Codec {
	case "zlib", "gzip":
		comp = map[string]any{"id": a.Codec, "level": 1}
	case "zstd":
		comp = map[string]any{"id": "zstd", "level": 1}
	case "blosc":
		comp = map[string]any{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}
	}
	var fill any = 0
	if a.DType.IsComplex() {
		fill = []float64{0, 0} // zarr-python's [real, imag]
	}
	m := map[string]any{
		"zarr_format": 2, "shape": a.Shape, "chunks": a.Chunks, "dtype": dt, "compressor": comp,
		"fill_value": fill, "order": "C", "filters": nil, "dimension_separator": ".",
	}
	b, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".zarray"), b, 0o644)
}

// WriteChunk encodes the stored chunk at grid index idx from data (the part
// of the array it covers, which edge chunks pad to the full chunk shape
// with zeros) into dir, and returns the bytes written. The directories of
// a format 3 key ("c/1/2") are made below dir, never dir itself.
func (a *Array) WriteChunk(dir string, idx []int, data *ndarray.Array) (int64, error) {
	if a.v3 != nil && !a.v3.writable {
		return 0, errors.New("zarr: an opened format 3 array is not written (make one with NewArray)")
	}
	if len(idx) != len(a.Chunks) || data == nil || data.NDim() != len(a.Chunks) || data.DType() != a.DType {
		return 0, fmt.Errorf("zarr: chunk %v: data of shape %v for chunks %v", idx, shapeOf(data), a.Chunks)
	}
	key := a.Key(idx)
	full, err := ndarray.New(a.DType, a.Chunks...)
	if err != nil {
		return 0, err
	}
	ranges := make([]ndarray.Range, len(a.Chunks))
	for i, n := range data.Shape() {
		if n > a.Chunks[i] || idx[i]*a.Chunks[i]+n > max(a.Shape[i], 0) {
			return 0, fmt.Errorf("zarr: chunk %s: data of shape %v does not fit", key, data.Shape())
		}
		ranges[i] = ndarray.Range{Start: 0, Step: 1, Len: n}
	}
	view, err := full.Slice(ranges)
	if err != nil {
		return 0, err
	}
	ndarray.CopyInto(view, data)
	enc, err := a.encode(full.Bytes())
	if err != nil {
		return 0, fmt.Errorf("zarr: chunk %s: %w", key, err)
	}
	if err := mkdirsBelow(dir, path.Dir(key)); err != nil {
		return 0, fmt.Errorf("zarr: chunk %s: %w", key, err)
	}
	name := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.WriteFile(name, enc, 0o644); err != nil {
		return 0, fmt.Errorf("zarr: chunk %s: %w", key, err)
	}
	return int64(len(enc)), nil
}

func shapeOf(a *ndarray.Array) []int {
	if a == nil {
		return nil
	}
	return a.Shape()
}

// mkdirsBelow makes the directories of rel (a slash path) inside dir, one
// by one: dir itself must exist.
func mkdirsBelow(dir, rel string) error {
	if rel == "." || rel == "" {
		return nil
	}
	cur := dir
	for _, part := range strings.Split(rel, "/") {
		cur = filepath.Join(cur, part)
		if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

func (a *Array) encode(raw []byte) ([]byte, error) {
	switch a.Codec {
	case "":
		return raw, nil
	case "blosc":
		return bloscEncode(raw, a.DType.Size()), nil
	case "zstd":
		// A single segment writes the frame content size, which
		// numcodecs needs to decode.
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true))
		if err != nil {
			return nil, err
		}
		defer e.Close()
		return e.EncodeAll(raw, nil), nil
	}
	var b bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	if a.Codec == "zlib" {
		w, _ = zlib.NewWriterLevel(&b, zlib.BestSpeed)
	} else {
		w, _ = gzip.NewWriterLevel(&b, gzip.BestSpeed)
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// bloscBlock is the block size bloscEncode uses (a multiple of every type
// size).
const bloscBlock = 256 << 10

// bloscEncode writes a blosc frame: lz4 over byte-shuffled blocks, one
// stream a block (not split), a block stored raw where lz4 does not shrink
// it.
func bloscEncode(raw []byte, typesize int) []byte {
	n := len(raw)
	blocksize := min(bloscBlock, n)
	if blocksize == 0 {
		blocksize = typesize
	}
	nblocks := (n + blocksize - 1) / blocksize
	flags := byte(bloscDontSplit | 1<<5)
	if typesize > 1 {
		flags |= bloscShuffle
	}
	out := make([]byte, 16+4*nblocks, 16+4*nblocks+n+n/64+64)
	out[0], out[1], out[2], out[3] = 2, 1, flags, byte(typesize)
	binary.LittleEndian.PutUint32(out[4:], uint32(n))
	binary.LittleEndian.PutUint32(out[8:], uint32(blocksize))
	shuf := make([]byte, blocksize)
	comp := make([]byte, lz4.CompressBlockBound(blocksize))
	var c lz4.Compressor
	for b := range nblocks {
		block := raw[b*blocksize : min((b+1)*blocksize, n)]
		src := block
		if typesize > 1 {
			src = shuf[:len(block)]
			byteShuffle(src, block, typesize)
		}
		binary.LittleEndian.PutUint32(out[16+4*b:], uint32(len(out)))
		k, err := c.CompressBlock(src, comp)
		if err != nil || k == 0 || k >= len(src) {
			out = binary.LittleEndian.AppendUint32(out, uint32(len(src)))
			out = append(out, src...)
			continue
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(k))
		out = append(out, comp[:k]...)
	}
	binary.LittleEndian.PutUint32(out[12:], uint32(len(out)))
	return out
}

// byteShuffle is blosc's byte shuffle: byte j of every element together.
func byteShuffle(dst, src []byte, ts int) {
	n := len(src) / ts
	for j := range ts {
		row := dst[j*n : (j+1)*n]
		for i := range row {
			row[i] = src[i*ts+j]
		}
	}
	copy(dst[n*ts:], src[n*ts:])
}
