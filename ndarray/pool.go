package ndarray

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// The buffer pool lets a chunk store hand the buffers of released chunks
// back to the allocator, so that the next chunk of that size reuses them
// instead of leaving a dead buffer of tens of megabytes to the garbage
// collector (resident until the next collection, and until the scavenger
// returns its pages) while a fresh one is faulted in.
//
// It is one per process, like the heap it stands in front of: every array
// is made through alignedBytes, which has no context to carry a pool in.
//
// A buffer must never be reused while anything can still read it. The pool
// therefore takes back only buffers that were proven private:
//
//   - it tracks ("lends") only the buffers it made or handed out, each under
//     a lending number that grows with every loan;
//   - ClaimBuffer gives one owner (the store of the op that made the buffer)
//     the right to return it, once, and only for a buffer lent after a
//     number the owner read before the op started: an op that returns an
//     array it held from before (a constant, an input, a view of either)
//     cannot have its buffer claimed;
//   - ReleaseBuffer is the owner's promise that no reference is left (the
//     store refuses it for buffers it served to a reader, or whose chunk
//     was deleted while a running op held it).
//
// Buffers are matched by byte length class (eight classes per power of
// two), not by dtype: a buffer is bytes, and a float64 chunk of n elements
// may reuse an int64 or a complex64 one of the same size. A request takes
// a free buffer at least its size from its class or the next, so at most
// a quarter of a reused buffer is slack (the array's length, which a store
// counts, is the request's). Free buffers are bounded in bytes, and those not
// reused between two collections are dropped, so the pool holds memory
// only while chunks of its sizes keep coming.

// poolMinBytes is the smallest buffer the pool tracks. Smaller ones are
// cheap for the garbage collector, and tracking a million small chunks
// (graphs of tiny chunks) would only add work.
const poolMinBytes = 1 << 20

// DefaultPoolLimit is the most bytes of free buffers the pool keeps unless
// SetBufferPoolLimit says otherwise.
const DefaultPoolLimit = 1 << 30

// PoolStats are the buffer pool's counts since the process started.
type PoolStats struct {
	Lent      int64 // buffers of at least the pool's minimum size handed out
	Reused    int64 // of them, taken from the free buffers
	Claimed   int64 // claimed by an owner
	Returned  int64 // released by their owner and kept for reuse
	Dropped   int64 // released but not kept (over the limit) or trimmed unused
	FreeBytes int64 // bytes of free buffers now
	Limit     int64 // the most bytes of free buffers kept
}

type lentBuf struct {
	lend    uint64 // lending number
	alloc   uint64 // allocation the buffer is (stable across reuse)
	words   int    // capacity in 8-byte words
	claimed bool
	ptr     weak.Pointer[uint64]
}

type freeBuf struct {
	words []uint64
	alloc uint64
	ptr   weak.Pointer[uint64]
	gc    uint64 // collections seen when it was returned
}

type bufferPool struct {
	mu     sync.Mutex
	lends  atomic.Uint64 // last lending number (written under mu)
	allocs uint64        // last allocation number
	lent   map[uintptr]lentBuf
	free   map[int][]freeBuf // by class of their capacity
	limit  int64
	gcs    uint64 // collections seen (by the trimming sentinel)
	armed  bool   // a trimming sentinel is waiting for the next collection
	st     PoolStats
}

func newBufferPool(limit int64) *bufferPool {
	return &bufferPool{lent: make(map[uintptr]lentBuf), free: make(map[int][]freeBuf), limit: limit}
}

var buffers = newBufferPool(DefaultPoolLimit)

// poolClass is the length class of a buffer of w words: its power of two
// and the next three bits.
func poolClass(w int) int {
	e := bits.Len(uint(w)) - 1
	if e < 3 {
		return w
	}
	return e<<3 | (w>>(e-3))&7
}

// get returns n zeroed bytes, 8-byte aligned, reusing a free buffer when one
// of the class fits.
func (p *bufferPool) get(n int) []byte { return p.take(n, true) }

