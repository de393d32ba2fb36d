package zarr

import "golang.org/x/sys/cpu"

// hasUnshuffle512 says the AVX-512 unshuffle can run here.
var hasUnshuffle512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

//go:noescape
func unshuffle8x64(dst, src *byte, n, blocks int)

// unshuffle8Vec unshuffles the first elements of n 8-byte elements with
// AVX-512, 64 at a time, and returns how many it did (0 without AVX-512).
func unshuffle8Vec(dst, src []byte, n int) int {
	if !hasUnshuffle512 || n < 64 || len(src) < 8*n || len(dst) < 8*n {
		return 0
	}
	blocks := n / 64
	unshuffle8x64(&dst[0], &src[0], n, blocks)
	return blocks * 64
}
