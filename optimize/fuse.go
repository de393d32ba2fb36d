package optimize

import (
	"math"
	"slices"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Fuse merges connected groups of chunk ops of one chunk position into
// ops.Fused kernels. It goes beyond Mars's single chains: a group is rooted at
// an elementwise op or a reduction partial, and takes in every elementwise op
// and generator (random, full, arange) that feeds it, has no other consumer,
// is not a requested result and has the group's iteration shape. Shared
// inputs (used by several ops) stay ordinary chunks and become the kernel's
// inputs — except generators: a generator whose every consumer is a fused
// kernel of its shape is recomputed inside each of them instead of being
// materialised (cheap to regenerate, expensive to hold or spill). Linear in
// the graph size.
func Fuse(g *graph.ChunkGraph, results []ops.ChunkRef) (*graph.ChunkGraph, []ops.ChunkRef) {
	if !mayRoot(g) {
		// No group, so no generator to share either: a graph fused while
		// tiled (CompileForRun) costs one walk, not the pass's tables.
		return g, results
	}
	n := len(g.Nodes)
	isResult := make([]bool, n)
	for _, r := range results {
		isResult[r] = true
	}
	// consumer is the single distinct consumer of a node, or -1 for none
	// or several.
	consumer := make([]int32, n)
	for i := range consumer {
		consumer[i] = -2 // none yet
	}
	for i, nd := range g.Nodes {
		for _, in := range nd.Inputs {
			switch c := consumer[in]; {
			case c == -2:
				consumer[in] = int32(i)
			case c != int32(i):
				consumer[in] = -1
			}
		}
	}
	// rootOf is the root of the group a node belongs to (itself for a
	// root), or -1. Every possible root gets a group, even of one op, so a
	// shared generator can still join it below.
	rootOf := make([]int32, n)
	for i := range rootOf {
		rootOf[i] = -1
	}
	// Per root: its group, root first, as buf[memStart[v]:memEnd[v]]
	// (offsets, not slices: a third of the size and nothing for the
	// collector to scan in a graph of millions of ops).
	memStart := make([]int32, n)
	memEnd := make([]int32, n)
	below := make([]bool, n)  // member computed before its group's inner reduction
	inner := make([]int32, n) // per root: its inner reduction partial, or -1
	// Groups are built one at a time, so they share one backing array.
	buf := make([]int32, 0, n)
	var stack []int32
	// Roots in reverse topological order, so a consumer's group is settled
	// before its inputs are considered.
	for v := n - 1; v >= 0; v-- {
		inner[v] = -1
		if rootOf[v] >= 0 {
			continue
		}
		shape, ok := iterShape(g, v)
		if !ok {
			continue
		}
		rootOf[v] = int32(v)
		start := len(buf)
		buf = append(buf, int32(v))
		stack = append(stack[:0], int32(v))
		var shape0 []int // iteration shape below the inner reduction
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			want := shape
			if below[u] || int32(u) == inner[v] {
				want = shape0
			}
			for _, in := range g.Nodes[u].Inputs {
				if rootOf[in] >= 0 {
					continue
				}
				if absorbable(g, in, u, consumer, isResult, want) {
					rootOf[in] = int32(v)
					below[in] = below[u] || int32(u) == inner[v]
					buf = append(buf, int32(in))
					stack = append(stack, int32(in))
					continue
				}
				// An inner reduction over trailing axes (reduce then reshape),
				// at most one per kernel, above which nothing is reduced yet.
				if inner[v] >= 0 || below[u] || !twoLevelRoot(g, v) {
					continue
				}
				if p, s0, ok := innerReduction(g, in, u, consumer, isResult, shape); ok {
					inner[v] = p
					shape0 = s0
					rootOf[in], rootOf[p] = int32(v), int32(v)
					buf = append(buf, int32(in), p)
					stack = append(stack, p)
				}
			}
		}
		memStart[v], memEnd[v] = int32(start), int32(len(buf))
	}
	members := func(v int) []int32 { return buf[memStart[v]:memEnd[v]:memEnd[v]] }
	// Shared generators: recompute in every consumer's kernel when all of
	// its consumers are in groups of its shape.
	var adj *graph.Adjacency          // made for the first candidate: most graphs have none
	replicated := map[int32][]int32{} // per root: generators copied into it (few roots have any)
	removed := make([]bool, n)
	for v := 0; v < n; v++ {
		if rootOf[v] >= 0 || consumer[v] != -1 || isResult[v] || !isGenerator(g, v) {
			continue
		}
		roots := map[int32]bool{}
		ok := true
		if adj == nil {
			adj = g.Successors()
		}
		for _, c := range adj.Of(v) {
			r := rootOf[c]
			if r < 0 || below[c] {
				ok = false
				break
			}
			if shape, _ := iterShape(g, int(r)); !ndarray.SameShape(shape, g.Nodes[v].Meta.Shape) {
				ok = false
				break
			}
			roots[r] = true
		}
		if !ok {
			continue
		}
		removed[v] = true
		for r := range roots {
			replicated[r] = append(replicated[r], int32(v))
		}
	}
	grouped := false
	for v := range n {
		if memEnd[v]-memStart[v] > 1 {
			grouped = true
			break
		}
	}
	if !grouped && len(replicated) == 0 {
		return g, results
	}
	kept := 0 // the output's size, so a graph of millions of ops is allocated once, exactly
	for i := range g.Nodes {
		if !removed[i] && (rootOf[i] < 0 || rootOf[i] == int32(i)) {
			kept++
		}
	}
	out := &graph.ChunkGraph{Nodes: make([]graph.ChunkNode, 0, kept)}
	remap := make([]ops.ChunkRef, n)
	var memo fusedMemo
	var scratch buildScratch
	var slab refSlab
	for i, nd := range g.Nodes {
		root := rootOf[i]
		grp := members(i)
		switch {
		case removed[i]:
			remap[i] = -1 // recomputed inside its consumers' kernels
		case root == int32(i) && len(grp)+len(replicated[root]) > 1:
			op, ins := buildFused(&scratch, g, grp, replicated[root], remap, inner[root], below)
			remap[i] = out.AddChunk(memo.share(op), ins, nd.Meta)
		case root < 0 || root == int32(i):
			ins := slab.take(len(nd.Inputs))
			for j, in := range nd.Inputs {
				ins[j] = remap[in]
			}
			remap[i] = out.AddChunk(nd.Op, ins, nd.Meta)
		default:
			remap[i] = -1 // inside a group; only its root is referenced
		}
	}
	res := make([]ops.ChunkRef, len(results))
	for i, r := range results {
		res[i] = remap[r]
	}
	return out, res
}

