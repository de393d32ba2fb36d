package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "quantile", Op: Quantile{}},
		Descriptor{Name: "quantile_local", Op: QuantileLocal{}},
		Descriptor{Name: "quantile_hist", Op: QuantileHist{}},
		Descriptor{Name: "quantile_select", Op: QuantileSelect{}},
		Descriptor{Name: "quantile_merge", Op: QuantileMerge{}},
		Descriptor{Name: "quantile_finish", Op: QuantileFinish{}},
	)
}

// Exact quantiles (median, quantile, percentile and their NaN-aware forms),
// never an approximation merged from per-chunk quantiles, and never with a
// lane gathered on one worker unless it fits a chunk.
//
// A lane (the elements reduced into one result) held whole by one chunk is
// selected in that chunk (quantile_local). A lane split over chunks is
// radix-selected on the order-preserving keys of its elements (see
// ndarray.QuantileHistogram): level 0 histograms the top digit of every
// key in each chunk (quantile_hist), the histograms are summed up a tree
// (reduce_combine, sum) and a small op (quantile_select) finds the digit
// holding each rank the result needs and the rank left within it; the next
// level histograms the next digit of only the keys sharing the prefix found
// so far, and so on until the key is whole (4 levels of 16-bit digits for
// 64-bit keys, 2 for 32-bit ones), merged up a tree by quantile_merge.
// Once every rank of a lane lies in a bucket of fewer keys than a histogram
// has counts, the next level lists those keys instead (and the levels after
// it pass the lane through), so data usually is read twice. Every level is a static layer of the
// chunk graph, so tiling needs no iteration; quantile_finish turns the keys
// into NumPy's values. Many lanes split over chunks are instead rechunked
// so that lanes are whole (if a lane fits MaxQuantileLaneBytes), since a
// histogram per lane would outweigh the data.

// MaxQuantileLaneBytes bounds the lanes made whole by rechunking, and the
// chunks that rechunking makes.
const MaxQuantileLaneBytes = 64 << 20

// quantileRadixLanes is the most lanes of a chunk radix select takes before
// whole lanes are preferred (when they fit).
const quantileRadixLanes = 16

// maxQuantileHistBytes bounds one histogram chunk; the digit width shrinks
// (16, 8, then 4 bits) to keep lanes × targets × 2^bits counts under it.
const maxQuantileHistBytes = 64 << 20

// Quantile is numpy.median / numpy.quantile (numpy.percentile is quantile
// of q/100) and their nan- forms over a set of axes.
type Quantile struct {
	Median bool      `json:"median,omitempty"`
	Q      []float64 `json:"q,omitempty"`
	// QScalar: q was a scalar, so the result has no leading q axis.
	QScalar   bool   `json:"q_scalar,omitempty"`
	Method    string `json:"method,omitempty"`
	IgnoreNaN bool   `json:"ignore_nan,omitempty"`
	// Axes are normalised, sorted and not empty.
	Axes     []int `json:"axes"`
	KeepDims bool  `json:"keepdims,omitempty"`
	FanIn    int   `json:"fan_in,omitempty"`
	// RadixBits forces the digit width of radix select (4, 8 or 16; 0:
	// chosen by size), and Radix forces radix select over several chunks
	// of few lanes, for tests.
	RadixBits int  `json:"radix_bits,omitempty"`
	Radix     bool `json:"radix,omitempty"`
	// NoExtract keeps radix select counting digits to the last level
	// instead of listing the keys of buckets that hold few (for tests).
	NoExtract bool `json:"no_extract,omitempty"`
}

func (op Quantile) spec() ndarray.QuantileSpec {
	return ndarray.QuantileSpec{Median: op.Median, Q: op.Q, Method: op.Method, IgnoreNaN: op.IgnoreNaN}
}

// Type implements TensorOp.
func (op Quantile) Type() string {
	n := "quantile"
	if op.Median {
		n = "median"
	}
	if op.IgnoreNaN {
		n = "nan" + n
	}
	return n
}

func (op Quantile) reduced(ax int) bool { return slices.Contains(op.Axes, ax) }

// outShape is the result's shape without the q axis.
func (op Quantile) outShape(in []int) []int {
	s := []int{}
	for ax, d := range in {
		switch {
		case !op.reduced(ax):
			s = append(s, d)
		case op.KeepDims:
			s = append(s, 1)
		}
	}
	return s
}

