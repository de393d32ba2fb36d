package rpc_test

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/rpc"
	"github.com/phobos-tensor/phobos/tensor"
)

// The scheduler takes the graph the web service built for a submission
// without an encoding, once; any bytes, a second take, or a call without
// a built graph are decoded. A submission leaving the process carries the
// built graph's encoding.
func TestDecodeSubmittedTakesTheBuiltGraphOnce(t *testing.T) {
	tg, _, err := tensor.Build(tensor.ArangeN(100).Mul(2).Sum())
	if err != nil {
		t.Fatal(err)
	}
	enc, err := graph.EncodeTileable(tg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := rpc.WithBuiltGraph(context.Background(), tg)
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
	if out, err := rpc.EncodeBuilt(ctx, nil); err != nil || string(out) != string(enc) {
		t.Fatalf("leaving the process: %s, %v; want the built graph's encoding", out, err)
	}
	if out, err := rpc.EncodeBuilt(ctx, []byte("{}")); err != nil || string(out) != "{}" {
		t.Fatalf("a call with an encoding of its own: %s, %v; want it kept", out, err)
	}
	g, err := rpc.DecodeSubmitted(ctx, enc)
	if err != nil || g == tg {
		t.Fatalf("bytes: got %p, %v; want a decoded graph", g, err)
	}
	same(g)
	if g, err = rpc.DecodeSubmitted(ctx, enc[:len(enc)-1]); err == nil {
		t.Fatalf("cut bytes decoded as %v", g)
	}
	if g, err = rpc.DecodeSubmitted(ctx, nil); err != nil || g != tg {
		t.Fatalf("no bytes: got %p, %v; want the built graph %p", g, err, tg)
	}
	if g, err = rpc.DecodeSubmitted(ctx, nil); err == nil {
		t.Fatalf("second take of no bytes: got %p, want an error", g)
	}
	if out, err := rpc.EncodeBuilt(ctx, nil); err != nil || len(out) != 0 {
		t.Fatalf("a taken graph encoded again: %s, %v", out, err)
	}
	if g, err = rpc.DecodeSubmitted(context.Background(), nil); err == nil {
		t.Fatalf("no bytes and no built graph: got %p, want an error", g)
	}
	if g, err = rpc.DecodeSubmitted(context.Background(), enc); err != nil || g == tg {
		t.Fatalf("no built graph: got %p, %v; want a decoded graph", g, err)
	}
	same(g)
}
