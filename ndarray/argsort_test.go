package ndarray

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// stableArgsort is the reference: positions sorted stably by NumPy's
// order (NaNs last, -0.0 == 0.0).
func stableArgsort(v []float64) []int64 {
	idx := make([]int64, len(v))
	for i := range idx {
		idx[i] = int64(i)
	}
	slices.SortStableFunc(idx, func(i, j int64) int {
		a, b := v[i], v[j]
		switch {
		case math.IsNaN(a) || math.IsNaN(b):
			return cmp.Compare(b2i(math.IsNaN(a)), b2i(math.IsNaN(b)))
		}
		return cmp.Compare(a, b)
	})
	return idx
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestArgsortLanes checks ArgsortAxis, and the distributed kernels
// (pairs, samples, pivots, bounds, merge) over several chunkings, against
// a stable comparison sort, on lanes across the radix path's threshold
// with duplicates, NaNs and signed zeros.
func TestArgsortLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 63, 64, 65, 300, 5000} {
		v := make([]float64, n)
		for i := range v {
			switch r.IntN(10) {
			case 0:
				v[i] = math.NaN()
			case 1:
				v[i] = math.Copysign(0, -1)
			case 2:
				v[i] = 0
			default:
				v[i] = float64(r.IntN(20) - 10)
			}
		}
		want := stableArgsort(v)
		a, _ := FromFloat64s([]int{n}, v)
		got, err := ArgsortAxis(a, 0)
		if err != nil {
			t.Fatal(err)
		}
		if g := typed[int64](got)[:n]; !slices.Equal(g, want) {
			t.Fatalf("n=%d: ArgsortAxis %v, want %v", n, g, want)
		}
		for _, chunk := range []int{1, 7, 1000} {
			if chunk == 1 && n > 300 {
				continue // n² pieces
			}
			if g := distributedArgsort(t, a, chunk); !slices.Equal(g, want) {
				t.Fatalf("n=%d chunks of %d: distributed argsort %v, want %v", n, chunk, g, want)
			}
		}
	}
}

// distributedArgsort runs the PSRS kernels of ops.Argsort in one process.
func distributedArgsort(t *testing.T, a *Array, chunk int) []int64 {
	t.Helper()
	n := a.Size()
	var pairs, samples []*Array
	for lo, i := 0, 0; lo < n; lo, i = lo+chunk, i+1 {
		c, err := a.Slice([]Range{{Start: lo, Step: 1, Len: min(chunk, n-lo)}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := ArgsortPairs(c, lo)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ArgsortSamples(p, i, 8)
		if err != nil {
			t.Fatal(err)
		}
		pairs, samples = append(pairs, p), append(samples, s)
	}
	m := len(pairs)
	piv, err := SortPivots(samples, m)
	if err != nil {
		t.Fatal(err)
	}
	pieces := make([][]*Array, m)
	for _, p := range pairs {
		bd, err := ArgsortBounds(p, piv)
		if err != nil {
			t.Fatal(err)
		}
		b := typed[int64](bd)
		for part := range m {
			v, err := p.Slice([]Range{{Start: int(b[part]), Step: 1, Len: int(b[part+1] - b[part])}})
			if err != nil {
				t.Fatal(err)
			}
			pieces[part] = append(pieces[part], v)
		}
	}
	var out []int64
	for part := range m {
		merged, err := ArgsortMerge(pieces[part])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, typed[int64](merged)[:merged.Size()]...)
	}
	if out == nil {
		out = []int64{}
	}
	return out
}

// BenchmarkArgsort1e6 argsorts 1e6 float64 with few distinct values (the
// radix sort of (key, position) pairs) beside the stable comparison sort
// of positions it replaces.
func BenchmarkArgsort1e6(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]float64, 1_000_000)
	for i := range src {
		src[i] = float64(r.IntN(1000)) + r.Float64()
	}
	a, _ := FromFloat64s([]int{len(src)}, src)
	b.Run("radix", func(b *testing.B) {
		for range b.N {
			if _, err := ArgsortAxis(a, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stable-comparison", func(b *testing.B) {
		for range b.N {
			stableArgsort(src)
		}
	})
}
