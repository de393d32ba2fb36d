package ops_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/tensor"
)

// BenchmarkMarshalFusedOp is the per-chunk-op cost of the wire encoding.
func BenchmarkMarshalFusedOp(b *testing.B) {
	x := tensor.NewGenerator(1).Rand([]int{1000, 1000}, tensor.Chunks(100)).Add(1).Sum()
	tg, ids, _ := tensor.Build(x)
	cg, tiled, _ := graph.Tile(tg)
	cg, _ = optimize.Fuse(optimize.Cull(cg, tiled[ids[0]].Chunks))
	op := cg.Nodes[0].Op
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ops.MarshalOp(op); err != nil {
			b.Fatal(err)
		}
	}
}
