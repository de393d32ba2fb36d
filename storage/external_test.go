package storage

import (
	"errors"
	"testing"
)

// Memory held outside the store (a worker's Python executors) is not
// granted to ops, and comes back when it is given up.
func TestExternalCountsAgainstLimit(t *testing.T) {
	const limit = 1000
	s := Open(Config{Limit: limit})
	defer s.Close()
	r, err := s.Reserve(Request{Op: "a", Output: 600})
	if err != nil || r == nil {
		t.Fatalf("600 of %d free: %v %v", limit, r, err)
	}
	r.Close()
	s.SetExternal(500)
	if st := s.Stats(); st.External != 500 {
		t.Fatalf("Stats().External = %d, want 500", st.External)
	}
	r, err = s.Reserve(Request{Op: "b", Output: 600})
	var nr *NoRoomError
	if r != nil || !errors.As(err, &nr) {
		t.Fatalf("600 with 500 of %d held by executors: got %v %v, want a NoRoomError", limit, r, err)
	}
	r, err = s.Reserve(Request{Op: "c", Output: 400})
	if err != nil || r == nil {
		t.Fatalf("400 with 500 of %d held by executors: %v %v", limit, r, err)
	}
	r.Close()
	if st := s.Stats(); st.PeakUsed < 900 {
		t.Errorf("PeakUsed %d does not count the executors' memory", st.PeakUsed)
	}
	s.SetExternal(0)
	r, err = s.Reserve(Request{Op: "d", Output: 600})
	if err != nil || r == nil {
		t.Fatalf("600 once the executors' memory is given up: %v %v", r, err)
	}
	r.Close()
}
