// Package storage is a worker's chunk store: a memory tier with exact byte
// accounting under a limit, and a disk tier of spill files (Mars's shared
// store that dumps unused chunks to disk when full).
//
// The limit covers the chunks held in memory plus what running ops have
// reserved (Reserve) for their outputs, temporaries and inputs read from
// elsewhere. When a reservation does not fit, unpinned chunks are evicted in
// order of next use (the worker reports, per chunk, the priority of the most
// urgent queued op that consumes it): chunks nobody queued wants go first,
// then the ones wanted last. An evicted chunk is written to a spill file, or,
// when it came from a generator or was read from a file that stays in place
// and regenerating or re-reading it is cheaper than a write and a read,
// simply dropped and recomputed (read again) on the next read.
//
// Several chunks may be views of one buffer (a transpose of a stored chunk,
// say); the buffer's bytes are counted once, and eviction frees a buffer only
// with all the chunks that use it.
package storage

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/phobos-tensor/phobos/internal/keytab"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// ErrNotFound is returned for a key the store does not hold.
type ErrNotFound struct{ Key protocol.ChunkKey }

func (e *ErrNotFound) Error() string { return fmt.Sprintf("storage: chunk %v not found", e.Key) }

// TooLargeError is an op whose estimated memory exceeds the whole limit: it
// can never run on this worker, so it fails at once instead of waiting.
type TooLargeError struct {
	Op       string
	Estimate int64
	Limit    int64
	Detail   string // how the estimate is made up
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("op %s needs an estimated %s (%s), more than the worker's memory limit of %s",
		e.Op, FormatBytes(e.Estimate), e.Detail, FormatBytes(e.Limit))
}

// SpillError is a chunk that had to be spilled and could not be: the spill
// directory is missing, unwritable or full.
type SpillError struct {
	Dir string
	Err error
}

func (e *SpillError) Error() string {
	return fmt.Sprintf("storage: cannot spill to %s: %v", e.Dir, e.Err)
}

func (e *SpillError) Unwrap() error { return e.Err }

// LostError is a spilled chunk whose file is gone or unreadable and which
// cannot be regenerated; only recomputing its producer can bring it back.
type LostError struct {
	Key  protocol.ChunkKey
	File string
	Err  error
}

func (e *LostError) Error() string {
	return fmt.Sprintf("storage: spilled chunk %v lost: %s: %v", e.Key, e.File, e.Err)
}

func (e *LostError) Unwrap() error { return e.Err }

// Config sets up a Store.
type Config struct {
	// Limit is the memory budget in bytes: chunks in memory plus
	// reservations of running ops. 0 or less: no limit, nothing is evicted.
	Limit int64
	// SpillDir is where evicted chunks are written. "" means a private
	// temporary directory, made on the first spill and removed by Close.
	SpillDir string
	// Costs choose between spilling and recomputing a generated chunk.
	Costs Costs
	// ChargeTo, when set, is the store whose limit this one's memory
	// counts against: this store's bytes in memory are added to what
	// ChargeTo counts as held outside it (see Charge), in steps of
	// ChargeStep, so that the two stores do not write one counter for
	// every chunk. A worker's lanes keep their tiny chunks this way.
	ChargeTo *Store
	// Knobs are hooks for tests.
	Knobs TestingKnobs
}

// ChargeStep is the change in a store's bytes in memory that it reports to
// its ChargeTo store at once; smaller changes wait for more.
const ChargeStep = 256 << 10

// Costs are the estimates behind "spill or recompute": a generated chunk is
// dropped when regenerating it costs less than writing and reading it back,
// and so is a chunk read from a file (ops.Rereadable) when reading it again
// does.
type Costs struct {
	DiskWriteBytesPerSec float64 // default 1e9, below a local SSD's
	DiskReadBytesPerSec  float64 // default 1e9
	// GenerateNsPerElement is the cost of one element of one generator or
	// fused node. Default 3.
	GenerateNsPerElement float64
	// FileReadBytesPerSec is the first estimate of the speed of re-reading
	// a chunk from its source file; once the store has re-read chunks, the
	// speed it measured replaces it. Default DiskReadBytesPerSec.
	FileReadBytesPerSec float64
}

