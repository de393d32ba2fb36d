package tensor_test

import (
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Bad chunk specs give the tensor an error when it is built, naming the
// constructor and the bad value, as the package promises; they used to be
// accepted and to fail only at Execute.
func TestBadChunksRefusedAtBuild(t *testing.T) {
	g := tensor.NewGenerator(1)
	ctors := map[string]func(tensor.Option) *tensor.Tensor{
		"full":   func(o tensor.Option) *tensor.Tensor { return tensor.Ones([]int{6, 4}, o) },
		"arange": func(o tensor.Option) *tensor.Tensor { return tensor.Arange(0, 24, 1, o) },
		"eye":    func(o tensor.Option) *tensor.Tensor { return tensor.Eye(6, 4, 0, o) },
		"random": func(o tensor.Option) *tensor.Tensor { return g.Rand([]int{6, 4}, o) },
		"literal": func(o tensor.Option) *tensor.Tensor {
			return tensor.FromArray(ndarray.FillScalar(ndarray.Float64, []int{6, 4}, 1), o)
		},
		"rechunk": func(o tensor.Option) *tensor.Tensor { return tensor.Ones([]int{6, 4}).Rechunk(o) },
	}
	bad := []struct {
		name string
		opt  tensor.Option
		want string
	}{
		{"Chunks(0)", tensor.Chunks(0), "bad chunk size 0"},
		{"Chunks(-3)", tensor.Chunks(-3), "bad chunk size -3"},
		{"Chunks(2, 0)", tensor.Chunks(2, 0), "bad chunk size 0"},
		{"ChunkBytes(-5)", tensor.ChunkBytes(-5), "-5 bytes"},
		{"too many sizes", tensor.Chunks(1, 2, 3), "3 chunk sizes"},
		{"splits short", tensor.ChunkSplits([]int{3, 2}, []int{4}), "add up to 5"},
		{"negative split", tensor.ChunkSplits([]int{7, -1}, []int{4}), "bad chunk size"},
		{"splits for one axis", tensor.ChunkSplits([]int{6}), "1 explicit splits"},
	}
	for name, ctor := range ctors {
		for _, b := range bad {
			if name == "arange" && (b.name == "Chunks(2, 0)" || b.name == "splits short" || b.name == "negative split" || b.name == "splits for one axis") {
				continue // 1-D: these fail on the axis count instead, checked below
			}
			x := ctor(b.opt)
			err := x.Err()
			if err == nil {
				t.Errorf("%s with %s: no error at build", name, b.name)
				continue
			}
			if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s with %s: %q, want it to name %q and %q", name, b.name, err, name, b.want)
			}
		}
		if x := ctor(tensor.Chunks(4)); x.Err() != nil {
			t.Errorf("%s with good chunks: %v", name, x.Err())
		}
	}
	if x := tensor.Arange(0, 24, 1, tensor.Chunks(2, 0)); x.Err() == nil || !strings.Contains(x.Err().Error(), "2 chunk sizes") {
		t.Errorf("arange with two sizes: %v", x.Err())
	}
}
