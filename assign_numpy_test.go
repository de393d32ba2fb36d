package phobos_test

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// npSetExpr is NumPy's in-place statement stmt (over y, a copy of x) as an
// expression giving y.
func npSetExpr(x, stmt string) string {
	return "(lambda y: (" + stmt + ", y)[1])(" + x + ".copy())"
}

// npAssignCases: Set (x[idx] = v with basic indices, masks and integer
// arrays), Put, Place and FillDiagonal, as new tensors.
func npAssignCases() []npCase {
	x := npR(dF64, 431, 7, 6)
	xi := npI(dI64, 432, -9, 9, 5, 8)
	x3 := npR(dF32, 433, 3, 4, 5)
	sq := npR(dF64, 434, 5, 5)
	tall := npR(dF64, 435, 11, 3)
	cube := npR(dF64, 436, 3, 3, 3)
	v6 := npR(dF64, 437, 6)
	v4 := npR(dF64, 438, 4, 1)
	m := npB(439, 7, 6)
	m0 := npB(440, 7)
	none, _ := ndarray.New(ndarray.Bool, 7, 6)
	i1 := npI(dI64, 441, -7, 6, 9)
	i2 := npI(dI32, 442, 0, 5, 3)
	one := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		c := npOne(name, expr, in, f)
		c.workers = true
		return c
	}
	set := func(name, stmt string, in []npIn, idx func(e *npEnv) []tensor.Idx, v func(e *npEnv) any) npCase {
		return one("set "+name, npSetExpr(in[0].name, stmt), in, func(e *npEnv) *tensor.Tensor {
			return e.v(in[0].name).Set(idx(e), v(e))
		})
	}
	idx := func(ix ...tensor.Idx) func(*npEnv) []tensor.Idx { return func(*npEnv) []tensor.Idx { return ix } }
	num := func(v any) func(*npEnv) any { return func(*npEnv) any { return v } }
	in := func(name string) func(e *npEnv) any { return func(e *npEnv) any { return e.v(name) } }
	return []npCase{
		set("slice scalar", "y.__setitem__((slice(1, 5), 2), 9.5)", ins("x", x), idx(tensor.Range(1, 5), tensor.At(2)), num(9.5)),
		set("row", "y.__setitem__(3, v6)", ins("x", x, "v6", v6), idx(tensor.At(3)), in("v6")),
		set("stepped slices", "y.__setitem__((slice(None, None, 2), slice(5, 0, -2)), -1)", ins("x", x), idx(tensor.S(0, 7, 2), tensor.All().From(5).To(0).Step(-2)), num(-1)),
		set("broadcast column", "y.__setitem__((slice(2, 6), slice(1, None)), v4)", ins("x", x, "v4", v4), idx(tensor.Range(2, 6), tensor.From(1)), in("v4")),
		set("everything", "y.__setitem__(Ellipsis, v6)", ins("x", x, "v6", v6), idx(tensor.Ellipsis()), in("v6")),
		set("empty slice", "y.__setitem__(slice(4, 2), 7)", ins("x", x), idx(tensor.Range(4, 2)), num(7)),
		set("float into int (cast)", "y.__setitem__((slice(1, 3), slice(None)), 2.7)", ins("xi", xi), idx(tensor.Range(1, 3), tensor.All()), num(2.7)),
		set("3-d with new axis", "y.__setitem__((1, None, slice(1, 3)), 5)", ins("x3", x3), idx(tensor.At(1), tensor.NewAxis(), tensor.Range(1, 3)), num(5)),
		set("mask scalar", "y.__setitem__(m, 0)", ins("x", x, "m", m), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Mask(e.v("m"))), 0)
		}),
		set("mask nothing", "y.__setitem__(m, 1)", ins("x", x, "m", none), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Mask(e.v("m"))), 1)
		}),
		set("mask by itself", "y.__setitem__(y > 0.5, y[y > 0.5] * 2)", ins("x", x), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			sel := e.v("x").Greater(0.5)
			return e.v("x").Set(tensor.Ix(tensor.Mask(sel)), e.v("x").Index(tensor.Mask(sel)).Mul(2))
		}),
		set("mask rows with a row", "y.__setitem__(m0, v6)", ins("x", x, "m0", m0, "v6", v6), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Mask(e.v("m0"))), e.v("v6"))
		}),
		set("mask columns", "y.__setitem__((slice(None), m1), -3)", ins("x", x, "m1", npB(443, 6)), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.All(), tensor.Mask(e.v("m1"))), -3)
		}),
		set("integer rows", "y.__setitem__(i1, v6)", ins("x", x, "i1", i1, "v6", v6), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Array(e.v("i1"))), e.v("v6"))
		}),
		set("integer columns", "y.__setitem__((slice(None), i2), 4)", ins("x", x, "i2", i2), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.All(), tensor.Array(e.v("i2"))), 4)
		}),
		set("integer 3-d middle", "y.__setitem__((slice(None), i2[:2]), v45)", ins("x3", x3, "i2", i2, "v45", npR(dF32, 444, 2, 5)), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Set(tensor.Ix(tensor.All(), tensor.Array(e.v("i2").Index(tensor.To(2)))), e.v("v45"))
		}),
		set("integer pairs", "y.__setitem__((i1, j1), v9)", ins("x", x, "i1", i1, "j1", npI(dI64, 471, -6, 5, 9), "v9", npR(dF64, 472, 9)), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Array(e.v("i1")), tensor.Array(e.v("j1"))), e.v("v9"))
		}),
		set("integer outer, scalar", "y.__setitem__((ic[:, None], i2[:2]), 3)", ins("x", x, "ic", npI(dI32, 473, -7, 6, 4), "i2", i2), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Array(e.v("ic").Index(tensor.All(), tensor.NewAxis())), tensor.Array(e.v("i2").Index(tensor.To(2)))), 3)
		}),
		set("3-d arrays apart", "y.__setitem__((ia, slice(None), ja), v34)", ins("x3", x3, "ia", npI(dI64, 474, 0, 2, 3), "ja", npI(dI64, 475, -5, 4, 3), "v34", npR(dF32, 476, 3, 4)), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Set(tensor.Ix(tensor.Array(e.v("ia")), tensor.All(), tensor.Array(e.v("ja"))), e.v("v34"))
		}),
		set("3-d arrays adjacent", "y.__setitem__((slice(None), ib, jb), v32)", ins("x3", x3, "ib", npI(dI64, 477, -4, 3, 2), "jb", npI(dI64, 478, 0, 4, 2), "v32", npR(dF32, 479, 3, 1)), idx(), nil).withBuild(func(e *npEnv) *tensor.Tensor {
			return e.v("x3").Set(tensor.Ix(tensor.All(), tensor.Array(e.v("ib")), tensor.Array(e.v("jb"))), e.v("v32"))
		}),
		one("putmask cycled", npSetExpr("x", "np.putmask(y, m, v6)"), ins("x", x, "m", m, "v6", v6), func(e *npEnv) *tensor.Tensor {
			return tensor.PutMask(e.v("x"), e.v("m"), e.v("v6"))
		}),
		npOne("putmask int from float", npSetExpr("xi", "np.putmask(y, xi > 0, xi * 1.5)"), ins("xi", xi), func(e *npEnv) *tensor.Tensor {
			return tensor.PutMask(e.v("xi"), e.v("xi").Greater(0), e.v("xi").Mul(1.5))
		}).fails(),
		one("putmask float from int", npSetExpr("x", "np.putmask(y, x > 0.5, i1)"), ins("x", x, "i1", i1), func(e *npEnv) *tensor.Tensor {
			return tensor.PutMask(e.v("x"), e.v("x").Greater(0.5), e.v("i1"))
		}),
		one("choose", "np.choose(c, [x, -x, x * 2])", ins("x", x, "c", npI(dI64, 480, 0, 2, 7, 6)), func(e *npEnv) *tensor.Tensor {
			return tensor.Choose(e.v("c"), []*tensor.Tensor{e.v("x"), e.v("x").Neg(), e.v("x").Mul(2)}, "raise")
		}),
		one("choose broadcast, scalar choice", "np.choose(c, [v6, 0.5])", ins("v6", v6, "c", npI(dI32, 481, 0, 1, 7, 1)), func(e *npEnv) *tensor.Tensor {
			return tensor.Choose(e.v("c"), []*tensor.Tensor{e.v("v6"), tensor.Scalar(0.5)}, "raise")
		}),
		one("choose wrap", "np.choose(c, [x, -x, x * 2], mode='wrap')", ins("x", x, "c", npI(dI64, 482, -7, 7, 7, 6)), func(e *npEnv) *tensor.Tensor {
			return tensor.Choose(e.v("c"), []*tensor.Tensor{e.v("x"), e.v("x").Neg(), e.v("x").Mul(2)}, "wrap")
		}),
		one("choose clip", "np.choose(c, [x, -x], mode='clip')", ins("x", x, "c", npI(dI64, 483, -3, 4, 7, 6)), func(e *npEnv) *tensor.Tensor {
			return tensor.Choose(e.v("c"), []*tensor.Tensor{e.v("x"), e.v("x").Neg()}, "clip")
		}),
		npOne("choose invalid entry", "np.choose(c, [x, -x])", ins("x", x, "c", npI(dI64, 484, 0, 2, 7, 6)), func(e *npEnv) *tensor.Tensor {
			return tensor.Choose(e.v("c"), []*tensor.Tensor{e.v("x"), e.v("x").Neg()}, "raise")
		}).fails(),
		one("put", npSetExpr("x", "np.put(y, i1, v6)"), ins("x", x, "i1", i1, "v6", v6), func(e *npEnv) *tensor.Tensor {
			return tensor.Put(e.v("x"), e.v("i1"), e.v("v6"))
		}),
		one("put cycled", npSetExpr("xi", "np.put(y, [0, 39, -1, 5], [7, 8])"), ins("xi", xi), func(e *npEnv) *tensor.Tensor {
			return tensor.Put(e.v("xi"), tensor.FromSlice([]int64{0, 39, -1, 5}, []int{4}), tensor.FromSlice([]int64{7, 8}, []int{2}))
		}),
		one("place", npSetExpr("x", "np.place(y, m, v6)"), ins("x", x, "m", m, "v6", v6), func(e *npEnv) *tensor.Tensor {
			return tensor.Place(e.v("x"), e.v("m"), e.v("v6"))
		}),
		one("fill_diagonal", npSetExpr("sq", "np.fill_diagonal(y, 3)"), ins("sq", sq), func(e *npEnv) *tensor.Tensor { return tensor.FillDiagonal(e.v("sq"), 3, false) }),
		one("fill_diagonal tall", npSetExpr("tall", "np.fill_diagonal(y, [1, 2])"), ins("tall", tall), func(e *npEnv) *tensor.Tensor {
			return tensor.FillDiagonal(e.v("tall"), tensor.FromSlice([]float64{1, 2}, []int{2}), false)
		}),
		one("fill_diagonal wrap", npSetExpr("tall", "np.fill_diagonal(y, 9, wrap=True)"), ins("tall", tall), func(e *npEnv) *tensor.Tensor {
			return tensor.FillDiagonal(e.v("tall"), 9, true)
		}),
		one("fill_diagonal cube", npSetExpr("cube", "np.fill_diagonal(y, -1)"), ins("cube", cube), func(e *npEnv) *tensor.Tensor { return tensor.FillDiagonal(e.v("cube"), -1, false) }),
		npOne("set mask count mismatch", npSetExpr("x", "y.__setitem__(m, v6)"), ins("x", x, "m", m, "v6", v6), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Mask(e.v("m"))), e.v("v6"))
		}).fails(),
		npOne("set shape mismatch", npSetExpr("x", "y.__setitem__(slice(0, 2), v4)"), ins("x", x, "v4", v4), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Range(0, 2)), e.v("v4"))
		}).fails(),
		npOne("set integer out of range", npSetExpr("x", "y.__setitem__([0, 7], 1)"), ins("x", x), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Set(tensor.Ix(tensor.Array(tensor.FromSlice([]int64{0, 7}, []int{2}))), 1)
		}).fails(),
	}
}

// withBuild replaces a case's builder.
func (c npCase) withBuild(f func(e *npEnv) *tensor.Tensor) npCase {
	c.build = func(e *npEnv) []*tensor.Tensor { return []*tensor.Tensor{f(e)} }
	return c
}
