package phobos_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkArgsortPSRS is the distributed argsort of 4e6 random float64 in
// 8 chunks beside the sort of the same tensor (the same shuffle carrying
// values only), in one local session; the data is generated in each run.
func BenchmarkArgsortPSRS(b *testing.B) {
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	x := func() *tensor.Tensor {
		return tensor.NewGenerator(7).Rand([]int{4_000_000}, tensor.Chunks(500_000))
	}
	for _, c := range []struct {
		name string
		f    func(*tensor.Tensor) *tensor.Tensor
	}{
		{"sort", func(t *tensor.Tensor) *tensor.Tensor { return t.Sort(0) }},
		{"argsort", func(t *tensor.Tensor) *tensor.Tensor { return t.Argsort(0) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				// A sum keeps the result on the workers (no fetch timed).
				if _, err := sess.ExecuteScalar(context.Background(), c.f(x()).Index(tensor.Range(0, 1000)).Sum()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
