package storage

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// maxFreeEntries bounds the records of deleted chunks a store keeps for
// the next chunks it stores: a graph of many tiny ops stores and deletes
// one per op, and a reused record is one heap object fewer to allocate and
// for the collector to trace.
const maxFreeEntries = 1 << 10

// putPrep is what storing a chunk needs that does not depend on the store,
// worked out before its lock is taken.
type putPrep struct {
	regen ops.ChunkOp
	fin   func()
}

func preparePut(a *ndarray.Array, opts PutOptions) putPrep {
	var p putPrep
	if f, ok := opts.Regen.(ops.Finalizer); ok {
		p.fin = func() { f.Finalize(a) }
	}
	if opts.Regen != nil && Regenerable(opts.Regen) {
		p.regen = opts.Regen
	}
	return p
}

// newEntryLocked is the record of chunk a to be put under key: a freed
// record when the store has one, else a new one.
func (s *Store) newEntryLocked(key protocol.ChunkKey, a *ndarray.Array, opts PutOptions, p putPrep) *entry {
	var e *entry
	if n := len(s.mu.free); n > 0 {
		e = s.mu.free[n-1]
		s.mu.free[n-1] = nil
		s.mu.free = s.mu.free[:n-1]
	} else {
		e = new(entry)
	}
	e.key = key
	e.dtype = a.DType()
	e.nbytes = int64(a.Nbytes())
	e.regen = p.regen
	e.fin = p.fin
	e.consumers = int32(max(opts.Consumers, -1))
	e.fresh = opts.Consumers > 0
	e.firstUse = protocol.Priority{Depth: opts.Producer.Depth + 1, Order: opts.Producer.Order + 1}
	e.shape = append(e.shapeRoom[:0:len(e.shapeRoom)], a.Shape()...)
	return e
}

// recycleLocked keeps deleted entry e for reuse if nothing can still refer
// to it: no reservation pins it, no spill writer or load holds it outside
// the lock, and its own buffer record, if it was used, has left memory
// (other chunks on that buffer point at it until then).
func (s *Store) recycleLocked(e *entry) {
	if !e.deleted || e.pins > 0 || e.writing || e.loading != nil || e.loaders > 0 ||
		(e.ownBufUsed && !e.ownBuf.gone) || len(s.mu.free) >= maxFreeEntries {
		return
	}
	*e = entry{} // let go of what it held
	s.mu.free = append(s.mu.free, e)
}