// refSlab hands out input lists from shared blocks: the ops copied into
// a graph of millions (a reduction's combines) then cost no allocation
// each, and the collector sees a few large objects instead of millions.
type refSlab struct {
	free []ops.ChunkRef
	next int // the size of the next block
}

// refSlabBlock is how many refs a block holds at most; blocks start at
// refSlabFirst and double, so a graph of a few ops (an interactive call's)
// does not allocate and clear a large block it never fills.
const (
	refSlabBlock = 1 << 14
	refSlabFirst = 64
)

// take returns a list of n refs, its capacity n so an append copies.
func (s *refSlab) take(n int) []ops.ChunkRef {
	if n == 0 {
		return nil
	}
	if n > len(s.free) {
		s.next = min(max(2*s.next, refSlabFirst), refSlabBlock)
		s.free = make([]ops.ChunkRef, max(n, s.next))
	}
	r := s.free[:n:n]
	s.free = s.free[n:]
	return r
}

// innerTileRuns caps the run length of an inner reduction so a tile still
// holds many runs.
const innerTileRuns = ops.DefaultTile / 16

// twoLevelRoot reports whether the group rooted at v may hold an inner
// reduction: its root is elementwise or reduces its whole iteration space.
func twoLevelRoot(g *graph.ChunkGraph, v int) bool {
	op := g.Nodes[v].Op
	switch ops.FusionOf(op) {
	case ops.FuseElementwise:
		return true
	case ops.FuseReduce:
		in := g.Nodes[g.Nodes[v].Inputs[0]].Meta.Shape
		rp, _ := op.(ops.ReducePartial) // the kernel reduces as ReducePartial does
		mode, _ := ops.FusedReduceMode(rp, in)
		return mode == ops.ModeAll
	}
	return false
}

