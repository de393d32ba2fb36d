package phobos_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// A reduction whose reduced axes are one chunk each runs as one chunk op
// per output chunk (ops.Finished: the partial and its finish together), on
// a local session and, over the wire, on a cluster; with several chunks
// along a reduced axis the combine tree is left as it was. Every value is
// NumPy's.
func TestFinishInPlace(t *testing.T) {
	r := numpytest.NewRunner()
	r.Skip(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 33))
	x, err := ndarray.New(ndarray.Float64, 7, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x.Float64s() {
		x.Float64s()[i] = rng.NormFloat64()
	}
	local, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	unfused, err := phobos.NewSession(phobos.WithFusion(false))
	if err != nil {
		t.Fatal(err)
	}
	defer unfused.Close()
	c := startUploadCluster(t, ctx, 2)
	remote, err := phobos.Connect(ctx, c.web.URL(), phobos.WithMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()

	type red struct {
		expr string // NumPy's, of x
		axes []int  // reduced axes (nil: all)
		make func(*tensor.Tensor) *tensor.Tensor
	}
	reds := []red{
		{"np.sum(x * 2)", nil, func(t *tensor.Tensor) *tensor.Tensor { return t.Mul(2).Sum() }},
		{"np.mean(x, axis=0)", []int{0}, func(t *tensor.Tensor) *tensor.Tensor { return t.Mean(tensor.Axis(0)) }},
		{"np.var(x + 1, axis=1)", []int{1}, func(t *tensor.Tensor) *tensor.Tensor { return t.Add(1).Var(tensor.Axis(1)) }},
		{"np.argmax(x, axis=1)", []int{1}, func(t *tensor.Tensor) *tensor.Tensor { return t.ArgMax(tensor.Axis(1)) }},
		{"np.max(x)", nil, func(t *tensor.Tensor) *tensor.Tensor { return t.Max() }},
	}
	chunkings := [][]int{{7, 5}, {100, 100}, {1, 5}, {7, 1}, {3, 2}, {1, 1}}
	var cases []numpytest.Case
	type run struct {
		name string
		got  *ndarray.Array
	}
	var runs [][]run
	for _, rd := range reds {
		for _, ch := range chunkings {
			name := fmt.Sprintf("%s chunks %v", rd.expr, ch)
			build := func() *tensor.Tensor { return rd.make(tensor.FromArray(x, tensor.Chunks(ch...))) }
			plan, err := phobos.Compile(build())
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			finished := 0
			for _, nd := range plan.Graph.Nodes {
				if _, ok := nd.Op.(ops.Finished); ok {
					finished++
				}
			}
			// The chunks along the reduced axes, and the output's chunks.
			along, out := 1, 1
			for ax, n := range []int{7, 5} {
				k := (n + ch[ax] - 1) / ch[ax]
				reduced := rd.axes == nil
				for _, a := range rd.axes {
					reduced = reduced || a == ax
				}
				if reduced {
					along *= k
				} else {
					out *= k
				}
			}
			want := 0
			if along == 1 {
				want = out
			}
			if finished != want {
				t.Errorf("%s: %d chunk ops run a partial and its finish together, want %d (%d chunks along the reduced axes)", name, finished, want, along)
			}
			var rs []run
			for _, m := range []struct {
				name string
				s    *phobos.Session
			}{{"local", local}, {"unfused", unfused}, {"cluster", remote}} {
				got, err := m.s.Execute(ctx, build())
				if err != nil {
					t.Fatalf("%s on %s: %v", name, m.name, err)
				}
				rs = append(rs, run{m.name, got[0]})
			}
			runs = append(runs, rs)
			cases = append(cases, numpytest.Case{Name: name, Inputs: map[string]*ndarray.Array{"x": x}, Expr: rd.expr})
		}
	}
	want, errs, err := r.Eval(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if errs[i] != nil {
			t.Fatalf("%s: NumPy: %v", c.Name, errs[i])
		}
		for _, rn := range runs[i] {
			if err := numpytest.Compare(rn.got, want[i][0], 1e-12, 1e-12); err != nil {
				t.Errorf("%s on %s: %v", c.Name, rn.name, err)
			}
		}
	}
}
