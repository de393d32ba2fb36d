package storage

import "math/bits"

// bufIndex finds the record of a buffer in memory by the buffer's id (the
// address of its first byte): every chunk stored looks its buffer up, to
// count a buffer shared by several views once, and adds it when new; every
// buffer leaving memory is removed. An open-addressed table with linear
// probing and the ids inline, so a lookup is a multiply and, mostly, one
// cache line; deletion shifts the entries after it back (no tombstones),
// and the table shrinks when mostly empty, so iterating it (eviction
// planning) costs about what it holds.
type bufIndex struct {
	slots []bufSlot // len a power of two, or 0
	shift uint      // 64 - log2(len(slots))
	n     int
	// spares are the tables shrinks left, by log2 of their size, for the
	// next growth to that size: a store that fills and empties again and
	// again (tiny chunks in bursts) does not make new tables each time.
	// They add up to less than twice the largest table.
	spares [bits.UintSize][]bufSlot
}

type bufSlot struct {
	id uintptr // 0: empty (a buffer with id 0 is never indexed)
	b  *bufRef
}

const minBufIndex = 64

func (x *bufIndex) home(id uintptr) int {
	return int((uint64(id) * 0x9E3779B97F4A7C15) >> x.shift)
}

// get returns the record of buffer id, nil if none.
func (x *bufIndex) get(id uintptr) *bufRef {
	if x.n == 0 {
		return nil
	}
	mask := len(x.slots) - 1
	for i := x.home(id); ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.id == id {
			return s.b
		}
		if s.id == 0 {
			return nil
		}
	}
}

// put indexes b under b.id, which must not be indexed yet.
func (x *bufIndex) put(b *bufRef) {
	if (x.n+1)*2 > len(x.slots) {
		x.resize(max(minBufIndex, len(x.slots)*2))
	}
	x.insert(b)
	x.n++
}

func (x *bufIndex) insert(b *bufRef) {
	mask := len(x.slots) - 1
	i := x.home(b.id)
	for x.slots[i].id != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = bufSlot{id: b.id, b: b}
}

// del removes buffer id from the index, if there.
func (x *bufIndex) del(id uintptr) {
	if x.n == 0 {
		return
	}
	mask := len(x.slots) - 1
	i := x.home(id)
	for x.slots[i].id != id {
		if x.slots[i].id == 0 {
			return
		}
		i = (i + 1) & mask
	}
	// Shift back the entries of the probe run after i that may move to i.
	for j := (i + 1) & mask; x.slots[j].id != 0; j = (j + 1) & mask {
		h := x.home(x.slots[j].id)
		// The entry stays if its home is cyclically in (i, j].
		if (i < j && i < h && h <= j) || (i > j && (h > i || h <= j)) {
			continue
		}
		x.slots[i] = x.slots[j]
		i = j
	}
	x.slots[i] = bufSlot{}
	x.n--
	if len(x.slots) > minBufIndex && x.n*8 < len(x.slots) {
		x.resize(len(x.slots) / 2)
	}
}

func (x *bufIndex) resize(size int) {
	old := x.slots
	if sp := &x.spares[bits.TrailingZeros(uint(size))]; len(*sp) == size {
		x.slots, *sp = *sp, nil
	} else {
		x.slots = make([]bufSlot, size)
	}
	x.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for _, s := range old {
		if s.id != 0 {
			x.insert(s.b)
		}
	}
	if len(old) > size {
		clear(old) // no records kept alive
		x.spares[bits.TrailingZeros(uint(len(old)))] = old
	}
}

// all yields every indexed buffer, in no set order (for b := range
// x.all); the loop must not change the index.
func (x *bufIndex) all(yield func(b *bufRef) bool) {
	for _, s := range x.slots {
		if s.id != 0 && !yield(s.b) {
			return
		}
	}
}

// len is the number of buffers indexed.
func (x *bufIndex) len() int { return x.n }
