package phobos_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// The complex suite: complex64 and complex128 against NumPy 1.24 — casts to
// and from every dtype, the promotion of every dtype with both complex
// types and of Python complex scalars by value, arithmetic with NumPy's own
// division and integer powers, special values (nan and inf in either part,
// -0.0), lexicographic comparisons and maximum/minimum, the complex ufuncs
// (libm-backed ones within a stated tolerance), real/imag/conj/angle/abs,
// the refusals NumPy also makes, reductions, cumulative sums, matmul and the
// ops that only move elements — all under every chunking.

var (
	dC64  = ndarray.Complex64
	dC128 = ndarray.Complex128
)

// npC is a complex array of dt whose parts are quarters in [-5, 5] (exact
// in binary, zeros and ties included).
func npC(dt ndarray.DType, seed uint64, shape ...int) *ndarray.Array {
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		panic(err)
	}
	r := npLCG(seed*0x9E3779B97F4A7C15 + 4242)
	for i := range a.Size() {
		re := float64(int(r.next()%41)-20) / 4
		im := float64(int(r.next()%41)-20) / 4
		a.SetComplexFlat(i, complex(re, im))
	}
	return a
}

// npCRough is npC with parts that do not round exactly, in about [-2, 2].
func npCRough(dt ndarray.DType, seed uint64, shape ...int) *ndarray.Array {
	a, err := ndarray.New(dt, shape...)
	if err != nil {
		panic(err)
	}
	r := npLCG(seed*0x9E3779B97F4A7C15 + 999)
	for i := range a.Size() {
		re := (float64(r.next()%40001) - 20000) / 9973
		im := (float64(r.next()%40001) - 20000) / 9973
		a.SetComplexFlat(i, complex(re, im))
	}
	return a
}

// npCSpecial is a complex array whose elements pair every special part
// (nan, +inf, -inf, 0, -0.0, 1, -2.5) with every other, then ordinary
// quarters.
func npCSpecial(dt ndarray.DType, seed uint64, n int) *ndarray.Array {
	sp := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -2.5}
	a, err := ndarray.New(dt, n)
	if err != nil {
		panic(err)
	}
	r := npLCG(seed*0x9E3779B97F4A7C15 + 31337)
	for i := range n {
		var v complex128
		if i < len(sp)*len(sp) {
			v = complex(sp[i/len(sp)], sp[i%len(sp)])
		} else {
			v = complex(float64(int(r.next()%41)-20)/4, float64(int(r.next()%41)-20)/4)
		}
		a.SetComplexFlat(i, v)
	}
	return a
}

