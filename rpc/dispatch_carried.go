package rpc

import (
	"context"
	"sync/atomic"

	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// A dispatch from a scheduler to a worker of its own process
// (cluster.LaunchOneProcess) carries its batch in the call's context
// instead of its encoding, and the worker takes the tasks with their ops
// as they are, as a local session's workers do: no op is encoded for it
// and none decoded. A call that leaves the process encodes the batch on
// its way (EncodeCarried), since a context does not cross the network.

type carriedBatchKey struct{}

type carriedBatch struct {
	b     DispatchBatch
	taken atomic.Bool
}

// WithDispatchBatch is ctx carrying b for a dispatch whose message holds
// nothing but its sender. The worker that takes b owns its tasks as a
// local worker does (the sender writes them no more).
func WithDispatchBatch(ctx context.Context, b DispatchBatch) context.Context {
	return context.WithValue(ctx, carriedBatchKey{}, &carriedBatch{b: b})
}

// empty reports whether a dispatch message holds no tasks, releases or
// cancels: what one whose batch travels in its context holds.
func empty(req *pb.DispatchRequest) bool {
	return len(req.Tasks) == 0 && len(req.ReleaseNodes) == 0 && len(req.CancelGraphs) == 0
}

// TakeDispatch is the batch of a dispatch: req decoded (its ops through
// c), or, for an empty req, the batch ctx carries (WithDispatchBatch),
// once.
func TakeDispatch(ctx context.Context, req *pb.DispatchRequest, c *OpCache) (DispatchBatch, error) {
	if cb, ok := ctx.Value(carriedBatchKey{}).(*carriedBatch); ok && empty(req) && cb.taken.CompareAndSwap(false, true) {
		return cb.b, nil
	}
	return DecodeDispatchCached(req, c)
}

// EncodeCarried is req, or, for an empty req whose ctx carries a batch
// nobody took, the batch's encoding with req's sender: what a dispatch
// that leaves the process carries.
func EncodeCarried(ctx context.Context, req *pb.DispatchRequest) (*pb.DispatchRequest, error) {
	cb, ok := ctx.Value(carriedBatchKey{}).(*carriedBatch)
	if !ok || !empty(req) || cb.taken.Load() {
		return req, nil
	}
	out, err := EncodeDispatch(cb.b)
	if err != nil {
		return nil, err
	}
	out.SchedulerId = req.SchedulerId
	return out, nil
}

// BatchTaker is a worker service client that can deliver a dispatch whose
// batch travels in the call's context: one that reaches a worker of this
// process, or encodes the batch on its way out (EncodeCarried).
type BatchTaker interface {
	TakesBatches() bool
}
