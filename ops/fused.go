package ops

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/rng"
)

// DefaultTile is the number of elements a fused kernel evaluates at once:
// numexpr's choice, a few L1/L2-resident blocks per op.
const DefaultTile = 4096

// A fused moments reduction over leading axes evaluates at least
// momentsTileRows rows per tile, up to momentsTile elements.
const (
	momentsTileRows = 64
	momentsTile     = 1 << 16
)

// FusedNode is one op inside a Fused kernel. Args name its operands: an
// index >= 0 is an earlier node, -1-k is the kernel's k-th input chunk.
type FusedNode struct {
	Op   ChunkOp `json:"op"`
	Args []int   `json:"args"`
	Meta Meta    `json:"meta"`
	// Level 1 nodes run after the kernel's inner reduction (see Fused.K1).
	Level uint8 `json:"level,omitempty"`
}

// Fused runs a connected group of chunk ops of one chunk position as one
// kernel (seeds/001's FUSE node, extended): generators, elementwise ops and
// a trailing reduction are evaluated tile by tile over the iteration shape,
// so no full-size temporary is ever made. The last node is the root; its
// output is the kernel's output.
type Fused struct {
	Shape []int       `json:"shape"`
	Nodes []FusedNode `json:"nodes"`
	Tile  int         `json:"tile,omitempty"`
	// Recomputed counts generators that are shared with other kernels and
	// recomputed here rather than materialised once.
	Recomputed int `json:"recomputed,omitempty"`
	// Two-level kernels: an inner reduction over runs of K1 consecutive
	// elements of Shape (W2's sum over the last axis) feeds level-1 nodes
	// that iterate over Shape1, so the reduced intermediate is never
	// materialised either. InputLevels gives the level of each input.
	Shape1      []int   `json:"shape1,omitempty"`
	K1          int     `json:"k1,omitempty"`
	InputLevels []uint8 `json:"input_levels,omitempty"`

	// scratch, when set (Shared), keeps the working sets of finished runs
	// of this kernel for the next: the chunks of one tensor op share one
	// kernel, and a chunk of 100 elements would otherwise allocate and
	// fill its tile buffers and constants for a few hundred nanoseconds of
	// arithmetic. Not encoded: a decoded kernel allocates afresh.
	scratch *sync.Pool
}

// Shared returns op set to reuse its working memory from one run to the
// next (safe concurrently: each run takes its own). For a kernel that many
// chunks share.
func (op Fused) Shared() Fused {
	op.scratch = new(sync.Pool)
	return op
}

// Type implements ChunkOp. It is the registry name, the same for every
// fused kernel; Label names the ops inside.
func (Fused) Type() string { return "fuse" }

// Label lists the fused ops, for explain output and error messages.
// ScratchBytes implements ScratchEstimator: one tile of float64 per node.
func (op Fused) ScratchBytes(Meta) int64 {
	tile := op.Tile
	if tile <= 0 {
		tile = DefaultTile
	}
	return int64(len(op.Nodes)) * int64(tile) * 8
}

func (op Fused) Label() string {
	names := make([]string, len(op.Nodes))
	for i, n := range op.Nodes {
		names[i] = n.Op.Type()
	}
	return "fuse(" + strings.Join(names, ",") + ")"
}

// Check implements Checker: a decoded kernel has nodes, each with an op,
// and arguments that name earlier nodes (>= 0) or inputs (< 0).
func (op Fused) Check() error {
	if len(op.Nodes) == 0 {
		return errors.New("fuse: no nodes")
	}
	for i, n := range op.Nodes {
		if n.Op == nil {
			return fmt.Errorf("fuse: node %d has no op", i)
		}
		for _, a := range n.Args {
			if a >= i {
				return fmt.Errorf("fuse: node %d reads node %d, which does not precede it", i, a)
			}
		}
	}
	return nil
}

// Labeler is implemented by chunk ops with a more telling name than Type.
type Labeler interface{ Label() string }

// Label is op's Label if it has one, else its Type.
func Label(op ChunkOp) string {
	if l, ok := op.(Labeler); ok {
		return l.Label()
	}
	return op.Type()
}

// reduceMode is how a fused reduction root maps the flat iteration space to
// its output.
type reduceMode uint8

const (
	modeNone     reduceMode = iota // not reducible in a fused kernel
	modeAll                        // every axis: one output element
	modeTrailing                   // a suffix of axes: consecutive runs of K elements
	modeLeading                    // a prefix of axes: out[flat % M]
)

