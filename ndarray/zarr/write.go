package zarr

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Codecs names the compressors Encode writes.
var Codecs = []string{"", "zlib", "gzip", "zstd", "blosc"}

// NewArray describes a Zarr v2 array to write: C order, little-endian, fill
// value 0, "." separators, codec one of Codecs ("blosc" is lz4 with byte
// shuffle, zarr-python's default).
func NewArray(shape, chunks []int, dt ndarray.DType, codec string) (*Array, error) {
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
	return &Array{Shape: shape, Chunks: chunks, DType: dt, Separator: ".", Codec: codec}, nil
}

func typeString(dt ndarray.DType) (string, error) {
	switch dt {
	case ndarray.Float64:
		return "<f8", nil
	case ndarray.Float32:
		return "<f4", nil
	case ndarray.Int64:
		return "<i8", nil
	case ndarray.Int32:
		return "<i4", nil
	case ndarray.Bool:
		return "|b1", nil
	}
	return "", fmt.Errorf("zarr: dtype %v cannot be written", dt)
}

// WriteMeta writes the array's .zarray into dir.
func (a *Array) WriteMeta(dir string) error {
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
	m := map[string]any{
		"zarr_format": 2, "shape": a.Shape, "chunks": a.Chunks, "dtype": dt, "compressor": comp,
		"fill_value": 0, "order": "C", "filters": nil, "dimension_separator": ".",
	}
	b, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".zarray"), b, 0o644)
}

// WriteChunk encodes the stored chunk at grid index idx from data (the part
// of the array it covers, which edge chunks pad to the full chunk shape
// with zeros) into dir, and returns the bytes written.
func (a *Array) WriteChunk(dir string, idx []int, data *ndarray.Array) (int64, error) {
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
	name := filepath.Join(dir, key)
	if err := os.WriteFile(name, enc, 0o644); err != nil {
		return 0, fmt.Errorf("zarr: chunk %s: %w", key, err)
	}
	return int64(len(enc)), nil
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
