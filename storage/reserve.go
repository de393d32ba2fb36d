package storage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// Request is what an op asks of the store before it runs (Mars's batch of
// memory requests to the QuotaActor).
type Request struct {
	Op string // the op's name, for errors
	// Inputs are the op's inputs held by this store. They are pinned while
	// the op runs; those not in memory count towards the reservation.
	Inputs []InputRequest
	// Remote is the bytes of inputs read from other workers.
	Remote int64
	// Output and Temp are the estimated bytes of the output and of the
	// kernel's temporaries.
	Output, Temp int64
	// Priority is the op's: it may evict only chunks that no queued op more
	// urgent than itself is waiting for.
	Priority protocol.Priority
	// Headroom is memory that must stay free after the op is admitted (it
	// is not reserved). Source ops ask for it, so that they do not take the
	// last free memory from the consumers of chunks already made.
	Headroom int64
	// NoWait: when nothing runs, do not wait for what the scheduler may be
	// about to send (releases, consumers of fresh chunks) and ignore
	// Headroom; evict whatever may be evicted, or fail.
	NoWait bool
	// Reuse, if set, is a closed reservation of this store that its
	// holder is done with: a granted reservation is built in it instead
	// of a new one (one allocation fewer per op).
	Reuse *Reservation
	// Spare asks for a tiny array of a deleted chunk (Reservation.Spare)
	// for the op to write its output into.
	Spare bool
}

// InputRequest is one input of a Request.
type InputRequest struct {
	Key    protocol.ChunkKey
	Nbytes int64 // the size the scheduler knows, used if the store lacks the chunk
}

// Reservation is memory granted to one op, and the pins on its inputs. Its
// bytes move into the store as inputs are loaded into it and as the output
// is put; Close releases the rest.
type Reservation struct {
	s     *Store
	op    string
	bytes int64 // reserved and not yet moved into the store
	// transient is the part that comes back when the op ends (temporaries,
	// inputs read from elsewhere), as opposed to its output.
	transient int64
	need      int64    // granted at first
	pins      []*entry // pinned inputs
	spill     []*entry // victims this op must write out before it starts
	closed    bool
	pinRoom   [4]*entry // pins' room, so that an op of few inputs allocates once
	// spare is a tiny array of a deleted chunk, the store's alone, given
	// to the op for its output (Request.Spare); it goes back to the store
	// unless the op's output is it.
	spare *ndarray.Array
}

// Bytes is what was reserved.
func (r *Reservation) Bytes() int64 { return r.need }

// Reserve admits an op against the limit. It returns a reservation when the
// op fits, after choosing victims to evict if need be (drops happen at once;
// spills are written by Evict, outside the store's lock). It returns nil,
// nil when the op does not fit now but may later (running ops will free
// memory, or chunks all of whose consumers have finished are about to be
// released), a *TooLargeError when its estimate exceeds the whole limit, and
// when nothing can change: a *SpillError if it could only fit by spilling
// and spilling is impossible, else a *NoRoomError.
func (s *Store) Reserve(req Request) (*Reservation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reserveLocked(req)
}

// ReserveFirst tries the requests in order, as one step, and returns the
// index of the first that Reserve would grant or fail (with its result), or
// -1 if all must wait. A queue scans its most urgent ops with it, so a less
// urgent op is never admitted while memory freed in the meantime would have
// let a more urgent one in.
func (s *Store) ReserveFirst(reqs []Request) (int, *Reservation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, req := range reqs {
		r, err := s.reserveLocked(req)
		if r != nil || err != nil {
			return i, r, err
		}
	}
	return -1, nil, nil
}

