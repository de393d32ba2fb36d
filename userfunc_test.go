package phobos_test

import (
	"context"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

func init() {
	// a*2 - b + the block's first row: the row offset checks that each
	// block learns where it lies.
	must(ops.RegisterBlockFunc("test.scale_sub_row", func(_ context.Context, in []*ndarray.Array, info ops.BlockInfo) (*ndarray.Array, error) {
		a, b := in[0].Contiguous().Float64s(), in[1].Contiguous().Float64s()
		out, err := ndarray.New(ndarray.Float64, info.Shape...)
		if err != nil {
			return nil, err
		}
		o := out.Float64s()
		row := float64(info.ArrayLocation[0][0])
		for i := range o {
			o[i] = a[i]*2 - b[i] + row
		}
		return out, nil
	}))
	must(ops.RegisterBlockFunc("test.wrong_dtype", func(_ context.Context, in []*ndarray.Array, info ops.BlockInfo) (*ndarray.Array, error) {
		return ndarray.New(ndarray.Float32, info.Shape...)
	}))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// TestMapBlocksGo runs a Go block function over odd chunkings (single
// elements, uneven last chunks, a chunk larger than the array) and checks
// every element against the function computed whole.
func TestMapBlocksGo(t *testing.T) {
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	const rows, cols = 7, 5
	av := make([]float64, rows*cols)
	bv := make([]float64, rows*cols)
	for i := range av {
		av[i] = float64(i)*0.75 - 4
		bv[i] = float64(i*i%11) - 2.5
	}
	for _, ch := range [][2]int{{1, 1}, {3, 2}, {7, 5}, {10, 10}, {4, 3}} {
		a := tensor.FromSlice(av, []int{rows, cols}, tensor.Chunks(ch[0], ch[1]))
		b := tensor.FromSlice(bv, []int{rows, cols}, tensor.Chunks(ch[0], ch[1]))
		got, err := sess.Execute(context.Background(), tensor.MapBlocks("test.scale_sub_row", ndarray.Float64, a, b))
		if err != nil {
			t.Fatalf("chunks %v: %v", ch, err)
		}
		g := got[0].Contiguous().Float64s()
		for i := range g {
			r := i / cols
			blockRow := r / ch[0] * ch[0]
			if want := av[i]*2 - bv[i] + float64(blockRow); g[i] != want {
				t.Fatalf("chunks %v: element %d = %v, want %v", ch, i, g[i], want)
			}
		}
	}
	a := tensor.FromSlice(av, []int{rows, cols}, tensor.Chunks(3, 2))
	for name, want := range map[string]string{
		"test.wrong_dtype": "user_block(test.wrong_dtype) returned a block of float32",
		"test.nothing":     `no Go block function "test.nothing" is registered`,
	} {
		_, err := sess.Execute(context.Background(), tensor.MapBlocks(name, ndarray.Float64, a))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", name, err, want)
		}
	}
	b := tensor.FromSlice(bv, []int{rows, cols}, tensor.Chunks(2, 2))
	if _, err := sess.Execute(context.Background(), tensor.MapBlocks("test.scale_sub_row", ndarray.Float64, a, b)); err == nil ||
		!strings.Contains(err.Error(), "rechunk the inputs alike") {
		t.Errorf("inputs chunked apart: got %v", err)
	}
	if err := ops.RegisterBlockFunc("test.wrong_dtype", nil); err == nil {
		t.Error("registering a name twice (and a nil function) was accepted")
	}
}
