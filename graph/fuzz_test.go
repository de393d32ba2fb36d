package graph_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/tensor"
)

// FuzzDecodeTileable feeds the graph JSON decoder what a client may send,
// then compiles what it accepts (tile within a small chunk budget, cull,
// fuse): never a panic, never an allocation without bound. Seeds are real
// graphs, so mutations reach the tile rules.
func FuzzDecodeTileable(f *testing.F) {
	g := tensor.NewGenerator(1)
	x := g.Uniform(-1, 1, []int{40, 30}, tensor.Chunks(7, 11))
	seeds := []*tensor.Tensor{
		x.Add(1).Mul(x).Sum(tensor.Axis(0)),
		x.MatMul(x.Transpose()).Mean(),
		tensor.Arange(0, 100, 3, tensor.Chunks(9)).Square().CumSum(0),
		x.Sub(x.Mean(tensor.Axis(1), tensor.KeepDims())).Std(),
		tensor.Ones([]int{5, 1}, tensor.Chunks(2, 1)).Add(tensor.Ones([]int{1, 6}, tensor.Chunks(1, 4))),
	}
	// numpy.linalg: TSQR (QR, SVD) and the whole-matrix kernels.
	q, r := linalg.QR(x, "")
	_, s, _ := linalg.SVD(x, false)
	sq := x.Index(tensor.To(30))
	lx, _, _, _ := linalg.Lstsq(x, x.Index(tensor.All(), tensor.At(0)))
	seeds = append(seeds, q.MatMul(r), s, linalg.Inv(sq).Add(linalg.Det(sq)), linalg.Solve(sq, sq), lx)
	for _, s := range seeds {
		tg, _, err := tensor.Build(s)
		if err != nil {
			f.Fatal(err)
		}
		b, err := graph.EncodeTileable(tg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":1,"nodes":[{"op":{"type":"full","params":{"meta":{"shape":[-1],"dtype":"float64"}}}}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tg, err := graph.DecodeTileable(data)
		if err != nil {
			return
		}
		cg, tiled, err := graph.TileWithin(tg, 20_000)
		if err != nil {
			return
		}
		if len(cg.Nodes) > 3*20_000 {
			t.Fatalf("tiling made %d chunk ops past a budget of 20,000", len(cg.Nodes))
		}
		var refs []ops.ChunkRef
		for _, tl := range tiled {
			refs = append(refs, tl.Chunks...)
		}
		cg, refs = optimize.Cull(cg, refs)
		optimize.Fuse(cg, refs)
	})
}
