package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		// Unknown: a reduction over the axis of unknown length reduces its chunks as they come (Infer
		// refuses the rest).
		Descriptor{Name: "reduction", Op: Reduction{}, KindsOf: reductionKinds, Unknown: true},
		Descriptor{Name: "reduce_partial", Op: ReducePartial{}, Fusion: FuseReduce},
		Descriptor{Name: "reduce_combine", Op: ReduceCombine{}},
		Descriptor{Name: "reduce_finish", Op: ReduceFinish{}},
	)
}

// DefaultFanIn is how many partial results one combine step merges.
const DefaultFanIn = 4

// Reduction reduces a tensor over a set of axes by a tree: a partial result
// per chunk, combined FanIn at a time, then finished (Mars's tree reduction, which
// depth-first scheduling runs with few live chunks).
type Reduction struct {
	// Func is sum, prod, min, max, any, all, count_nonzero, mean, var, std,
	// argmin or argmax, or a NaN-aware one: nansum, nanprod, nanmin, nanmax,
	// nanmean, nanvar, nanstd, nanargmin or nanargmax.
	Func string `json:"func"`
	// Axes are normalised and sorted. For argmin/argmax, nil means over the
	// flattened tensor and otherwise it holds one axis.
	Axes     []int `json:"axes"`
	KeepDims bool  `json:"keepdims,omitempty"`
	DDof     int   `json:"ddof,omitempty"`
	FanIn    int   `json:"fan_in,omitempty"`
}

// Type implements TensorOp.
func (op Reduction) Type() string { return op.Func }

type reduceKind uint8

const (
	kindPlain reduceKind = iota
	kindMoments
	kindArg
)

func (op Reduction) kind() (reduceKind, error) {
	switch op.Func {
	case "mean", "var", "std", "nanmean", "nanvar", "nanstd":
		return kindMoments, nil
	case "argmin", "argmax", "nanargmin", "nanargmax":
		return kindArg, nil
	}
	if _, err := ndarray.ParseReduceOp(op.Func); err != nil {
		return 0, err
	}
	return kindPlain, nil
}

// reduced reports whether axis ax is reduced (all axes for a flat argmin).
func (op Reduction) reduced(ax int) bool {
	if op.Axes == nil {
		return true
	}
	for _, a := range op.Axes {
		if a == ax {
			return true
		}
	}
	return false
}

