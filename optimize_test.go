package phobos_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

func passStats(t *testing.T, p *phobos.Plan, pass string) (int, int64) {
	t.Helper()
	for _, s := range p.Passes {
		if s.Pass == pass {
			return s.ChunkOps, s.MaterializedBytes
		}
	}
	t.Fatalf("no pass %q in %+v", pass, p.Passes)
	return 0, 0
}

// Work for x[:10].sum() must scale with the chunks touched, not with x.
func TestCullRunsOnlyTouchedChunks(t *testing.T) {
	for _, nchunks := range []int{10, 1000} {
		x := tensor.NewGenerator(1).Rand([]int{nchunks * 100}, tensor.Chunks(100))
		y := x.Index(tensor.To(10)).Sum()
		p, err := phobos.Compile(y)
		if err != nil {
			t.Fatal(err)
		}
		tiled, _ := passStats(t, p, "tile")
		culled, _ := passStats(t, p, "cull")
		if tiled < nchunks {
			t.Fatalf("tiling made %d chunk ops for %d chunks", tiled, nchunks)
		}
		if culled > 4 {
			t.Errorf("%d chunks: %d chunk ops after culling, want a handful", nchunks, culled)
		}
		sess, _ := phobos.NewSession()
		if _, err := sess.Execute(context.Background(), y); err != nil {
			t.Fatal(err)
		}
		if got := sess.Stats().ChunkOps; got > 4 {
			t.Errorf("%d chunks: executed %d chunk ops", nchunks, got)
		}
		sess.Close()
	}
}

// W5's shape: fusion must at least halve the chunk ops (a chain fuses).
func TestFuseHalvesW5(t *testing.T) {
	y := tensor.Ones([]int{20000}, tensor.Chunks(100)).Add(1).Sum()
	p, err := phobos.Compile(y)
	if err != nil {
		t.Fatal(err)
	}
	culled, _ := passStats(t, p, "cull")
	fused, _ := passStats(t, p, "fuse")
	if fused*2 > culled {
		t.Errorf("fusion took %d chunk ops to %d, want at least 2x fewer", culled, fused)
	}
}

// W1's shape: generators, the elementwise chain and the partial sum of each
// chunk position become one kernel.
func TestFuseW1OneKernelPerChunk(t *testing.T) {
	g := tensor.NewGenerator(1)
	a := g.Rand([]int{100, 100}, tensor.Chunks(25))
	b := g.Rand([]int{100, 100}, tensor.Chunks(25))
	y := a.Add(b).Mul(2).Sum()
	p, err := phobos.Compile(y)
	if err != nil {
		t.Fatal(err)
	}
	groups := 0
	for _, nd := range p.Graph.Nodes {
		if f, ok := nd.Op.(ops.Fused); ok {
			groups++
			if len(f.Nodes) != 5 {
				t.Errorf("fused group %s has %d ops, want rand, rand, add, multiply, sum_partial", f.Label(), len(f.Nodes))
			}
			if len(nd.Inputs) != 0 {
				t.Errorf("fused group %s has %d inputs, want none (generators inside)", f.Label(), len(nd.Inputs))
			}
		}
	}
	if groups != 16 {
		t.Errorf("%d fused groups, want 16", groups)
	}
	_, fusedBytes := passStats(t, p, "fuse")
	_, culledBytes := passStats(t, p, "cull")
	if fusedBytes*100 > culledBytes {
		t.Errorf("fusion materialises %d of %d bytes, want almost none", fusedBytes, culledBytes)
	}
}

// A graph of views only (transpose, reversal, slices with steps) copies no
// data: the store holds nothing but the client's buffer.
func TestViewOnlyGraphCopiesNothing(t *testing.T) {
	data := make([]float64, 100*60)
	for i := range data {
		data[i] = float64(i)
	}
	full, _ := ndarray.FromFloat64s([]int{100, 60}, data)
	x := tensor.FromArray(full, tensor.Chunks(7, 11))
	y := x.T().Flip(0).Index(tensor.S(1, 50, 2), tensor.Rev())
	sess, _ := phobos.NewSession()
	defer sess.Close()
	p, err := sess.Explain(y)
	if err != nil {
		t.Fatal(err)
	}
	if _, b := passStats(t, p, "fuse"); b != 0 {
		t.Errorf("explain: %d bytes materialised for a view-only graph", b)
	}
	res, err := sess.Execute(context.Background(), y)
	if err != nil {
		t.Fatal(err)
	}
	if peak := sess.Stats().PeakBytes; peak != int64(full.BufferBytes()) {
		t.Errorf("store peak %d bytes, want only the client buffer's %d", peak, full.BufferBytes())
	}
	// reference: the same views on the whole array
	v, _ := full.Transpose()
	v, _ = v.Flip(0)
	r1, _ := ndarray.SliceRange(60, 1, 50, 2, true, true)
	r2, _ := ndarray.SliceRange(100, 0, 0, -1, false, false)
	v, _ = v.Slice([]ndarray.Range{r1, r2})
	want := v.ToFloat64s()
	got := res[0].ToFloat64s()
	if len(got) != len(want) {
		t.Fatalf("got %d elements, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d: got %v want %v", i, got[i], want[i])
		}
	}
}