func (c Costs) withDefaults() Costs {
	if c.DiskWriteBytesPerSec <= 0 {
		c.DiskWriteBytesPerSec = 1e9
	}
	if c.DiskReadBytesPerSec <= 0 {
		c.DiskReadBytesPerSec = 1e9
	}
	if c.GenerateNsPerElement <= 0 {
		c.GenerateNsPerElement = 3
	}
	if c.FileReadBytesPerSec <= 0 {
		c.FileReadBytesPerSec = c.DiskReadBytesPerSec
	}
	return c
}

// TestingKnobs are hooks for tests.
type TestingKnobs struct {
	// SpillWriter wraps the writer of every spill file (to fail writes as a
	// full disk would).
	SpillWriter func(io.Writer) io.Writer
}

// Tier is where a chunk is.
type Tier uint8

// The tiers of a chunk.
const (
	TierNone    Tier = iota // not stored (or lost)
	TierMemory              // in memory (possibly with a spill copy too)
	TierDisk                // in a spill file only
	TierDropped             // evicted without a copy; regenerated on read
)

func (t Tier) String() string {
	return [...]string{"none", "memory", "disk", "dropped"}[t]
}

// Store holds chunks in memory and spill files. It is safe for concurrent use.
type Store struct {
	cfg   Config
	costs Costs
	// charged is what other stores (ChargeTo) report holding in memory,
	// counted against this one's limit as external bytes are.
	charged atomic.Int64

	mu struct {
		sync.Mutex
		chunks   keytab.Table[protocol.GraphID, *entry] // by graph and op number
		buffers  bufIndex                               // buffers in memory, by id
		resident int64                                  // bytes of distinct buffers in memory
		reserved int64                                  // bytes reserved by running ops
		evicting int64                                  // bytes of buffers being written out (as good as free)
		external int64                                  // bytes held outside the store for this worker (SetExternal)
		// reported is the bytes in memory last added to cfg.ChargeTo's
		// charged.
		reported int64
		// transient is what running ops give back when they end: their
		// temporaries and inputs read from elsewhere.
		transient int64
		// poolLimit is the buffer pool's bound when last asked, and
		// poolChecks counts reservations (poolMayExceedLocked).
		poolLimit  int64
		poolChecks uint64
		// keeps are graphs found to keep chunks whose consumers have all
		// finished (their results): such chunks are not about to be released.
		keeps    map[protocol.GraphID]bool
		free     []*entry         // deleted entries to reuse (recycleLocked)
		spares   []*ndarray.Array // tiny arrays of deleted chunks (spares.go)
		pinned   int              // entries with pins
		clock    uint64
		spillDir string // resolved, "" until known
		ownDir   bool   // spillDir is a temporary directory we made
		spillErr error  // the spill directory is unusable (sticky)
		closed   bool
		st       Stats
		// reread counts the re-reads of dropped file chunks, whose speed
		// replaces Costs.FileReadBytesPerSec once measured.
		reread struct {
			bytes int64
			time  time.Duration
		}
	}
}

// entry is one stored chunk.
type entry struct {
	key       protocol.ChunkKey
	dtype     ndarray.DType
	shape     []int
	nbytes    int64          // its elements' bytes when contiguous
	arr       *ndarray.Array // nil while not in memory
	buf       *bufRef        // arr's buffer while in memory
	file      string         // spill copy, "" if none
	writing   bool           // being written to file
	regen     ops.ChunkOp    // regenerates (or re-reads) the chunk from nothing; nil if it cannot
	lost      error          // its spill file vanished and it cannot be regenerated
	fin       func()         // ends what the chunk stands for, once released (ops.Finalizer)
	pins      int
	next      protocol.Priority // most urgent queued consumer, if hasNext
	hasNext   bool
	consumers int32 // consumers yet to finish; < 0 unknown
	// fresh: no consumer has read it yet. Its consumer is then likely not
	// queued only because it waits for sibling inputs; firstUse estimates
	// that consumer's priority (one level deeper than the producer).
	fresh    bool
	firstUse protocol.Priority
	doneAt   uint64 // clock when consumers reached 0
	used     uint64
	deleted  bool
	loading  chan struct{} // closed when a load into memory ends
	// loaders are the reads of it in progress outside the store's lock
	// (a load from its spill file or generator): it is not reused until
	// they end.
	loaders int32

	// Room made with the entry so that a put allocates once: its shape when
	// it has few axes, and the record of its buffer (with the list of the
	// buffer's chunks) when the chunk is the first on a buffer, the common
	// case. ownBufUsed: ownBuf was taken; a later attach (a reload) makes
	// its own, since chunks of other entries may still refer to ownBuf.
	shapeRoom  [2]int
	ownBuf     bufRef
	ownChunks  [1]*entry
	ownBufUsed bool
}