func complexCases() []npCase {
	one := npOne
	many := npMany
	u := func(n string, x ...any) *tensor.Tensor { return tensor.Ufunc(n, x...) }
	var cs []npCase
	for _, dt := range []ndarray.DType{dC64, dC128} {
		name := dt.String()
		np := "np." + name
		a := npC(dt, uint64(dt)*3+1, 5, 7)
		b := npC(dt, uint64(dt)*3+2, 5, 7)
		row := npC(dt, uint64(dt)*3+5, 7)
		rough := npCRough(dt, uint64(dt)*3+7, 5, 7)
		sp := npCSpecial(dt, uint64(dt)*3+11, 55)
		sp2 := npCSpecial(dt, uint64(dt)*3+13, 55)
		// sp2 reversed pairs specials with different specials.
		spr, err := sp2.Flip(0)
		if err != nil {
			panic(err)
		}
		spr = spr.Copy()
		v := npC(dt, uint64(dt)*3+17, 41)
		libm := func(c npCase) npCase {
			if dt == dC64 {
				return c.tol(1e-5, 1e-6, "Go's math/cmplx in float64 rounded once against glibc's float32 c* functions")
			}
			return c.tol(1e-12, 1e-14, "Go's math/cmplx against glibc's c* functions: a few ulps, and parts that cancel to ~1e-16")
		}
		cs = append(cs,
			one("zeros "+name, fmt.Sprintf("np.zeros((5, 7), %s)", np), nil, func(e *npEnv) *tensor.Tensor {
				return tensor.Zeros([]int{5, 7}, e.chunks(5, 7), tensor.WithDType(dt))
			}),
			one("full "+name, fmt.Sprintf("np.full((4, 6), 2.5, %s)", np), nil, func(e *npEnv) *tensor.Tensor {
				return tensor.Full([]int{4, 6}, 2.5, e.chunks(4, 6), tensor.WithDType(dt))
			}),
			many(name+" astype every dtype", "tuple(a.astype(t) for t in "+npEveryDTypePy()+")", ins("a", sp), func(e *npEnv) []*tensor.Tensor {
				var out []*tensor.Tensor
				for _, d := range ndarray.DTypes() {
					out = append(out, e.v("a").Astype(d))
				}
				return out
			}),
			many(name+" astype of quarters", "tuple(a.astype(t) for t in "+npEveryDTypePy()+")", ins("a", a), func(e *npEnv) []*tensor.Tensor {
				var out []*tensor.Tensor
				for _, d := range ndarray.DTypes() {
					out = append(out, e.v("a").Astype(d))
				}
				return out
			}),
			many(name+" arithmetic", "(a + b, a - r, a * b, a / b, -a, +a, a * a * a, np.square(a), np.reciprocal(b), a / 4)",
				ins("a", a, "b", b, "r", row), func(e *npEnv) []*tensor.Tensor {
					a, b, r := e.v("a"), e.v("b"), e.v("r")
					return tt(a.Add(b), a.Sub(r), a.Mul(b), tensor.Div(a, b), a.Neg(), u("positive", a), a.Mul(a).Mul(a),
						a.Square(), tensor.Reciprocal(b), tensor.Div(a, 4))
				}),
			many(name+" integer powers", "(a ** 2, a ** 3, a ** 0, a ** 1, a ** -1, a ** -3, a ** 7, b ** a.real.astype(np.int64))",
				ins("a", a, "b", b), func(e *npEnv) []*tensor.Tensor {
					a, b := e.v("a"), e.v("b")
					return tt(a.Pow(2), a.Pow(3), a.Pow(0), a.Pow(1), a.Pow(-1), a.Pow(-3), a.Pow(7), b.Pow(a.Real().Astype(ndarray.Int64)))
				}),
			libm(many(name+" complex powers", "(a ** b, r ** 0.5, r ** (1 + 1j), np.float_power(r, b))",
				ins("a", a, "b", b, "r", rough), func(e *npEnv) []*tensor.Tensor {
					a, b, r := e.v("a"), e.v("b"), e.v("r")
					return tt(a.Pow(b), r.Pow(0.5), r.Pow(complex(1, 1)), u("float_power", r, b))
				})),
			many(name+" specials arithmetic", "(s + t, s - t, s * t, s / t, t / s, s * 2, -s, s / 0j, s ** 2, np.reciprocal(s))",
				ins("s", sp, "t", spr), func(e *npEnv) []*tensor.Tensor {
					s, t := e.v("s"), e.v("t")
					return tt(s.Add(t), s.Sub(t), s.Mul(t), tensor.Div(s, t), tensor.Div(t, s), s.Mul(2), s.Neg(),
						tensor.Div(s, complex(0, 0)), s.Pow(2), tensor.Reciprocal(s))
				}),
			many(name+" comparisons", "(s < t, s <= t, s > t, s >= t, s == t, s != t, s == s, a < b, a >= r)",
				ins("s", sp, "t", spr, "a", a, "b", b, "r", row), func(e *npEnv) []*tensor.Tensor {
					s, t, a, b, r := e.v("s"), e.v("t"), e.v("a"), e.v("b"), e.v("r")
					return tt(s.Less(t), s.LessEqual(t), s.Greater(t), s.GreaterEqual(t), s.Equal(t), s.NotEqual(t), s.Equal(s),
						a.Less(b), a.GreaterEqual(r))
				}),
			many(name+" maximum minimum fmax fmin", "(np.maximum(s, t), np.minimum(s, t), np.fmax(s, t), np.fmin(t, s), np.maximum(a, r))",
				ins("s", sp, "t", spr, "a", a, "r", row), func(e *npEnv) []*tensor.Tensor {
					s, t := e.v("s"), e.v("t")
					return tt(s.Maximum(t), s.Minimum(t), u("fmax", s, t), u("fmin", t, s), e.v("a").Maximum(e.v("r")))
				}),
			many(name+" predicates and sign", "(np.isnan(s), np.isinf(s), np.isfinite(s), np.logical_not(s), np.sign(s), np.sign(a), np.logical_and(s, a[0, :5].repeat(11)), np.logical_xor(s, t), np.logical_or(s, 0))",
				ins("s", sp, "t", spr, "a", a), func(e *npEnv) []*tensor.Tensor {
					s, t, a := e.v("s"), e.v("t"), e.v("a")
					rep := a.Index(tensor.At(0), tensor.Range(0, 5)).Repeat(11)
					return tt(s.IsNaN(), u("isinf", s), s.IsFinite(), s.Not(), s.Sign(), a.Sign(), s.And(rep), s.Xor(t), s.Or(0))
				}),
			many(name+" real imag conj angle abs", "(np.real(s), np.imag(s), np.conj(s), np.conjugate(a), np.angle(s), np.angle(a, deg=True), np.abs(s), np.abs(r), s.real, s.imag)",
				ins("s", sp, "a", a, "r", rough), func(e *npEnv) []*tensor.Tensor {
					s, a := e.v("s"), e.v("a")
					return tt(tensor.Real(s), tensor.Imag(s), tensor.Conj(s), u("conjugate", a), tensor.Angle(s, false), tensor.Angle(a, true),
						tensor.Abs(s), e.v("r").Abs(), s.Real(), s.Imag())
				}),
			libm(many(name+" exp log sqrt", "(np.exp(r), np.log(r), np.sqrt(r), np.sqrt(a), np.exp2(r), np.expm1(r), np.log1p(r), np.log2(r), np.log10(r))",
				ins("r", rough, "a", a), func(e *npEnv) []*tensor.Tensor {
					r := e.v("r")
					return tt(r.Exp(), r.Log(), r.Sqrt(), e.v("a").Sqrt(), tensor.Exp2(r), tensor.Expm1(r), r.Log1p(), tensor.Log2(r), tensor.Log10(r))
				})),
			libm(many(name+" trigonometric and hyperbolic", "(np.sin(r), np.cos(r), np.tan(r), np.sinh(r), np.cosh(r), np.tanh(r), np.arcsin(r), np.arccos(r), np.arctan(r), np.arcsinh(r), np.arccosh(r), np.arctanh(r))",
				ins("r", rough), func(e *npEnv) []*tensor.Tensor {
					r := e.v("r")
					return tt(r.Sin(), r.Cos(), r.Tan(), tensor.Sinh(r), tensor.Cosh(r), r.Tanh(), tensor.ArcSin(r), tensor.ArcCos(r),
						tensor.ArcTan(r), tensor.ArcSinh(r), tensor.ArcCosh(r), tensor.ArcTanh(r))
				})),
			// Special values in every pairing. sin, cos, sinh, cosh, arcsin,
			// arccos and arcsinh differ from glibc only in the sign of an
			// infinite or zero part beside a NaN (C99 leaves it open), so
			// they are checked on finite values above.
			libm(many(name+" ufuncs of specials", "(np.exp(s), np.log(s), np.sqrt(s), np.abs(s), np.angle(s), np.tan(s), np.tanh(s), np.arctan(s), np.arctanh(s), np.arccosh(s), np.expm1(s), np.log1p(s), np.exp2(s), np.log10(s))",
				ins("s", sp), func(e *npEnv) []*tensor.Tensor {
					s := e.v("s")
					return tt(s.Exp(), s.Log(), s.Sqrt(), s.Abs(), tensor.Angle(s, false), s.Tan(), s.Tanh(), tensor.ArcTan(s), tensor.ArcTanh(s),
						tensor.ArcCosh(s), tensor.Expm1(s), s.Log1p(), tensor.Exp2(s), tensor.Log10(s))
				})),
			many(name+" rint round nan_to_num", "(np.rint(r * 2), np.round(a / 2), np.nan_to_num(s))",
				ins("r", rough, "a", a, "s", sp), func(e *npEnv) []*tensor.Tensor {
					return tt(tensor.Rint(e.v("r").Mul(2)), tensor.Div(e.v("a"), 2).Round(), u("nan_to_num", e.v("s")))
				}),
			many(name+" where clip", "(np.where(a.real > b.real, a, b), np.where(a.real > 0, a, 0), np.clip(a, b, r))",
				ins("a", a, "b", b, "r", row), func(e *npEnv) []*tensor.Tensor {
					a, b := e.v("a"), e.v("b")
					return tt(tensor.Where(a.Real().Greater(b.Real()), a, b), tensor.Where(a.Real().Greater(0), a, 0), tensor.Clip(a, b, e.v("r")))
				}),
		)
		// Ufuncs NumPy has no complex loop for: Phobos refuses them too.
		for _, f := range []string{"floor", "ceil", "trunc", "cbrt", "fabs", "spacing", "signbit", "deg2rad", "isneginf", "invert"} {
			cs = append(cs, one(name+" "+f+" refused", "np."+f+"(a)", ins("a", a), func(e *npEnv) *tensor.Tensor { return u(f, e.v("a")) }).fails())
		}
		for _, f := range []string{"floor_divide", "remainder", "fmod", "arctan2", "hypot", "logaddexp", "copysign", "heaviside", "nextafter", "bitwise_and", "gcd"} {
			cs = append(cs, one(name+" "+f+" refused", "np."+f+"(a, b)", ins("a", a, "b", b), func(e *npEnv) *tensor.Tensor { return u(f, e.v("a"), e.v("b")) }).fails())
		}
		idx := npI(ndarray.Int64, uint64(dt)+21, -7, 6, 9)
		mrow := npB(uint64(dt)+23, 5)
		cs = append(cs,
			many(name+" reductions", "(a.sum(), a.sum(axis=0), a.prod(axis=1), (a / 4).prod(), a.max(), a.min(axis=1), s.max(), s.min(), np.nanmax(s), np.nanmin(s), np.nansum(s), np.nanprod(a / 4), np.nanmean(s), np.nancumsum(s), a.any(axis=0), a.all(), np.count_nonzero(s), np.count_nonzero(a, axis=1))",
				ins("a", a, "s", sp), func(e *npEnv) []*tensor.Tensor {
					a, s := e.v("a"), e.v("s")
					q := tensor.Div(a, 4)
					return tt(a.Sum(), a.Sum(tensor.Axis(0)), a.Prod(tensor.Axis(1)), q.Prod(), a.Max(), a.Min(tensor.Axis(1)), s.Max(), s.Min(),
						s.NanMax(), s.NanMin(), s.NanSum(), q.NanProd(), s.NanMean(), s.NanCumSum(0), a.Any(tensor.Axis(0)), a.All(), s.CountNonzero(), a.CountNonzero(tensor.Axis(1)))
				}),
			many(name+" mean var std", "(a.mean(), a.mean(axis=1), r.mean(axis=0), a.var(), r.var(axis=1), a.std(axis=0), r.std(ddof=1), a.var(axis=(0, 1), keepdims=True))",
				ins("a", a, "r", rough), func(e *npEnv) []*tensor.Tensor {
					a, r := e.v("a"), e.v("r")
					return tt(a.Mean(), a.Mean(tensor.Axis(1)), r.Mean(tensor.Axis(0)), a.Var(), r.Var(tensor.Axis(1)), a.Std(tensor.Axis(0)),
						r.Std(tensor.DDof(1)), a.Var(tensor.Axis(0, 1), tensor.KeepDims()))
				}).tol(map[ndarray.DType]float64{dC64: 1e-5, dC128: 1e-12}[dt], 1e-12, "sums in another order (pairwise per part against chunk partials)"),
			many(name+" cumsum cumprod", "(np.cumsum(a, axis=1), np.cumsum(a, axis=0), np.cumprod(a / 4, axis=0), np.cumprod(a / 4, axis=1), np.cumsum(s))",
				ins("a", a, "s", sp), func(e *npEnv) []*tensor.Tensor {
					a := e.v("a")
					q := tensor.Div(a, 4)
					return tt(a.CumSum(1), a.CumSum(0), q.CumProd(0), q.CumProd(1), e.v("s").CumSum(0))
				}),
			many(name+" matmul", "(a @ b.T, a.T @ a, a @ v, a @ x.T, x.T @ a)", ins("a", a, "b", b, "v", row, "x", npQ(dF64, uint64(dt)+29, 5, 7)),
				func(e *npEnv) []*tensor.Tensor {
					a, b, x := e.v("a"), e.v("b"), e.v("x")
					return tt(a.MatMul(b.Transpose()), a.Transpose().MatMul(a), a.MatMul(e.v("v")), a.MatMul(x.Transpose()), x.Transpose().MatMul(a))
				}),
			many(name+" moving elements", "(a.reshape(7, 5), a.T, a[1:4, ::-2], np.concatenate([a, b], axis=1), np.concatenate([a, a.real], axis=0), np.take(v, i), a[m], a[a.real > 0], np.repeat(a, 2, axis=0), np.tril(a), np.diagonal(a), a[:, ::-1], np.argwhere(a), np.stack([a, b]))",
				ins("a", a, "b", b, "v", v, "i", idx, "m", mrow), func(e *npEnv) []*tensor.Tensor {
					a, b := e.v("a"), e.v("b")
					return tt(a.Reshape(7, 5), a.Transpose(), a.Index(tensor.Range(1, 4), tensor.All().Step(-2)), tensor.Concatenate(1, a, b),
						tensor.Concatenate(0, a, a.Real()), tensor.Take(e.v("v"), e.v("i")), a.Index(tensor.Mask(e.v("m"))),
						a.Index(tensor.Mask(a.Real().Greater(0))), a.Repeat(2, 0), a.Tril(0), a.Diagonal(0, 0, 1), a.Flip(1), tensor.ArgWhere(a), tensor.Stack(0, a, b))
				}),
			many(name+" sort", "(np.sort(s), np.sort(a, axis=0), np.sort(a, axis=1), np.sort(v))", ins("s", sp, "a", a, "v", v),
				func(e *npEnv) []*tensor.Tensor {
					a := e.v("a")
					return tt(e.v("s").Sort(0), a.Sort(0), a.Sort(1), e.v("v").Sort(0))
				}),
			one(name+" unique", "np.unique(np.round(v / 4))", ins("v", v), func(e *npEnv) *tensor.Tensor {
				return tensor.Unique(tensor.Div(e.v("v"), 4).Round())
			}),
			one(name+" unique of specials", "np.unique(s)", ins("s", sp), func(e *npEnv) *tensor.Tensor { return tensor.Unique(e.v("s")) }),
			one(name+" set rows by index", "(lambda c: [c.__setitem__((i,), 2j - 1), c][1])(a.copy())", ins("a", a, "i", npI(ndarray.Int64, uint64(dt)+31, -5, 4, 3)),
				func(e *npEnv) *tensor.Tensor {
					return e.v("a").Set([]tensor.Idx{tensor.Array(e.v("i"))}, complex(-1, 2))
				}),
			one(name+" set with a mask", "np.where(a.real > 0, 1j, a)", ins("a", a), func(e *npEnv) *tensor.Tensor {
				a := e.v("a")
				return a.Set([]tensor.Idx{tensor.Mask(a.Real().Greater(0))}, complex(0, 1))
			}),
		)
		// Python scalars by value: float and complex scalars meet complex
		// arrays by value (1e300j widens complex64), ints widen by size.
		for _, s := range []struct {
			py  string
			go_ any
		}{{"1j", complex(0, 1)}, {"(2.5-1.5j)", complex(2.5, -1.5)}, {"1e300j", complex(0, 1e300)}, {"2.5", 2.5}, {"1e40", 1e40}, {"3", 3}, {"2**40", int64(1) << 40}, {"True", true}} {
			sc := s.go_
			cs = append(cs, one(fmt.Sprintf("%s + scalar %s", name, s.py), "a + "+s.py, ins("a", a), func(e *npEnv) *tensor.Tensor {
				return e.v("a").Add(sc)
			}))
		}
	}
	// Python complex scalars meeting real arrays: complex128 for bool and
	// integers, complex64 for float16/float32 when the value fits.
	for _, d := range dtypesReal() {
		x := npSmallInts(d, uint64(d)*5+3, -5, 9, 5, 7)
		if d == ndarray.Bool {
			x = npSmallInts(d, 5, 0, 1, 5, 7)
		}
		parts := many(fmt.Sprintf("%v real imag conj angle", d), "(np.conjugate(x), np.real(x), np.imag(x), np.angle(x), np.angle(x, deg=True), np.abs(x))", ins("x", x),
			func(e *npEnv) []*tensor.Tensor {
				x := e.v("x")
				return tt(tensor.Conj(x), tensor.Real(x), tensor.Imag(x), tensor.Angle(x, false), tensor.Angle(x, true), tensor.Abs(x))
			})
		if d.Size() == 1 && d != ndarray.Bool {
			parts = parts.tol(1e-3, 0, "angle of 8-bit integers is float16, computed in float32 and rounded once")
		}
		cs = append(cs, parts)
		cs = append(cs, many(fmt.Sprintf("%v with Python complex", d), "(x + 1j, (1.5-2j) * x, x / 1e300j)", ins("x", x), func(e *npEnv) []*tensor.Tensor {
			x := e.v("x")
			return tt(x.Add(complex(0, 1)), tensor.Mul(complex(1.5, -2), x), tensor.Div(x, complex(0, 1e300)))
		}))
	}
	// Every dtype with both complex types, both ways.
	for _, dc := range []ndarray.DType{dC64, dC128} {
		for _, d := range ndarray.DTypes() {
			x := npSmallInts(d, uint64(d)*7+1, -5, 9, 5, 7)
			if d == ndarray.Bool {
				x = npSmallInts(d, 5, 0, 1, 5, 7)
			}
			if d.IsComplex() {
				x = npC(d, uint64(d)*7+1, 5, 7)
			}
			c := npC(dc, uint64(dc)*11+3, 7)
			cs = append(cs, many(fmt.Sprintf("promote %v and %v", d, dc), "(x * c, c - x, x == c, np.maximum(c, x), x / c)", ins("x", x, "c", c),
				func(e *npEnv) []*tensor.Tensor {
					x, c := e.v("x"), e.v("c")
					return tt(x.Mul(c), c.Sub(x), x.Equal(c), c.Maximum(x), tensor.Div(x, c))
				}).with(npChunk1, npChunkIrr))
		}
	}
	return cs
}

