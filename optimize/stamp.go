package optimize

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// stampBatch is how many roots a goroutine of stamp takes at a time; a
// chain of fewer than two batches is stamped on the caller's goroutine.
const stampBatch = 4096

// stampSplit is how stamp shares its roots between goroutines: batch
// roots at a time (0: stampBatch), at most procs goroutines (0:
// GOMAXPROCS). Tests split small graphs with it.
type stampSplit struct {
	batch, procs int
	afterTiling  bool // stamp a chain's consumer once it is tiled, never as it is
}

// kernelBuilder checks and builds the kernels of stamp, one root at a
// time, reading the main and side nodes as they stand. Each goroutine of
// stamp has its own; they share the nodes, which none of them writes but
// at its own roots.
type kernelBuilder struct {
	main []graph.ChunkNode
	side *sideGraph

	memo    fusedMemo
	scratch buildScratch
	local   graph.ChunkGraph // one group, renumbered for buildFused
	remap   []ops.ChunkRef
	refs    []ops.ChunkRef
	members []int32
	grp     []int32
	stack   []int32

	// known[i] is a chunk op found to be node i of memo's kernel
	// (sameChainNode), while memo's boxed op is knownFor: a chunk op in
	// the same box with the same meta slice is that node too.
	known    []knownNode
	knownFor ops.ChunkOp
}

// knownNode is a chunk op and meta that sameChainNode matched.
type knownNode struct {
	op   ops.ChunkOp
	meta ops.Meta
}

// sameBox reports whether a and b are one boxed value (the same dynamic
// type and data word), which an op boxed once and shared by a tensor op's
// chunks is: equal without looking into it. Ops are never changed once
// boxed.
func sameBox(a, b ops.ChunkOp) bool {
	type iface struct{ typ, data unsafe.Pointer }
	return *(*iface)(unsafe.Pointer(&a)) == *(*iface)(unsafe.Pointer(&b))
}

// sameBoxedMeta reports whether a and b are one meta: the same shape
// slice, dtype and unknown axis.
func sameBoxedMeta(a, b *ops.Meta) bool {
	return a.DType == b.DType && a.Unknown == b.Unknown && len(a.Shape) == len(b.Shape) &&
		(len(a.Shape) == 0 || &a.Shape[0] == &b.Shape[0])
}

func (k *kernelBuilder) op(c ops.ChunkRef) ops.ChunkOp {
	if isSide(c) {
		return k.side.ops[c-sideBase]
	}
	return k.main[c].Op
}

func (k *kernelBuilder) inputs(c ops.ChunkRef) []ops.ChunkRef {
	if isSide(c) {
		return k.side.inputs(c - sideBase)
	}
	return k.main[c].Inputs
}

func (k *kernelBuilder) meta(c ops.ChunkRef) *ops.Meta {
	if isSide(c) {
		return k.side.meta(c - sideBase)
	}
	return &k.main[c].Meta
}

// fork is a builder of its own scratch that starts from k's memo, so
// the kernels it builds equal to k's last share its boxed op.
func (k *kernelBuilder) fork() *kernelBuilder {
	return &kernelBuilder{main: k.main, side: k.side, memo: k.memo}
}

// goroutines is how many goroutines stamp uses for n roots, batch roots
// at a time: one when there are too few to be worth it.
func (b *fuseTiler) goroutines(n int) (procs, batch int) {
	batch, procs = b.split.batch, b.split.procs
	if batch <= 0 {
		batch = stampBatch
	}
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	return max(1, min(procs, n/batch)), batch
}

