package worker

import (
	"context"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// Borrow calls fn with the chunk under key for the length of the call
// (storage.Store.Borrow): fn copies it somewhere and keeps no reference,
// so its buffer may still be reused once the chunk is released. Tasks
// waiting for memory the pin held back are woken afterwards.
func (w *Worker) Borrow(ctx context.Context, key protocol.ChunkKey, fn func(*ndarray.Array) error) error {
	defer w.cond.Broadcast()
	return w.store.Borrow(ctx, key, fn)
}