// innerReduction recognises fin = ReduceFinish(ReducePartial(x)) where the
// partial reduces trailing axes of x with a plain op, fin only reshapes, and
// fin feeds u alone with the group's shape. It returns the partial and the
// shape of x.
func innerReduction(g *graph.ChunkGraph, fin ops.ChunkRef, u int32, consumer []int32, isResult []bool, shape []int) (int32, []int, bool) {
	fn, ok := g.Nodes[fin].Op.(ops.ReduceFinish)
	if !ok || isResult[fin] || consumer[fin] != u || !ndarray.SameShape(g.Nodes[fin].Meta.Shape, shape) {
		return 0, nil, false
	}
	p := g.Nodes[fin].Inputs[0]
	rp, ok := g.Nodes[p].Op.(ops.ReducePartial)
	if !ok || isResult[p] || consumer[p] != int32(fin) || rp.Func != fn.Func || g.Nodes[p].Meta.DType != fn.DType {
		return 0, nil, false
	}
	if _, err := ndarray.ParseReduceOp(rp.Func); err != nil {
		return 0, nil, false // moments and arg reductions carry extra state
	}
	s0 := g.Nodes[g.Nodes[p].Inputs[0]].Meta.Shape
	mode, k := ops.FusedReduceMode(rp, s0)
	if mode != ops.ModeTrailing || k < 1 || k > innerTileRuns || ndarray.Size(s0) != ndarray.Size(shape)*k {
		return 0, nil, false
	}
	return int32(p), s0, true
}

// isGenerator reports whether v is recomputed in the kernels that use it
// (ops.FuseGenerator).
func isGenerator(g *graph.ChunkGraph, v int) bool {
	return generates(ops.FusionOf(g.Nodes[v].Op), len(g.Nodes[v].Meta.Shape))
}

// generates reports whether a chunk op of role f with a chunk of rank
// ndim is recomputed where it is used.
func generates(f ops.Fusion, ndim int) bool {
	return f == ops.FuseGenerator || f == ops.FuseGenerator1D && ndim == 1
}

func in32(c ops.ChunkRef) int32 { return int32(c) }

// iterShape is the iteration shape of a group rooted at v, if v can be a root.
func iterShape(g *graph.ChunkGraph, v int) ([]int, bool) {
	nd := g.Nodes[v]
	// A kernel iterates over planned shapes: chunks of unknown length
	// (ops.Meta.Unknown) run on their own, as do their consumers.
	if nd.Meta.Unknown != 0 {
		return nil, false
	}
	for _, in := range nd.Inputs {
		if g.Nodes[in].Meta.Unknown != 0 {
			return nil, false
		}
	}
	switch ops.FusionOf(nd.Op) {
	case ops.FuseElementwise:
		return nd.Meta.Shape, true
	case ops.FuseReduce:
		in := g.Nodes[nd.Inputs[0]].Meta.Shape
		rp, _ := nd.Op.(ops.ReducePartial)
		if mode, _ := ops.FusedReduceMode(rp, in); mode == 0 {
			return nil, false
		}
		return in, true
	}
	return nil, false
}

// mayRoot reports whether an op of g can root a group (iterShape checks
// the rest).
func mayRoot(g *graph.ChunkGraph) bool {
	for i := range g.Nodes {
		if f := ops.FusionOf(g.Nodes[i].Op); f == ops.FuseElementwise || f == ops.FuseReduce {
			return true
		}
	}
	return false
}