// stamp turns every chunk op from mark on that reads side ops into the
// kernel Fuse would make of it, if each is a reduction's partial whose
// group holds exactly the side ops it reads (through each other) and
// nothing Fuse could take in besides, and every side op is in one group.
// It reports false otherwise, having changed none but the chunk ops from
// mark on, which the caller then drops. Each root is checked and built
// in turn (stampOne), on up to GOMAXPROCS goroutines that take batches
// of roots as they go (a goroutine that gets no core holds up no other),
// into the roots' own nodes: the plan does not depend on how they are
// shared out, only which kernels share a boxed op may.
func (b *fuseTiler) stamp(mark int) bool {
	side := &b.side
	uses := slices.Grow(b.uses[:0], side.len())[:side.len()]
	clear(uses)
	b.uses = uses
	count := func(in []ops.ChunkRef) {
		for _, c := range in {
			if isSide(c) {
				uses[c-sideBase]++
			}
		}
	}
	count(side.ins)
	roots := slices.Grow(b.roots[:0], len(b.main.Nodes)-mark)
	for j := mark; j < len(b.main.Nodes); j++ {
		nd := &b.main.Nodes[j]
		if _, ok := nd.Op.(ops.ReduceFinish); ok {
			return false // Fuse may take a finish and its partial into a later kernel
		}
		count(nd.Inputs)
		if slices.ContainsFunc(nd.Inputs, isSide) {
			roots = append(roots, int32(j))
		}
	}
	b.roots = roots
	if len(roots) == 0 {
		return false
	}
	b.kb.main, b.kb.side = b.main.Nodes, side
	defer func() { b.kb.main, b.kb.side = nil, nil }()

	// The first root on the caller's builder, so the others start from
	// its memo and share its kernel.
	total, ok := b.kb.stampOne(ops.ChunkRef(roots[0]), uses)
	if !ok {
		return false
	}
	procs, batch := b.goroutines(len(roots) - 1)
	forks := make([]*kernelBuilder, procs)
	forks[0] = &b.kb
	for i := 1; i < procs; i++ {
		forks[i] = b.kb.fork()
	}
	grouped := make([]int, procs)
	var next atomic.Int64 // the next batch's first root, after the first
	var failed atomic.Bool
	next.Store(1)
	each(procs, func(i int) {
		for !failed.Load() {
			start := int(next.Add(int64(batch))) - batch
			if start >= len(roots) {
				return
			}
			for _, r := range roots[start:min(start+batch, len(roots))] {
				n, ok := forks[i].stampOne(ops.ChunkRef(r), uses)
				if !ok {
					failed.Store(true)
					return
				}
				grouped[i] += n
			}
		}
	})
	if failed.Load() {
		return false
	}
	for _, n := range grouped {
		total += n
	}
	if total != side.len() {
		return false
	}
	b.absorbed += side.len()
	return true
}

// each calls f(0) to f(n-1), each on a goroutine of its own but f(0),
// and returns when all have. A panic in any is raised again on the
// caller's goroutine once all have returned, where the compile's guard
// (execution) recovers it as it would on one goroutine.
func each(n int, f func(i int)) {
	var wg sync.WaitGroup
	panics := make([]any, n)
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { panics[i] = recover() }()
			f(i)
		}()
	}
	func() {
		defer func() { panics[0] = recover() }()
		f(0)
	}()
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// stampOne checks the group Fuse would root at main op r (group) and
// replaces r with its kernel (build), returning how many side ops the
// group holds. A chain that makes the kernel built last (sameChain), each
// of its ops read once, passes group's check as that kernel's did, and
// is stamped with its boxed op without walking the group again.
func (kb *kernelBuilder) stampOne(r ops.ChunkRef, uses []int32) (int, bool) {
	if kb.sameChain(r) {
		k := len(kb.memo.last.Nodes) - 1 // the chain's side ops
		c := kb.inputs(r)[0]
		once := true
		for i := 0; i < k && once; i++ {
			once = atomic.LoadInt32(&uses[c-sideBase]) == 1
			if i < k-1 {
				c = kb.inputs(c)[0]
			}
		}
		if once {
			nd := &kb.main[r]
			*nd = graph.ChunkNode{Op: kb.memo.boxed, Meta: nd.Meta}
			return k, true
		}
	}
	n, ok := kb.group(r, uses)
	if ok {
		kb.build(r)
	}
	return n, ok
}

