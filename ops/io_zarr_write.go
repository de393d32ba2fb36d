package ops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/zarr"
)

func init() {
	Register(
		Descriptor{Name: "zarr_write", Op: ZarrWrite{}, Kinds: Half | Complex, Files: func(op any) []string { return []string{op.(ZarrWrite).Path} }},
		Descriptor{Name: "zarr_create", Op: ZarrCreate{}},
		Descriptor{Name: "zarr_write_chunk", Op: ZarrWriteChunk{}},
		Descriptor{Name: "zarr_commit", Op: ZarrCommit{}},
	)
}

// ZarrWrite writes its input as a Zarr array (format 2, or 3 when Format is
// 3) in the directory Path and
// is the bytes of chunk data written, a 0-d int64. Its input must be
// chunked as the store is (Chunks, the last chunk of an axis shorter): each
// chunk op writes one stored chunk. The array goes into the temporary
// directory Temp beside Path, renamed to Path only when every chunk is
// written, so a failure or a cancel leaves nothing at Path.
type ZarrWrite struct {
	Path   string `json:"path"`
	Temp   string `json:"temp"`
	Chunks []int  `json:"chunks"`
	Codec  string `json:"codec,omitempty"`
	Format int    `json:"format,omitempty"` // 0 or 2, or 3
}

// Type implements TensorOp.
func (ZarrWrite) Type() string { return "zarr_write" }

// Infer implements TensorOp.
func (op ZarrWrite) Infer(in []Meta) (Meta, error) {
	if len(in) != 1 {
		return Meta{}, fmt.Errorf("zarr_write takes one input, got %d", len(in))
	}
	if op.Path == "" || op.Temp == "" || filepath.Dir(op.Temp) != filepath.Dir(op.Path) {
		return Meta{}, fmt.Errorf("zarr_write %q: its temporary directory %q must sit beside it", op.Path, op.Temp)
	}
	if _, err := zarr.NewArray(in[0].Shape, op.Chunks, in[0].DType, op.Codec, zarr.WithFormat(op.Format)); err != nil {
		return Meta{}, fmt.Errorf("zarr_write %s: %w", op.Path, err)
	}
	return Meta{Shape: []int{}, DType: ndarray.Int64}, nil
}

// Tile implements TensorOp.
func (op ZarrWrite) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	for ax, sp := range x.NSplits {
		for i, n := range sp {
			if (i < len(sp)-1 && n != op.Chunks[ax]) || n > op.Chunks[ax] {
				return nil, fmt.Errorf("zarr_write %s: input chunks %v along axis %d are not the store's %d", op.Path, sp, ax, op.Chunks[ax])
			}
		}
	}
	scalar := Meta{Shape: []int{}, DType: ndarray.Int64}
	create := b.AddChunk(ZarrCreate{Path: op.Path, Temp: op.Temp, Shape: x.Meta.Shape, Chunks: op.Chunks, DType: x.Meta.DType, Codec: op.Codec, Format: op.Format}, nil, Meta{Shape: []int{3}, DType: ndarray.Int64})
	writes := make([]ChunkRef, 0, len(x.Chunks))
	ForEachGrid(x.Grid(), func(idx []int) {
		w := ZarrWriteChunk{Path: op.Path, Temp: op.Temp, Shape: x.Meta.Shape, Chunks: op.Chunks, DType: x.Meta.DType, Codec: op.Codec, Format: op.Format, Index: append([]int(nil), idx...)}
		writes = append(writes, b.AddChunk(w, []ChunkRef{x.At(idx), create}, scalar))
	})
	level := writes
	for len(level) > npyFanIn {
		next := make([]ChunkRef, 0, (len(level)+npyFanIn-1)/npyFanIn)
		for i := 0; i < len(level); i += npyFanIn {
			next = append(next, b.AddChunk(NpyCount{}, append([]ChunkRef(nil), level[i:min(i+npyFanIn, len(level))]...), scalar))
		}
		level = next
	}
	// The commit reads the create's chunk too, so it is released (and the
	// temporary directory finalized) only once the sink is done or abandoned.
	last := append(append(make([]ChunkRef, 0, len(level)+1), level...), create)
	commit := b.AddChunk(ZarrCommit{Path: op.Path, Temp: op.Temp}, last, scalar)
	return &Tiled{Meta: out, NSplits: [][]int{}, Chunks: []ChunkRef{commit}}, nil
}

// ZarrCreate makes the temporary directory of a Zarr sink and writes its
// .zarray (zarr.json for format 3). Its output identifies the directory (device and inode), by which
// Finalize removes the directory it made and no other.
type ZarrCreate struct {
	Path   string        `json:"path"`
	Temp   string        `json:"temp"`
	Shape  []int         `json:"shape"`
	Chunks []int         `json:"chunks"`
	DType  ndarray.DType `json:"dtype"`
	Codec  string        `json:"codec,omitempty"`
	Format int           `json:"format,omitempty"`
}

// Type implements ChunkOp.
func (ZarrCreate) Type() string { return "zarr_create" }

