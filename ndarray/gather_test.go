package ndarray

import "testing"

// TestGatherFlatTransposed gathers every window of transposed and
// flipped-transposed arrays (where the blocked column copy applies) and
// checks each element against AtFlat.
func TestGatherFlatTransposed(t *testing.T) {
	for _, shape := range [][]int{{5, 7}, {17, 3}, {1, 9}, {9, 1}, {3, 4, 5}, {2, 16, 33}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float64, n)
		for i := range data {
			data[i] = float64(i)
		}
		a, err := FromFloat64s(shape, data)
		if err != nil {
			t.Fatal(err)
		}
		perm := make([]int, len(shape))
		for i := range perm {
			perm[i] = len(shape) - 1 - i
		}
		tr, err := a.Transpose(perm...)
		if err != nil {
			t.Fatal(err)
		}
		views := []*Array{tr}
		if len(shape) == 3 { // swap only the last two axes
			sw, err := a.Transpose(0, 2, 1)
			if err != nil {
				t.Fatal(err)
			}
			views = append(views, sw)
		}
		for _, v := range views {
			for start := 0; start <= n; start += max(1, n/13) {
				for _, m := range []int{0, 1, 2, 5, 40, 100, n} {
					m = min(m, n-start)
					dst, _ := New(Float64, m)
					if err := GatherFlat(dst, v, start); err != nil {
						t.Fatal(err)
					}
					got := dst.Float64s()
					for i := range m {
						if want := v.AtFlat(start + i); got[i] != want {
							t.Fatalf("shape %v strides %v start %d m %d: [%d] = %v, want %v", v.Shape(), v.Strides(), start, m, i, got[i], want)
						}
					}
				}
			}
		}
	}
}
