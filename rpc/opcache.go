package rpc

import (
	"sync"

	"github.com/phobos-tensor/phobos/ops"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// OpCache keeps decoded chunk ops by their encoding, so that a worker sent
// the same op again (a small graph run again and again, as interactive
// code and libraries do) decodes it once. A decoded op is read-only (the
// tasks of one op share it while they run), so one value serves every
// task that names it. Only small encodings are kept, and at most
// opCacheEntries of them: the cache is emptied when full.
type OpCache struct {
	mu   sync.Mutex
	ops  map[string]ops.ChunkOp
	hits int64
}

const (
	opCacheEntries  = 256
	opCacheMaxBytes = 8 << 10
)

// NewOpCache is an empty cache.
func NewOpCache() *OpCache { return &OpCache{ops: map[string]ops.ChunkOp{}} }

// Hits is how many ops were answered from the cache.
func (c *OpCache) Hits() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// Len is how many decoded ops it holds.
func (c *OpCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ops)
}

// decode is ops.UnmarshalChunkOp, answered from c when it has decoded the
// same bytes before (a nil c decodes every time).
func (c *OpCache) decode(raw []byte) (ops.ChunkOp, error) {
	if c == nil || len(raw) > opCacheMaxBytes {
		return ops.UnmarshalChunkOp(raw)
	}
	c.mu.Lock()
	op, ok := c.ops[string(raw)]
	if ok {
		c.hits++
	}
	c.mu.Unlock()
	if ok {
		return op, nil
	}
	op, err := ops.UnmarshalChunkOp(raw)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.ops) >= opCacheEntries {
		clear(c.ops)
	}
	c.ops[string(raw)] = op
	c.mu.Unlock()
	return op, nil
}

// DecodeDispatchCached is DecodeDispatch with its ops decoded through c.
func DecodeDispatchCached(req *pb.DispatchRequest, c *OpCache) (DispatchBatch, error) {
	return decodeDispatch(req, c)
}
