package rpc

import (
	"bytes"
	"context"
	"sync/atomic"

	"github.com/phobos-tensor/phobos/graph"
)

// A graph submitted to the scheduler travels as its JSON encoding, and the
// scheduler decodes it. When the web service and the scheduler share a
// process (cluster.LaunchOneProcess), the graph the web service encoded
// goes beside its encoding in the call's context, and the scheduler takes
// it instead of decoding the same bytes again: the encoding is still what
// the call carries (and what a scheduler elsewhere decodes, since a
// context does not cross the network).

type builtGraphKey struct{}

type builtGraph struct {
	encoded []byte
	g       *graph.TileableGraph
	taken   atomic.Bool
}

// WithBuiltGraph is ctx carrying g, whose encoding (graph.EncodeTileable)
// is encoded. Whoever takes g owns it: the caller does not use g after
// the call.
func WithBuiltGraph(ctx context.Context, encoded []byte, g *graph.TileableGraph) context.Context {
	return context.WithValue(ctx, builtGraphKey{}, &builtGraph{encoded: encoded, g: g})
}

// DecodeSubmitted is graph.DecodeTileable(data), or the graph ctx carries
// (WithBuiltGraph) if its encoding is data, once: a second call decodes.
func DecodeSubmitted(ctx context.Context, data []byte) (*graph.TileableGraph, error) {
	if b, ok := ctx.Value(builtGraphKey{}).(*builtGraph); ok && bytes.Equal(b.encoded, data) && b.taken.CompareAndSwap(false, true) {
		return b.g, nil
	}
	return graph.DecodeTileable(data)
}
