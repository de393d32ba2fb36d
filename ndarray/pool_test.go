package ndarray

import (
	"math"
	"testing"
	"unsafe"
)

// poolArray is an array over a buffer of p, as newArray makes one.
func poolArray(p *bufferPool, n int) *Array {
	return &Array{dtype: Uint8, shape: []int{n}, strides: []int{1}, buf: p.get(n)}
}

func bufAddr(a *Array) uintptr { return uintptr(unsafe.Pointer(&a.buf[0])) }

func TestPoolReusesAReleasedBufferZeroed(t *testing.T) {
	p := newBufferPool(1 << 30)
	const n = 3 << 20
	since := p.epoch()
	a := poolArray(p, n)
	for i := range a.buf {
		a.buf[i] = 0xAB
	}
	if !p.claim(a, since) {
		t.Fatal("a buffer lent after the epoch was not claimed")
	}
	if !p.release(a) {
		t.Fatal("a claimed buffer was not taken back")
	}
	b := poolArray(p, n)
	if bufAddr(b) != bufAddr(a) {
		t.Fatal("the released buffer was not reused for the next one of its size")
	}
	for i, v := range b.buf {
		if v != 0 {
			t.Fatalf("reused buffer byte %d is %#x, want 0", i, v)
		}
	}
	if st := p.stats(); st.Reused != 1 || st.Returned != 1 || st.FreeBytes != 0 {
		t.Errorf("stats %+v: want 1 reused, 1 returned, no free bytes", st)
	}
}

func TestPoolClaimsOnlyFreshBuffersOnce(t *testing.T) {
	p := newBufferPool(1 << 30)
	const n = 2 << 20
	old := poolArray(p, n) // made before the op "started"
	since := p.epoch()
	if p.claim(old, since) {
		t.Error("a buffer lent before the epoch was claimed (an op returning an array it held)")
	}
	fresh := poolArray(p, n)
	view := &Array{dtype: Uint8, shape: []int{n / 2}, strides: []int{2}, buf: fresh.buf}
	if !p.claim(view, since) {
		t.Fatal("a view of a fresh buffer did not claim it")
	}
	if p.claim(fresh, since) {
		t.Error("a buffer was claimed twice")
	}
	if p.release(old) {
		t.Error("an unclaimed buffer was taken back")
	}
	small := poolArray(p, poolMinBytes/2)
	if p.claim(small, since) {
		t.Error("a buffer below the pool's minimum was claimed")
	}
	foreign := &Array{dtype: Uint8, shape: []int{n}, strides: []int{1}, buf: make([]byte, n)}
	if p.claim(foreign, since) || p.release(foreign) {
		t.Error("a buffer the pool never lent was claimed or taken back")
	}
	if !p.release(fresh) {
		t.Fatal("the claimed buffer was not taken back")
	}
	if p.release(fresh) {
		t.Error("a buffer was taken back twice")
	}
}

func TestPoolMatchesByLengthClass(t *testing.T) {
	p := newBufferPool(1 << 30)
	const n = 4 << 20
	since := p.epoch()
	big := poolArray(p, n+n/16) // same class as n, larger
	half := poolArray(p, n/2)
	for _, a := range []*Array{big, half} {
		if !p.claim(a, since) || !p.release(a) {
			t.Fatal("claim or release failed")
		}
	}
	a := poolArray(p, n)
	if bufAddr(a) != bufAddr(big) {
		t.Error("a free buffer of the class, at least the size, was not reused")
	}
	if len(a.buf) != n {
		t.Errorf("reused buffer has %d bytes, want %d", len(a.buf), n)
	}
	b := poolArray(p, n)
	if bufAddr(b) == bufAddr(half) {
		t.Error("a buffer smaller than the request was reused")
	}
}

func TestPoolBoundsAndTrimsFreeBuffers(t *testing.T) {
	const n = 2 << 20
	p := newBufferPool(n)
	since := p.epoch()
	a, b := poolArray(p, n), poolArray(p, n)
	for _, x := range []*Array{a, b} {
		if !p.claim(x, since) || !p.release(x) {
			t.Fatal("claim or release failed")
		}
	}
	if st := p.stats(); st.FreeBytes != n || st.Returned != 1 || st.Dropped != 1 {
		t.Fatalf("stats %+v: want one buffer kept and one dropped over the limit", st)
	}
	p.collected()
	if p.stats().FreeBytes != n {
		t.Fatal("a buffer returned since the last collection was trimmed")
	}
	p.collected()
	if st := p.stats(); st.FreeBytes != 0 || st.Dropped != 2 {
		t.Fatalf("stats %+v: a buffer unused for two collections was kept", st)
	}
	c := poolArray(p, n)
	if bufAddr(c) == bufAddr(a) {
		t.Error("a trimmed buffer was reused")
	}
	if !p.claim(c, since) || !p.release(c) {
		t.Fatal("claim or release failed")
	}
	p.setLimit(0)
	if st := p.stats(); st.FreeBytes != 0 {
		t.Errorf("stats %+v: free bytes over a lowered limit were kept", st)
	}
}

// Taking a class's last free buffer leaves no empty class behind for a
// trim to index (a store at its budget trims while ops take buffers).
func TestPoolTrimsAfterAClassEmptied(t *testing.T) {
	p := newBufferPool(1 << 30)
	since := p.epoch()
	a, b := poolArray(p, 2<<20), poolArray(p, 8<<20)
	for _, x := range []*Array{a, b} {
		if !p.claim(x, since) || !p.release(x) {
			t.Fatal("claim or release failed")
		}
	}
	big := poolArray(p, 8<<20) // empties the larger class
	if bufAddr(big) != bufAddr(b) {
		t.Fatal("the free buffer was not reused")
	}
	p.trim(0)
	if st := p.stats(); st.FreeBytes != 0 {
		t.Errorf("stats %+v: free bytes left after trimming to 0", st)
	}
	if c := poolArray(p, 2<<20); bufAddr(c) == bufAddr(a) {
		t.Error("a trimmed buffer was reused")
	}
}

// A float product's output is taken from the pool without clearing (gemm
// with beta 0 writes every element): one made over a released buffer full
// of NaNs must still be the product, in both float dtypes.
func TestMatMulOverReusedGarbage(t *testing.T) {
	for _, dt := range []DType{Float64, Float32} {
		const m, k, n = 700, 90, 600 // m*n*4 bytes >= 1 MiB: a pooled size
		a, _ := New(dt, m, k)
		b, _ := New(dt, k, n)
		for i := range m * k {
			a.SetFlat(i, float64(i%13)-6)
		}
		for i := range k * n {
			b.SetFlat(i, float64(i%7)-3)
		}
		want, err := MatMul(a, b)
		if err != nil {
			t.Fatal(err)
		}
		since := BufferEpoch()
		g, _ := New(dt, m, n)
		for i := range m * n {
			g.SetFlat(i, math.NaN())
		}
		if !ClaimBuffer(g, since) || !ReleaseBuffer(g) {
			t.Fatalf("%v: the garbage buffer did not go back to the pool", dt)
		}
		reused := BufferPoolStats().Reused
		got, err := MatMul(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if BufferPoolStats().Reused == reused {
			t.Fatalf("%v: the product did not take a pooled buffer", dt)
		}
		for i := range m * n {
			if w, g := want.AtFlat(i), got.AtFlat(i); w != g {
				t.Fatalf("%v: element %d over a reused buffer is %v, want %v", dt, i, g, w)
			}
		}
	}
}
