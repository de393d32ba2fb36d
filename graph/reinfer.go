package graph

import (
	"fmt"

	"github.com/phobos-tensor/phobos/ops"
)

// Reinfer computes every tensor's meta again from its op and its inputs'
// metas, in order: after ops were replaced by ones that know more (a held
// tensor whose lengths a finished run told), the tensors built on them
// learn those lengths too.
func (g *TileableGraph) Reinfer() error {
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		in := make([]ops.Meta, len(nd.Inputs))
		for k, j := range nd.Inputs {
			in[k] = g.Nodes[j].Meta
		}
		m, err := inferSafely(nd.Op, in)
		if err != nil {
			return fmt.Errorf("graph: tensor %d (%s) with inputs %v: %w", i, nd.Op.Type(), in, err)
		}
		nd.Meta = m
	}
	return nil
}
