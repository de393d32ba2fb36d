package phobos_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// The NumPy differential suite of the quantiles (median, quantile,
// percentile and their nan- forms), on the machinery of numpy_diff_test.go.
// Results must be exact: the same elements selected and the same
// interpolation arithmetic as NumPy 1.24, so the tolerance is nil (atol
// 1e-300 only lets subnormals through). The chunkings reach every path:
// lanes whole in a chunk (local selection), lanes split over chunks (radix
// select, also with 8- and 4-bit digits forced), many lanes split
// (rechunked whole).

// qExact is the tolerance of every case: none.
func qExact(c npCase) npCase {
	return c.tol(0, 1e-300, "exact: the same ranks selected and the same interpolation arithmetic as NumPy")
}

// qAll are the methods of NumPy 1.24, in the order of its documentation.
var qAll = ndarray.QuantileMethods

// Inputs.
var (
	qA37   = npR(dF64, 301, 37)
	qB67   = npR(dF64, 302, 6, 7)
	qC345  = npQ(dF64, 303, 3, 4, 5) // quarters: many ties
	qF59   = npR(dF32, 304, 5, 9)
	qI89   = npI(dI64, 305, -50, 50, 8, 9)
	qI31   = npI(dI32, 306, -9, 9, 31)
	qBool  = npB(307, 13)
	qNaN   = npSpecial(dF64, 308, 6, 11) // NaN in column 3 of every row, ±inf
	qNaN32 = npSpecial(dF32, 309, 4, 11)
	qEq    = npFill(dF64, 0, []int{17}, func(int, *npLCG) float64 { return 2.5 })
	qTwo   = npFill(dF64, 310, []int{4, 9}, func(_ int, r *npLCG) float64 { return []float64{-1, 3}[r.next()%2] })
	qInf   = npFill(dF64, 311, []int{3, 8}, func(_ int, r *npLCG) float64 {
		return []float64{math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1.5, -2}[r.next()%6]
	})
	qAllNaN = npFill(dF64, 312, []int{3, 5}, func(i int, r *npLCG) float64 {
		if i/5 == 1 || r.next()%3 == 0 {
			return math.NaN()
		}
		return float64(r.next()%7) - 3
	})
	// Large int64s: the interpolation's b - a is exact in int64 but not in
	// float64.
	qBigInt = npFill(dI64, 313, []int{10}, func(_ int, r *npLCG) float64 {
		return float64(int64(1)<<60) + float64(r.next()%1000)*4096
	})
	qWide = npR(dF64, 314, 40, 9) // 40 lanes: rechunked whole when split
)

// qChunkings: one-element chunks, odd sizes, one chunk larger than the
// array, irregular splits, and the kept axes chunked with the reduced axis
// whole (npChunkAxis).
var qChunkings = []npChunking{npChunk1, npChunkOdd, npChunkBig, npChunkIrr, npChunkAxis}

