package rng

import (
	"errors"
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Dist is the distribution FillChunk draws from.
type Dist uint8

// The distributions of FillChunk. The zero Dist is invalid so that a
// forgotten field is an error, not a silent uniform.
const (
	Uniform Dist = iota + 1 // p1 = lo, p2 = hi; float64 or float32 arrays
	Normal                  // p1 = mean, p2 = std; float64 or float32 arrays
	Intn                    // p1 = lo, p2 = hi (integers, lo < hi); int64 or int32 arrays
)

// String names the distribution.
func (d Dist) String() string {
	switch d {
	case Uniform:
		return "uniform"
	case Normal:
		return "normal"
	case Intn:
		return "intn"
	}
	return fmt.Sprintf("Dist(%d)", uint8(d))
}

// FillChunk fills a, one chunk of a tensor of shape globalShape whose first
// element sits at chunkOffset, with the values of the whole tensor's random
// stream: element (i0, i1, ...) of a gets the value of global C-order flat
// index sum((chunkOffset[d]+i_d) * globalStride[d]). Filling every chunk of a
// tensor this way gives the same tensor as filling it whole.
//
// a must be contiguous. Uniform and Normal fill float64 or float32 arrays,
// Intn int64 or int32 arrays (lo = int64(p1), hi = int64(p2), and p1, p2 must
// be integers). Bad arguments are reported as errors; a is then untouched.
func FillChunk(a *ndarray.Array, k Key, globalShape, chunkOffset []int, dist Dist, p1, p2 float64) error {
	if a == nil {
		return errors.New("rng: FillChunk of a nil array")
	}
	shape := a.Shape()
	nd := len(shape)
	if len(globalShape) != nd || len(chunkOffset) != nd {
		return fmt.Errorf("rng: chunk of shape %v, global shape %v and chunk offset %v differ in rank", shape, globalShape, chunkOffset)
	}
	if !a.IsContiguous() {
		return fmt.Errorf("rng: FillChunk needs a contiguous array (shape %v, strides %v)", shape, a.Strides())
	}
	total := uint64(1)
	for d := range nd {
		g, o := globalShape[d], chunkOffset[d]
		if g < 0 || o < 0 || o > g || shape[d] > g-o {
			return fmt.Errorf("rng: chunk of shape %v at offset %v does not fit global shape %v (axis %d)", shape, chunkOffset, globalShape, d)
		}
		if g > 0 {
			hi, lo := mulOverflow(total, uint64(g))
			if hi {
				return fmt.Errorf("rng: global shape %v has more than 2^64 elements", globalShape)
			}
			total = lo
		}
	}
	fill, err := filler(a, k, dist, p1, p2)
	if err != nil {
		return err
	}
	if a.Size() == 0 {
		return nil
	}

	// Global C-order strides.
	gstride := make([]uint64, nd)
	s := uint64(1)
	for d := nd - 1; d >= 0; d-- {
		gstride[d] = s
		s *= uint64(globalShape[d])
	}
	// Axes after j span the whole global extent, so each run of the chunk
	// covering axes j.. is contiguous in global index too.
	j := nd - 1
	for j > 0 && shape[j] == globalShape[j] {
		j--
	}
	run := 1
	for d := max(j, 0); d < nd; d++ {
		run *= shape[d]
	}
	if nd == 0 {
		fill(0, 0, 1)
		return nil
	}
	idx := make([]int, j) // multi-index over the outer axes 0..j-1
	for pos := 0; ; pos += run {
		start := uint64(chunkOffset[j]) * gstride[j]
		for d := range j {
			start += uint64(chunkOffset[d]+idx[d]) * gstride[d]
		}
		fill(pos, start, run)
		d := j - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}

// NewFiller checks the distribution, dtype and parameters once and returns
// the function that writes the values of global indices start, start+1, ...,
// start+n-1 of stream k into a's elements pos, ..., pos+n-1: for callers
// that fill many short runs of one buffer (fused kernels fill tiles), where
// FillChunk's per-call checks would cost more than the values. a must be
// contiguous, and the runs must lie within it.
func NewFiller(a *ndarray.Array, k Key, dist Dist, p1, p2 float64) (func(pos int, start uint64, n int), error) {
	if a == nil {
		return nil, errors.New("rng: NewFiller of a nil array")
	}
	if !a.IsContiguous() {
		return nil, fmt.Errorf("rng: NewFiller needs a contiguous array (shape %v, strides %v)", a.Shape(), a.Strides())
	}
	return filler(a, k, dist, p1, p2)
}

func mulOverflow(a, b uint64) (bool, uint64) {
	if a != 0 && b > math.MaxUint64/a {
		return true, 0
	}
	return false, a * b
}

// filler checks dist, dtype and parameters and returns the function that
// fills n elements of a from element pos with global indices start...
func filler(a *ndarray.Array, k Key, dist Dist, p1, p2 float64) (func(pos int, start uint64, n int), error) {
	dt := a.DType()
	bad := func() error {
		return fmt.Errorf("rng: %v distribution cannot fill a %v array", dist, dt)
	}
	switch dist {
	case Uniform:
		if math.IsNaN(p1) || math.IsNaN(p2) || math.IsInf(p1, 0) || math.IsInf(p2, 0) || math.IsInf(p2-p1, 0) {
			return nil, fmt.Errorf("rng: uniform bounds [%v, %v) are not finite", p1, p2)
		}
		switch dt {
		case ndarray.Float64:
			s := a.Float64s()
			return func(pos int, start uint64, n int) { FillUniform(s[pos:pos+n], k, start, p1, p2) }, nil
		case ndarray.Float32:
			s := a.Float32s()
			return func(pos int, start uint64, n int) { FillUniform32(s[pos:pos+n], k, start, p1, p2) }, nil
		}
		return nil, bad()
	case Normal:
		if math.IsNaN(p1) || math.IsInf(p1, 0) || !(p2 >= 0) || math.IsInf(p2, 0) {
			return nil, fmt.Errorf("rng: normal needs a finite mean and a finite std >= 0, got mean %v std %v", p1, p2)
		}
		switch dt {
		case ndarray.Float64:
			s := a.Float64s()
			return func(pos int, start uint64, n int) { FillNormal(s[pos:pos+n], k, start, p1, p2) }, nil
		case ndarray.Float32:
			s := a.Float32s()
			return func(pos int, start uint64, n int) { FillNormal32(s[pos:pos+n], k, start, p1, p2) }, nil
		}
		return nil, bad()
	case Intn:
		const two63 = 1 << 63
		for _, p := range []float64{p1, p2} {
			if p != math.Trunc(p) || p < -two63 || p >= two63 {
				return nil, fmt.Errorf("rng: intn bounds [%v, %v) must be integers within int64", p1, p2)
			}
		}
		if !(p1 < p2) {
			return nil, fmt.Errorf("rng: intn needs lo < hi, got [%v, %v)", p1, p2)
		}
		lo, hi := int64(p1), int64(p2)
		switch dt {
		case ndarray.Int64:
			s := a.Int64s()
			return func(pos int, start uint64, n int) { FillIntn(s[pos:pos+n], k, start, lo, hi) }, nil
		case ndarray.Int32:
			if lo < math.MinInt32 || hi > math.MaxInt32+1 {
				return nil, fmt.Errorf("rng: intn bounds [%v, %v) exceed int32", p1, p2)
			}
			s := a.Int32s()
			return func(pos int, start uint64, n int) { FillIntn32(s[pos:pos+n], k, start, lo, hi) }, nil
		}
		return nil, bad()
	}
	return nil, fmt.Errorf("rng: unknown distribution %v", dist)
}
