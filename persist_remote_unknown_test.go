package phobos_test

import (
	"context"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestPersistRemoteUnknownLength: a Connect session persists a mask's
// selection (an axis of unknown length); the cluster resolves its lengths
// from the run, later graphs on it run fewer chunk ops than recomputing it
// and give the local session's values.
func TestPersistRemoteUnknownLength(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	remote, local := remoteAndLocal(t, ctx)
	build := func() *tensor.Tensor {
		x := tensor.NewGenerator(12).Normal(0, 1, []int{301, 6}, tensor.Chunks(37, 4))
		return x.Index(tensor.Mask(x.Index(tensor.All(), tensor.At(0)).Greater(0.4)))
	}
	ps, err := remote.Persist(ctx, build())
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	for k, later := range []func(*tensor.Tensor) *tensor.Tensor{
		func(p *tensor.Tensor) *tensor.Tensor { return p.Sum(tensor.Axis(0)) },
		func(p *tensor.Tensor) *tensor.Tensor { return p.Sub(p.Mean(tensor.Axis(0))).Mul(2).Sum() },
	} {
		got, err := remote.Execute(ctx, later(p))
		if err != nil {
			t.Fatalf("graph %d on the persisted selection: %v", k, err)
		}
		held := remote.Stats().ChunkOps
		if _, err := remote.Execute(ctx, later(build())); err != nil {
			t.Fatal(err)
		}
		if again := remote.Stats().ChunkOps; held >= again {
			t.Errorf("graph %d: %d chunk ops on the persisted selection, %d recomputing it", k, held, again)
		}
		want, err := local.Execute(ctx, later(build()))
		if err != nil {
			t.Fatal(err)
		}
		if err := numpytest.Compare(got[0], want[0], 1e-12, 1e-12); err != nil {
			t.Errorf("graph %d: %v", k, err)
		}
	}
}