// x feeds both x.mean() and x - mean (a mean absolute deviation; W8's
// variance reads x once). Fusion recomputes x in both kernels rather than
// holding all of it until the mean is known.
func TestFuseRecomputesSharedGenerator(t *testing.T) {
	build := func() *tensor.Tensor {
		x := tensor.NewGenerator(7).Rand([]int{300, 200}, tensor.Chunks(70, 50))
		return x.Sub(x.Mean()).Abs().Mean()
	}
	p, err := phobos.Compile(build())
	if err != nil {
		t.Fatal(err)
	}
	recomputed := 0
	for _, nd := range p.Graph.Nodes {
		switch op := nd.Op.(type) {
		case ops.RandomChunk:
			t.Errorf("random chunk %v materialised", nd.Meta)
		case ops.Fused:
			recomputed += op.Recomputed
		}
	}
	if recomputed != 2*20 {
		t.Errorf("%d generator copies recomputed, want 40 (20 chunks x 2 consumers)", recomputed)
	}
	ctx := context.Background()
	var vals []float64
	for _, fuse := range []bool{true, false} {
		sess, _ := phobos.NewSession(phobos.WithFusion(fuse))
		v, err := sess.ExecuteScalar(ctx, build())
		sess.Close()
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	if d := vals[0] - vals[1]; d > 1e-12 || d < -1e-12 {
		t.Errorf("fused %v, unfused %v", vals[0], vals[1])
	}
}

// W2's shape: x**2 summed over the last axis, compared, counted. One
// two-level kernel per chunk: the row sums are never materialised.
func TestFuseW2TwoLevel(t *testing.T) {
	build := func() *tensor.Tensor {
		x := tensor.NewGenerator(3).Rand([]int{10000, 2}, tensor.Chunks(999, 2))
		return x.Pow(2).Sum(tensor.Axis(1)).Less(1).Sum().Mul(4).Div(10000)
	}
	p, err := phobos.Compile(build())
	if err != nil {
		t.Fatal(err)
	}
	twoLevel := 0
	for _, nd := range p.Graph.Nodes {
		if f, ok := nd.Op.(ops.Fused); ok && f.K1 == 2 {
			twoLevel++
			if len(nd.Inputs) != 0 {
				t.Errorf("kernel %s has inputs", f.Label())
			}
		}
	}
	if twoLevel != 11 {
		t.Errorf("%d two-level kernels, want one per chunk (11)", twoLevel)
	}
	checkFusedMatchesUnfused(t, build)
}

func checkFusedMatchesUnfused(t *testing.T, build func() *tensor.Tensor) {
	t.Helper()
	var res [2][]float64
	for i, fuse := range []bool{true, false} {
		sess, _ := phobos.NewSession(phobos.WithFusion(fuse))
		v, err := sess.ExecuteFloat64s(context.Background(), build())
		sess.Close()
		if err != nil {
			t.Fatal(err)
		}
		res[i] = v
	}
	if len(res[0]) != len(res[1]) {
		t.Fatalf("fused %d values, unfused %d", len(res[0]), len(res[1]))
	}
	for i := range res[0] {
		if d := res[0][i] - res[1][i]; d > 1e-9 || d < -1e-9 {
			t.Fatalf("element %d: fused %v unfused %v", i, res[0][i], res[1][i])
		}
	}
}

func TestFuseTwoLevelShapes(t *testing.T) {
	g := tensor.NewGenerator(5)
	cases := map[string]func() *tensor.Tensor{
		"rowmax+1": func() *tensor.Tensor {
			x := g.Randn([]int{300, 7, 5}, tensor.Chunks(31, 7, 5))
			return x.Max(tensor.Axis(-1)).Add(1)
		},
		"rowsum 2 axes then square sum": func() *tensor.Tensor {
			x := g.Rand([]int{100, 6, 4}, tensor.Chunks(13, -1, -1))
			return x.Sum(tensor.Axis(1, 2)).Square().Sum()
		},
		"int rows": func() *tensor.Tensor {
			x := g.RandInt(-5, 5, []int{500, 3}, tensor.Chunks(77, 3))
			return x.Sum(tensor.Axis(1)).Mul(x.Sum(tensor.Axis(1))).Sum()
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			// same generator state for both runs: rebuild from a fresh one
			g = tensor.NewGenerator(5)
			checkFusedMatchesUnfused(t, func() *tensor.Tensor { g = tensor.NewGenerator(5); return build() })
		})
	}
}
