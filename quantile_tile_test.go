package phobos_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phobos-tensor/phobos"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestQuantileTilingPaths checks which path each layout takes, on tensors
// too large to run here (tiling only): lanes whole in their chunks are
// selected locally; few lanes split are radix-selected with 16-bit digits;
// many short lanes split are rechunked whole; many long lanes split are
// radix-selected with digits narrowed so histograms stay small.
func TestQuantileTilingPaths(t *testing.T) {
	for _, c := range []struct {
		name   string
		x      *tensor.Tensor
		local  bool
		rechk  bool
		bits   int // of quantile_hist, 0: none
		levels int
	}{
		{"whole lanes", tensor.Ones([]int{1000, 5000}, tensor.Chunks(10, -1)).Median(tensor.Axis(1)), true, false, 0, 0},
		{"all elements", tensor.Ones([]int{100_000_000}).Median(), false, false, 16, 4},
		{"float32", tensor.Quantile(tensor.Ones([]int{3, 1000}, tensor.Chunks(-1, 100), tensor.WithDType(dF32)), 0.5, "", tensor.Axis(1)), false, false, 16, 2},
		{"many short lanes", tensor.Ones([]int{1000, 5000}, tensor.Chunks(100, 1000)).Median(tensor.Axis(1)), true, true, 0, 0},
		{"many long lanes", tensor.Ones([]int{300, 20_000_000}, tensor.Chunks(300, 5_000_000)).Median(tensor.Axis(1)), false, false, 8, 8},
	} {
		tg, _, err := tensor.Build(c.x)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cg, _, err := graph.Tile(tg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		local, rechk, bits := false, false, 0
		levels := map[int]bool{}
		for _, n := range cg.Nodes {
			switch op := n.Op.(type) {
			case ops.QuantileLocal:
				local = true
			case ops.QuantileHist:
				bits = op.Bits
				levels[op.Level] = true
			default:
				rechk = rechk || op.Type() == "assemble" || op.Type() == "slice_view"
			}
		}
		if local != c.local || rechk != c.rechk || bits != c.bits || len(levels) != c.levels {
			t.Errorf("%s: local %v, rechunked %v, %d-bit digits over %d levels; want %v, %v, %d, %d",
				c.name, local, rechk, bits, len(levels), c.local, c.rechk, c.bits, c.levels)
		}
	}
}

// TestQuantileRadixLevels runs radix select where buckets stay large for
// several levels: values packed in a range narrower than the top 32 bits
// of their keys tell apart (the keys are listed only at the last level or
// two), and a lane with a value repeated more often than a histogram has
// counts (the digits are counted to the end). Ranks are checked against
// sorting.
func TestQuantileRadixLevels(t *testing.T) {
	const n = 200_000
	r := rand.New(rand.NewPCG(7, 8))
	narrow := make([]float64, n)
	dups := make([]float64, n)
	for i := range narrow {
		narrow[i] = 1 + r.Float64()*0x1p-30
		dups[i] = r.NormFloat64()
		if i%2 == 0 {
			dups[i] = 0.5
		}
	}
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	qs := []float64{0, 0.1, 0.5, 0.77, 1}
	for name, data := range map[string][]float64{"narrow": narrow, "duplicates": dups} {
		x := tensor.FromSlice(data, []int{n}, tensor.Chunks(7919))
		got, err := sess.Execute(context.Background(), x.Median(), tensor.Quantile(x, qs, "lower"), tensor.Quantile(x, qs, "higher"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := slices.Sorted(slices.Values(data))
		if m, want := got[0].AtFlat(0), (s[n/2-1]+s[n/2])/2; m != want {
			t.Errorf("%s: median %v, want %v", name, m, want)
		}
		for i, q := range qs {
			v := q * float64(n-1)
			if lo, want := got[1].AtFlat(i), s[int(math.Floor(v))]; lo != want {
				t.Errorf("%s: lower %v: %v, want %v", name, q, lo, want)
			}
			if hi, want := got[2].AtFlat(i), s[int(math.Ceil(v))]; hi != want {
				t.Errorf("%s: higher %v: %v, want %v", name, q, hi, want)
			}
		}
	}
}