// bufRef is one buffer in memory and the chunks that use it.
type bufRef struct {
	id       uintptr
	bytes    int64
	chunks   []*entry
	evicting bool
	gone     bool // left memory with its last chunk
	// owned: the op that made the buffer claimed it for this store
	// (PutOptions.Owned), so it may go back to ndarray's buffer pool when
	// its last chunk is released, unless shared.
	owned bool
	// shared: something outside the store may still read the buffer: it
	// was served by Read (to a peer, or as a result fetched by the client),
	// or a chunk of it was deleted while a running op had it pinned.
	shared bool
	// tiny is the array the buffer is part of when the store may make it
	// a spare for another op's output once reusable (PutOptions.Tiny).
	tiny *ndarray.Array
}

// reusable reports whether b, about to leave memory with its last chunk,
// may be handed back to the buffer pool: the store owns it and nothing
// outside can read it, and no spill writer is reading it either.
func (b *bufRef) reusable() bool { return b.owned && !b.shared && !b.evicting }

// Stats are the store's byte counts and what eviction did.
type Stats struct {
	Chunks       int   // chunks stored, in any tier
	Bytes        int64 // bytes of distinct buffers in memory now
	PeakBytes    int64 // most bytes in memory at once
	Reserved     int64 // bytes reserved by running ops now
	External     int64 // bytes held outside the store for the worker now (SetExternal; other stores' ChargeTo)
	PeakUsed     int64 // most of Bytes + Reserved at once (less bytes being evicted)
	Limit        int64 // 0: none
	DiskBytes    int64 // bytes in spill files now
	SpilledBytes int64 // written to spill files
	SpillCount   int64
	SpillTime    time.Duration
	LoadedBytes  int64 // read back from spill files
	LoadCount    int64
	LoadTime     time.Duration
	// PrivateLoads counts chunks read back (or regenerated) straight into
	// their last consumer's memory instead of into the store.
	PrivateLoads int64
	// DroppedBytes are generated chunks evicted without a copy because
	// recomputing them was estimated cheaper than spilling.
	DroppedBytes    int64
	DroppedCount    int64
	RecomputedBytes int64 // regenerated after a drop (or a lost spill file)
	RecomputeCount  int64
	RecomputeTime   time.Duration
	SpillErrors     int64
	// ReusedBuffers counts buffers of deleted chunks handed back to
	// ndarray's buffer pool.
	ReusedBuffers int64
}

// New returns a store without a limit: nothing is ever evicted.
func New() *Store { return Open(Config{}) }

// Open returns a store for cfg. A spill directory that is missing or not
// writable does not stop it: the store works in memory, SpillErr says why
// it cannot spill, and reservations that would need a spill fail with it.
func Open(cfg Config) *Store {
	s := &Store{cfg: cfg, costs: cfg.Costs.withDefaults()}
	s.mu.keeps = make(map[protocol.GraphID]bool)
	s.mu.st.Limit = max(cfg.Limit, 0)
	if cfg.SpillDir != "" {
		s.mu.spillDir = cfg.SpillDir
		if err := checkSpillDir(cfg.SpillDir); err != nil {
			s.mu.spillErr = &SpillError{Dir: cfg.SpillDir, Err: err}
		}
	}
	return s
}

// Limit is the memory budget, 0 if none.
func (s *Store) Limit() int64 { return max(s.cfg.Limit, 0) }

// SpillErr says why the store cannot spill, nil if it can (as far as it knows).
func (s *Store) SpillErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.spillErr
}

