// Package prioq is a priority queue for items that mostly arrive in order.
//
// The scheduler hands out ready ops most urgent first, so its queues and
// the workers' receive long runs already sorted (a graph's sources, in the
// order of its depth-first numbering), broken now and then by a more urgent
// op (a consumer a result made ready). A binary heap pays O(log n) cache
// misses per pop for all of them; here an item no more urgent than the
// last of the sorted run is appended to the run (O(1) both ways) and only
// the others go to a heap. Pop takes the more urgent of the two heads, so
// the order is that of a heap (FIFO among equals in the run).
package prioq

// Queue holds items ordered by less (less(a, b): a comes first). The zero
// Queue is not usable: make one with New.
type Queue[T any] struct {
	less func(a, b T) bool
	run  []T // run[head:] is sorted
	head int
	heap []T // binary min-heap by less
}

// New returns an empty queue ordered by less.
func New[T any](less func(a, b T) bool) *Queue[T] {
	return &Queue[T]{less: less}
}

// Len is the number of items queued.
func (q *Queue[T]) Len() int { return len(q.run) - q.head + len(q.heap) }

// Push adds x.
func (q *Queue[T]) Push(x T) {
	if n := len(q.run); n == q.head || !q.less(x, q.run[n-1]) {
		if q.head > 0 && q.head >= len(q.run)/2 {
			// Reuse the popped front instead of growing.
			k := copy(q.run, q.run[q.head:])
			clear(q.run[k:])
			q.run, q.head = q.run[:k], 0
		}
		q.run = append(q.run, x)
		return
	}
	q.heap = append(q.heap, x)
	q.up(len(q.heap) - 1)
}

// fromRun reports whether the most urgent item is the run's head.
func (q *Queue[T]) fromRun() bool {
	if q.head == len(q.run) {
		return false
	}
	return len(q.heap) == 0 || !q.less(q.heap[0], q.run[q.head])
}

// Peek returns the most urgent item; ok is false when the queue is empty.
func (q *Queue[T]) Peek() (x T, ok bool) {
	switch {
	case q.fromRun():
		return q.run[q.head], true
	case len(q.heap) > 0:
		return q.heap[0], true
	}
	return x, false
}

// Pop removes and returns the most urgent item; ok is false when the queue
// is empty.
func (q *Queue[T]) Pop() (x T, ok bool) {
	var zero T
	switch {
	case q.fromRun():
		x = q.run[q.head]
		q.run[q.head] = zero // let go of what it points to
		q.head++
		if q.head == len(q.run) {
			q.run, q.head = q.run[:0], 0
		}
		return x, true
	case len(q.heap) > 0:
		x = q.heap[0]
		n := len(q.heap) - 1
		q.heap[0] = q.heap[n]
		q.heap[n] = zero
		q.heap = q.heap[:n]
		if n > 0 {
			q.down(0)
		}
		return x, true
	}
	return zero, false
}

func (q *Queue[T]) up(j int) {
	h := q.heap
	for j > 0 {
		i := (j - 1) / 2
		if !q.less(h[j], h[i]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (q *Queue[T]) down(i int) {
	h := q.heap
	n := len(h)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if r := j + 1; r < n && q.less(h[r], h[j]) {
			j = r
		}
		if !q.less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
