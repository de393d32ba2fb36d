package execution

import (
	"slices"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/scheduler"
)

// HeldResult is result k of a finished run, t, as a persisted tensor: its
// chunks by chunk op, with the lengths they turned out to have, so a
// result with an axis of unknown length (a mask's selection) is held with
// every length known.
func HeldResult(run *scheduler.Run, k int, t *ops.Tiled) (ops.Held, error) {
	l, err := ResultLayout(run, t)
	if err != nil {
		return ops.Held{}, err
	}
	if t.Meta.Unknown == 0 {
		return ops.Held{Graph: uint64(run.ID()), Result: k, Meta: t.Meta, Splits: l.NSplits, Nodes: l.Nodes}, nil
	}
	splits, nodes := dropEmptySlabs(t.Meta.UnknownAxis(), l.NSplits, l.Nodes)
	return ops.Held{Graph: uint64(run.ID()), Result: k, Meta: ops.Meta{Shape: l.Shape, DType: t.Meta.DType}, Splits: splits, Nodes: nodes}, nil
}

// dropEmptySlabs leaves out the slabs of chunks that are empty along axis
// ax (a selection kept none of their rows): a tensor of known lengths has
// no empty chunk unless it is empty, when one slab stays.
func dropEmptySlabs(ax int, splits [][]int, nodes []int32) ([][]int, []int32) {
	keep := make([]bool, len(splits[ax]))
	n := 0
	for i, s := range splits[ax] {
		if s > 0 {
			keep[i] = true
			n++
		}
	}
	if n == len(keep) {
		return splits, nodes
	}
	if n == 0 {
		keep[0] = true
	}
	grid := make([]int, len(splits))
	for a, sp := range splits {
		grid[a] = len(sp)
	}
	out := slices.Clone(splits)
	out[ax] = nil
	for i, s := range splits[ax] {
		if keep[i] {
			out[ax] = append(out[ax], s)
		}
	}
	var kept []int32
	j := 0
	ops.ForEachGrid(grid, func(idx []int) {
		if keep[idx[ax]] {
			kept = append(kept, nodes[j])
		}
		j++
	})
	return out, kept
}