func (op Reduction) outShape(in []int) []int {
	var s []int
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

// Infer implements TensorOp.
func (op Reduction) Infer(in []Meta) (Meta, error) {
	if len(in) != 1 {
		return Meta{}, fmt.Errorf("%s takes 1 input, got %d", op.Func, len(in))
	}
	k, err := op.kind()
	if err != nil {
		return Meta{}, err
	}
	m := in[0]
	prev := -1
	for _, a := range op.Axes {
		if a <= prev || a >= m.NDim() {
			return Meta{}, fmt.Errorf("%s: axes %v invalid for a %d-D tensor", op.Func, op.Axes, m.NDim())
		}
		prev = a
	}
	if k == kindArg && len(op.Axes) > 1 {
		return Meta{}, fmt.Errorf("%s: takes one axis or none, got %v", op.Func, op.Axes)
	}
	if op.Func == "min" || op.Func == "max" || op.Func == "nanmin" || op.Func == "nanmax" || k == kindArg {
		for ax, d := range m.Shape {
			if op.reduced(ax) && d == 0 {
				return Meta{}, fmt.Errorf("%s: zero-size axis %d of shape %v has no identity", op.Func, ax, m.Shape)
			}
		}
	}
	if ax := m.UnknownAxis(); ax >= 0 {
		switch {
		case !op.reduced(ax):
			return Meta{}, fmt.Errorf("%s over axes %v of a tensor of unknown length along axis %d keeps that axis, which needs its chunks' lengths: reduce over axis %d too, or execute the tensor first", op.Func, op.Axes, ax, ax)
		case op.Func == "min" || op.Func == "max" || k == kindArg:
			// A chunk of unknown length may be empty, where these have no
			// identity, and argmin/argmax need every chunk's offset.
			return Meta{}, fmt.Errorf("%s of a tensor of unknown length along axis %d: execute the tensor first", op.Func, ax)
		}
	}
	var dt ndarray.DType
	switch k {
	case kindPlain:
		r, _ := ndarray.ParseReduceOp(op.Func)
		dt = ndarray.ReduceResultType(r, m.DType)
	case kindMoments:
		dt = ndarray.MeanResultType(m.DType)
	case kindArg:
		dt = ndarray.Int64
	}
	return Meta{Shape: op.outShape(m.Shape), DType: dt}, nil
}

// Tile implements TensorOp.
func (op Reduction) Tile(b Builder, in []*Tiled, out Meta) (*Tiled, error) {
	t := in[0]
	k, err := op.kind()
	if err != nil {
		return nil, err
	}
	fan := op.FanIn
	if fan < 2 {
		fan = DefaultFanIn
	}
	nd := t.Meta.NDim()
	grid := t.Grid()
	offs := AxisOffsets(t.NSplits)
	// Output grid: the kept axes of the input grid.
	var keptGrid, redGrid []int
	var outSplits [][]int
	red := make([]bool, nd)
	for ax := range nd {
		red[ax] = op.reduced(ax)
		if red[ax] {
			redGrid = append(redGrid, grid[ax])
			if op.KeepDims {
				outSplits = append(outSplits, []int{1})
			}
		} else {
			keptGrid = append(keptGrid, grid[ax])
			outSplits = append(outSplits, t.NSplits[ax])
		}
	}
	res := &Tiled{Meta: out, NSplits: outSplits}
	axes := op.Axes
	argAxis := -1
	if k == kindArg && len(op.Axes) == 1 {
		argAxis = op.Axes[0]
	}
	if op.Axes == nil {
		axes = make([]int, nd)
		for i := range axes {
			axes[i] = i
		}
	}
	// A partial per chunk, and a tree of combines over the partials of
	// each output chunk: about one per fan-1 of them, plus the finish.
	perOut := gridCount(redGrid)
	total := gridCount(keptGrid) * (perOut + combinesAtMost(perOut, fan))
	reserve(b, total)
	// The partials of a plain or moments reduction are all the same op:
	// boxed once, not once per chunk (an arg reduction's carry offsets).
	var partial ChunkOp
	if k != kindArg {
		partial = ReducePartial{Func: op.Func, Axes: axes, ArgAxis: argAxis}
	}
	// Chunk ops' input lists are cut from shared blocks, and the tree's
	// levels reuse two buffers: a reduction of a million chunks would
	// otherwise make a million and a third small allocations. Each input
	// is named by one combine or finish, so total bounds what they take:
	// a small reduction (an interactive graph's) gets a small block.
	var block []ChunkRef
	inputs := func(refs ...ChunkRef) []ChunkRef {
		if cap(block)-len(block) < len(refs) {
			block = make([]ChunkRef, 0, max(min(4096, total), len(refs)))
		}
		start := len(block)
		block = append(block, refs...)
		return block[start:len(block):len(block)]
	}
	var combine ChunkOp = ReduceCombine{Func: op.Func} // every combine below the root
	var next []ChunkRef
	level := make([]ChunkRef, 0, perOut)
	ForEachGrid(keptGrid, func(kidx []int) {
		// The partials of one output chunk, one per input chunk along
		// the reduced axes, as one bulk: each range of it with its own
		// scratch, reading kidx, which stays as it is until the bulk
		// is in.
		level = slices.Grow(level[:0], perOut)[:perOut]
		addBulk(b, perOut, 1, func(lo, hi int, put BulkPut) {
			full := make([]int, nd)
			ridx := make([]int, len(redGrid))
			gridAt(redGrid, lo, ridx)
			var shapes ShapeCache
			var last struct {
				in  []int
				dt  ndarray.DType
				out Meta
				ok  bool
			}
			var in [1]ChunkRef
			for i := lo; i < hi; i++ {
				joinGridIndex(full, red, kidx, ridx)
				c := t.Chunks[GridFlat(grid, full)]
				cm := b.ChunkMeta(c)
				p := ReducePartial{Func: op.Func, Axes: axes, ArgAxis: argAxis}
				if k == kindArg {
					p.Global = t.Meta.Shape
					p.Offset = ChunkOffset(offs, full)
				}
				// Chunks of one shape (one slice, from the input's
				// tiling) have partials of one meta: worked out once
				// per run of them.
				if k == kindArg || !last.ok || !sameSlice(cm.Shape, last.in) || cm.DType != last.dt {
					m := p.meta(cm)
					m.Shape = shapes.Same(m.Shape)
					last.in, last.dt, last.out, last.ok = cm.Shape, cm.DType, m, true
				}
				pop := partial
				if pop == nil {
					pop = p
				}
				in[0] = c
				put(i, pop, in[:], last.out)
				gridNext(redGrid, ridx)
			}
		}, level)
		chunkOut := Meta{Shape: op.outShape(b.ChunkMeta(level[0]).Shape[op.lead():]), DType: out.DType}
		if len(level) == 1 {
			// One chunk along the reduced axes: finish it in place.
			res.Chunks = append(res.Chunks, b.AddChunk(ReduceFinish{Func: op.Func, DDof: op.DDof, Shape: chunkOut.Shape, DType: out.DType}, inputs(level...), chunkOut))
			return
		}
		for len(level) > 1 {
			next = next[:0]
			start := 0
			if len(level) > fan {
				// Below the root, the level's full groups as one bulk;
				// the rest as before.
				m := len(level) / fan
				start = m * fan
				next = slices.Grow(next, m)[:m]
				from := level
				addBulk(b, m, fan, func(lo, hi int, put BulkPut) {
					for j := lo; j < hi; j++ {
						group := from[j*fan : (j+1)*fan]
						put(j, combine, group, b.ChunkMeta(group[0]))
					}
				}, next)
			}
			for i := start; i < len(level); i += fan {
				group := level[i:min(i+fan, len(level))]
				if len(group) == 1 {
					next = append(next, group[0])
					continue
				}
				c := combine
				meta := b.ChunkMeta(group[0])
				if len(level) <= fan {
					// The root: combine and finish in one op.
					c = ReduceCombine{Func: op.Func, Finish: &ReduceFinish{Func: op.Func, DDof: op.DDof, Shape: chunkOut.Shape, DType: out.DType}}
					meta = chunkOut
				}
				next = append(next, b.AddChunk(c, inputs(group...), meta))
			}
			level, next = next, level
		}
		res.Chunks = append(res.Chunks, level[0])
	})
	return res, nil
}

// lead is the number of leading stat axes a partial carries.
func (op Reduction) lead() int {
	k, _ := op.kind()
	switch k {
	case kindMoments:
		return 1
	case kindArg:
		return 1
	}
	return 0
}

// ReducePartial reduces one chunk to a partial result with kept dims.
type ReducePartial struct {
	Func    string `json:"func"`
	Axes    []int  `json:"axes"`
	ArgAxis int    `json:"arg_axis"`
	Global  []int  `json:"global,omitempty"`
	Offset  []int  `json:"offset,omitempty"`
}

// Type implements ChunkOp.
func (op ReducePartial) Type() string { return reduceTypeName(op.Func, 0) }

func (op ReducePartial) keep(shape []int) []int {
	s := append([]int(nil), shape...)
	for _, a := range op.Axes {
		s[a] = 1
	}
	return s
}

func (op ReducePartial) meta(in Meta) Meta {
	switch op.Func {
	case "mean", "var", "std", "nanmean", "nanvar", "nanstd", "nanargmin", "nanargmax":
		// moments: count, mean, M2; nan arg: value, index, seen
		return Meta{Shape: append([]int{3}, op.keep(in.Shape)...), DType: ndarray.Float64}
	case "argmin", "argmax":
		return Meta{Shape: append([]int{2}, op.keep(in.Shape)...), DType: ndarray.Float64}
	}
	r, _ := ndarray.ParseReduceOp(op.Func)
	return Meta{Shape: op.keep(in.Shape), DType: ndarray.ReduceResultType(r, in.DType)}
}

// Exec implements ChunkOp.
func (op ReducePartial) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	a := in[0]
	switch op.Func {
	case "mean", "var", "std":
		return ndarray.Moments(a, op.Axes)
	case "nanmean", "nanvar", "nanstd":
		return ndarray.NanMoments(a, op.Axes)
	case "argmin", "argmax":
		return ndarray.ArgPartial(op.Func == "argmax", a, op.ArgAxis, op.Global, op.Offset)
	case "nanargmin", "nanargmax":
		return ndarray.NanArgPartial(op.Func == "nanargmax", a, op.ArgAxis, op.Global, op.Offset)
	}
	r, err := ndarray.ParseReduceOp(op.Func)
	if err != nil {
		return nil, err
	}
	return ndarray.Reduce(r, a, op.Axes, true)
}

