package scheduler

// slabSize is how many elements a fresh block of a slab holds.
const slabSize = 1024

// slab collects a step's elements of one kind (a worker's tasks, its
// releases) in a block shared with the steps before and after it, and cuts
// them out at the end of the step, instead of cloning a kept buffer or
// growing a fresh slice every step. A block is never written again once a
// cut was made from it: the receiver (a worker queueing tasks) may keep a
// cut for as long as it likes. Each cut is capped, so an append to it never
// writes over the next one.
type slab[T any] struct {
	buf   []T
	start int // where the elements since the last cut begin
}

// add appends v to the elements since the last cut.
func (s *slab[T]) add(v T) {
	if len(s.buf) == cap(s.buf) {
		s.grow()
	}
	s.buf = append(s.buf, v)
}

// next appends a zero element and returns it, to fill in place.
func (s *slab[T]) next() *T {
	if len(s.buf) == cap(s.buf) {
		s.grow()
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// grow moves the elements since the last cut to a fresh block with room
// for at least as many again.
func (s *slab[T]) grow() {
	n := len(s.buf) - s.start
	nb := make([]T, n, max(slabSize, 2*n))
	copy(nb, s.buf[s.start:])
	s.buf, s.start = nb, 0
}

// len is the number of elements since the last cut.
func (s *slab[T]) len() int { return len(s.buf) - s.start }

// cut hands over the elements since the last cut (nil if none).
func (s *slab[T]) cut() []T {
	if len(s.buf) == s.start {
		return nil
	}
	out := s.buf[s.start:len(s.buf):len(s.buf)]
	s.start = len(s.buf)
	if s.start == cap(s.buf) {
		s.buf, s.start = nil, 0 // full: the next add starts a fresh block
	}
	return out
}

// drop forgets the elements since the last cut.
func (s *slab[T]) drop() {
	clear(s.buf[s.start:])
	s.buf = s.buf[:s.start]
}