func qCases() []npCase {
	var cs []npCase
	add := func(c npCase) { cs = append(cs, qExact(c)) }
	qs := []float64{0, 0.1, 0.25, 0.5, 0.9, 1}
	const qsPy = "[0, 0.1, 0.25, 0.5, 0.9, 1]"
	// Every method, over everything and over one axis, on floats, ties,
	// ints and float32.
	for _, m := range qAll {
		add(npOne("quantile "+m+" all", fmt.Sprintf("np.quantile(a, %s, method=%q)", qsPy, m), ins("a", qA37),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), qs, m) }))
		add(npOne("quantile "+m+" ties axis 1", fmt.Sprintf("np.quantile(a, 0.3, axis=1, method=%q)", m), ins("a", qC345),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), 0.3, m, tensor.Axis(1)) }))
		add(npOne("quantile "+m+" axis 0 keepdims", fmt.Sprintf("np.quantile(a, [0.5, 1, 0], axis=0, method=%q, keepdims=True)", m), ins("a", qB67),
			func(e *npEnv) *tensor.Tensor {
				return tensor.Quantile(e.v("a"), []float64{0.5, 1, 0}, m, tensor.Axis(0), tensor.KeepDims())
			}))
		add(npOne("quantile "+m+" int64", fmt.Sprintf("np.quantile(a, %s, axis=-1, method=%q)", qsPy, m), ins("a", qI89),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), qs, m, tensor.Axis(-1)) }))
		add(npOne("quantile "+m+" int32", fmt.Sprintf("np.quantile(a, 0.37, method=%q)", m), ins("a", qI31),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), 0.37, m) }))
		add(npOne("quantile "+m+" float32", fmt.Sprintf("np.quantile(a, %s, axis=(0, 1), method=%q)", qsPy, m), ins("a", qF59),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), qs, m, tensor.Axis(0, 1)) }))
		add(npOne("quantile "+m+" big int64", fmt.Sprintf("np.quantile(a, [0.3, 0.55, 0.71], method=%q)", m), ins("a", qBigInt),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), []float64{0.3, 0.55, 0.71}, m) }))
		add(npOne("percentile "+m+" inf zeros", fmt.Sprintf("np.percentile(a, [0, 12.5, 50, 87.5, 100], axis=1, method=%q)", m), ins("a", qInf),
			func(e *npEnv) *tensor.Tensor {
				return tensor.Percentile(e.v("a"), []float64{0, 12.5, 50, 87.5, 100}, m, tensor.Axis(1))
			}))
		add(npOne("nanquantile "+m, fmt.Sprintf("np.nanquantile(a, [0.2, 0.5, 1], axis=1, method=%q)", m), ins("a", qNaN),
			func(e *npEnv) *tensor.Tensor {
				return tensor.NanQuantile(e.v("a"), []float64{0.2, 0.5, 1}, m, tensor.Axis(1))
			}))
		add(npOne("nanpercentile "+m+" all", fmt.Sprintf("np.nanpercentile(a, 33, method=%q)", m), ins("a", qNaN32),
			func(e *npEnv) *tensor.Tensor { return tensor.NanPercentile(e.v("a"), 33.0, m) }))
		add(npOne("quantile "+m+" wide lanes", fmt.Sprintf("np.quantile(a, [0.15, 0.85], axis=1, method=%q)", m), ins("a", qWide),
			func(e *npEnv) *tensor.Tensor {
				return tensor.Quantile(e.v("a"), []float64{0.15, 0.85}, m, tensor.Axis(1))
			}))
	}
	// Bool data: methods that pick an element work, the others fail as in
	// NumPy.
	for _, m := range []string{"lower", "higher", "nearest", "inverted_cdf", "closest_observation"} {
		add(npOne("quantile bool "+m, fmt.Sprintf("np.quantile(a, [0.1, 0.5, 0.9], method=%q)", m), ins("a", qBool),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), []float64{0.1, 0.5, 0.9}, m) }))
	}
	add(npOne("quantile bool linear", "np.quantile(a, 0.5)", ins("a", qBool),
		func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), 0.5, "") }).fails())
	// Radix select with narrower digits, and counting digits to the last
	// level without listing the keys of small buckets, forced on any
	// chunking.
	for _, r := range []struct {
		bits      int
		noExtract bool
	}{{4, false}, {8, false}, {4, true}, {8, true}, {16, true}} {
		bits := r.bits
		for _, in := range []npIn{{"a", qA37}, {"a", qF59}, {"a", qI31}, {"a", qNaN}, {"a", qTwo}} {
			name := fmt.Sprintf("radix %d bits %v", bits, in.arr.DType())
			switch in.arr {
			case qNaN:
				name += " nan"
			case qTwo:
				name += " two values"
			}
			if r.noExtract {
				name += " no extract"
			}
			op := ops.Quantile{Q: []float64{0, 0.3, 0.5, 1}, Method: "linear", Axes: allAxes(in.arr.NDim()), RadixBits: bits, Radix: true, IgnoreNaN: in.arr == qNaN, NoExtract: r.noExtract}
			f := "quantile"
			if op.IgnoreNaN {
				f = "nanquantile"
			}
			add(npOne(name, "np."+f+"(a, [0, 0.3, 0.5, 1])", []npIn{in},
				func(e *npEnv) *tensor.Tensor { return tensor.New(op, e.v("a")) }))
		}
	}
	add(npOne("radix 8 bits lanes", "np.quantile(a, [0.1, 0.6], axis=1)", ins("a", qWide),
		func(e *npEnv) *tensor.Tensor {
			return tensor.New(ops.Quantile{Q: []float64{0.1, 0.6}, Axes: []int{1}, RadixBits: 8, Radix: true}, e.v("a"))
		}))
	// Median: every dtype, axes, keepdims, NaN and the nan- form.
	for _, c := range []struct {
		name string
		a    *ndarray.Array
	}{{"f64 odd", qA37}, {"f64", qB67}, {"ties", qC345}, {"f32", qF59}, {"i64", qI89}, {"i32", qI31}, {"bool", qBool},
		{"nan", qNaN}, {"nan f32", qNaN32}, {"equal", qEq}, {"two values", qTwo}, {"inf zeros", qInf}, {"all-nan row", qAllNaN}, {"big int", qBigInt}} {
		add(npOne("median "+c.name, "np.median(a)", ins("a", c.a),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Median() }))
		add(npOne("nanmedian "+c.name, "np.nanmedian(a)", ins("a", c.a),
			func(e *npEnv) *tensor.Tensor { return e.v("a").NanMedian() }))
		if c.a.NDim() >= 2 {
			add(npOne("median axis -1 "+c.name, "np.median(a, axis=-1)", ins("a", c.a),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Median(tensor.Axis(-1)) }))
			add(npOne("nanmedian axis 0 keepdims "+c.name, "np.nanmedian(a, axis=0, keepdims=True)", ins("a", c.a),
				func(e *npEnv) *tensor.Tensor { return e.v("a").NanMedian(tensor.Axis(0), tensor.KeepDims()) }))
		}
	}
	add(npOne("median axes 0 2", "np.median(a, axis=(0, 2))", ins("a", qC345),
		func(e *npEnv) *tensor.Tensor { return e.v("a").Median(tensor.Axis(0, 2)) }))
	add(npOne("median wide lanes", "np.median(a, axis=1)", ins("a", qWide),
		func(e *npEnv) *tensor.Tensor { return e.v("a").Median(tensor.Axis(1)) }))
	// Duplicates, NaN, infinities through quantile and its nan- form.
	for _, c := range []struct {
		name string
		a    *ndarray.Array
	}{{"equal", qEq}, {"two values", qTwo}, {"nan", qNaN}, {"all-nan row", qAllNaN}, {"inf zeros", qInf}} {
		add(npOne("quantile "+c.name, "np.quantile(a, [0, 0.5, 0.75, 1])", ins("a", c.a),
			func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), []float64{0, 0.5, 0.75, 1}, "") }))
		add(npOne("nanquantile "+c.name, "np.nanquantile(a, [0, 0.5, 0.75, 1], axis=-1)", ins("a", c.a),
			func(e *npEnv) *tensor.Tensor {
				return tensor.NanQuantile(e.v("a"), []float64{0, 0.5, 0.75, 1}, "", tensor.Axis(-1))
			}))
		add(npOne("quantile lower "+c.name, "np.quantile(a, [0.2, 0.8], axis=-1, method='lower')", ins("a", c.a),
			func(e *npEnv) *tensor.Tensor {
				return tensor.Quantile(e.v("a"), []float64{0.2, 0.8}, "lower", tensor.Axis(-1))
			}))
	}
	// Empty lanes (NumPy: NaN, with a warning) and 0-d tensors.
	qEmpty := npFill(dF64, 0, []int{3, 0}, nil)
	add(npOne("median empty", "np.median(a)", ins("a", qEmpty),
		func(e *npEnv) *tensor.Tensor { return e.v("a").Median() }).with(npChunkOdd))
	add(npOne("median empty lanes", "np.median(a, axis=1)", ins("a", qEmpty),
		func(e *npEnv) *tensor.Tensor { return e.v("a").Median(tensor.Axis(1)) }).with(npChunkOdd))
	add(npOne("median 0-d", "np.median(a)", ins("a", npFill(dF32, 0, []int{}, func(int, *npLCG) float64 { return 2.5 })),
		func(e *npEnv) *tensor.Tensor { return e.v("a").Median() }).with(npChunkOdd))
	add(npOne("quantile 0-d", "np.quantile(a, [0.2, 1], method='lower')", ins("a", npFill(dI32, 0, []int{}, func(int, *npLCG) float64 { return -4 })),
		func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), []float64{0.2, 1}, "lower") }).with(npChunkOdd))
	// Errors NumPy raises too.
	add(npOne("quantile q above 1", "np.quantile(a, 1.5)", ins("a", qA37),
		func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), 1.5, "") }).fails())
	add(npOne("percentile q below 0", "np.percentile(a, [-1, 50])", ins("a", qA37),
		func(e *npEnv) *tensor.Tensor { return tensor.Percentile(e.v("a"), []float64{-1, 50}, "") }).fails())
	add(npOne("quantile bad method", "np.quantile(a, 0.5, method='cubic')", ins("a", qA37),
		func(e *npEnv) *tensor.Tensor { return tensor.Quantile(e.v("a"), 0.5, "cubic") }).fails())
	add(npOne("median bad axis", "np.median(a, axis=2)", ins("a", qB67),
		func(e *npEnv) *tensor.Tensor { return e.v("a").Median(tensor.Axis(2)) }).fails())
	return cs
}