// Exported names of the reduce modes, for the fusion pass.
const (
	ModeNone     = modeNone
	ModeAll      = modeAll
	ModeTrailing = modeTrailing
	ModeLeading  = modeLeading
)

// FusedReduceMode says whether (and how) a reduction over axes of shape can
// be the root of a fused kernel.
func FusedReduceMode(p ReducePartial, shape []int) (reduceMode, int) {
	nd := len(shape)
	axes := p.Axes
	isMoments := isMomentsFunc(p.Func)
	switch p.Func {
	case "argmin", "argmax", "nanargmin", "nanargmax":
		return modeNone, 0
	}
	if len(axes) == nd {
		return modeAll, ndarray.Size(shape)
	}
	if len(axes) == 0 {
		return modeNone, 0
	}
	prefix, suffix := true, true
	for i, a := range axes {
		if a != i {
			prefix = false
		}
		if a != nd-len(axes)+i {
			suffix = false
		}
	}
	switch {
	case suffix && !isMoments:
		return modeTrailing, ndarray.Size(shape[axes[0]:])
	case prefix:
		// Moments over leading axes (x.var(axis=0)) keep, per column, the
		// moments of a tile of whole rows, merged tile by tile.
		return modeLeading, ndarray.Size(shape[len(axes):])
	}
	return modeNone, 0
}

// fusedState is the per-Exec working set of a Fused kernel.
type fusedState struct {
	op     Fused
	tile   int              // elements per tile it was made for
	k1     int              // level-0 elements per level-1 element (1 if one level)
	in     []*ndarray.Array // the inputs as given
	ext    []*ndarray.Array // inputs broadcast to the iteration shape
	flat   []*ndarray.Array // contiguous inputs as flat views, else nil
	ns     []nodeState      // per node of op.Nodes
	period []int            // per input: see periodOf (-1 not known yet)
	// gathered holds, per strided or broadcast input, a reused tile buffer,
	// with the tile start its current view holds (gatheredAt), so an input read by several
	// nodes is gathered once per tile and no buffer is allocated per tile.
	gathered     []*ndarray.Array // full-size buffers
	gatheredView []*ndarray.Array // their current tile
	gatheredAt   []int
	// one is, per input of a single element, its value viewed as a
	// zero-stride run of the last tile length: kernels then take their
	// vector-scalar path without any gather.
	one []*ndarray.Array
	// consts are each elementwise node's constant operands as 0-d arrays,
	// made once per kernel rather than once per tile.
	consts [][]*ndarray.Array
}

// nodeState is what a fused kernel keeps for one of its nodes, reused from
// tile to tile (small chunks run one tile: each allocation counts).
type nodeState struct {
	buf    *ndarray.Array   // tile buffer (nil for the root reduction)
	fill   *ndarray.Array   // FullChunk: a tile of its value
	val    *ndarray.Array   // value on the current tile
	args   []*ndarray.Array // operands on the current tile
	consts []*ndarray.Array // Elementwise: its constant operands as 0-d arrays
	all    []*ndarray.Array // operands with the constants in place
	gen    *tileGen         // generator writing its own buffer
	tiles  TileReader       // a TileSource's reader
	// Elementwise: its constants broadcast to the tile length constLen,
	// when every operand has the output's dtype (so the kernel neither
	// converts nor broadcasts them: an allocation or two per tile).
	constsAt []*ndarray.Array
	constLen int
	// Elementwise: its parsed unary or binary op, once parsed is set
	// (kept from run to run of a shared kernel, like consts).
	parsed bool
	unary  ndarray.UnaryOp
	binary ndarray.BinaryOp
}

