package cluster

import (
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// Graphs of few counted source chunks are compiled in the submitting call;
// many chunks, many tensors, or a source whose chunks are not counted (an
// upload, a kept result) go to a preparer.
func TestSmallGraph(t *testing.T) {
	deep := tensor.ArangeN(100)
	for range smallTensors {
		deep = deep.Add(1)
	}
	data, err := ndarray.FromFloat64s([]int{4}, []float64{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		t    *tensor.Tensor
		want bool
	}{
		{"trivial", tensor.ArangeN(100).Mul(2).Sum(), true},
		{"sixteen chunks", tensor.ArangeN(160, tensor.Chunks(10)).Sum(), true},
		{"seventeen chunks", tensor.ArangeN(170, tensor.Chunks(10)).Sum(), false},
		{"two sources of nine", tensor.ArangeN(90, tensor.Chunks(10)).Add(tensor.ArangeN(90, tensor.Chunks(10))).Sum(), false},
		{"many tensors", deep.Sum(), false},
		{"client data inline", tensor.FromArray(data).Sum(), true},
	} {
		tg, _, err := tensor.Build(c.t)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := smallGraph(tg); got != c.want {
			t.Errorf("%s: small %v, want %v", c.name, got, c.want)
		}
	}
	meta := ops.Meta{Shape: []int{4}, DType: ndarray.Float64}
	for _, src := range []ops.TensorOp{ops.Uploaded{Meta: meta}, ops.Held{Meta: meta}} {
		var tg graph.TileableGraph
		in := tg.Add(src, nil, meta)
		tg.Add(ops.Elementwise{Kind: "binary", Name: "add"}, []int{in, in}, meta)
		if smallGraph(&tg) {
			t.Errorf("a graph reading %T counted as small", src)
		}
	}
}
