package phobos_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// The statistics differential suite: NaN-aware reductions, ptp, average,
// cov, corrcoef, bincount, digitize and histogram against NumPy, on the
// inputs and chunkings of the main suite (numpy_diff_test.go), with NaN,
// ±Inf and all-NaN slices, under fusion on and off and on two workers.

// stNaNRows is x of shape with NaN, ±Inf sprinkled in, and the whole of
// row 1 and column 4 (when they exist) NaN: all-NaN slices along both axes.
func stNaNRows(dt ndarray.DType, seed uint64, shape ...int) *ndarray.Array {
	cols := shape[len(shape)-1]
	return npFill(dt, seed, shape, func(i int, r *npLCG) float64 {
		v := float64(int(r.next()%41)-20) / 4
		row, col := (i/cols)%shape[0], i%cols
		if len(shape) == 2 && (row == 1 || col == 4) {
			return math.NaN()
		}
		switch i % 13 {
		case 3, 8:
			return math.NaN()
		case 6:
			return math.Inf(1)
		case 11:
			return math.Inf(-1)
		}
		return v
	})
}

// stNaNSmall is npSmall with NaN in every fifth place (products stay small).
func stNaNSmall(dt ndarray.DType, seed uint64, shape ...int) *ndarray.Array {
	return npFill(dt, seed, shape, func(i int, r *npLCG) float64 {
		if i%5 == 2 {
			return math.NaN()
		}
		return float64(int(r.next()%13)-6) / 4
	})
}

func stAllNaN(shape ...int) *ndarray.Array {
	return npFill(ndarray.Float64, 0, shape, func(int, *npLCG) float64 { return math.NaN() })
}

func stFloat(vals ...float64) *ndarray.Array {
	a, err := ndarray.New(ndarray.Float64, len(vals))
	if err != nil {
		panic(err)
	}
	for i, v := range vals {
		a.SetFlat(i, v)
	}
	return a
}

type stRed struct {
	name string
	f    func(x *tensor.Tensor, opts ...tensor.ReduceOption) *tensor.Tensor
}

var stNanReds = []stRed{
	{"nansum", (*tensor.Tensor).NanSum},
	{"nanprod", (*tensor.Tensor).NanProd},
	{"nanmin", (*tensor.Tensor).NanMin},
	{"nanmax", (*tensor.Tensor).NanMax},
	{"nanmean", (*tensor.Tensor).NanMean},
	{"nanvar", (*tensor.Tensor).NanVar},
	{"nanstd", (*tensor.Tensor).NanStd},
}

