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
		Descriptor{Name: "histogram", Op: Histogram{}},
		Descriptor{Name: "histogram_chunk", Op: HistogramChunk{}},
		Descriptor{Name: "bincount", Op: Bincount{}},
		Descriptor{Name: "bincount_chunk", Op: BincountChunk{}},
		Descriptor{Name: "digitize", Op: Digitize{}},
	)
}

// Histograms and counts. Each chunk of the data computes its own partial
// counts (a vector of the output's length), and the partials are added by
// the tree of ReduceCombine{Func: "sum"} ops that sums use, so the data is
// never gathered: only vectors of bin counts travel.

// Histogram counts its first input into the bins whose edges are its second
// input (a 1-D tensor of Bins+1 edges, rechunked to one chunk); an optional
// third input of the first one's shape weighs each element. Bin i holds
// edges[i] <= x < edges[i+1], the last bin also x == edges[Bins], as
// NumPy's histogram; values outside the edges and NaN are not counted.
type Histogram struct {
	Bins     int  `json:"bins"`
	Weighted bool `json:"weighted,omitempty"`
	// AutoRange marks edges computed from the data's minimum and maximum:
	// non-finite ones (NaN or infinite data) are an error, as in NumPy.
	AutoRange bool `json:"auto_range,omitempty"`
	// Uniform marks equal bins (NumPy's bins given as a count): the bin of
	// a value is computed from its offset as NumPy does, not searched.
	Uniform bool `json:"uniform,omitempty"`
	FanIn   int  `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (op Histogram) Type() string { return "histogram" }

// Infer implements TensorOp.
func (op Histogram) Infer(in []Meta) (Meta, error) {
	want := 2
	if op.Weighted {
		want = 3
	}
	if len(in) != want {
		return Meta{}, fmt.Errorf("histogram takes %d inputs, got %d", want, len(in))
	}
	if op.Bins < 1 {
		return Meta{}, fmt.Errorf("histogram: %d bins; want at least 1", op.Bins)
	}
	if e := in[1]; e.NDim() != 1 || e.Shape[0] != op.Bins+1 {
		return Meta{}, fmt.Errorf("histogram: bin edges of shape %v, want [%d] for %d bins", e.Shape, op.Bins+1, op.Bins)
	}
	dt := ndarray.Int64
	if op.Weighted {
		if !ndarray.SameShape(in[2].Shape, in[0].Shape) {
			return Meta{}, fmt.Errorf("histogram: weights of shape %v, but the data has shape %v: weights should have the same shape as a", in[2].Shape, in[0].Shape)
		}
		dt = in[2].DType
	}
	return Meta{Shape: []int{op.Bins}, DType: dt}, nil
}

// Tile implements TensorOp.
func (op Histogram) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	data := in[:1]
	if op.Weighted {
		aligned, _, err := AlignBroadcast(b, []*Tiled{in[0], in[2]}, in[0].Meta.Shape)
		if err != nil {
			return nil, err
		}
		data = aligned
	}
	edges := RechunkTiled(b, in[1], [][]int{{op.Bins + 1}}).Chunks[0]
	part := HistogramChunk{Bins: op.Bins, Weighted: op.Weighted, AutoRange: op.AutoRange, Uniform: op.Uniform}
	pm := Meta{Shape: []int{op.Bins}, DType: partialCountType(op.Weighted, out.DType)}
	var level []ChunkRef
	for i, c := range data[0].Chunks {
		refs := []ChunkRef{c, edges}
		if op.Weighted {
			refs = append(refs, data[1].Chunks[i])
		}
		level = append(level, b.AddChunk(part, refs, pm))
	}
	if len(level) == 0 { // no chunks: a zero-size input
		level = append(level, b.AddChunk(part, []ChunkRef{edges}, pm))
	}
	return countTree(b, level, op.FanIn, out), nil
}

// partialCountType is the dtype partial counts accumulate in: int64 counts
// and integer weights, float64 float weights.
func partialCountType(weighted bool, out ndarray.DType) ndarray.DType {
	if weighted && out.IsFloat() {
		return ndarray.Float64
	}
	return ndarray.Int64
}

// countTree adds same-shape partials FanIn at a time and finishes the root
// into out's dtype, with the combine ops of sum reductions.
func countTree(b Builder, level []ChunkRef, fanIn int, out Meta) *Tiled {
	fan := fanIn
	if fan < 2 {
		fan = DefaultFanIn
	}
	fin := ReduceFinish{Func: "sum", Shape: out.Shape, DType: out.DType}
	res := &Tiled{Meta: out, NSplits: [][]int{{out.Shape[0]}}}
	if len(level) == 1 {
		res.Chunks = []ChunkRef{b.AddChunk(fin, level, out)}
		return res
	}
	for len(level) > 1 {
		var next []ChunkRef
		for i := 0; i < len(level); i += fan {
			group := level[i:min(i+fan, len(level))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			c := ReduceCombine{Func: "sum"}
			meta := b.ChunkMeta(group[0])
			if len(level) <= fan {
				f := fin
				c.Finish = &f
				meta = out
			}
			next = append(next, b.AddChunk(c, append([]ChunkRef(nil), group...), meta))
		}
		level = next
	}
	res.Chunks = level
	return res
}

// HistogramChunk is the partial histogram of one chunk: inputs data,
// edges and (Weighted) weights; with only the edges it is an empty
// histogram. Int64 counts, or float64 (int64 for integer weights) sums of
// weights.
type HistogramChunk struct {
	Bins      int  `json:"bins"`
	Weighted  bool `json:"weighted,omitempty"`
	AutoRange bool `json:"auto_range,omitempty"`
	Uniform   bool `json:"uniform,omitempty"`
}

// Type implements ChunkOp.
func (op HistogramChunk) Type() string { return "histogram_chunk" }

// Exec implements ChunkOp.
func (op HistogramChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) == 1 {
		in = []*ndarray.Array{nil, in[0]}
	}
	if op.Bins < 1 || len(in) < 2 || in[1] == nil || in[1].NDim() != 1 || in[1].Shape()[0] != op.Bins+1 {
		return nil, fmt.Errorf("histogram chunk: want data, %d edges (at least 2) and optional weights", op.Bins+1)
	}
	edges := in[1].Astype(ndarray.Float64).Contiguous().Float64s()[:op.Bins+1]
	if op.AutoRange && !(isFinite(edges[0]) && isFinite(edges[op.Bins])) {
		return nil, fmt.Errorf("histogram: autodetected range of [%v, %v] is not finite", edges[0], edges[op.Bins])
	}
	for i := 1; i < len(edges); i++ {
		if edges[i] < edges[i-1] {
			return nil, fmt.Errorf("histogram: bins must increase monotonically, when an array: edge %d is %v after %v", i, edges[i], edges[i-1])
		}
	}
	intW := op.Weighted && len(in) == 3 && !in[2].DType().IsFloat()
	dt := ndarray.Int64
	if op.Weighted && !intW {
		dt = ndarray.Float64
	}
	out, err := ndarray.New(dt, op.Bins)
	if err != nil {
		return nil, err
	}
	if in[0] == nil || in[0].Size() == 0 {
		return out, nil
	}
	if op.Weighted && (len(in) != 3 || !ndarray.SameShape(in[0].Shape(), in[2].Shape())) {
		return nil, fmt.Errorf("histogram chunk: weights missing or not of the data's shape %v", in[0].Shape())
	}
	h := histBinner{edges: edges, n: op.Bins, uniform: op.Uniform}
	h.norm = float64(op.Bins) / (edges[op.Bins] - edges[0])
	x := in[0].Contiguous()
	var w *ndarray.Array
	if op.Weighted {
		w = in[2]
		if intW {
			w = w.Astype(ndarray.Int64)
		} else {
			w = w.Astype(ndarray.Float64)
		}
		w = w.Contiguous()
	}
	switch x.DType() {
	case ndarray.Float64:
		histCount(h, x.Float64s()[:x.Size()], w, out)
	case ndarray.Float32:
		histCount(h, x.Float32s()[:x.Size()], w, out)
	case ndarray.Int64:
		histCount(h, x.Int64s()[:x.Size()], w, out)
	case ndarray.Int32:
		histCount(h, x.Int32s()[:x.Size()], w, out)
	case ndarray.Bool:
		histCount(h, x.Bools()[:x.Size()], w, out)
	case ndarray.Int16:
		histCount(h, x.Int16s()[:x.Size()], w, out)
	case ndarray.Int8:
		histCount(h, x.Int8s()[:x.Size()], w, out)
	case ndarray.Uint64:
		histCount(h, x.Uint64s()[:x.Size()], w, out)
	case ndarray.Uint32:
		histCount(h, x.Uint32s()[:x.Size()], w, out)
	case ndarray.Uint16:
		histCount(h, x.Uint16s()[:x.Size()], w, out)
	case ndarray.Uint8:
		histCount(h, x.Uint8s()[:x.Size()], w, out)
	}
	return out, ctx.Err()
}

// histBinner finds the bin of a value: edges[i] <= v < edges[i+1], the last
// bin closed; -1 outside the edges and for NaN.
type histBinner struct {
	edges   []float64
	n       int
	uniform bool
	norm    float64 // n / (last - first)
}

func (h histBinner) bin(v float64) int {
	e := h.edges
	if !(v >= e[0] && v <= e[h.n]) {
		return -1
	}
	if h.uniform {
		// NumPy's computation for equal bins: the index from the offset,
		// then corrected by one against the edges themselves.
		i := h.n - 1
		if f := (v - e[0]) * h.norm; f < float64(h.n) { // false for NaN (edges all equal)
			i = int(f)
		}
		if v < e[i] {
			i--
		} else if i != h.n-1 && v >= e[i+1] {
			i++
		}
		return i
	}
	if v == e[h.n] {
		return h.n - 1
	}
	lo, hi := 0, h.n // the last edge <= v, by bisection
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if e[m] <= v {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// histCount adds x's counts (or weights) into out.
func histCount[T float64 | float32 | int64 | int32 | int16 | int8 | uint64 | uint32 | uint16 | uint8](h histBinner, x []T, w, out *ndarray.Array) {
	switch {
	case w == nil:
		o := out.Int64s()
		for _, v := range x {
			if i := h.bin(float64(v)); i >= 0 {
				o[i]++
			}
		}
	case w.DType() == ndarray.Int64:
		ws, o := w.Int64s(), out.Int64s()
		for j, v := range x {
			if i := h.bin(float64(v)); i >= 0 {
				o[i] += ws[j]
			}
		}
	default:
		ws, o := w.Float64s(), out.Float64s()
		for j, v := range x {
			if i := h.bin(float64(v)); i >= 0 {
				o[i] += ws[j]
			}
		}
	}
}

func isFinite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// Bincount counts each value of a 1-D tensor of non-negative integers
// (NumPy's bincount), optionally summing weights (a second input of the same
// length) instead. The output has a length fixed when the graph is built:
// a value at or beyond it fails the chunk that holds it, naming the value.
type Bincount struct {
	Length   int  `json:"length"`
	Weighted bool `json:"weighted,omitempty"`
	FanIn    int  `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (op Bincount) Type() string { return "bincount" }

// Infer implements TensorOp.
func (op Bincount) Infer(in []Meta) (Meta, error) {
	want := 1
	if op.Weighted {
		want = 2
	}
	if len(in) != want {
		return Meta{}, fmt.Errorf("bincount takes %d inputs, got %d", want, len(in))
	}
	x := in[0]
	if x.NDim() != 1 {
		return Meta{}, fmt.Errorf("bincount: input of shape %v; want a 1-D array", x.Shape)
	}
	if x.DType.IsFloat() {
		return Meta{}, fmt.Errorf("bincount: input of dtype %v; want integers (or bools): cannot cast safely to int64", x.DType)
	}
	if op.Length < 0 {
		return Meta{}, fmt.Errorf("bincount: length %d; want at least 0", op.Length)
	}
	dt := ndarray.Int64
	if op.Weighted {
		if w := in[1]; !ndarray.SameShape(w.Shape, x.Shape) {
			return Meta{}, fmt.Errorf("bincount: weights of shape %v but the input has shape %v: the weights and list don't have the same length", w.Shape, x.Shape)
		}
		dt = ndarray.Float64
	}
	return Meta{Shape: []int{op.Length}, DType: dt}, nil
}

// Tile implements TensorOp.
func (op Bincount) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	data := in
	if op.Weighted {
		aligned, _, err := AlignBroadcast(b, in, in[0].Meta.Shape)
		if err != nil {
			return nil, err
		}
		data = aligned
	}
	part := BincountChunk{Length: op.Length, Weighted: op.Weighted}
	pm := Meta{Shape: []int{op.Length}, DType: out.DType}
	var level []ChunkRef
	offs := AxisOffsets(data[0].NSplits)[0]
	for i, c := range data[0].Chunks {
		p := part
		p.Offset = offs[i]
		refs := []ChunkRef{c}
		if op.Weighted {
			refs = append(refs, data[1].Chunks[i])
		}
		level = append(level, b.AddChunk(p, refs, pm))
	}
	if len(level) == 0 {
		level = append(level, b.AddChunk(part, nil, pm))
	}
	return countTree(b, level, op.FanIn, out), nil
}