func (s *Store) reserveLocked(req Request) (*Reservation, error) {
	if s.mu.closed {
		return nil, fmt.Errorf("storage: store closed")
	}
	var insRoom [4]*entry
	ins := insRoom[:0]
	var inAll, inMissing int64
	// An input read twice counts once. Most ops read a few: a scan of the
	// ones before is cheaper than a map, made for each op.
	var seen map[protocol.ChunkKey]bool
	if len(req.Inputs) > 16 {
		seen = make(map[protocol.ChunkKey]bool, len(req.Inputs))
	}
	for i, in := range req.Inputs {
		if seen != nil {
			if seen[in.Key] {
				continue
			}
			seen[in.Key] = true
		} else if slices.ContainsFunc(req.Inputs[:i], func(x InputRequest) bool { return x.Key == in.Key }) {
			continue
		}
		n := in.Nbytes
		e, _ := s.chunkLocked(in.Key)
		if e != nil {
			n = e.nbytes
			ins = append(ins, e)
		}
		inAll += n
		if e == nil || !usable(e) {
			inMissing += n
		}
	}
	limit := s.cfg.Limit
	total := inAll + req.Remote + req.Output + req.Temp
	if limit > 0 && total > limit {
		return nil, &TooLargeError{
			Op: req.Op, Estimate: total, Limit: limit,
			Detail: fmt.Sprintf("inputs %s + output %s + temporaries %s",
				FormatBytes(inAll+req.Remote), FormatBytes(req.Output), FormatBytes(req.Temp)),
		}
	}
	need := inMissing + req.Remote + req.Output + req.Temp
	var evict []*bufRef
	if limit > 0 {
		avail := limit - s.mu.resident - s.mu.reserved - s.externalLocked() + s.mu.evicting
		headroom := req.Headroom
		if req.NoWait {
			headroom = 0
		}
		if short := need + headroom - avail; short > 0 {
			victims, blocked, soft, ok := s.planLocked(short, req.Priority, ins, true)
			if !ok {
				// Running ops will free memory; and when nothing runs, the
				// scheduler is probably about to release finished chunks or
				// to queue the consumers of fresh ones.
				if s.mu.reserved > 0 || s.mu.pinned > 0 || (!req.NoWait && soft > 0) {
					return nil, nil
				}
				// Nothing to wait for: without headroom, evict what may be.
				// Chunks still unreleased now are results the scheduler keeps.
				s.markKeptLocked()
				victims, blocked, ok = nil, 0, true
				if short = need - avail; short > 0 {
					victims, blocked, _, ok = s.planLocked(short, req.Priority, ins, false)
				}
			}
			if !ok {
				if blocked > 0 && s.mu.spillErr != nil {
					return nil, s.mu.spillErr
				}
				return nil, &NoRoomError{Op: req.Op, Need: need, InUse: s.mu.resident, Limit: limit}
			}
			evict = victims
		}
	}
	var r *Reservation
	if old := req.Reuse; old != nil && old.s == s && old.closed {
		r = old
		*r = Reservation{s: s, op: req.Op, need: need, bytes: need}
	} else {
		r = &Reservation{s: s, op: req.Op, need: need, bytes: need}
	}
	if len(evict) > 0 {
		s.evictLocked(evict, r)
	}
	s.mu.reserved += need
	if limit > 0 && s.poolMayExceedLocked(limit) {
		// The buffer pool's free buffers are resident memory the budget
		// does not count: drop what would take the process over it.
		st := ndarray.BufferPoolStats()
		s.mu.poolLimit = st.Limit
		if free := st.FreeBytes; free > 0 {
			if over := s.mu.resident - s.mu.evicting + s.mu.reserved + s.externalLocked() + free - limit; over > 0 {
				ndarray.TrimBufferPool(free - over)
			}
		}
	}
	r.transient = need - req.Output
	s.mu.transient += r.transient
	if req.Spare {
		r.spare = s.takeSpareLocked()
	}
	s.notePeakLocked() // evicting bytes count as gone
	for _, e := range ins {
		if e.pins == 0 {
			s.mu.pinned++
		}
		e.pins++
	}
	r.pins = append(r.pinRoom[:0:len(r.pinRoom)], ins...)
	return r, nil
}

// NoRoomError is an op that does not fit while nothing runs that could free
// memory: the rest is held by chunks that more urgent queued ops will read.
type NoRoomError struct {
	Op          string
	Need, InUse int64
	Limit       int64
}

func (e *NoRoomError) Error() string {
	return fmt.Sprintf("op %s needs %s but %s of the %s limit is held by chunks that cannot be evicted",
		e.Op, FormatBytes(e.Need), FormatBytes(e.InUse), FormatBytes(e.Limit))
}

// usable reports whether e is in memory and staying there.
func usable(e *entry) bool {
	return e.arr != nil && (e.buf == nil || !e.buf.evicting)
}

// action is how a chunk leaves memory.
type action uint8

const (
	actClean action = iota // a spill copy exists: just forget the memory
	actDrop                // regenerate on the next read
	actSpill               // write a spill file first
)

func (s *Store) actionLocked(e *entry) action {
	if e.file != "" {
		return actClean
	}
	if e.regen != nil && s.recomputeCost(e) <= s.spillCost(e) {
		return actDrop
	}
	return actSpill
}

