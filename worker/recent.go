package worker

// recent is a map that keeps the last n keys added.
type recent[K comparable, V any] struct {
	set  map[K]V
	ring []K
	next int
}

func newRecent[K comparable, V any](n int) recent[K, V] {
	return recent[K, V]{set: make(map[K]V), ring: make([]K, 0, n)}
}

func (r *recent[K, V]) get(k K) (V, bool) {
	v, ok := r.set[k]
	return v, ok
}

// add sets k's value; a key already there keeps its place.
func (r *recent[K, V]) add(k K, v V) {
	if _, ok := r.set[k]; ok {
		r.set[k] = v
		return
	}
	if len(r.ring) < cap(r.ring) {
		r.ring = append(r.ring, k)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = k
		r.next = (r.next + 1) % len(r.ring)
	}
	r.set[k] = v
}
