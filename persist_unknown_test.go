package phobos

import (
	"context"
	"fmt"
	"testing"

	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestPersistHeldUnknownLength: a boolean mask's selection of rows (an
// axis of unknown length) is persisted; the held tensor has the lengths
// its run gave (no empty chunk), later graphs built on it start from its
// held chunks only (nothing upstream computed again) and give NumPy's
// values. Chunkings: odd, single rows (many empty selections), one chunk
// larger than the array, and a mask that keeps no row.
func TestPersistHeldUnknownLength(t *testing.T) {
	np := numpytest.NewRunner()
	np.Skip(t)
	ctx := context.Background()
	data := persistData(t)
	for _, tc := range []struct {
		name    string
		chunks  []int
		cut     float64
		workers int
	}{
		{"odd", []int{10, 7}, 5, 2},
		{"single rows", []int{1, 23}, 8, 1},
		{"larger than the array", []int{100, 100}, 3, 2},
		{"no row kept", []int{10, 7}, 1e9, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSession(WithWorkers(tc.workers), WithSlots(2))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			x := tensor.FromArray(data, tensor.Chunks(tc.chunks...))
			sel := x.Index(tensor.Mask(x.Index(tensor.All(), tensor.At(0)).Greater(tc.cut)))
			ps, err := s.Persist(ctx, sel)
			if err != nil {
				t.Fatal(err)
			}
			p := ps[0]
			held := p.Op().(ops.Held)
			if !held.Resolved() || held.Meta.Unknown != 0 {
				t.Fatalf("held %+v: want its chunks and every length known", held.Meta)
			}
			chunks := 1
			for ax, sp := range held.Splits {
				chunks *= len(sp)
				for _, n := range sp {
					if n == 0 && held.Meta.Shape[ax] != 0 {
						t.Fatalf("an empty chunk along axis %d: splits %v", ax, held.Splits)
					}
				}
			}
			const cutExpr = "(lambda x: x[x[:, 0] > %g])(x)"
			later := []struct {
				t    *tensor.Tensor
				expr string
			}{
				{p.Sum(tensor.Axis(0)), "np.sum(p, axis=0)"},
				{p.Sub(p.Mean(tensor.Axis(0))), "p - np.mean(p, axis=0)"},
				{p.Mul(2).Sum(), "np.sum(p * 2)"},
				{p, "p"},
			}
			var cases []numpytest.Case
			var got []*ndarray.Array
			for k, l := range later {
				startsFromHeld(t, s, l.t, k, chunks)
				out, err := s.Execute(ctx, l.t)
				if err != nil {
					t.Fatalf("graph %d (%s): %v", k, l.expr, err)
				}
				got = append(got, out[0])
				cases = append(cases, numpytest.Case{Name: l.expr, Inputs: map[string]*ndarray.Array{"x": data},
					Expr: "(lambda p: " + l.expr + ")(" + fmt.Sprintf(cutExpr, tc.cut) + ")"})
			}
			want, errs, err := np.Eval(ctx, cases)
			if err != nil {
				t.Fatal(err)
			}
			for k := range cases {
				if errs[k] != nil {
					t.Fatalf("%s: %v", cases[k].Name, errs[k])
				}
				if err := numpytest.Compare(got[k], want[k][0], 1e-12, 1e-12); err != nil {
					t.Errorf("%s: %v", cases[k].Name, err)
				}
			}
		})
	}
}
