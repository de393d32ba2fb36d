// Package npy reads and writes NumPy's .npy file format, so that Phobos arrays
// can be exchanged with NumPy (np.save / np.load) and used as differential-test
// fixtures. It is an own implementation of the published format: version 1.0
// is written (2.0 only when a header would not fit 1.0's 16-bit length, as
// NumPy does); versions 1.0, 2.0 and 3.0 are read.
//
// Supported element types are those of ndarray: '|b1', '|i1', '<i2', '<i4',
// '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', '<f4', '<f8', '<c8' and '<c16'.
// Big-endian input ('>f8', '>c16', ...) is byte-swapped on read (each part
// of a complex element on its own) and
// fortran_order True input is transposed into C order; output is always
// little-endian C order.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
)

const (
	magic = "\x93NUMPY"
	// align is the boundary NumPy pads the header to, so the data can be
	// memory-mapped and read with aligned loads.
	align = 64
	// growthDigits is the room NumPy leaves after the header dict so the
	// first (growth) axis can be rewritten in place; kept so our files are
	// byte-identical to np.save's.
	growthDigits = 21
	// maxHeader bounds the header length accepted on read, so a corrupt
	// length field cannot make us allocate gigabytes.
	maxHeader = 1 << 20
	// streamBuf is the size of the buffer used to write non-contiguous
	// arrays and to read data of unknown availability in pieces.
	streamBuf = 1 << 16
)

// descr is NumPy's little-endian type string for each dtype ('|' for
// one-byte types, as NumPy writes them).
func descr(dt ndarray.DType) (string, error) {
	if !dt.Valid() {
		return "", fmt.Errorf("npy: cannot write dtype %v", dt)
	}
	order := "<"
	if dt.Size() == 1 {
		order = "|"
	}
	return fmt.Sprintf("%s%c%d", order, dt.Kind(), dt.Size()), nil
}

// parseDescr maps a NumPy type string to a dtype and whether the data is
// big-endian.
func parseDescr(s string) (ndarray.DType, bool, error) {
	if len(s) < 2 {
		return ndarray.Invalid, false, fmt.Errorf("npy: unsupported dtype %q", s)
	}
	order, kind := s[0], s[1:]
	big := false
	switch order {
	case '<', '=', '|':
	case '>':
		big = true
	default:
		// NumPy always writes a byte-order character; accept a bare "f8".
		order, kind = '=', s
	}
	dt := ndarray.Invalid
	if len(kind) == 2 && kind[1] >= '1' && kind[1] <= '8' {
		dt = ndarray.DTypeOf(kind[0], int(kind[1]-'0'))
	}
	if kind == "c16" {
		dt = ndarray.Complex128
	}
	if dt == ndarray.Invalid {
		return ndarray.Invalid, false, fmt.Errorf("npy: unsupported dtype '%s' (want one of b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16 with a byte order)", s)
	}
	if dt.Size() == 1 {
		big = false
	}
	if order == '|' && dt.Size() != 1 {
		return ndarray.Invalid, false, fmt.Errorf("npy: unsupported dtype '%s': byte order '|' on a multi-byte type", s)
	}
	return dt, big, nil
}

// header builds the complete header (magic, version, length, dict, padding)
// exactly as NumPy 1.x's np.save does.
func header(dt ndarray.DType, shape []int) ([]byte, error) {
	d, err := descr(dt)
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	sb.WriteString("{'descr': '")
	sb.WriteString(d)
	sb.WriteString("', 'fortran_order': False, 'shape': (")
	for i, n := range shape {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(n))
	}
	if len(shape) == 1 {
		sb.WriteString(",")
	}
	sb.WriteString("), }")
	if len(shape) > 0 {
		sb.WriteString(strings.Repeat(" ", max(0, growthDigits-len(strconv.Itoa(shape[0])))))
	}
	dict := sb.String()

	hl := len(dict) + 1 // + trailing newline
	for _, v := range []struct {
		major  byte
		lenLen int
	}{{1, 2}, {2, 4}} {
		pad := align - (len(magic)+2+v.lenLen+hl)%align
		total := hl + pad
		if v.lenLen == 2 && total > math.MaxUint16 {
			continue
		}
		if int64(total) > math.MaxUint32 {
			break
		}
		out := make([]byte, 0, len(magic)+2+v.lenLen+total)
		out = append(out, magic...)
		out = append(out, v.major, 0)
		if v.lenLen == 2 {
			out = binary.LittleEndian.AppendUint16(out, uint16(total))
		} else {
			out = binary.LittleEndian.AppendUint32(out, uint32(total))
		}
		out = append(out, dict...)
		out = append(out, bytes.Repeat([]byte{' '}, pad)...)
		out = append(out, '\n')
		return out, nil
	}
	return nil, fmt.Errorf("npy: header for shape %v is too long", shape)
}

