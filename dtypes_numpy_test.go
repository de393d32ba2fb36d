package phobos_test

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// The dtypes suite: int8, int16, uint8, uint16, uint32 and uint64 against
// NumPy 1.24 — creation and casts (float edge values included), the
// promotion of every pair of dtypes and of Python scalars by value,
// arithmetic that wraps, division and remainder by zero, shifts past the
// bit width, bitwise ops, comparisons, reductions (sums of small integers
// widen to int64/uint64), cumsum, argmin/argmax, sort, argsort and unique.

var npIntDTypes = []ndarray.DType{ndarray.Int8, ndarray.Int16, ndarray.Uint8, ndarray.Uint16, ndarray.Uint32, ndarray.Uint64}

// npBits is an array of dt whose elements take every bit pattern at
// random, its first elements the type's extremes: 0, 1, the maximum, the
// minimum, -1 (the maximum for unsigned types) and the maximum - 1.
func npBits(dt ndarray.DType, seed uint64, shape ...int) *ndarray.Array {
	n, sz := ndarray.Size(shape), dt.Size()
	b := make([]byte, n*sz)
	r := npLCG(seed*0x9E3779B97F4A7C15 + 777)
	for i := range b {
		b[i] = byte(r.next())
	}
	top := uint64(1)<<(8*sz-1) - 1 // the signed maximum
	if dt.IsUnsigned() {
		top = top<<1 | 1
	}
	edges := []uint64{0, 1, top, top + 1, math.MaxUint64, top - 1}
	for i, v := range edges {
		if i >= n {
			break
		}
		for j := range sz {
			b[i*sz+j] = byte(v >> (8 * j))
		}
	}
	a, err := ndarray.FromBytes(dt, shape, b)
	if err != nil {
		panic(err)
	}
	return a
}

// npSmallInts is an array of dt with values in [lo, hi] (wrapped into dt).
func npSmallInts(dt ndarray.DType, seed uint64, lo, hi int, shape ...int) *ndarray.Array {
	return npI(ndarray.Int64, seed, lo, hi, shape...).Astype(dt)
}

func npDTypeName(dt ndarray.DType) string {
	if dt == ndarray.Bool {
		return "np.bool_"
	}
	return "np." + dt.String()
}

