package execution

import (
	"slices"
	"testing"
)

// TestDropEmptySlabs: slabs of chunks empty along the unknown axis are
// left out with their chunk ops, in C order of the grid; an all-empty
// tensor keeps its first slab.
func TestDropEmptySlabs(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ax         int
		splits     [][]int
		nodes      []int32
		wantSplits [][]int
		wantNodes  []int32
	}{
		{"rows", 0, [][]int{{2, 0, 3}, {4, 1}}, []int32{10, 11, 12, 13, 14, 15}, [][]int{{2, 3}, {4, 1}}, []int32{10, 11, 14, 15}},
		{"columns", 1, [][]int{{4, 1}, {0, 2, 0}}, []int32{1, 2, 3, 4, 5, 6}, [][]int{{4, 1}, {2}}, []int32{2, 5}},
		{"none empty", 0, [][]int{{1, 2}}, []int32{7, 8}, [][]int{{1, 2}}, []int32{7, 8}},
		{"all empty", 0, [][]int{{0, 0}, {3}}, []int32{4, 5}, [][]int{{0}, {3}}, []int32{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			splits, nodes := dropEmptySlabs(tc.ax, tc.splits, tc.nodes)
			if !slices.EqualFunc(splits, tc.wantSplits, slices.Equal) || !slices.Equal(nodes, tc.wantNodes) {
				t.Fatalf("got %v %v, want %v %v", splits, nodes, tc.wantSplits, tc.wantNodes)
			}
		})
	}
}
