package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Info is what a .npy header says about the data that follows it: enough to
// read any part of the data in place, without loading the rest.
type Info struct {
	DType ndarray.DType
	// Shape is the array's shape as NumPy reports it, whatever the order.
	Shape []int
	// Fortran is true when the data is in Fortran (column-major) order: it
	// is then the C-order data of the reversed shape.
	Fortran bool
	// BigEndian is true when multi-byte elements are stored big-endian.
	BigEndian bool
	// DataOffset is where the data starts: the length of the header.
	DataOffset int64
}

// DataBytes is the length of the data the header announces.
func (i Info) DataBytes() int64 {
	return int64(ndarray.Size(i.Shape)) * int64(i.DType.Size())
}

// ReadHeader reads a .npy header from r (magic, version, dict and padding),
// leaving r at the first data byte. It checks that the element count fits
// in memory arithmetic, not that the data is there.
func ReadHeader(r io.Reader) (Info, error) {
	var pre [len(magic) + 2]byte
	if n, err := io.ReadFull(r, pre[:]); err != nil {
		if n == 0 && err == io.EOF {
			return Info{}, errors.New("npy: empty input (not a .npy file)")
		}
		return Info{}, fmt.Errorf("npy: reading magic: %w", err)
	}
	if string(pre[:len(magic)]) != magic {
		return Info{}, fmt.Errorf("npy: bad magic %q (not a .npy file)", pre[:len(magic)])
	}
	major, minor := pre[len(magic)], pre[len(magic)+1]
	var hlen, lenLen int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Info{}, fmt.Errorf("npy: reading header length: %w", err)
		}
		hlen, lenLen = int(binary.LittleEndian.Uint16(b[:])), 2
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Info{}, fmt.Errorf("npy: reading header length: %w", err)
		}
		l := binary.LittleEndian.Uint32(b[:])
		if l > maxHeader {
			return Info{}, fmt.Errorf("npy: header length %d exceeds the limit of %d bytes", l, maxHeader)
		}
		hlen, lenLen = int(l), 4
	default:
		return Info{}, fmt.Errorf("npy: unsupported format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	hb := make([]byte, hlen)
	if n, err := io.ReadFull(r, hb); err != nil {
		return Info{}, fmt.Errorf("npy: truncated header: got %d of %d bytes", n, hlen)
	}
	h, err := parseHeader(string(hb))
	if err != nil {
		return Info{}, err
	}
	dt, big, err := parseDescr(h.descr)
	if err != nil {
		return Info{}, err
	}
	count := 1
	for _, d := range h.shape {
		if d != 0 && count > math.MaxInt/d {
			return Info{}, fmt.Errorf("npy: shape %v has too many elements", h.shape)
		}
		count *= d
	}
	if count > math.MaxInt/dt.Size() {
		return Info{}, fmt.Errorf("npy: shape %v of %v is too large", h.shape, dt)
	}
	return Info{
		DType: dt, Shape: h.shape, Fortran: h.fortran, BigEndian: big,
		DataOffset: int64(len(magic) + 2 + lenLen + hlen),
	}, nil
}

// ReadHeaderFile reads the header of the .npy file at path and checks that
// the file holds the data the header announces (a longer file is accepted,
// as NumPy does). Errors name the file.
func ReadHeaderFile(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Info{}, fmt.Errorf("npy: %w", err)
	}
	if fi.IsDir() {
		return Info{}, fmt.Errorf("npy: %s is a directory, not a .npy file", path)
	}
	info, err := ReadHeader(f)
	if err != nil {
		return Info{}, fmt.Errorf("%w (file %s)", err, path)
	}
	if need := info.DataOffset + info.DataBytes(); fi.Size() < need {
		return Info{}, fmt.Errorf("npy: %s: truncated data: the header announces shape %v of %v (%d data bytes after a %d-byte header) but the file has only %d bytes",
			path, info.Shape, info.DType, info.DataBytes(), info.DataOffset, fi.Size())
	}
	return info, nil
}

// Normalize turns raw .npy data bytes of dtype dt into ndarray's layout in
// place: big-endian elements are byte-swapped and bool bytes other than 0
// become 1 (NumPy reads any non-zero byte as True).
func Normalize(b []byte, dt ndarray.DType, bigEndian bool) {
	if bigEndian {
		// A complex element is two floats, each in the file's byte order.
		n := dt.Size()
		if dt.IsComplex() {
			n /= 2
		}
		swap(b, n)
	}
	if dt == ndarray.Bool {
		for i, v := range b {
			if v > 1 {
				b[i] = 1
			}
		}
	}
}

// RegionRuns calls fn for each contiguous run of elements of the box at
// offset with size inside a C-order array of shape, in C order of the box:
// the run's first element as a flat index into the array, and its length in
// elements. The box's elements in C order are the runs' elements one after
// the other, so run k fills a contiguous buffer of the box from where run
// k-1 ended. Axes the box covers whole are merged into the runs, so a box of
// whole trailing rows is one run. fn's error stops the walk and is returned.
func RegionRuns(shape, offset, size []int, fn func(start, n int64) error) error {
	nd := len(shape)
	if len(offset) != nd || len(size) != nd {
		return fmt.Errorf("npy: region offset %v, size %v for shape %v", offset, size, shape)
	}
	for i := range shape {
		if offset[i] < 0 || size[i] < 0 || offset[i]+size[i] > shape[i] {
			return fmt.Errorf("npy: region at %v of size %v is outside shape %v", offset, size, shape)
		}
		if size[i] == 0 {
			return nil
		}
	}
	// t: the first axis from which on the box covers every axis whole.
	t := nd
	for t > 0 && size[t-1] == shape[t-1] {
		t--
	}
	if t == 0 {
		return fn(0, int64(ndarray.Size(shape)))
	}
	strides := make([]int64, nd) // in elements
	st := int64(1)
	for i := nd - 1; i >= 0; i-- {
		strides[i] = st
		st *= int64(shape[i])
	}
	r := t - 1 // the run axis: runs are size[r] rows of the whole axes after it
	n := int64(size[r]) * strides[r]
	idx := make([]int, r)
	for {
		start := int64(offset[r]) * strides[r]
		for i, j := range idx {
			start += int64(offset[i]+j) * strides[i]
		}
		if err := fn(start, n); err != nil {
			return err
		}
		ax := r - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			if idx[ax] < size[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return nil
		}
	}
}
