package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

func init() {
	Register(
		Descriptor{Name: "npy_read", Op: NpyRead{}, Kinds: Half | Complex, Chunks: func(op any) ChunkSpec { return op.(NpyRead).Chunks }, Files: func(op any) []string { return []string{op.(NpyRead).Path} }},
		Descriptor{Name: "npy_read_chunk", Op: NpyReadChunk{}},
		Descriptor{Name: "npy_write", Op: NpyWrite{}, Kinds: Half | Complex, Files: func(op any) []string { return []string{op.(NpyWrite).Path} }},
		Descriptor{Name: "npy_create", Op: NpyCreate{}},
		Descriptor{Name: "npy_write_chunk", Op: NpyWriteChunk{}},
		Descriptor{Name: "npy_count", Op: NpyCount{}},
		Descriptor{Name: "npy_commit", Op: NpyCommit{}},
	)
}

// .npy files as sources and sinks that run on the workers, chunk by chunk.
//
// Reading: NpyRead tiles into one NpyReadChunk per chunk; each reads its own
// byte ranges of the file with pread (one read per contiguous run of the
// chunk, straight into the chunk's buffer), then byte-swaps big-endian data
// and lays Fortran-order data out in C order. Nothing but the header is read
// when the tensor is built.
//
// Writing: NpyWrite (one input) tiles into NpyCreate, which makes a
// temporary file beside the target holding the header and sized for the
// data; one NpyWriteChunk per input chunk, which writes the chunk's bytes at
// their place with pwrite; and NpyCommit, which depends on every write
// (through a tree of NpyCount ops that add up the bytes written, so no op
// has more than npyFanIn inputs) and renames the temporary file to the
// target. The file therefore appears at
// the target only complete. Any of these ops that fails, or sees its graph
// cancelled while it runs, removes the temporary file; the writes open it
// without creating it, so none brings it back. When something else fails
// or the graph is cancelled while none of them runs, NpyCreate's chunk
// removes it: the commit reads that chunk, so it lives until the sink is
// done, and NpyCreate is a Finalizer, run by the worker's store when the
// chunk is released, which the scheduler does for every chunk of a graph
// that fails or is cancelled. The sink's value is a 0-d int64: the size in
// bytes of the file written.
//
// Workers must see the same file system at the path (one machine, or a
// shared mount), and a source file must not change while a graph reads it:
// chunks may be read again (Rereadable).

// Rereadable is implemented by chunk ops that read their output from a file
// that stays in place: the store may drop such a chunk under memory pressure
// and read it again instead of spilling it, when reading ReadBytes costs
// less than a spill's write and read.
type Rereadable interface {
	ChunkOp
	ReadBytes() int64
}

// Finalizer is implemented by chunk ops without inputs whose output stands
// for something outside the store that must not outlive the chunk (the
// temporary file of a sink): the store calls Finalize with the op's output
// when it deletes the chunk, that is when the chunk is released (after its
// last consumer finished, or because its graph failed or was cancelled) or
// the store closes; not when a new run of the op replaces it.
type Finalizer interface {
	ChunkOp
	Finalize(out *ndarray.Array)
}

// NpyRead is a tensor whose data is a .npy file's, read by the workers.
type NpyRead struct {
	Path string `json:"path"`
	// Meta is the array's shape (as NumPy reports it) and dtype.
	Meta      Meta `json:"meta"`
	Fortran   bool `json:"fortran,omitempty"`
	BigEndian bool `json:"big_endian,omitempty"`
	// DataOffset is where the data starts in the file.
	DataOffset int64     `json:"data_offset"`
	Chunks     ChunkSpec `json:"chunks"`
}

// NewNpyRead reads the header of the .npy file at path and returns the op
// reading it in chunks of spec.
func NewNpyRead(path string, spec ChunkSpec) (NpyRead, error) {
	info, err := npy.ReadHeaderFile(path)
	if err != nil {
		return NpyRead{}, err
	}
	return NpyRead{
		Path: path, Meta: Meta{Shape: info.Shape, DType: info.DType},
		Fortran: info.Fortran, BigEndian: info.BigEndian, DataOffset: info.DataOffset,
		Chunks: spec,
	}, nil
}