// take is get that leaves a reused buffer's old bytes in place unless zero:
// for outputs a kernel overwrites whole, where clearing would be a wasted
// pass over memory (a fresh buffer is zero either way).
func (p *bufferPool) take(n int, zero bool) []byte {
	w := (n + 7) / 8
	if w*8 < poolMinBytes {
		words := make([]uint64, w)
		return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
	}
	c := poolClass(w)
	p.mu.Lock()
	words, alloc, ptr, ok := p.takeLocked(c, w)
	if !ok {
		p.mu.Unlock()
		words = make([]uint64, w)
		ptr = weak.Make(&words[0])
		p.mu.Lock()
		p.allocs++
		alloc = p.allocs
		// Forget the loan once the buffer is garbage, so the table only
		// holds live buffers. A later buffer at the same address has
		// another allocation number and is left alone.
		id := uintptr(unsafe.Pointer(&words[0]))
		runtime.AddCleanup(&words[0], p.forget, [2]uintptr{id, uintptr(alloc)})
	} else {
		p.st.Reused++
	}
	id := uintptr(unsafe.Pointer(&words[0]))
	p.lent[id] = lentBuf{lend: p.lends.Add(1), alloc: alloc, words: len(words), ptr: ptr}
	p.st.Lent++
	p.mu.Unlock()
	if ok && zero {
		clear(words[:w]) // New's arrays are zero-filled
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
	if !ok {
		adviseHuge(b)
	}
	return b
}

// takeLocked removes a free buffer of at least w words from class c (or,
// failing that, the class above) and returns it.
func (p *bufferPool) takeLocked(c, w int) ([]uint64, uint64, weak.Pointer[uint64], bool) {
	for _, k := range [2]int{c, c + 1} {
		fs := p.free[k]
		for i := len(fs) - 1; i >= 0; i-- {
			f := fs[i]
			if len(f.words) < w {
				continue
			}
			fs[i] = fs[len(fs)-1]
			fs[len(fs)-1] = freeBuf{}
			if len(fs) == 1 {
				delete(p.free, k) // no empty classes: trimLocked takes from any
			} else {
				p.free[k] = fs[:len(fs)-1]
			}
			p.st.FreeBytes -= int64(len(f.words)) * 8
			return f.words, f.alloc, f.ptr, true
		}
	}
	return nil, 0, weak.Pointer[uint64]{}, false
}

func (p *bufferPool) forget(k [2]uintptr) {
	p.mu.Lock()
	if r, ok := p.lent[k[0]]; ok && r.alloc == uint64(k[1]) {
		delete(p.lent, k[0])
	}
	p.mu.Unlock()
}

// recordLocked is the loan of a's buffer, if the pool lent it and it is
// still the same allocation.
func (p *bufferPool) recordLocked(a *Array) (uintptr, lentBuf, bool) {
	if a == nil || len(a.buf) < poolMinBytes {
		return 0, lentBuf{}, false
	}
	id := uintptr(unsafe.Pointer(&a.buf[0]))
	r, ok := p.lent[id]
	if !ok || uintptr(unsafe.Pointer(r.ptr.Value())) != id || len(a.buf) > r.words*8 {
		return 0, lentBuf{}, false
	}
	return id, r, true
}

func (p *bufferPool) epoch() uint64 { return p.lends.Load() }

func (p *bufferPool) claim(a *Array, since uint64) bool {
	if a == nil || len(a.buf) < poolMinBytes {
		return false // not tracked: spare the lock (graphs of tiny chunks)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id, r, ok := p.recordLocked(a)
	if !ok || r.claimed || r.lend <= since {
		return false
	}
	r.claimed = true
	p.lent[id] = r
	p.st.Claimed++
	return true
}

func (p *bufferPool) release(a *Array) bool {
	var dropped [][]uint64
	defer dropBuffers(&dropped) // after the unlock: a syscall per buffer
	p.mu.Lock()
	defer p.mu.Unlock()
	id, r, ok := p.recordLocked(a)
	if !ok || !r.claimed {
		return false
	}
	delete(p.lent, id)
	size := int64(r.words) * 8
	if p.st.FreeBytes+size > p.limit {
		p.st.Dropped++
		if w := r.ptr.Value(); w != nil {
			dropped = append(dropped, unsafe.Slice(w, r.words))
		}
		return true
	}
	words := unsafe.Slice(r.ptr.Value(), r.words)
	c := poolClass(r.words)
	p.free[c] = append(p.free[c], freeBuf{words: words, alloc: r.alloc, ptr: r.ptr, gc: p.gcs})
	p.st.FreeBytes += size
	p.st.Returned++
	p.armLocked()
	return true
}

// poolSentinel is garbage once made: its cleanup runs after the next
// collection and trims the free buffers.
type poolSentinel struct{ _ [16]byte }

func (p *bufferPool) armLocked() {
	if p.armed {
		return
	}
	p.armed = true
	runtime.AddCleanup(new(poolSentinel), func(p *bufferPool) { p.collected() }, p)
}

// collected drops the free buffers that were not reused since the
// collection before this one: the workload no longer makes chunks of their
// size, and held they would only be resident memory.
func (p *bufferPool) collected() {
	var dropped [][]uint64
	defer dropBuffers(&dropped)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gcs++
	p.armed = false
	for c, fs := range p.free {
		kept := fs[:0]
		for _, f := range fs {
			if p.gcs-f.gc >= 2 {
				p.st.FreeBytes -= int64(len(f.words)) * 8
				p.st.Dropped++
				dropped = append(dropped, f.words)
				continue
			}
			kept = append(kept, f)
		}
		clear(fs[len(kept):])
		if len(kept) == 0 {
			delete(p.free, c)
		} else {
			p.free[c] = kept
		}
	}
	if p.st.FreeBytes > 0 {
		p.armLocked()
	}
}

func (p *bufferPool) setLimit(n int64) {
	var dropped [][]uint64
	defer dropBuffers(&dropped)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limit = max(n, 0)
	dropped = p.trimLocked(p.limit)
}

func (p *bufferPool) trim(keep int64) {
	var dropped [][]uint64
	defer dropBuffers(&dropped)
	p.mu.Lock()
	defer p.mu.Unlock()
	dropped = p.trimLocked(max(keep, 0))
}

// trimLocked drops free buffers, largest class first, until at most keep
// bytes of them are left, and returns them for dropBuffers.
func (p *bufferPool) trimLocked(keep int64) (dropped [][]uint64) {
	for p.st.FreeBytes > keep {
		top := -1
		for c, fs := range p.free {
			if len(fs) > 0 {
				top = max(top, c)
			}
		}
		if top < 0 {
			return // the count and the lists disagree; never index an empty class
		}
		fs := p.free[top]
		f := fs[len(fs)-1]
		fs[len(fs)-1] = freeBuf{}
		if len(fs) == 1 {
			delete(p.free, top)
		} else {
			p.free[top] = fs[:len(fs)-1]
		}
		p.st.FreeBytes -= int64(len(f.words)) * 8
		p.st.Dropped++
		dropped = append(dropped, f.words)
	}
	return dropped
}

// dropBuffer lets go of a buffer the pool owned (released by its owner,
// never lent since): its pages go back to the kernel at once, not when a
// collection finds it and the scavenger returns them, so a dropped chunk
// of hundreds of megabytes stops counting as resident memory now.
func dropBuffer(words []uint64) {
	if len(words) == 0 {
		return
	}
	adviseFree(unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8))
}

// dropBuffers drops the buffers in *bs; deferred before the pool's lock
// is taken, it runs after the unlock.
func dropBuffers(bs *[][]uint64) {
	for _, w := range *bs {
		dropBuffer(w)
	}
}

func (p *bufferPool) stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.st
	st.Limit = p.limit
	return st
}