// BincountChunk counts one chunk of a bincount; Offset is the chunk's start
// in the whole input, for error messages.
type BincountChunk struct {
	Length   int  `json:"length"`
	Weighted bool `json:"weighted,omitempty"`
	Offset   int  `json:"offset,omitempty"`
}

// Type implements ChunkOp.
func (op BincountChunk) Type() string { return "bincount_chunk" }

// BincountRangeError is a bincount value outside [0, length).
type BincountRangeError struct {
	Value  int64
	Index  int // in the whole input
	Length int
}

func (e *BincountRangeError) Error() string {
	if e.Value < 0 {
		return fmt.Sprintf("bincount: value %d at index %d is negative: 'list' argument must have no negative elements", e.Value, e.Index)
	}
	return fmt.Sprintf("bincount: value %d at index %d does not fit a result of length %d; pass a length (minlength) above the maximum, e.g. x.Max()+1 computed first", e.Value, e.Index, e.Length)
}

// Exec implements ChunkOp.
func (op BincountChunk) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if op.Length < 0 {
		return nil, fmt.Errorf("bincount chunk: length %d is negative", op.Length)
	}
	dt := ndarray.Int64
	if op.Weighted {
		dt = ndarray.Float64
	}
	out, err := ndarray.New(dt, op.Length)
	if err != nil {
		return nil, err
	}
	if len(in) == 0 || in[0].Size() == 0 {
		return out, nil
	}
	x := in[0].Astype(ndarray.Int64).Contiguous().Int64s()[:in[0].Size()]
	for i, v := range x {
		if v < 0 || v >= int64(op.Length) {
			return nil, &BincountRangeError{Value: v, Index: op.Offset + i, Length: op.Length}
		}
	}
	if !op.Weighted {
		o := out.Int64s()
		for _, v := range x {
			o[v]++
		}
		return out, ctx.Err()
	}
	if len(in) != 2 || in[1].Size() != len(x) {
		return nil, fmt.Errorf("bincount chunk: weights missing or not of the input's length %d", len(x))
	}
	w := in[1].Astype(ndarray.Float64).Contiguous().Float64s()
	o := out.Float64s()
	for i, v := range x {
		o[v] += w[i]
	}
	return out, ctx.Err()
}