// Exec implements ChunkOp.
func (op Fused) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	T := op.Tile
	if T <= 0 {
		T = DefaultTile
	}
	n := ndarray.Size(op.Shape)
	rootShape, n1, K1 := op.Shape, n, 1 // the root's iteration space
	if op.K1 > 0 {
		if op.K1 > T {
			return nil, fmt.Errorf("fuse: inner reduction over runs of %d exceeds the tile of %d", op.K1, T)
		}
		rootShape, n1, K1 = op.Shape1, ndarray.Size(op.Shape1), op.K1
	}
	st, reused := op.takeState(T, K1, in)
	if op.scratch != nil {
		defer op.putState(st)
	}
	for k, a := range in {
		shape := op.Shape
		if op.inputLevel(k) == 1 {
			shape = op.Shape1
		}
		b, err := a.BroadcastTo(shape)
		if err != nil {
			return nil, fmt.Errorf("fuse: input %d: %w", k, err)
		}
		st.ext[k] = b
		if b.IsContiguous() {
			st.flat[k] = b.Flat()
		}
	}
	last := len(op.Nodes) - 1
	root := op.Nodes[last]
	red, isReduce := root.Op.(ReducePartial)
	mode, K := modeNone, 0
	if isReduce {
		if mode, K = FusedReduceMode(red, rootShape); mode == modeNone || (K1 > 1 && mode != modeAll) {
			return nil, fmt.Errorf("fuse: reduction %s over axes %v of %v cannot be fused", red.Func, red.Axes, rootShape)
		}
	}
	moments := isReduce && isMomentsFunc(red.Func)
	if moments && mode == modeLeading {
		// Whole rows per tile, and enough of them that merging the tiles'
		// moments costs little beside computing them.
		T = max(T, K, min(momentsTileRows*K, momentsTile))
	}
	var out *ndarray.Array
	if !isReduce {
		var err error
		if out, err = ndarray.New(root.Meta.DType, n1); err != nil {
			return nil, err
		}
	}
	if !reused {
		st.ns = make([]nodeState, len(op.Nodes))
		nargs := 0
		for _, nd := range op.Nodes {
			nargs += len(nd.Args)
		}
		argBuf := make([]*ndarray.Array, nargs) // every node's operands, one allocation
		for i, nd := range op.Nodes {
			st.ns[i].args, argBuf = argBuf[:len(nd.Args):len(nd.Args)], argBuf[len(nd.Args):]
		}
	}
	readers, closeReaders, err := openTileSources(ctx, op.Nodes)
	if err != nil {
		return nil, err
	}
	defer closeReaders()
	for i, r := range readers {
		st.ns[i].tiles = r
	}
	for i, nd := range op.Nodes {
		if i == last {
			break
		}
		if reused {
			// The same program over the same shapes: its buffers are
			// the right size and its constant tiles hold their values.
			break
		}
		size := min(T, max(n, 1))
		if nd.Level == 1 {
			size = min(T/K1, max(n1, 1))
		}
		if f, ok := nd.Op.(FullChunk); ok {
			// A constant: one tile of its value serves every tile.
			fill, err := fillConst(nd.Meta.DType, size, f.Value)
			if err != nil {
				return nil, err
			}
			st.ns[i].fill = fill
			continue
		}
		b, err := ndarray.New(nd.Meta.DType, size)
		if err != nil {
			return nil, err
		}
		st.ns[i].buf = b
	}
	var acc *ndarray.Array // reduction accumulator
	if isReduce && mode == modeTrailing {
		// one output element per run of K; filled as runs complete
		if acc, err = ndarray.New(root.Meta.DType, n/max(K, 1)); err != nil {
			return nil, err
		}
	}
	var group *ndarray.Array // running reduction of a run longer than a tile
	var scratch []float64    // RowMoments' working rows
	// Whole-chunk sums keep a scalar accumulator: no array per tile.
	var fs fastSum
	fast := isReduce && mode == modeAll && fs.init(red, root.Meta.DType)
	tiles := 0
	for f := 0; f < n; {
		// Tile length: aligned so a tile never straddles a reduction run or row.
		L := min(T, n-f)
		if K1 > 1 {
			L = min((T/K1)*K1, n-f)
		}
		switch mode {
		case modeTrailing, modeLeading:
			if K <= T {
				L = min((T/K)*K, n-f)
			} else {
				L = min(T, K-f%K)
			}
		}
		if tiles++; tiles%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var dst *ndarray.Array
		if !isReduce {
			if dst, err = out.Slice([]ndarray.Range{{Start: f / K1, Step: 1, Len: L / K1}}); err != nil {
				return nil, err
			}
		}
		for i := 0; i < last; i++ {
			if st.ns[i].val, err = st.eval(i, f, L, nil); err != nil {
				return nil, err
			}
		}
		if !isReduce {
			if _, err = st.eval(last, f, L, dst); err != nil {
				return nil, err
			}
			f += L
			continue
		}
		x, err := st.arg(root.Args[0], f, L, false)
		if err != nil {
			return nil, err
		}
		switch {
		case fast:
			fs.add(x)
			f += L
			continue
		}
		switch mode {
		case modeAll:
			part, err := reduceTile(red, x)
			if err != nil {
				return nil, err
			}
			if acc, err = combineParts(red, acc, part); err != nil {
				return nil, err
			}
		case modeTrailing:
			if K <= T {
				seg, err := acc.Slice([]ndarray.Range{{Start: f / K, Step: 1, Len: L / K}})
				if err != nil {
					return nil, err
				}
				if red.Func == "sum" && x.DType() == ndarray.Float64 && seg.DType() == ndarray.Float64 {
					// Short rows (W2's x**2 summed over 2 columns): a
					// direct loop beats the general reduction machinery.
					ndarray.RowSums(seg.Float64s()[:L/K], x.Float64s()[:L], K)
					break
				}
				x2, err := x.Reshape(L/K, K)
				if err != nil {
					return nil, err
				}
				r, _ := ndarray.ParseReduceOp(red.Func)
				part, err := ndarray.Reduce(r, x2, []int{1}, false)
				if err != nil {
					return nil, err
				}
				ndarray.CopyInto(seg, part)
			} else {
				part, err := reduceTile(red, x)
				if err != nil {
					return nil, err
				}
				if f%K == 0 {
					group = nil
				}
				if group, err = combineParts(red, group, part); err != nil {
					return nil, err
				}
				if (f+L)%K == 0 {
					seg, err := acc.Slice([]ndarray.Range{{Start: f / K, Step: 1, Len: 1}})
					if err != nil {
						return nil, err
					}
					g1, err := group.Reshape(1)
					if err != nil {
						return nil, err
					}
					ndarray.CopyInto(seg, g1)
				}
			}
		case modeLeading:
			if moments && !isNaNFunc(red.Func) && x.DType() == ndarray.Float64 && x.IsContiguous() {
				if acc == nil {
					if acc, err = ndarray.New(ndarray.Float64, 3, 1, K); err != nil {
						return nil, err
					}
					scratch = make([]float64, 4*K)
				}
				ndarray.RowMoments(acc.Float64s(), x.Float64s()[:L], scratch, L/K, K)
				break
			}
			if moments {
				x2, err := x.Reshape(L/K, K)
				if err != nil {
					return nil, err
				}
				part, err := momentsOf(red.Func, x2, []int{0})
				if err != nil {
					return nil, err
				}
				if acc, err = combineParts(red, acc, part); err != nil {
					return nil, err
				}
				break
			}
			if K <= T && red.Func == "sum" && x.DType() == ndarray.Float64 && root.Meta.DType == ndarray.Float64 {
				// Column sums of whole rows: add each row into the
				// accumulator in order, as the unfused reduction does,
				// with no partial per tile.
				if acc == nil {
					if acc, err = ndarray.New(ndarray.Float64, K); err != nil {
						return nil, err
					}
				}
				a, xs := acc.Float64s()[:K], x.Float64s()[:L]
				for r := 0; r < L/K; r++ {
					ndarray.AddFloat64s(a, a, xs[r*K:(r+1)*K])
				}
				break
			}
			r, _ := ndarray.ParseReduceOp(red.Func)
			if K <= T {
				x2, err := x.Reshape(L/K, K)
				if err != nil {
					return nil, err
				}
				part, err := ndarray.Reduce(r, x2, []int{0}, false)
				if err != nil {
					return nil, err
				}
				if acc, err = combineParts(red, acc, part); err != nil {
					return nil, err
				}
			} else {
				x2, err := x.Reshape(1, L)
				if err != nil {
					return nil, err
				}
				part, err := ndarray.Reduce(r, x2, []int{0}, false)
				if err != nil {
					return nil, err
				}
				if acc == nil {
					if acc, err = ndarray.New(part.DType(), K); err != nil {
						return nil, err
					}
				}
				seg, err := acc.Slice([]ndarray.Range{{Start: f % K, Step: 1, Len: L}})
				if err != nil {
					return nil, err
				}
				if f >= K { // not the first row: combine with what is there
					if part, err = ndarray.Combine(r, []*ndarray.Array{seg, part}); err != nil {
						return nil, err
					}
				}
				ndarray.CopyInto(seg, part)
			}
		}
		f += L
	}
	if !isReduce {
		return out.Reshape(root.Meta.Shape...)
	}
	if n == 0 || (acc == nil && !fast) {
		// An empty iteration space (an axis of length 0): the ordinary
		// kernel gives the identity, or NumPy's error for min and max;
		// the tile paths would reshape nothing into the output.
		dt := ndarray.Float64
		if a := root.Args[0]; a >= 0 {
			dt = op.Nodes[a].Meta.DType
		} else {
			dt = in[-1-a].DType()
		}
		empty, err := ndarray.New(dt, op.Shape...)
		if err != nil {
			return nil, err
		}
		return ReducePartial{Func: red.Func, Axes: red.Axes}.Exec(ctx, []*ndarray.Array{empty})
	}
	if fast {
		return fs.result(root.Meta.Shape)
	}
	return acc.Reshape(root.Meta.Shape...)
}