// withQ prepends the q axis, if the result has one.
func (op Quantile) withQ(shape []int) []int {
	if op.Median || op.QScalar {
		return shape
	}
	return append([]int{len(op.Q)}, shape...)
}

// Infer implements TensorOp.
func (op Quantile) Infer(in []Meta) (Meta, error) {
	if err := checkOneInput(op.Type(), in); err != nil {
		return Meta{}, err
	}
	m := in[0]
	if len(op.Axes) == 0 {
		return Meta{}, fmt.Errorf("%s: no axes to reduce", op.Type())
	}
	prev := -1
	for _, a := range op.Axes {
		if a <= prev || a >= m.NDim() {
			return Meta{}, fmt.Errorf("%s: axes %v invalid for a %d-D tensor", op.Type(), op.Axes, m.NDim())
		}
		prev = a
	}
	if op.QScalar && len(op.Q) != 1 {
		return Meta{}, fmt.Errorf("%s: a scalar q with %d values", op.Type(), len(op.Q))
	}
	spec := op.spec()
	if err := spec.Validate(); err != nil {
		return Meta{}, err
	}
	for _, a := range op.Axes {
		if m.Shape[a] == 0 {
			return Meta{}, fmt.Errorf("%s: zero-size axis %d of shape %v has no quantiles", op.Type(), a, m.Shape)
		}
	}
	switch op.RadixBits {
	case 0, 4, 8, 16:
	default:
		return Meta{}, fmt.Errorf("%s: radix digits of %d bits: want 4, 8 or 16", op.Type(), op.RadixBits)
	}
	dt, err := spec.ResultType(m.DType)
	if err != nil {
		return Meta{}, err
	}
	return Meta{Shape: op.withQ(op.outShape(m.Shape)), DType: dt}, nil
}

// Tile implements TensorOp.
func (op Quantile) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	nd := t.Meta.NDim()
	reducedSize, lanes := 1, 1
	split := false
	for ax, d := range t.Meta.Shape {
		if op.reduced(ax) {
			reducedSize *= d
			split = split || len(t.NSplits[ax]) > 1
		} else {
			lanes *= d
		}
	}
	laneBytes := int64(reducedSize) * int64(t.Meta.DType.Size())
	if split && !op.Radix && lanes > quantileRadixLanes && laneBytes <= MaxQuantileLaneBytes {
		t = RechunkTiled(b, t, op.wholeLanes(t, laneBytes))
	}
	grid := t.Grid()
	var keptGrid, redGrid []int
	var outSplits [][]int
	for ax := range nd {
		if op.reduced(ax) {
			redGrid = append(redGrid, grid[ax])
			if op.KeepDims {
				outSplits = append(outSplits, []int{1})
			}
		} else {
			keptGrid = append(keptGrid, grid[ax])
			outSplits = append(outSplits, t.NSplits[ax])
		}
	}
	spec := op.spec()
	slots := spec.Slots()
	w := ndarray.QuantileKeyBits(t.Meta.DType)
	bits := op.RadixBits
	if bits == 0 {
		maxLanes := 1
		for ax := range nd {
			if !op.reduced(ax) {
				maxLanes *= slices.Max(append([]int{1}, t.NSplits[ax]...))
			}
		}
		bits = radixBits(maxLanes, slots)
		if bits == 0 {
			return nil, fmt.Errorf("%s: %d lanes per chunk, each of %d bytes over several chunks: too many to radix-select (histograms over %d bytes) and too long to rechunk whole (over %d bytes); chunk the kept axes finer",
				op.Type(), maxLanes, laneBytes, maxQuantileHistBytes, MaxQuantileLaneBytes)
		}
	}
	levels := w / bits
	if err := admitGrid(b, grid, float64(2*levels+1)); err != nil {
		return nil, err
	}
	fan := op.FanIn
	if fan < 2 {
		fan = DefaultFanIn
	}
	res := &Tiled{Meta: out, NSplits: op.withQSplits(outSplits)}
	full := make([]int, nd)
	red := make([]bool, nd)
	for ax := range red {
		red[ax] = op.reduced(ax)
	}
	var shapes ShapeCache
	ForEachGrid(keptGrid, func(kidx []int) {
		var group []ChunkRef
		ForEachGrid(redGrid, func(ridx []int) {
			joinGridIndex(full, red, kidx, ridx)
			group = append(group, t.At(full))
		})
		cm := b.ChunkMeta(group[0])
		chunkOut := Meta{Shape: shapes.Same(op.withQ(op.outShape(cm.Shape))), DType: out.DType}
		if len(group) == 1 {
			res.Chunks = append(res.Chunks, b.AddChunk(QuantileLocal{Spec: op.chunkSpec(), Axes: op.Axes, Shape: chunkOut.Shape}, group, chunkOut))
			return
		}
		chunkLanes := 1
		for ax, d := range cm.Shape {
			if !op.reduced(ax) {
				chunkLanes *= d
			}
		}
		decMeta := Meta{Shape: []int{chunkLanes, 2 + 2*slots}, DType: ndarray.Int64}
		var dec ChunkRef
		for level := range levels {
			histShape := []int{chunkLanes, 1<<bits + 1}
			if level > 0 {
				histShape = []int{chunkLanes, slots, 1 << bits}
			}
			histMeta := Meta{Shape: histShape, DType: ndarray.Int64}
			hists := make([]ChunkRef, len(group))
			for i, c := range group {
				h := QuantileHist{Axes: op.Axes, Level: level, Bits: bits, Targets: slots}
				ins := []ChunkRef{c}
				if level > 0 {
					ins = append(ins, dec)
				}
				hists[i] = b.AddChunk(h, ins, histMeta)
			}
			var sum ChunkRef
			if level == 0 {
				sum = quantileSumTree(b, hists, fan, histMeta, nil)
			} else {
				sum = quantileSumTree(b, hists, fan, histMeta, &dec)
			}
			ins := []ChunkRef{sum}
			if level > 0 {
				ins = append(ins, dec)
			}
			sel := QuantileSelect{Spec: op.chunkSpec(), DType: t.Meta.DType, Level: level, Bits: bits, NoExtract: op.NoExtract}
			dec = b.AddChunk(sel, ins, decMeta)
		}
		res.Chunks = append(res.Chunks, b.AddChunk(QuantileFinish{Spec: op.chunkSpec(), DType: t.Meta.DType, Shape: chunkOut.Shape}, []ChunkRef{dec}, chunkOut))
	})
	return res, nil
}

