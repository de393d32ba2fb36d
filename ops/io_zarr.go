package ops

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/zarr"
)

func init() {
	Register(
		Descriptor{Name: "zarr_read", Op: ZarrRead{}, Kinds: Half | Complex, Chunks: func(op any) ChunkSpec { return op.(ZarrRead).Chunks }, Files: func(op any) []string { return []string{op.(ZarrRead).Store.Path} }},
		Descriptor{Name: "zarr_read_chunk", Op: ZarrReadChunk{}},
	)
}

// ZarrStore is what a worker needs to read a Zarr array's chunks: the
// metadata, copied from the .zarray (format 2) or zarr.json (format 3) when
// the tensor was built, so workers read only chunk files. A format 3 array
// carries its zarr.json (without attributes) in V3, which the worker parses
// again; its Chunks are the stored chunks, or a sharded array's inner
// chunks.
type ZarrStore struct {
	Path      string        `json:"path"`
	Shape     []int         `json:"shape"`
	Chunks    []int         `json:"chunks"`
	DType     ndarray.DType `json:"dtype"`
	BigEndian bool          `json:"big_endian,omitempty"`
	Fortran   bool          `json:"fortran,omitempty"`
	Fill      float64       `json:"fill"`
	Separator string        `json:"separator"`
	Codec     string        `json:"codec,omitempty"`
	V3        string        `json:"v3,omitempty"`
}

func (s ZarrStore) array(ctx context.Context) (*zarr.Array, error) {
	check := func(path string) error { return checkPath(ctx, path) }
	if s.V3 != "" {
		a, err := s.parseV3()
		if err != nil {
			return nil, err
		}
		a.Check = check
		return a, nil
	}
	return &zarr.Array{
		Path: s.Path, Shape: s.Shape, Chunks: s.Chunks, DType: s.DType, BigEndian: s.BigEndian,
		Fortran: s.Fortran, Fill: s.Fill, Separator: s.Separator, Codec: s.Codec, Check: check,
	}, nil
}

// parseV3 reads the store's zarr.json, which must agree with its fields.
func (s ZarrStore) parseV3() (*zarr.Array, error) {
	a, err := zarr.ParseV3(s.Path, []byte(s.V3))
	if err != nil {
		return nil, fmt.Errorf("zarr_read: %w", err)
	}
	if !slices.Equal(a.Shape, s.Shape) || !slices.Equal(a.Chunks, s.Chunks) || a.DType != s.DType || a.Separator != s.Separator ||
		s.Codec != "" || s.BigEndian || s.Fortran {
		return nil, fmt.Errorf("zarr_read %s: its zarr.json (%v %v, chunks %v) disagrees with the op (%v %v, chunks %v)",
			s.Path, a.DType, a.Shape, a.Chunks, s.DType, s.Shape, s.Chunks)
	}
	return a, nil
}

// ZarrRead is a tensor whose data is a Zarr array's (format 2 or 3), read
// by the workers chunk by chunk. By default its chunks are the stored ones
// (a sharded array's inner chunks); any other chunking reads the stored
// chunks each overlaps.
type ZarrRead struct {
	Store  ZarrStore `json:"store"`
	Chunks ChunkSpec `json:"chunks"`
}

// NewZarrRead reads the metadata of the Zarr array at path (format 2 or 3).
func NewZarrRead(path string, spec ChunkSpec) (ZarrRead, error) {
	a, err := zarr.Open(path)
	if err != nil {
		return ZarrRead{}, err
	}
	if spec.IsAuto() && spec.Bytes == 0 {
		spec = ChunkSpec{Size: append([]int(nil), a.Chunks...)}
		for i, c := range spec.Size {
			spec.Size[i] = min(c, max(a.Shape[i], 1))
		}
	}
	return ZarrRead{Chunks: spec, Store: ZarrStore{
		Path: path, Shape: a.Shape, Chunks: a.Chunks, DType: a.DType, BigEndian: a.BigEndian,
		Fortran: a.Fortran, Fill: a.Fill, Separator: a.Separator, Codec: a.Codec, V3: string(a.V3Meta()),
	}}, nil
}