// spillCost is the seconds to write e and read it back.
func (s *Store) spillCost(e *entry) float64 {
	b := float64(e.nbytes)
	return b/s.costs.DiskWriteBytesPerSec + b/s.costs.DiskReadBytesPerSec
}

// recomputeCost is the seconds to regenerate e: its elements times the cost
// per element of each node of its generator; for a chunk read from a file,
// its bytes at the speed re-reads have reached (the configured estimate
// until one is measured).
func (s *Store) recomputeCost(e *entry) float64 {
	if rr, ok := e.regen.(ops.Rereadable); ok {
		rate := s.costs.FileReadBytesPerSec
		if r := s.mu.reread; r.bytes > 0 && r.time > 0 {
			rate = float64(r.bytes) / r.time.Seconds()
		}
		return float64(rr.ReadBytes()) / rate
	}
	nodes := 1
	if f, ok := e.regen.(ops.Fused); ok {
		nodes = max(len(f.Nodes), 1)
	}
	elems := float64(ndarray.Size(e.shape))
	return elems * float64(nodes) * s.costs.GenerateNsPerElement * 1e-9
}

// releasingLocked reports whether e is about to be released: all its
// consumers have just finished and its graph is not known to keep such
// chunks.
func (s *Store) releasingLocked(e *entry) bool {
	return e.consumers == 0 && s.mu.clock-e.doneAt < releaseWindow && !s.mu.keeps[e.key.Graph]
}

// markKeptLocked records that the graphs of chunks still waiting for their
// release keep them: the scheduler did not free them while an op waited.
func (s *Store) markKeptLocked() {
	if len(s.mu.keeps) > 1024 {
		clear(s.mu.keeps) // old graphs; forgetting costs at most a wait
	}
	for b := range s.mu.buffers.all {
		for _, e := range b.chunks {
			if s.releasingLocked(e) {
				s.mu.keeps[e.key.Graph] = true
			}
		}
	}
}

// releaseWindow is how many store events (puts, reads) after its last
// consumer finished a chunk is still expected to be released; one that
// stays longer is a result the scheduler keeps.
const releaseWindow = 256

// victim is a buffer that may be evicted.
type victim struct {
	b       *bufRef
	hasNext bool
	next    protocol.Priority // most urgent next use among its chunks
	class   action            // the dearest way one of its chunks leaves
	used    uint64
}

// planLocked picks buffers to evict to free at least short bytes, in order:
// buffers no queued op reads (cheapest to evict first, then least recently
// used), then those read last (Belady: the furthest next use). Pinned
// buffers, the op's own inputs, buffers being written and buffers a more
// urgent queued op will read are never chosen; neither are buffers that
// would need a spill when spilling is impossible (their bytes are returned
// as blocked). With soft set, fresh chunks (not read yet) count as read at
// their estimated first use, and those more urgent than the op are kept too,
// as are chunks all of whose consumers have just finished (the scheduler is
// about to release them), and chunks that will be read again when running
// ops are about to give back enough memory; their bytes are returned as
// softBlocked.
// Source ops then wait instead of evicting the outputs of other sources
// before they are consumed, and no op spills a chunk about to be freed or
// evicts one it could have waited a moment to keep.
func (s *Store) planLocked(short int64, p protocol.Priority, inputs []*entry, soft bool) (out []*bufRef, blocked, softBlocked int64, ok bool) {
	own := make(map[*bufRef]bool, len(inputs))
	for _, e := range inputs {
		if e.buf != nil {
			own[e.buf] = true
		}
	}
	var cands []victim
	var avail, cold int64
	for b := range s.mu.buffers.all {
		if b.evicting || own[b] {
			continue
		}
		v := victim{b: b, class: actClean}
		fit, softKept := true, false
		for _, e := range b.chunks {
			if e.pins > 0 || e.writing || (e.hasNext && e.next.Less(p)) {
				fit = false
				break
			}
			next, has := e.next, e.hasNext
			if !has && e.fresh {
				next, has = e.firstUse, true
				if soft && next.Less(p) {
					softKept = true
				}
			}
			if soft && s.releasingLocked(e) {
				softKept = true // the scheduler is about to release it: better wait than spill it
			}
			if has && (!v.hasNext || next.Less(v.next)) {
				v.next, v.hasNext = next, true
			}
			v.class = max(v.class, s.actionLocked(e))
			v.used = max(v.used, e.used)
		}
		if !fit {
			continue
		}
		if softKept {
			softBlocked += b.bytes
			continue
		}
		if v.class == actSpill && s.mu.spillErr != nil {
			blocked += b.bytes
			continue
		}
		cands = append(cands, v)
		avail += b.bytes
		if !v.hasNext {
			cold += b.bytes
		}
	}
	if soft && cold < short && short <= s.mu.transient {
		// Only chunks that will be read again could make room, and running
		// ops will soon give back enough: wait for them instead.
		return nil, blocked, softBlocked + avail - cold, false
	}
	if avail < short {
		return nil, blocked, softBlocked, false
	}
	slices.SortFunc(cands, func(a, b victim) int {
		if a.hasNext != b.hasNext {
			if !a.hasNext {
				return -1
			}
			return 1
		}
		if a.hasNext {
			if b.next.Less(a.next) { // a is read later: evict it first
				return -1
			}
			if a.next.Less(b.next) {
				return 1
			}
		}
		if c := cmp.Compare(a.class, b.class); c != 0 {
			return c
		}
		return cmp.Compare(a.used, b.used)
	})
	var freed int64
	for _, v := range cands {
		if freed >= short {
			break
		}
		out = append(out, v.b)
		freed += v.b.bytes
	}
	return out, 0, 0, true
}

