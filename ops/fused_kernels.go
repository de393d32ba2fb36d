package ops

// The tile-level kernels a fused op calls: reductions of a tile, random and
// constant tiles, and the fast sums of a whole-chunk reduction.

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/rng"
)

// reduceTile reduces a whole tile: a partial with every axis reduced.
func reduceTile(red ReducePartial, x *ndarray.Array) (*ndarray.Array, error) {
	if isMomentsFunc(red.Func) {
		return momentsOf(red.Func, x, []int{0})
	}
	r, err := ndarray.ParseReduceOp(red.Func)
	if err != nil {
		return nil, err
	}
	return ndarray.Reduce(r, x, []int{0}, false)
}

func isMomentsFunc(fn string) bool {
	switch fn {
	case "mean", "var", "std", "nanmean", "nanvar", "nanstd":
		return true
	}
	return false
}

func isNaNFunc(fn string) bool { return len(fn) > 3 && fn[:3] == "nan" }

// momentsOf is the moments partial of fn: over the numbers only for the
// NaN-aware ones.
func momentsOf(fn string, x *ndarray.Array, axes []int) (*ndarray.Array, error) {
	if isNaNFunc(fn) {
		return ndarray.NanMoments(x, axes)
	}
	return ndarray.Moments(x, axes)
}

// combineParts merges a tile's partial into the accumulator.
func combineParts(red ReducePartial, acc, part *ndarray.Array) (*ndarray.Array, error) {
	if acc == nil {
		return part, nil
	}
	if isMomentsFunc(red.Func) {
		return ndarray.CombineMoments([]*ndarray.Array{acc, part})
	}
	r, err := ndarray.ParseReduceOp(red.Func)
	if err != nil {
		return nil, err
	}
	return ndarray.Combine(r, []*ndarray.Array{acc, part})
}

// tileGen fills tiles of one generator node's buffer: the filler and the
// chunk's geometry are worked out once per kernel, not per tile.
type tileGen struct {
	op      RandomChunk
	fillAt  func(pos int, start uint64, n int)
	run     int // chunk elements over which global indices are consecutive
	gstride []int
}

func newTileGen(op RandomChunk, buf *ndarray.Array) (*tileGen, error) {
	fill, err := rng.NewFiller(buf, op.Key, op.Dist, op.P1, op.P2)
	if err != nil {
		return nil, fmt.Errorf("fuse: %w", err)
	}
	g := &tileGen{op: op, fillAt: fill, run: 1, gstride: ndarray.ContiguousStrides(op.Global)}
	if nd := len(op.Shape); nd > 0 {
		g.run = op.Shape[nd-1]
		for ax := nd - 1; ax > 0 && op.Shape[ax] == op.Global[ax]; ax-- {
			g.run *= op.Shape[ax-1]
		}
	}
	return g, nil
}

// fill writes the values of chunk elements [f, f+L) into the buffer's
// first L elements, exactly as fillRandomTile does.
func (g *tileGen) fill(f, L int) error {
	op := g.op
	nd := len(op.Shape)
	if nd == 0 {
		g.fillAt(0, 0, L)
		return nil
	}
	for k := 0; k < L; {
		p := f + k
		m := min(g.run-p%g.run, L-k)
		gi, rem := 0, p
		for ax := nd - 1; ax >= 0; ax-- {
			gi += (op.Offset[ax] + rem%op.Shape[ax]) * g.gstride[ax]
			rem /= op.Shape[ax]
		}
		g.fillAt(k, uint64(gi), m)
		k += m
	}
	return nil
}

// fillRandomTile writes the random values of chunk elements [f, f+L) into
// dst, so they are exactly those of the unfused chunk. Global indices are
// contiguous over runs of the chunk that span whole trailing axes of the
// tensor; each run is one fill call.
func fillRandomTile(op RandomChunk, dst *ndarray.Array, f, L int) error {
	nd := len(op.Shape)
	total := ndarray.Size(op.Global)
	if nd == 0 {
		return fillChunk(dst, op, []int{0}, total)
	}
	// run: the chunk elements over which global indices are consecutive.
	run := op.Shape[nd-1]
	for ax := nd - 1; ax > 0 && op.Shape[ax] == op.Global[ax]; ax-- {
		run *= op.Shape[ax-1]
	}
	gstride := ndarray.ContiguousStrides(op.Global)
	for k := 0; k < L; {
		p := f + k
		m := min(run-p%run, L-k)
		// global flat index of chunk element p
		g, rem := 0, p
		for ax := nd - 1; ax >= 0; ax-- {
			g += (op.Offset[ax] + rem%op.Shape[ax]) * gstride[ax]
			rem /= op.Shape[ax]
		}
		seg, err := dst.Slice([]ndarray.Range{{Start: k, Step: 1, Len: m}})
		if err != nil {
			return err
		}
		if err := fillChunk(seg, op, []int{g}, total); err != nil {
			return err
		}
		k += m
	}
	return nil
}

