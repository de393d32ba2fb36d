package worker_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// constOp returns the array it holds, as an op over client data may.
type constOp struct{ a *ndarray.Array }

func (constOp) Type() string { return "const" }

func (o constOp) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) { return o.a, nil }

func allEqual(t *testing.T, what string, a *ndarray.Array, want float64) {
	t.Helper()
	for i, v := range a.Float64s() {
		if v != want {
			t.Fatalf("%s: element %d is %v, want %v (its buffer was reused while still held)", what, i, v, want)
		}
	}
}

// A released output the op made goes back to the buffer pool; an output
// the op held from before, and one fetched by a client, do not.
func TestReleasedOutputBuffersGoBackOnlyWhenUnreferenced(t *testing.T) {
	const n = 200_003 // over the pool's 1 MiB, a size no other test uses
	w, st, rec := newWorker(t, 1, storage.Config{})
	reused := func() int64 { return st.Stats().ReusedBuffers }

	w.Submit([]protocol.Task{task(1, &testOp{name: "made", n: n}, n, depth(0))})
	if res := rec.wait(t, key(1)); res.Outcome != protocol.Succeeded {
		t.Fatalf("task 1: %v %v", res.Outcome, res.Err)
	}
	w.Release([]protocol.ChunkKey{key(1)})
	if got := reused(); got != 1 {
		t.Fatalf("after releasing a fresh output, %d buffers went back to the pool; want 1", got)
	}

	held := ndarray.FillScalar(ndarray.Float64, []int{n}, 7)
	w.Submit([]protocol.Task{task(2, constOp{held}, n, depth(0))})
	if res := rec.wait(t, key(2)); res.Outcome != protocol.Succeeded {
		t.Fatalf("task 2: %v %v", res.Outcome, res.Err)
	}
	w.Release([]protocol.ChunkKey{key(2)})
	if got := reused(); got != 1 {
		t.Errorf("an output the op held from before went back to the pool (%d buffers)", got)
	}

	w.Submit([]protocol.Task{task(3, &testOp{name: "made", n: n}, n, depth(0))})
	if res := rec.wait(t, key(3)); res.Outcome != protocol.Succeeded {
		t.Fatalf("task 3: %v %v", res.Outcome, res.Err)
	}
	fetched, err := w.Get(context.Background(), key(3))
	if err != nil {
		t.Fatal(err)
	}
	w.Release([]protocol.ChunkKey{key(3)})
	if got := reused(); got != 1 {
		t.Errorf("a fetched result went back to the pool (%d buffers)", got)
	}

	// New arrays of the size take whatever the pool has; the held and
	// fetched arrays must keep their values.
	for range 3 {
		ndarray.FillScalar(ndarray.Float64, []int{n}, -1)
	}
	allEqual(t, "the op's held array", held, 7)
	allEqual(t, "the fetched result", fetched, 1)
}