// quantileSumTree merges a level's partials FanIn at a time, up to one:
// level 0's histograms add up (reduce_combine), later levels' partials are
// merged by quantile_merge, which reads the decisions dec.
func quantileSumTree(b Builder, level []ChunkRef, fan int, m Meta, dec *ChunkRef) ChunkRef {
	for len(level) > 1 {
		var next []ChunkRef
		for i := 0; i < len(level); i += fan {
			group := level[i:min(i+fan, len(level))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			if dec == nil {
				next = append(next, b.AddChunk(ReduceCombine{Func: "sum"}, slices.Clone(group), m))
				continue
			}
			next = append(next, b.AddChunk(QuantileMerge{}, append([]ChunkRef{*dec}, group...), m))
		}
		level = next
	}
	return level[0]
}

// radixBits is the widest digit (16, 8 or 4 bits) whose histograms for
// lanes lanes of slots ranks stay under maxQuantileHistBytes, or 0.
func radixBits(lanes, slots int) int {
	for _, bits := range []int{16, 8, 4} {
		if float64(lanes)*float64(slots)*float64(int(1)<<bits)*8 <= maxQuantileHistBytes {
			return bits
		}
	}
	return 0
}

// wholeLanes are splits with the reduced axes whole and the kept axes cut
// so a chunk holds about MaxQuantileLaneBytes (at least one lane).
func (op Quantile) wholeLanes(t *Tiled, laneBytes int64) [][]int {
	per := max(1, MaxQuantileLaneBytes/max(laneBytes, 1))
	out := make([][]int, t.Meta.NDim())
	for ax := t.Meta.NDim() - 1; ax >= 0; ax-- {
		d := t.Meta.Shape[ax]
		if op.reduced(ax) {
			out[ax] = []int{d}
			continue
		}
		size := int(min(int64(d), per))
		per = max(1, per/int64(max(d, 1)))
		out[ax] = evenSplits(d, max(size, 1))
	}
	return out
}

// evenSplits cuts n into chunks of size (the last may be shorter).
func evenSplits(n, size int) []int {
	if n == 0 {
		return []int{0}
	}
	var s []int
	for n > 0 {
		c := min(size, n)
		s = append(s, c)
		n -= c
	}
	return s
}

func (op Quantile) withQSplits(s [][]int) [][]int {
	if op.Median || op.QScalar {
		return s
	}
	return append([][]int{{len(op.Q)}}, s...)
}

// QuantileSpec is the serialisable ndarray.QuantileSpec of the chunk ops.
type QuantileSpec struct {
	Median    bool      `json:"median,omitempty"`
	Q         []float64 `json:"q,omitempty"`
	Method    string    `json:"method,omitempty"`
	IgnoreNaN bool      `json:"ignore_nan,omitempty"`
}

func (s QuantileSpec) nd() ndarray.QuantileSpec {
	return ndarray.QuantileSpec{Median: s.Median, Q: s.Q, Method: s.Method, IgnoreNaN: s.IgnoreNaN}
}

func (op Quantile) chunkSpec() QuantileSpec {
	return QuantileSpec{Median: op.Median, Q: op.Q, Method: op.Method, IgnoreNaN: op.IgnoreNaN}
}

// QuantileLocal computes the quantiles of a chunk holding its lanes whole.
type QuantileLocal struct {
	Spec  QuantileSpec `json:"spec"`
	Axes  []int        `json:"axes"`
	Shape []int        `json:"shape"`
}

// Type implements ChunkOp.
func (QuantileLocal) Type() string { return "quantile_local" }

// Exec implements ChunkOp.
func (op QuantileLocal) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("quantile_local: %d inputs, want 1", len(in))
	}
	return ndarray.QuantileLocal(op.Spec.nd(), in[0], op.Axes, op.Shape)
}

