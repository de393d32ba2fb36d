package storage_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// ownedChunk makes a chunk of n float64s, all v, as a worker's op would:
// lent by the buffer pool after the op began, and claimed for the store.
// Each test uses its own n so that no other test takes its buffers.
func ownedChunk(t *testing.T, n int, v float64) *ndarray.Array {
	t.Helper()
	since := ndarray.BufferEpoch()
	a := fill(t, n, v)
	if !ndarray.ClaimBuffer(a, since) {
		t.Fatal("a fresh chunk's buffer was not claimed")
	}
	return a
}

// nextChunk is the next array of n float64s made, filled with v: it gets
// the pooled buffer if there is one.
func nextChunk(t *testing.T, n int, v float64) *ndarray.Array {
	t.Helper()
	return fill(t, n, v)
}

func fill(t *testing.T, n int, v float64) *ndarray.Array {
	t.Helper()
	a, err := ndarray.New(ndarray.Float64, n)
	if err != nil {
		t.Fatal(err)
	}
	xs := a.Float64s()
	for i := range xs {
		xs[i] = v
	}
	return a
}

func checkAll(t *testing.T, what string, a *ndarray.Array, want float64) {
	t.Helper()
	for i, v := range a.Float64s() {
		if v != want {
			t.Fatalf("%s: element %d is %v, want %v (its buffer was reused while still read)", what, i, v, want)
		}
	}
}

func TestReleasedChunkBufferIsReused(t *testing.T) {
	const n = 300_001
	s := storage.New()
	defer s.Close()
	a := ownedChunk(t, n, 1)
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	s.Delete([]protocol.ChunkKey{key(1)})
	if got := s.Stats().ReusedBuffers; got != 1 {
		t.Fatalf("ReusedBuffers = %d, want 1", got)
	}
	b := nextChunk(t, n, 2)
	if b.BufferID() != a.BufferID() {
		t.Fatal("the released chunk's buffer was not reused for the next chunk of its size")
	}
	checkAll(t, "next chunk", b, 2)
}

func TestUnownedChunkBufferIsNotReused(t *testing.T) {
	const n = 300_003
	s := storage.New()
	defer s.Close()
	a := nextChunk(t, n, 1) // the client's array, say: never claimed
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	s.Delete([]protocol.ChunkKey{key(1)})
	if got := s.Stats().ReusedBuffers; got != 0 {
		t.Fatalf("ReusedBuffers = %d, want 0", got)
	}
	b := nextChunk(t, n, 2)
	if b.BufferID() == a.BufferID() {
		t.Fatal("an unclaimed buffer was reused")
	}
	checkAll(t, "the caller's array", a, 1)
}

func TestReadChunkBufferIsNotReused(t *testing.T) {
	const n = 300_005
	s := storage.New()
	defer s.Close()
	a := ownedChunk(t, n, 1)
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	got, err := s.Read(context.Background(), key(1)) // a fetched result, a peer's copy
	if err != nil {
		t.Fatal(err)
	}
	s.Delete([]protocol.ChunkKey{key(1)})
	b := nextChunk(t, n, 2)
	if b.BufferID() == got.BufferID() {
		t.Fatal("a buffer served to a reader was reused after its chunk was released")
	}
	checkAll(t, "the reader's array", got, 1)
}

func TestPinnedChunkBufferIsNotReused(t *testing.T) {
	const n = 300_007
	s := storage.New()
	defer s.Close()
	a := ownedChunk(t, n, 1)
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	r := reserve(t, s, storage.Request{Op: "reader", Inputs: []storage.InputRequest{{Key: key(1)}}, Priority: prio(1)})
	in, err := r.Acquire(context.Background(), key(1))
	if err != nil {
		t.Fatal(err)
	}
	// Released (a cancelled graph, say) while the op still reads it.
	s.Delete([]protocol.ChunkKey{key(1)})
	b := nextChunk(t, n, 2)
	r.Close()
	if b.BufferID() == in.BufferID() {
		t.Fatal("a buffer pinned by a running op was reused")
	}
	checkAll(t, "the running op's input", in, 1)
}

