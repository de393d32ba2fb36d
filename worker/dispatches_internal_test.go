package worker

import (
	"testing"

	"github.com/phobos-tensor/phobos/protocol"
)

// The dispatch table answers as the two tables it replaced did: a
// dispatch no later than one queued, running or ended is a repeat, a later
// one (a retry, a new owner's) is taken, and a release lets any dispatch
// of the key in again.
func TestDispatchTable(t *testing.T) {
	var dt dispatchTable
	k := protocol.ChunkKey{Graph: 3, Node: 9}
	d1, d2 := dispatch{fence: 1, attempt: 1}, dispatch{fence: 1, attempt: 2}
	newOwner := dispatch{fence: 2, attempt: 1}
	steps := []struct {
		name string
		do   func() bool
		want bool
	}{
		{"first dispatch", func() bool { return dt.queue(k, d1) }, true},
		{"repeated while queued", func() bool { return dt.queue(k, d1) }, false},
		{"retry while queued", func() bool { return dt.queue(k, d2) }, true},
		{"earlier attempt after a later one", func() bool { return dt.queue(k, d1) }, false},
		{"first ends", func() bool { dt.end(k, d1); return dt.recs.Len() == 1 && dt.ended == 1 }, true},
		{"retry still active", func() bool { return dt.queue(k, d2) }, false},
		{"retry ends", func() bool { dt.end(k, d2); return dt.ended == 1 }, true},
		{"repeat after it ran", func() bool { return dt.queue(k, d2) }, false},
		{"new owner's dispatch", func() bool { return dt.queue(k, newOwner) }, true},
		{"new owner's ends", func() bool { dt.end(k, newOwner); return dt.ended == 1 }, true},
		{"stale end keeps the later", func() bool { dt.end(k, d1); r, _ := dt.recs.Get(k.Graph, k.Node); return r.ended == newOwner }, true},
		{"release forgets it", func() bool { dt.release(k); return dt.recs.Len() == 0 && dt.ended == 0 }, true},
		{"after release any dispatch runs", func() bool { return dt.queue(k, d1) }, true},
		{"release of a queued key keeps it", func() bool { dt.release(k); return dt.recs.Len() == 1 }, true},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("%s: got %v, want %v", s.name, got, s.want)
		}
	}
}

// Past rememberEnded ended dispatches, one is forgotten for each new one,
// and queued dispatches are never forgotten for it.
func TestDispatchTableBound(t *testing.T) {
	var dt dispatchTable
	d := dispatch{attempt: 1}
	queued := protocol.ChunkKey{Graph: 1, Node: 0}
	dt.queue(queued, d)
	for i := range int32(rememberEnded + 100) {
		k := protocol.ChunkKey{Graph: 2, Node: i}
		dt.queue(k, d)
		dt.end(k, d)
	}
	if dt.ended != rememberEnded {
		t.Fatalf("%d ended dispatches remembered, want %d", dt.ended, rememberEnded)
	}
	if dt.recs.Len() != rememberEnded+1 {
		t.Fatalf("%d records, want %d", dt.recs.Len(), rememberEnded+1)
	}
	if dt.queue(queued, d) {
		t.Fatal("a queued dispatch was forgotten")
	}
}
