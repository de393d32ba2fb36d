package ops_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

func TestStatsOpsRoundTrip(t *testing.T) {
	for _, c := range []struct {
		op     any
		tensor bool
	}{
		{ops.Histogram{Bins: 7, Weighted: true, AutoRange: true, FanIn: 3}, true},
		{ops.HistogramChunk{Bins: 2}, false},
		{ops.Bincount{Length: 12, Weighted: true}, true},
		{ops.BincountChunk{Length: 3, Offset: 40}, false},
		{ops.Digitize{Right: true}, true},
		{ops.Reduction{Func: "nanargmax", Axes: []int{1}, KeepDims: true}, true},
		{ops.ReduceFinish{Func: "nanvar", DDof: 2, Shape: []int{3}, DType: ndarray.Float32}, false},
	} {
		roundTrip(t, c.op, c.tensor)
	}
}

func f64s(t *testing.T, v ...float64) *ndarray.Array {
	t.Helper()
	a, err := ndarray.FromFloat64s([]int{len(v)}, v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Edges are half-open except the last, which also holds its right edge;
// NaN and values outside are not counted.
func TestHistogramChunkBins(t *testing.T) {
	ctx := context.Background()
	x := f64s(t, 0, 0.5, 1, 1.5, 2, 3, 3.5, -1, math.NaN(), math.Inf(1))
	edges := f64s(t, 0, 1, 1, 2, 3.5)
	got, err := ops.HistogramChunk{Bins: 4}.Exec(ctx, []*ndarray.Array{x, edges})
	if err != nil {
		t.Fatal(err)
	}
	// [0,1): 0, 0.5; [1,1): none; [1,2): 1, 1.5; [2,3.5]: 2, 3, 3.5
	if want := []int64{2, 0, 2, 3}; !slices.Equal(got.Int64s()[:4], want) {
		t.Errorf("counts %v, want %v", got.Int64s()[:4], want)
	}
	_, err = ops.HistogramChunk{Bins: 2}.Exec(ctx, []*ndarray.Array{x, f64s(t, 0, 2, 1)})
	if err == nil || !strings.Contains(err.Error(), "increase monotonically") {
		t.Errorf("decreasing edges: %v", err)
	}
	_, err = ops.HistogramChunk{Bins: 1, AutoRange: true}.Exec(ctx, []*ndarray.Array{x, f64s(t, math.NaN(), math.NaN())})
	if err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN auto range: %v", err)
	}
}

func TestBincountChunkRange(t *testing.T) {
	ctx := context.Background()
	x, _ := ndarray.FromInt64s([]int{4}, []int64{0, 2, 2, 5})
	_, err := ops.BincountChunk{Length: 5, Offset: 10}.Exec(ctx, []*ndarray.Array{x})
	var re *ops.BincountRangeError
	if !errors.As(err, &re) || re.Value != 5 || re.Index != 13 || !strings.Contains(err.Error(), "Max()+1") {
		t.Errorf("value beyond the length: %v", err)
	}
	got, err := ops.BincountChunk{Length: 6}.Exec(ctx, []*ndarray.Array{x})
	if err != nil || !slices.Equal(got.Int64s()[:6], []int64{1, 0, 2, 0, 0, 1}) {
		t.Errorf("counts %v, %v", got, err)
	}
}

func TestDigitizeMonotonic(t *testing.T) {
	ctx := context.Background()
	x := f64s(t, -1, 0, 1, 2, math.NaN())
	for _, c := range []struct {
		bins  []float64
		right bool
		want  []int64
	}{
		{[]float64{0, 1, 1, 2}, false, []int64{0, 1, 3, 4, 4}},
		{[]float64{0, 1, 1, 2}, true, []int64{0, 0, 1, 3, 4}},
		{[]float64{2, 1, 1, 0}, false, []int64{4, 3, 1, 0, 0}},
		{[]float64{2, 1, 1, 0}, true, []int64{4, 4, 3, 1, 0}},
	} {
		got, err := ops.Digitize{Right: c.right}.Exec(ctx, []*ndarray.Array{x, f64s(t, c.bins...)})
		if err != nil || !slices.Equal(got.Int64s()[:5], c.want) {
			t.Errorf("bins %v right %v: %v %v, want %v", c.bins, c.right, got, err, c.want)
		}
	}
	if _, err := (ops.Digitize{}).Exec(ctx, []*ndarray.Array{x, f64s(t, 0, 2, 1)}); err == nil || !strings.Contains(err.Error(), "monotonically") {
		t.Errorf("non-monotonic bins: %v", err)
	}
}

// Chunk ops decoded from the wire run with whatever parameters they carry:
// nonsense is an error, never a panic.
func TestStatsChunkOpsHostileParams(t *testing.T) {
	ctx := context.Background()
	x := f64s(t, 1, 2, 3)
	for _, c := range []struct {
		name string
		op   ops.ChunkOp
		in   []*ndarray.Array
	}{
		{"histogram no bins", ops.HistogramChunk{Bins: -1}, []*ndarray.Array{x, f64s(t)}},
		{"histogram zero bins", ops.HistogramChunk{Bins: 0}, []*ndarray.Array{x, f64s(t, 1)}},
		{"histogram edges mismatch", ops.HistogramChunk{Bins: 3}, []*ndarray.Array{x, f64s(t, 1, 2)}},
		{"histogram weights missing", ops.HistogramChunk{Bins: 1, Weighted: true}, []*ndarray.Array{x, f64s(t, 0, 5)}},
		{"bincount negative length", ops.BincountChunk{Length: -3}, nil},
		{"digitize one input", ops.Digitize{}, []*ndarray.Array{x}},
	} {
		if _, err := c.op.Exec(ctx, c.in); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// Equal edges on the equal-bins path (an overflowed width): no panic.
	got, err := ops.HistogramChunk{Bins: 2, Uniform: true}.Exec(ctx, []*ndarray.Array{f64s(t, 1e300, 1e300), f64s(t, 1e300, 1e300, 1e300)})
	if err != nil || got.Int64s()[1] != 2 {
		t.Errorf("equal edges: %v %v", got, err)
	}
}
