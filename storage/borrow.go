package storage

import (
	"context"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// Borrow calls fn with the chunk stored under key, as Read would return
// it, for the length of the call only: fn must not keep the array, nor a
// view of it, once it returns. A chunk in memory is pinned meanwhile (not
// evicted; deleted, its buffer is not reused), and, unlike Read, its buffer
// is not marked shared, so that it may still go back to ndarray's buffer
// pool when the chunk is released. A copy of the chunk into a client's
// result file borrows it. A chunk on disk or dropped is read back for fn
// alone, as Read does. A store with pins may make reservations wait: the
// caller wakes its waiters once Borrow returns.
func (s *Store) Borrow(ctx context.Context, key protocol.ChunkKey, fn func(*ndarray.Array) error) error {
	s.mu.Lock()
	e, ok := s.chunkLocked(key)
	if !ok {
		s.mu.Unlock()
		return &ErrNotFound{Key: key}
	}
	if e.arr == nil || e.buf == nil {
		// On disk, dropped, or an array of no buffer of its own (a
		// small one): Read marks nothing, and its copy is fn's alone.
		s.mu.Unlock()
		a, err := s.Read(ctx, key)
		if err != nil {
			return err
		}
		return fn(a)
	}
	e.fresh = false
	s.mu.clock++
	e.used = s.mu.clock
	if e.pins == 0 {
		s.mu.pinned++
	}
	e.pins++
	a := e.arr
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		e.pins--
		if e.pins == 0 {
			s.mu.pinned--
		}
		// Deleted meanwhile: forgetLocked saw the pin and kept its
		// buffer from the pool; the record itself may now be reused.
		s.recycleLocked(e)
		s.mu.Unlock()
	}()
	return fn(a)
}