// BufferEpoch is the pool's current lending number. Read it before running
// an op, and pass it to ClaimBuffer with the op's output.
func BufferEpoch() uint64 { return buffers.epoch() }

// ClaimBuffer makes the caller the owner of a's buffer, with the right to
// give it back with ReleaseBuffer, and reports whether it did. It refuses
// a buffer the pool did not lend after since (a BufferEpoch read before
// the op that made a started: an array the op held from before, such as
// a constant, an input or a view of one, is older), a buffer already
// claimed, and buffers too small to be pooled. A view of a fresh buffer
// claims the whole buffer.
func ClaimBuffer(a *Array, since uint64) bool { return buffers.claim(a, since) }

// ReleaseBuffer gives a's buffer back to the pool for reuse. The caller
// must own it (ClaimBuffer) and guarantee that nothing, a's views
// included, reads or writes it any more: the next array of its size gets
// the same memory. It reports whether the pool took the buffer back (it
// may then keep it or, over its limit, leave it to the garbage collector).
func ReleaseBuffer(a *Array) bool { return buffers.release(a) }

// SetBufferPoolLimit bounds the bytes of free buffers the pool keeps
// (DefaultPoolLimit until set); 0 keeps none.
func SetBufferPoolLimit(n int64) { buffers.setLimit(n) }

// TrimBufferPool drops free buffers, the largest first, until at most
// keep bytes of them are left: a store at its memory budget makes room
// for what it admits (the free buffers are memory its budget does not
// count).
func TrimBufferPool(keep int64) { buffers.trim(keep) }

// BufferPoolStats returns the pool's counts.
func BufferPoolStats() PoolStats { return buffers.stats() }
