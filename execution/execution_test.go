package execution_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/cluster"
	"github.com/phobos-tensor/phobos/execution"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
)

// compressRows is numpy.compress(keep, a, axis=0) on a row-major matrix.
func compressRows(a []float64, cols int, keep []bool) []float64 {
	var out []float64
	for i, k := range keep {
		if k {
			out = append(out, a[i*cols:(i+1)*cols]...)
		}
	}
	return out
}

// TestExecutionEndToEnd runs a graph through every step on an in-process
// cluster, with a result of unknown length (a row selection), a result
// asked twice (its chunks listed once) and a reduction, across chunkings
// of one element, odd sizes and larger than the array: the arrays
// assembled hold the values, and the layout made from the bytes the
// workers reported agrees with the chunks they hold.
func TestExecutionEndToEnd(t *testing.T) {
	const rows, cols = 7, 5
	data := make([]float64, rows*cols)
	for i := range data {
		data[i] = float64(i*i%11) - 3.5
	}
	keep := []bool{true, false, false, true, true, false, true}
	var sum float64
	for _, v := range data {
		sum += v
	}
	local := cluster.NewLocal(cluster.LocalConfig{Workers: 2, Slots: 2, NoGoMemoryLimit: true})
	defer local.Close()
	read := func(ctx context.Context, w int, key protocol.ChunkKey) (*ndarray.Array, error) {
		return local.Workers[w].Get(ctx, key)
	}
	ctx := context.Background()
	for _, chunk := range []int{1, 3, 4, 10} {
		t.Run(fmt.Sprint("chunk=", chunk), func(t *testing.T) {
			a := tensor.FromSlice(data, []int{rows, cols}, tensor.Chunks(chunk, chunk))
			k := tensor.FromSlice(keep, []int{rows}, tensor.Chunks(chunk))
			sel := tensor.Compress(k, a, 0)
			ts := []*tensor.Tensor{sel, a, a, a.Sum()}
			ex, err := execution.CompileTensors(true, ts)
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.Results) != len(ts) {
				t.Fatalf("%d results for %d tensors", len(ex.Results), len(ts))
			}
			var want []int32
			for _, r := range ex.Results {
				for _, c := range r.Chunks {
					if !slices.Contains(want, int32(c)) {
						want = append(want, int32(c))
					}
				}
			}
			if !slices.Equal(ex.Nodes, want) {
				t.Fatalf("result nodes %v, want each chunk once in order: %v", ex.Nodes, want)
			}
			if err := ex.Submit(ctx, local.Scheduler, protocol.Fence{}); err != nil {
				t.Fatal(err)
			}
			defer ex.Run.Release()
			var last map[scheduler.State]int64
			reports := 0
			if err := execution.Follow(ctx, ex.Run, time.Millisecond, func(c map[scheduler.State]int64) {
				last = c
				reports++
			}); err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, n := range last {
				total += n
			}
			if reports == 0 || total != int64(ex.Graph.Len()) || last[scheduler.Finished]+last[scheduler.Freed] != total {
				t.Fatalf("last of %d reports %v: not every one of %d ops ended", reports, last, ex.Graph.Len())
			}
			wantSel := compressRows(data, cols, keep)
			for i, r := range ex.Results {
				got, err := execution.Assemble(ctx, ex.Run, r, read)
				if err != nil {
					t.Fatalf("result %d: %v", i, err)
				}
				switch i {
				case 0:
					if !slices.Equal(got.Shape(), []int{len(wantSel) / cols, cols}) || !slices.Equal(got.ToFloat64s(), wantSel) {
						t.Errorf("selection: %v %v, want %v", got.Shape(), got.ToFloat64s(), wantSel)
					}
				case 1, 2:
					if !slices.Equal(got.Shape(), []int{rows, cols}) || !slices.Equal(got.ToFloat64s(), data) {
						t.Errorf("result %d: %v %v, want %v", i, got.Shape(), got.ToFloat64s(), data)
					}
				case 3:
					if v, _ := got.Item(); v != sum {
						t.Errorf("sum %v, want %v", v, sum)
					}
				}
			}
			// The layout the cluster serves: from the reported bytes.
			l, err := execution.ResultLayout(ex.Run, ex.Results[0])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l.Shape, []int{len(wantSel) / cols, cols}) {
				t.Errorf("layout shape %v", l.Shape)
			}
			for ax, sp := range l.NSplits {
				n := 0
				for _, s := range sp {
					n += s
				}
				if n != l.Shape[ax] {
					t.Errorf("splits %v along axis %d of %d", sp, ax, l.Shape[ax])
				}
			}
			for j, node := range l.Nodes {
				c, err := read(ctx, ex.Run.Location(node), protocol.ChunkKey{Graph: ex.Run.ID(), Node: node})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(c.Shape(), l.ChunkShapes[j]) {
					t.Errorf("chunk %d is %v, the layout says %v", node, c.Shape(), l.ChunkShapes[j])
				}
			}
		})
	}
}

// panicky is a tensor op whose tile rule panics, as one given parameters
// it does not expect might.
type panicky struct{}

func (panicky) Type() string                          { return "Panicky" }
func (panicky) Infer(in []ops.Meta) (ops.Meta, error) { return in[0], nil }
func (panicky) Tile(b ops.Builder, in []*ops.Tiled, out ops.Meta) (*ops.Tiled, error) {
	c := in[0].Chunks[len(in[0].Chunks)] // out of range
	return &ops.Tiled{Meta: out, NSplits: in[0].NSplits, Chunks: []ops.ChunkRef{c}}, nil
}

// TestCompilePanicIsAnError: a tile rule's panic is an error naming the
// rule, on every way in (the local session's tensors and a cluster's
// decoded graph), and the stack stays out of the message.
func TestCompilePanicIsAnError(t *testing.T) {
	x := tensor.Ones([]int{6}, tensor.Chunks(4))
	tg, ids, err := tensor.Build(x)
	if err != nil {
		t.Fatal(err)
	}
	bad := tg.Add(panicky{}, []int{ids[0]}, tg.Nodes[ids[0]].Meta)
	_, err = execution.Compile(tg, []int{bad}, true)
	var pe *execution.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("compile of a panicking tile rule: %v, want a *PanicError", err)
	}
	if pe.Stage != "compile" || pe.Op != "execution_test.panicky.Tile" || !strings.Contains(err.Error(), "execution_test.panicky.Tile") || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("stage %q, op %q, error %q", pe.Stage, pe.Op, err)
	}
	if strings.Contains(err.Error(), "goroutine") || !strings.Contains(string(pe.Stack), "goroutine") {
		t.Errorf("the stack belongs in Stack, not in the message: %q", err)
	}
	if _, err := execution.Plan(tg, []int{bad}, false); !errors.As(err, &pe) {
		t.Errorf("Plan: %v, want a *PanicError", err)
	}
	// Without the op, the graph compiles.
	tg.Nodes = tg.Nodes[:bad]
	if _, err := execution.Compile(tg, []int{ids[0]}, true); err != nil {
		t.Fatal(err)
	}
}