// Type implements TensorOp.
func (NpyRead) Type() string { return "npy_read" }

// Infer implements TensorOp.
func (op NpyRead) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("npy_read", in); err != nil {
		return Meta{}, err
	}
	if op.Path == "" {
		return Meta{}, errors.New("npy_read: no path")
	}
	if op.DataOffset < 0 {
		return Meta{}, fmt.Errorf("npy_read %s: negative data offset %d", op.Path, op.DataOffset)
	}
	if err := checkMeta("npy_read "+op.Path, op.Meta); err != nil {
		return Meta{}, err
	}
	return op.Meta, wrapChunks("npy_read "+op.Path, op.Chunks.Validate(op.Meta.Shape))
}

// Tile implements TensorOp.
func (op NpyRead) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	spec := op.Chunks
	if spec.IsAuto() && op.Fortran && out.NDim() > 1 {
		// Leading axes are the contiguous ones of a Fortran-order file:
		// keep them whole, as auto chunking keeps C order's trailing axes.
		target := spec.Bytes
		if target <= 0 {
			target = DefaultChunkBytes
		}
		rev := AutoSplits(reversed(out.Shape), out.DType.Size(), target)
		spec = ChunkSpec{Splits: make([][]int, len(rev))}
		for i, s := range rev {
			spec.Splits[len(rev)-1-i] = s
		}
	}
	t, err := tileSource(b, out, spec, func(shape, off []int) ChunkOp {
		return NpyReadChunk{
			Path: op.Path, DType: out.DType, Global: out.Shape, Fortran: op.Fortran,
			BigEndian: op.BigEndian, DataOffset: op.DataOffset, Offset: off, Shape: shape,
		}
	})
	if err != nil {
		return nil, fmt.Errorf("npy_read %s: %w", op.Path, err)
	}
	return t, nil
}

