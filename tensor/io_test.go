package tensor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// FromNpy reads only the header: an 8 GB (sparse) file gives its tensor at
// once, with the file's shape and dtype and the asked chunking.
func TestFromNpyReadsOnlyTheHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.npy")
	shape := []int{1 << 15, 1 << 15}
	h, err := npy.Header(ndarray.Float64, shape)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, h, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(h))+8<<30); err != nil {
		t.Fatal(err)
	}
	x := tensor.FromNpy(path, tensor.Chunks(4096, -1))
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	if x.DType() != ndarray.Float64 || !ndarray.SameShape(x.Shape(), shape) {
		t.Errorf("got %v%v, want float64%v", x.DType(), x.Shape(), shape)
	}
	op, ok := x.Op().(ops.NpyRead)
	if !ok || op.DataOffset != int64(len(h)) || op.Path != path {
		t.Errorf("op %#v", x.Op())
	}
	// WithDType casts after reading.
	if y := tensor.FromNpy(path, tensor.WithDType(ndarray.Float32)); y.Err() != nil || y.DType() != ndarray.Float32 {
		t.Errorf("WithDType: %v %v", y.DType(), y.Err())
	}
	// Errors ride along, naming the file.
	missing := filepath.Join(t.TempDir(), "none.npy")
	if err := tensor.FromNpy(missing).Add(1).Err(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}

// ToNpy is a 0-d int64 sink whose temporary file is a dot file beside the
// target; errors of its input ride along.
func TestToNpyTensor(t *testing.T) {
	dir := t.TempDir()
	s := tensor.Ones([]int{3, 4}).ToNpy(filepath.Join(dir, "o.npy"))
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if s.NDim() != 0 || s.DType() != ndarray.Int64 {
		t.Errorf("sink is %v%v, want a 0-d int64", s.DType(), s.Shape())
	}
	op := s.Op().(ops.NpyWrite)
	if filepath.Dir(op.Temp) != dir || !strings.HasPrefix(filepath.Base(op.Temp), ".o.npy.phobos-") {
		t.Errorf("temporary file %s, want a dot file beside %s", op.Temp, op.Path)
	}
	if other := tensor.Ones([]int{3, 4}).ToNpy(filepath.Join(dir, "o.npy")).Op().(ops.NpyWrite); other.Temp == op.Temp {
		t.Errorf("two sinks share the temporary file %s", op.Temp)
	}
	if err := tensor.FromNpy(filepath.Join(dir, "none.npy")).ToNpy(filepath.Join(dir, "x.npy")).Err(); err == nil {
		t.Error("ToNpy of a tensor in error has no error")
	}
	if err := tensor.Ones([]int{2}).ToNpy("").Err(); err == nil {
		t.Error("ToNpy to an empty path has no error")
	}
}