// PutOptions describe a chunk being stored.
type PutOptions struct {
	// Consumers is how many ops will read the chunk (the producing task's
	// Priority.Succ); a spilled chunk read by its last consumer goes straight
	// into that op's memory. < 0: unknown.
	Consumers int
	// Regen is the op that produced the chunk from no inputs, if any: a
	// generator, or a read of a file (ops.Rereadable). The chunk may then be
	// dropped instead of spilled and regenerated on the next read. An
	// ops.Finalizer is finalized when the chunk is deleted (released, or the
	// store closed), not when it is replaced.
	Regen ops.ChunkOp
	// Producer is the priority of the op that made the chunk. With known
	// Consumers it gives the chunk an estimated first use until a consumer
	// is queued: one level deeper, just after the producer.
	Producer protocol.Priority
	// Owned says the chunk's buffer is the store's alone: the op made it
	// and the caller claimed it (ndarray.ClaimBuffer). When the chunk (and
	// every other chunk on that buffer) is deleted, the buffer goes back to
	// ndarray's pool for the next chunk of its size, unless the store has
	// since served it to a reader (Read) or deleted a chunk of it while an
	// op had it pinned.
	Owned bool
	// Tiny says the chunk is an array made by ndarray.NewTiny (or a
	// reservation's Spare) that nothing outside the store refers to: when
	// the chunk is deleted, the store keeps it as a spare for another op's
	// output (Reservation.Spare), on Owned's terms. Honoured by a
	// reservation's Put and Finish.
	Tiny bool
}

// Put stores a chunk under key, replacing any earlier one.
func (s *Store) Put(key protocol.ChunkKey, a *ndarray.Array) {
	s.PutWith(key, a, PutOptions{Consumers: -1})
}

// PutWith stores a chunk with what is known about its future. Put never
// evicts: the bytes were reserved before the op ran (Reserve); a store
// above its limit evicts at the next reservation.
func (s *Store) PutWith(key protocol.ChunkKey, a *ndarray.Array, opts PutOptions) {
	prep := preparePut(a, opts)
	s.mu.Lock()
	e := s.newEntryLocked(key, a, opts, prep)
	_, old := s.putLocked(e, a, opts.Owned)
	s.notePeakLocked()
	s.mu.Unlock()
	removeFiles(old)
}

// putLocked stores e (from newEntryLocked) holding a, and returns the bytes it
// added to memory and the spill file of a replaced chunk, to be removed
// outside the lock.
func (s *Store) putLocked(e *entry, a *ndarray.Array, owned bool) (added int64, oldFile string) {
	if old, ok := s.mu.chunks.Swap(e.key.Graph, e.key.Node, e); ok {
		// Not finalized: the op ran again and stands for the same thing.
		// Its buffer is not reused: a replaced chunk was not released, and
		// whoever put the new one may hold the old one still.
		oldFile, _, _ = s.forgetLocked(old)
	}
	return s.attachLocked(e, a, owned), oldFile
}

// Regenerable reports whether a chunk produced by op (with no inputs) can be
// dropped and recomputed: generators (random, full, arange, eye) and fused
// kernels made of them, all deterministic (counter-based random numbers),
// and reads of files that stay in place (ops.Rereadable).
func Regenerable(op ops.ChunkOp) bool {
	switch op := op.(type) {
	case ops.Rereadable:
		return true
	case ops.Fused:
		for _, n := range op.Nodes {
			for _, a := range n.Args {
				if a < 0 {
					return false // reads an input chunk
				}
			}
		}
		return true
	}
	return ops.IsGenerator(op)
}

// attachLocked puts a in memory for e and returns the bytes this added.
// owned (PutOptions.Owned) counts only for a buffer new to the store: a
// buffer already held is older than any op that could have claimed it.
func (s *Store) attachLocked(e *entry, a *ndarray.Array, owned bool) int64 {
	s.mu.clock++
	e.arr, e.used = a, s.mu.clock
	id := a.BufferID()
	if id == 0 {
		return 0
	}
	var added int64
	b := s.mu.buffers.get(id)
	if b == nil {
		if !e.ownBufUsed {
			e.ownBufUsed = true
			b = &e.ownBuf
			*b = bufRef{id: id, bytes: int64(a.BufferBytes()), owned: owned, chunks: e.ownChunks[:0]}
		} else {
			b = &bufRef{id: id, bytes: int64(a.BufferBytes()), owned: owned}
		}
		s.mu.buffers.put(b)
		s.mu.resident += b.bytes
		added = b.bytes
		s.mu.st.PeakBytes = max(s.mu.st.PeakBytes, s.mu.resident)
		s.chargeLocked()
	}
	b.chunks = append(b.chunks, e)
	e.buf = b
	return added
}

