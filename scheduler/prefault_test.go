package scheduler

import "testing"

// prefault writes only zero values: the slice it is given is unchanged,
// whatever its element size and length (none, less than a page, pages and
// a part).
func TestPrefaultLeavesZeros(t *testing.T) {
	for _, n := range []int{0, 1, 7, prefaultPage, 3*prefaultPage + 5} {
		b := make([]bool, n)
		prefault(b)
		u := make([]uint32, n)
		prefault(u)
		w := make([]int64, n)
		prefault(w)
		type wide struct{ a, b, c [1500]byte }
		x := make([]wide, n/100+1)
		prefault(x)
		if len(b) != n || len(u) != n || len(w) != n {
			t.Fatalf("n=%d: lengths changed", n)
		}
		for i := range n {
			if b[i] || u[i] != 0 || w[i] != 0 {
				t.Fatalf("n=%d: element %d not zero", n, i)
			}
		}
		for i := range x {
			if x[i] != (wide{}) {
				t.Fatalf("n=%d: wide element %d not zero", n, i)
			}
		}
	}
}
