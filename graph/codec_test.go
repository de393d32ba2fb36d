package graph_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/tensor"
)

func TestTileableRoundTrip(t *testing.T) {
	g := tensor.NewGenerator(3)
	a := g.Rand([]int{6, 4}, tensor.Chunks(3))
	lit := tensor.FromSlice([]int64{1, 2, 3, 4}, []int{4})
	s := a.Add(lit).Mul(2).Sum(tensor.Axis(0)).T()
	tg, _, err := tensor.Build(s, a.MatMul(a.T()))
	if err != nil {
		t.Fatal(err)
	}
	b1, err := graph.EncodeTileable(tg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := graph.DecodeTileable(b1)
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, b1)
	}
	b2, err := graph.EncodeTileable(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1, b2) {
		t.Fatalf("graph does not round-trip:\n%s\n%s", b1, b2)
	}
	if len(back.Nodes) != len(tg.Nodes) {
		t.Fatalf("%d nodes, want %d", len(back.Nodes), len(tg.Nodes))
	}
}

func TestTileableDecodeErrors(t *testing.T) {
	rand := `{"op":{"type":"random","params":{"meta":{"shape":[4,3],"dtype":"float64"},"key":1,"dist":1,"p1":0,"p2":1,"chunks":{}}},"inputs":[]}`
	vec := `{"op":{"type":"full","params":{"meta":{"shape":[4],"dtype":"float64"},"value":1,"chunks":{}}},"inputs":[]}`
	add := `{"op":{"type":"elementwise","params":{"kind":"binary","name":"add"}},"inputs":[0,1]}`
	for _, c := range []struct{ in, want string }{
		{`{"version":1,"nodes":[` + rand, `malformed`},
		{`{"version":2,"nodes":[]}`, `unsupported graph version 2`},
		{`{"version":1,"nodes":[]}`, `no nodes`},
		{`{"version":1,"nodes":[],"extra":1}`, `unknown field "extra"`},
		{`{"version":1,"nodes":[{"op":{"type":"frobnicate"},"inputs":[]}]}`, `tensor 0: unknown op "frobnicate"`},
		{`{"version":1,"nodes":[{"op":{"type":"full_chunk","params":{}},"inputs":[]}]}`, `not a tensor op`},
		{`{"version":1,"nodes":[` + rand + `,` + vec + `,` + add + `]}`, `tensor 2 (add)`},
		{`{"version":1,"nodes":[` + rand + `,` + vec + `,` + add + `]}`, `broadcast`},
		{`{"version":1,"nodes":[` + add + `]}`, `input 0 is 0, which is not an earlier tensor`},
		{`{"version":1,"nodes":[{"op":{"type":"full","params":{"meta":{"shape":[2],"dtype":"float64"},"chunks":{}}},"inputs":[],"meta":{"shape":[3],"dtype":"float64"}}]}`, `declared float64[3] but its inputs give float64[2]`},
	} {
		_, err := graph.DecodeTileable([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s...: got %v, want an error containing %q", c.in, err, c.want)
		}
	}
}
