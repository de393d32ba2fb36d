package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "fused", Op: Fused{}},
	)
}

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
// kernel (Mars's FUSE node, extended): generators, elementwise ops and
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
	plan   fusedPlan        // worked out from op when the state was made
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
	// strided: the node is a unary or binary kernel, which takes strided
	// operands (the others read theirs as contiguous memory). Set with
	// the state, not per tile.
	strided bool
}

// Exec implements ChunkOp.
func (op Fused) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	return op.exec(ctx, in, nil)
}

// ExecInto implements OutputInto: a whole-chunk sum (the fast sum) is
// written into out.
func (op Fused) ExecInto(ctx context.Context, in []*ndarray.Array, out *ndarray.Array) (*ndarray.Array, error) {
	return op.exec(ctx, in, out)
}

// exec runs the kernel; into, if not nil, is an array of the output's
// dtype and shape the run may write its output into (ExecInto).
func (op Fused) exec(ctx context.Context, in []*ndarray.Array, into *ndarray.Array) (*ndarray.Array, error) {
	T := op.Tile
	if T <= 0 {
		T = DefaultTile
	}
	K1 := 1
	if op.K1 > 0 {
		K1 = op.K1
	}
	st, reused := op.takeState(T, K1, in)
	if st.plan.err != nil {
		return nil, st.plan.err
	}
	var readers []TileReader
	if st.plan.sources {
		var err error
		if readers, err = openTileSources(ctx, op.Nodes); err != nil {
			return nil, err
		}
	}
	out, err := st.run(ctx, reused, readers, into)
	for _, r := range readers {
		if r != nil {
			_ = r.Close()
		}
	}
	// A run that failed may have left its working set half made: only
	// a finished one is kept for the next.
	if op.scratch != nil && err == nil {
		op.putState(st)
	}
	return out, err
}

// fusedPlan is what a run works out from the kernel alone, not from its
// inputs: made with a working set and kept with it, so the chunks of a
// shared kernel do not work it out again each.
type fusedPlan struct {
	err       error // the kernel cannot run
	T         int   // elements per tile (widened for moments over rows)
	n, n1     int   // level-0 and root elements
	rootShape []int // the root's iteration space
	red       ReducePartial
	isReduce  bool
	mode      reduceMode
	K         int     // run length (modeTrailing) or row length (modeLeading)
	moments   bool    // red is a moments reduction
	fast      bool    // a whole-chunk sum kept in fs
	fs        fastSum // fast's accumulator, as initialised
	sources   bool    // some node is a TileSource
}

// newFusedPlan works out op's plan for tiles of T elements.
func newFusedPlan(op Fused, T int) fusedPlan {
	p := fusedPlan{T: T}
	p.n = ndarray.Size(op.Shape)
	p.rootShape, p.n1 = op.Shape, p.n
	if op.K1 > 0 {
		if op.K1 > T {
			p.err = fmt.Errorf("fuse: inner reduction over runs of %d exceeds the tile of %d", op.K1, T)
			return p
		}
		p.rootShape, p.n1 = op.Shape1, ndarray.Size(op.Shape1)
	}
	for _, nd := range op.Nodes {
		if _, ok := nd.Op.(TileSource); ok {
			p.sources = true
		}
	}
	root := op.Nodes[len(op.Nodes)-1]
	p.red, p.isReduce = root.Op.(ReducePartial)
	if p.isReduce {
		if p.mode, p.K = FusedReduceMode(p.red, p.rootShape); p.mode == modeNone || (op.K1 > 1 && p.mode != modeAll) {
			p.err = fmt.Errorf("fuse: reduction %s over axes %v of %v cannot be fused", p.red.Func, p.red.Axes, p.rootShape)
			return p
		}
	}
	p.moments = p.isReduce && isMomentsFunc(p.red.Func)
	if p.moments && p.mode == modeLeading {
		// Whole rows per tile, and enough of them that merging the tiles'
		// moments costs little beside computing them.
		p.T = max(T, p.K, min(momentsTileRows*p.K, momentsTile))
	}
	// Whole-chunk sums keep a scalar accumulator: no array per tile.
	p.fast = p.isReduce && p.mode == modeAll && p.fs.init(p.red, root.Meta.DType)
	return p
}

// run is one run of the kernel on the inputs takeState gave st, with the
// readers of its tile sources (nil for other nodes); into (may be nil) is
// an array of the output's dtype and shape a fast sum is written into.
func (st *fusedState) run(ctx context.Context, reused bool, readers []TileReader, into *ndarray.Array) (*ndarray.Array, error) {
	op, pl := st.op, &st.plan
	T, n, n1, K1 := pl.T, pl.n, pl.n1, st.k1
	red, isReduce, mode, K, moments := pl.red, pl.isReduce, pl.mode, pl.K, pl.moments
	in := st.in
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
	// out is the output in its shape, flat the same memory as a vector
	// (out itself when 1-D): every tile's root writes its part whole.
	var out, flat *ndarray.Array
	if !isReduce {
		var err error
		if ndarray.Size(root.Meta.Shape) == n1 {
			out, err = ndarray.NewUninit(root.Meta.DType, root.Meta.Shape...)
		} else {
			out, err = ndarray.NewUninit(root.Meta.DType, n1)
		}
		if err != nil {
			return nil, err
		}
		flat = out
		if out.NDim() != 1 {
			flat = out.Flat()
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
			ew, _ := nd.Op.(Elementwise)
			st.ns[i].strided = ew.Kind == "unary" || ew.Kind == "binary"
		}
	}
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
		b, err := ndarray.NewUninit(nd.Meta.DType, size) // each tile writes its part whole
		if err != nil {
			return nil, err
		}
		st.ns[i].buf = b
	}
	var err error
	var acc *ndarray.Array // reduction accumulator
	if isReduce && mode == modeTrailing {
		// one output element per run of K; filled as runs complete
		if acc, err = ndarray.New(root.Meta.DType, n/max(K, 1)); err != nil {
			return nil, err
		}
	}
	var group *ndarray.Array // running reduction of a run longer than a tile
	var scratch []float64    // RowMoments' working rows
	fs, fast := pl.fs, pl.fast
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
		switch {
		case isReduce:
		case L/K1 == n1: // one tile: the whole output
			dst = flat
		default:
			if dst, err = flat.Slice([]ndarray.Range{{Start: f / K1, Step: 1, Len: L / K1}}); err != nil {
				return nil, err
			}
		}
		for i := 0; i < last; i++ {
			if st.ns[i].val, err = st.eval(i, f, L, nil); err != nil {
				return nil, err
			}
		}
		if !isReduce {
			v, err := st.eval(last, f, L, dst)
			if err != nil {
				return nil, err
			}
			if v != dst {
				// A root that passes a value through (none does today)
				// must still fill the output, which is not zeroed.
				ndarray.CopyInto(dst, v)
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
		if ndarray.SameShape(out.Shape(), root.Meta.Shape) {
			return out, nil
		}
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
		return fs.result(root.Meta.Shape, into)
	}
	return acc.Reshape(root.Meta.Shape...)
}
