package ops

import (
	"context"

	"github.com/phobos-tensor/phobos/ndarray"
)

// OutputInto is implemented by chunk ops that can write a tiny output
// into an array their caller made for it: a worker recycles the scalar
// outputs of reduction partials and combines (ndarray.NewTiny,
// ndarray.ResetTiny) instead of leaving one object per chunk op to the
// garbage collector.
type OutputInto interface {
	ChunkOp
	// ExecInto is Exec, given out, a contiguous array of the planned
	// output's dtype and shape. It may return out as its output, written
	// whole; whatever it returns, it keeps no reference to out, nor to a
	// view of it, after returning.
	ExecInto(ctx context.Context, in []*ndarray.Array, out *ndarray.Array) (*ndarray.Array, error)
}
