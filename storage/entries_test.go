package storage

import (
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

func freeEntries(s *Store) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.mu.free)
}

func seq(t *testing.T, n int, v float64) *ndarray.Array {
	t.Helper()
	data := make([]float64, n)
	for i := range data {
		data[i] = v + float64(i)
	}
	a, err := ndarray.FromFloat64s([]int{n}, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func sameValues(t *testing.T, got, want *ndarray.Array) {
	t.Helper()
	if !ndarray.SameShape(got.Shape(), want.Shape()) {
		t.Fatalf("shape %v, want %v", got.Shape(), want.Shape())
	}
	g, w := got.ToFloat64s(), want.ToFloat64s()
	for i := range w {
		if g[i] != w[i] {
			t.Fatalf("element %d = %v, want %v", i, g[i], w[i])
		}
	}
}

// A deleted chunk's record is reused for the next chunk stored, and the
// reused record carries nothing of the old chunk.
func TestEntryReused(t *testing.T) {
	s := Open(Config{Limit: 1 << 20})
	defer s.Close()
	k := func(n int32) protocol.ChunkKey { return protocol.ChunkKey{Graph: 7, Node: n} }
	a := seq(t, 4, 0)
	s.PutWith(k(1), a, PutOptions{Consumers: 2})
	s.Delete([]protocol.ChunkKey{k(1)})
	if n := freeEntries(s); n != 1 {
		t.Fatalf("%d free records after a delete, want 1", n)
	}
	b, err := seq(t, 6, 10).Reshape(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(k(2), b)
	if n := freeEntries(s); n != 0 {
		t.Fatalf("%d free records after a put, want 0", n)
	}
	got, err := s.Get(k(2))
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, got, b)
	if _, err := s.Get(k(1)); err == nil {
		t.Fatal("a deleted chunk is still served")
	}
	if st := s.Stats(); st.Chunks != 1 || st.Bytes != int64(b.BufferBytes()) {
		t.Fatalf("stats %+v, want 1 chunk of %d bytes", st, b.BufferBytes())
	}
}

// A record still referred to is not reused: one pinned by an open
// reservation, and one whose buffer record other chunks (views of its
// buffer) still use.
func TestEntryNotReusedWhileReferred(t *testing.T) {
	s := Open(Config{Limit: 1 << 20})
	defer s.Close()
	k := func(n int32) protocol.ChunkKey { return protocol.ChunkKey{Graph: 7, Node: n} }

	s.Put(k(1), seq(t, 4, 0))
	r, err := s.Reserve(Request{Op: "reader", Output: 64, Inputs: []InputRequest{{Key: k(1), Nbytes: 32}}})
	if err != nil || r == nil {
		t.Fatalf("Reserve = %v, %v", r, err)
	}
	s.Delete([]protocol.ChunkKey{k(1)})
	if n := freeEntries(s); n != 0 {
		t.Fatalf("a pinned record was freed (%d free)", n)
	}
	r.Close()

	a := seq(t, 6, 0)
	v, err := a.Reshape(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	tv, err := v.Transpose()
	if err != nil {
		t.Fatal(err)
	}
	s.Put(k(2), a)
	s.Put(k(3), tv) // shares k(2)'s buffer record
	s.Delete([]protocol.ChunkKey{k(2)})
	if n := freeEntries(s); n != 0 {
		t.Fatalf("a record whose buffer record is in use was freed (%d free)", n)
	}
	for i := range 3 {
		// Records put meanwhile must not take k(2)'s.
		s.Put(k(int32(10+i)), seq(t, 2, float64(i)))
	}
	got, err := s.Get(k(3))
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, got, tv)
	if st := s.Stats(); st.Bytes != int64(a.BufferBytes())+3*16 {
		t.Fatalf("%d bytes in memory, want %d", st.Bytes, a.BufferBytes()+3*16)
	}
	s.Delete([]protocol.ChunkKey{k(3), k(10), k(11), k(12)})
	if st := s.Stats(); st.Bytes != 0 || st.Chunks != 0 {
		t.Fatalf("stats %+v after deleting everything", st)
	}
	if n := freeEntries(s); n != 4 {
		t.Fatalf("%d free records, want 4", n)
	}
}