// Digitize is NumPy's digitize: for each element of the first input, the
// index of the bin (the second input, 1-D, monotonic either way) it falls
// in. With increasing bins it is i with bins[i-1] <= x < bins[i] (Right:
// bins[i-1] < x <= bins[i]); decreasing bins mirror that. The bins go to
// every chunk whole; a non-monotonic bins array fails the chunks.
type Digitize struct {
	Right bool `json:"right,omitempty"`
}

// Type implements both TensorOp and ChunkOp.
func (op Digitize) Type() string { return "digitize" }

// Infer implements TensorOp.
func (op Digitize) Infer(in []Meta) (Meta, error) {
	if len(in) != 2 {
		return Meta{}, fmt.Errorf("digitize takes 2 inputs, got %d", len(in))
	}
	if in[1].NDim() != 1 {
		return Meta{}, fmt.Errorf("digitize: bins of shape %v; want a 1-D array", in[1].Shape)
	}
	return Meta{Shape: append([]int(nil), in[0].Shape...), DType: ndarray.Int64}, nil
}

// Tile implements TensorOp.
func (op Digitize) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	bins := RechunkTiled(b, in[1], [][]int{{in[1].Meta.Shape[0]}}).Chunks[0]
	x := in[0]
	res := &Tiled{Meta: out, NSplits: x.NSplits}
	var shapes ShapeCache
	ForEachGrid(x.Grid(), func(idx []int) {
		m := Meta{Shape: shapes.Shape(x.NSplits, idx), DType: ndarray.Int64}
		res.Chunks = append(res.Chunks, b.AddChunk(op, []ChunkRef{x.At(idx), bins}, m))
	})
	return res, nil
}

