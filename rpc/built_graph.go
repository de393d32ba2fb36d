package rpc

import (
	"context"
	"sync/atomic"

	"github.com/phobos-tensor/phobos/graph"
)

// A graph submitted to the scheduler travels as its JSON encoding, and the
// scheduler decodes it. When the web service and the scheduler share a
// process (cluster.LaunchOneProcess), the graph the web service built goes
// in the call's context instead, and the call carries no encoding: the
// scheduler takes the graph as it is. Only a call that leaves the process
// encodes it (EncodeBuilt), since a context does not cross the network.

type builtGraphKey struct{}

type builtGraph struct {
	g     *graph.TileableGraph
	taken atomic.Bool
}

// WithBuiltGraph is ctx carrying g for a submission that carries no
// encoding. Whoever takes g owns it: the caller does not use g after the
// call.
func WithBuiltGraph(ctx context.Context, g *graph.TileableGraph) context.Context {
	return context.WithValue(ctx, builtGraphKey{}, &builtGraph{g: g})
}

// DecodeSubmitted is graph.DecodeTileable(data); for a submission without
// an encoding, the graph ctx carries (WithBuiltGraph), once.
func DecodeSubmitted(ctx context.Context, data []byte) (*graph.TileableGraph, error) {
	if b, ok := ctx.Value(builtGraphKey{}).(*builtGraph); ok && len(data) == 0 && b.taken.CompareAndSwap(false, true) {
		return b.g, nil
	}
	return graph.DecodeTileable(data)
}

// EncodeBuilt is data, or, when data is empty, the encoding of the graph
// ctx carries and nobody took yet: what a submission that leaves the
// process carries.
func EncodeBuilt(ctx context.Context, data []byte) ([]byte, error) {
	if b, ok := ctx.Value(builtGraphKey{}).(*builtGraph); ok && len(data) == 0 && !b.taken.Load() {
		return graph.EncodeTileable(b.g)
	}
	return data, nil
}

// BuiltGraphTaker is a graph service client that can deliver a submission
// without an encoding: one that reaches a scheduler of this process, which
// takes the graph from the call's context, or encodes it on its way out
// (EncodeBuilt).
type BuiltGraphTaker interface {
	TakesBuiltGraph() bool
}