func allAxes(nd int) []int {
	a := make([]int, nd)
	for i := range a {
		a[i] = i
	}
	return a
}

// TestQuantileNumpyDifferential is the suite (see the top of this file).
func TestQuantileNumpyDifferential(t *testing.T) {
	npSuite(t, "quantile", qCases(), qChunkings, []npMode{npSuiteModes[0], npSuiteModes[2]})
}

// TestQuantileErrorsNameTheValue checks that mistakes are errors naming
// what was wrong.
func TestQuantileErrorsNameTheValue(t *testing.T) {
	a := tensor.FromSlice([]float64{1, 2, 3, 4}, []int{2, 2})
	for _, c := range []struct {
		name string
		t    *tensor.Tensor
		want []string
	}{
		{"q above 1", tensor.Quantile(a, 1.25, ""), []string{"1.25", "[0, 1]"}},
		{"q NaN", tensor.Quantile(a, []float64{0.5, math.NaN()}, ""), []string{"NaN", "[0, 1]"}},
		{"percentile", tensor.Percentile(a, 101.0, ""), []string{"101", "[0, 100]"}},
		{"nanpercentile", tensor.NanPercentile(a, []float64{-3}, ""), []string{"-3", "[0, 100]"}},
		{"method", tensor.Quantile(a, 0.5, "cubic"), []string{`"cubic"`, "linear"}},
		{"axis", a.Median(tensor.Axis(3)), []string{"3"}},
		{"repeated axis", tensor.Quantile(a, 0.5, "", tensor.Axis(0, -2)), []string{"repeated"}},
		{"no q", tensor.Quantile(a, []float64{}, ""), []string{"no q"}},
		{"bool interpolation", tensor.Quantile(tensor.FromSlice([]bool{true, false}, []int{2}), 0.5, "hazen"), []string{"hazen", "bool"}},
	} {
		err := c.t.Err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", c.name, err, w)
			}
		}
	}
}