// detachLocked takes e out of memory; its buffer goes when no chunk uses
// it, and is then returned (nil if the buffer stays).
func (s *Store) detachLocked(e *entry) *bufRef {
	e.arr = nil
	b := e.buf
	if b == nil {
		return nil
	}
	e.buf = nil
	if i := slices.Index(b.chunks, e); i >= 0 {
		b.chunks = slices.Delete(b.chunks, i, i+1)
	}
	if len(b.chunks) == 0 {
		s.mu.buffers.del(b.id)
		b.gone = true
		s.mu.resident -= b.bytes
		if b.evicting {
			s.mu.evicting -= b.bytes
		}
		s.chargeLocked()
		return b
	}
	return nil
}

// deleteLocked forgets e and returns its spill file for removal, unless a
// writer still owns the file (it removes it when it sees e.deleted), and,
// when e was the last chunk on a buffer that may be reused, the array to
// hand back to the buffer pool (nil otherwise).
func (s *Store) deleteLocked(e *entry) (file string, reuse *ndarray.Array) {
	s.mu.chunks.Delete(e.key.Graph, e.key.Node)
	file, reuse, _ = s.forgetLocked(e)
	return file, reuse
}

// forgetLocked is deleteLocked for an entry already out of the table. A
// reusable tiny array (PutOptions.Tiny) is returned as reuse with tiny
// set: a spare, not for the buffer pool.
func (s *Store) forgetLocked(e *entry) (file string, reuse *ndarray.Array, tiny bool) {
	e.deleted = true
	if a := e.arr; a != nil {
		if (e.pins > 0 || e.fin != nil) && e.buf != nil {
			// A running op still reads it, or the finalizer will.
			e.buf.shared = true
		}
		if b := s.detachLocked(e); b != nil && b.reusable() {
			reuse = a
			if b.tiny != nil {
				reuse, tiny = b.tiny, true
			}
		}
	}
	if e.file != "" {
		s.mu.st.DiskBytes -= e.nbytes
		file, e.file = e.file, ""
	}
	return file, reuse, tiny
}

func removeFiles(paths ...string) {
	for _, p := range paths {
		if p != "" {
			os.Remove(p)
		}
	}
}

// chargeLocked reports the change in the bytes in memory to cfg.ChargeTo
// once it reaches ChargeStep, or once none are left.
func (s *Store) chargeLocked() {
	to := s.cfg.ChargeTo
	if to == nil {
		return
	}
	if d := s.mu.resident - s.mu.reported; d >= ChargeStep || d <= -ChargeStep || (s.mu.resident == 0 && d != 0) {
		to.charged.Add(d)
		s.mu.reported = s.mu.resident
	}
}

// Charged is what other stores (their Config.ChargeTo) have charged to
// this one's limit, as counted in Stats().External.
func (s *Store) Charged() int64 { return s.charged.Load() }

// externalLocked is the memory held outside the store that counts against
// its limit: SetExternal's and what other stores charge to it.
func (s *Store) externalLocked() int64 { return s.mu.external + s.charged.Load() }

// notePeakLocked records the memory in use: bytes being evicted count as
// gone, since the op they make room for starts only once they are.
func (s *Store) notePeakLocked() {
	s.mu.st.PeakUsed = max(s.mu.st.PeakUsed, s.mu.resident-s.mu.evicting+s.mu.reserved+s.externalLocked())
}

// Get returns the chunk stored under key. A chunk on disk or dropped is read
// back (or regenerated) into a new array for the caller alone; it is not
// brought back into the store. Use it to serve peers and fetch results.
func (s *Store) Get(key protocol.ChunkKey) (*ndarray.Array, error) {
	return s.Read(context.Background(), key)
}

// Read is Get under a context (which a regeneration runs under).
func (s *Store) Read(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, error) {
	s.mu.Lock()
	e, ok := s.chunkLocked(key)
	if !ok {
		s.mu.Unlock()
		return nil, &ErrNotFound{Key: key}
	}
	e.fresh = false // a peer's consumer is reading it
	if e.arr != nil {
		s.mu.clock++
		e.used = s.mu.clock
		a := e.arr
		if e.buf != nil {
			// The reader keeps the array as long as it likes.
			e.buf.shared = true
		}
		s.mu.Unlock()
		return a, nil
	}
	e.loaders++
	s.mu.Unlock()
	a, _, err := s.load(ctx, e)
	s.mu.Lock()
	e.loaders--
	if err == nil {
		s.mu.st.PrivateLoads++
	}
	s.mu.Unlock()
	return a, err
}

