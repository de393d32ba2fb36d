package phobos_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// The manipulation ops against the compositions the Python client used
// before them (python/phobos/tensor/_compose.py at 91331e8), on a 3000 x
// 3000 float64 random matrix in 500 x 500 chunks, each result summed so
// only a scalar leaves the session.
func BenchmarkManip(b *testing.B) {
	const n = 3000
	x := func() *tensor.Tensor { return tensor.NewGenerator(7).Rand([]int{n, n}, tensor.Chunks(500)) }
	triMask := func(k int) *tensor.Tensor {
		i := tensor.ArangeN(n).Reshape(n, 1)
		j := tensor.ArangeN(n).Reshape(1, n)
		return tensor.GreaterEqual(i.Add(k), j)
	}
	cases := []struct {
		name string
		f    func() *tensor.Tensor
	}{
		{"tril/op", func() *tensor.Tensor { return x().Tril(1).Sum() }},
		{"tril/where-mask", func() *tensor.Tensor {
			return tensor.Where(triMask(1), x(), tensor.Zeros([]int{}, tensor.WithDType(ndarray.Float64))).Sum()
		}},
		{"repeat/op", func() *tensor.Tensor { return x().Repeat(3, 1).Sum() }},
		{"repeat/broadcast-reshape", func() *tensor.Tensor {
			return x().Reshape(n, n, 1).BroadcastTo(n, n, 3).Reshape(n, 3*n).Sum()
		}},
		{"diagonal/op", func() *tensor.Tensor { return x().Diagonal(2, 0, 1).Sum() }},
		{"diagonal/eye-mask-sum", func() *tensor.Tensor {
			eye := tensor.Eye(n, n, 2, tensor.WithDType(ndarray.Bool))
			picked := tensor.Where(eye, x(), tensor.Zeros([]int{}, tensor.WithDType(ndarray.Float64)))
			return picked.Sum(tensor.Axis(1)).Index(tensor.To(n - 2)).Sum()
		}},
		{"pad-reflect/op", func() *tensor.Tensor {
			return x().Pad([][2]int{{700, 700}, {300, 0}}, tensor.PadReflect, nil).Sum()
		}},
		{"roll/op", func() *tensor.Tensor { return x().RollAxes([]int{1234, -77}, []int{0, 1}).Sum() }},
	}
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := sess.ExecuteScalar(context.Background(), c.f()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
