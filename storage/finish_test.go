package storage_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// TestFinishAndReuse runs a chain of ops as a worker's slot does: each
// reserves (building its reservation in the closed one of the op before),
// reads its input, and ends with Finish, which stores its output, counts
// the input consumed and closes the reservation. The accounting must come
// back to the chunks alone, and a reservation still open, or another
// store's, must not be reused.
func TestFinishAndReuse(t *testing.T) {
	ctx := context.Background()
	s := storage.Open(storage.Config{Limit: 10 * unit})
	defer s.Close()
	other := storage.Open(storage.Config{Limit: 10 * unit})
	defer other.Close()

	var spare *storage.Reservation
	for i := range int32(6) {
		req := storage.Request{Op: "chain", Output: unit, Reuse: spare}
		if i > 0 {
			req.Inputs = []storage.InputRequest{{Key: key(i - 1), Nbytes: unit}}
		}
		r, err := s.Reserve(req)
		if err != nil || r == nil {
			t.Fatalf("op %d: Reserve = %v, %v", i, r, err)
		}
		if i > 0 && r != spare {
			t.Fatalf("op %d: the closed reservation of the op before was not reused", i)
		}
		var consumed []protocol.ChunkKey
		if i > 0 {
			in, err := r.Acquire(ctx, key(i-1))
			if err != nil {
				t.Fatalf("op %d: Acquire: %v", i, err)
			}
			if got := in.Float64s()[0]; got != float64(i-1) {
				t.Fatalf("op %d: input reads %v, want %v", i, got, i-1)
			}
			consumed = []protocol.ChunkKey{key(i - 1)}
		}
		r.Finish(key(i), chunk(t, 1, float64(i)), storage.PutOptions{Consumers: 1}, consumed)
		r.Close() // a second close does nothing
		spare = r
		if i > 0 {
			s.Delete([]protocol.ChunkKey{key(i - 1)})
		}
		st := s.Stats()
		if st.Reserved != 0 || st.Chunks != 1 || st.Bytes != unit {
			t.Fatalf("op %d: after Finish: reserved %d, %d chunks, %d bytes; want 0, 1, %d", i, st.Reserved, st.Chunks, st.Bytes, unit)
		}
	}

	open, err := s.Reserve(storage.Request{Op: "open", Output: unit})
	if err != nil || open == nil {
		t.Fatalf("Reserve = %v, %v", open, err)
	}
	if r, _ := s.Reserve(storage.Request{Op: "b", Output: unit, Reuse: open}); r == open {
		t.Fatal("a reservation still open was reused")
	} else {
		r.Close()
	}
	open.Close()
	if r, _ := other.Reserve(storage.Request{Op: "c", Output: unit, Reuse: spare}); r == spare {
		t.Fatal("another store's reservation was reused")
	} else {
		r.Close()
	}
	if got := s.Stats().Reserved; got != 0 {
		t.Fatalf("reserved %d after every reservation closed", got)
	}
}
