package phobos_test

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// npMaskCases: boolean indexing and the selections whose length is known
// only from the data (nonzero, argwhere, compress, extract), and what works
// on them without knowing it: elementwise ops within one selection and
// reductions over it. Masks that select nothing and everything included.
func npMaskCases() []npCase {
	x := npR(dF64, 401, 7, 6)
	x3 := npR(dF32, 402, 3, 4, 5)
	xi := npI(dI64, 403, -3, 4, 11)
	xi32 := npI(dI32, 408, -3, 4, 4, 5)
	m := npB(404, 7, 6)
	m1 := npB(405, 6)
	m0 := npB(406, 7)
	none, _ := ndarray.New(ndarray.Bool, 7, 6)
	all := npFill(ndarray.Bool, 0, []int{7, 6}, func(int, *npLCG) float64 { return 1 })
	special := npSpecial(dF64, 407, 9)
	one := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		c := npOne(name, expr, in, f)
		c.workers = true
		return c
	}
	cases := []npCase{
		one("mask x[m]", "x[m]", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m"))) }),
		one("mask x[x > 0.3]", "x[x > 0.3]", ins("x", x), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("x").Greater(0.3)))
		}),
		one("mask nothing", "x[m]", ins("x", x, "m", none), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m"))) }),
		one("mask everything", "x[m]", ins("x", x, "m", all), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m"))) }),
		one("mask rows x[m0]", "x[m0]", ins("x", x, "m0", m0), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m0"))) }),
		one("mask columns x[:, m1]", "x[:, m1]", ins("x", x, "m1", m1), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.All(), tensor.Mask(e.v("m1")))
		}),
		one("mask 3-d x[..., m]", "x3[..., m]", ins("x3", x3, "m", npB(409, 4, 5)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.Ellipsis(), tensor.Mask(e.v("m")))
		}),
		one("mask 3-d x[m, 1:3]", "x3[m, 1:3]", ins("x3", x3, "m", npB(410, 3)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.Mask(e.v("m")), tensor.Range(1, 3))
		}),
		one("mask 3-d x[0, :, m] (advanced axes first)", "x3[0, :, m]", ins("x3", x3, "m", npB(411, 5)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.At(0), tensor.All(), tensor.Mask(e.v("m")))
		}),
		one("mask 3-d x[1, m]", "x3[1, m]", ins("x3", x3, "m", npB(412, 4, 5)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.At(1), tensor.Mask(e.v("m")))
		}),
		one("mask then elementwise", "np.exp(x[m]) * 2 - x[m]", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor {
			s := e.v("x").Index(tensor.Mask(e.v("m")))
			return s.Exp().Mul(2).Sub(s)
		}),
		one("mask rows plus a row", "x[m0] + x[0]", ins("x", x, "m0", m0), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("m0"))).Add(e.v("x").Index(tensor.At(0)))
		}),
		one("mask sum", "x[x > 0.3].sum()", ins("x", x), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("x").Greater(0.3))).Sum()
		}).tol(1e-12, 1e-14, "a sum in another order"),
		one("mask mean", "x[m].mean()", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m"))).Mean() }).tol(1e-12, 1e-14, "a sum in another order"),
		one("mask var", "x[m].var(ddof=1)", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("m"))).Var(tensor.DDof(1))
		}).tol(1e-12, 1e-14, "moments merged in another order"),
		one("mask rows sum axis 0", "x[m0].sum(axis=0)", ins("x", x, "m0", m0), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("m0"))).Sum(tensor.Axis(0))
		}).tol(1e-12, 1e-14, "a sum in another order"),
		one("mask count", "np.count_nonzero(x[m] > 0.5)", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("m"))).Greater(0.5).CountNonzero()
		}),
		one("mask int any", "(xi[xi > 0] == 3).any()", ins("xi", xi), func(e *npEnv) *tensor.Tensor {
			s := e.v("xi").Index(tensor.Mask(e.v("xi").Greater(0)))
			return s.Equal(3).Any()
		}),
		// Reductions of a selection run as where(m, x, identity) reduced (maskedReduce).
		one("mask prod", "(x[m] + 0.5).prod()", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Add(0.5).Index(tensor.Mask(e.v("m"))).Prod()
		}).tol(1e-12, 1e-14, "a product in another order"),
		one("mask int sum, all, any", "np.array([xi[xi > -2].sum(), xi[xi != 0].all(), xi[xi > 3].any()])", ins("xi", xi), func(e *npEnv) *tensor.Tensor {
			x := e.v("xi")
			return tensor.Stack(0, x.Index(tensor.Mask(x.Greater(-2))).Sum(), x.Index(tensor.Mask(x.NotEqual(0))).All().Astype(dI64), x.Index(tensor.Mask(x.Greater(3))).Any().Astype(dI64))
		}),
		one("mask int mean", "xi[xi > 0].mean()", ins("xi", xi), func(e *npEnv) *tensor.Tensor { return e.v("xi").Index(tensor.Mask(e.v("xi").Greater(0))).Mean() }),
		one("mask float32 mean", "x3[x3 > 0.2].mean()", ins("x3", x3), func(e *npEnv) *tensor.Tensor { return e.v("x3").Index(tensor.Mask(e.v("x3").Greater(0.2))).Mean() }).tol(1e-6, 1e-7, "float32 sums in another order"),
		one("mask of nothing, mean", "np.float64('nan') if not m.any() else x[m].mean()", ins("x", x, "m", none), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m"))).Mean() }),
		one("mask columns summed over them", "x[:, m1].sum(axis=1)", ins("x", x, "m1", m1), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.All(), tensor.Mask(e.v("m1"))).Sum(tensor.Axis(1))
		}).tol(1e-12, 1e-14, "a sum in another order"),
		one("mask 3-d middle summed", "x3[:, m].sum(axis=1)", ins("x3", x3, "m", npB(413, 4, 5)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.All(), tensor.Mask(e.v("m"))).Sum(tensor.Axis(1))
		}).tol(1e-5, 1e-6, "float32 sums in another order"),
		one("mask count_nonzero", "np.count_nonzero(xi[xi != 1])", ins("xi", xi), func(e *npEnv) *tensor.Tensor {
			return e.v("xi").Index(tensor.Mask(e.v("xi").NotEqual(1))).CountNonzero()
		}),
		one("mask sum keepdims (not rewritten)", "x[m].sum(keepdims=True)", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("m"))).Sum(tensor.KeepDims())
		}).tol(1e-12, 1e-14, "a sum in another order"),
		one("mask of nothing summed", "x[m].sum()", ins("x", x, "m", none), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m"))).Sum() }),
		one("mask special values", "s[~np.isnan(s)]", ins("s", special), func(e *npEnv) *tensor.Tensor {
			return e.v("s").Index(tensor.Mask(e.v("s").IsNaN().Not()))
		}),
		one("argwhere", "np.argwhere(x > 0.5)", ins("x", x), func(e *npEnv) *tensor.Tensor { return tensor.ArgWhere(e.v("x").Greater(0.5)) }),
		one("argwhere 3-d", "np.argwhere(x3)", ins("x3", x3), func(e *npEnv) *tensor.Tensor { return tensor.ArgWhere(e.v("x3")) }),
		one("argwhere int", "np.argwhere(xi)", ins("xi", xi), func(e *npEnv) *tensor.Tensor { return tensor.ArgWhere(e.v("xi")) }),
		one("argwhere nothing", "np.argwhere(m)", ins("m", none), func(e *npEnv) *tensor.Tensor { return tensor.ArgWhere(e.v("m")) }),
		one("flatnonzero", "np.flatnonzero(xi32)", ins("xi32", xi32), func(e *npEnv) *tensor.Tensor { return tensor.FlatNonzero(e.v("xi32")) }),
		one("flatnonzero special", "np.flatnonzero(s)", ins("s", special), func(e *npEnv) *tensor.Tensor { return tensor.FlatNonzero(e.v("s")) }),
		one("compress axis 1", "np.compress(m1, x, axis=1)", ins("x", x, "m1", m1), func(e *npEnv) *tensor.Tensor { return tensor.Compress(e.v("m1"), e.v("x"), 1) }),
		one("compress short", "np.compress([1, 0, 1], x, axis=0)", ins("x", x, "c", npI(dI64, 0, 0, 1, 3)), func(e *npEnv) *tensor.Tensor {
			return tensor.Compress(tensor.FromSlice([]int64{1, 0, 1}, []int{3}), e.v("x"), 0)
		}),
		one("compress flat", "np.compress(xi > 0, xi)", ins("xi", xi), func(e *npEnv) *tensor.Tensor { return tensor.Compress(e.v("xi").Greater(0), e.v("xi")) }),
		one("extract", "np.extract(x > 0.5, x)", ins("x", x), func(e *npEnv) *tensor.Tensor { return tensor.Extract(e.v("x").Greater(0.5), e.v("x")) }),
		npOne("compress too long", "np.compress(np.ones(8, bool), x, axis=0)", ins("x", x), func(e *npEnv) *tensor.Tensor {
			return tensor.Compress(tensor.Ones([]int{8}, tensor.WithDType(ndarray.Bool)), e.v("x"), 0)
		}).fails(),
		npOne("mask wrong shape", "x[m1]", ins("x", x, "m1", m1), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m1"))) }).fails(),
		npOne("mask too many dims", "x[m, 0]", ins("x", x, "m", m), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Mask(e.v("m")), tensor.At(0)) }).fails(),
		npOne("masked then broadcast against a known length", "x[m0] + x[:, 0]", ins("x", x, "m0", m0), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Mask(e.v("m0"))).Add(e.v("x").Index(tensor.All(), tensor.At(0)))
		}).fails(),
	}
	cases = append(cases, npTakeCases()...)
	cases = append(cases, npMany("nonzero", "np.nonzero(x3 > 0.4)", ins("x3", x3), func(e *npEnv) []*tensor.Tensor {
		return tensor.Nonzero(e.v("x3").Greater(0.4))
	}))
	for i, c := range cases {
		if c.name == "mask special values" || c.name == "flatnonzero special" {
			cases[i].chunkings = npChunkAll
		}
	}
	return cases
}

