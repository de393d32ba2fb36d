package tensor

import (
	"errors"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// TestManipErrorsSayWhatIsWrong: each mistake NumPy raises for fails here
// too, with a message naming the argument and its value.
func TestManipErrorsSayWhatIsWrong(t *testing.T) {
	f64 := ndarray.Float64
	a := laZeros(f64, 3, 4)
	v := laZeros(f64, 5)
	laCheckErr(t, "roll axis", a.Roll(1, 2), "roll", "axis 2", "dimension 2")
	laCheckErr(t, "roll lengths", a.RollAxes([]int{1, 2, 3}, []int{0, 1}), "3 shifts and 2 axes")
	laCheckErr(t, "repeat counts", a.RepeatEach([]int{1, 2}, 0), "2 repeat counts", "length 3")
	laCheckErr(t, "repeat negative", a.Repeat(-2), "negative repeat count -2")
	laCheckErr(t, "repeat two axes", a.Repeat(2, 0, 1), "at most one axis", "[0 1]")
	laCheckErr(t, "tile", a.Tile(2, -1), "negative", "[2 -1]")
	laCheckErr(t, "moveaxis", a.MoveAxis([]int{0, 0}, []int{0, 1}), "repeated axis 0")
	laCheckErr(t, "rollaxis", a.RollAxis(0, 4), "rollaxis", "axis 4")
	laCheckErr(t, "diff order", a.Diff(-1, 0, nil, nil), "non-negative", "-1")
	laCheckErr(t, "diff 0-d", Scalar(1.5).Diff(1, 0, nil, nil), "at least one dimensional")
	laCheckErr(t, "ediff1d kinds", laZeros(ndarray.Int64, 4).Ediff1d(v, nil), "to_end", "same_kind", "float64 to int64")
	laCheckErr(t, "pad width", a.Pad([][2]int{{1, 1}, {1, 1}, {1, 1}}, PadEdge, nil), "pad_width", "3 pairs", "2 dimensions")
	laCheckErr(t, "pad negative", a.Pad([][2]int{{0, -1}}, PadConstant, nil), "negative")
	laCheckErr(t, "pad mode", a.Pad([][2]int{{1, 1}}, "median", nil), "mode 'median'")
	laCheckErr(t, "pad empty", laZeros(f64, 0, 3).Pad([][2]int{{1, 0}, {0, 0}}, PadWrap, nil), "empty axis 0")
	laCheckErr(t, "pad constants in edge mode", a.Pad([][2]int{{1, 1}}, PadEdge, [][2]float64{{1, 2}}), "constant_values", "'edge'")
	laCheckErr(t, "tril 0-d", Scalar(2.0).Tril(0), "tril", "fewer than 1 dimension")
	laCheckErr(t, "diagonal same axes", a.Diagonal(0, 1, -1), "axis1 and axis2", "both are 1")
	laCheckErr(t, "diag 3-d", laZeros(f64, 2, 2, 2).Diag(0), "1- or 2-d", "[2 2 2]")
	laCheckErr(t, "meshgrid", Meshgrid("yx", false, v)[0], "indexing", "yx")
	laCheckErr(t, "indices", Indices([]int{2, -1}), "negative", "[2 -1]")
	laCheckErr(t, "delete", v.Delete([]int{1, 5}), "index 5", "axis 0 with size 5")
	laCheckErr(t, "insert", a.Insert(-4, Scalar(1.0), 0), "index -4", "size 3")
	laCheckErr(t, "insert obj", a.Insert(1.5, Scalar(1.0)), "obj must be an int", "float64")
	laCheckErr(t, "array_split", a.ArraySplit(0, 0)[0], "larger than 0", "got 0")
	laCheckErr(t, "rot90", a.Rot90(1, [2]int{0, 3}), "out of range", "ndim=2")
	if _, ok := errors.AsType[*IndexError](v.Delete(9).Err()); !ok {
		t.Errorf("delete out of bounds: %v is not an IndexError", v.Delete(9).Err())
	}
	var ae *ndarray.AxisError
	if !errors.As(a.SwapAxes(0, 5).Err(), &ae) {
		t.Errorf("swapaxes: %v is not an AxisError", a.SwapAxes(0, 5).Err())
	}
}

// TestManipMeta: shapes and dtypes without running anything.
func TestManipMeta(t *testing.T) {
	f64, i32 := ndarray.Float64, ndarray.Int32
	a := laZeros(i32, 3, 4)
	laCheck(t, "repeat each", a.RepeatEach([]int{1, 0, 4}, 0), []int{5, 4}, i32)
	laCheck(t, "tile", a.Tile(2, 1, 3), []int{2, 3, 12}, i32)
	laCheck(t, "pad", a.Pad([][2]int{{1, 2}}, PadWrap, nil), []int{6, 7}, i32)
	laCheck(t, "trace int32", a.Trace(0, 0, 1), []int{}, ndarray.Int64)
	laCheck(t, "trapz int32", Trapz(a, nil, 1, 0), []int{4}, f64)
	laCheck(t, "indices int32", Indices([]int{2, 3}, WithDType(i32)), []int{2, 2, 3}, i32)
	laCheck(t, "diag", laZeros(f64, 3).Diag(-2), []int{5, 5}, f64)
	laCheck(t, "insert list", a.Insert([]int{0, 4}, Scalar(2.5), 1), []int{3, 6}, i32)
	if r := a.Roll(0, 1); r != a {
		t.Error("roll by 0 is not t itself")
	}
}

// TestManipHugeArgumentsAreRefusedOrCheap: arguments a client sends cannot
// make building a tensor allocate in proportion to them, and a deletion
// from a huge lazy tensor costs nothing per element.
func TestManipHugeArgumentsAreRefusedOrCheap(t *testing.T) {
	a := laZeros(ndarray.Float64, 3, 4)
	laCheckErr(t, "tile", a.Tile(1<<40), "copies", "exceed")
	laCheckErr(t, "pad", a.Pad([][2]int{{1 << 40, 0}, {0, 0}}, PadReflect, nil), "wider than the axis")
	laCheckErr(t, "repeat", a.Repeat(1<<61), "too many")
	laCheckErr(t, "repeat each", a.RepeatEach([]int{1 << 61, 1 << 61, 1 << 61}, 0), "too many")
	huge := Zeros([]int{1 << 40})
	laCheck(t, "delete", huge.Delete([]int{0, 5, -1, 5}), []int{1<<40 - 3}, ndarray.Float64)
	laCheck(t, "pad edge", a.Pad([][2]int{{1 << 30, 0}}, PadEdge, nil), []int{1<<30 + 3, 1<<30 + 4}, ndarray.Float64)
}

// TestPadSingleElementIsCheap: every mode pads a one-element axis with
// that element, as one broadcast per side however wide the pad.
func TestPadSingleElementIsCheap(t *testing.T) {
	v := laZeros(ndarray.Int64, 1)
	for _, m := range []PadMode{PadReflect, PadSymmetric, PadWrap, PadEdge} {
		r := v.Pad([][2]int{{1 << 30, 1 << 29}}, m, nil)
		laCheck(t, string(m), r, []int{1<<30 + 1<<29 + 1}, ndarray.Int64)
		if c, ok := r.Op().(ops.Concatenate); !ok || len(r.Inputs()) != 3 {
			t.Errorf("%s: %v of %d inputs, want a concatenation of 3", m, c, len(r.Inputs()))
		}
	}
}