func reversed(s []int) []int {
	r := make([]int, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

// NpyReadChunk reads one chunk of a .npy file: the box at Offset of size
// Shape in the array of shape Global.
type NpyReadChunk struct {
	Path       string        `json:"path"`
	DType      ndarray.DType `json:"dtype"`
	Global     []int         `json:"global"`
	Fortran    bool          `json:"fortran,omitempty"`
	BigEndian  bool          `json:"big_endian,omitempty"`
	DataOffset int64         `json:"data_offset"`
	Offset     []int         `json:"offset"`
	Shape      []int         `json:"shape"`
}

// Type implements ChunkOp.
func (NpyReadChunk) Type() string { return "npy_read_chunk" }

// Label names the file, for errors and progress.
func (op NpyReadChunk) Label() string {
	return fmt.Sprintf("npy_read_chunk(%s %v)", filepath.Base(op.Path), op.Offset)
}

// ReadBytes implements Rereadable.
func (op NpyReadChunk) ReadBytes() int64 {
	return int64(ndarray.Size(op.Shape)) * int64(op.DType.Size())
}

func (op NpyReadChunk) errorf(format string, args ...any) error {
	return fmt.Errorf("npy: %s: chunk at %v of shape %v: %w", op.Path, op.Offset, op.Shape, fmt.Errorf(format, args...))
}

// Exec implements ChunkOp.
func (op NpyReadChunk) Exec(ctx context.Context, _ []*ndarray.Array) (*ndarray.Array, error) {
	if err := checkPath(ctx, op.Path); err != nil {
		return nil, err
	}
	if !op.DType.Valid() {
		return nil, op.errorf("invalid dtype %v", op.DType)
	}
	if err := checkChunkAlloc("npy_read_chunk "+op.Path, op.Shape, op.DType); err != nil {
		return nil, err
	}
	// A Fortran-order file is the C-order data of the reversed shape.
	global, off, shape := op.Global, op.Offset, op.Shape
	if op.Fortran {
		global, off, shape = reversed(global), reversed(off), reversed(shape)
	}
	a, err := ndarray.New(op.DType, shape...)
	if err != nil {
		return nil, op.errorf("%w", err)
	}
	if a.Size() > 0 {
		if err := op.read(ctx, a.Bytes(), global, off, shape); err != nil {
			return nil, err
		}
		npy.Normalize(a.Bytes(), op.DType, op.BigEndian)
	}
	if op.Fortran && len(shape) > 1 {
		t, err := a.Transpose()
		if err != nil {
			return nil, op.errorf("%w", err)
		}
		a = t.Copy()
	}
	return a, nil
}

// read fills buf with the box's bytes, one pread per contiguous run.
func (op NpyReadChunk) read(ctx context.Context, buf []byte, global, off, shape []int) error {
	f, err := os.Open(op.Path)
	if err != nil {
		return op.errorf("%w", err)
	}
	defer f.Close()
	isz := int64(op.DType.Size())
	var pos int64
	err = npy.RegionRuns(global, off, shape, func(start, n int64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := buf[pos : pos+n*isz]
		at := op.DataOffset + start*isz
		if got, err := f.ReadAt(b, at); err != nil {
			if errors.Is(err, io.EOF) {
				size := int64(-1)
				if fi, serr := f.Stat(); serr == nil {
					size = fi.Size()
				}
				need := op.DataOffset + int64(ndarray.Size(global))*isz
				return op.errorf("truncated data: read %d of %d bytes at offset %d; the file has %d bytes, its header announces %d", got, len(b), at, size, need)
			}
			return op.errorf("%w", err)
		}
		pos += int64(len(b))
		return nil
	})
	return err
}

// NpyWrite writes its input to a .npy file (C order, little-endian) and is
// the file's size in bytes, a 0-d int64. Temp is the temporary name beside
// Path that the data goes to until every chunk is written.
type NpyWrite struct {
	Path string `json:"path"`
	Temp string `json:"temp"`
}

// Type implements TensorOp.
func (NpyWrite) Type() string { return "npy_write" }

// Infer implements TensorOp.
func (op NpyWrite) Infer(in []Meta) (Meta, error) {
	if len(in) != 1 {
		return Meta{}, fmt.Errorf("npy_write takes one input, got %d", len(in))
	}
	if op.Path == "" || op.Temp == "" {
		return Meta{}, errors.New("npy_write: no path")
	}
	if filepath.Dir(op.Temp) != filepath.Dir(op.Path) {
		return Meta{}, fmt.Errorf("npy_write %s: temporary file %s is not in the same directory", op.Path, op.Temp)
	}
	if _, err := npy.Header(in[0].DType, in[0].Shape); err != nil {
		return Meta{}, fmt.Errorf("npy_write %s: %w", op.Path, err)
	}
	return Meta{Shape: []int{}, DType: ndarray.Int64}, nil
}

// Tile implements TensorOp.
func (op NpyWrite) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	h, err := npy.Header(x.Meta.DType, x.Meta.Shape)
	if err != nil {
		return nil, fmt.Errorf("npy_write %s: %w", op.Path, err)
	}
	size := int64(len(h)) + x.Meta.Nbytes()
	scalar := Meta{Shape: []int{}, DType: ndarray.Int64}
	create := b.AddChunk(NpyCreate{Path: op.Path, Temp: op.Temp, DType: x.Meta.DType, Shape: x.Meta.Shape, Size: size}, nil, Meta{Shape: []int{3}, DType: ndarray.Int64})
	offs := AxisOffsets(x.NSplits)
	writes := make([]ChunkRef, 0, len(x.Chunks))
	var shapes ShapeCache
	ForEachGrid(x.Grid(), func(idx []int) {
		c := x.At(idx)
		w := NpyWriteChunk{
			Path: op.Path, Temp: op.Temp, DType: x.Meta.DType, Global: x.Meta.Shape,
			DataOffset: int64(len(h)), Offset: ChunkOffset(offs, idx), Shape: shapes.Shape(x.NSplits, idx),
		}
		writes = append(writes, b.AddChunk(w, []ChunkRef{c, create}, scalar))
	})
	level := writes
	for len(level) > npyFanIn {
		next := make([]ChunkRef, 0, (len(level)+npyFanIn-1)/npyFanIn)
		for i := 0; i < len(level); i += npyFanIn {
			group := append([]ChunkRef(nil), level[i:min(i+npyFanIn, len(level))]...)
			next = append(next, b.AddChunk(NpyCount{}, group, scalar))
		}
		level = next
	}
	// The commit reads NpyCreate's chunk too, so that chunk is released (and
	// finalized) only once the sink is done or abandoned.
	last := append(append(make([]ChunkRef, 0, len(level)+1), level...), create)
	commit := b.AddChunk(NpyCommit{Path: op.Path, Temp: op.Temp, Size: size}, last, scalar)
	return &Tiled{Meta: out, NSplits: [][]int{}, Chunks: []ChunkRef{commit}}, nil
}

// npyFanIn is the most inputs of an NpyCount or NpyCommit.
const npyFanIn = 32

func scalarInt(v int64) *ndarray.Array {
	a, _ := ndarray.FromInt64s([]int{}, []int64{v}) // a 0-d array of one value cannot fail
	return a
}

// abandon removes the temporary file of a write that cannot complete.
func abandon(temp string) { os.Remove(temp) }

// writeErr wraps a failure of a sink op, naming the target file.
// checkSinkPaths checks a sink's target and its temporary file against
// ctx's FileAccess. The temporary file must sit beside the target and be
// named as SinkTemp names it: sinks remove it when they fail, so a
// request naming another file must not be able to have it removed.
func checkSinkPaths(ctx context.Context, path, temp string) error {
	if filepath.Dir(filepath.Clean(temp)) != filepath.Dir(filepath.Clean(path)) || !isSinkTemp(path, temp) {
		return fmt.Errorf("writing %s: %s is not a temporary name of it", path, temp)
	}
	if err := checkPath(ctx, path); err != nil {
		return err
	}
	return checkPath(ctx, temp)
}

// SinkTemp is the temporary name of a sink's target: a hidden name beside
// it, made unique by tag (16 hexadecimal digits).
func SinkTemp(path, tag string) string {
	dir, base := filepath.Split(filepath.Clean(path))
	return filepath.Join(dir, "."+base+".phobos-"+tag+".tmp")
}

// isSinkTemp reports whether temp is a SinkTemp name of path.
func isSinkTemp(path, temp string) bool {
	base := filepath.Base(filepath.Clean(path))
	name := filepath.Base(filepath.Clean(temp))
	prefix := "." + base + ".phobos-"
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".tmp") || len(name) != len(prefix)+16+4 {
		return false
	}
	for _, c := range name[len(prefix) : len(prefix)+16] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func writeErr(path string, err error) error { return fmt.Errorf("npy: writing %s: %w", path, err) }

// NpyCreate makes the temporary file of a .npy sink: the header, and room
// for the data. Running it again is harmless. Its output is the header's
// length and the file's identity (device and inode where the system has
// them), by which Finalize removes the file it made and no other.
type NpyCreate struct {
	Path  string        `json:"path"`
	Temp  string        `json:"temp"`
	DType ndarray.DType `json:"dtype"`
	Shape []int         `json:"shape"`
	Size  int64         `json:"size"` // of the whole file
}

// Type implements ChunkOp.
func (NpyCreate) Type() string { return "npy_create" }

// Exec implements ChunkOp.
func (op NpyCreate) Exec(ctx context.Context, _ []*ndarray.Array) (*ndarray.Array, error) {
	if err := checkSinkPaths(ctx, op.Path, op.Temp); err != nil {
		return nil, err
	}
	h, err := npy.Header(op.DType, op.Shape)
	if err != nil {
		return nil, writeErr(op.Path, err)
	}
	if fi, err := os.Stat(op.Path); err == nil && fi.IsDir() {
		return nil, writeErr(op.Path, errors.New("the target is a directory"))
	}
	f, err := os.OpenFile(op.Temp, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, writeErr(op.Path, err)
	}
	var id [2]int64
	_, err = f.WriteAt(h, 0)
	if err == nil {
		var fi fs.FileInfo
		if fi, err = f.Stat(); err == nil {
			id = fileID(fi)
		}
	}
	if err == nil {
		// Sizing the file makes every chunk's region exist, so the writes
		// can come in any order; it never cuts written data, since every
		// run of this op asks for the same size.
		err = f.Truncate(op.Size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		abandon(op.Temp)
		return nil, writeErr(op.Path, err)
	}
	out, _ := ndarray.FromInt64s([]int{3}, []int64{int64(len(h)), id[0], id[1]}) // three values for a shape of 3
	return out, nil
}

// Finalize removes the temporary file if it is still the one this op made:
// the sink was abandoned (a commit renames it away). A later run of the same
// sink, with the same temporary name, has made a new file, which stays.
// Every execution of the op within one run shares the file (a rerun must
// keep what the writes already wrote), so the release of a stale duplicate
// execution while the sink goes on removes it too: the sink then fails,
// saying the file is gone, and still leaves nothing at the target.
func (op NpyCreate) Finalize(out *ndarray.Array) {
	if out == nil || out.DType() != ndarray.Int64 || out.Size() != 3 {
		return
	}
	v := out.Int64s()
	fi, err := os.Stat(op.Temp)
	if err != nil {
		return
	}
	if id := fileID(fi); id != [2]int64{v[1], v[2]} {
		return
	}
	abandon(op.Temp)
}

// NpyWriteChunk writes one chunk of a .npy sink into its temporary file:
// the box at Offset of size Shape of the array of shape Global, one pwrite
// per contiguous run. Its inputs are the chunk and NpyCreate's output (for
// the order only). Its output is the bytes it wrote.
type NpyWriteChunk struct {
	Path       string        `json:"path"`
	Temp       string        `json:"temp"`
	DType      ndarray.DType `json:"dtype"`
	Global     []int         `json:"global"`
	DataOffset int64         `json:"data_offset"`
	Offset     []int         `json:"offset"`
	Shape      []int         `json:"shape"`

	// open opens the temporary file; nil means os.OpenFile. Tests set it
	// to fail writes as a full disk does.
	open func(name string, flag int, perm fs.FileMode) (writerFile, error)
}

// writerFile is what a chunk write needs of its file.
type writerFile interface {
	io.WriterAt
	io.Closer
}

// Type implements ChunkOp.
func (NpyWriteChunk) Type() string { return "npy_write_chunk" }

// Label names the file, for errors and progress.
func (op NpyWriteChunk) Label() string {
	return fmt.Sprintf("npy_write_chunk(%s %v)", filepath.Base(op.Path), op.Offset)
}

// Exec implements ChunkOp.
func (op NpyWriteChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := checkSinkPaths(ctx, op.Path, op.Temp); err != nil {
		return nil, err // before anything, abandoning the temporary file included
	}
	n, err := op.write(ctx, in)
	if err != nil {
		abandon(op.Temp)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, fmt.Errorf("npy: writing %s: chunk at %v of shape %v: %w", op.Path, op.Offset, op.Shape, err)
	}
	return scalarInt(n), nil
}

func (op NpyWriteChunk) write(ctx context.Context, in []*ndarray.Array) (int64, error) {
	if len(in) < 1 || in[0] == nil {
		return 0, errors.New("no data chunk")
	}
	a := in[0]
	if a.DType() != op.DType || !ndarray.SameShape(a.Shape(), op.Shape) {
		return 0, fmt.Errorf("data chunk is %v%v, want %v%v", a.DType(), a.Shape(), op.DType, op.Shape)
	}
	if a.Size() == 0 {
		return 0, ctx.Err()
	}
	if !a.IsContiguous() {
		a = a.Copy()
	}
	buf := a.Bytes()
	open := op.open
	if open == nil {
		open = func(name string, flag int, perm fs.FileMode) (writerFile, error) {
			return os.OpenFile(name, flag, perm)
		}
	}
	// Without O_CREATE: once a failed or cancelled op has removed the file,
	// no write brings it back.
	f, err := open(op.Temp, os.O_WRONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("the temporary file is gone (another chunk failed or the write was cancelled): %w", err)
		}
		return 0, err
	}
	isz := int64(op.DType.Size())
	var pos int64
	err = npy.RegionRuns(op.Global, op.Offset, op.Shape, func(start, n int64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := buf[pos : pos+n*isz]
		if _, err := f.WriteAt(b, op.DataOffset+start*isz); err != nil {
			return err
		}
		pos += int64(len(b))
		return nil
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	return pos, err
}

// NpyCount adds up the bytes written by chunk writes (its inputs, 0-d
// int64 counts), on the way to the commit.
type NpyCount struct{}

// Type implements ChunkOp.
func (NpyCount) Type() string { return "npy_count" }

// Exec implements ChunkOp.
func (NpyCount) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	n, err := sumCounts(in)
	if err != nil {
		return nil, err
	}
	return scalarInt(n), nil
}

func sumCounts(in []*ndarray.Array) (int64, error) {
	var n int64
	for i, a := range in {
		if a == nil || a.DType() != ndarray.Int64 || a.Size() != 1 {
			return 0, fmt.Errorf("npy: input %d is not a count of bytes written", i)
		}
		n += a.Int64s()[0]
	}
	return n, nil
}

// NpyCommit ends a .npy sink: once every chunk is written (its inputs are
// the counts of bytes the writes wrote, then NpyCreate's output), it checks
// that they add up to the file, flushes the file to disk and renames it to
// the target. Its output is the file's size.
type NpyCommit struct {
	Path string `json:"path"`
	Temp string `json:"temp"`
	Size int64  `json:"size"`
}

// Type implements ChunkOp.
func (NpyCommit) Type() string { return "npy_commit" }

// Exec implements ChunkOp.
func (op NpyCommit) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if err := checkSinkPaths(ctx, op.Path, op.Temp); err != nil {
		return nil, err
	}
	err := op.check(in)
	if err == nil {
		err = op.commit(ctx)
	}
	if err != nil {
		abandon(op.Temp)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, writeErr(op.Path, err)
	}
	return scalarInt(op.Size), nil
}

// check compares the bytes the chunks wrote with the data's size.
func (op NpyCommit) check(in []*ndarray.Array) error {
	if len(in) == 0 {
		return errors.New("no inputs")
	}
	c := in[len(in)-1]
	if c == nil || c.DType() != ndarray.Int64 || c.Size() != 3 {
		return errors.New("the last input is not the output of npy_create")
	}
	n, err := sumCounts(in[:len(in)-1])
	if err != nil {
		return err
	}
	if hl := c.Int64s()[0]; hl+n != op.Size {
		return fmt.Errorf("the chunks wrote %d bytes after a %d-byte header, want %d in all", n, hl, op.Size)
	}
	return nil
}

func (op NpyCommit) commit(ctx context.Context) error {
	f, err := os.OpenFile(op.Temp, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		// A repeated commit: the first one renamed the file.
		if fi, serr := os.Stat(op.Path); serr == nil && fi.Mode().IsRegular() && fi.Size() == op.Size {
			return nil
		}
		return fmt.Errorf("the temporary file is gone (a chunk failed or the write was cancelled): %w", err)
	}
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() != op.Size {
		err = fmt.Errorf("the temporary file %s has %d bytes, want %d", op.Temp, fi.Size(), op.Size)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	return os.Rename(op.Temp, op.Path)
}
