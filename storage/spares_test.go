package storage

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

func spareCount(s *Store) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.mu.spares)
}

// tinyChunk reserves an op asking for a spare, has it write v into the
// spare (or a new tiny array), and finishes it under key as the worker
// does; it returns the stored array.
func tinyChunk(t *testing.T, s *Store, key protocol.ChunkKey, v float64, ins ...protocol.ChunkKey) *ndarray.Array {
	t.Helper()
	req := Request{Op: "t", Output: 8, Spare: true, NoWait: true}
	for _, in := range ins {
		req.Inputs = append(req.Inputs, InputRequest{Key: in, Nbytes: 8})
	}
	r, err := s.Reserve(req)
	if err != nil || r == nil {
		t.Fatalf("reserve: %v, %v", r, err)
	}
	if err := r.Evict(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := r.Spare()
	if a == nil || !ndarray.ResetTiny(a, ndarray.Float64, []int{1}) {
		a = ndarray.NewTiny(ndarray.Float64, []int{1})
	}
	a.Float64s()[0] = v
	r.Finish(key, a, PutOptions{Consumers: 1, Tiny: true}, ins)
	return a
}

func key(n int32) protocol.ChunkKey { return protocol.ChunkKey{Graph: 3, Node: n} }

// A tiny chunk deleted becomes a spare, and the next op asking for one
// gets that very array; the chunk stored in it reads its own value.
func TestSpareReused(t *testing.T) {
	s := Open(Config{Limit: 1 << 20})
	defer s.Close()
	a := tinyChunk(t, s, key(1), 1)
	if n := spareCount(s); n != 0 {
		t.Fatalf("%d spares before any delete", n)
	}
	s.Delete([]protocol.ChunkKey{key(1)})
	if n := spareCount(s); n != 1 {
		t.Fatalf("%d spares after deleting a tiny chunk, want 1", n)
	}
	b := tinyChunk(t, s, key(2), 2)
	if b != a {
		t.Fatal("the next tiny output is not the deleted chunk's array")
	}
	got, err := s.Get(key(2))
	if err != nil || got.Float64s()[0] != 2 {
		t.Fatalf("chunk 2 reads %v, %v; want 2", got, err)
	}
	if _, err := s.Get(key(1)); err == nil {
		t.Fatal("deleted chunk 1 still readable")
	}
}

// A spare an op did not store goes back to the store when its reservation
// ends, whether it succeeded with another output or failed.
func TestSpareBackWhenUnused(t *testing.T) {
	s := Open(Config{Limit: 1 << 20})
	defer s.Close()
	tinyChunk(t, s, key(1), 1)
	s.Delete([]protocol.ChunkKey{key(1)})
	r, err := s.Reserve(Request{Op: "t", Output: 8, Spare: true})
	if err != nil || r.Spare() == nil {
		t.Fatalf("no spare: %v", err)
	}
	if n := spareCount(s); n != 0 {
		t.Fatalf("%d spares while the reservation holds it", n)
	}
	other := ndarray.NewTiny(ndarray.Float64, []int{1})
	r.Finish(key(2), other, PutOptions{Consumers: 1}, nil)
	if n := spareCount(s); n != 1 {
		t.Fatalf("%d spares after a finish that stored another array, want 1", n)
	}
	r, _ = s.Reserve(Request{Op: "t", Output: 8, Spare: true})
	r.Close()
	if n := spareCount(s); n != 1 {
		t.Fatalf("%d spares after a failed op, want 1", n)
	}
	// Not asked for, none given.
	r, _ = s.Reserve(Request{Op: "t", Output: 8})
	if r.Spare() != nil {
		t.Fatal("a spare given unasked")
	}
	r.Close()
	// A chunk not stored as Tiny never becomes a spare.
	s.Delete([]protocol.ChunkKey{key(2)})
	if n := spareCount(s); n != 1 {
		t.Fatalf("%d spares after deleting a chunk not stored as tiny, want 1", n)
	}
}

// A tiny chunk something outside the store may still read is not made a
// spare: served by Read (a result or a peer's fetch), deleted while an op
// had it pinned, or replaced by a later put of its key.
func TestSpareNotWhileReferred(t *testing.T) {
	s := Open(Config{Limit: 1 << 20})
	defer s.Close()

	tinyChunk(t, s, key(1), 1)
	if _, err := s.Read(context.Background(), key(1)); err != nil {
		t.Fatal(err)
	}
	s.Delete([]protocol.ChunkKey{key(1)})
	if n := spareCount(s); n != 0 {
		t.Fatalf("a chunk served by Read became a spare (%d)", n)
	}

	tinyChunk(t, s, key(2), 2)
	r, err := s.Reserve(Request{Op: "reader", Output: 8, Inputs: []InputRequest{{Key: key(2), Nbytes: 8}}})
	if err != nil || r == nil {
		t.Fatal(err)
	}
	if _, err := r.Acquire(context.Background(), key(2)); err != nil {
		t.Fatal(err)
	}
	s.Delete([]protocol.ChunkKey{key(2)})
	r.Close()
	if n := spareCount(s); n != 0 {
		t.Fatalf("a chunk deleted while pinned became a spare (%d)", n)
	}

	tinyChunk(t, s, key(3), 3)
	s.Put(key(3), seq(t, 1, 9))
	if n := spareCount(s); n != 0 {
		t.Fatalf("a replaced chunk became a spare (%d)", n)
	}

	// Borrowed and given back, then deleted: the borrower kept nothing.
	tinyChunk(t, s, key(4), 4)
	if err := s.Borrow(context.Background(), key(4), func(a *ndarray.Array) error { return nil }); err != nil {
		t.Fatal(err)
	}
	s.Delete([]protocol.ChunkKey{key(4)})
	if n := spareCount(s); n != 1 {
		t.Fatalf("%d spares after deleting a chunk borrowed and given back, want 1", n)
	}
}

// A tiny chunk spilled and deleted is not made a spare (its array left
// memory with the spill); one still in memory is. Spilled chunks read back
// their own values.
func TestSpareAfterSpill(t *testing.T) {
	s := Open(Config{Limit: 64, SpillDir: t.TempDir()})
	defer s.Close()
	var keys []protocol.ChunkKey
	for i := int32(0); i < 16; i++ {
		tinyChunk(t, s, key(i), float64(i))
		keys = append(keys, key(i))
	}
	if st := s.Stats(); st.SpillCount == 0 {
		t.Fatalf("nothing spilled under a limit of 64 bytes: %+v", st)
	}
	inMemory := 0
	for i, k := range keys {
		switch s.Tier(k) {
		case TierMemory:
			inMemory++
		case TierDisk:
			a, err := s.Get(k) // read back for the caller alone
			if err != nil || a.Float64s()[0] != float64(i) {
				t.Fatalf("chunk %d reads %v, %v", i, a, err)
			}
		default:
			t.Fatalf("chunk %d is %v", i, s.Tier(k))
		}
	}
	s.Delete(keys)
	if n := spareCount(s); n != inMemory {
		t.Fatalf("%d spares from %d chunks in memory", n, inMemory)
	}
}
