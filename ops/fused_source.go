package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// TileSource is implemented by chunk ops without inputs that can produce
// any run of their output's elements on demand, as a file region read a
// run at a time can: a fused kernel then reads each tile straight into a
// buffer it reuses, instead of the whole chunk being read into memory
// first and streamed through once (for a chunk of a file larger than
// memory that is read once, the copy into a fresh chunk costs more than
// the computing).
type TileSource interface {
	ChunkOp
	// TileReadable reports whether this op can be read by tiles; one that
	// cannot runs as a chunk op of its own.
	TileReadable() bool
	// OpenTiles prepares one kernel's reads (checks, opens); the kernel
	// closes the reader when it ends.
	OpenTiles(ctx context.Context) (TileReader, error)
}

// TileReader reads tiles of a TileSource's output.
type TileReader interface {
	// ReadTile fills dst, a contiguous array of the output's dtype, with
	// the output's flat elements [f, f+dst.Size()) in C order.
	ReadTile(f int, dst *ndarray.Array) error
	Close() error
}

// TileReadable implements TileSource: a C-order chunk (a Fortran-order
// file's chunk is transposed whole after reading).
func (op NpyReadChunk) TileReadable() bool {
	return !op.Fortran && op.DType.Valid() && len(op.Shape) > 0 && len(op.Shape) == len(op.Global) && len(op.Offset) == len(op.Global)
}

// OpenTiles implements TileSource.
func (op NpyReadChunk) OpenTiles(ctx context.Context) (TileReader, error) {
	if err := checkPath(ctx, op.Path); err != nil {
		return nil, err
	}
	if !op.TileReadable() {
		return nil, op.errorf("cannot be read by tiles")
	}
	for i := range op.Global {
		if op.Offset[i] < 0 || op.Shape[i] < 0 || op.Offset[i]+op.Shape[i] > op.Global[i] {
			return nil, op.errorf("outside the array's shape %v", op.Global)
		}
	}
	f, err := os.Open(op.Path)
	if err != nil {
		return nil, op.errorf("%w", err)
	}
	r := &npyTiles{op: op, ctx: ctx, f: f, strides: make([]int64, len(op.Global))}
	st := int64(1)
	for i := len(op.Global) - 1; i >= 0; i-- {
		r.strides[i] = st
		st *= int64(op.Global[i])
	}
	r.idx = make([]int, len(op.Shape))
	return r, nil
}

// npyTiles reads tiles of an NpyReadChunk: one pread per run of the
// file's consecutive bytes within the tile.
type npyTiles struct {
	op      NpyReadChunk
	ctx     context.Context
	f       *os.File
	strides []int64 // the file's, in elements
	idx     []int   // scratch multi-index
}

func (r *npyTiles) Close() error { return r.f.Close() }

// ReadTile implements TileReader.
func (r *npyTiles) ReadTile(f int, dst *ndarray.Array) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	op := r.op
	L := dst.Size()
	if dst.DType() != op.DType || !dst.IsContiguous() || f < 0 || f+L > ndarray.Size(op.Shape) {
		return op.errorf("tile [%d, %d) of %v into %v", f, f+L, op.Shape, dst.DType())
	}
	if L == 0 {
		return nil
	}
	isz := int64(op.DType.Size())
	buf := dst.Bytes()[:int64(L)*isz]
	nd := len(op.Shape)
	K := op.Shape[nd-1] // a run never goes past the end of a row of the chunk
	// Runs whose file positions follow one another (rows of a chunk as
	// wide as the file) are read by one pread.
	var runStart, runLen, runAt int64 = -1, 0, 0
	flush := func() error {
		if runLen == 0 {
			return nil
		}
		b := buf[runAt*isz : (runAt+runLen)*isz]
		at := op.DataOffset + runStart*isz
		if got, err := r.f.ReadAt(b, at); err != nil {
			if errors.Is(err, io.EOF) {
				size := int64(-1)
				if fi, serr := r.f.Stat(); serr == nil {
					size = fi.Size()
				}
				need := op.DataOffset + int64(ndarray.Size(op.Global))*isz
				return op.errorf("truncated data: read %d of %d bytes at offset %d; the file has %d bytes, its header announces %d", got, len(b), at, size, need)
			}
			return op.errorf("%w", err)
		}
		return nil
	}
	for e := f; e < f+L; {
		// The chunk's multi-index of element e, then its file position.
		rest := e
		for d := nd - 1; d >= 0; d-- {
			r.idx[d] = rest % op.Shape[d]
			rest /= op.Shape[d]
		}
		var pos int64
		for d := range nd {
			pos += int64(op.Offset[d]+r.idx[d]) * r.strides[d]
		}
		n := int64(min(K-r.idx[nd-1], f+L-e))
		if runStart >= 0 && runStart+runLen == pos {
			runLen += n
		} else {
			if err := flush(); err != nil {
				return err
			}
			runStart, runLen, runAt = pos, n, int64(e-f)
		}
		e += int(n)
	}
	if err := flush(); err != nil {
		return err
	}
	npy.Normalize(buf, op.DType, op.BigEndian)
	return nil
}

// openTileSources opens the readers of a kernel's tile sources (nil for
// other nodes); the caller closes them. On an error it closes those it
// opened.
func openTileSources(ctx context.Context, nodes []FusedNode) ([]TileReader, error) {
	var readers []TileReader
	for i, nd := range nodes {
		ts, ok := nd.Op.(TileSource)
		if !ok {
			continue
		}
		var err error
		if !ts.TileReadable() {
			err = fmt.Errorf("fuse: %s cannot be read by tiles", Label(nd.Op))
		} else {
			if readers == nil {
				readers = make([]TileReader, len(nodes))
			}
			readers[i], err = ts.OpenTiles(ctx)
		}
		if err != nil {
			for _, r := range readers {
				if r != nil {
					_ = r.Close()
				}
			}
			return nil, err
		}
	}
	return readers, nil
}
