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
	dir, base := filepath.Split(path)
	temp := filepath.Join(dir, fmt.Sprintf(".%s.phobos-%s.tmp", base, hex.EncodeToString(tag[:])))
	return New(ops.NpyWrite{Path: path, Temp: temp}, t)
}

// FromZarr is a tensor of the Zarr format 2 array in the directory at path
// (written by zarr-python, Dask or xarray). Only the .zarray metadata is
// read now; each chunk is read by the worker that computes it, from the
// stored chunks it overlaps, decompressed there (zlib, gzip, zstd, blosc
// with lz4, lz4hc, zlib or zstd, byte or bit shuffle). Missing stored
// chunks read as the array's fill value. By default the tensor's chunks are
// the stored ones (Chunks, ChunkSplits and ChunkBytes choose others);
// WithDType casts after reading. The workers must see the directory at
// path, and it must not change while computations read it.
func FromZarr(path string, opts ...Option) *Tensor {
	c := newConfig(ndarray.Invalid, opts)
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
