package ops

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "interp", Op: Interp{}, Kinds: Half, Calls: []Call{{
			Name: "interp",
			Doc: "numpy.interp: one-dimensional piecewise linear interpolation of the points (xp, fp) at x,\n" +
				"as float64, with NumPy's left, right and period.\n\n" +
				"x keeps its chunks; xp and fp are gathered into one chunk each, which every chunk of x reads.\n" +
				"xp must be increasing (with period, it is sorted, stably). Complex fp is refused.",
			Params: []Param{{Name: "x"}, {Name: "xp"}, {Name: "fp"},
				{Name: "left", Kind: ParamFloat, Optional: true},
				{Name: "right", Kind: ParamFloat, Optional: true},
				{Name: "period", Kind: ParamFloat, Optional: true}},
			New: newInterp,
		}}},
		Descriptor{Name: "interp_chunk", Op: InterpChunk{}},
	)
}

func newInterp(v Values) (TensorOp, error) {
	op := Interp{}
	if v.Has("period") {
		p := v.Float("period")
		if p == 0 {
			return nil, ValueErrorf("period must be a non-zero value")
		}
		// NumPy ignores left and right with a period.
		return Interp{Period: math.Abs(p)}, nil
	}
	if v.Has("left") {
		l := v.Float("left")
		op.Left = &l
	}
	if v.Has("right") {
		r := v.Float("right")
		op.Right = &r
	}
	return op, nil
}

// Interp is numpy.interp(x, xp, fp, left, right, period): inputs x, xp
// and fp; the output has x's shape and chunks, in float64. Left and Right
// default to fp's first and last values; a Period (positive) wraps x and
// xp around it.
type Interp struct {
	Left   *float64 `json:"left,omitempty"`
	Right  *float64 `json:"right,omitempty"`
	Period float64  `json:"period,omitempty"`
}

// Type implements TensorOp.
func (Interp) Type() string { return "interp" }

// Infer implements TensorOp.
func (op Interp) Infer(in []Meta) (Meta, error) {
	if len(in) != 3 {
		return Meta{}, fmt.Errorf("interp: want x, xp and fp, got %d inputs", len(in))
	}
	xp, fp := in[1], in[2]
	if xp.NDim() != 1 || fp.NDim() != 1 {
		return Meta{}, fmt.Errorf("interp: xp and fp must be one-dimensional, got shapes %v and %v", xp.Shape, fp.Shape)
	}
	if xp.Shape[0] != fp.Shape[0] {
		return Meta{}, fmt.Errorf("interp: fp and xp are not of the same length (%d and %d)", fp.Shape[0], xp.Shape[0])
	}
	if xp.Shape[0] == 0 {
		return Meta{}, fmt.Errorf("interp: array of sample points is empty")
	}
	if op.Period < 0 || math.IsNaN(op.Period) {
		return Meta{}, fmt.Errorf("interp: period %v: want a positive number", op.Period)
	}
	return Meta{Shape: append([]int(nil), in[0].Shape...), DType: ndarray.Float64}, nil
}

// Tile implements TensorOp: xp and fp in one chunk each, one chunk op per
// chunk of x.
func (op Interp) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	x := in[0]
	n := in[1].Meta.Shape[0]
	xp := RechunkTiled(b, in[1], [][]int{{n}})
	fp := RechunkTiled(b, in[2], [][]int{{n}})
	res := &Tiled{Meta: out, NSplits: x.NSplits, Chunks: make([]ChunkRef, len(x.Chunks))}
	kop := InterpChunk(op)
	for i, c := range x.Chunks {
		res.Chunks[i] = b.AddChunk(kop, []ChunkRef{c, xp.Chunks[0], fp.Chunks[0]}, Meta{Shape: b.ChunkMeta(c).Shape, DType: ndarray.Float64})
	}
	return res, nil
}

// InterpChunk interpolates one chunk of x (input 0) in the points xp, fp
// (inputs 1 and 2, whole).
type InterpChunk Interp

// Type implements ChunkOp.
func (InterpChunk) Type() string { return "interp_chunk" }

// Exec implements ChunkOp.
func (op InterpChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 3 || in[1].NDim() != 1 || in[2].NDim() != 1 || in[1].Size() != in[2].Size() || in[1].Size() == 0 {
		return nil, fmt.Errorf("interp_chunk: want x and two 1-D inputs of one nonzero length")
	}
	x := in[0].Astype(ndarray.Float64).Contiguous().Float64s()
	xp := in[1].Astype(ndarray.Float64).Contiguous().Float64s()
	fp := in[2].Astype(ndarray.Float64).Contiguous().Float64s()
	left, right := fp[0], fp[len(fp)-1]
	if op.Left != nil {
		left = *op.Left
	}
	if op.Right != nil {
		right = *op.Right
	}
	if op.Period > 0 {
		x, xp, fp = periodic(x, xp, fp, op.Period)
	}
	out := make([]float64, len(x))
	if err := interpolate(ctx, out, x, xp, fp, left, right); err != nil {
		return nil, err
	}
	return ndarray.FromFloat64s(in[0].Shape(), out)
}

// periodic is NumPy's normalization of a periodic interpolation: x and xp
// modulo the period, xp sorted (fp with it), and one point wrapped around
// at each end.
func periodic(x, xp, fp []float64, period float64) ([]float64, []float64, []float64) {
	xm := make([]float64, len(x))
	for i, v := range x {
		xm[i] = pyMod(v, period)
	}
	n := len(xp)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	keys := make([]float64, n)
	for i, v := range xp {
		keys[i] = pyMod(v, period)
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	xs := make([]float64, n+2)
	fs := make([]float64, n+2)
	for i, k := range order {
		xs[i+1], fs[i+1] = keys[k], fp[k]
	}
	xs[0], fs[0] = xs[n]-period, fs[n]
	xs[n+1], fs[n+1] = xs[1]+period, fs[1]
	return xm, xs, fs
}

// pyMod is NumPy's float remainder: the sign of the divisor, and a zero
// remainder signed like it.
func pyMod(a, b float64) float64 {
	m := math.Mod(a, b)
	if m == 0 {
		return math.Copysign(0, b)
	}
	if (b < 0) != (m < 0) {
		m += b
	}
	return m
}

// interpolate is NumPy's interpolation loop: NaN stays NaN, outside the
// points left and right, a point itself its value exactly, and a slope that
// gives NaN (infinite values) retried from the other end of its interval.
func interpolate(ctx context.Context, out, x, xp, fp []float64, left, right float64) error {
	n := len(xp)
	if n == 1 {
		for i, v := range x {
			switch {
			case v < xp[0]:
				out[i] = left
			case v > xp[0]:
				out[i] = right
			default:
				out[i] = fp[0]
			}
		}
		return nil
	}
	for i, v := range x {
		if i%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if math.IsNaN(v) {
			out[i] = v
			continue
		}
		var j int
		switch {
		case v > xp[n-1]:
			j = n
		case v < xp[0]:
			j = -1
		default:
			j = sort.Search(n, func(k int) bool { return xp[k] > v }) - 1
		}
		switch {
		case j == -1:
			out[i] = left
		case j == n:
			out[i] = right
		case j == n-1, xp[j] == v:
			out[i] = fp[j]
		default:
			slope := (fp[j+1] - fp[j]) / (xp[j+1] - xp[j])
			r := slope*(v-xp[j]) + fp[j]
			if math.IsNaN(r) {
				r = slope*(v-xp[j+1]) + fp[j+1]
				if math.IsNaN(r) && fp[j] == fp[j+1] {
					r = fp[j]
				}
			}
			out[i] = r
		}
	}
	return nil
}