// npEveryDTypePy is the Python tuple of every Phobos dtype, complex ones
// included, in DTypes order.
func npEveryDTypePy() string {
	s := "("
	for _, d := range ndarray.DTypes() {
		s += npDTypeName(d) + ", "
	}
	return s + ")"
}

// TestComplexNumpyDifferential runs the complex suite under every
// chunking, with fusion on and off and on two workers.
func TestComplexNumpyDifferential(t *testing.T) {
	npSuite(t, "complex", complexCases(), npChunkAll, npSuiteModes)
}

// Complex elementwise chains, with Real/Imag/Abs/Angle and a trailing
// reduction, fuse into kernels and give bit-identical results fused and
// unfused.
func TestComplexFusion(t *testing.T) {
	fused, err := phobos.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer fused.Close()
	plain, err := phobos.NewSession(phobos.WithFusion(false))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	ctx := context.Background()
	for _, dt := range []ndarray.DType{dC64, dC128} {
		a := npCRough(dt, 71, 40, 30)
		build := func() []*tensor.Tensor {
			x := tensor.FromArray(a, tensor.Chunks(16, 7))
			y := x.Mul(x.Conj()).Add(complex(1, -2)).Sqrt()
			return tt(tensor.Real(y).Add(tensor.Imag(y)), y.Abs().Sum(tensor.Axis(1)), tensor.Angle(y.Exp(), true).Mul(2), y.Sum())
		}
		plan, err := fused.Explain(build()...)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Passes[len(plan.Passes)-1].FusedGroups == 0 {
			t.Errorf("%v: nothing fused", dt)
		}
		got, err := fused.Execute(ctx, build()...)
		if err != nil {
			t.Fatalf("%v fused: %v", dt, err)
		}
		want, err := plain.Execute(ctx, build()...)
		if err != nil {
			t.Fatalf("%v unfused: %v", dt, err)
		}
		for i := range got {
			if !bytes.Equal(got[i].Bytes(), want[i].Bytes()) {
				t.Errorf("%v result %d: fused %v, unfused %v", dt, i, got[i], want[i])
			}
		}
	}
}