// group checks the group Fuse would root at main op r and returns how many
// side ops it holds. r must be a reduction's partial; its members are the
// side ops it reads, through each other, each read once, of its iteration
// shape and of a kind Fuse takes in. An operand in main that Fuse could
// take in as well (a fill or elementwise op of that shape, or a finish)
// fails the check: whether Fuse would depends on readers not tiled yet.
func (kb *kernelBuilder) group(r ops.ChunkRef, uses []int32) (int, bool) {
	rp, ok := kb.op(r).(ops.ReducePartial)
	rin := kb.inputs(r)
	if !ok || kb.meta(r).Unknown != 0 || len(rin) != 1 {
		return 0, false
	}
	shape := kb.meta(rin[0]).Shape
	if mode, _ := ops.FusedReduceMode(rp, shape); mode == 0 {
		return 0, false
	}
	n := 0
	stack := append(kb.stack[:0], int32(r))
	defer func() { kb.stack = stack }()
	for len(stack) > 0 {
		u := ops.ChunkRef(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		for _, in := range kb.inputs(u) {
			op, meta := kb.op(in), kb.meta(in)
			fits := meta.Unknown == 0 && ndarray.SameShape(meta.Shape, shape) && takenIn(op, len(shape))
			if !isSide(in) {
				if fits {
					return 0, false
				}
				if _, ok := op.(ops.ReduceFinish); ok {
					return 0, false
				}
				continue
			}
			if !fits || atomic.LoadInt32(&uses[in-sideBase]) != 1 {
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
// nothing, that makes the kernel built last (kb.memo): the common case of
// a chunk after the first, stamped without building its kernel again.
func (kb *kernelBuilder) sameChain(r ops.ChunkRef) bool {
	m := &kb.memo
	if !m.filled || m.last.Recomputed != 0 || m.last.K1 != 0 || m.last.Shape1 != nil || m.last.InputLevels != nil {
		return false
	}
	nodes := m.last.Nodes
	k := len(nodes) - 1 // the root's place
	if k < 1 {
		return false
	}
	if !sameBox(kb.knownFor, m.boxed) || len(kb.known) != len(nodes) {
		kb.known = slices.Grow(kb.known[:0], len(nodes))[:len(nodes)]
		clear(kb.known)
		kb.knownFor = m.boxed
	}
	if !kb.sameChainNode(&nodes[k], r, k) || !slices.Equal(m.last.Shape, kb.meta(kb.inputs(r)[0]).Shape) {
		return false
	}
	c := kb.inputs(r)[0]
	for i := k - 1; i >= 0; i-- {
		if !kb.sameChainNode(&nodes[i], c, i) {
			return false
		}
		if i > 0 {
			c = kb.inputs(c)[0]
		}
	}
	return true
}

// sameChainNode reports whether kernel node f, at place i of a chain,
// is chunk op c: its op and meta, and reading the node before it (nothing
// at 0), which must be a side op.
func (kb *kernelBuilder) sameChainNode(f *ops.FusedNode, c ops.ChunkRef, i int) bool {
	if f.Level != 0 {
		return false
	}
	in := kb.inputs(c)
	if i == 0 {
		if len(f.Args) != 0 || len(in) != 0 {
			return false
		}
	} else if len(f.Args) != 1 || f.Args[0] != i-1 || len(in) != 1 || !isSide(in[0]) {
		return false
	}
	op, meta := kb.op(c), kb.meta(c)
	if kn := &kb.known[i]; kn.op != nil && sameBox(kn.op, op) && sameBoxedMeta(&kn.meta, meta) {
		return true
	}
	if !sameMeta(f.Meta, *meta) || !sameChunkOp(f.Op, op) {
		return false
	}
	kb.known[i] = knownNode{op: op, meta: *meta}
	return true
}

// build replaces main op r (checked by group) with its kernel: the group
// is renumbered into kb.local, members in tiling order (side ops were
// tiled before r) and then the operands in main, and built as Fuse builds
// it.
func (kb *kernelBuilder) build(r ops.ChunkRef) {
	members := append(kb.members[:0], int32(r))
	stack := append(kb.stack[:0], int32(r))
	for len(stack) > 0 {
		u := ops.ChunkRef(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		for _, in := range kb.inputs(u) {
			if isSide(in) {
				members = append(members, int32(in))
				stack = append(stack, int32(in))
			}
		}
	}
	kb.stack = stack
	// Side refs are above main ones: sorted, r comes first; the members'
	// tiling order is side order, then r.
	slices.Sort(members)
	members = append(members[1:], members[0])
	kb.members = members
	local := kb.local.Nodes[:0]
	remap := kb.remap[:0]
	refs := kb.refs[:0]
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
		local = append(local, graph.ChunkNode{Meta: *kb.meta(c)})
		remap = append(remap, c)
		return ops.ChunkRef(len(local) - 1)
	}
	local = slices.Grow(local, len(members))[:len(members)]
	for k, m := range members {
		local[k] = graph.ChunkNode{Op: kb.op(ops.ChunkRef(m)), Meta: *kb.meta(ops.ChunkRef(m))}
	}
	for k, m := range members {
		start := len(refs)
		for _, in := range kb.inputs(ops.ChunkRef(m)) {
			refs = append(refs, localOf(in))
		}
		local[k].Inputs = refs[start:len(refs):len(refs)]
	}
	for len(remap) < len(local) {
		remap = append(remap, -1)
	}
	kb.local.Nodes, kb.remap, kb.refs = local, remap, refs
	// buildFused wants the root first; the rest in any order.
	grp := append(kb.grp[:0], int32(len(members)-1))
	for k := range len(members) - 1 {
		grp = append(grp, int32(k))
	}
	kb.grp = grp
	op, ins := buildFused(&kb.scratch, &kb.local, grp, nil, remap, -1, nil)
	meta := kb.main[r].Meta
	kb.main[r] = graph.ChunkNode{Op: kb.memo.share(op), Inputs: ins, Meta: meta}
}
