// Package storage is a worker's chunk store: chunks by key with exact byte
// accounting. Several chunks may be views of one buffer (a transpose of a
// stored chunk, say); the buffer's bytes are counted once, while any chunk
// using it is stored.
package storage

import (
	"fmt"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// ErrNotFound is returned for a key the store does not hold.
type ErrNotFound struct{ Key protocol.ChunkKey }

func (e *ErrNotFound) Error() string { return fmt.Sprintf("storage: chunk %v not found", e.Key) }

// Store holds chunks in memory. It is safe for concurrent use.
type Store struct {
	mu struct {
		sync.Mutex
		chunks  map[protocol.ChunkKey]*ndarray.Array
		buffers map[uintptr]*bufRef
		bytes   int64
		peak    int64
	}
}

type bufRef struct {
	refs  int
	bytes int64
}

// New returns an empty store.
func New() *Store {
	s := &Store{}
	s.mu.chunks = make(map[protocol.ChunkKey]*ndarray.Array)
	s.mu.buffers = make(map[uintptr]*bufRef)
	return s
}

// Put stores a chunk under key, replacing any earlier one.
func (s *Store) Put(key protocol.ChunkKey, a *ndarray.Array) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.mu.chunks[key]; ok {
		s.unrefLocked(old)
	}
	s.mu.chunks[key] = a
	id := a.BufferID()
	if id == 0 {
		return
	}
	b := s.mu.buffers[id]
	if b == nil {
		b = &bufRef{bytes: int64(a.BufferBytes())}
		s.mu.buffers[id] = b
		s.mu.bytes += b.bytes
		s.mu.peak = max(s.mu.peak, s.mu.bytes)
	}
	b.refs++
}

func (s *Store) unrefLocked(a *ndarray.Array) {
	id := a.BufferID()
	if id == 0 {
		return
	}
	if b := s.mu.buffers[id]; b != nil {
		b.refs--
		if b.refs == 0 {
			delete(s.mu.buffers, id)
			s.mu.bytes -= b.bytes
		}
	}
}

// Get returns the chunk stored under key.
func (s *Store) Get(key protocol.ChunkKey) (*ndarray.Array, error) {
	s.mu.Lock()
	a, ok := s.mu.chunks[key]
	s.mu.Unlock()
	if !ok {
		return nil, &ErrNotFound{Key: key}
	}
	return a, nil
}

// Delete drops chunks; unknown keys are ignored.
func (s *Store) Delete(keys []protocol.ChunkKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		if a, ok := s.mu.chunks[k]; ok {
			delete(s.mu.chunks, k)
			s.unrefLocked(a)
		}
	}
}

// Stats are the store's byte counts.
type Stats struct {
	Chunks    int
	Bytes     int64 // bytes of distinct buffers held now
	PeakBytes int64 // most bytes held at once
}

// Stats returns the current counts.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Chunks: len(s.mu.chunks), Bytes: s.mu.bytes, PeakBytes: s.mu.peak}
}
