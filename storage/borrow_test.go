package storage_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

func TestBorrowedChunkBufferIsReused(t *testing.T) {
	const n = 300_101
	s := storage.New()
	defer s.Close()
	a := ownedChunk(t, n, 1)
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	var sum float64
	if err := s.Borrow(context.Background(), key(1), func(b *ndarray.Array) error {
		for _, v := range b.Float64s() {
			sum += v
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if sum != n {
		t.Fatalf("the borrowed chunk sums to %v, want %v", sum, float64(n))
	}
	s.Delete([]protocol.ChunkKey{key(1)})
	if got := s.Stats().ReusedBuffers; got != 1 {
		t.Fatalf("ReusedBuffers = %d, want 1: a borrowed (copied, not kept) buffer went back to the pool", got)
	}
	b := nextChunk(t, n, 2)
	if b.BufferID() != a.BufferID() {
		t.Fatal("the released chunk's buffer was not reused for the next chunk of its size")
	}
}

func TestChunkDeletedWhileBorrowedIsNotReused(t *testing.T) {
	const n = 300_103
	s := storage.New()
	defer s.Close()
	a := ownedChunk(t, n, 1)
	s.PutWith(key(1), a, storage.PutOptions{Consumers: 1, Owned: true})
	var next *ndarray.Array
	if err := s.Borrow(context.Background(), key(1), func(b *ndarray.Array) error {
		// Released (the client let go of the result) while its copy runs.
		s.Delete([]protocol.ChunkKey{key(1)})
		next = nextChunk(t, n, 2)
		checkAll(t, "the borrowed chunk", b, 1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if next.BufferID() == a.BufferID() {
		t.Fatal("a buffer borrowed by a copy was reused while the copy ran")
	}
	if got := s.Stats().ReusedBuffers; got != 0 {
		t.Fatalf("ReusedBuffers = %d, want 0", got)
	}
	// The record of the deleted chunk is let go with the borrow.
	if err := s.Borrow(context.Background(), key(1), func(*ndarray.Array) error { return nil }); !errors.As(err, new(*storage.ErrNotFound)) {
		t.Fatalf("Borrow of a deleted chunk: %v, want ErrNotFound", err)
	}
}

func TestBorrowPassesFnError(t *testing.T) {
	s := storage.New()
	defer s.Close()
	s.Put(key(1), fill(t, 10, 1))
	boom := errors.New("boom")
	if err := s.Borrow(context.Background(), key(1), func(*ndarray.Array) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Borrow: %v, want fn's error", err)
	}
}

// Copies of chunks borrowed while other goroutines release them and store
// new ones (reusing released buffers) never see a buffer reused under them.
func TestBorrowConcurrentWithReleases(t *testing.T) {
	const n, keys, rounds = 300_107, 4, 200
	s := storage.New()
	defer s.Close()
	for k := range keys {
		s.PutWith(key(int32(k)), ownedChunk(t, n, float64(k)), storage.PutOptions{Consumers: 1, Owned: true})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3*keys)
	for k := range keys {
		wg.Add(2)
		go func() { // the releases and recomputations of chunk k
			defer wg.Done()
			for r := range rounds {
				s.Delete([]protocol.ChunkKey{key(int32(k))})
				v := float64(k + keys*(r+1))
				since := ndarray.BufferEpoch()
				a, err := ndarray.New(ndarray.Float64, n)
				if err != nil {
					errs <- err
					return
				}
				xs := a.Float64s()
				for i := range xs {
					xs[i] = v
				}
				s.PutWith(key(int32(k)), a, storage.PutOptions{Consumers: 1, Owned: ndarray.ClaimBuffer(a, since)})
			}
		}()
		go func() { // the copies of chunk k
			defer wg.Done()
			for range rounds {
				err := s.Borrow(context.Background(), key(int32(k)), func(b *ndarray.Array) error {
					xs := b.Float64s()
					for _, v := range xs {
						if v != xs[0] {
							return errors.New("a borrowed chunk changed while it was copied")
						}
					}
					return nil
				})
				var nf *storage.ErrNotFound
				if err != nil && !errors.As(err, &nf) {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