// evictLocked evicts the victims: chunks with a spill copy or cheap to
// regenerate leave memory now; the others are marked for r to write out.
// Until then their bytes count as evicting, which admission treats as free.
func (s *Store) evictLocked(victims []*bufRef, r *Reservation) {
	for _, b := range victims {
		b.evicting = true
		s.mu.evicting += b.bytes
		for _, e := range slices.Clone(b.chunks) {
			switch s.actionLocked(e) {
			case actClean:
				s.detachLocked(e)
			case actDrop:
				s.mu.st.DroppedBytes += e.nbytes
				s.mu.st.DroppedCount++
				s.detachLocked(e)
			case actSpill:
				e.writing = true
				r.spill = append(r.spill, e)
			}
		}
	}
}

// Evict writes out the chunks chosen to make room for this op. Call it
// before the op loads its inputs. If a write fails (a full disk), the chunk
// stays in memory, the op should fail with the error, and Close undoes the
// rest.
func (r *Reservation) Evict(ctx context.Context) error {
	s := r.s
	todo := r.spill
	r.spill = nil
	for i, e := range todo {
		if err := ctx.Err(); err != nil {
			r.spill = todo[i:]
			return err
		}
		s.mu.Lock()
		if e.deleted || e.arr == nil {
			e.writing = false
			s.mu.Unlock()
			continue
		}
		dir, err := s.spillDirLocked()
		a := e.arr
		s.mu.Unlock()
		var path string
		t0 := time.Now()
		if err == nil {
			path, err = writeSpill(dir, e.key, a, s.cfg.Knobs.SpillWriter)
			if err != nil {
				err = &SpillError{Dir: dir, Err: err}
			}
		}
		s.mu.Lock()
		e.writing = false
		switch {
		case err != nil:
			s.mu.st.SpillErrors++
			s.unmarkLocked(e)
		case e.deleted:
			defer removeFiles(path)
		default:
			e.file = path
			s.mu.st.DiskBytes += e.nbytes
			s.mu.st.SpilledBytes += e.nbytes
			s.mu.st.SpillCount++
			s.mu.st.SpillTime += time.Since(t0)
			s.detachLocked(e)
		}
		s.mu.Unlock()
		if err != nil {
			r.spill = todo[i+1:]
			return err
		}
	}
	return nil
}

// unmarkLocked keeps e's buffer in memory after all.
func (s *Store) unmarkLocked(e *entry) {
	if b := e.buf; b != nil && b.evicting {
		b.evicting = false
		s.mu.evicting -= b.bytes
	}
}

