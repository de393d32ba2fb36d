package zarr

import (
	"bytes"
	"testing"
)

// unshuffle8 (the 8-byte fast path of byteUnshuffle) equals the plain
// byte loop, for every element count around its 8-element steps.
func TestUnshuffle8MatchesBytes(t *testing.T) {
	for n := 0; n <= 40; n++ {
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