func dtypesCases() []npCase {
	one := npOne
	// many is a case whose builder dtypesBuild finds by its name.
	many := func(name, expr string, in []npIn) npCase { return npCase{name: name, expr: expr, inputs: in} }
	var cs []npCase
	// Float values every cast must agree on: NaN, infinities, negatives,
	// fractions, values beyond each type's range.
	edgeF := npFill(dF64, 0, []int{24}, func(i int, _ *npLCG) float64 {
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -1.5, 300.7, 70000.2, 5e9, -5e9, 1.9e19, 1e20, -1e20,
			0x1p63, 0x1p64, 127.9, -128.9, 255.5, 65535.9, -0.0, 0.5, 4294967295, 4294967296, 2147483648, -2147483649}[i]
	})
	for _, dt := range npIntDTypes {
		name, np := dt.String(), npDTypeName(dt)
		wd := tensor.WithDType(dt)
		bits := npBits(dt, uint64(dt)*101, 5, 7)
		bits2 := npBits(dt, uint64(dt)*103, 5, 7)
		row := npBits(dt, uint64(dt)*107, 7)
		small := npSmallInts(dt, uint64(dt)*109, -9, 9, 5, 7)
		divisor := npSmallInts(dt, uint64(dt)*113, -3, 3, 5, 7) // zeros included
		shifts := npSmallInts(dt, uint64(dt)*127, 0, 8*dt.Size()+3, 5, 7)
		v := npBits(dt, uint64(dt)*131, 41)
		take := one(name+" indices take", "np.take(f, i)", ins("f", npR(dF64, 5, 41), "i", npSmallInts(dt, 7, 0, 40, 3, 5)), func(e *npEnv) *tensor.Tensor {
			return tensor.Take(e.v("f"), e.v("i"))
		})
		if dt == ndarray.Uint64 {
			take = take.fails() // np.take casts indices to intp safely
		}
		dups := npSmallInts(dt, uint64(dt)*137, -4, 6, 61)
		cs = append(cs,
			one("zeros "+name, fmt.Sprintf("np.zeros((5, 7), %s)", np), nil, func(e *npEnv) *tensor.Tensor {
				return tensor.Zeros([]int{5, 7}, e.chunks(5, 7), wd)
			}),
			one("full "+name, fmt.Sprintf("np.full((4, 6), 100, %s)", np), nil, func(e *npEnv) *tensor.Tensor {
				return tensor.Full([]int{4, 6}, 100, e.chunks(4, 6), wd)
			}),
			one("arange "+name, fmt.Sprintf("np.arange(0, 120, 3, dtype=%s)", np), nil, func(e *npEnv) *tensor.Tensor {
				return tensor.Arange(0, 120, 3, e.chunks(40), wd)
			}),
			one("float64 edges astype "+name, fmt.Sprintf("f.astype(%s)", np), ins("f", edgeF), func(e *npEnv) *tensor.Tensor {
				return e.v("f").Astype(dt)
			}),
			one("float32 edges astype "+name, fmt.Sprintf("f.astype(np.float32).astype(%s)", np), ins("f", edgeF), func(e *npEnv) *tensor.Tensor {
				return e.v("f").Astype(dF32).Astype(dt)
			}),
			many(name+" astype every dtype", "tuple(a.astype(t) for t in "+npAllDTypesPy()+")", ins("a", bits)),
			one(name+" add wraps", "a + b", ins("a", bits, "b", bits2), func(e *npEnv) *tensor.Tensor { return e.v("a").Add(e.v("b")) }),
			one(name+" subtract wraps, broadcast row", "a - r", ins("a", bits, "r", row), func(e *npEnv) *tensor.Tensor { return e.v("a").Sub(e.v("r")) }),
			one(name+" multiply wraps", "a * b", ins("a", bits, "b", bits2), func(e *npEnv) *tensor.Tensor { return e.v("a").Mul(e.v("b")) }),
			one(name+" floor_divide by zero and -1", "a // d", ins("a", bits, "d", divisor), func(e *npEnv) *tensor.Tensor { return tensor.FloorDiv(e.v("a"), e.v("d")) }),
			one(name+" remainder by zero", "a % d", ins("a", bits, "d", divisor), func(e *npEnv) *tensor.Tensor { return tensor.Mod(e.v("a"), e.v("d")) }),
			one(name+" fmod", "np.fmod(a, d)", ins("a", bits, "d", divisor), func(e *npEnv) *tensor.Tensor { return tensor.Ufunc("fmod", e.v("a"), e.v("d")) }),
			one(name+" true_divide", "a / d", ins("a", small, "d", divisor), func(e *npEnv) *tensor.Tensor { return tensor.Div(e.v("a"), e.v("d")) }),
			one(name+" power", "s ** np.abs(d)", ins("s", small, "d", divisor), func(e *npEnv) *tensor.Tensor {
				return tensor.Pow(e.v("s"), e.v("d").Abs())
			}),
			many(name+" maximum minimum", "(np.maximum(a, b), np.minimum(a, r))", ins("a", bits, "b", bits2, "r", row)),
			many(name+" comparisons", "(a < b, a <= r, a > b, a >= b, a == r, a != b, a == a)", ins("a", bits, "b", bits2, "r", row)),
			many(name+" bitwise", "(a & b, a | r, a ^ b, ~a)", ins("a", bits, "b", bits2, "r", row)),
			many(name+" shifts past the width", "(a << s, a >> s)", ins("a", bits, "s", shifts)),
			many(name+" negative abs sign", "(np.negative(a), np.abs(a), np.sign(a), np.square(a), np.positive(a))", ins("a", bits)),
			many(name+" gcd lcm", "(np.gcd(a, d), np.lcm(s, d))", ins("a", bits, "d", divisor, "s", small)),
			one(name+" where", "np.where(a > b, a, b)", ins("a", bits, "b", bits2), func(e *npEnv) *tensor.Tensor {
				return tensor.Where(e.v("a").Greater(e.v("b")), e.v("a"), e.v("b"))
			}),
			many(name+" sum prod", "(a.sum(), a.prod(), a.sum(axis=0), a.prod(axis=1), s.sum(axis=1))", ins("a", bits, "s", small)),
			many(name+" min max argmin argmax", "(a.min(), a.max(axis=0), a.argmin(), a.argmax(axis=1), a.argmax())", ins("a", bits)),
			many(name+" mean var any all", "(a.mean(), s.mean(axis=0), s.var(), a.any(axis=0), a.all(), np.count_nonzero(s))", ins("a", bits, "s", small)),
			many(name+" cumsum", "(np.cumsum(a, axis=1), np.cumsum(a, axis=0), np.cumprod(s, axis=0))", ins("a", bits, "s", small)),
			one(name+" matmul", "a @ b.T", ins("a", small, "b", bits), func(e *npEnv) *tensor.Tensor {
				return e.v("a").MatMul(e.v("b").Transpose())
			}),
			one(name+" sort", "np.sort(v)", ins("v", v), func(e *npEnv) *tensor.Tensor { return e.v("v").Sort(0) }),
			one(name+" sort duplicates", "np.sort(d)", ins("d", dups), func(e *npEnv) *tensor.Tensor { return e.v("d").Sort(0) }),
			one(name+" argsort", "np.argsort(v, kind='stable')", ins("v", dups), func(e *npEnv) *tensor.Tensor { return e.v("v").Argsort(0) }),
			one(name+" unique", "np.unique(d)", ins("d", dups), func(e *npEnv) *tensor.Tensor { return tensor.Unique(e.v("d")) }),
			take,
			many(name+" median", "(np.median(v), np.percentile(d, 30))", ins("v", v, "d", dups)),
		)
		// Python scalars by value: NumPy 1.24 widens the result for a value
		// the array's type cannot hold, by kind for floats.
		for _, s := range []any{1, 100, 200, 300, -1, -200, 70000, 1 << 40, 1.5, 1e5, true} {
			sc := s
			py := fmt.Sprint(s)
			switch x := s.(type) {
			case bool:
				py = "True"
			case float64:
				py = strconv.FormatFloat(x, 'e', -1, 64)
			}
			cs = append(cs, one(fmt.Sprintf("%s + scalar %v", name, s), "a + "+py, ins("a", small), func(e *npEnv) *tensor.Tensor {
				return e.v("a").Add(sc)
			}), one(fmt.Sprintf("scalar %v * %s", s, name), py+" * a", ins("a", small), func(e *npEnv) *tensor.Tensor {
				return tensor.Mul(sc, e.v("a"))
			}))
		}
	}
	// Every pair of dtypes, both ways: the dtype of a + b and a == b is
	// NumPy's promote_types, the values exact.
	all := append([]ndarray.DType{ndarray.Bool, ndarray.Int32, ndarray.Int64, ndarray.Float16, ndarray.Float32, ndarray.Float64}, npIntDTypes...)
	for i, da := range all {
		for _, db := range all[i+1:] {
			a := npSmallInts(da, uint64(da)*7+1, -5, 9, 5, 7)
			b := npSmallInts(db, uint64(db)*11+3, -5, 9, 7)
			if da == ndarray.Bool || db == ndarray.Bool {
				a, b = npSmallInts(da, 5, 0, 1, 5, 7), npSmallInts(db, 6, 0, 1, 7)
			}
			cs = append(cs, many(fmt.Sprintf("promote %v and %v", da, db), "(a * b, b - a, a == b, np.maximum(b, a))", ins("a", a, "b", b)).
				with(npChunk1, npChunkIrr))
		}
	}
	return cs
}

