package ndarray

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuantileKeysOrder checks that keys order values as numbers do, -0
// just below +0 and NaN above everything, for every dtype, and that
// keyValue inverts them.
func TestQuantileKeysOrder(t *testing.T) {
	sub := math.SmallestNonzeroFloat64
	floats := []float64{math.Inf(-1), -math.MaxFloat64, -1.5, -1, -sub, math.Copysign(0, -1), 0, sub, 1, 1.5, math.MaxFloat64, math.Inf(1)}
	for _, dt := range []DType{Float64, Float32} {
		a := newArray(dt, []int{len(floats) + 1})
		for i, v := range floats {
			a.SetFlat(i, v)
		}
		a.SetFlat(len(floats), math.NaN())
		keys := make([]uint64, a.Size())
		quantileKeys(keys, a, 0)
		// float32 rounds the extremes to ±inf and the subnormal to ±0:
		// only float64 keys are all distinct.
		if !slices.IsSorted(keys) || (dt == Float64 && len(slices.Compact(slices.Clone(keys))) != len(keys)) {
			t.Errorf("%v: keys %x are not increasing", dt, keys)
		}
		if keys[len(floats)] != nanKey(dt) {
			t.Errorf("%v: NaN key %x, want %x", dt, keys[len(floats)], nanKey(dt))
		}
		for i := range floats {
			if got, want := keyValue(dt, keys[i]), a.AtFlat(i); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%v: keyValue(key(%v)) = %v", dt, want, got)
			}
		}
	}
	ints := []int64{math.MinInt64, -5, -1, 0, 1, math.MaxInt64}
	a, _ := FromInt64s([]int{len(ints)}, ints)
	keys := make([]uint64, len(ints))
	quantileKeys(keys, a, 0)
	if !slices.IsSorted(keys) {
		t.Errorf("int64 keys %x are not sorted", keys)
	}
	for i, v := range ints {
		if keyInt(Int64, keys[i]) != v {
			t.Errorf("keyInt(key(%d)) = %d", v, keyInt(Int64, keys[i]))
		}
	}
}

// TestSelectKth checks quickselect against sorting on patterns that defeat
// naive pivots: sorted, reversed, all equal, two values, organ pipe, random.
func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	patterns := map[string]func(i, n int) uint64{
		"sorted":    func(i, _ int) uint64 { return uint64(i) },
		"reversed":  func(i, n int) uint64 { return uint64(n - i) },
		"equal":     func(int, int) uint64 { return 7 },
		"two":       func(i, _ int) uint64 { return uint64(i%2) * 1e9 },
		"organpipe": func(i, n int) uint64 { return uint64(min(i, n-i)) },
		"random":    func(int, int) uint64 { return r.Uint64() % 1000 },
	}
	for name, f := range patterns {
		for _, n := range []int{1, 2, 15, 16, 17, 1000, 4097} {
			k := make([]uint64, n)
			for i := range k {
				k[i] = f(i, n)
			}
			want := slices.Sorted(slices.Values(k))
			for _, rank := range []int{0, n / 3, n / 2, n - 1} {
				c := slices.Clone(k)
				selectKth(c, rank)
				if c[rank] != want[rank] {
					t.Fatalf("%s n=%d rank %d: got %d, want %d", name, n, rank, c[rank], want[rank])
				}
				for i := range c {
					if (i < rank && c[i] > c[rank]) || (i > rank && c[i] < c[rank]) {
						t.Fatalf("%s n=%d rank %d: element %d = %d on the wrong side of %d", name, n, rank, i, c[i], c[rank])
					}
				}
			}
		}
	}
}