// Type implements TensorOp.
func (ZarrRead) Type() string { return "zarr_read" }

// Infer implements TensorOp.
func (op ZarrRead) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("zarr_read", in); err != nil {
		return Meta{}, err
	}
	if err := op.Store.check(); err != nil {
		return Meta{}, err
	}
	m := Meta{Shape: op.Store.Shape, DType: op.Store.DType}
	if err := checkMeta("zarr_read "+op.Store.Path, m); err != nil {
		return Meta{}, err
	}
	return m, wrapChunks("zarr_read "+op.Store.Path, op.Chunks.Validate(m.Shape))
}

// check refuses metadata that did not come from Open (a graph from the
// network).
func (s ZarrStore) check() error {
	switch {
	case s.Path == "":
		return fmt.Errorf("zarr_read: no path")
	case len(s.Chunks) != len(s.Shape):
		return fmt.Errorf("zarr_read %s: stored chunks %v for shape %v", s.Path, s.Chunks, s.Shape)
	case !s.DType.Valid():
		return fmt.Errorf("zarr_read %s: dtype %v", s.Path, s.DType)
	case s.Separator != "." && s.Separator != "/":
		return fmt.Errorf("zarr_read %s: dimension separator %q", s.Path, s.Separator)
	}
	switch s.Codec {
	case "", "zlib", "gzip", "zstd", "blosc":
	default:
		return fmt.Errorf("zarr_read %s: compressor %q", s.Path, s.Codec)
	}
	elems := 1.0
	for _, c := range s.Chunks {
		if c <= 0 {
			return fmt.Errorf("zarr_read %s: stored chunks %v", s.Path, s.Chunks)
		}
		elems *= float64(c)
	}
	if elems*float64(s.DType.Size()) > math.MaxInt32 {
		return fmt.Errorf("zarr_read %s: stored chunks %v of %v are over 2 GiB", s.Path, s.Chunks, s.DType)
	}
	if s.V3 != "" {
		_, err := s.parseV3()
		return err
	}
	return nil
}

// Tile implements TensorOp.
func (op ZarrRead) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	return tileSource(b, out, op.Chunks, func(shape, off []int) ChunkOp {
		return ZarrReadChunk{Store: op.Store, Offset: off, Shape: shape}
	})
}

// ZarrReadChunk reads one chunk of a Zarr array: the box at Offset of size
// Shape, from the stored chunks it overlaps.
type ZarrReadChunk struct {
	Store  ZarrStore `json:"store"`
	Offset []int     `json:"offset"`
	Shape  []int     `json:"shape"`
}

// Type implements ChunkOp.
func (ZarrReadChunk) Type() string { return "zarr_read_chunk" }

// ReadBytes implements Rereadable: the store drops such a chunk under
// memory pressure and reads it again rather than spilling it.
func (op ZarrReadChunk) ReadBytes() int64 {
	return int64(ndarray.Size(op.Shape)) * int64(op.Store.DType.Size())
}

// Exec implements ChunkOp.
func (op ZarrReadChunk) Exec(ctx context.Context, _ []*ndarray.Array) (*ndarray.Array, error) {
	if err := op.Store.check(); err != nil {
		return nil, err
	}
	if err := checkPath(ctx, op.Store.Path); err != nil {
		return nil, err
	}
	if err := checkChunkAlloc("zarr_read_chunk "+op.Store.Path, op.Shape, op.Store.DType); err != nil {
		return nil, err
	}
	a, err := op.Store.array(ctx)
	if err != nil {
		return nil, err
	}
	return a.ReadRegion(op.Offset, op.Shape)
}

// checkChunkAlloc refuses a chunk of a file op too large to hold: the shape
// comes in the op, from the network, not from the memory quota's estimate.
func checkChunkAlloc(what string, shape []int, dt ndarray.DType) error {
	b := float64(dt.Size())
	for _, n := range shape {
		if n < 0 {
			return fmt.Errorf("%s: shape %v", what, shape)
		}
		b *= float64(n)
	}
	if b > zarr.MaxChunkBytes {
		return fmt.Errorf("%s: a chunk of shape %v is over %d bytes", what, shape, zarr.MaxChunkBytes)
	}
	return nil
}
