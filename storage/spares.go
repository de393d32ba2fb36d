package storage

import "github.com/phobos-tensor/phobos/ndarray"

// A graph of a million tiny ops stores a million scalar chunks, each an
// array the op made and the store deletes soon after. A worker has such
// ops write their outputs into spares instead: tiny arrays (ndarray.NewTiny)
// of chunks deleted before, which nothing outside the store could read
// (never served by Read, not deleted while pinned, not being spilled: the
// terms on which a buffer goes back to ndarray's pool).

// maxSpares bounds the spare tiny arrays a store keeps.
const maxSpares = 1 << 10

// keepSpareLocked keeps a, a tiny array nothing outside the store refers
// to, as a spare when there is room.
func (s *Store) keepSpareLocked(a *ndarray.Array) {
	if len(s.mu.spares) < maxSpares {
		s.mu.spares = append(s.mu.spares, a)
	}
}

// takeSpareLocked returns a spare tiny array, nil if there is none.
func (s *Store) takeSpareLocked() *ndarray.Array {
	n := len(s.mu.spares)
	if n == 0 {
		return nil
	}
	a := s.mu.spares[n-1]
	s.mu.spares[n-1] = nil
	s.mu.spares = s.mu.spares[:n-1]
	return a
}

// noteTinyLocked marks e's buffer, when new to the store (added > 0), as
// a tiny array it may make a spare of (PutOptions.Tiny).
func (s *Store) noteTinyLocked(e *entry, opts PutOptions, added int64) {
	if opts.Tiny && added > 0 && e.buf != nil && e.buf.chunks[0] == e {
		e.buf.owned, e.buf.tiny = true, e.arr
	}
}