// Unshared returns op without the working memory Shared gave it: what
// decoding its encoding gives.
func (op Fused) Unshared() Fused {
	op.scratch = nil
	return op
}

// takeState is a working set for one run: a previous run's when the
// kernel is Shared and one is free (reused is then true: its node
// buffers, constant tiles and operand lists are ready), else a new one.
func (op Fused) takeState(tile, k1 int, in []*ndarray.Array) (st *fusedState, reused bool) {
	if op.scratch != nil {
		// A copy of the kernel with another tile or program (the same
		// pool) must not get buffers sized for this one.
		if x, ok := op.scratch.Get().(*fusedState); ok && x.tile == tile && x.k1 == k1 && sameNodes(x.op.Nodes, op.Nodes) && slices.Equal(x.op.Shape, op.Shape) {
			st, reused = x, true
		}
	}
	if !reused {
		st = &fusedState{op: op, k1: k1, tile: tile}
	}
	st.in = in
	st.ext = slices.Grow(st.ext[:0], len(in))[:len(in)]
	st.flat = slices.Grow(st.flat[:0], len(in))[:len(in)]
	clear(st.flat) // putState cleared the rest of what a run leaves
	return st, reused
}

// sameNodes reports whether a and b are the same program (one slice).
func sameNodes(a, b []FusedNode) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// putState keeps st for the next run, holding on to nothing of this one's
// inputs (chunks the store may want to free).
func (op Fused) putState(st *fusedState) {
	st.in = nil
	clear(st.ext)
	clear(st.flat)
	st.period, st.one, st.gathered, st.gatheredView, st.gatheredAt = nil, nil, nil, nil, nil
	for i := range st.ns {
		ns := &st.ns[i]
		ns.val, ns.gen, ns.tiles = nil, nil, nil
		clear(ns.args)
	}
	op.scratch.Put(st)
}

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