// ReduceCombine merges partial results, and finishes them at the root.
type ReduceCombine struct {
	Func   string        `json:"func"`
	Finish *ReduceFinish `json:"finish,omitempty"`
}

// Type implements ChunkOp.
func (op ReduceCombine) Type() string { return reduceTypeName(op.Func, 1) }

// Exec implements ChunkOp.
func (op ReduceCombine) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	var out *ndarray.Array
	var err error
	switch op.Func {
	case "mean", "var", "std", "nanmean", "nanvar", "nanstd":
		out, err = ndarray.CombineMoments(in)
	case "argmin", "argmax":
		out, err = ndarray.CombineArg(op.Func == "argmax", in)
	case "nanargmin", "nanargmax":
		out, err = ndarray.CombineNanArg(op.Func == "nanargmax", in)
	default:
		var r ndarray.ReduceOp
		r, err = ndarray.ParseReduceOp(op.Func)
		if err == nil {
			out, err = ndarray.Combine(r, in)
		}
	}
	if err != nil || op.Finish == nil {
		return out, err
	}
	return op.Finish.Exec(ctx, []*ndarray.Array{out})
}

// ExecInto implements OutputInto: a combine of plain reductions without a
// finish writes into out.
func (op ReduceCombine) ExecInto(ctx context.Context, in []*ndarray.Array, out *ndarray.Array) (*ndarray.Array, error) {
	if op.Finish != nil {
		return op.Exec(ctx, in)
	}
	switch op.Func {
	case "mean", "var", "std", "nanmean", "nanvar", "nanstd", "argmin", "argmax", "nanargmin", "nanargmax":
		return op.Exec(ctx, in)
	}
	r, err := ndarray.ParseReduceOp(op.Func)
	if err != nil {
		return nil, err
	}
	return ndarray.CombineInto(r, in, out)
}

