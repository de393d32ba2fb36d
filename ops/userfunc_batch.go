package ops

import (
	"context"

	"github.com/phobos-tensor/phobos/ndarray"
)

// BatchRunner is a BlockRunner that also takes several calls of one
// function at once: one message to an executor and one answer for all,
// instead of a round trip each. outs and errs are one per call; a call's
// failure (its exception, a mismatch) is its own, while a failure of the
// whole batch (the executor died, the time limit) is every call's.
type BatchRunner interface {
	BlockRunner
	RunBlocks(ctx context.Context, calls []BlockCall) (outs []*ndarray.Array, errs []error)
}

// BatchKey says which chunk ops a worker may run together through a
// BatchRunner: a UserBlock of a Python function returns its payload's
// digest; ops with another key, or none, are not batched with it.
func BatchKey(op ChunkOp) string {
	u, ok := op.(UserBlock)
	if !ok || u.GoFunc != "" || len(u.Payload) == 0 {
		return ""
	}
	if u.Digest != "" {
		return u.Digest
	}
	return PayloadDigest(u.Payload)
}

// BatchRunnerFrom returns the BatchRunner of ctx (WithBlockRunner), if the
// runner there takes batches.
func BatchRunnerFrom(ctx context.Context) (BatchRunner, bool) {
	r, ok := ctx.Value(blockRunnerKey{}).(BatchRunner)
	return r, ok
}
