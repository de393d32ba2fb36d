package rpc_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
)

// The scheduler takes the graph the web service encoded when the bytes it
// got are that encoding, once; any other bytes, a second take, or a call
// without one are decoded, to the same graph.
func TestDecodeSubmittedTakesTheBuiltGraphOnce(t *testing.T) {
	tg, _, err := tensor.Build(tensor.ArangeN(100).Mul(2).Sum())
	if err != nil {
		t.Fatal(err)
	}
	enc, err := graph.EncodeTileable(tg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := rpc.WithBuiltGraph(context.Background(), enc, tg)
	same := func(g *graph.TileableGraph) {
		t.Helper()
		got, err := graph.EncodeTileable(g)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(enc) {
			t.Fatalf("decoded graph encodes as %s, want %s", got, enc)
		}
	}
	other := append([]byte(" "), enc...) // the same graph, other bytes
	g, err := rpc.DecodeSubmitted(ctx, other)
	if err != nil || g == tg {
		t.Fatalf("other bytes: got %p, %v; want a decoded graph", g, err)
	}
	same(g)
	if g, err = rpc.DecodeSubmitted(ctx, enc[:len(enc)-1]); err == nil {
		t.Fatalf("cut bytes decoded as %v", g)
	}
	if g, err = rpc.DecodeSubmitted(ctx, append([]byte(nil), enc...)); err != nil || g != tg {
		t.Fatalf("equal bytes: got %p, %v; want the built graph %p", g, err, tg)
	}
	if g, err = rpc.DecodeSubmitted(ctx, enc); err != nil || g == tg {
		t.Fatalf("second take: got %p, %v; want a decoded graph", g, err)
	}
	same(g)
	if g, err = rpc.DecodeSubmitted(context.Background(), enc); err != nil || g == tg {
		t.Fatalf("no built graph: got %p, %v; want a decoded graph", g, err)
	}
	same(g)
}
