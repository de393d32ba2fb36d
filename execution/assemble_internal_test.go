package execution

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// TestUnknownSplits: the lengths of the chunks along the axis of unknown
// length make the shape and splits, the chunks of one slab must agree,
// and a grid without chunks across another axis has length 0.
func TestUnknownSplits(t *testing.T) {
	// A 2x3 grid over (?, 7), unknown along axis 0.
	tiled := &ops.Tiled{
		Meta:    ops.Meta{Shape: []int{-1, 7}, DType: ndarray.Float64, Unknown: 1},
		NSplits: [][]int{{4, 4}, {3, 3, 1}},
		Chunks:  make([]ops.ChunkRef, 6),
	}
	lens := []int{2, 2, 2, 0, 0, 0}
	var asked []int
	shape, nsplits, err := unknownSplits(tiled, func(j int) (int, error) {
		asked = append(asked, j)
		return lens[j], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []int{0, 1, 2, 3, 4, 5}) || !slices.Equal(shape, []int{2, 7}) || !slices.Equal(nsplits[0], []int{2, 0}) || !slices.Equal(nsplits[1], []int{3, 3, 1}) {
		t.Errorf("asked %v: shape %v, splits %v", asked, shape, nsplits)
	}
	if !slices.Equal(tiled.NSplits[0], []int{4, 4}) {
		t.Errorf("the result's planned splits changed: %v", tiled.NSplits)
	}
	lens = []int{2, 2, 1, 0, 0, 0}
	if _, _, err := unknownSplits(tiled, func(j int) (int, error) { return lens[j], nil }); err == nil || !strings.Contains(err.Error(), "lengths 2 and 1") {
		t.Errorf("chunks of one slab of lengths 2 and 1: %v", err)
	}
	boom := errors.New("boom")
	if _, _, err := unknownSplits(tiled, func(j int) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Errorf("a length that cannot be read: %v", err)
	}
	empty := &ops.Tiled{Meta: ops.Meta{Shape: []int{-1, 0}, DType: ndarray.Float64, Unknown: 1}, NSplits: [][]int{{3}, {}}}
	if shape, _, err := unknownSplits(empty, nil); err != nil || !slices.Equal(shape, []int{0, 0}) {
		t.Errorf("no chunks across axis 1: shape %v, %v", shape, err)
	}
}

// TestAssemblePanicIsAnError: a panic while assembling (a chunk of
// another dtype than the result's) is an error naming where it happened.
func TestAssemblePanicIsAnError(t *testing.T) {
	tiled := &ops.Tiled{
		Meta:    ops.Meta{Shape: []int{4}, DType: ndarray.Float64},
		NSplits: [][]int{{2, 2}},
		Chunks:  []ops.ChunkRef{0, 1},
	}
	get := func(c ops.ChunkRef) (*ndarray.Array, error) {
		return ndarray.New(ndarray.Int32, 2)
	}
	err := guard("assemble", func() error {
		_, err := AssembleTiled(tiled, get)
		return err
	})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Stage != "assemble" || pe.Op != "ndarray.CopyInto" {
		t.Fatalf("%v (%#v)", err, pe)
	}
}

// TestAssembleTiled assembles known and unknown layouts from chunk arrays.
func TestAssembleTiled(t *testing.T) {
	vals := func(shape []int, from float64) *ndarray.Array {
		n := ndarray.Size(shape)
		d := make([]float64, n)
		for i := range d {
			d[i] = from + float64(i)
		}
		a, err := ndarray.FromFloat64s(shape, d)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// (?, 3) in a 2x2 grid: rows 2 and 1, columns 2 and 1.
	chunks := []*ndarray.Array{vals([]int{2, 2}, 0), vals([]int{2, 1}, 10), vals([]int{1, 2}, 20), vals([]int{1, 1}, 30)}
	tiled := &ops.Tiled{
		Meta:    ops.Meta{Shape: []int{-1, 3}, DType: ndarray.Float64, Unknown: 1},
		NSplits: [][]int{{5, 5}, {2, 1}},
		Chunks:  []ops.ChunkRef{7, 3, 9, 4},
	}
	get := func(c ops.ChunkRef) (*ndarray.Array, error) {
		return chunks[slices.Index(tiled.Chunks, c)], nil
	}
	a, err := AssembleTiled(tiled, get)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 1, 10, 2, 3, 11, 20, 21, 30}; !slices.Equal(a.Shape(), []int{3, 3}) || !slices.Equal(a.ToFloat64s(), want) {
		t.Errorf("unknown: %v %v, want %v", a.Shape(), a.ToFloat64s(), want)
	}
	tiled.Meta = ops.Meta{Shape: []int{3, 3}, DType: ndarray.Float64}
	tiled.NSplits = [][]int{{2, 1}, {2, 1}}
	if b, err := AssembleTiled(tiled, get); err != nil || !slices.Equal(b.ToFloat64s(), a.ToFloat64s()) {
		t.Errorf("known: %v, %v", b, err)
	}
}