// load reads e back from its spill file, or regenerates it, without putting
// it in memory. A missing file of a regenerable chunk is regenerated; of any
// other chunk it is a LostError.
func (s *Store) load(ctx context.Context, e *entry) (a *ndarray.Array, fromDisk bool, err error) {
	s.mu.Lock()
	file, regen, lost := e.file, e.regen, e.lost
	s.mu.Unlock()
	if lost != nil {
		return nil, false, lost
	}
	if file != "" {
		t0 := time.Now()
		a, err := readSpill(file, e.dtype, e.shape)
		if err == nil {
			s.mu.Lock()
			s.mu.st.LoadedBytes += e.nbytes
			s.mu.st.LoadCount++
			s.mu.st.LoadTime += time.Since(t0)
			s.mu.Unlock()
			return a, true, nil
		}
		s.mu.Lock()
		if e.deleted {
			s.mu.Unlock()
			return nil, false, &ErrNotFound{Key: e.key}
		}
		if e.file == file { // the copy is bad: forget it
			e.file = ""
			s.mu.st.DiskBytes -= e.nbytes
		}
		if regen == nil {
			e.lost = &LostError{Key: e.key, File: file, Err: err}
			lost := e.lost
			s.mu.Unlock()
			os.Remove(file)
			return nil, false, lost
		}
		s.mu.Unlock()
		os.Remove(file)
	}
	if regen == nil {
		return nil, false, fmt.Errorf("storage: chunk %v has neither memory, file nor generator", e.key)
	}
	t0 := time.Now()
	a, err = regen.Exec(ctx, nil)
	if err != nil {
		return nil, false, fmt.Errorf("storage: regenerate chunk %v (%s): %w", e.key, regen.Type(), err)
	}
	if a.DType() != e.dtype || !ndarray.SameShape(a.Shape(), e.shape) {
		return nil, false, fmt.Errorf("storage: regenerating chunk %v (%s) gave %v%v, want %v%v", e.key, regen.Type(), a.DType(), a.Shape(), e.dtype, e.shape)
	}
	s.mu.Lock()
	dt := time.Since(t0)
	s.mu.st.RecomputedBytes += e.nbytes
	s.mu.st.RecomputeCount++
	s.mu.st.RecomputeTime += dt
	if rr, ok := regen.(ops.Rereadable); ok && rr.ReadBytes() >= minRereadSample {
		s.mu.reread.bytes += rr.ReadBytes()
		s.mu.reread.time += dt
	}
	s.mu.Unlock()
	return a, false, nil
}

// minRereadSample is the smallest re-read that counts towards the measured
// file read speed: smaller ones mostly time opening the file, a cost the
// spill side of the comparison does not count either.
const minRereadSample = 1 << 20

// Delete drops chunks from every tier; unknown keys are ignored. Chunks of
// ops.Finalizer ops are finalized, after the store's lock is released.
// Buffers the store owns (PutOptions.Owned) and nothing else can read go
// back to ndarray's buffer pool once their last chunk is deleted.
func (s *Store) Delete(keys []protocol.ChunkKey) {
	var files []string
	var fins []func()
	var reuse []*ndarray.Array
	s.mu.Lock()
	if s.mu.chunks.Len() == 0 {
		// A worker's store while its lanes hold the graph's chunks.
		s.mu.Unlock()
		return
	}
	for _, k := range keys {
		if e, ok := s.mu.chunks.Take(k.Graph, k.Node); ok {
			f, a, tiny := s.forgetLocked(e)
			if f != "" {
				files = append(files, f)
			}
			switch {
			case a == nil:
			case tiny:
				s.keepSpareLocked(a)
			default:
				if reuse == nil {
					reuse = make([]*ndarray.Array, 0, len(keys))
				}
				reuse = append(reuse, a)
			}
			if e.fin != nil {
				fins = append(fins, e.fin)
			}
			s.recycleLocked(e)
		}
	}
	s.mu.Unlock()
	if len(reuse) > 0 {
		var n int64
		for _, a := range reuse {
			if ndarray.ReleaseBuffer(a) {
				n++
			}
		}
		s.mu.Lock()
		s.mu.st.ReusedBuffers += n
		s.mu.Unlock()
	}
	removeFiles(files...)
	for _, f := range fins {
		f()
	}
}

