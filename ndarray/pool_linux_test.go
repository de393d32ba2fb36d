package ndarray

import "testing"

// interiorZero reports whether every whole page inside a's buffer reads
// zero: its pages went back to the kernel (adviseFree).
func interiorZero(a *Array) bool {
	const page = 4 << 10
	off := int((page - bufAddr(a)%page) % page)
	end := (len(a.buf) - off) / page * page
	for _, v := range a.buf[off : off+end] {
		if v != 0 {
			return false
		}
	}
	return true
}

// TestPoolDropGivesPagesBack checks that a buffer the pool drops, over its
// limit, unused for two collections or trimmed, has its pages given back
// at once (they read zero after, where they held data), and that kept
// buffers keep their bytes.
func TestPoolDropGivesPagesBack(t *testing.T) {
	const n = 4 << 20
	p := newBufferPool(n)
	fill := func(a *Array) *Array {
		for i := range a.buf {
			a.buf[i] = 0xAB
		}
		return a
	}
	since := p.epoch()
	a, b := fill(poolArray(p, n)), fill(poolArray(p, n))
	for _, x := range []*Array{a, b} {
		if !p.claim(x, since) || !p.release(x) {
			t.Fatal("claim or release failed")
		}
	}
	if p.stats().Dropped != 1 {
		t.Fatalf("stats %+v: want the second buffer dropped over the limit", p.stats())
	}
	if !interiorZero(b) {
		t.Error("a buffer dropped over the limit kept its pages")
	}
	if interiorZero(a) || a.buf[n/2] != 0xAB {
		t.Fatal("a kept buffer lost its bytes")
	}
	p.collected()
	p.collected()
	if p.stats().Dropped != 2 || !interiorZero(a) {
		t.Errorf("stats %+v: a buffer unused for two collections was not given back", p.stats())
	}
	since = p.epoch()
	c := fill(poolArray(p, n))
	if !p.claim(c, since) || !p.release(c) {
		t.Fatal("claim or release failed")
	}
	p.trim(0)
	if p.stats().Dropped != 3 || !interiorZero(c) {
		t.Errorf("stats %+v: a trimmed buffer was not given back", p.stats())
	}
}