// ReduceFinish turns a (combined) partial into the final chunk: statistics
// for mean/var/std, indices for argmin/argmax, then the output shape and dtype.
type ReduceFinish struct {
	Func  string        `json:"func"`
	DDof  int           `json:"ddof,omitempty"`
	Shape []int         `json:"shape"`
	DType ndarray.DType `json:"dtype"`
}

// Type implements ChunkOp.
func (op ReduceFinish) Type() string { return reduceTypeName(op.Func, 2) }

// Exec implements ChunkOp.
func (op ReduceFinish) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	a := in[0]
	var err error
	switch op.Func {
	case "mean":
		a, err = ndarray.FinishMoments(a, ndarray.StatMean, op.DDof)
	case "var":
		a, err = ndarray.FinishMoments(a, ndarray.StatVar, op.DDof)
	case "std":
		a, err = ndarray.FinishMoments(a, ndarray.StatStd, op.DDof)
	case "nanmean":
		a, err = ndarray.FinishNanMoments(a, ndarray.StatMean, op.DDof)
	case "nanvar":
		a, err = ndarray.FinishNanMoments(a, ndarray.StatVar, op.DDof)
	case "nanstd":
		a, err = ndarray.FinishNanMoments(a, ndarray.StatStd, op.DDof)
	case "argmin", "argmax":
		a = ndarray.FinishArg(a)
	case "nanargmin", "nanargmax":
		a, err = ndarray.FinishNanArg(op.Func == "nanargmax", a)
	}
	if err != nil {
		return nil, err
	}
	if a, err = a.Reshape(op.Shape...); err != nil {
		return nil, fmt.Errorf("%s finish: %w", op.Func, err)
	}
	if a.DType() != op.DType {
		a = a.Astype(op.DType)
	}
	return a, nil
}

// reduceTypeNames are the chunk op types of the common reductions, made
// once: Type is asked of every chunk op by the worker and the scheduler,
// and a concatenation per call was an allocation per op. Read only.
var reduceTypeNames = func() map[string][3]string {
	m := make(map[string][3]string)
	for _, fn := range []string{"sum", "prod", "min", "max", "mean", "var", "std", "any", "all",
		"nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd",
		"argmin", "argmax", "nanargmin", "nanargmax", "count_nonzero"} {
		m[fn] = [3]string{fn + "_partial", fn + "_combine", fn + "_finish"}
	}
	return m
}()

// sumTypeNames are reduceTypeNames' entry for "sum". Read only.
var sumTypeNames = reduceTypeNames["sum"]

// reduceTypeName is fn's partial (stage 0), combine (1) or finish (2)
// type.
func reduceTypeName(fn string, stage int) string {
	if fn == "sum" {
		// The most common, asked per chunk op: no map lookup.
		return sumTypeNames[stage]
	}
	if t, ok := reduceTypeNames[fn]; ok {
		return t[stage]
	}
	return fn + [3]string{"_partial", "_combine", "_finish"}[stage]
}

// joinGridIndex writes into full the chunk grid index whose reduced axes
// (red) take their positions from ridx and whose kept axes from kidx, in
// axis order.
func joinGridIndex(full []int, red []bool, kidx, ridx []int) {
	ki, ri := 0, 0
	for ax, r := range red {
		if r {
			full[ax] = ridx[ri]
			ri++
		} else {
			full[ax] = kidx[ki]
			ki++
		}
	}
}
