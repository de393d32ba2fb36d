package optimize

import (
	"slices"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// CompileForRun is CompileWithin with fusion for a graph that is to run,
// not to be explained: a chain of elementwise and fill tensor ops that
// feeds a reduction is fused while the reduction is tiled, so the chain's
// chunk ops never join the chunk graph and the fusion pass has no tables
// to make for them. The plan is the one CompileWithin makes, node for
// node; it has no pass figures (Passes, Graphs).
func CompileForRun(tg *graph.TileableGraph, results []int, maxOps int) (*Plan, error) {
	if err := checkResults(tg, results); err != nil {
		return nil, err
	}
	cg, tiled, err := tileFusing(tg, results, maxOps)
	if err != nil {
		return nil, err
	}
	refs := resultRefs(tiled, results)
	cg, refs = Cull(cg, refs)
	cg, refs = Fuse(cg, refs)
	cg, refs = JoinUserBlocks(cg, refs)
	cg, refs = FinishInPlace(cg, refs)
	p := &Plan{Graph: cg}
	p.setResults(tiled, results, refs)
	return p, nil
}

// sideBase is where the refs of deferred chunk ops start: above any graph
// a process may tile.
const sideBase = 1 << 30

// fuseTiler is the builder of tileFusing. The chunk ops of deferred tensor
// ops go to side, with refs from sideBase; the others to main. Once the
// consumer of a deferred chain is tiled, every chunk op of its that reads
// side ops becomes one fused kernel taking them in (stamp), or, when the
// chain does not fuse as Fuse would fuse it, the side ops are put into main
// before the consumer, which is tiled again.
type fuseTiler struct {
	main      *graph.ChunkGraph
	side      graph.ChunkGraph
	deferring bool
	chainLeft int // deferred ops from the one tiling to the end of its chain (Reserve)
	absorbed  int // side ops taken into kernels: counted against the limit as tiled
	maxOps    int

	memo    fusedMemo
	scratch buildScratch
	local   graph.ChunkGraph // one group, renumbered for buildFused
	remap   []ops.ChunkRef
	refs    []ops.ChunkRef
	members []int32
	grp     []int32
	stack   []int32
}

func isSide(c ops.ChunkRef) bool { return c >= sideBase }

// AddChunk implements ops.Builder.
func (b *fuseTiler) AddChunk(op ops.ChunkOp, inputs []ops.ChunkRef, meta ops.Meta) ops.ChunkRef {
	if b.deferring {
		return b.side.AddChunk(op, inputs, meta) + sideBase
	}
	return b.main.AddChunk(op, inputs, meta)
}

// ChunkMeta implements ops.Builder.
func (b *fuseTiler) ChunkMeta(c ops.ChunkRef) ops.Meta { return b.node(c).Meta }

func (b *fuseTiler) node(c ops.ChunkRef) *graph.ChunkNode {
	if isSide(c) {
		return &b.side.Nodes[c-sideBase]
	}
	return &b.main.Nodes[c]
}

// Reserve implements ops.Reserver. The side ops of a chain are reserved
// for all its ops at the first: an op of a chain mostly makes as many
// chunk ops as the one before it, and a copy of the side graph to grow it
// would cost as much as filling it.
func (b *fuseTiler) Reserve(n int) {
	if b.deferring {
		if n > cap(b.side.Nodes)-len(b.side.Nodes) {
			b.side.Reserve(n * b.chainLeft)
		}
	} else {
		b.main.Reserve(n)
	}
}

// Admit implements ops.Budget: the limit counts every chunk op tiled, as
// graph.TileWithin's does, fused or not.
func (b *fuseTiler) Admit(n float64) error {
	limit := b.maxOps
	if limit <= 0 {
		limit = ops.MaxChunkOps
	}
	have := len(b.main.Nodes) + len(b.side.Nodes) + b.absorbed
	if float64(have)+n > float64(limit) {
		return &ops.TooManyChunksError{Count: n, Have: have, Limit: limit}
	}
	return nil
}

// tileFusing is graph.TileWithin with the chains deferredOps picks fused
// as they are tiled.
func tileFusing(tg *graph.TileableGraph, results []int, maxOps int) (*graph.ChunkGraph, []*ops.Tiled, error) {
	b := &fuseTiler{main: &graph.ChunkGraph{MaxOps: maxOps}, maxOps: maxOps}
	deferred := deferredOps(tg, results, maxOps)
	left := make([]int, len(deferred)+1) // deferred ops from i to the end of its chain
	for i := len(deferred) - 1; i >= 0; i-- {
		if deferred[i] {
			left[i] = left[i+1] + 1
		}
	}
	tiled := make([]*ops.Tiled, len(tg.Nodes))
	ins := make([]*ops.Tiled, 0, 4)
	for i := range tg.Nodes {
		var err error
		if ins, err = graph.TileInputs(tg, i, tiled, ins); err != nil {
			return nil, nil, err
		}
		b.deferring = deferred[i]
		b.chainLeft = left[i]
		mark := len(b.main.Nodes)
		t, err := graph.TileOp(b, tg, i, ins)
		if err != nil {
			return nil, nil, err
		}
		if !b.deferring && len(b.side.Nodes) > 0 {
			if !b.stamp(mark) {
				b.main.Nodes = b.main.Nodes[:mark]
				b.materialise(ins)
				if t, err = graph.TileOp(b, tg, i, ins); err != nil {
					return nil, nil, err
				}
			}
			b.side = graph.ChunkGraph{} // its ops are in kernels or in main now
		}
		tiled[i] = t
	}
	return b.main, tiled, nil
}

// deferredOps picks the tensor ops whose chunk ops go to the side: an
// elementwise or fill op that is not a result, read by the next tensor op
// alone, which is a reduction or itself deferred. Only the next: the side
// ops, put into main when a chain does not fuse, then stand where tiling
// would have put them, and the graph is the one graph.TileWithin makes.
func deferredOps(tg *graph.TileableGraph, results []int, maxOps int) []bool {
	n := len(tg.Nodes)
	d := make([]bool, n)
	if maxOps >= sideBase {
		return d
	}
	consumer := make([]int, n) // the one distinct consumer, -1 several, -2 none
	for i := range consumer {
		consumer[i] = -2
	}
	for _, r := range results {
		consumer[r] = -1
	}
	for i, nd := range tg.Nodes {
		for _, in := range nd.Inputs {
			if in < 0 || in >= i {
				return d // TileWithin's check reports it
			}
			switch c := consumer[in]; {
			case c == -2:
				consumer[in] = i
			case c != i:
				consumer[in] = -1
			}
		}
	}
	for i := n - 2; i >= 0; i-- {
		if consumer[i] != i+1 {
			continue
		}
		switch tg.Nodes[i].Op.(type) {
		case ops.Elementwise, ops.Full:
		default:
			continue
		}
		switch tg.Nodes[i+1].Op.(type) {
		case ops.Reduction:
			d[i] = true
		case ops.Elementwise:
			d[i] = d[i+1]
		}
	}
	return d
}

// materialise puts the side ops into main, in order, and turns the side
// refs of ins into main refs.
func (b *fuseTiler) materialise(ins []*ops.Tiled) {
	base := ops.ChunkRef(len(b.main.Nodes))
	to := func(c ops.ChunkRef) ops.ChunkRef {
		if isSide(c) {
			return c - sideBase + base
		}
		return c
	}
	b.main.Reserve(len(b.side.Nodes))
	var slab refSlab
	for _, nd := range b.side.Nodes {
		in := slab.take(len(nd.Inputs))
		for j, c := range nd.Inputs {
			in[j] = to(c)
		}
		b.main.AddChunk(nd.Op, in, nd.Meta)
	}
	for k, t := range ins {
		if !slices.ContainsFunc(t.Chunks, isSide) {
			continue
		}
		c := *t
		c.Chunks = make([]ops.ChunkRef, len(t.Chunks))
		for j, r := range t.Chunks {
			c.Chunks[j] = to(r)
		}
		ins[k] = &c
	}
}

// stamp turns every chunk op from mark on that reads side ops into the
// kernel Fuse would make of it, if each is a reduction's partial whose
// group holds exactly the side ops it reads (through each other) and
// nothing Fuse could take in besides, and every side op is in one group.
// It changes nothing and reports false otherwise.
func (b *fuseTiler) stamp(mark int) bool {
	side := b.side.Nodes
	uses := make([]int32, len(side))
	count := func(in []ops.ChunkRef) {
		for _, c := range in {
			if isSide(c) {
				uses[c-sideBase]++
			}
		}
	}
	for _, nd := range side {
		count(nd.Inputs)
	}
	roots := 0
	for j := mark; j < len(b.main.Nodes); j++ {
		nd := &b.main.Nodes[j]
		if _, ok := nd.Op.(ops.ReduceFinish); ok {
			return false // Fuse may take a finish and its partial into a later kernel
		}
		count(nd.Inputs)
		if slices.ContainsFunc(nd.Inputs, isSide) {
			roots++
		}
	}
	if roots == 0 {
		return false
	}
	grouped := 0
	for j := mark; j < len(b.main.Nodes); j++ {
		if !slices.ContainsFunc(b.main.Nodes[j].Inputs, isSide) {
			continue
		}
		n, ok := b.group(ops.ChunkRef(j), uses)
		if !ok {
			return false
		}
		grouped += n
	}
	if grouped != len(side) {
		return false
	}
	for j := mark; j < len(b.main.Nodes); j++ {
		if slices.ContainsFunc(b.main.Nodes[j].Inputs, isSide) {
			b.build(ops.ChunkRef(j))
		}
	}
	b.absorbed += len(side)
	return true
}

// group checks the group Fuse would root at main op r and returns how many
// side ops it holds. r must be a reduction's partial; its members are the
// side ops it reads, through each other, each read once, of its iteration
// shape and of a kind Fuse takes in. An operand in main that Fuse could
// take in as well (a fill or elementwise op of that shape, or a finish)
// fails the check: whether Fuse would depends on readers not tiled yet.
func (b *fuseTiler) group(r ops.ChunkRef, uses []int32) (int, bool) {
	root := b.node(r)
	rp, ok := root.Op.(ops.ReducePartial)
	if !ok || root.Meta.Unknown != 0 || len(root.Inputs) != 1 {
		return 0, false
	}
	shape := b.node(root.Inputs[0]).Meta.Shape
	if mode, _ := ops.FusedReduceMode(rp, shape); mode == 0 {
		return 0, false
	}
	n := 0
	stack := append(b.stack[:0], int32(r))
	defer func() { b.stack = stack }()
	for len(stack) > 0 {
		u := ops.ChunkRef(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		for _, in := range b.node(u).Inputs {
			nd := b.node(in)
			fits := nd.Meta.Unknown == 0 && ndarray.SameShape(nd.Meta.Shape, shape) && takenIn(nd.Op, len(shape))
			if !isSide(in) {
				if fits {
					return 0, false
				}
				if _, ok := nd.Op.(ops.ReduceFinish); ok {
					return 0, false
				}
				continue
			}
			if !fits || uses[in-sideBase] != 1 {
				return 0, false
			}
			n++
			stack = append(stack, int32(in))
		}
	}
	return n, true
}

// takenIn reports whether Fuse's absorbable takes an op of this kind into
// a kernel whose iteration shape has ndim axes.
func takenIn(op ops.ChunkOp, ndim int) bool {
	if ts, ok := op.(ops.TileSource); ok {
		return ts.TileReadable()
	}
	f := ops.FusionOf(op)
	return f == ops.FuseElementwise || generates(f, ndim)
}

// sameChain reports whether the group of main op r (checked by group) is
// a chain of side ops, each reading the one before, the first reading
// nothing, that makes the kernel built last (b.memo): the common case of
// a chunk after the first, stamped without building its kernel again.
func (b *fuseTiler) sameChain(r ops.ChunkRef) bool {
	m := &b.memo
	if !m.filled || m.last.Recomputed != 0 || m.last.K1 != 0 || m.last.Shape1 != nil || m.last.InputLevels != nil {
		return false
	}
	nodes := m.last.Nodes
	k := len(nodes) - 1 // the root's place
	if k < 1 {
		return false
	}
	root := b.node(r)
	if !sameChainNode(&nodes[k], root, k) || !slices.Equal(m.last.Shape, b.node(root.Inputs[0]).Meta.Shape) {
		return false
	}
	c := root.Inputs[0]
	for i := k - 1; i >= 0; i-- {
		nd := b.node(c)
		if !sameChainNode(&nodes[i], nd, i) {
			return false
		}
		if i > 0 {
			c = nd.Inputs[0]
		}
	}
	return true
}

// sameChainNode reports whether kernel node f, at place i of a chain,
// is nd: its op and meta, and reading the node before it (nothing at 0),
// which must be a side op.
func sameChainNode(f *ops.FusedNode, nd *graph.ChunkNode, i int) bool {
	if f.Level != 0 || !sameMeta(f.Meta, nd.Meta) {
		return false
	}
	if i == 0 {
		if len(f.Args) != 0 || len(nd.Inputs) != 0 {
			return false
		}
	} else if len(f.Args) != 1 || f.Args[0] != i-1 || len(nd.Inputs) != 1 || !isSide(nd.Inputs[0]) {
		return false
	}
	return sameChunkOp(f.Op, nd.Op)
}

// build replaces main op r (checked by group) with its kernel: the group
// is renumbered into b.local, members in tiling order (side ops were
// tiled before r) and then the operands in main, and built as Fuse builds
// it.
func (b *fuseTiler) build(r ops.ChunkRef) {
	if b.sameChain(r) {
		nd := &b.main.Nodes[r]
		*nd = graph.ChunkNode{Op: b.memo.boxed, Meta: nd.Meta}
		return
	}
	members := append(b.members[:0], int32(r))
	stack := append(b.stack[:0], int32(r))
	for len(stack) > 0 {
		u := ops.ChunkRef(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		for _, in := range b.node(u).Inputs {
			if isSide(in) {
				members = append(members, int32(in))
				stack = append(stack, int32(in))
			}
		}
	}
	b.stack = stack
	// Side refs are above main ones: sorted, r comes first; the members'
	// tiling order is side order, then r.
	slices.Sort(members)
	members = append(members[1:], members[0])
	b.members = members
	local := b.local.Nodes[:0]
	remap := b.remap[:0]
	refs := b.refs[:0]
	localOf := func(c ops.ChunkRef) ops.ChunkRef {
		if i, ok := slices.BinarySearch(members[:len(members)-1], int32(c)); ok && isSide(c) {
			return ops.ChunkRef(i)
		}
		if c == r {
			return ops.ChunkRef(len(members) - 1)
		}
		// An operand in main: a node after the members, its meta for
		// iterShape, its ref for the kernel's inputs.
		for k := len(members); k < len(local); k++ {
			if remap[k] == c {
				return ops.ChunkRef(k)
			}
		}
		for len(remap) < len(local) {
			remap = append(remap, -1)
		}
		local = append(local, graph.ChunkNode{Meta: b.node(c).Meta})
		remap = append(remap, c)
		return ops.ChunkRef(len(local) - 1)
	}
	local = slices.Grow(local, len(members))[:len(members)]
	for k, m := range members {
		nd := b.node(ops.ChunkRef(m))
		local[k] = graph.ChunkNode{Op: nd.Op, Meta: nd.Meta}
	}
	for k, m := range members {
		start := len(refs)
		for _, in := range b.node(ops.ChunkRef(m)).Inputs {
			refs = append(refs, localOf(in))
		}
		local[k].Inputs = refs[start:len(refs):len(refs)]
	}
	for len(remap) < len(local) {
		remap = append(remap, -1)
	}
	b.local.Nodes, b.remap, b.refs = local, remap, refs
	// buildFused wants the root first; the rest in any order.
	grp := append(b.grp[:0], int32(len(members)-1))
	for k := range len(members) - 1 {
		grp = append(grp, int32(k))
	}
	b.grp = grp
	op, ins := buildFused(&b.scratch, &b.local, grp, nil, remap, -1, nil)
	meta := b.node(r).Meta
	b.main.Nodes[r] = graph.ChunkNode{Op: b.memo.share(op), Inputs: ins, Meta: meta}
}
