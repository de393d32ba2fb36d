package phobos_test

import (
	"context"
	"math"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkStats compares the NaN-aware reductions with the plain ones and
// with the compositions they replace, and histogram/bincount with a sum, on
// 8M float64 (a tenth NaN) in chunks of 1M. Every variant generates its data
// the same way, so differences are the reductions'.
func BenchmarkStats(b *testing.B) {
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	const n = 1 << 23
	data := func() *tensor.Tensor {
		x := tensor.NewGenerator(5).Rand([]int{n}, tensor.Chunks(1<<20))
		return tensor.Where(x.Less(0.1), math.NaN(), x)
	}
	noNaN := func(x *tensor.Tensor) *tensor.Tensor { return tensor.Where(x.IsNaN(), 0, x) }
	for _, c := range []struct {
		name string
		f    func() *tensor.Tensor
	}{
		{"sum", func() *tensor.Tensor { return data().Sum() }},
		{"nansum", func() *tensor.Tensor { return data().NanSum() }},
		{"where-sum", func() *tensor.Tensor { return noNaN(data()).Sum() }},
		{"max", func() *tensor.Tensor { return data().Max() }},
		{"nanmax", func() *tensor.Tensor { return data().NanMax() }},
		{"var", func() *tensor.Tensor { return data().Var() }},
		{"nanvar", func() *tensor.Tensor { return data().NanVar() }},
		{"argmin", func() *tensor.Tensor { return data().ArgMin() }},
		{"nanargmin", func() *tensor.Tensor { return data().NanArgMin() }},
		{"histogram-64", func() *tensor.Tensor {
			h, _ := tensor.Histogram(data(), tensor.BinCount(64), tensor.HistRange(0, 1))
			return h
		}},
		{"bincount-64", func() *tensor.Tensor {
			x := tensor.NewGenerator(5).Rand([]int{n}, tensor.Chunks(1<<20))
			return tensor.Bincount(x.Mul(64).Floor().Astype(ndarray.Int64), nil, 64)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := sess.Execute(context.Background(), c.f()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
