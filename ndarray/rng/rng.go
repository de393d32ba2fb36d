// Package rng generates random numbers as a pure function of (key, global
// element index), so that a tensor filled chunk by chunk on many workers holds
// bit-identical values whatever the chunking, the order or the parallelism.
//
// It is a counter-based form of SplitMix64 (Steele, Lea & Flood, "Fast
// splittable pseudorandom number generators", 2014): element i of key k is
// mix64(k + i*γ(k)), where mix64 is Stafford's variant-13 finalizer and γ(k)
// is an odd increment derived from the key, as SplittableRandom derives one
// per split stream. Deriving γ from the key (rather than one fixed golden
// gamma) keeps streams of different keys from being shifted copies of each
// other. A value costs two multiplications, which is what makes the fills
// faster than NumPy's generators.
package rng

import (
	"math"
	"math/bits"
)

const (
	golden = 0x9e3779b97f4a7c15 // 2^64 / φ, SplitMix64's default gamma
	mixM1  = 0xbf58476d1ce4e5b9
	mixM2  = 0x94d049bb133111eb
	// streamSalt separates the stream argument of NewKey from its seed.
	streamSalt = 0xd1b54a32d192ed03
	// gammaSalt separates γ(k) from k.
	gammaSalt = 0x632be59bd9b4e019

	inv53 = 0x1p-53
	inv24 = 0x1p-24
)

// Key names one random stream: one tensor under one seed. The zero Key is a
// valid (if unimaginative) key; use NewKey to make keys from user seeds.
type Key uint64

// mix64 is Stafford's variant 13 of the MurmurHash3 finalizer, the output
// function of SplitMix64: a bijection with full avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * mixM1
	z = (z ^ z>>27) * mixM2
	return z ^ z>>31
}

// NewKey derives the key of stream number stream (one per tensor) under a
// user seed. For a fixed seed distinct streams give distinct keys, and vice
// versa.
func NewKey(seed uint64, stream uint64) Key {
	return Key(mix64(mix64(seed+golden) ^ mix64(stream+streamSalt)))
}

// gamma is the key's odd counter increment. Like SplittableRandom's
// mixGamma it has many 01/10 bit transitions, since increments with few
// transitions give visibly poorer streams.
func (k Key) gamma() uint64 {
	z := uint64(k) + gammaSalt
	z = (z ^ z>>33) * 0xff51afd7ed558ccd
	z = (z ^ z>>33) * 0xc4ceb9fe1a85ec53
	z = (z ^ z>>33) | 1
	if bits.OnesCount64(z^z>>1) < 24 {
		z ^= 0xaaaaaaaaaaaaaaaa
	}
	return z
}

// Uint64 is the random 64-bit value at global index i of stream k.
func (k Key) Uint64(i uint64) uint64 {
	return mix64(uint64(k) + i*k.gamma())
}

// Float64 is the uniform value in [0, 1) at index i, made from the top 53 bits
// of Uint64(i), so every value is a multiple of 2^-53.
func (k Key) Float64(i uint64) float64 {
	return float64(int64(k.Uint64(i)>>11)) * inv53
}

// FillUniform writes the uniform values of indices start, start+1, ... into
// dst: dst[j] = lo + (hi-lo)*u(start+j) with u in [0, 1). As with NumPy,
// rounding can make a value equal hi when hi-lo is not a power of two times
// the spacing of floats near hi.
func FillUniform(dst []float64, k Key, start uint64, lo, hi float64) {
	g := k.gamma()
	x := uint64(k) + start*g
	scale := (hi - lo) * inv53
	n := uniform64Vec(dst, x, g, lo, scale)
	uniform64Scalar(dst[n:], x+uint64(n)*g, g, lo, scale)
}

// uniform64Scalar is FillUniform's portable loop from counter x.
func uniform64Scalar(dst []float64, x, g uint64, lo, scale float64) {
	for j := range dst {
		z := x
		z = (z ^ z>>30) * mixM1
		z = (z ^ z>>27) * mixM2
		z ^= z >> 31
		// The explicit conversion forbids fusing into an FMA, so results
		// are the same on every architecture.
		dst[j] = lo + float64(float64(int64(z>>11))*scale)
		x += g
	}
}