// halfCases: float16 against NumPy — every one of the 65536 bit patterns
// widened, float64 values at and around the rounding midpoints narrowed,
// arithmetic and ufuncs computed in float32 and rounded once, reductions,
// the promotions that give or take float16, and float16 results of the
// small integer types' float ufuncs.
func halfCases() []npCase {
	one := npOne
	many := func(name, expr string, in []npIn) npCase { return npCase{name: name, expr: expr, inputs: in} }
	bitsAll := make([]byte, 2*65536)
	for i := range 65536 {
		bitsAll[2*i], bitsAll[2*i+1] = byte(i), byte(i>>8)
	}
	all, err := ndarray.FromBytes(ndarray.Float16, []int{256, 256}, bitsAll)
	if err != nil {
		panic(err)
	}
	// Every finite positive half's value, the midpoints to its successor
	// and a hair either side of them, signed both ways: the rounding edges.
	var mids []float64
	for h := uint16(0); h < 0x7c00; h += 7 {
		lo, hi := ndarray.HalfToFloat64(h), ndarray.HalfToFloat64(h+1)
		m := (lo + hi) / 2
		for _, v := range []float64{lo, m, math.Nextafter(m, 0), math.Nextafter(m, 1e9)} {
			mids = append(mids, v, -v)
		}
	}
	mids = append(mids, 65504, 65519.99, 65520, 1e5, -1e9, math.Inf(1), math.NaN(), 0x1p-25, 0x1p-26, 3*0x1p-26, 1e-300)
	mid, err := ndarray.FromFloat64s([]int{len(mids)}, mids)
	if err != nil {
		panic(err)
	}
	h := npQ(dF64, 41, 5, 7).Astype(ndarray.Float16)
	h2 := npQ(dF64, 42, 5, 7).Astype(ndarray.Float16)
	hr := npR(dF64, 43, 5, 7).Astype(ndarray.Float16)
	hrow := npQ(dF64, 44, 7).Astype(ndarray.Float16)
	hs := npSpecial(dF64, 45, 5, 7).Astype(ndarray.Float16)
	i8 := npSmallInts(ndarray.Int8, 46, -9, 9, 5, 7)
	u8 := npSmallInts(ndarray.Uint8, 47, 0, 200, 5, 7)
	i16 := npSmallInts(ndarray.Int16, 48, -300, 300, 5, 7)
	const ulp = 1e-3 // one float16 ULP, relative: libm differences in float32 can tip a rounding
	return []npCase{
		many("float16 every bit pattern widened", "(a.astype(np.float64), a.astype(np.float32), a.astype(np.int16), a.astype(np.uint8), a.astype(bool))", ins("a", all)).
			with(npChunkOdd, npChunkBig),
		many("float16 rounding midpoints", "(m.astype(np.float16), m.astype(np.float32).astype(np.float16))", ins("m", mid)).with(npChunkOdd, npChunkIrr),
		many("float16 integers narrowed", "(i.astype(np.float16), u.astype(np.float16), w.astype(np.float16))", ins("i", i8, "u", u8, "w", npBits(ndarray.Int64, 49, 5, 7))),
		one("float16 zeros", "np.zeros((5, 7), np.float16)", nil, func(e *npEnv) *tensor.Tensor {
			return tensor.Zeros([]int{5, 7}, e.chunks(5, 7), tensor.WithDType(ndarray.Float16))
		}),
		one("float16 full", "np.full((4, 6), 0.1, np.float16)", nil, func(e *npEnv) *tensor.Tensor {
			return tensor.Full([]int{4, 6}, 0.1, e.chunks(4, 6), tensor.WithDType(ndarray.Float16))
		}),
		many("float16 arithmetic", "(a + b, a - r, a * b, a / b, a // b, a % b, a ** 2, -a, np.abs(a), a * a * a)", ins("a", hr, "b", h, "r", hrow)),
		many("float16 specials", "(s + a, s * s, s / a, np.maximum(s, a), np.minimum(a, s), s > a, s == s, np.isnan(s), np.isinf(s), np.isfinite(s))", ins("s", hs, "a", h)),
		many("float16 ufuncs", "(np.sqrt(np.abs(r)), np.exp(r), np.log(np.abs(r) + 1), np.sin(r), np.tanh(r), np.floor(r), np.rint(r), np.arctan2(r, b), np.hypot(r, b))", ins("r", hr, "b", h)).
			tol(ulp, 0, "NumPy's float32 libm against ours, rounded to float16"),
		many("float16 where clip", "(np.where(a > b, a, b), np.clip(r, -1, 1.5))", ins("a", h, "b", h2, "r", hr)),
		many("float16 reductions", "(a.sum(), a.sum(axis=0), a.max(), a.min(axis=1), a.mean(), a.mean(axis=0), a.argmax(), a.argmin(axis=0), (a / 4).prod(axis=1), a.any(), a.var())", ins("a", h)).
			tol(ulp, 0, "NumPy sums float16 in float32 pairwise, Phobos in float64"),
		many("float16 promotions", "(a + i, a + w, a + u, a + 1.5, a + 1e5, a * 3, i + 0.5, a + a.astype(np.float32))", ins("a", h, "i", i8, "w", i16, "u", u8)),
		many("small integers' float ufuncs", "(np.sqrt(u), np.exp(i / 4), np.sin(u), np.sqrt(w + 300), np.floor(i), np.arctan2(i, u))", ins("i", i8, "u", u8, "w", i16)).
			tol(ulp, 0, "NumPy's float32 libm against ours, rounded to float16"),
	}
}

