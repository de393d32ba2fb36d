package npy_test

import (
	"bytes"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// FuzzRead reads arbitrary bytes as a .npy file (a result upload, a file a
// graph names): an error or an array, never a panic or an allocation the
// header alone asks for.
func FuzzRead(f *testing.F) {
	for _, a := range []*ndarray.Array{
		ndarray.FillScalar(ndarray.Float64, []int{3, 2}, 1.5),
		ndarray.FillScalar(ndarray.Int32, []int{5}, 7),
		ndarray.FillScalar(ndarray.Bool, []int{2, 2, 2}, 1),
	} {
		var b bytes.Buffer
		if err := npy.Write(&b, a); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := npy.Read(bytes.NewReader(data))
		if err == nil && a.Nbytes() > len(data) {
			t.Fatalf("read %d bytes of array from a %d-byte file", a.Nbytes(), len(data))
		}
		_, _ = npy.ReadHeader(bytes.NewReader(data))
	})
}