// inputLevel is the level of input k.
func (op Fused) inputLevel(k int) uint8 {
	if k < len(op.InputLevels) {
		return op.InputLevels[k]
	}
	return 0
}

// arg is the value of an operand on the tile [f, f+L) of level-0 elements:
// contiguous, unless strided allows a zero-stride view of a one-element
// input.
func (st *fusedState) arg(a, f, L int, strided bool) (*ndarray.Array, error) {
	if a >= 0 {
		return st.ns[a].val, nil
	}
	k := -1 - a
	if st.op.inputLevel(k) == 1 {
		f, L = f/st.k1, L/st.k1
	}
	if fl := st.flat[k]; fl != nil {
		return fl.Slice([]ndarray.Range{{Start: f, Step: 1, Len: L}})
	}
	if st.one == nil {
		n := len(st.ext)
		st.one, st.gathered, st.gatheredView, st.gatheredAt = make([]*ndarray.Array, n), make([]*ndarray.Array, n), make([]*ndarray.Array, n), make([]int, n)
	}
	x := st.ext[k]
	if strided && x.Size() > 0 && st.in[k].Size() == 1 {
		if v := st.one[k]; v != nil && v.Size() == L {
			return v, nil
		}
		v, err := st.in[k].Reshape(1)
		if err != nil {
			return nil, err
		}
		if v, err = v.BroadcastTo([]int{L}); err != nil {
			return nil, err
		}
		st.one[k] = v
		return v, nil
	}
	// Strided or broadcast input: gather the tile into a reused buffer.
	if v := st.gatheredView[k]; v != nil && v.Size() == L {
		if st.gatheredAt[k] == f {
			return v, nil
		}
		// A row broadcast (x - x.mean(axis=0)) over tiles of whole rows
		// is the same tile every time.
		if p := st.periodOf(k); p > 0 && f%p == 0 && st.gatheredAt[k]%p == 0 {
			return v, nil
		}
	}
	buf := st.gathered[k]
	if buf == nil || buf.Size() < L {
		var err error
		if buf, err = ndarray.New(x.DType(), L); err != nil {
			return nil, err
		}
		st.gathered[k] = buf
	}
	if buf.Size() > L {
		var err error
		if buf, err = buf.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: L}}); err != nil {
			return nil, err
		}
	}
	st.gatheredView[k], st.gatheredAt[k] = buf, f
	return buf, ndarray.GatherFlat(buf, x, f)
}