// npTakeCases: numpy.take and integer array indexing, with negative and
// repeated indices, index arrays of several dimensions and chunkings of
// their own, and indices out of range.
func npTakeCases() []npCase {
	x := npR(dF64, 421, 7, 6)
	x3 := npR(dF32, 422, 3, 4, 5)
	xi := npI(dI32, 423, -9, 9, 11)
	i1 := npI(dI64, 424, -7, 6, 9)    // rows of x, negatives and repeats
	i2 := npI(dI64, 425, -6, 6, 2, 5) // columns of x, 2-D
	i3 := npI(dI32, 426, 0, 10, 4, 3) // flat positions of xi, int32
	iw := npI(dI64, 427, -42, 41, 17) // flat positions of x
	empty, _ := ndarray.New(ndarray.Int64, 0)
	bad := npFill(ndarray.Int64, 0, []int{3}, func(i int, _ *npLCG) float64 { return []float64{0, 7, 1}[i] })
	one := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		c := npOne(name, expr, in, f)
		c.workers = true
		return c
	}
	return []npCase{
		one("take axis 0", "np.take(x, i1, axis=0)", ins("x", x, "i1", i1), func(e *npEnv) *tensor.Tensor { return tensor.Take(e.v("x"), e.v("i1"), 0) }),
		one("take axis -1, 2-d indices", "np.take(x, i2, axis=-1)", ins("x", x, "i2", i2), func(e *npEnv) *tensor.Tensor { return e.v("x").Take(e.v("i2"), -1) }),
		one("take flat", "np.take(x, iw)", ins("x", x, "iw", iw), func(e *npEnv) *tensor.Tensor { return tensor.Take(e.v("x"), e.v("iw")) }),
		one("take int32 indices of ints", "np.take(xi, i3)", ins("xi", xi, "i3", i3), func(e *npEnv) *tensor.Tensor { return tensor.Take(e.v("xi"), e.v("i3")) }),
		one("take nothing", "np.take(x, e, axis=1)", ins("x", x, "e", empty), func(e *npEnv) *tensor.Tensor { return tensor.Take(e.v("x"), e.v("e"), 1) }),
		one("x[i]", "x[i1]", ins("x", x, "i1", i1), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Array(e.v("i1"))) }),
		one("x[:, i]", "x[:, i2]", ins("x", x, "i2", i2), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.All(), tensor.Array(e.v("i2"))) }),
		one("x[1:5, i]", "x[1:5, i2]", ins("x", x, "i2", i2), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.Range(1, 5), tensor.Array(e.v("i2"))) }),
		one("x3[0, :, i] (advanced axes first)", "x3[0, :, i]", ins("x3", x3, "i", npI(dI64, 428, -5, 5, 3)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.At(0), tensor.All(), tensor.Array(e.v("i")))
		}),
		one("x3[i, 2]", "x3[i, 2]", ins("x3", x3, "i", npI(dI64, 429, -3, 3, 2, 2)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.Array(e.v("i")), tensor.At(2))
		}),
		one("take then reduce", "np.take(x, i1, axis=0).sum(axis=1) * 2", ins("x", x, "i1", i1), func(e *npEnv) *tensor.Tensor {
			return tensor.Take(e.v("x"), e.v("i1"), 0).Sum(tensor.Axis(1)).Mul(2)
		}).tol(1e-12, 1e-14, "a sum in another order"),
		one("take of a mask's positions", "x.ravel()[np.flatnonzero(x > 0.5)]", ins("x", x), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Ravel().Index(tensor.Array(tensor.FlatNonzero(e.v("x").Greater(0.5))))
		}),
		// Several integer arrays broadcast together (NumPy's advanced indexing).
		one("x[i, j] pairs", "x[i1, j1]", ins("x", x, "i1", i1, "j1", npI(dI64, 460, -6, 5, 9)), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Array(e.v("i1")), tensor.Array(e.v("j1")))
		}),
		one("x[i[:, None], j] outer", "x[ic[:, None], i2[0]]", ins("x", x, "ic", npI(dI32, 461, -7, 6, 4), "i2", i2), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Array(e.v("ic").Index(tensor.All(), tensor.NewAxis())), tensor.Array(e.v("i2").Index(tensor.At(0))))
		}),
		one("x3[i, :, j] (advanced axes first)", "x3[ia, :, ja]", ins("x3", x3, "ia", npI(dI64, 462, -3, 2, 2, 3), "ja", npI(dI64, 463, -5, 4, 3)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.Array(e.v("ia")), tensor.All(), tensor.Array(e.v("ja")))
		}),
		one("x3[:, i, j] (adjacent, in place)", "x3[:, ib, jb]", ins("x3", x3, "ib", npI(dI64, 464, -4, 3, 5), "jb", npI(dI32, 465, 0, 4, 1)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.All(), tensor.Array(e.v("ib")), tensor.Array(e.v("jb")))
		}),
		one("x3[i, 1, j]", "x3[ia2, 1, ja2]", ins("x3", x3, "ia2", npI(dI64, 466, 0, 2, 4), "ja2", npI(dI64, 467, -5, 4, 4)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.Array(e.v("ia2")), tensor.At(1), tensor.Array(e.v("ja2")))
		}),
		one("x3[i, j, k] elements", "x3[ia3, ib3, ic3]", ins("x3", x3, "ia3", npI(dI64, 468, 0, 2, 6), "ib3", npI(dI64, 469, -4, 3, 6), "ic3", npI(dI64, 470, 0, 4, 1)), func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Index(tensor.Array(e.v("ia3")), tensor.Array(e.v("ib3")), tensor.Array(e.v("ic3")))
		}),
		one("x[i, j] empty", "x[e, e]", ins("x", x, "e", empty), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Array(e.v("e")), tensor.Array(e.v("e")))
		}),
		npOne("x[i, j] out of range", "x[i1[:3], b]", ins("x", x, "i1", i1, "b", bad), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Array(e.v("i1").Index(tensor.To(3))), tensor.Array(e.v("b")))
		}).fails(),
		npOne("x[i, j] shapes that do not broadcast", "x[i1, i2]", ins("x", x, "i1", i1, "i2", i2), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.Array(e.v("i1")), tensor.Array(e.v("i2")))
		}).fails(),
		npOne("take out of range", "np.take(x, b, axis=0)", ins("x", x, "b", bad), func(e *npEnv) *tensor.Tensor { return tensor.Take(e.v("x"), e.v("b"), 0) }).fails(),
		npOne("take float indices", "np.take(x, x, axis=0)", ins("x", x), func(e *npEnv) *tensor.Tensor { return tensor.Take(e.v("x"), e.v("x"), 0) }).fails(),
		npOne("take bad axis", "np.take(x, i1, axis=2)", ins("x", x, "i1", i1), func(e *npEnv) *tensor.Tensor { return tensor.Take(e.v("x"), e.v("i1"), 2) }).fails(),
	}
}
