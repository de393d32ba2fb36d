package storage

// SetExternal sets the memory held outside the store on the worker's behalf
// (its Python executors' resident memory): it counts against the limit as
// chunks and reservations do, so ops are not admitted into memory that an
// executor's interpreter already takes. It replaces the previous amount.
func (s *Store) SetExternal(bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.external = max(bytes, 0)
	s.notePeakLocked()
}