// periodOf is P when input k, broadcast to the iteration space, repeats
// the same P contiguous elements (its own) over and over; else 0.
func (st *fusedState) periodOf(k int) int {
	if st.period == nil {
		st.period = make([]int, len(st.in))
		for i := range st.period {
			st.period[i] = -1
		}
	}
	if p := st.period[k]; p >= 0 {
		return p
	}
	p := 0
	in, x := st.in[k], st.ext[k]
	if in.IsContiguous() && in.Size() > 1 {
		s, xs := in.Shape(), x.Shape()
		for len(s) > 0 && s[0] == 1 {
			s = s[1:]
		}
		if len(s) <= len(xs) && slices.Equal(s, xs[len(xs)-len(s):]) && ndarray.Size(xs) > in.Size() {
			p = in.Size()
		}
	}
	st.period[k] = p
	return p
}

// tileBuf is node i's buffer cut to the tile of L level-0 elements.
func (st *fusedState) tileBuf(i, L int) (*ndarray.Array, error) {
	b := st.ns[i].buf
	if st.op.Nodes[i].Level == 1 {
		L /= st.k1
	}
	if b.Size() == L {
		return b, nil
	}
	return b.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: L}})
}

// eval computes node i on the tile [f, f+L), into dst when given.
func (st *fusedState) eval(i, f, L int, dst *ndarray.Array) (*ndarray.Array, error) {
	nd := st.op.Nodes[i]
	ns := &st.ns[i]
	var err error
	own := dst == nil && ns.buf != nil // dst will be a prefix of ns.buf
	if own {
		if dst, err = st.tileBuf(i, L); err != nil {
			return nil, err
		}
	}
	args := ns.args
	// Unary and binary kernels take strided operands; the others read
	// their operands as contiguous memory.
	ew, _ := nd.Op.(Elementwise)
	strided := ew.Kind == "unary" || ew.Kind == "binary"
	for j, a := range nd.Args {
		if args[j], err = st.arg(a, f, L, strided); err != nil {
			return nil, err
		}
	}
	// Generators index their own level's elements.
	gf, gL := f, L
	if nd.Level == 1 {
		gf, gL = f/st.k1, L/st.k1
	}
	if ns.tiles != nil {
		if dst == nil {
			return nil, fmt.Errorf("fuse: %s has no tile buffer", Label(nd.Op))
		}
		return dst, ns.tiles.ReadTile(gf, dst)
	}
	switch op := nd.Op.(type) {
	case Elementwise:
		all := args
		if len(op.Consts) > 0 {
			if ns.consts == nil {
				ns.consts = make([]*ndarray.Array, len(op.Consts))
				for j, c := range op.Consts {
					ns.consts[j] = c.Array()
				}
				ns.all = make([]*ndarray.Array, 0, len(args)+len(op.Consts))
			}
			consts := ns.consts
			if strided {
				if consts, err = ns.tileConsts(dst, args); err != nil {
					return nil, err
				}
			}
			all = placeConsts(ns.all[:0], op.Consts, args, consts)
		}
		switch op.Kind {
		case "unary":
			if !ns.parsed {
				if ns.unary, err = ndarray.ParseUnaryOp(op.Name); err != nil {
					return nil, err
				}
				ns.parsed = true
			}
			return dst, ndarray.UnaryInto(ns.unary, dst, all[0])
		case "binary":
			if !ns.parsed {
				if ns.binary, err = ndarray.ParseBinaryOp(op.Name); err != nil {
					return nil, err
				}
				ns.parsed = true
			}
			return dst, ndarray.BinaryInto(ns.binary, dst, all[0], all[1])
		}
		v, err := op.Exec(context.Background(), args)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, v)
		return dst, nil
	case FullChunk:
		// Constant: made once per kernel; consumers only read it.
		if ns.fill.Size() != gL {
			return ns.fill.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: gL}})
		}
		return ns.fill, nil
	case ArangeChunk:
		v, err := ArangeChunk{N: gL, Offset: op.Offset + gf, Total: op.Total, DType: op.DType, Start: op.Start, Step: op.Step, End: op.End, EndValue: op.EndValue}.Exec(context.Background(), nil)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, v)
		return dst, nil
	case RandomChunk:
		if own {
			if ns.gen == nil {
				if ns.gen, err = newTileGen(op, ns.buf); err != nil {
					return nil, err
				}
			}
			return dst, ns.gen.fill(gf, gL)
		}
		return dst, fillRandomTile(op, dst, gf, gL)
	case ReducePartial:
		// The inner reduction of a two-level kernel: runs of k1 -> 1.
		x := args[0]
		if op.Func == "sum" && x.DType() == ndarray.Float64 && dst.DType() == ndarray.Float64 {
			ndarray.RowSums(dst.Float64s()[:L/st.k1], x.Float64s()[:L], st.k1)
			return dst, nil
		}
		r, err := ndarray.ParseReduceOp(op.Func)
		if err != nil {
			return nil, err
		}
		x2, err := x.Reshape(L/st.k1, st.k1)
		if err != nil {
			return nil, err
		}
		part, err := ndarray.Reduce(r, x2, []int{1}, false)
		if err != nil {
			return nil, err
		}
		ndarray.CopyInto(dst, part)
		return dst, nil
	case ReduceFinish:
		// After an inner reduction only a reshape, which tiles do not see.
		if args[0].DType() != nd.Meta.DType {
			return nil, fmt.Errorf("fuse: %s changes dtype %v to %v", op.Type(), args[0].DType(), nd.Meta.DType)
		}
		return args[0], nil
	}
	return nil, fmt.Errorf("fuse: op %s cannot run inside a fused kernel", nd.Op.Type())
}