// Header is the .npy header (magic, version, dict, padding) of an array of
// dtype dt and shape, byte-identical to np.save's: for streaming writers
// that send the data themselves, chunk by chunk.
func Header(dt ndarray.DType, shape []int) ([]byte, error) { return header(dt, shape) }

// Write writes a in .npy format (version 1.0, little-endian, C order).
// A contiguous array's buffer is written directly, without a copy; a strided
// view is streamed through a small buffer, so no second full copy is made.
func Write(w io.Writer, a *ndarray.Array) error {
	if a == nil {
		return errors.New("npy: Write of a nil array")
	}
	h, err := header(a.DType(), a.Shape())
	if err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return fmt.Errorf("npy: writing header: %w", err)
	}
	if a.Size() == 0 {
		return nil
	}
	if a.IsContiguous() {
		if _, err := w.Write(a.Bytes()); err != nil {
			return fmt.Errorf("npy: writing data: %w", err)
		}
		return nil
	}
	if err := writeStrided(w, a); err != nil {
		return fmt.Errorf("npy: writing data: %w", err)
	}
	return nil
}

// writeStrided streams a non-contiguous array in C order through a buffer of
// streamBuf bytes.
func writeStrided(w io.Writer, a *ndarray.Array) error {
	for _, st := range a.Strides() {
		if st < 0 {
			// ndarray's typed accessors start at the first element, so a
			// negative stride cannot be walked from here; ndarray's own
			// copy is the one that knows the buffer.
			b, err := copyBytes(a)
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		}
	}
	switch a.DType() {
	case ndarray.Float64:
		s := a.Float64s()
		return streamRuns(w, a, func(b []byte, i int) []byte {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(s[i]))
		})
	case ndarray.Float32:
		s := a.Float32s()
		return streamRuns(w, a, func(b []byte, i int) []byte {
			return binary.LittleEndian.AppendUint32(b, math.Float32bits(s[i]))
		})
	case ndarray.Int64:
		s := a.Int64s()
		return streamRuns(w, a, func(b []byte, i int) []byte {
			return binary.LittleEndian.AppendUint64(b, uint64(s[i]))
		})
	case ndarray.Int32:
		s := a.Int32s()
		return streamRuns(w, a, func(b []byte, i int) []byte {
			return binary.LittleEndian.AppendUint32(b, uint32(s[i]))
		})
	case ndarray.Bool:
		s := a.Bools()
		return streamRuns(w, a, func(b []byte, i int) []byte { return append(b, s[i]) })
	}
	if !a.DType().Valid() {
		return fmt.Errorf("npy: cannot write dtype %v", a.DType())
	}
	// The narrower and unsigned integers: one contiguous copy of the bytes.
	b, err := copyBytes(a)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// copyBytes is a.Bytes() for views with negative strides, turning a failure
// inside ndarray's copy into an error instead of a crash.
func copyBytes(a *ndarray.Array) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot copy view of shape %v with strides %v: %v", a.Shape(), a.Strides(), r)
		}
	}()
	return a.Bytes(), nil
}

