package tensor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Bad chunk options are the tensor's error as soon as it is built, naming
// the constructor and the bad value.
func TestChunkOptionsCheckedWhenBuilt(t *testing.T) {
	arr, err := ndarray.FromFloat64s([]int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctors := []struct {
		name string
		mk   func(...Option) *Tensor
	}{
		{"full", func(o ...Option) *Tensor { return Full([]int{4, 5}, 1, o...) }},
		{"full", func(o ...Option) *Tensor { return Zeros([]int{4, 5}, o...) }},
		{"full", func(o ...Option) *Tensor { return Ones([]int{4, 5}, o...) }},
		{"arange", func(o ...Option) *Tensor { return Arange(0, 10, 1, o...) }},
		{"arange", func(o ...Option) *Tensor { return ArangeN(10, o...) }},
		{"arange", func(o ...Option) *Tensor { return Linspace(0, 1, 10, o...) }},
		{"eye", func(o ...Option) *Tensor { return Eye(4, 5, 0, o...) }},
		{"literal", func(o ...Option) *Tensor { return FromArray(arr, o...) }},
		{"literal", func(o ...Option) *Tensor { return FromSlice([]float64{1, 2, 3, 4}, []int{2, 2}, o...) }},
		{"random", func(o ...Option) *Tensor { return NewGenerator(1).Rand([]int{4, 5}, o...) }},
		{"random", func(o ...Option) *Tensor { return NewGenerator(1).Randn([]int{4, 5}, o...) }},
		{"random", func(o ...Option) *Tensor { return NewGenerator(1).RandInt(0, 9, []int{4, 5}, o...) }},
		{"rechunk", func(o ...Option) *Tensor { return Zeros([]int{4, 5}).Rechunk(o...) }},
		{"from npy", func(o ...Option) *Tensor { return FromNpy(filepath.Join(dir, "x.npy"), o...) }},
		{"from zarr", func(o ...Option) *Tensor { return FromZarr(filepath.Join(dir, "x.zarr"), o...) }},
		{"to zarr", func(o ...Option) *Tensor { return Zeros([]int{4, 5}).ToZarr(filepath.Join(dir, "y.zarr"), o...) }},
	}
	bad := []struct {
		opt  Option
		want string
	}{
		{Chunks(0), "0"},
		{Chunks(-3), "-3"},
		{Chunks(2, -2), "-2"},
		{Chunks(), "no chunk size"},
		{ChunkBytes(-5), "-5"},
		{ChunkBytes(0), "0 bytes"},
	}
	for _, c := range ctors {
		for _, b := range bad {
			if (c.name == "from npy" || c.name == "from zarr") && b.want != "no chunk size" && b.want != "0 bytes" {
				continue // checked against the stored shape, after the missing file
			}
			err := c.mk(b.opt).Err()
			if err == nil {
				t.Errorf("%s: no error for a bad option (want %q)", c.name, b.want)
				continue
			}
			if !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s: error %q does not name the constructor and %q", c.name, err, b.want)
			}
		}
	}
	// Shape-dependent specs, for constructors that know their shape.
	for _, c := range ctors[:13] {
		for _, o := range []Option{Chunks(1, 1, 1), ChunkSplits([]int{1}, []int{1}, []int{1})} {
			err := c.mk(o).Err()
			if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "axes") {
				t.Errorf("%s: more chunk sizes than axes: error %v", c.name, err)
			}
		}
		if err := c.mk(Chunks(2)).Err(); err != nil {
			t.Errorf("%s: good chunks refused: %v", c.name, err)
		}
	}
}