func TestSharedBufferIsReusedWithItsLastChunk(t *testing.T) {
	const n = 300_009
	s := storage.New()
	defer s.Close()
	a := ownedChunk(t, n, 1)
	v, err := a.Reshape(n, 1) // a view: another chunk on the same buffer
	if err != nil {
		t.Fatal(err)
	}
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	s.PutWith(key(2), v, storage.PutOptions{Consumers: 1})
	s.Delete([]protocol.ChunkKey{key(1)})
	b := nextChunk(t, n, 2)
	if b.BufferID() == a.BufferID() {
		t.Fatal("a buffer was reused while another chunk still viewed it")
	}
	checkAll(t, "the view", v, 1)
	s.Delete([]protocol.ChunkKey{key(2)})
	c := nextChunk(t, n, 3)
	if c.BufferID() != a.BufferID() {
		t.Fatal("the buffer was not reused once its last chunk was released")
	}
}

func TestUnpinnedInputBufferIsNotReused(t *testing.T) {
	const n = 300_011
	s := storage.New()
	defer s.Close()
	// Admitted before its input was stored: nothing pins the input.
	r := reserve(t, s, storage.Request{Op: "reader", Inputs: []storage.InputRequest{{Key: key(1), Nbytes: 8 * n}}, Priority: prio(1)})
	defer r.Close()
	a := ownedChunk(t, n, 1)
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	in, err := r.Acquire(context.Background(), key(1))
	if err != nil {
		t.Fatal(err)
	}
	s.Delete([]protocol.ChunkKey{key(1)})
	b := nextChunk(t, n, 2)
	if b.BufferID() == in.BufferID() {
		t.Fatal("a buffer read by an op that had not pinned it was reused")
	}
	checkAll(t, "the running op's input", in, 1)
}

// The pool keeps at most a quarter of the held budgets in free buffers:
// they are memory the budgets do not count.
func TestHeldBudgetBoundsTheBufferPool(t *testing.T) {
	if got := ndarray.BufferPoolStats().Limit; got != ndarray.DefaultPoolLimit {
		t.Fatalf("pool limit %d with no budget held, want %d", got, ndarray.DefaultPoolLimit)
	}
	r1 := storage.HoldGoMemoryLimit(400 << 20)
	r2 := storage.HoldGoMemoryLimit(400 << 20)
	if got, want := ndarray.BufferPoolStats().Limit, int64(200<<20); got != want {
		t.Errorf("pool limit %d with 800 MiB held, want %d", got, want)
	}
	r1()
	if got, want := ndarray.BufferPoolStats().Limit, int64(100<<20); got != want {
		t.Errorf("pool limit %d with 400 MiB held, want %d", got, want)
	}
	r2()
	if got := ndarray.BufferPoolStats().Limit; got != ndarray.DefaultPoolLimit {
		t.Errorf("pool limit %d after the last release, want %d", got, ndarray.DefaultPoolLimit)
	}
}

// A reservation that, with the pool's free buffers, would take memory over
// the store's limit trims the pool down to what fits.
func TestReserveTrimsPool(t *testing.T) {
	const n = 200_003 // about 1.6 MB
	const limit = 4 << 20
	s := storage.Open(storage.Config{Limit: limit})
	defer s.Close()
	s.PutWith(key(1), ownedChunk(t, n, 1), storage.PutOptions{Consumers: 1, Owned: true})
	s.Delete([]protocol.ChunkKey{key(1)})
	if free := ndarray.BufferPoolStats().FreeBytes; free < 8*n {
		t.Fatalf("the pool holds %d free bytes after a release of %d", free, 8*n)
	}
	const out = 3 << 20
	for i := range 3 {
		r, err := s.Reserve(storage.Request{Op: "big", Output: out})
		if err != nil || r == nil {
			t.Fatalf("Reserve %d = %v, %v", i, r, err)
		}
		if free := ndarray.BufferPoolStats().FreeBytes; free+out > limit {
			t.Fatalf("reservation %d: %d free pool bytes beside %d reserved exceed the limit %d", i, free, out, limit)
		}
		r.Close()
	}
}
