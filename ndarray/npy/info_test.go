package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// ReadHeader finds where the data starts, in files of every version, and
// ReadHeaderFile checks the file holds the data, naming the file.
func TestReadHeader(t *testing.T) {
	a, _ := ndarray.FromInt32s([]int{2, 3}, []int32{1, 2, 3, 4, 5, 6})
	var buf bytes.Buffer
	if err := Write(&buf, a); err != nil {
		t.Fatal(err)
	}
	h, _ := Header(ndarray.Int32, []int{2, 3})
	info, err := ReadHeader(bytes.NewReader(buf.Bytes()))
	if err != nil || info.DataOffset != int64(len(h)) || info.DType != ndarray.Int32 || !ndarray.SameShape(info.Shape, []int{2, 3}) || info.DataBytes() != 24 {
		t.Fatalf("ReadHeader: %+v, %v", info, err)
	}
	v2 := rawNpy(2, "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 2), }", make([]byte, 32))
	info, err = ReadHeader(bytes.NewReader(v2))
	if err != nil || info.DataOffset != int64(len(v2)-32) || !info.BigEndian || !info.Fortran {
		t.Fatalf("ReadHeader v2: %+v, %v", info, err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "a.npy")
	if err := os.WriteFile(path, buf.Bytes()[:buf.Len()-1], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{path, "truncated data"},
		{dir, "is a directory"},
		{filepath.Join(dir, "none.npy"), "no such file"},
	} {
		if _, err := ReadHeaderFile(c.path); err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming it and saying %q", c.path, err, c.want)
		}
	}
}
