package ops

import (
	"github.com/phobos-tensor/phobos/ndarray"
)

// argFinished is a Finished argmin or argmax along the last axis of one
// contiguous chunk computed straight to its indices
// (ndarray.ArgIndexLast), without the partial's values; ok is false when
// the op or the chunk is not such a one (Exec then runs the partial and
// the finish).
func argFinished(op Finished, in []*ndarray.Array) (*ndarray.Array, bool) {
	p, isPartial := op.Op.(ReducePartial)
	if !isPartial || (p.Func != "argmax" && p.Func != "argmin") || op.Finish.Func != p.Func || len(in) != 1 || in[0] == nil {
		return nil, false
	}
	a := in[0]
	nd := a.NDim()
	if nd == 0 || p.ArgAxis != nd-1 || len(p.Axes) != 1 || p.Axes[0] != nd-1 {
		return nil, false
	}
	off := 0
	if p.Offset != nil || p.Global != nil {
		// Where the chunk lies must be checked as ArgPartial checks it.
		if len(p.Offset) != nd || len(p.Global) != nd || p.Offset[nd-1] != 0 || a.Shape()[nd-1] != p.Global[nd-1] {
			return nil, false
		}
		off = p.Offset[nd-1]
	}
	out, ok := ndarray.ArgIndexLast(p.Func == "argmax", a, off)
	if !ok {
		return nil, false
	}
	out, err := out.Reshape(op.Finish.Shape...)
	if err != nil || out.DType() != op.Finish.DType {
		return nil, false
	}
	return out, true
}
