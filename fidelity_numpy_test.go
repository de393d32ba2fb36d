package phobos_test

import (
	"math"
	"testing"

	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Regression cases of the random-program differential pass (issue 35):
// each is one of the programs it found wrong, as NumPy 1.24 computes it,
// under every chunking, fused, unfused and on two workers.

func fidArr(a *ndarray.Array, err error) *ndarray.Array {
	if err != nil {
		panic(err)
	}
	return a
}

func fidelityCases() []npCase {
	type E = npEnv
	type T = tensor.Tensor
	negZero := math.Copysign(0, -1)
	sorted := fidArr(ndarray.FromFloat64s([]int{7}, []float64{-2, -1, negZero, 0, negZero, 0, 1}))
	probes := fidArr(ndarray.FromFloat64s([]int{5}, []float64{0, negZero, 0.5, -1, 2}))
	sorted32 := sorted.Astype(ndarray.Float32)
	probes32 := probes.Astype(ndarray.Float32)
	hugeIm := fidArr(ndarray.FromComplex128s([]int{6}, []complex128{
		complex(0, 1e300), complex(0, -1e300), complex(negZero, 800), complex(1, 711), complex(-2, -1e10), complex(3, 709.5)}))
	near142 := fidArr(ndarray.FromComplex128s([]int{6}, []complex128{
		complex(1e142, 1e142), complex(-1e142, 3), complex(1e300, 0), complex(2e154, -1e150), complex(0, 354), complex(-1e38, -1e-300)}))
	tanBig := fidArr(ndarray.FromComplex128s([]int{6}, []complex128{
		complex(1.5, 0.5), complex(1.57, 20), complex(3, 50), complex(1, 400), complex(0.5, -1e30), complex(-2, 3e38)})).Astype(ndarray.Complex64)
	x57 := npQ(dF64, 351, 5, 7)
	e0 := fidArr(ndarray.FromInt64s([]int{}, []int64{3}))
	e032 := fidArr(ndarray.FromInt32s([]int{}, []int32{-2}))
	vZero := fidArr(ndarray.FromInt64s([]int{5}, []int64{3, 0, -2, 7, 1}))
	empty30 := npQ(dF64, 352, 3, 0)
	empty03 := npQ(dF64, 353, 0, 3)
	m43 := npQ(dF64, 354, 4, 3)
	idx02 := fidArr(ndarray.FromInt64s([]int{2}, []int64{0, -1}))
	idxNone := fidArr(ndarray.FromInt64s([]int{0}, nil))
	emptyCol := npQ(dF64, 355, 0, 1)
	bools := npB(356, 5, 7)
	halfs := fidArr(ndarray.FromFloat64s([]int{7}, []float64{1, 3, 2, 5, -0.5, 7, 2.5})).Astype(ndarray.Float16)
	halfSpecial := fidArr(ndarray.FromFloat64s([]int{6}, []float64{1, math.NaN(), math.Inf(1), math.Inf(-1), -0.25, 65504})).Astype(ndarray.Float16)
	cs := []npCase{
		npOne("searchsorted zeros left", "np.searchsorted(a, v)", ins("a", sorted, "v", probes),
			func(e *E) *T { return tensor.SearchSorted(e.v("a"), e.v("v"), "left") }),
		npOne("searchsorted zeros right", "np.searchsorted(a, v, side='right')", ins("a", sorted, "v", probes),
			func(e *E) *T { return tensor.SearchSorted(e.v("a"), e.v("v"), "right") }),
		npOne("searchsorted zeros float32", "np.searchsorted(a, v)", ins("a", sorted32, "v", probes32),
			func(e *E) *T { return tensor.SearchSorted(e.v("a"), e.v("v"), "left") }),
		npOne("sin of a huge imaginary part", "np.sin(z)", ins("z", hugeIm), func(e *E) *T { return e.v("z").Sin() }),
		npOne("cos of a huge imaginary part", "np.cos(z)", ins("z", hugeIm), func(e *E) *T { return e.v("z").Cos() }),
		npOne("sinh of i times a huge part", "np.sinh(1j * z)", ins("z", hugeIm), func(e *E) *T { return tensor.Ufunc("sinh", e.v("z").Mul(complex(0, 1))) }),
		npOne("arccosh near 1e142", "np.arccosh(z)", ins("z", near142), func(e *E) *T { return tensor.Ufunc("arccosh", e.v("z")) }),
		npOne("arcsinh near 1e142", "np.arcsinh(z)", ins("z", near142), func(e *E) *T { return tensor.Ufunc("arcsinh", e.v("z")) }),
		npOne("arccos near 1e142", "np.arccos(z)", ins("z", near142), func(e *E) *T { return tensor.Ufunc("arccos", e.v("z")) }),
		npOne("arctanh near 1e142", "np.arctanh(z)", ins("z", near142), func(e *E) *T { return tensor.Ufunc("arctanh", e.v("z")) }),
		npOne("sinh(tan(z)) complex64", "np.sinh(np.tan(z))", ins("z", tanBig), func(e *E) *T { return tensor.Ufunc("sinh", e.v("z").Tan()) }),
		npOne("ldexp 0-d int64 exponent", "np.ldexp(x, e)", ins("x", x57, "e", e0), func(e *E) *T { return tensor.Ldexp(e.v("x"), e.v("e")) }),
		npOne("ldexp 0-d int32 exponent", "np.ldexp(x, e)", ins("x", x57, "e", e032), func(e *E) *T { return tensor.Ufunc("ldexp", e.v("x"), e.v("e")) }),
		npOne("norm -1 of ints with a zero", "np.linalg.norm(v, -1)", ins("v", vZero), func(e *E) *T { return linalg.Norm(e.v("v"), -1) }),
		npOne("norm -2 of ints with a zero", "np.linalg.norm(v, -2)", ins("v", vZero), func(e *E) *T { return linalg.Norm(e.v("v"), -2) }),
		npOne("sum of reciprocals with an infinity", "np.sum(1 / np.abs(v.astype(float)))", ins("v", vZero),
			func(e *E) *T { return e.v("v").Astype(dF64).Abs().Reciprocal().Sum() }),
		npOne("setitem rows of an empty axis", "(lambda t: (t.__setitem__(i, 1.5), t)[1])(x.copy())", ins("x", empty30, "i", idx02),
			func(e *E) *T { return e.v("x").Set(tensor.Ix(tensor.Array(e.v("i"))), 1.5) }).alsoWorkers(),
		npOne("setitem no rows of an empty axis", "(lambda t: (t.__setitem__(i, 1.5), t)[1])(x.copy())", ins("x", empty03, "i", idxNone),
			func(e *E) *T { return e.v("x").Set(tensor.Ix(tensor.Array(e.v("i"))), 1.5) }).alsoWorkers(),
		npOne("setitem an empty index", "(lambda t: (t.__setitem__(i, 1.5), t)[1])(x.copy())", ins("x", m43, "i", idxNone),
			func(e *E) *T { return e.v("x").Set(tensor.Ix(tensor.Array(e.v("i"))), 1.5) }).alsoWorkers(),
		npOne("clip with an empty bound", "np.clip(x.reshape(12), lo, 2.0)", ins("x", m43, "lo", emptyCol),
			func(e *E) *T { return tensor.Clip(e.v("x").Reshape(12), e.v("lo"), 2.0) }),
		npOne("median float16", "np.median(h)", ins("h", halfs), func(e *E) *T { return e.v("h").Median() }),
		npOne("median float16 even", "np.median(h[:6])", ins("h", halfs), func(e *E) *T { return e.v("h").Index(tensor.Range(0, 6)).Median() }),
		npOne("nan_to_num float16", "np.nan_to_num(h)", ins("h", halfSpecial), func(e *E) *T { return e.v("h").NanToNum() }),
		npOne("nanquantile empty axis", "np.nanquantile(x, 0.5, axis=1)", ins("x", empty30),
			func(e *E) *T { return tensor.NanQuantile(e.v("x"), 0.5, "", tensor.Axis(1)) }),
		npOne("nanquantile empty, several q", "np.nanquantile(x, [0.25, 0.5], axis=0)", ins("x", empty03),
			func(e *E) *T { return tensor.NanQuantile(e.v("x"), []float64{0.25, 0.5}, "", tensor.Axis(0)) }),
		npOne("nanpercentile empty keepdims", "np.nanpercentile(x, 50, axis=1, keepdims=True)", ins("x", empty30),
			func(e *E) *T { return tensor.NanPercentile(e.v("x"), 50.0, "", tensor.Axis(1), tensor.KeepDims()) }),
	}
	// Float ufuncs of bool give float16, as of int8 and uint8.
	for _, fn := range []string{"arctan", "sinh", "arccos", "floor", "ceil", "sqrt", "exp", "log1p", "cbrt", "rint", "trunc", "degrees"} {
		cs = append(cs, npOne(fn+" of bool", "np."+fn+"(b)", ins("b", bools), func(e *E) *T { return tensor.Ufunc(fn, e.v("b")) }))
	}
	for _, fn := range []string{"arctan2", "hypot", "logaddexp", "copysign"} {
		cs = append(cs, npOne(fn+" of two bools", "np."+fn+"(b, ~b)", ins("b", bools), func(e *E) *T { return tensor.Ufunc(fn, e.v("b"), e.v("b").Not()) }))
	}
	cs = append(cs, npOne("round of bool", "np.round(b)", ins("b", bools), func(e *E) *T { return tensor.Ufunc("round", e.v("b")) }))
	return append(cs, fuzzFoundCases()...)
}

// fuzzFoundCases are what the random-program test (fuzzprog_test.go)
// found next, each fixed.
func fuzzFoundCases() []npCase {
	type E = npEnv
	type T = tensor.Tensor
	cplx := fidArr(ndarray.FromComplex128s([]int{4}, []complex128{complex(3, 4), complex(0, -1), complex(-2, 0.5), 0}))
	cplx2 := fidArr(ndarray.FromComplex128s([]int{4}, []complex128{complex(1, 1), complex(2, -1), complex(0, 3), complex(-1, 0)}))
	i16 := npI(ndarray.Int16, 357, -9, 9, 6)
	s0 := fidArr(ndarray.FromInt64s([]int{}, []int64{3}))
	u8 := npI(ndarray.Uint8, 358, 0, 9, 5, 7)
	bools := npB(359, 5, 7)
	halfs := fidArr(ndarray.FromFloat64s([]int{6}, []float64{1, -0.5, 0, 65504, math.Inf(1), 2.5})).Astype(ndarray.Float16)
	bits := make([]byte, 2<<16)
	for i := range 1 << 16 {
		bits[2*i], bits[2*i+1] = byte(i), byte(i>>8)
	}
	everyHalf := fidArr(ndarray.FromBytes(ndarray.Float16, []int{1 << 16}, bits))
	halfData := fidArr(ndarray.FromFloat64s([]int{7}, []float64{1, 3, 2, 5, -0.5, 7, 2.5})).Astype(ndarray.Float16)
	emptyI8 := fidArr(ndarray.FromInt64s([]int{0, 3}, nil)).Astype(ndarray.Int8)
	x := npQ(dF64, 360, 9)
	noBins := fidArr(ndarray.FromFloat64s([]int{0}, nil))
	return []npCase{
		npOne("norm of complex", "np.linalg.norm(z)", ins("z", cplx), func(e *E) *T { return linalg.Norm(e.v("z"), nil) }),
		npOne("norm 1 of complex", "np.linalg.norm(z, 1)", ins("z", cplx), func(e *E) *T { return linalg.Norm(e.v("z"), 1) }),
		npOne("norm inf of complex", "np.linalg.norm(z, np.inf)", ins("z", cplx), func(e *E) *T { return linalg.Norm(e.v("z"), math.Inf(1)) }),
		npOne("vdot conjugates", "np.vdot(z, w)", ins("z", cplx, "w", cplx2), func(e *E) *T { return linalg.Vdot(e.v("z"), e.v("w")) }),
		npOne("inner of a 0-d int64", "np.inner(s, x)", ins("s", s0, "x", i16), func(e *E) *T { return linalg.Inner(e.v("s"), e.v("x")) }),
		npOne("dot with a 0-d int64", "np.dot(x, s)", ins("s", s0, "x", i16), func(e *E) *T { return tensor.Dot(e.v("x"), e.v("s")) }),
		npOne("pinv of an empty int8", "np.linalg.pinv(a)", ins("a", emptyI8), func(e *E) *T { return linalg.Pinv(e.v("a")) }),
		npOne("angle of bool", "np.angle(b)", ins("b", bools), func(e *E) *T { return tensor.Angle(e.v("b"), false) }),
		npOne("angle of bool in degrees", "np.angle(b, deg=True)", ins("b", bools), func(e *E) *T { return tensor.Angle(e.v("b"), true) }),
		npOne("spacing of every float16", "np.spacing(h)", ins("h", everyHalf), func(e *E) *T { return tensor.Ufunc("spacing", e.v("h")) }),
		npOne("nextafter of float16", "np.nextafter(h, h[::-1])", ins("h", halfs),
			func(e *E) *T { return tensor.Ufunc("nextafter", e.v("h"), e.v("h").Index(tensor.All().Step(-1))) }),
		npOne("copysign of uint8 and -2", "np.copysign(u, -2)", ins("u", u8), func(e *E) *T { return tensor.Ufunc("copysign", e.v("u"), -2) }),
		npOne("arctan2 of uint8 and 3", "np.arctan2(u, 3)", ins("u", u8), func(e *E) *T { return tensor.Ufunc("arctan2", e.v("u"), 3) }),
		npOne("copysign of bool and 4", "np.copysign(b, 4)", ins("b", bools), func(e *E) *T { return tensor.Ufunc("copysign", e.v("b"), 4) }),
		npOne("histogram edges of float16", "np.histogram_bin_edges(h, 3)", ins("h", halfData),
			func(e *E) *T { return tensor.HistogramBinEdges(e.v("h"), tensor.BinCount(3)) }),
		npOne("arange into int32 from a fractional start", "np.arange(-2.5, 1.5, 1.0, dtype=np.int32)", nil,
			func(e *E) *T { return tensor.Arange(-2.5, 1.5, 1.0, tensor.WithDType(ndarray.Int32), e.chunks(4)) }),
		npOne("arange into int8 with a fractional step", "np.arange(0.5, 6, 1.5, dtype=np.int8)", nil,
			func(e *E) *T { return tensor.Arange(0.5, 6, 1.5, tensor.WithDType(ndarray.Int8), e.chunks(4)) }),
		npOne("linspace of one sample into int64", "np.linspace(-0.5, -1.0, 1, dtype=np.int64)", nil,
			func(e *E) *T { return tensor.Linspace(-0.5, -1.0, 1, tensor.WithDType(ndarray.Int64), e.chunks(1)) }),
		npOne("digitize with no bins", "np.digitize(x, b)", ins("x", x, "b", noBins), func(e *E) *T { return tensor.Digitize(e.v("x"), e.v("b"), false) }),
	}
}

// Functions that need a length only data can give refuse a mask's
// selection when the tensor is built, not with a panic.
func TestUnknownLengthRefused(t *testing.T) {
	x := tensor.FromSlice([]float64{1, -2, 3, -4}, []int{4})
	sel := x.Index(tensor.Mask(x.Greater(0)))
	if sel.Err() != nil {
		t.Fatal(sel.Err())
	}
	for name, f := range map[string]func() *tensor.Tensor{
		"ediff1d":             func() *tensor.Tensor { return sel.Ediff1d(nil, nil) },
		"histogram":           func() *tensor.Tensor { h, _ := tensor.Histogram(sel, tensor.BinCount(2)); return h },
		"histogram_bin_edges": func() *tensor.Tensor { return tensor.HistogramBinEdges(sel, tensor.BinCount(2)) },
	} {
		if err := f().Err(); err == nil {
			t.Errorf("%s of a mask's selection: built, want an error", name)
		}
	}
}

func TestFidelityNumpyDifferential(t *testing.T) {
	npSuite(t, "fidelity", fidelityCases(), npChunkAll, npSuiteModes)
}
