package storage

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// A spill file is a small header and the chunk's elements, raw, little-endian
// and in C order, so reading one back is a single read into a new array:
//
//	"PHCK" | version u8 | dtype u8 | ndim u16 | shape: ndim × int64 | elements
//
// Random data does not compress, so there is no compression.
const (
	spillMagic   = "PHCK"
	spillVersion = 1
	maxSpillDims = 64
)

// writeSpill writes a's elements to a new file in dir and returns its path.
// The file is removed again if anything fails, so a full disk leaves nothing.
func writeSpill(dir string, key protocol.ChunkKey, a *ndarray.Array, wrap func(io.Writer) io.Writer) (path string, err error) {
	f, err := os.CreateTemp(dir, fmt.Sprintf("g%d-c%d-*.chunk", key.Graph, key.Node))
	if err != nil {
		return "", fmt.Errorf("chunk %v: %w", key, err)
	}
	path = f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(path)
			err = fmt.Errorf("chunk %v to %s: %w", key, path, err)
		}
	}()
	var w io.Writer = f
	if wrap != nil {
		w = wrap(w)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	hdr := make([]byte, 8, 8+8*a.NDim())
	copy(hdr, spillMagic)
	hdr[4] = spillVersion
	hdr[5] = byte(a.DType())
	binary.LittleEndian.PutUint16(hdr[6:], uint16(a.NDim()))
	for _, d := range a.Shape() {
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(d))
	}
	if _, err = bw.Write(hdr); err != nil {
		return path, err
	}
	// Bytes copies only for a non-contiguous view; bufio passes large
	// contiguous writes straight through to the file.
	if _, err = bw.Write(a.Bytes()); err != nil {
		return path, err
	}
	if err = bw.Flush(); err != nil {
		return path, err
	}
	return path, f.Close()
}

// readSpill reads a spill file back into a new aligned array, checking it
// holds the dtype and shape the store expects.
func readSpill(path string, dt ndarray.DType, shape []int) (*ndarray.Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var fixed [8]byte
	if _, err := io.ReadFull(f, fixed[:]); err != nil {
		return nil, fmt.Errorf("storage: %s: header: %w", path, err)
	}
	if string(fixed[:4]) != spillMagic || fixed[4] != spillVersion {
		return nil, fmt.Errorf("storage: %s is not a spill file", path)
	}
	fdt := ndarray.DType(fixed[5])
	nd := int(binary.LittleEndian.Uint16(fixed[6:]))
	if nd > maxSpillDims {
		return nil, fmt.Errorf("storage: %s: %d dimensions", path, nd)
	}
	dims := make([]byte, 8*nd)
	if _, err := io.ReadFull(f, dims); err != nil {
		return nil, fmt.Errorf("storage: %s: header: %w", path, err)
	}
	fshape := make([]int, nd)
	for i := range fshape {
		fshape[i] = int(binary.LittleEndian.Uint64(dims[8*i:]))
	}
	if fdt != dt || !ndarray.SameShape(fshape, shape) {
		return nil, fmt.Errorf("storage: %s holds %v%v, want %v%v", path, fdt, fshape, dt, shape)
	}
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(f, a.Bytes()); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("storage: %s is truncated: %w", path, err)
		}
		return nil, fmt.Errorf("storage: read %s: %w", path, err)
	}
	return a, nil
}

// checkSpillDir makes sure dir is a directory the store can create files in.
func checkSpillDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("not a directory")
	}
	f, err := os.CreateTemp(dir, ".phobos-probe-*")
	if err != nil {
		return fmt.Errorf("not writable: %w", err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