// Acquire returns one of the op's inputs from this store, loading it if it
// is not in memory: into the store when other consumers will read it again,
// or straight into the op's private memory (the reservation's bytes) when
// this op is its last consumer. A dropped chunk, or one whose spill file has
// vanished, is regenerated if it can be; otherwise the error is a LostError.
func (r *Reservation) Acquire(ctx context.Context, key protocol.ChunkKey) (*ndarray.Array, error) {
	s := r.s
	for {
		s.mu.Lock()
		e, ok := s.chunkLocked(key)
		if !ok {
			s.mu.Unlock()
			return nil, &ErrNotFound{Key: key}
		}
		if e.arr != nil {
			// In memory; if it is being evicted, the reservation counted it as
			// absent, so the op may use it as its own.
			s.mu.clock++
			e.used = s.mu.clock
			a := e.arr
			if e.buf != nil && !slices.Contains(r.pins, e) {
				// Not pinned for this op (stored, or stored again, after it
				// was admitted): a release would not see the op reading it.
				e.buf.shared = true
			}
			s.mu.Unlock()
			return a, nil
		}
		if e.lost != nil {
			s.mu.Unlock()
			return nil, e.lost
		}
		private := e.consumers == 1
		if !private {
			if ch := e.loading; ch != nil {
				s.mu.Unlock()
				select {
				case <-ch:
					continue
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			e.loading = make(chan struct{})
		}
		e.loaders++
		s.mu.Unlock()
		a, _, err := s.load(ctx, e)
		s.mu.Lock()
		e.loaders--
		if !private {
			close(e.loading)
			e.loading = nil
		}
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if private || e.deleted || e.arr != nil {
			s.mu.st.PrivateLoads++
			s.mu.Unlock()
			return a, nil
		}
		r.take(s.attachLocked(e, a, false))
		s.notePeakLocked()
		s.mu.Unlock()
		return a, nil
	}
}

// take moves up to n bytes of the reservation into the store's count.
func (r *Reservation) take(n int64) {
	t := min(n, r.bytes)
	r.bytes -= t
	r.s.mu.reserved -= t
}

// Put stores the op's output, moving its bytes from the reservation into
// the store.
func (r *Reservation) Put(key protocol.ChunkKey, a *ndarray.Array, opts PutOptions) {
	s := r.s
	prep := preparePut(a, opts)
	s.mu.Lock()
	if r.spare == a {
		r.spare = nil // stored: the entry has it now
	}
	e := s.newEntryLocked(key, a, opts, prep)
	added, old := s.putLocked(e, a, opts.Owned)
	s.noteTinyLocked(e, opts, added)
	r.take(added)
	s.notePeakLocked()
	s.mu.Unlock()
	removeFiles(old)
}

// Spare is a tiny array of a deleted chunk for the op's output, nil if the
// request asked for none or the store had none: the caller may make it a
// tiny array of the output's dtype and shape (ndarray.ResetTiny) and have
// the kernel write into it. Storing it as the output (Finish with
// PutOptions.Tiny) keeps it in the store; otherwise the reservation's
// end gives it back to the store, and the caller must not keep it.
func (r *Reservation) Spare() *ndarray.Array { return r.spare }

// Finish ends an op that succeeded, under one hold of the store's lock:
// it stores the op's output as Put does, records that the op has finished
// with each chunk in consumed (Store.Consumed), and closes the reservation.
func (r *Reservation) Finish(key protocol.ChunkKey, a *ndarray.Array, opts PutOptions, consumed []protocol.ChunkKey) {
	s := r.s
	prep := preparePut(a, opts)
	s.mu.Lock()
	if r.spare == a {
		r.spare = nil // stored: the entry has it now
	}
	e := s.newEntryLocked(key, a, opts, prep)
	added, old := s.putLocked(e, a, opts.Owned)
	s.noteTinyLocked(e, opts, added)
	r.take(added)
	s.notePeakLocked()
	for _, k := range consumed {
		s.consumedLocked(k)
	}
	r.closeLocked()
	s.mu.Unlock()
	removeFiles(old)
}

// Close unpins the op's inputs and releases what it still holds reserved.
func (r *Reservation) Close() {
	if r == nil {
		return
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.closeLocked()
}

func (r *Reservation) closeLocked() {
	s := r.s
	if r.closed {
		return
	}
	r.closed = true
	for _, e := range r.pins {
		e.pins--
		if e.pins == 0 {
			s.mu.pinned--
		}
	}
	// A closed reservation no longer refers to its inputs: their records
	// may be reused once deleted.
	clear(r.pins)
	r.pins = nil
	for _, e := range r.spill {
		e.writing = false
		s.unmarkLocked(e)
	}
	r.spill = nil
	if r.spare != nil {
		s.keepSpareLocked(r.spare)
		r.spare = nil
	}
	s.mu.reserved -= r.bytes
	r.bytes = 0
	s.mu.transient -= r.transient
}