// Exec implements ChunkOp.
func (op ZarrCreate) Exec(ctx context.Context, _ []*ndarray.Array) (*ndarray.Array, error) {
	if err := checkSinkPaths(ctx, op.Path, op.Temp); err != nil {
		return nil, err
	}
	fail := func(err error) error { return fmt.Errorf("zarr: writing %s: %w", op.Path, err) }
	if _, err := os.Stat(op.Path); err == nil {
		return nil, fail(errors.New("it exists: remove it or write elsewhere"))
	}
	a, err := zarr.NewArray(op.Shape, op.Chunks, op.DType, op.Codec, zarr.WithFormat(op.Format))
	if err != nil {
		return nil, fail(err)
	}
	if err := os.Mkdir(op.Temp, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fail(err)
	}
	fi, err := os.Stat(op.Temp)
	if err == nil {
		err = a.WriteMeta(op.Temp)
	}
	if err != nil {
		os.RemoveAll(op.Temp)
		return nil, fail(err)
	}
	id := fileID(fi)
	out, _ := ndarray.FromInt64s([]int{3}, []int64{0, id[0], id[1]}) // three values for a shape of 3
	return out, nil
}

// Finalize implements Finalizer: the temporary directory goes with the
// chunk, if it is still the one this op made (a committed sink renamed it).
func (op ZarrCreate) Finalize(out *ndarray.Array) {
	if out == nil || out.DType() != ndarray.Int64 || out.Size() != 3 {
		return
	}
	fi, err := os.Stat(op.Temp)
	if err != nil {
		return
	}
	if v := out.Int64s(); fileID(fi) == [2]int64{v[1], v[2]} {
		os.RemoveAll(op.Temp)
	}
}

// ZarrWriteChunk writes the stored chunk at Index of a Zarr sink into its
// temporary directory. Its inputs are the chunk's data and ZarrCreate's
// output (for the order only); its output is the bytes it wrote.
type ZarrWriteChunk struct {
	Path   string        `json:"path"`
	Temp   string        `json:"temp"`
	Shape  []int         `json:"shape"`
	Chunks []int         `json:"chunks"`
	DType  ndarray.DType `json:"dtype"`
	Codec  string        `json:"codec,omitempty"`
	Format int           `json:"format,omitempty"`
	Index  []int         `json:"index"`
}

// Type implements ChunkOp.
func (ZarrWriteChunk) Type() string { return "zarr_write_chunk" }

// Exec implements ChunkOp.
func (op ZarrWriteChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := checkSinkPaths(ctx, op.Path, op.Temp); err != nil {
		return nil, err
	}
	a, err := zarr.NewArray(op.Shape, op.Chunks, op.DType, op.Codec, zarr.WithFormat(op.Format))
	if err == nil && (len(in) < 1 || in[0] == nil || in[0].DType() != op.DType || len(op.Index) != len(op.Shape)) {
		err = errors.New("no data chunk of the sink's dtype and rank")
	}
	if err == nil {
		// Write only into the directory the create made: never create it
		// again after an abandon.
		var fi fs.FileInfo
		if fi, err = os.Stat(op.Temp); err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s is not a directory", op.Temp)
		}
	}
	var n int64
	if err == nil {
		n, err = a.WriteChunk(op.Temp, op.Index, in[0])
	}
	if err != nil {
		os.RemoveAll(op.Temp)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, fmt.Errorf("zarr: writing %s: chunk %v: %w", op.Path, op.Index, err)
	}
	return scalarInt(n), nil
}

// ZarrCommit ends a Zarr sink once every chunk is written (its inputs are
// the byte counts, then ZarrCreate's output): it renames the temporary
// directory to the target. Its output is the bytes of chunk data written.
type ZarrCommit struct {
	Path string `json:"path"`
	Temp string `json:"temp"`
}

// Type implements ChunkOp.
func (ZarrCommit) Type() string { return "zarr_commit" }

// Exec implements ChunkOp.
func (op ZarrCommit) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := checkSinkPaths(ctx, op.Path, op.Temp); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("zarr: writing %s: no inputs", op.Path)
	}
	n, err := sumCounts(in[:len(in)-1])
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		if _, serr := os.Stat(op.Temp); errors.Is(serr, fs.ErrNotExist) {
			// A repeated commit: the first renamed the directory.
			if _, perr := os.Stat(filepath.Join(op.Path, ".zarray")); perr == nil {
				return scalarInt(n), nil
			}
			if _, perr := os.Stat(filepath.Join(op.Path, "zarr.json")); perr == nil {
				return scalarInt(n), nil
			}
			err = errors.New("the temporary directory is gone (a chunk failed or the write was cancelled)")
		}
	}
	if err == nil {
		err = os.Rename(op.Temp, op.Path)
	}
	if err != nil {
		os.RemoveAll(op.Temp)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, fmt.Errorf("zarr: writing %s: %w", op.Path, err)
	}
	return scalarInt(n), nil
}
