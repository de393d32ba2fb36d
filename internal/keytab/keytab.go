// Package keytab is a table keyed by (graph, op number), for the records a
// worker and its store keep per chunk.
//
// A graph's ops are numbered densely from 0, and a worker holds records of
// a window of them at a time (queued, running, stored): neighbouring
// numbers, mostly touched in order. A map keyed by the pair hashes its
// twelve bytes on every access; here the numbers are grouped in pages of
// pageSize, each page an array indexed by the number's low bits, and a
// small direct-mapped cache of recently used pages answers most lookups
// with one comparison. Pages are found through a map only on a cache miss,
// and a page is given back when its last record leaves, so the table holds
// memory for the window, not for the graph.
package keytab

import "math/bits"

const (
	pageBits  = 8
	pageSize  = 1 << pageBits
	cacheBits = 4
	// maxFree bounds the emptied pages kept for reuse.
	maxFree = 32
)

// pageKey names one page: a graph and the op numbers that share their
// high bits.
type pageKey[G comparable] struct {
	graph G
	hi    int32
}

type page[V any] struct {
	vals [pageSize]V
	has  [pageSize / 64]uint64
	n    int
}

type cached[G comparable, V any] struct {
	key pageKey[G]
	p   *page[V]
}

// Table maps (graph, op number) to V. Op numbers are meant to be
// non-negative; negative ones are kept apart, in a plain map. The zero
// Table is empty and ready to use. A Table is not safe for concurrent use.
type Table[G comparable, V any] struct {
	pages map[pageKey[G]]*page[V]
	cache [1 << cacheBits]cached[G, V]
	free  []*page[V]
	// neg holds the rare negative op numbers, by the whole key.
	neg map[pageKey[G]]V
	n   int
}

// Len is the number of keys held.
func (t *Table[G, V]) Len() int { return t.n }

func split(node int32) (hi int32, lo int) {
	return node >> pageBits, int(node & (pageSize - 1))
}

func (t *Table[G, V]) slot(hi int32) *cached[G, V] {
	return &t.cache[int(uint32(hi))&(1<<cacheBits-1)]
}

// find returns the page holding graph's numbers with high bits hi, or nil.
func (t *Table[G, V]) find(graph G, hi int32) *page[V] {
	k := pageKey[G]{graph, hi}
	c := t.slot(hi)
	if c.p != nil && c.key == k {
		return c.p
	}
	p := t.pages[k]
	if p != nil {
		c.key, c.p = k, p
	}
	return p
}

// Get returns the value under (graph, node) and whether there is one.
func (t *Table[G, V]) Get(graph G, node int32) (V, bool) {
	if node >= 0 {
		hi, lo := split(node)
		if p := t.find(graph, hi); p != nil && p.has[lo>>6]&(1<<(lo&63)) != 0 {
			return p.vals[lo], true
		}
		var zero V
		return zero, false
	}
	v, ok := t.neg[pageKey[G]{graph, node}]
	return v, ok
}

// Set stores v under (graph, node).
func (t *Table[G, V]) Set(graph G, node int32, v V) { t.Swap(graph, node, v) }

// Swap stores v under (graph, node) and returns the value it replaced and
// whether there was one: a Get and a Set in one lookup.
func (t *Table[G, V]) Swap(graph G, node int32, v V) (old V, had bool) {
	if node < 0 {
		if t.neg == nil {
			t.neg = make(map[pageKey[G]]V)
		}
		k := pageKey[G]{graph, node}
		if old, had = t.neg[k]; !had {
			t.n++
		}
		t.neg[k] = v
		return old, had
	}
	hi, lo := split(node)
	p := t.find(graph, hi)
	if p == nil {
		if n := len(t.free); n > 0 {
			p = t.free[n-1]
			t.free = t.free[:n-1]
		} else {
			p = new(page[V])
		}
		k := pageKey[G]{graph, hi}
		if t.pages == nil {
			t.pages = make(map[pageKey[G]]*page[V])
		}
		t.pages[k] = p
		c := t.slot(hi)
		c.key, c.p = k, p
	}
	bit := uint64(1) << (lo & 63)
	if p.has[lo>>6]&bit == 0 {
		p.has[lo>>6] |= bit
		p.n++
		t.n++
	} else {
		old, had = p.vals[lo], true
	}
	p.vals[lo] = v
	return old, had
}

// Delete removes (graph, node) and reports whether it was there.
func (t *Table[G, V]) Delete(graph G, node int32) bool {
	_, had := t.Take(graph, node)
	return had
}

// Take removes (graph, node) and returns its value and whether there was
// one: a Get and a Delete in one lookup.
func (t *Table[G, V]) Take(graph G, node int32) (v V, had bool) {
	if node < 0 {
		k := pageKey[G]{graph, node}
		if v, had = t.neg[k]; !had {
			return v, false
		}
		delete(t.neg, k)
		t.n--
		return v, true
	}
	hi, lo := split(node)
	p := t.find(graph, hi)
	if p == nil {
		return v, false
	}
	bit := uint64(1) << (lo & 63)
	if p.has[lo>>6]&bit == 0 {
		return v, false
	}
	p.has[lo>>6] &^= bit
	v = p.vals[lo]
	var zero V
	p.vals[lo] = zero
	p.n--
	t.n--
	if p.n == 0 {
		k := pageKey[G]{graph, hi}
		delete(t.pages, k)
		if c := t.slot(hi); c.p == p {
			*c = cached[G, V]{}
		}
		if len(t.free) < maxFree {
			t.free = append(t.free, p)
		}
	}
	return v, true
}

// All calls f for every key and value until f returns false, in no set
// order. f must not change the table.
func (t *Table[G, V]) All(f func(graph G, node int32, v V) bool) {
	for k, v := range t.neg {
		if !f(k.graph, k.hi, v) {
			return
		}
	}
	for k, p := range t.pages {
		base := k.hi << pageBits
		for w, word := range p.has {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &^= 1 << b
				lo := w<<6 | b
				if !f(k.graph, base|int32(lo), p.vals[lo]) {
					return
				}
			}
		}
	}
}