func stCases() []npCase {
	var cs []npCase
	f64 := stNaNRows(ndarray.Float64, 1, 5, 7)
	f32 := stNaNRows(ndarray.Float32, 2, 5, 7)
	sm64 := stNaNSmall(ndarray.Float64, 3, 5, 7)
	sm32 := stNaNSmall(ndarray.Float32, 4, 5, 7)
	f3 := npSpecial(ndarray.Float64, 5, 3, 4, 5)
	r64 := npR(ndarray.Float64, 6, 6, 9)
	i64 := npI(ndarray.Int64, 7, -9, 9, 5, 7)
	i32 := npI(ndarray.Int32, 8, -9, 9, 5, 7)
	bl := npB(9, 5, 7)
	empty := npR(ndarray.Float64, 10, 0, 3)
	allNaN := stAllNaN(4, 3)

	// NaN-aware reductions over every dtype, axes and keepdims.
	type input struct {
		name string
		arr  *ndarray.Array
	}
	for _, r := range stNanReds {
		inputs := []input{{"f64", f64}, {"f32", f32}, {"i64", i64}, {"i32", i32}, {"bool", bl}, {"3d", f3}, {"allnan", allNaN}}
		if r.name == "nanprod" {
			inputs[0], inputs[1] = input{"f64", sm64}, input{"f32", sm32}
		}
		for _, in := range inputs {
			axes := []npAxes{npAx(false), npAx(false, 0), npAx(false, -1), npAx(true, 1)}
			if in.arr.NDim() == 3 {
				axes = []npAxes{npAx(false), npAx(false, 1), npAx(false, 0, 2), npAx(true, -1, 0)}
			}
			for _, ax := range axes {
				if in.name == "bool" && (r.name == "nanvar" || r.name == "nanstd") && ax.py == "" {
					continue // kept small: bool moments are covered along axes
				}
				args := ""
				if ax.py != "" {
					args = ", " + ax.py
				}
				f, opts := r.f, ax.opts
				c := npOne(fmt.Sprintf("%s %s %s", r.name, in.name, ax.py), fmt.Sprintf("np.%s(x%s)", r.name, args), ins("x", in.arr),
					func(e *npEnv) *tensor.Tensor { return f(e.v("x"), opts...) })
				if in.name == "f32" && (r.name == "nansum" || r.name == "nanmean" || r.name == "nanvar" || r.name == "nanstd") {
					c = c.tol(1e-5, 1e-5, "float32: NumPy sums in float32 pairwise, Phobos in float64 rounded once")
				}
				cs = append(cs, c)
			}
		}
	}
	for _, ddof := range []int{1, 3, 7} {
		d := ddof
		for _, fn := range []stRed{stNanReds[5], stNanReds[6]} {
			f := fn.f
			cs = append(cs,
				npOne(fmt.Sprintf("%s ddof=%d axis=0", fn.name, d), fmt.Sprintf("np.%s(x, axis=0, ddof=%d)", fn.name, d), ins("x", f64),
					func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(0), tensor.DDof(d)) }),
				npOne(fmt.Sprintf("%s ddof=%d axis=1", fn.name, d), fmt.Sprintf("np.%s(x, axis=1, ddof=%d)", fn.name, d), ins("x", f64),
					func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(1), tensor.DDof(d)) }))
		}
	}
	for _, r := range stNanReds {
		f := r.f
		cs = append(cs,
			npOne(r.name+" axis=()", fmt.Sprintf("np.%s(x, axis=())", r.name), ins("x", f64),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis()) }),
			npOne(r.name+" empty axis 1", fmt.Sprintf("np.%s(x, axis=1)", r.name), ins("x", empty),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(1)) }))
	}
	cs = append(cs,
		npOne("nanmin empty axis 0", "np.nanmin(x, axis=0)", ins("x", empty),
			func(e *npEnv) *tensor.Tensor { return e.v("x").NanMin(tensor.Axis(0)) }).fails(),
		npOne("nansum empty", "np.nansum(x)", ins("x", empty),
			func(e *npEnv) *tensor.Tensor { return e.v("x").NanSum() }),
		npOne("nanmean of elementwise", "np.nanmean(x * 2 + 1, axis=0)", ins("x", f64),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Mul(2).Add(1).NanMean(tensor.Axis(0)) }),
		npOne("nansum of elementwise", "np.nansum(np.sqrt(x), axis=1)", ins("x", r64),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Sqrt().NanSum(tensor.Axis(1)) }),
		npOne("nansum of elementwise all", "np.nansum(np.sqrt(x) * 2)", ins("x", r64),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Sqrt().Mul(2).NanSum() }),
		npOne("nansum of elementwise keepdims", "np.nansum(np.log(x), keepdims=True)", ins("x", f3),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Log().NanSum(tensor.KeepDims()) }),
		npOne("nanmax of elementwise", "np.nanmax(np.log(x))", ins("x", r64),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Log().NanMax() }),
		// moments over the numbers of fused elementwise ops: every axis,
		// leading axes (tiles of whole rows) and trailing ones (not fused)
		npOne("nanvar of elementwise", "np.nanvar(np.sqrt(x) * 3)", ins("x", r64),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Sqrt().Mul(3).NanVar() }),
		npOne("nanvar of elementwise axis 0", "np.nanvar(np.sqrt(x) * 3, axis=0, ddof=1)", ins("x", r64),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Sqrt().Mul(3).NanVar(tensor.Axis(0), tensor.DDof(1)) }),
		npOne("nanstd of elementwise axis 1", "np.nanstd(np.sqrt(x) + 1, axis=1)", ins("x", r64),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Sqrt().Add(1).NanStd(tensor.Axis(1)) }),
		npOne("nanstd of elementwise 3-D leading", "np.nanstd(x * 2, axis=(0, 1), keepdims=True)", ins("x", f3),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Mul(2).NanStd(tensor.Axis(0, 1), tensor.KeepDims()) }),
		npOne("nanvar of f32 elementwise", "np.nanvar(x - 1, axis=0)", ins("x", f32),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Sub(1).NanVar(tensor.Axis(0)) }).
			tol(1e-5, 1e-5, "float32: NumPy sums in float32 pairwise, Phobos in float64 rounded once"),
	)

	// nanargmin/nanargmax: flat and along axes; all-NaN slices fail.
	sp64, sp32 := npSpecial(ndarray.Float64, 11, 5, 7), npSpecial(ndarray.Float32, 12, 5, 7)
	ties := stFloat(math.NaN(), math.Inf(1), 2, math.Inf(1), math.NaN(), math.Inf(-1), -2, math.Inf(-1))
	for _, isMax := range []bool{false, true} {
		name, f := "nanargmin", (*tensor.Tensor).NanArgMin
		if isMax {
			name, f = "nanargmax", (*tensor.Tensor).NanArgMax
		}
		for _, in := range []input{{"f64", sp64}, {"f32", sp32}, {"i64", i64}, {"i32", i32}, {"bool", bl}, {"3d", f3}} {
			axes := []int{0, 1, -1}
			if in.arr.NDim() == 3 {
				axes = []int{0, 1, 2}
			}
			cs = append(cs, npOne(fmt.Sprintf("%s %s flat", name, in.name), fmt.Sprintf("np.%s(x)", name), ins("x", in.arr),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x")) }))
			for _, ax := range axes {
				cs = append(cs, npOne(fmt.Sprintf("%s %s axis=%d", name, in.name, ax), fmt.Sprintf("np.%s(x, axis=%d)", name, ax), ins("x", in.arr),
					func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(ax)) }))
			}
		}
		cs = append(cs,
			npOne(name+" keepdims", fmt.Sprintf("np.%s(x, axis=1, keepdims=True)", name), ins("x", sp64),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(1), tensor.KeepDims()) }),
			npOne(name+" NaN ties infinity", fmt.Sprintf("np.%s(x)", name), ins("x", ties),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x")) }),
			npOne(name+" flat with all-NaN rows", fmt.Sprintf("np.%s(x)", name), ins("x", f64),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x")) }),
			npOne(name+" all-NaN row", fmt.Sprintf("np.%s(x, axis=1)", name), ins("x", f64),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(1)) }).fails(),
			npOne(name+" all-NaN column", fmt.Sprintf("np.%s(x, axis=0)", name), ins("x", f64),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(0)) }).fails(),
			npOne(name+" all NaN", fmt.Sprintf("np.%s(x)", name), ins("x", allNaN),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x")) }).fails(),
			npOne(name+" empty", fmt.Sprintf("np.%s(x, axis=0)", name), ins("x", empty),
				func(e *npEnv) *tensor.Tensor { return f(e.v("x"), tensor.Axis(0)) }).fails(),
		)
	}

	// nancumsum, nancumprod.
	for _, in := range []input{{"f64", f64}, {"f32", f32}, {"i32", i32}, {"small", sm64}} {
		for _, ax := range []int{0, 1} {
			cs = append(cs,
				npOne(fmt.Sprintf("nancumsum %s axis=%d", in.name, ax), fmt.Sprintf("np.nancumsum(x, axis=%d)", ax), ins("x", in.arr),
					func(e *npEnv) *tensor.Tensor { return e.v("x").NanCumSum(ax) }),
				npOne(fmt.Sprintf("nancumprod %s axis=%d", in.name, ax), fmt.Sprintf("np.nancumprod(x, axis=%d)", ax), ins("x", sm64),
					func(e *npEnv) *tensor.Tensor { return e.v("x").NanCumProd(ax) }))
		}
		cs = append(cs, npOne("nancumsum flat "+in.name, "np.nancumsum(x)", ins("x", in.arr),
			func(e *npEnv) *tensor.Tensor { return e.v("x").Ravel().NanCumSum(0) }))
	}

	// ptp.
	for _, in := range []input{{"f64", sp64}, {"f32", sp32}, {"i64", i64}, {"i32", i32}, {"3d", f3}} {
		for _, ax := range []npAxes{npAx(false), npAx(false, 0), npAx(true, -1)} {
			args := ""
			if ax.py != "" {
				args = ", " + ax.py
			}
			opts := ax.opts
			cs = append(cs, npOne(fmt.Sprintf("ptp %s %s", in.name, ax.py), "np.ptp(x"+args+")", ins("x", in.arr),
				func(e *npEnv) *tensor.Tensor { return e.v("x").Ptp(opts...) }))
		}
	}

	// average.
	w64 := npPos(ndarray.Float64, 13, 6, 9)
	w1 := npPos(ndarray.Float64, 14, 9)
	w32 := npPos(ndarray.Float32, 15, 6, 9)
	ri := npI(ndarray.Int64, 16, -5, 9, 6, 9)
	wi := npI(ndarray.Int32, 17, 1, 4, 6, 9)
	r32 := npR(ndarray.Float32, 18, 6, 9)
	avg := func(name, expr string, in []npIn, w string, opts ...tensor.ReduceOption) npCase {
		return npMany(name, expr, in, func(e *npEnv) []*tensor.Tensor {
			var wt *tensor.Tensor
			if w != "" {
				wt = e.v(w)
			}
			a, s := tensor.Average(e.v("x"), wt, opts...)
			return []*tensor.Tensor{a, s}
		})
	}
	cs = append(cs,
		avg("average plain", "np.average(x, returned=True)", ins("x", r64), ""),
		avg("average plain axis", "np.average(x, axis=1, returned=True)", ins("x", r64), "", tensor.Axis(1)),
		avg("average int", "np.average(x, axis=0, returned=True)", ins("x", ri), "", tensor.Axis(0)),
		avg("average weights", "np.average(x, weights=w, returned=True)", ins("x", r64, "w", w64), "w"),
		avg("average weights axis", "np.average(x, axis=0, weights=w, returned=True)", ins("x", r64, "w", w64), "w", tensor.Axis(0)),
		avg("average weights keepdims", "np.average(x, axis=1, weights=w, returned=True, keepdims=True)", ins("x", r64, "w", w64), "w", tensor.Axis(1), tensor.KeepDims()),
		avg("average 1-D weights", "np.average(x, axis=1, weights=w, returned=True)", ins("x", r64, "w", w1), "w", tensor.Axis(1)),
		avg("average 1-D weights axis -1", "np.average(x, axis=-1, weights=w, returned=True)", ins("x", r64, "w", w1), "w", tensor.Axis(-1)),
		avg("average int data int weights", "np.average(x, axis=1, weights=w, returned=True)", ins("x", ri, "w", wi), "w", tensor.Axis(1)),
		avg("average float32", "np.average(x, axis=0, weights=w, returned=True)", ins("x", r32, "w", w32), "w", tensor.Axis(0)).
			tol(1e-5, 1e-5, "float32: NumPy sums in float32 pairwise, Phobos in float64 rounded once"),
		avg("average NaN", "np.average(x, axis=0, weights=w, returned=True)", ins("x", sp64, "w", npPos(ndarray.Float64, 19, 5, 7)), "w", tensor.Axis(0)),
		avg("average 1-D weights no axis", "np.average(x, weights=w)", ins("x", r64, "w", w1), "w").fails(),
		avg("average 1-D weights wrong length", "np.average(x, axis=0, weights=w)", ins("x", r64, "w", w1), "w", tensor.Axis(0)).fails(),
	)

	// cov, corrcoef.
	obs := npR(ndarray.Float64, 20, 3, 11)
	obsT := npR(ndarray.Float64, 21, 11, 3)
	y := npR(ndarray.Float64, 22, 2, 11)
	v1 := npR(ndarray.Float64, 23, 11)
	o32 := npR(ndarray.Float32, 24, 3, 11)
	fw := npI(ndarray.Int64, 25, 0, 4, 11)
	aw := npPos(ndarray.Float64, 26, 11)
	covTol := func(c npCase) npCase {
		return c.tol(1e-10, 1e-12, "the products go through BLAS in both, in different orders")
	}
	cov := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		return covTol(npOne(name, expr, in, f))
	}
	cs = append(cs,
		cov("cov rows", "np.cov(m)", ins("m", obs), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m")) }),
		cov("cov rowvar=False", "np.cov(m, rowvar=False)", ins("m", obsT), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.ColVar()) }),
		cov("cov y", "np.cov(m, y)", ins("m", obs, "y", y), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.CovY(e.v("y"))) }),
		cov("cov 1-D", "np.cov(m)", ins("m", v1), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m")) }),
		cov("cov 1-D y", "np.cov(m, y)", ins("m", v1, "y", npR(ndarray.Float64, 27, 11)), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.CovY(e.v("y"))) }),
		cov("cov bias", "np.cov(m, bias=True)", ins("m", obs), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.Bias()) }),
		cov("cov ddof=3", "np.cov(m, ddof=3)", ins("m", obs), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.CovDDof(3)) }),
		cov("cov ddof=11", "np.cov(m, ddof=11)", ins("m", obs), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.CovDDof(11)) }),
		cov("cov fweights", "np.cov(m, fweights=f)", ins("m", obs, "f", fw), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.FWeights(e.v("f"))) }),
		cov("cov aweights", "np.cov(m, aweights=a)", ins("m", obs, "a", aw), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.AWeights(e.v("a"))) }),
		cov("cov both weights ddof", "np.cov(m, fweights=f, aweights=a, ddof=2)", ins("m", obs, "f", fw, "a", aw), func(e *npEnv) *tensor.Tensor {
			return tensor.Cov(e.v("m"), tensor.FWeights(e.v("f")), tensor.AWeights(e.v("a")), tensor.CovDDof(2))
		}),
		cov("cov both weights bias", "np.cov(m, fweights=f, aweights=a, bias=True)", ins("m", obs, "f", fw, "a", aw), func(e *npEnv) *tensor.Tensor {
			return tensor.Cov(e.v("m"), tensor.FWeights(e.v("f")), tensor.AWeights(e.v("a")), tensor.Bias())
		}),
		cov("cov int", "np.cov(m)", ins("m", npI(ndarray.Int32, 28, -9, 9, 4, 10)), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m")) }),
		cov("cov float32", "np.cov(m)", ins("m", o32), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m")) }),
		cov("cov NaN", "np.cov(m)", ins("m", sp64), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m")) }),
		cov("corrcoef rows", "np.corrcoef(m)", ins("m", obs), func(e *npEnv) *tensor.Tensor { return tensor.Corrcoef(e.v("m")) }),
		cov("corrcoef rowvar=False", "np.corrcoef(m, rowvar=False)", ins("m", obsT), func(e *npEnv) *tensor.Tensor { return tensor.Corrcoef(e.v("m"), tensor.ColVar()) }),
		cov("corrcoef y", "np.corrcoef(m, y)", ins("m", obs, "y", y), func(e *npEnv) *tensor.Tensor { return tensor.Corrcoef(e.v("m"), tensor.CovY(e.v("y"))) }),
		cov("corrcoef 1-D", "np.corrcoef(m)", ins("m", v1), func(e *npEnv) *tensor.Tensor { return tensor.Corrcoef(e.v("m")) }),
		cov("corrcoef constant row", "np.corrcoef(m)", ins("m", npFill(ndarray.Float64, 0, []int{2, 5}, func(i int, _ *npLCG) float64 {
			if i < 5 {
				return 3
			}
			return float64(i * i)
		})), func(e *npEnv) *tensor.Tensor { return tensor.Corrcoef(e.v("m")) }),
		npOne("cov 3-D", "np.cov(m)", ins("m", f3), func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m")) }).fails(),
		npOne("cov y wrong length", "np.cov(m, y)", ins("m", obs, "y", npR(ndarray.Float64, 29, 2, 10)),
			func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.CovY(e.v("y"))) }).fails(),
		npOne("cov fweights wrong length", "np.cov(m, fweights=f)", ins("m", obs, "f", npI(ndarray.Int64, 30, 0, 3, 10)),
			func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.FWeights(e.v("f"))) }).fails(),
		cov("cov integral float fweights", "np.cov(m, fweights=f)", ins("m", obs, "f", npI(ndarray.Float64, 31, 0, 3, 11)),
			func(e *npEnv) *tensor.Tensor { return tensor.Cov(e.v("m"), tensor.FWeights(e.v("f"))) }),
	)

	// bincount.
	bx := npI(ndarray.Int64, 32, 0, 9, 40)
	bx32 := npI(ndarray.Int32, 33, 0, 6, 23)
	bw := npR(ndarray.Float64, 34, 40)
	neg := npI(ndarray.Int64, 35, -2, 5, 17)
	cs = append(cs,
		npOne("bincount", "np.bincount(x)", ins("x", bx), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 10) }),
		npOne("bincount minlength", "np.bincount(x, minlength=14)", ins("x", bx), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 14) }),
		npOne("bincount int32", "np.bincount(x)", ins("x", bx32), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 7) }),
		npOne("bincount bool", "np.bincount(x)", ins("x", npB(36, 19)), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 2) }),
		npOne("bincount weights", "np.bincount(x, weights=w)", ins("x", bx, "w", bw), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), e.v("w"), 10) }).
			tol(1e-12, 1e-12, "partial sums per chunk add in another order"),
		npOne("bincount int weights", "np.bincount(x, weights=w, minlength=12)", ins("x", bx32, "w", npI(ndarray.Int32, 37, -3, 3, 23)),
			func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), e.v("w"), 12) }),
		npOne("bincount empty", "np.bincount(x, minlength=3)", ins("x", npI(ndarray.Int64, 38, 0, 1, 0)), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 3) }),
		npOne("bincount negative", "np.bincount(x)", ins("x", neg), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 6) }).fails(),
		npOne("bincount float", "np.bincount(x)", ins("x", bw), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 6) }).fails(),
		npOne("bincount 2-D", "np.bincount(x)", ins("x", i64), func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), nil, 6) }).fails(),
		npOne("bincount weights wrong length", "np.bincount(x, weights=w)", ins("x", bx, "w", npR(ndarray.Float64, 39, 41)),
			func(e *npEnv) *tensor.Tensor { return tensor.Bincount(e.v("x"), e.v("w"), 10) }).fails(),
	)

	// digitize.
	inc := stFloat(-3, -1, 0, 0, 2.5, 4)
	dec := stFloat(4, 2.5, 0, 0, -1, -3)
	for _, right := range []bool{false, true} {
		rt := right
		py := ""
		if right {
			py = ", right=True"
		}
		for _, b := range []struct {
			name string
			arr  *ndarray.Array
		}{{"increasing", inc}, {"decreasing", dec}} {
			cs = append(cs,
				npOne(fmt.Sprintf("digitize %s right=%v", b.name, right), "np.digitize(x, b"+py+")", ins("x", sp64, "b", b.arr),
					func(e *npEnv) *tensor.Tensor { return tensor.Digitize(e.v("x"), e.v("b"), rt) }),
				npOne(fmt.Sprintf("digitize int %s right=%v", b.name, right), "np.digitize(x, b"+py+")", ins("x", i32, "b", b.arr),
					func(e *npEnv) *tensor.Tensor { return tensor.Digitize(e.v("x"), e.v("b"), rt) }),
			)
		}
	}
	cs = append(cs,
		npOne("digitize 3-D f32", "np.digitize(x, b)", ins("x", npSpecial(ndarray.Float32, 40, 3, 4, 5), "b", inc),
			func(e *npEnv) *tensor.Tensor { return tensor.Digitize(e.v("x"), e.v("b"), false) }),
		npOne("digitize constant bins", "np.digitize(x, b)", ins("x", sp64, "b", stFloat(1, 1, 1)),
			func(e *npEnv) *tensor.Tensor { return tensor.Digitize(e.v("x"), e.v("b"), false) }),
		npOne("digitize non-monotonic", "np.digitize(x, b)", ins("x", sp64, "b", stFloat(0, 2, 1)),
			func(e *npEnv) *tensor.Tensor { return tensor.Digitize(e.v("x"), e.v("b"), false) }).fails(),
	)

	// histogram and histogram_bin_edges.
	hx := npR(ndarray.Float64, 41, 57)
	hx2 := npR(ndarray.Float64, 42, 6, 9)
	hw := npPos(ndarray.Float64, 43, 57)
	hnan := npSpecial(ndarray.Float64, 44, 57)
	hi := npI(ndarray.Int64, 45, -7, 12, 50)
	hf32 := npR(ndarray.Float32, 46, 57)
	edges := stFloat(-3, -1, -0.5, 0, 1.5, 3)
	hist := func(name, expr string, in []npIn, bins func(e *npEnv) tensor.Bins, opts ...func(e *npEnv) tensor.HistOption) npCase {
		return npMany(name, expr, in, func(e *npEnv) []*tensor.Tensor {
			var o []tensor.HistOption
			for _, f := range opts {
				o = append(o, f(e))
			}
			h, ed := tensor.Histogram(e.v("x"), bins(e), o...)
			return []*tensor.Tensor{h, ed}
		})
	}
	count := func(n int) func(*npEnv) tensor.Bins { return func(*npEnv) tensor.Bins { return tensor.BinCount(n) } }
	rng := func(lo, hi float64) func(*npEnv) tensor.HistOption {
		return func(*npEnv) tensor.HistOption { return tensor.HistRange(lo, hi) }
	}
	wts := func(e *npEnv) tensor.HistOption { return tensor.HistWeights(e.v("w")) }
	dens := func(*npEnv) tensor.HistOption { return tensor.HistDensity() }
	byEdges := func(e *npEnv) tensor.Bins { return tensor.BinEdges(e.v("b")) }
	cs = append(cs,
		hist("histogram 10", "np.histogram(x)", ins("x", hx), count(10)),
		hist("histogram 7", "np.histogram(x, bins=7)", ins("x", hx), count(7)),
		hist("histogram 1", "np.histogram(x, bins=1)", ins("x", hx), count(1)),
		hist("histogram 2-D", "np.histogram(x, bins=5)", ins("x", hx2), count(5)),
		hist("histogram range", "np.histogram(x, bins=6, range=(-1, 2))", ins("x", hx), count(6), rng(-1, 2)),
		hist("histogram range wide", "np.histogram(x, bins=4, range=(-10, 10))", ins("x", hx), count(4), rng(-10, 10)),
		hist("histogram weights", "np.histogram(x, bins=8, weights=w)", ins("x", hx, "w", hw), count(8), wts),
		hist("histogram density", "np.histogram(x, bins=8, density=True)", ins("x", hx), count(8), dens),
		hist("histogram weights density", "np.histogram(x, bins=5, weights=w, density=True)", ins("x", hx, "w", hw), count(5), wts, dens),
		hist("histogram edges", "np.histogram(x, bins=b)", ins("x", hx, "b", edges), byEdges),
		hist("histogram edges weights", "np.histogram(x, bins=b, weights=w)", ins("x", hx, "w", hw, "b", edges), byEdges, wts).
			tol(1e-12, 1e-13, "NumPy differences cumulative sums of the weights for explicit edges"),
		hist("histogram edges density", "np.histogram(x, bins=b, density=True)", ins("x", hx, "b", edges), byEdges, dens),
		hist("histogram int", "np.histogram(x, bins=6)", ins("x", hi), count(6)),
		hist("histogram int int weights", "np.histogram(x, bins=4, weights=w)", ins("x", hi, "w", npI(ndarray.Int64, 47, 0, 5, 50)), count(4), wts),
		hist("histogram float32", "np.histogram(x, bins=9)", ins("x", hf32), count(9)),
		hist("histogram NaN with range", "np.histogram(x, bins=5, range=(-4, 4))", ins("x", hnan), count(5), rng(-4, 4)),
		hist("histogram constant", "np.histogram(x, bins=3)", ins("x", npFill(ndarray.Float64, 0, []int{9}, func(int, *npLCG) float64 { return 2 })), count(3)),
		hist("histogram empty", "np.histogram(x, bins=3)", ins("x", npR(ndarray.Float64, 48, 0)), count(3)),
		hist("histogram NaN no range", "np.histogram(x, bins=5)", ins("x", hnan), count(5)).fails(),
		hist("histogram edges not monotonic", "np.histogram(x, bins=b)", ins("x", hx, "b", stFloat(0, 2, 1)), byEdges).fails(),
		hist("histogram bad range", "np.histogram(x, bins=3, range=(2, 1))", ins("x", hx), count(3), rng(2, 1)).fails(),
		hist("histogram weights wrong shape", "np.histogram(x, bins=3, weights=w)", ins("x", hx, "w", npPos(ndarray.Float64, 49, 56)), count(3), wts).fails(),
		npOne("histogram_bin_edges", "np.histogram_bin_edges(x, bins=7, range=(-2, 5))", ins("x", hx),
			func(e *npEnv) *tensor.Tensor {
				return tensor.HistogramBinEdges(e.v("x"), tensor.BinCount(7), tensor.HistRange(-2, 5))
			}),
		npOne("histogram_bin_edges f32", "np.histogram_bin_edges(x, bins=4)", ins("x", hf32),
			func(e *npEnv) *tensor.Tensor { return tensor.HistogramBinEdges(e.v("x"), tensor.BinCount(4)) }),
	)
	for _, rule := range []string{"sqrt", "sturges", "rice", "scott", "doane", "fd", "auto"} {
		r := rule
		for _, in := range []struct {
			name string
			arr  *ndarray.Array
		}{{"f64", hx}, {"2-D", hx2}, {"int", hi}} {
			cs = append(cs, npOne(fmt.Sprintf("bin count %s %s", r, in.name), fmt.Sprintf("np.int64(len(np.histogram_bin_edges(x, bins=%q)) - 1)", r), ins("x", in.arr),
				func(e *npEnv) *tensor.Tensor { return tensor.HistogramBinCount(e.v("x"), r) }))
		}
		cs = append(cs, npOne(fmt.Sprintf("bin count %s range", r), fmt.Sprintf("np.int64(len(np.histogram_bin_edges(x, bins=%q, range=(-1, 2))) - 1)", r), ins("x", hx),
			func(e *npEnv) *tensor.Tensor { return tensor.HistogramBinCount(e.v("x"), r, tensor.HistRange(-1, 2)) }))
	}
	return cs
}

