package rng

import "golang.org/x/sys/cpu"

// hasAVX512 says the uniform fills may use the AVX-512 loops: VPMULLQ and
// VCVTQQ2PD need AVX512DQ, and x/sys/cpu also checks that the OS saves the
// ZMM state.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL

//go:noescape
func uniform64AVX512(dst *float64, n int, ctr *[8]uint64, step uint64, lo, scale float64)

//go:noescape
func uniform32AVX512(dst *float32, n int, ctr *[8]uint64, step uint64, lo, scale float32)

// uniform64Vec fills the longest multiple-of-8 prefix of dst with vector
// code, starting from counter x with increment g, and says how many elements
// it wrote (0 without AVX-512).
func uniform64Vec(dst []float64, x, g uint64, lo, scale float64) int {
	n := len(dst) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	ctr := counters(x, g)
	uniform64AVX512(&dst[0], n, &ctr, 8*g, lo, scale)
	return n
}

// uniform32Vec is uniform64Vec for float32 output.
func uniform32Vec(dst []float32, x, g uint64, lo, scale float32) int {
	n := len(dst) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	ctr := counters(x, g)
	uniform32AVX512(&dst[0], n, &ctr, 8*g, lo, scale)
	return n
}

//go:noescape
func normal64AVX512(dst *float64, n int, ctr *[8]uint64, step, gamma uint64, mean, std float64)

// normal64Vec fills the longest multiple-of-8 prefix of dst with normal
// values from counter x (element j draws counters x+2jg and x+2jg+g) and
// says how many it wrote (0 without AVX-512).
func normal64Vec(dst []float64, x, g uint64, mean, std float64) int {
	n := len(dst) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	ctr := counters(x, 2*g)
	normal64AVX512(&dst[0], n, &ctr, 16*g, g, mean, std)
	return n
}

func counters(x, g uint64) [8]uint64 {
	var c [8]uint64
	for i := range c {
		c[i] = x + uint64(i)*g
	}
	return c
}