// npAllDTypesPy is the Python tuple of every Phobos dtype, in DTypes order.
func npAllDTypesPy() string {
	s := "("
	for _, d := range dtypesReal() {
		s += npDTypeName(d) + ", "
	}
	return s + ")"
}

// dtypesBuild fills in the builders left nil above from the NumPy
// expression's shape: the tuples of ufuncs, reductions and casts are the
// same few calls for every dtype.
func dtypesBuild(cases []npCase) []npCase {
	for i := range cases {
		if cases[i].build == nil {
			cases[i].build = dtypesBuilders[dtypesKey(cases[i].name)]
			if cases[i].build == nil {
				panic("no builder for case " + cases[i].name)
			}
		}
	}
	return cases
}

// dtypesKey is a case's name without its dtype prefix ("int8 bitwise" ->
// "bitwise"; "promote ..." -> "promote").
func dtypesKey(name string) string {
	if _, ok := dtypesBuilders[name]; ok {
		return name
	}
	for _, d := range dtypesReal() {
		if p := d.String() + " "; len(name) > len(p) && name[:len(p)] == p {
			return name[len(p):]
		}
	}
	if len(name) > 8 && name[:8] == "promote " {
		return "promote"
	}
	return name
}

var dtypesBuilders = map[string]func(e *npEnv) []*tensor.Tensor{
	"astype every dtype": func(e *npEnv) []*tensor.Tensor {
		var out []*tensor.Tensor
		for _, d := range dtypesReal() {
			out = append(out, e.v("a").Astype(d))
		}
		return out
	},
	"maximum minimum": func(e *npEnv) []*tensor.Tensor {
		return tt(e.v("a").Maximum(e.v("b")), e.v("a").Minimum(e.v("r")))
	},
	"comparisons": func(e *npEnv) []*tensor.Tensor {
		a, b, r := e.v("a"), e.v("b"), e.v("r")
		return tt(a.Less(b), a.LessEqual(r), a.Greater(b), a.GreaterEqual(b), a.Equal(r), a.NotEqual(b), a.Equal(a))
	},
	"bitwise": func(e *npEnv) []*tensor.Tensor {
		a, b, r := e.v("a"), e.v("b"), e.v("r")
		return tt(tensor.BitwiseAnd(a, b), tensor.Ufunc("bitwise_or", a, r), tensor.Ufunc("bitwise_xor", a, b), tensor.Invert(a))
	},
	"shifts past the width": func(e *npEnv) []*tensor.Tensor {
		return tt(tensor.LeftShift(e.v("a"), e.v("s")), tensor.RightShift(e.v("a"), e.v("s")))
	},
	"negative abs sign": func(e *npEnv) []*tensor.Tensor {
		a := e.v("a")
		return tt(a.Neg(), a.Abs(), tensor.Ufunc("sign", a), tensor.Ufunc("square", a), tensor.Ufunc("positive", a))
	},
	"gcd lcm": func(e *npEnv) []*tensor.Tensor {
		return tt(tensor.Gcd(e.v("a"), e.v("d")), tensor.Ufunc("lcm", e.v("s"), e.v("d")))
	},
	"sum prod": func(e *npEnv) []*tensor.Tensor {
		a, s := e.v("a"), e.v("s")
		return tt(a.Sum(), a.Prod(), a.Sum(tensor.Axis(0)), a.Prod(tensor.Axis(1)), s.Sum(tensor.Axis(1)))
	},
	"min max argmin argmax": func(e *npEnv) []*tensor.Tensor {
		a := e.v("a")
		return tt(a.Min(), a.Max(tensor.Axis(0)), a.ArgMin(), a.ArgMax(tensor.Axis(1)), a.ArgMax())
	},
	"mean var any all": func(e *npEnv) []*tensor.Tensor {
		a, s := e.v("a"), e.v("s")
		return tt(a.Mean(), s.Mean(tensor.Axis(0)), s.Var(), a.Any(tensor.Axis(0)), a.All(), s.CountNonzero())
	},
	"cumsum": func(e *npEnv) []*tensor.Tensor {
		return tt(e.v("a").CumSum(1), e.v("a").CumSum(0), e.v("s").CumProd(0))
	},
	"median": func(e *npEnv) []*tensor.Tensor {
		return tt(e.v("v").Median(), tensor.Percentile(e.v("d"), 30.0, "linear"))
	},
	"float16 every bit pattern widened": func(e *npEnv) []*tensor.Tensor {
		a := e.v("a")
		return tt(a.Astype(dF64), a.Astype(dF32), a.Astype(ndarray.Int16), a.Astype(ndarray.Uint8), a.Astype(dBo))
	},
	"float16 rounding midpoints": func(e *npEnv) []*tensor.Tensor {
		m := e.v("m")
		return tt(m.Astype(ndarray.Float16), m.Astype(dF32).Astype(ndarray.Float16))
	},
	"float16 integers narrowed": func(e *npEnv) []*tensor.Tensor {
		return tt(e.v("i").Astype(ndarray.Float16), e.v("u").Astype(ndarray.Float16), e.v("w").Astype(ndarray.Float16))
	},
	"float16 arithmetic": func(e *npEnv) []*tensor.Tensor {
		a, b, r := e.v("a"), e.v("b"), e.v("r")
		return tt(a.Add(b), a.Sub(r), a.Mul(b), tensor.Div(a, b), tensor.FloorDiv(a, b), tensor.Mod(a, b), tensor.Pow(a, 2), a.Neg(), a.Abs(), a.Mul(a).Mul(a))
	},
	"float16 specials": func(e *npEnv) []*tensor.Tensor {
		s, a := e.v("s"), e.v("a")
		return tt(s.Add(a), s.Mul(s), tensor.Div(s, a), s.Maximum(a), a.Minimum(s), s.Greater(a), s.Equal(s),
			tensor.Ufunc("isnan", s), tensor.Ufunc("isinf", s), tensor.Ufunc("isfinite", s))
	},
	"float16 ufuncs": func(e *npEnv) []*tensor.Tensor {
		r, b := e.v("r"), e.v("b")
		u := func(n string, x ...any) *tensor.Tensor { return tensor.Ufunc(n, x...) }
		return tt(u("sqrt", r.Abs()), u("exp", r), u("log", r.Abs().Add(1)), u("sin", r), u("tanh", r), u("floor", r), u("rint", r),
			u("arctan2", r, b), u("hypot", r, b))
	},
	"float16 where clip": func(e *npEnv) []*tensor.Tensor {
		a, b := e.v("a"), e.v("b")
		return tt(tensor.Where(a.Greater(b), a, b), tensor.Clip(e.v("r"), -1, 1.5))
	},
	"float16 reductions": func(e *npEnv) []*tensor.Tensor {
		a := e.v("a")
		return tt(a.Sum(), a.Sum(tensor.Axis(0)), a.Max(), a.Min(tensor.Axis(1)), a.Mean(), a.Mean(tensor.Axis(0)), a.ArgMax(),
			a.ArgMin(tensor.Axis(0)), tensor.Div(a, 4).Prod(tensor.Axis(1)), a.Any(), a.Var())
	},
	"float16 promotions": func(e *npEnv) []*tensor.Tensor {
		a, i, w, u := e.v("a"), e.v("i"), e.v("w"), e.v("u")
		return tt(a.Add(i), a.Add(w), a.Add(u), a.Add(1.5), a.Add(1e5), a.Mul(3), i.Add(0.5), a.Add(a.Astype(dF32)))
	},
	"small integers' float ufuncs": func(e *npEnv) []*tensor.Tensor {
		i, u, w := e.v("i"), e.v("u"), e.v("w")
		f := func(n string, x ...any) *tensor.Tensor { return tensor.Ufunc(n, x...) }
		return tt(f("sqrt", u), f("exp", tensor.Div(i, 4)), f("sin", u), f("sqrt", w.Add(300)), f("floor", i), f("arctan2", i, u))
	},
	"promote": func(e *npEnv) []*tensor.Tensor {
		a, b := e.v("a"), e.v("b")
		return tt(a.Mul(b), b.Sub(a), a.Equal(b), b.Maximum(a))
	},
}

// TestDTypesNumpyDifferential runs the dtypes suite under every chunking,
// with fusion on and off and on two workers.
func TestDTypesNumpyDifferential(t *testing.T) {
	npSuite(t, "dtypes", dtypesBuild(append(dtypesCases(), halfCases()...)), npChunkAll, npSuiteModes)
}

// dtypesReal is every dtype but the complex ones, which complex_numpy_test.go
// covers: the cases here (bitwise, shifts, gcd, ...) are real-only.
func dtypesReal() []ndarray.DType {
	var out []ndarray.DType
	for _, d := range ndarray.DTypes() {
		if !d.IsComplex() {
			out = append(out, d)
		}
	}
	return out
}