// TestStatsNumpyDifferential runs stCases under every chunking of the main
// suite, with fusion on and off and on two workers.
func TestStatsNumpyDifferential(t *testing.T) {
	npSuite(t, "stats", stCases(), npChunkAll, npSuiteModes)
}

// TestStatsErrors: each mistake is an error that names what is wrong.
func TestStatsErrors(t *testing.T) {
	sess, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	x2 := tensor.FromArray(npR(ndarray.Float64, 1, 4, 5), tensor.Chunks(2))
	ints := tensor.FromArray(npI(ndarray.Int64, 2, 0, 9, 20), tensor.Chunks(3))
	negs := tensor.FromArray(npI(ndarray.Int64, 3, -3, -1, 20), tensor.Chunks(3))
	allNaN := tensor.FromArray(stAllNaN(3, 4), tensor.Chunks(2))
	// build-time errors
	for _, c := range []struct {
		name string
		t    *tensor.Tensor
		want string
	}{
		{"bincount 2-D", tensor.Bincount(x2, nil, 5), "1-D"},
		{"bincount float", tensor.Bincount(tensor.FromArray(npR(ndarray.Float64, 4, 5)), nil, 5), "dtype float64"},
		{"bincount weights length", tensor.Bincount(ints, tensor.FromArray(npR(ndarray.Float64, 5, 19)), 10), "same length"},
		{"histogram weights shape", first2(tensor.Histogram(x2, tensor.BinCount(3), tensor.HistWeights(tensor.FromArray(npR(ndarray.Float64, 6, 5, 4))))), "same shape"},
		{"histogram rule", first2(tensor.Histogram(x2, tensor.BinRule("sturges"))), "HistogramBinCount"},
		{"histogram unknown rule", first2(tensor.Histogram(x2, tensor.BinRule("nope"))), "not a valid estimator"},
		{"histogram zero bins", first2(tensor.Histogram(x2, tensor.BinCount(0))), "must be positive"},
		{"histogram range", first2(tensor.Histogram(x2, tensor.BinCount(3), tensor.HistRange(1, 0))), "max must be larger"},
		{"histogram 2-D edges", first2(tensor.Histogram(x2, tensor.BinEdges(x2))), "must be 1d"},
		{"digitize 2-D bins", tensor.Digitize(ints, x2, false), "1-D"},
		{"average weights shape", first2(tensor.Average(x2, tensor.FromArray(npR(ndarray.Float64, 7, 4)), tensor.Axis(1))), "not compatible"},
		{"average no axis", first2(tensor.Average(x2, tensor.FromArray(npR(ndarray.Float64, 7, 5)))), "axis must be specified"},
		{"cov fweights length", tensor.Cov(x2, tensor.FWeights(tensor.FromArray(npI(ndarray.Int64, 8, 0, 3, 4)))), "incompatible numbers of samples"},
		{"nanargmin two axes", x2.NanArgMin(tensor.Axis(0, 1)), "one axis"},
	} {
		if c.t.Err() == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(c.t.Err().Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, c.t.Err(), c.want)
		}
	}
	// run-time errors: values only known when the graph runs
	var rangeErr *ops.BincountRangeError
	var nanErr *ndarray.AllNaNError
	for _, c := range []struct {
		name  string
		t     *tensor.Tensor
		want  string
		check func(error) bool
	}{
		{"bincount negative", tensor.Bincount(negs, nil, 5), "negative", func(err error) bool { return errors.As(err, &rangeErr) && rangeErr.Value < 0 }},
		{"bincount too short", tensor.Bincount(ints, nil, 5), "does not fit a result of length 5", func(err error) bool { return errors.As(err, &rangeErr) && rangeErr.Value >= 5 }},
		{"digitize not monotonic", tensor.Digitize(ints, tensor.FromArray(stFloat(0, 3, 1)), false), "monotonically", nil},
		{"histogram edges not monotonic", first2(tensor.Histogram(x2, tensor.BinEdges(tensor.FromArray(stFloat(0, 3, 1))))), "increase monotonically", nil},
		{"histogram NaN range", first2(tensor.Histogram(allNaN, tensor.BinCount(3))), "not finite", nil},
		{"nanargmax all-NaN", allNaN.NanArgMax(tensor.Axis(1)), "All-NaN slice", func(err error) bool { return errors.As(err, &nanErr) }},
	} {
		if c.t.Err() != nil {
			t.Errorf("%s: failed at build: %v", c.name, c.t.Err())
			continue
		}
		_, err := sess.Execute(ctx, c.t)
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: error %q does not say %q", c.name, err, c.want)
		case c.check != nil && !c.check(err):
			t.Errorf("%s: error %q is not of the typed error a caller branches on", c.name, err)
		}
	}
}

func first2(a, _ *tensor.Tensor) *tensor.Tensor { return a }
