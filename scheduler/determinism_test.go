package scheduler_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/workloads"
)

// Adoption rests on compiling being deterministic: the adopting scheduler
// recompiles a graph's tileable JSON, and the chunks the workers hold are
// keyed by the chunk op indexes of the previous owner's compile. So the
// same JSON must give the same chunk graph (the same op, inputs and meta
// under every index) and the same result chunks, compile after compile,
// fused or not. Each workload compiles several times from one JSON (map
// iteration order differs between them) and from a JSON encoded again
// from the decoded graph.
func TestCompileIsDeterministic(t *testing.T) {
	for _, name := range workloads.Names() {
		w, _ := workloads.Get(name)
		if w.File != nil || w.Build == nil {
			continue // reads a data file that tests do not have, or data made in Go
		}
		tt := w.Build(w.Defaults, 42)
		tg, results, err := tensor.Build(tt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		js, err := graph.EncodeTileable(tg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, fuse := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/fuse=%v", name, fuse), func(t *testing.T) {
				want := compiled(t, js, results, fuse)
				for i := range 3 {
					if got := compiled(t, js, results, fuse); !bytes.Equal(got, want) {
						t.Fatalf("compile %d of the same JSON differs from the first:\n%s", i+2, firstDiff(got, want))
					}
				}
				dec, err := graph.DecodeTileable(js)
				if err != nil {
					t.Fatal(err)
				}
				again, err := graph.EncodeTileable(dec)
				if err != nil {
					t.Fatal(err)
				}
				if got := compiled(t, again, results, fuse); !bytes.Equal(got, want) {
					t.Fatalf("the JSON encoded again compiles differently:\n%s", firstDiff(got, want))
				}
			})
		}
	}
}

// compiled decodes and compiles a tileable JSON and dumps the chunk graph:
// per chunk op its encoding, inputs and meta, then the result chunks.
func compiled(t *testing.T, js []byte, results []int, fuse bool) []byte {
	t.Helper()
	tg, err := graph.DecodeTileable(js)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := optimize.Compile(tg, results, fuse)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i, nd := range plan.Graph.Nodes {
		op, err := ops.MarshalOp(nd.Op)
		if err != nil {
			t.Fatalf("chunk op %d (%s): %v", i, nd.Op.Type(), err)
		}
		fmt.Fprintf(&b, "%d %s <- %v %v\n", i, op, nd.Inputs, nd.Meta)
	}
	for _, r := range plan.Results {
		fmt.Fprintf(&b, "result %v\n", r.Chunks)
	}
	return b.Bytes()
}

func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range min(len(g), len(w)) {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d:\n got %.300s\nwant %.300s", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