// Tier says where the chunk under key is.
func (s *Store) Tier(key protocol.ChunkKey) Tier {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.chunkLocked(key)
	switch {
	case !ok || e.lost != nil:
		return TierNone
	case e.arr != nil:
		return TierMemory
	case e.file != "":
		return TierDisk
	case e.regen != nil:
		return TierDropped
	}
	return TierNone
}

// SpillFile is the path of the chunk's spill copy, "" if it has none.
func (s *Store) SpillFile(key protocol.ChunkKey) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.chunkLocked(key); ok {
		return e.file
	}
	return ""
}

// SetNextUse records the priority of the most urgent queued op that reads
// the chunk (ok = false: no queued op reads it). Eviction goes by it.
func (s *Store) SetNextUse(key protocol.ChunkKey, p protocol.Priority, ok bool) {
	s.SetNextUses([]NextUse{{Key: key, Priority: p, OK: ok}})
}

// NextUse is one chunk's next use for SetNextUses: the priority of the
// most urgent queued op that reads it, if OK.
type NextUse struct {
	Key      protocol.ChunkKey
	Priority protocol.Priority
	OK       bool
}

// SetNextUses is SetNextUse for several chunks, in order, under one hold
// of the store's lock.
func (s *Store) SetNextUses(uses []NextUse) {
	if len(uses) == 0 {
		return
	}
	s.mu.Lock()
	for _, u := range uses {
		if e, _ := s.chunkLocked(u.Key); e != nil {
			e.next, e.hasNext = u.Priority, u.OK
		}
	}
	s.mu.Unlock()
}

// Consumed records that one consumer of the chunk has finished with it.
func (s *Store) Consumed(key protocol.ChunkKey) {
	s.mu.Lock()
	s.consumedLocked(key)
	s.mu.Unlock()
}

func (s *Store) consumedLocked(key protocol.ChunkKey) {
	if e, _ := s.chunkLocked(key); e != nil {
		e.fresh = false
		if e.consumers > 0 {
			e.consumers--
			if e.consumers == 0 {
				s.mu.clock++
				e.doneAt = s.mu.clock
			}
		}
	}
}

// Stats returns the current counts.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.mu.st
	st.Chunks = s.mu.chunks.Len()
	st.Bytes = s.mu.resident
	st.Reserved = s.mu.reserved
	st.External = s.externalLocked()
	return st
}

// Close removes the store's spill files (and its temporary spill directory)
// and forgets every chunk. Call it after the worker using it has stopped.
func (s *Store) Close() error {
	var files []string
	var fins []func()
	s.mu.Lock()
	var all []*entry
	s.mu.chunks.All(func(_ protocol.GraphID, _ int32, e *entry) bool {
		all = append(all, e)
		return true
	})
	for _, e := range all {
		f, _ := s.deleteLocked(e)
		files = append(files, f)
		if e.fin != nil {
			fins = append(fins, e.fin)
		}
	}
	s.mu.closed = true
	dir, own := s.mu.spillDir, s.mu.ownDir
	s.mu.Unlock()
	removeFiles(files...)
	for _, f := range fins {
		f()
	}
	if own {
		return os.RemoveAll(dir)
	}
	return nil
}

// spillDirLocked returns the directory to spill to, making the temporary one
// on first use.
func (s *Store) spillDirLocked() (string, error) {
	if s.mu.spillErr != nil {
		return "", s.mu.spillErr
	}
	if s.mu.spillDir == "" {
		d, err := os.MkdirTemp("", "phobos-spill-")
		if err != nil {
			s.mu.spillErr = &SpillError{Dir: os.TempDir(), Err: err}
			return "", s.mu.spillErr
		}
		s.mu.spillDir, s.mu.ownDir = d, true
	}
	return s.mu.spillDir, nil
}

// chunkLocked is the entry stored under key.
func (s *Store) chunkLocked(key protocol.ChunkKey) (*entry, bool) {
	return s.mu.chunks.Get(key.Graph, key.Node)
}