// FillUniform32 is FillUniform for float32 output; each value is made from
// the top 24 bits of the same 64-bit value and computed in float32.
func FillUniform32(dst []float32, k Key, start uint64, lo, hi float64) {
	g := k.gamma()
	x := uint64(k) + start*g
	lo32 := float32(lo)
	scale := float32(hi-lo) * inv24
	n := uniform32Vec(dst, x, g, lo32, scale)
	uniform32Scalar(dst[n:], x+uint64(n)*g, g, lo32, scale)
}

// uniform32Scalar is FillUniform32's portable loop from counter x.
func uniform32Scalar(dst []float32, x, g uint64, lo32, scale float32) {
	for j := range dst {
		z := x
		z = (z ^ z>>30) * mixM1
		z = (z ^ z>>27) * mixM2
		z ^= z >> 31
		dst[j] = lo32 + float32(float32(int32(z>>40))*scale)
		x += g
	}
}

// normalAt is the standard normal value of index i by Box-Muller from the
// 64-bit values of counters 2i and 2i+1 (taking the cosine branch only, so
// each element depends on its own index alone).
func normalAt(x1, x2 uint64) float64 {
	u1 := float64(int64(x1>>11)+1) * inv53 // (0, 1]: log never sees 0
	return math.Sqrt(-2*logUnit(u1)) * cos2pi(x2>>11)
}

// FillNormal writes normal values with the given mean and standard deviation
// for indices start, start+1, ...: element i is mean + std*z(i) where z(i) is
// Box-Muller applied to counters 2i and 2i+1.
func FillNormal(dst []float64, k Key, start uint64, mean, std float64) {
	g := k.gamma()
	x := uint64(k) + 2*start*g
	n := normal64Vec(dst, x, g, mean, std)
	normalScalar(dst[n:], x+2*uint64(n)*g, g, mean, std)
}

// normalScalar is FillNormal's portable loop from counter x.
func normalScalar(dst []float64, x, g uint64, mean, std float64) {
	for j := range dst {
		z := normalAt(mix64(x), mix64(x+g))
		dst[j] = mean + float64(std*z)
		x += 2 * g
	}
}

// FillNormal32 is FillNormal rounded to float32 (the same values as
// FillNormal, to float32 precision).
func FillNormal32(dst []float32, k Key, start uint64, mean, std float64) {
	var buf [256]float64
	for len(dst) > 0 {
		m := min(len(dst), len(buf))
		FillNormal(buf[:m], k, start, mean, std)
		for i, v := range buf[:m] {
			dst[i] = float32(v)
		}
		dst, start = dst[m:], start+uint64(m)
	}
}

// FillIntn writes integers uniform in [lo, hi) for indices start, start+1,
// ...: Lemire's multiply-high method, unbiased by rejection; a rejected draw
// is replaced from further streams keyed by (k, retry number) at the same
// index, so each element still depends on its own index only. It requires
// lo < hi; otherwise dst is filled with lo.
func FillIntn(dst []int64, k Key, start uint64, lo, hi int64) {
	fillIntn(dst, k, start, lo, hi)
}

// FillIntn32 is FillIntn for int32 output; lo and hi must be within int32's
// range (hi may be MaxInt32+1). It gives the same values as FillIntn.
func FillIntn32(dst []int32, k Key, start uint64, lo, hi int64) {
	fillIntn(dst, k, start, lo, hi)
}

func fillIntn[T int32 | int64](dst []T, k Key, start uint64, lo, hi int64) {
	if hi <= lo {
		for j := range dst {
			dst[j] = T(lo)
		}
		return
	}
	n := uint64(hi) - uint64(lo) // exact for every lo < hi
	g := k.gamma()
	x := uint64(k) + start*g
	for j := range dst {
		h, l := bits.Mul64(mix64(x), n)
		if l < n {
			h = k.retry(start+uint64(j), n, h, l)
		}
		dst[j] = T(lo + int64(h))
		x += g
	}
}

// retry finishes Lemire's method for index i once the first draw landed in
// the low zone: while it is in the biased part, draw again from the stream of
// key NewKey(k, r) at the same index, r = 1, 2, ...
func (k Key) retry(i, n, h, l uint64) uint64 {
	thresh := -n % n
	for r := uint64(1); l < thresh; r++ {
		h, l = bits.Mul64(NewKey(uint64(k), r).Uint64(i), n)
	}
	return h
}
