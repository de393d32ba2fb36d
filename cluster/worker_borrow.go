package cluster

import (
	"context"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
)

// borrowChunk calls fn with a stored chunk for the length of the call
// (worker.Worker.Borrow): a copy of a result chunk into the client's
// shared memory keeps no reference, so the chunk's buffer may be reused
// once the client releases the result.
func (p *WorkerProc) borrowChunk(ctx context.Context, key protocol.ChunkKey, fn func(*ndarray.Array) error) error {
	if err := p.waitReady(ctx); err != nil {
		return err
	}
	return p.w.Borrow(ctx, key, fn)
}
