package ops_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// sameArray reports whether a and b have the same dtype, shape and
// elements (NaN equal to NaN).
func sameArray(a, b *ndarray.Array) error {
	if a.DType() != b.DType() || !ndarray.SameShape(a.Shape(), b.Shape()) {
		return fmt.Errorf("%v%v against %v%v", a.DType(), a.Shape(), b.DType(), b.Shape())
	}
	x, y := a.ToFloat64s(), b.ToFloat64s()
	for i := range x {
		if x[i] != y[i] && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
			return fmt.Errorf("element %d: %v against %v", i, x[i], y[i])
		}
	}
	return nil
}

// Every fused kernel and combine of a graph gives through ExecInto, into a
// tiny array of its output's dtype and shape (holding old values, as a
// reused one may), what Exec gives; a whole-chunk sum writes into it. The
// graphs cover float and integer sums, nansum, reductions the fast sum does
// not take (max, prod, mean), chunks of one element, odd chunks and a
// chunk larger than the array.
func TestExecIntoSameAsExec(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		r    *tensor.Tensor
		// into: the fused partials must return the given array.
		into bool
	}{
		{"w5", tensor.Ones([]int{1000}, tensor.Chunks(100)).Add(1).Sum(), true},
		{"w5-odd", tensor.Ones([]int{1001}, tensor.Chunks(7)).Add(1).Sum(), true},
		{"w5-single", tensor.Ones([]int{9}, tensor.Chunks(1)).Add(1).Sum(), true},
		{"w5-larger", tensor.Ones([]int{50}, tensor.Chunks(64)).Add(1).Sum(), true},
		{"int-sum", tensor.ArangeN(1000, tensor.Chunks(33)).Astype(ndarray.Int64).Add(3).Sum(), true},
		{"nansum", tensor.ArangeN(500, tensor.Chunks(50)).Add(0.5).NanSum(), true},
		{"max", tensor.ArangeN(500, tensor.Chunks(50)).Add(1).Max(), false},
		{"prod", tensor.Ones([]int{300}, tensor.Chunks(30)).Add(0.001).Prod(), false},
		{"mean", tensor.ArangeN(300, tensor.Chunks(30)).Add(2).Mean(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fg := fusedGraph(t, tc.r)
			vals := make([]*ndarray.Array, len(fg.Nodes))
			checked := 0
			for i, nd := range fg.Nodes {
				ins := make([]*ndarray.Array, len(nd.Inputs))
				for j, in := range nd.Inputs {
					ins[j] = vals[in]
				}
				want, err := nd.Op.Exec(ctx, ins)
				if err != nil {
					t.Fatalf("node %d (%s): %v", i, ops.Label(nd.Op), err)
				}
				vals[i] = want
				into, ok := nd.Op.(ops.OutputInto)
				if !ok || !ndarray.FitsTiny(nd.Meta.DType, nd.Meta.Shape) {
					continue
				}
				out := ndarray.NewTiny(nd.Meta.DType, nd.Meta.Shape)
				// Old values, as a reused array may hold.
				ndarray.CopyInto(out, ndarray.FillScalar(nd.Meta.DType, nd.Meta.Shape, 12345))
				got, err := into.ExecInto(ctx, ins, out)
				if err != nil {
					t.Fatalf("node %d (%s) into: %v", i, ops.Label(nd.Op), err)
				}
				if err := sameArray(got, want); err != nil {
					t.Fatalf("node %d (%s) into: %v", i, ops.Label(nd.Op), err)
				}
				if _, fused := nd.Op.(ops.Fused); fused && tc.into && got != out {
					t.Fatalf("node %d (%s): a whole-chunk sum did not write into the given array", i, ops.Label(nd.Op))
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no kernel of the graph takes an output")
			}
		})
	}
}