// QuantileHist histograms one digit of a data chunk's keys (radix-select
// level Level; inputs: the chunk, and from level 1 on the previous level's
// decisions).
type QuantileHist struct {
	Axes    []int `json:"axes"`
	Level   int   `json:"level"`
	Bits    int   `json:"bits"`
	Targets int   `json:"targets"`
}

// Type implements ChunkOp.
func (QuantileHist) Type() string { return "quantile_hist" }

// Exec implements ChunkOp.
func (op QuantileHist) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	var dec *ndarray.Array
	switch {
	case op.Level == 0 && len(in) == 1:
	case op.Level > 0 && len(in) == 2:
		dec = in[1]
	default:
		return nil, fmt.Errorf("quantile_hist: level %d with %d inputs", op.Level, len(in))
	}
	return ndarray.QuantileHistogram(in[0], op.Axes, dec, op.Level, op.Bits, op.Targets)
}

// QuantileSelect finds the digit of every rank from a level's summed
// histograms (inputs: the sum, and from level 1 on the previous decisions).
type QuantileSelect struct {
	Spec      QuantileSpec  `json:"spec"`
	DType     ndarray.DType `json:"dtype"`
	Level     int           `json:"level"`
	Bits      int           `json:"bits"`
	NoExtract bool          `json:"no_extract,omitempty"`
}

// Type implements ChunkOp.
func (QuantileSelect) Type() string { return "quantile_select" }

// Exec implements ChunkOp.
func (op QuantileSelect) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	var dec *ndarray.Array
	switch {
	case op.Level == 0 && len(in) == 1:
	case op.Level > 0 && len(in) == 2:
		dec = in[1]
	default:
		return nil, fmt.Errorf("quantile_select: level %d with %d inputs", op.Level, len(in))
	}
	return ndarray.QuantileSelect(op.Spec.nd(), op.DType, in[0], dec, op.Level, op.Bits, !op.NoExtract)
}

// QuantileMerge merges partials of a level after the first (inputs: the
// level's decisions, then the partials): counts add up, lists of keys are
// concatenated.
type QuantileMerge struct{}

// Type implements ChunkOp.
func (QuantileMerge) Type() string { return "quantile_merge" }

// Exec implements ChunkOp.
func (QuantileMerge) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("quantile_merge: %d inputs, want the decisions and partials", len(in))
	}
	return ndarray.QuantileMerge(in[0], in[1:])
}

// QuantileFinish turns the last level's decisions into the result chunk.
type QuantileFinish struct {
	Spec  QuantileSpec  `json:"spec"`
	DType ndarray.DType `json:"dtype"`
	Shape []int         `json:"shape"`
}

// Type implements ChunkOp.
func (QuantileFinish) Type() string { return "quantile_finish" }

// Exec implements ChunkOp.
func (op QuantileFinish) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("quantile_finish: %d inputs, want 1", len(in))
	}
	return ndarray.QuantileFinish(op.Spec.nd(), op.DType, in[0], op.Shape)
}