// absorbable reports whether node c can be computed inside the group of its
// consumer u.
func absorbable(g *graph.ChunkGraph, c ops.ChunkRef, u int32, consumer []int32, isResult []bool, shape []int) bool {
	if isResult[c] || consumer[c] != u {
		return false
	}
	nd := g.Nodes[c]
	if nd.Meta.Unknown != 0 || !ndarray.SameShape(nd.Meta.Shape, shape) {
		return false
	}
	if ts, ok := nd.Op.(ops.TileSource); ok {
		// Read tile by tile into the kernel: only by its one consumer
		// (a shared read stays one chunk op, read once).
		return ts.TileReadable()
	}
	f := ops.FusionOf(nd.Op)
	return f == ops.FuseElementwise || generates(f, len(shape))
}

// buildFused makes the kernel of one group: members (and generators
// recomputed in it) in topological order; operands that are not in the
// group become the kernel's inputs. With an inner reduction, the nodes below
// it run at level 0 over its input's shape and the rest at level 1. The
// kernel's slices are sc's, valid until the next call: fusedMemo.share
// copies what it keeps.
func buildFused(sc *buildScratch, g *graph.ChunkGraph, grp, gens []int32, remap []ops.ChunkRef, inner int32, below []bool) (ops.Fused, []ops.ChunkRef) {
	all := append(append(sc.all[:0], grp...), gens...)
	sc.all = all
	slices.Sort(all)
	root := grp[0] // the root was added first
	var ins []ops.ChunkRef
	slots := sc.slots[:0]
	sc.nodes = slices.Grow(sc.nodes[:0], len(all))[:len(all)]
	f := ops.Fused{Nodes: sc.nodes, Recomputed: len(gens)}
	f.Shape, _ = iterShape(g, int(root))
	twoLevel := inner >= 0
	if twoLevel {
		f.Shape1 = f.Shape
		f.Shape = g.Nodes[g.Nodes[inner].Inputs[0]].Meta.Shape
		f.K1 = ndarray.Size(f.Shape) / max(ndarray.Size(f.Shape1), 1)
	}
	nargs := 0
	for _, m := range all {
		nargs += len(g.Nodes[m].Inputs)
	}
	argBuf := slices.Grow(sc.args[:0], nargs)[:nargs]
	sc.args = argBuf
	for i, m := range all {
		nd := g.Nodes[m]
		level := uint8(0)
		if twoLevel && !below[m] {
			level = 1 // shared generators join at the root's shape, above
		}
		argLevel := level
		if m == inner {
			argLevel = 0
		}
		args := argBuf[:len(nd.Inputs):len(nd.Inputs)]
		argBuf = argBuf[len(nd.Inputs):]
		for j, in := range nd.Inputs {
			if p, ok := slices.BinarySearch(all, int32(in)); ok {
				args[j] = p
				continue
			}
			// Groups are small: a linear search for a repeated input is cheaper than a map.
			k := slices.Index(slots, buildSlot{remap[in], argLevel})
			if k < 0 {
				k = len(slots)
				slots = append(slots, buildSlot{remap[in], argLevel})
				ins = append(ins, remap[in])
			}
			args[j] = -1 - k
		}
		f.Nodes[i] = ops.FusedNode{Op: nd.Op, Args: args, Meta: nd.Meta, Level: level}
	}
	sc.slots = slots
	if twoLevel {
		levels := sc.levels[:0]
		for _, s := range slots {
			levels = append(levels, s.level)
		}
		sc.levels = levels
		f.InputLevels = levels
	}
	return f, ins
}

// buildSlot is one input of a kernel being built: the chunk, at a level.
type buildSlot struct {
	ref   ops.ChunkRef
	level uint8
}

// buildScratch is buildFused's working memory, reused from group to group.
type buildScratch struct {
	all    []int32
	nodes  []ops.FusedNode
	args   []int
	slots  []buildSlot
	levels []uint8
}

