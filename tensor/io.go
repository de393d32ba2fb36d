package tensor

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// FromNpy is a tensor of the .npy file at path (NumPy's np.save format).
// Only the header is read now, to learn the shape, dtype and layout; each
// chunk is read by the worker that computes it, with one positioned read per
// contiguous run of the chunk in the file (one per chunk when chunks span
// whole trailing rows of a C-order file). Big-endian and Fortran-order files
// are read too. Chunks and ChunkBytes set the chunking (default: chunks of
// about 128 MiB that keep the file's contiguous axes whole); WithDType casts
// the data after reading.
//
// The workers must see the file at path, and it must not change until the
// computations reading it end: under memory pressure a chunk of it may be
// dropped and read again instead of being spilled. Errors (a missing file,
// a directory, a bad or lying header, an unsupported dtype) name the file
// and are carried by the tensor.
func FromNpy(path string, opts ...Option) *Tensor {
	c := newConfig(ndarray.Invalid, opts)
	if c.err != nil {
		return errorf("from npy: %w", c.err)
	}
	op, err := ops.NewNpyRead(filepath.Clean(path), c.chunks)
	if err != nil {
		return errorf("from npy: %w", err)
	}
	t := New(op)
	if c.dtype.Valid() && c.dtype != op.Meta.DType {
		t = t.Astype(c.dtype)
	}
	return t
}

// ToNpy is a sink: executing it writes t to a .npy file at path (version
// 1.0, little-endian, C order, byte-identical to np.save's) and gives the
// file's size in bytes as a 0-d int64 tensor. The header is written once
// and every chunk of t is written into its place by the worker that holds
// it, in parallel; nothing passes through the client. The data goes to a
// temporary file beside path (a dot file in the same directory) that is
// renamed to path once every chunk is written, so path gets either the
// whole array or, after a failure or a cancel, nothing; an existing file
// at path is replaced only on success.
func (t *Tensor) ToNpy(path string) *Tensor {
	if t == nil {
		return errorf("to npy: nil tensor")
	}
	if path == "" {
		return errorf("to npy: empty path")
	}
	path = filepath.Clean(path)
	var tag [8]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return errorf("to npy %s: %w", path, err)
	}
	return New(ops.NpyWrite{Path: path, Temp: ops.SinkTemp(path, hex.EncodeToString(tag[:]))}, t)
}

// FromZarr is a tensor of the Zarr array in the directory at path, format
// 2 (.zarray, written by zarr-python 2, Dask or xarray) or format 3
// (zarr.json, written by zarr-python 3, zarrita or tensorstore), told apart
// by the metadata file found. Only the metadata is read now; each chunk is
// read by the worker that computes it, from the stored chunks it overlaps,
// decoded there (format 2: zlib, gzip, zstd, blosc with lz4, lz4hc, zlib or
// zstd, byte or bit shuffle; format 3: the transpose, bytes, gzip, zstd,
// blosc and crc32c codecs, and sharding_indexed, whose inner chunks are
// read by byte range, never the whole shard). Missing stored chunks (and
// empty inner chunks) read as the array's fill value. By default the
// tensor's chunks are the stored ones, a sharded array's inner chunks
// (Chunks, ChunkSplits and ChunkBytes choose others); WithDType casts after
// reading. The workers must see the directory at path, and it must not
// change while computations read it.
func FromZarr(path string, opts ...Option) *Tensor {
	c := newConfig(ndarray.Invalid, opts)
	if c.err != nil {
		return errorf("from zarr: %w", c.err)
	}
	op, err := ops.NewZarrRead(filepath.Clean(path), c.chunks)
	if err != nil {
		return errorf("from zarr: %w", err)
	}
	t := New(op)
	if c.dtype.Valid() && c.dtype != op.Store.DType {
		t = t.Astype(c.dtype)
	}
	return t
}

// ToZarr is a sink: executing it writes t as a Zarr array in the directory
// at path (C order, little-endian, fill value 0), which must not exist:
// format 2 by default, format 3 with ZarrFormat(3) (zarr.json, the default
// chunk key encoding "c/1/2", the bytes codec then the compressor). Chunks
// sets the stored chunk shape (default: chunks of about 16 MiB; t is
// rechunked to it when its chunks differ); ZarrCodec the compressor
// (default "blosc": lz4 with byte shuffle, zarr-python's default; also
// "zstd", "gzip", or "none", and for format 2 "zlib"). Each stored chunk is
// written by the worker that computes it, into a temporary directory beside
// path renamed to path when every chunk is written: a failure or a cancel
// leaves nothing at path. Its value is the bytes of chunk data written, a
// 0-d int64.
func (t *Tensor) ToZarr(path string, opts ...Option) *Tensor {
	if t == nil {
		return errorf("to zarr: nil tensor")
	}
	if t.err != nil {
		return errTensor(t.err)
	}
	if path == "" {
		return errorf("to zarr: empty path")
	}
	path = filepath.Clean(path)
	c := newConfig(t.meta.DType, opts)
	if c.err != nil {
		return errorf("to zarr: %w", c.err)
	}
	if err := c.chunks.Validate(t.meta.Shape); err != nil {
		return errorf("to zarr: %w", err)
	}
	codec, format := c.codec, c.zarrFormat
	if format == 2 {
		format = 0 // the op's default, so format 2 graphs encode as before
	}
	switch codec {
	case "":
		codec = "blosc"
	case "none":
		codec = ""
	}
	chunks := make([]int, t.meta.NDim())
	switch {
	case len(c.chunks.Size) == 1:
		for i := range chunks {
			chunks[i] = c.chunks.Size[0]
		}
	case len(c.chunks.Size) == len(chunks):
		copy(chunks, c.chunks.Size)
	case c.chunks.IsAuto():
		// Chunks of about zarrChunkBytes, the trailing axes whole first.
		for i, sp := range ops.AutoSplits(t.meta.Shape, t.meta.DType.Size(), zarrChunkBytes) {
			chunks[i] = max(sp[0], 1)
		}
	default:
		return errorf("to zarr %s: give the stored chunk shape with Chunks", path)
	}
	for i, n := range chunks {
		if n == -1 || n > t.meta.Shape[i] {
			chunks[i] = max(t.meta.Shape[i], 1)
		}
	}
	var tag [8]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return errorf("to zarr %s: %w", path, err)
	}
	x := t.Rechunk(Chunks(chunks...))
	return New(ops.ZarrWrite{Path: path, Temp: ops.SinkTemp(path, hex.EncodeToString(tag[:])), Chunks: chunks, Codec: codec, Format: format}, x)
}

// zarrChunkBytes is the size of ToZarr's default stored chunks.
const zarrChunkBytes = 16 << 20

// ZarrCodec sets the compressor ToZarr writes chunks with.
func ZarrCodec(name string) Option { return func(c *config) { c.codec = name } }

// ZarrFormat sets the Zarr format ToZarr writes: 2 (the default) or 3.
func ZarrFormat(format int) Option {
	return func(c *config) {
		if format != 2 && format != 3 {
			c.setErr(fmt.Errorf("zarr format %d (2 or 3)", format))
			return
		}
		c.zarrFormat = format
	}
}
