package optimize

import (
	"fmt"
	"io"
	"strings"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// Stats summarise a chunk graph for explain output.
type Stats struct {
	Pass        string `json:"pass"`
	ChunkOps    int    `json:"chunk_ops"`
	FusedGroups int    `json:"fused_groups"`
	FusedOps    int    `json:"fused_ops"` // chunk ops inside fused kernels
	Views       int    `json:"views"`     // zero-copy chunk ops
	// Recomputed counts shared generator chunks recomputed inside fused
	// kernels instead of being materialised (recompute rather than spill).
	Recomputed int `json:"recomputed"`
	// MaterializedBytes is the output bytes of every chunk op that is not a
	// view: what execution will allocate, outside fused kernels' tiles.
	MaterializedBytes int64 `json:"materialized_bytes"`
}

// Summarize counts a graph's chunk ops, fused groups, views and bytes.
func Summarize(pass string, g *graph.ChunkGraph) Stats {
	s := Stats{Pass: pass, ChunkOps: len(g.Nodes)}
	for _, nd := range g.Nodes {
		op := nd.Op
		if fin, ok := op.(ops.Finished); ok {
			op = fin.Op // a kernel that runs its reduction's finish too
		}
		if f, ok := op.(ops.Fused); ok {
			s.FusedGroups++
			s.FusedOps += len(f.Nodes)
			s.Recomputed += f.Recomputed
		}
		if ops.Materializes(nd.Op) {
			s.MaterializedBytes += nd.Meta.Nbytes()
		} else {
			s.Views++
		}
	}
	return s
}

func (s Stats) String() string {
	return fmt.Sprintf("%-8s %8d chunk ops  %6d fused groups (%d ops inside, %d recomputed generators)  %6d views  %s materialised",
		s.Pass, s.ChunkOps, s.FusedGroups, s.FusedOps, s.Recomputed, s.Views, HumanBytes(s.MaterializedBytes))
}

// HumanBytes prints a byte count with a binary unit.
func HumanBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

// WriteDOT writes the graph in Graphviz DOT. Graphs above maxNodes are cut
// off with a note, so huge graphs stay readable.
func WriteDOT(w io.Writer, name string, g *graph.ChunkGraph, maxNodes int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n  rankdir=BT;\n  node [shape=box, fontsize=10];\n", name)
	n := len(g.Nodes)
	if maxNodes > 0 && n > maxNodes {
		n = maxNodes
		fmt.Fprintf(&b, "  note [shape=note, label=\"%d of %d chunk ops shown\"];\n", n, len(g.Nodes))
	}
	for i := 0; i < n; i++ {
		nd := g.Nodes[i]
		style := ""
		switch {
		case !ops.Materializes(nd.Op):
			style = ", style=dashed"
		case isFused(nd.Op):
			style = ", style=filled, fillcolor=lightblue"
		}
		fmt.Fprintf(&b, "  n%d [label=%q%s];\n", i, fmt.Sprintf("%d %s\n%v", i, ops.Label(nd.Op), nd.Meta), style)
		for _, in := range nd.Inputs {
			fmt.Fprintf(&b, "  n%d -> n%d;\n", in, i)
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func isFused(op ops.ChunkOp) bool {
	_, ok := op.(ops.Fused)
	return ok
}
