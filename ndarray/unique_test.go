package ndarray

import (
	"context"
	"math"
	"slices"
	"testing"
)

// Tables of the parts of an array merge into the table of the whole, in
// any grouping, and its inverse finds every element; malformed tables are
// refused, as a chunk op's inputs arrive from the network.
func TestUniqueTablesMerge(t *testing.T) {
	ctx := context.Background()
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	data := []float64{3, nan, 0, -1, 3, negZero, nan, 7, -1, 0, 3, math.Inf(1)}
	whole, err := FromFloat64s([]int{len(data)}, data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := UniqueTable(ctx, whole, 0)
	if err != nil {
		t.Fatal(err)
	}
	// values -1, the zeros (first is 0.0, at 2), 3, 7, inf, NaN (first at 1)
	if got := typed[int64](want)[want.shape[1] : 3*want.shape[1]]; !slices.Equal(got, []int64{2, 3, 3, 1, 1, 2, 3, 2, 0, 7, 11, 1}) {
		t.Fatalf("counts and firsts %v", got)
	}
	for _, cut := range [][]int{{0, 12}, {0, 1, 12}, {0, 5, 6, 11, 12}, {0, 3, 3, 9, 12}} {
		var parts []*Array
		for i := 0; i+1 < len(cut); i++ {
			c, err := FromFloat64s([]int{cut[i+1] - cut[i]}, data[cut[i]:cut[i+1]])
			if err != nil {
				t.Fatal(err)
			}
			p, err := UniqueTable(ctx, c, int64(cut[i]))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		got, err := MergeUniqueTables(ctx, parts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.shape, want.shape) || !slices.Equal(typed[int64](got), typed[int64](want)) {
			t.Fatalf("cut %v: merged table %v, want %v", cut, typed[int64](got), typed[int64](want))
		}
	}
	inv, err := UniqueInverse(ctx, whole, want)
	if err != nil {
		t.Fatal(err)
	}
	if got := typed[int64](inv); !slices.Equal(got, []int64{2, 5, 1, 0, 2, 1, 5, 3, 0, 1, 2, 4}) {
		t.Fatalf("inverse %v", got)
	}
	vals, err := UniqueValues(want, Float64)
	if err != nil {
		t.Fatal(err)
	}
	v := typed[float64](vals)
	if len(v) != 6 || v[0] != -1 || v[1] != 0 || math.Signbit(v[1]) || v[3] != 7 || !math.IsNaN(v[5]) {
		t.Fatalf("values %v", v)
	}

	other, err := FromFloat64s([]int{1}, []float64{5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UniqueInverse(ctx, other, want); err == nil {
		t.Fatal("inverse of a value not in the table: no error")
	}
	if _, err := MergeUniqueTables(ctx, []*Array{whole}); err == nil {
		t.Fatal("merge of a float64 array as a table: no error")
	}
	if _, err := UniqueRow(want, UniqueRows); err == nil {
		t.Fatal("row past the table: no error")
	}
	c, err := New(Complex128, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UniqueTable(ctx, c, 0); err == nil {
		t.Fatal("table of complex: no error")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := UniqueTable(done, whole, 0); err == nil {
		t.Fatal("table under a cancelled context: no error")
	}
}
