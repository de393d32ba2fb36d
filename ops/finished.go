package ops

import (
	"context"
	"errors"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(Descriptor{Name: "finished", Op: Finished{}})
}

// Finished is a reduction's last step run right after the op that makes
// its only partial (a reduction along axes of one chunk): one chunk op
// instead of two, so a small graph costs one dispatch and one report fewer
// (optimize.FinishInPlace makes them).
type Finished struct {
	// Op makes the partial: a ReducePartial or a Fused kernel ending in one.
	Op     ChunkOp      `json:"op"`
	Finish ReduceFinish `json:"finish"`
}

// Type implements ChunkOp: the op ends as its finish does.
func (op Finished) Type() string { return op.Finish.Type() }

// Exec implements ChunkOp.
func (op Finished) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if out, ok := argFinished(op, in); ok {
		return out, nil
	}
	part, err := op.Op.Exec(ctx, in)
	if err != nil {
		return nil, err
	}
	return op.Finish.Exec(ctx, []*ndarray.Array{part})
}

// Check implements Checker: a decoded Finished holds an op.
func (op Finished) Check() error {
	if op.Op == nil {
		return errors.New("finished: no op")
	}
	return nil
}
