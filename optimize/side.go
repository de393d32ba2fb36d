package optimize

import (
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/internal/hugepage"
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

// addBulk is add for n ops of nin inputs each, made by fill over the
// ranges split cuts (ops.BulkBuilder): each range keeps its own runs of
// equal metas, numbered from 0 and moved up once all ranges are in, so
// that no range writes what another reads.
func (s *sideGraph) addBulk(split graph.Split, n, nin int, fill ops.BulkFill, refs []ops.ChunkRef) {
	first, in0 := len(s.nodes), len(s.ins)
	s.nodes = grow(s.nodes, n)[:first+n]
	s.ops = grow(s.ops, n)[:first+n]
	s.ins = grow(s.ins, n*nin)[:in0+n*nin]
	nodes, opsOf, ins := s.nodes[first:], s.ops[first:], s.ins[in0:]
	metas := make([][]ops.Meta, split.Batches(n))
	split.Ranges(n, func(k, lo, hi int) {
		var ms []ops.Meta
		fill(lo, hi, func(i int, op ops.ChunkOp, inputs []ops.ChunkRef, meta ops.Meta) {
			if len(ms) == 0 || !sameMeta(ms[len(ms)-1], meta) {
				ms = append(ms, meta)
			}
			copy(ins[i*nin:(i+1)*nin], inputs)
			nodes[i] = sideNode{in: uint32(in0 + i*nin), nin: uint32(nin), meta: uint32(len(ms) - 1)}
			opsOf[i] = op
			refs[i] = ops.ChunkRef(first+i) + sideBase
		})
		metas[k] = ms
	})
	for k, ms := range metas {
		base := uint32(len(s.metas))
		s.metas = append(s.metas, ms...)
		if base == 0 {
			continue
		}
		lo, hi := split.Range(n, k)
		for i := lo; i < hi; i++ {
			nodes[i].meta += base
		}
	}
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
	t := hugepage.Make[T](len(s), len(s)+n)
	copy(t, s)
	return t
}

func (s *sideGraph) inputs(i ops.ChunkRef) []ops.ChunkRef {
	nd := s.nodes[i]
	return s.ins[nd.in : nd.in+nd.nin : nd.in+nd.nin]
}

func (s *sideGraph) meta(i ops.ChunkRef) *ops.Meta { return &s.metas[s.nodes[i].meta] }