// fillChunk fills a contiguous run of the tensor's flat index space
// starting at off[0].
func fillChunk(v *ndarray.Array, op RandomChunk, off []int, total int) error {
	flat, err := v.Reshape(v.Size())
	if err != nil {
		return err
	}
	return rng.FillChunk(flat, op.Key, []int{total}, off, op.Dist, op.P1, op.P2)
}

// fastSum is a scalar accumulator for sums over a whole chunk: float64 data
// is summed per tile as Reduce sums a run (ndarray.SumFloat64s) and the tile
// sums are added with Neumaier compensation; integers and bools add exactly
// in int64.
type fastSum struct {
	f, c    float64 // running sum and its compensation
	i       int64
	isFloat bool
	nan     bool // nansum: NaN read as 0
}

func (s *fastSum) init(red ReducePartial, out ndarray.DType) bool {
	switch {
	case red.Func == "nansum" && out == ndarray.Float64:
		s.nan = true
	case red.Func != "sum":
		return false
	}
	switch out {
	case ndarray.Float64:
		s.isFloat = true
	case ndarray.Int64:
	default:
		return false
	}
	return true
}

func (s *fastSum) add(x *ndarray.Array) {
	switch x.DType() {
	case ndarray.Float64:
		var v float64
		if s.nan {
			v = ndarray.NanSumFloat64s(x.Float64s()[:x.Size()])
		} else {
			v = ndarray.SumFloat64s(x.Float64s()[:x.Size()])
		}
		t := s.f + v
		switch {
		case math.IsInf(t, 0) || math.IsNaN(t):
			// An infinite or NaN sum stays so: its compensation would
			// be inf - inf, a NaN where NumPy's sum is an infinity.
		case math.Abs(s.f) >= math.Abs(v):
			s.c += (s.f - t) + v
		default:
			s.c += (v - t) + s.f
		}
		s.f = t
	case ndarray.Int64:
		acc := s.i
		for _, v := range x.Int64s()[:x.Size()] {
			acc += v
		}
		s.i = acc
	case ndarray.Int32:
		acc := s.i
		for _, v := range x.Int32s()[:x.Size()] {
			acc += int64(v)
		}
		s.i = acc
	case ndarray.Int16:
		s.i += sumInts(x.Int16s()[:x.Size()])
	case ndarray.Int8:
		s.i += sumInts(x.Int8s()[:x.Size()])
	case ndarray.Bool:
		s.i += countBools(x.Bools()[:x.Size()])
	}
}

// sumInts adds the narrow signed integers of s in int64 (no overflow below
// 2^47 elements).
func sumInts[T int8 | int16](s []T) int64 {
	var acc int64
	for _, v := range s {
		acc += int64(v)
	}
	return acc
}

// countBools counts the ones in a slice of 0/1 bytes, eight at a time: the
// byte sums of a word fit in a byte (at most 8), so one multiply adds them.
func countBools(b []uint8) int64 {
	var n int64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		n += int64((w * 0x0101010101010101) >> 56)
	}
	for ; i < len(b); i++ {
		n += int64(b[i])
	}
	return n
}

// result is the sum as an array of shape (one element), written into
// into when that is a contiguous array of the sum's dtype and shape, else
// made.
func (s *fastSum) result(shape []int, into *ndarray.Array) (*ndarray.Array, error) {
	dt := ndarray.Int64
	if s.isFloat {
		dt = ndarray.Float64
	}
	a := into
	if a == nil || a.DType() != dt || !ndarray.SameShape(a.Shape(), shape) || !a.IsContiguous() {
		// Made in its shape at once: a scalar reshaped is twice the
		// allocations, per chunk.
		var err error
		if a, err = ndarray.New(dt, shape...); err != nil {
			return nil, err
		}
	}
	if s.isFloat {
		r := s.f
		if !math.IsInf(r, 0) && r == r {
			r += s.c
		}
		a.Float64s()[0] = r
		return a, nil
	}
	a.Int64s()[0] = s.i
	return a, nil
}

// fillConst is a 1-D array of n copies of v, converted as NumPy converts a
// Python number: made directly, since fused kernels make one per chunk.
func fillConst(dt ndarray.DType, n int, v float64) (*ndarray.Array, error) {
	a, err := ndarray.New(dt, n)
	if err != nil || v == 0 {
		return a, err // New zero-fills
	}
	switch dt {
	case ndarray.Float64:
		fillSlice(a.Float64s()[:n], v)
	case ndarray.Float32:
		fillSlice(a.Float32s()[:n], float32(v))
	case ndarray.Int64:
		fillSlice(a.Int64s()[:n], int64(v))
	case ndarray.Int32:
		fillSlice(a.Int32s()[:n], int32(v))
	case ndarray.Bool:
		fillSlice(a.Bools()[:n], 1)
	default:
		return ndarray.FillScalar(dt, []int{n}, v), nil
	}
	return a, nil
}

func fillSlice[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}
