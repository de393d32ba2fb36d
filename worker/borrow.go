package worker

import (
	"context"
	"errors"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// Borrow calls fn with the chunk under key for the length of the call
// (storage.Store.Borrow): fn copies it somewhere and keeps no reference,
// so its buffer may still be reused once the chunk is released. Tasks
// waiting for memory the pin held back are woken afterwards.
func (w *Worker) Borrow(ctx context.Context, key protocol.ChunkKey, fn func(*ndarray.Array) error) error {
	defer w.wakeForMemory()
	err := w.store.Borrow(ctx, key, fn)
	var missing *storage.ErrNotFound
	if err == nil || !errors.As(err, &missing) {
		return err
	}
	// A lane's chunk: tiny, never evicted, so nothing waits on its pin.
	w.settleLanes()
	for _, l := range w.lanes {
		if lerr := l.store.Borrow(ctx, key, fn); !errors.As(lerr, &missing) {
			return lerr
		}
	}
	return err
}