// Exec implements ChunkOp: inputs a chunk of x and the whole bins.
func (op Digitize) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("digitize: want x and bins, got %d inputs", len(in))
	}
	bins := in[1].Astype(ndarray.Float64).Contiguous().Float64s()[:in[1].Size()]
	dec, err := monotonic(bins)
	if err != nil {
		return nil, err
	}
	out, err := ndarray.New(ndarray.Int64, in[0].Shape()...)
	if err != nil {
		return nil, err
	}
	x := in[0].Astype(ndarray.Float64).Contiguous().Float64s()[:in[0].Size()]
	o := out.Int64s()
	n := len(bins)
	// NumPy's searchsorted, NaN last: side right counts the bins <= x,
	// side left those < x.
	le := func(b, v float64) bool { return b <= v || v != v }
	lt := func(b, v float64) bool { return b < v || (v != v && b == b) }
	for i, v := range x {
		switch {
		case !dec && !op.Right:
			o[i] = int64(sort.Search(n, func(j int) bool { return !le(bins[j], v) }))
		case !dec:
			o[i] = int64(sort.Search(n, func(j int) bool { return !lt(bins[j], v) }))
		case !op.Right:
			// n - searchsorted(bins[::-1], v, side='right')
			o[i] = int64(n - sort.Search(n, func(j int) bool { return !le(bins[n-1-j], v) }))
		default:
			o[i] = int64(n - sort.Search(n, func(j int) bool { return !lt(bins[n-1-j], v) }))
		}
	}
	return out, ctx.Err()
}

// monotonic reports whether bins decrease, or an error when they neither
// increase nor decrease (NumPy's _monotonicity; equal neighbours and a
// constant array count as increasing).
func monotonic(bins []float64) (decreasing bool, err error) {
	i := 1
	for i < len(bins) && bins[i] == bins[i-1] {
		i++
	}
	if i >= len(bins) {
		return false, nil // no bins, one, or all equal
	}
	decreasing = bins[i] < bins[i-1]
	for ; i < len(bins); i++ {
		if (decreasing && bins[i] > bins[i-1]) || (!decreasing && bins[i] < bins[i-1]) {
			return false, fmt.Errorf("digitize: bins must be monotonically increasing or decreasing: bins[%d] = %v after %v", i, bins[i], bins[i-1])
		}
	}
	return decreasing, nil
}
