package optimize

import (
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
// inputs. Linear in the graph size.
func Fuse(g *graph.ChunkGraph, results []ops.ChunkRef) (*graph.ChunkGraph, []ops.ChunkRef) {
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
	group := make([]int32, n) // root of the group a node was absorbed into, or -1
	for i := range group {
		group[i] = -1
	}
	members := make(map[int32][]int32)
	// Roots in reverse topological order, so a consumer's group is settled
	// before its inputs are considered.
	for v := n - 1; v >= 0; v-- {
		if group[v] >= 0 {
			continue
		}
		shape, ok := iterShape(g, v)
		if !ok {
			continue
		}
		grp := []int32{int32(v)}
		stack := []int32{int32(v)}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, in := range g.Nodes[u].Inputs {
				if group[in] >= 0 || in32(in) == int32(v) || !absorbable(g, in, u, consumer, isResult, shape) {
					continue
				}
				group[in] = int32(v)
				grp = append(grp, int32(in))
				stack = append(stack, int32(in))
			}
		}
		if len(grp) > 1 {
			group[v] = int32(v)
			members[int32(v)] = grp
		}
	}
	if len(members) == 0 {
		return g, results
	}
	out := &graph.ChunkGraph{Nodes: make([]graph.ChunkNode, 0, n)}
	remap := make([]ops.ChunkRef, n)
	for i, nd := range g.Nodes {
		root := group[i]
		switch {
		case root < 0:
			ins := make([]ops.ChunkRef, len(nd.Inputs))
			for j, in := range nd.Inputs {
				ins[j] = remap[in]
			}
			remap[i] = out.AddChunk(nd.Op, ins, nd.Meta)
		case root == int32(i):
			op, ins := buildFused(g, members[root], group, remap)
			remap[i] = out.AddChunk(op, ins, nd.Meta)
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

func in32(c ops.ChunkRef) int32 { return int32(c) }

// iterShape is the iteration shape of a group rooted at v, if v can be a root.
func iterShape(g *graph.ChunkGraph, v int) ([]int, bool) {
	nd := g.Nodes[v]
	switch op := nd.Op.(type) {
	case ops.Elementwise:
		return nd.Meta.Shape, true
	case ops.ReducePartial:
		in := g.Nodes[nd.Inputs[0]].Meta.Shape
		if mode, _ := ops.FusedReduceMode(op, in); mode == 0 {
			return nil, false
		}
		return in, true
	}
	return nil, false
}

// absorbable reports whether node c can be computed inside the group of its
// consumer u.
func absorbable(g *graph.ChunkGraph, c ops.ChunkRef, u int32, consumer []int32, isResult []bool, shape []int) bool {
	if isResult[c] || consumer[c] != u {
		return false
	}
	nd := g.Nodes[c]
	if !ndarray.SameShape(nd.Meta.Shape, shape) {
		return false
	}
	switch nd.Op.(type) {
	case ops.Elementwise, ops.RandomChunk, ops.FullChunk:
		return true
	case ops.ArangeChunk:
		return len(shape) == 1
	}
	return false
}

// buildFused makes the kernel of one group: members in topological order,
// operands that are not members become the kernel's inputs.
func buildFused(g *graph.ChunkGraph, grp []int32, group []int32, remap []ops.ChunkRef) (ops.Fused, []ops.ChunkRef) {
	slices.Sort(grp)
	root := grp[len(grp)-1]
	pos := make(map[int32]int, len(grp))
	for i, m := range grp {
		pos[m] = i
	}
	var ins []ops.ChunkRef
	extPos := map[ops.ChunkRef]int{}
	f := ops.Fused{Nodes: make([]ops.FusedNode, len(grp))}
	shape, _ := iterShape(g, int(root))
	f.Shape = append([]int(nil), shape...)
	for i, m := range grp {
		nd := g.Nodes[m]
		args := make([]int, len(nd.Inputs))
		for j, in := range nd.Inputs {
			if group[in] == root && in32(in) != root {
				args[j] = pos[int32(in)]
				continue
			}
			k, ok := extPos[in]
			if !ok {
				k = len(ins)
				extPos[in] = k
				ins = append(ins, remap[in])
			}
			args[j] = -1 - k
		}
		f.Nodes[i] = ops.FusedNode{Op: nd.Op, Args: args, Meta: nd.Meta}
	}
	return f, ins
}
