package phobos_test

import (
	"context"
	"slices"
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

// TestMapBlocksGoUnknownLength runs a Go block function whose blocks'
// lengths only the data tell (the positive elements of each block, Dask's
// NaN chunks): the result, its sum and its concatenation with a known
// tensor are checked against the filter computed whole, over odd
// chunkings; a block longer than its bound fails naming the op.
func TestMapBlocksGoUnknownLength(t *testing.T) {
	must(ops.RegisterBlockFunc("test.positive", func(_ context.Context, in []*ndarray.Array, _ ops.BlockInfo) (*ndarray.Array, error) {
		var keep []float64
		for _, v := range in[0].Contiguous().Float64s()[:in[0].Size()] {
			if v > 0 {
				keep = append(keep, v)
			}
		}
		return ndarray.FromFloat64s([]int{len(keep)}, keep)
	}))
	must(ops.RegisterBlockFunc("test.doubled", func(_ context.Context, in []*ndarray.Array, _ ops.BlockInfo) (*ndarray.Array, error) {
		v := in[0].Contiguous().Float64s()[:in[0].Size()]
		return ndarray.FromFloat64s([]int{2 * len(v)}, append(slices.Clone(v), v...))
	}))
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	const n = 23
	xv := make([]float64, n)
	var want []float64
	for i := range xv {
		xv[i] = float64((i*7)%11) - 5
		if xv[i] > 0 {
			want = append(want, xv[i])
		}
	}
	filtered := func(name string, x *tensor.Tensor, splits []int) *tensor.Tensor {
		return tensor.New(ops.UserBlocks{Label: name, GoFunc: name, DType: ndarray.Float64,
			NSplits: [][]int{splits}, InAxes: [][]int{{0}}, Unknown: 1}, x)
	}
	for _, c := range []int{1, 4, 23, 30} {
		x := tensor.FromSlice(xv, []int{n}, tensor.Chunks(c))
		splits := chunkLens(n, c)
		u := filtered("test.positive", x, splits)
		if got := u.Shape(); got[0] != -1 {
			t.Fatalf("chunks %d: shape before computing %v, want [-1]", c, got)
		}
		known := tensor.FromSlice([]float64{1.5, -2}, []int{2}, tensor.Chunks(1))
		got, err := sess.Execute(context.Background(), u, u.Sum(), tensor.Concatenate(0, known, u))
		if err != nil {
			t.Fatalf("chunks %d: %v", c, err)
		}
		var sum float64
		for _, v := range want {
			sum += v
		}
		if g := got[0].Contiguous().Float64s(); !slices.Equal(g, want) {
			t.Errorf("chunks %d: got %v, want %v", c, g, want)
		}
		if g := got[1].Contiguous().Float64s()[0]; g != sum {
			t.Errorf("chunks %d: sum %v, want %v", c, g, sum)
		}
		if g := got[2].Contiguous().Float64s(); !slices.Equal(g, append([]float64{1.5, -2}, want...)) {
			t.Errorf("chunks %d: concatenation %v", c, g)
		}
	}
	x := tensor.FromSlice(xv, []int{n}, tensor.Chunks(5))
	_, err = sess.Execute(context.Background(), filtered("test.doubled", x, chunkLens(n, 5)))
	if err == nil || !strings.Contains(err.Error(), "user_block(test.doubled) returned a block of float64 [10]") ||
		!strings.Contains(err.Error(), "at most 5 along axis 0") {
		t.Errorf("a block past its bound: got %v", err)
	}
}

// chunkLens is the lengths of chunks of c along an axis of n.
func chunkLens(n, c int) []int {
	var out []int
	for lo := 0; lo < n; lo += c {
		out = append(out, min(c, n-lo))
	}
	return out
}
