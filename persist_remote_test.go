package phobos_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestPersistRemote: a Connect session persists a tensor; later graphs on
// it run fewer chunk ops than the same graphs recomputing it and give the
// local session's values; Release frees it (a later read fails) and a
// second Release says it is not held.
func TestPersistRemote(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	remote, local := remoteAndLocal(t, ctx)
	build := func() *tensor.Tensor {
		x := tensor.NewGenerator(11).Normal(0, 1, []int{301, 40}, tensor.Chunks(37, 40))
		return x.MatMul(x.T()).CumSum(0)
	}
	ps, err := remote.Persist(ctx, build())
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	for k, later := range []func(*tensor.Tensor) *tensor.Tensor{
		func(p *tensor.Tensor) *tensor.Tensor { return p.Sum(tensor.Axis(0)) },
		func(p *tensor.Tensor) *tensor.Tensor { return p.Mul(2).Mean() },
		func(p *tensor.Tensor) *tensor.Tensor { return p.T().MatMul(p) },
	} {
		got, err := remote.Execute(ctx, later(p))
		if err != nil {
			t.Fatalf("graph %d on the persisted tensor: %v", k, err)
		}
		held := remote.Stats().ChunkOps
		if _, err := remote.Execute(ctx, later(build())); err != nil {
			t.Fatal(err)
		}
		if again := remote.Stats().ChunkOps; held >= again {
			t.Errorf("graph %d: %d chunk ops on the persisted tensor, %d recomputing it", k, held, again)
		}
		want, err := local.Execute(ctx, later(build()))
		if err != nil {
			t.Fatal(err)
		}
		if err := numpytest.Compare(got[0], want[0], 1e-12, 1e-12); err != nil {
			t.Errorf("graph %d: %v", k, err)
		}
	}
	if err := remote.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Execute(ctx, p.Sum()); err == nil {
		t.Fatal("a released tensor was read")
	}
	if err := remote.Release(ctx, p); !errors.Is(err, phobos.ErrNotHeld) {
		t.Fatalf("second release: %v, want ErrNotHeld", err)
	}
}

// remoteAndLocal connects to a two-worker cluster and opens a two-worker
// local session beside it, both closed when the test ends.
func remoteAndLocal(t *testing.T, ctx context.Context) (remote, local *phobos.Session) {
	t.Helper()
	c := startUploadCluster(t, ctx, 2)
	remote, err := phobos.Connect(ctx, c.web.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remote.Close() })
	local, err = phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	return remote, local
}
