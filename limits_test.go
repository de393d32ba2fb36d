package phobos_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// Broadcasting an (N,1) tensor in N chunks against a (1,M) one in M chunks
// tiles into N*M chunk ops. With N = M = 1e5 that is 1e10: the compiler
// refuses it at once, naming the op, its grid and the limit, having
// allocated little; before, the chunk-count check saw only creation and
// rechunk ops, and tiling ran until memory ran out.
func TestBroadcastPastChunkLimitRefused(t *testing.T) {
	const n = 100_000
	x := tensor.Ones([]int{n, 1}, tensor.Chunks(1, 1))
	y := tensor.Ones([]int{1, n}, tensor.Chunks(1, 1))
	sess, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = sess.Execute(context.Background(), x.Add(y).Sum())
	runtime.ReadMemStats(&after)
	if _, ok := errors.AsType[*ops.TooManyChunksError](err); !ok {
		t.Fatalf("error %v, want a TooManyChunksError", err)
	}
	// A local session's graph is bounded by ops.MaxLocalChunkOps.
	for _, want := range []string{"add", "[100000 100000]", fmt.Sprintf("limit of %d", ops.MaxLocalChunkOps)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// The two inputs' 2e5 chunk ops cost some tens of MB; the 1e10 would
	// cost terabytes.
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 512 {
		t.Errorf("allocated %d MiB before refusing", mb)
	}
}

// The limit holds for every way of making many chunk ops: a product's
// block products, a rechunk, a source's chunk spec.
func TestChunkLimitEveryway(t *testing.T) {
	sess, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	a := tensor.Ones([]int{3000, 3000}, tensor.Chunks(2))
	for name, x := range map[string]*tensor.Tensor{
		"matmul":  a.MatMul(a),
		"rechunk": tensor.Ones([]int{10000, 10000}).Rechunk(tensor.Chunks(1)),
		"source":  tensor.Ones([]int{10000, 10000}, tensor.Chunks(1)),
	} {
		_, err := sess.Execute(context.Background(), x.Sum())
		if _, ok := errors.AsType[*ops.TooManyChunksError](err); !ok {
			t.Errorf("%s: error %v, want a TooManyChunksError", name, err)
		}
	}
}
