package zarr

import (
	"bytes"
	"testing"
)

// unshuffle8 (the 8-byte fast path of byteUnshuffle: AVX-512 64 elements
// a step where it runs, then 8 at a time, then one) equals the plain byte
// loop, for element counts around every step.
func TestUnshuffle8MatchesBytes(t *testing.T) {
	sizes := []int{63, 64, 65, 127, 128, 129, 200, 1000, 4096 + 7}
	for n := 0; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		src := make([]byte, 8*n+3) // a tail shorter than an element
		for i := range src {
			src[i] = byte(i*131 + 7)
		}
		want := make([]byte, len(src))
		for j := range 8 {
			for i := range n {
				want[i*8+j] = src[j*n+i]
			}
		}
		copy(want[8*n:], src[8*n:])
		got := make([]byte, len(src))
		byteUnshuffle(got, src, 8)
		if !bytes.Equal(got, want) {
			t.Fatalf("n=%d: got %v, want %v", n, got, want)
		}
	}
}