// tileConsts is a unary or binary node's constants for a tile into dst:
// viewed at dst's length (zero strides) when they and the operands all
// have dst's dtype, else as they are (the kernel converts a 0-d constant
// once, where a tile-long view would be converted whole).
func (ns *nodeState) tileConsts(dst *ndarray.Array, args []*ndarray.Array) ([]*ndarray.Array, error) {
	if dst == nil {
		return ns.consts, nil
	}
	dt := dst.DType()
	for _, a := range args {
		if a.DType() != dt {
			return ns.consts, nil
		}
	}
	for _, c := range ns.consts {
		if c.DType() != dt {
			return ns.consts, nil
		}
	}
	if n := dst.Size(); ns.constsAt == nil || ns.constLen != n || dst.NDim() != 1 {
		if dst.NDim() != 1 {
			return ns.consts, nil
		}
		at := make([]*ndarray.Array, len(ns.consts))
		for j, c := range ns.consts {
			v, err := c.BroadcastTo([]int{n})
			if err != nil {
				return nil, err
			}
			at[j] = v
		}
		ns.constsAt, ns.constLen = at, n
	}
	return ns.constsAt, nil
}

// placeConsts is withConsts into dst's storage: the operands with the
// constants at their positions, without allocating per tile.
func placeConsts(dst []*ndarray.Array, consts []Const, args, vals []*ndarray.Array) []*ndarray.Array {
	k := 0
	for j, c := range consts {
		for len(dst) < c.Pos && k < len(args) {
			dst = append(dst, args[k])
			k++
		}
		dst = append(dst, vals[j])
	}
	return append(dst, args[k:]...)
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
// is summed per tile with gonum's vectorised Sum and the tile sums are added
// with Neumaier compensation; integers and bools add exactly in int64.
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
			v = floats.Sum(x.Float64s()[:x.Size()])
		}
		t := s.f + v
		if math.Abs(s.f) >= math.Abs(v) {
			s.c += (s.f - t) + v
		} else {
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

func (s *fastSum) result(shape []int) (*ndarray.Array, error) {
	// Made in its shape at once: a scalar reshaped is twice the
	// allocations, per chunk.
	if s.isFloat {
		a, err := ndarray.New(ndarray.Float64, shape...)
		if err != nil {
			return nil, err
		}
		a.Float64s()[0] = s.f + s.c
		return a, nil
	}
	a, err := ndarray.New(ndarray.Int64, shape...)
	if err != nil {
		return nil, err
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
