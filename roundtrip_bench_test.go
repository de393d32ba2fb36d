package phobos_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/tensor"
)

// trivial is the smallest useful graph: what an interactive round trip
// costs beyond the computation itself.
func trivial() *tensor.Tensor { return tensor.ArangeN(100).Mul(2).Sum() }

// BenchmarkRoundTripLocal is a trivial graph built and computed on a local
// session: building, compiling, scheduling, running and fetching one
// scalar. docs/interactive.md has the figures beside Dask's.
func BenchmarkRoundTripLocal(b *testing.B) {
	sess, err := phobos.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	want := 0.0
	for i := range 100 {
		want += 2 * float64(i)
	}
	for range b.N {
		v, err := sess.ExecuteScalar(ctx, trivial())
		if err != nil {
			b.Fatal(err)
		}
		if v != want {
			b.Fatalf("sum = %v, want %v", v, want)
		}
	}
}