// fusedMemo shares kernels between the chunks of one tensor op: a kernel
// equal to the one built before it (the next chunk of the same ops, of the
// same shape) reuses its boxed op, program and shapes, so a graph of a
// million fused chunks holds one program, not a million (several hundred
// bytes each), and Fused.Exec can tell that consecutive kernels run the
// same program.
type fusedMemo struct {
	last   ops.Fused
	boxed  ops.ChunkOp
	filled bool
}

// share returns the previous kernel's op when it equals f, else f's, on
// slices of its own (f's may be scratch).
func (m *fusedMemo) share(f ops.Fused) ops.ChunkOp {
	if m.filled && sameFused(m.last, f) {
		return m.boxed
	}
	f.Shape = slices.Clone(f.Shape)
	f.Shape1 = slices.Clone(f.Shape1)
	f.InputLevels = slices.Clone(f.InputLevels)
	nodes := slices.Clone(f.Nodes)
	nargs := 0
	for _, nd := range nodes {
		nargs += len(nd.Args)
	}
	args := make([]int, 0, nargs) // one allocation for every node's arguments
	for i := range nodes {
		start := len(args)
		args = append(args, nodes[i].Args...)
		nodes[i].Args = args[start:len(args):len(args)]
	}
	f.Nodes = nodes
	m.last, m.boxed, m.filled = f, f.Shared(), true
	return m.boxed
}

// sameFused reports whether two kernels compute the same thing on their
// inputs. Ops it does not know how to compare count as different.
func sameFused(a, b ops.Fused) bool {
	if a.Tile != b.Tile || a.Recomputed != b.Recomputed || a.K1 != b.K1 ||
		!slices.Equal(a.Shape, b.Shape) || !slices.Equal(a.Shape1, b.Shape1) ||
		!slices.Equal(a.InputLevels, b.InputLevels) || len(a.Nodes) != len(b.Nodes) {
		return false
	}
	for i := range a.Nodes {
		x, y := &a.Nodes[i], &b.Nodes[i]
		if x.Level != y.Level || !slices.Equal(x.Args, y.Args) || !sameMeta(x.Meta, y.Meta) || !sameChunkOp(x.Op, y.Op) {
			return false
		}
	}
	return true
}

func sameMeta(a, b ops.Meta) bool {
	return a.DType == b.DType && a.Unknown == b.Unknown && slices.Equal(a.Shape, b.Shape)
}

// sameChunkOp compares the ops fusion absorbs most (floats by their bits:
// 0 and -0 differ). Any other op is the same only as itself, which it
// cannot tell, so never.
func sameChunkOp(a, b ops.ChunkOp) bool {
	switch x := a.(type) {
	case ops.Elementwise:
		y, ok := b.(ops.Elementwise)
		return ok && x.Kind == y.Kind && x.Name == y.Name && x.To == y.To && slices.EqualFunc(x.Consts, y.Consts, sameConst)
	case ops.FullChunk:
		y, ok := b.(ops.FullChunk)
		return ok && x.DType == y.DType && math.Float64bits(x.Value) == math.Float64bits(y.Value) && slices.Equal(x.Shape, y.Shape)
	case ops.ReducePartial:
		y, ok := b.(ops.ReducePartial)
		return ok && x.Func == y.Func && x.ArgAxis == y.ArgAxis && slices.Equal(x.Axes, y.Axes) &&
			slices.Equal(x.Global, y.Global) && slices.Equal(x.Offset, y.Offset) &&
			(x.Axes == nil) == (y.Axes == nil)
	}
	return false
}

func sameConst(a, b ops.Const) bool {
	return a.Pos == b.Pos && a.Int == b.Int && a.DType == b.DType &&
		math.Float64bits(a.Value) == math.Float64bits(b.Value) && math.Float64bits(a.Imag) == math.Float64bits(b.Imag)
}