func streamRuns(w io.Writer, a *ndarray.Array, put func(b []byte, i int) []byte) error {
	buf := make([]byte, 0, streamBuf)
	var err error
	ndarray.ForEachRun([]*ndarray.Array{a}, a.Shape(), func(offs []int, n int, strides []int) {
		if err != nil {
			return
		}
		o, st := offs[0], strides[0]
		for i := 0; i < n; i++ {
			buf = put(buf, o+i*st)
			if len(buf) > streamBuf-8 {
				if _, err = w.Write(buf); err != nil {
					return
				}
				buf = buf[:0]
			}
		}
	})
	if err != nil {
		return err
	}
	if len(buf) > 0 {
		_, err = w.Write(buf)
	}
	return err
}

// WriteFile writes a to path in .npy format, creating or truncating the file.
// A partially written file is removed on error.
func WriteFile(path string, a *ndarray.Array) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("npy: closing %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if err := Write(f, a); err != nil {
		return fmt.Errorf("%w (file %s)", err, path)
	}
	return nil
}

// ReadFile reads a .npy file.
func ReadFile(path string) (*ndarray.Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	a, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return a, nil
}

// Read reads one .npy array from r, consuming exactly the header and data
// bytes. The result is always a contiguous C-order array.
func Read(r io.Reader) (*ndarray.Array, error) {
	info, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	h := hdr{fortran: info.Fortran, shape: info.Shape}
	dt, big := info.DType, info.BigEndian
	nbytes := int(info.DataBytes())
	rem, known := remaining(r)
	if known && rem < int64(nbytes) {
		return nil, fmt.Errorf("npy: truncated data: got %d of %d bytes", rem, nbytes)
	}

	shape := h.shape
	if h.fortran {
		// Fortran order is C order of the reversed shape.
		shape = make([]int, len(h.shape))
		for i, d := range h.shape {
			shape[len(shape)-1-i] = d
		}
	}
	var a *ndarray.Array
	if known || nbytes <= 1<<28 {
		// Read whole below, or dropped: not cleared first.
		a, err = ndarray.NewUninit(dt, shape...)
		if err != nil {
			return nil, fmt.Errorf("npy: %w", err)
		}
		buf := a.Bytes() // a is contiguous: this is its own buffer
		if n, err := io.ReadFull(r, buf); err != nil {
			return nil, truncated(n, nbytes, err)
		}
	} else {
		// A stream that may not hold what the header claims: read it in
		// pieces first so a lying header cannot make us allocate it all.
		a, err = readPieces(r, dt, shape, nbytes)
		if err != nil {
			return nil, err
		}
	}
	if nbytes > 0 {
		Normalize(a.Bytes(), dt, big)
	}
	if h.fortran && len(shape) > 1 {
		t, err := a.Transpose()
		if err != nil {
			return nil, fmt.Errorf("npy: %w", err)
		}
		a = t.Copy()
	}
	return a, nil
}

func truncated(got, want int, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("npy: truncated data: got %d of %d bytes", got, want)
	}
	return fmt.Errorf("npy: reading data (%d of %d bytes): %w", got, want, err)
}

func readPieces(r io.Reader, dt ndarray.DType, shape []int, nbytes int) (*ndarray.Array, error) {
	var pieces [][]byte
	got := 0
	for got < nbytes {
		p := make([]byte, min(nbytes-got, 1<<26))
		n, err := io.ReadFull(r, p)
		got += n
		if err != nil {
			return nil, truncated(got, nbytes, err)
		}
		pieces = append(pieces, p)
	}
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	buf := a.Bytes()
	for _, p := range pieces {
		buf = buf[copy(buf, p):]
	}
	return a, nil
}

// remaining reports how many bytes r still holds, when r can tell.
func remaining(r io.Reader) (int64, bool) {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len()), true
	case io.Seeker:
		cur, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		end, err := v.Seek(0, io.SeekEnd)
		if err != nil {
			return 0, false
		}
		if _, err := v.Seek(cur, io.SeekStart); err != nil {
			return 0, false
		}
		return end - cur, true
	}
	return 0, false
}

func swap(b []byte, size int) {
	switch size {
	case 8:
		for i := 0; i+8 <= len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	case 4:
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 2:
		for i := 0; i+2 <= len(b); i += 2 {
			binary.LittleEndian.PutUint16(b[i:], binary.BigEndian.Uint16(b[i:]))
		}
	}
}
