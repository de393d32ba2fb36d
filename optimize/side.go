package optimize

import (
	"github.com/phobos-tensor/phobos/ops"
)

// sideGraph holds the chunk ops of a deferred chain (fuseTiler's side),
// which are written once, read once by stamp and then dropped: their
// inputs in one list and their metas each once per run of equal metas,
// so that all but the ops are free of pointers, which the collector
// need not scan and the first writes into fresh memory are few.
type sideGraph struct {
	nodes []sideNode
	ops   []ops.ChunkOp
	ins   []ops.ChunkRef
	metas []ops.Meta
}

// sideNode is a side op: its inputs ins[in:in+nin], its meta metas[meta].
type sideNode struct{ in, nin, meta uint32 }

func (s *sideGraph) len() int { return len(s.nodes) }

// add appends a chunk op and returns its index in the side graph.
func (s *sideGraph) add(op ops.ChunkOp, inputs []ops.ChunkRef, meta ops.Meta) ops.ChunkRef {
	m := len(s.metas) - 1
	if m < 0 || !sameMeta(s.metas[m], meta) {
		s.metas = append(s.metas, meta)
		m++
	}
	s.nodes = append(s.nodes, sideNode{in: uint32(len(s.ins)), nin: uint32(len(inputs)), meta: uint32(m)})
	s.ins = append(s.ins, inputs...)
	s.ops = append(s.ops, op)
	return ops.ChunkRef(len(s.nodes) - 1)
}

// reserve makes room for n more ops reading one input each, exactly:
// append's growth would round a million-op chain up by a fifth or more.
func (s *sideGraph) reserve(n int) {
	if n <= cap(s.nodes)-len(s.nodes) {
		return
	}
	s.nodes = grow(s.nodes, n)
	s.ops = grow(s.ops, n)
	s.ins = grow(s.ins, n)
}

func grow[T any](s []T, n int) []T {
	if n <= cap(s)-len(s) {
		return s
	}
	t := make([]T, len(s), len(s)+n)
	copy(t, s)
	return t
}

func (s *sideGraph) inputs(i ops.ChunkRef) []ops.ChunkRef {
	nd := s.nodes[i]
	return s.ins[nd.in : nd.in+nd.nin : nd.in+nd.nin]
}

func (s *sideGraph) meta(i ops.ChunkRef) *ops.Meta { return &s.metas[s.nodes[i].meta] }
