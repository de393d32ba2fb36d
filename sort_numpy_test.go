package phobos_test

import (
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// npSortCases: numpy.sort over every chunking (PSRS for 1-D tensors in
// several chunks, lanes for the others), every dtype, NaNs and infinities,
// heavy duplicates (so that equal values span parts), and more chunks than
// the shuffle takes parts.
func npSortCases() []npCase {
	one := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		c := npOne(name, expr, in, f)
		c.workers = true
		return c
	}
	sort0 := func(name string, a *ndarray.Array) npCase {
		return one("sort "+name, "np.sort(a)", ins("a", a), func(e *npEnv) *tensor.Tensor { return e.v("a").Sort(0) })
	}
	long := npR(dF64, 451, 997)
	many := npR(dF64, 458, 2000)
	return []npCase{
		sort0("float64", npR(dF64, 452, 41)),
		sort0("float32", npR(dF32, 453, 37)),
		sort0("int64 duplicates", npI(dI64, 454, -3, 3, 50)),
		sort0("int32", npI(dI32, 455, -1000, 1000, 29)),
		sort0("bool", npB(456, 23)),
		sort0("special values", npSpecial(dF64, 457, 31)),
		sort0("all equal", npFill(dF64, 0, []int{40}, func(int, *npLCG) float64 { return 2.5 })),
		sort0("long", long),
		one("sort more chunks than parts", "np.sort(a)", ins("a", many), func(e *npEnv) *tensor.Tensor {
			return e.v("a").Rechunk(tensor.Chunks(37)).Sort(0)
		}),
		one("sort then sum", "np.sort(a)[::-1].cumsum()[-1]", ins("a", long), func(e *npEnv) *tensor.Tensor {
			return e.v("a").Sort(0).Index(tensor.Rev()).Sum()
		}).tol(1e-12, 1e-12, "a sum in another order"),
		one("sort slice of the sorted", "np.sort(a)[5:15]", ins("a", long), func(e *npEnv) *tensor.Tensor {
			return e.v("a").Sort(0).Index(tensor.Range(5, 15))
		}),
		one("sort 2-d last axis", "np.sort(a)", ins("a", npR(dF64, 459, 9, 13)), func(e *npEnv) *tensor.Tensor { return e.v("a").Sort(-1) }),
		one("sort 2-d axis 0", "np.sort(a, axis=0)", ins("a", npI(dI64, 460, -5, 5, 9, 13)), func(e *npEnv) *tensor.Tensor { return e.v("a").Sort(0) }),
		one("sort 3-d axis 1", "np.sort(a, axis=1)", ins("a", npR(dF32, 461, 3, 7, 4)), func(e *npEnv) *tensor.Tensor { return e.v("a").Sort(1) }),
		one("sort flattened", "np.sort(a, axis=None)", ins("a", npR(dF64, 462, 6, 7)), func(e *npEnv) *tensor.Tensor { return e.v("a").Ravel().Sort(0) }),
		one("sort empty", "np.sort(a)", ins("a", npR(dF64, 463, 0)), func(e *npEnv) *tensor.Tensor { return e.v("a").Sort(0) }),
		one("searchsorted left", "np.searchsorted(np.sort(a), v)", ins("a", long, "v", npR(dF64, 465, 5, 7)), func(e *npEnv) *tensor.Tensor {
			return tensor.SearchSorted(e.v("a").Sort(0), e.v("v"), "left")
		}),
		one("searchsorted right ints", "np.searchsorted(np.sort(a), v, side='right')", ins("a", npI(dI64, 466, -4, 4, 60), "v", npI(dI64, 467, -5, 5, 13)), func(e *npEnv) *tensor.Tensor {
			return tensor.SearchSorted(e.v("a").Sort(0), e.v("v"), "right")
		}),
		one("searchsorted special", "np.searchsorted(np.sort(a), v)", ins("a", npSpecial(dF64, 468, 31), "v", npSpecial(dF64, 469, 11)), func(e *npEnv) *tensor.Tensor {
			return tensor.SearchSorted(e.v("a").Sort(0), e.v("v"), "")
		}),
		one("unique ints", "np.unique(a)", ins("a", npI(dI64, 470, -6, 6, 5, 9)), func(e *npEnv) *tensor.Tensor { return tensor.Unique(e.v("a")) }),
		one("unique special", "np.unique(a)", ins("a", npSpecial(dF64, 471, 40)), func(e *npEnv) *tensor.Tensor { return tensor.Unique(e.v("a")) }),
		one("unique bool", "np.unique(a)", ins("a", npB(472, 17)), func(e *npEnv) *tensor.Tensor { return tensor.Unique(e.v("a")) }),
		one("unique count", "np.unique(a).size", ins("a", npI(dI32, 473, 0, 30, 100)), func(e *npEnv) *tensor.Tensor {
			return tensor.Unique(e.v("a")).Astype(ndarray.Bool).Or(true).CountNonzero()
		}),
		one("isin", "np.isin(a, b)", ins("a", npI(dI64, 474, -9, 9, 4, 6), "b", npI(dI32, 475, -9, 9, 7)), func(e *npEnv) *tensor.Tensor {
			return tensor.Isin(e.v("a"), e.v("b"))
		}),
		one("isin special", "np.isin(a, b)", ins("a", npSpecial(dF64, 476, 23), "b", npSpecial(dF64, 477, 9)), func(e *npEnv) *tensor.Tensor {
			return tensor.Isin(e.v("a"), e.v("b"))
		}),
		one("topk", "np.sort(a)[::-1][:7]", ins("a", long), func(e *npEnv) *tensor.Tensor { return tensor.TopK(e.v("a"), 7, 0, true) }),
		one("topk smallest ints", "np.sort(a, kind='stable')[:9]", ins("a", npI(dI64, 478, -5, 5, 80)), func(e *npEnv) *tensor.Tensor {
			return tensor.TopK(e.v("a"), 9, 0, false)
		}),
		one("argtopk smallest (ties by position)", "np.argsort(a, kind='stable')[:9]", ins("a", npI(dI64, 479, -5, 5, 80)), func(e *npEnv) *tensor.Tensor {
			return tensor.ArgTopK(e.v("a"), 9, 0, false)
		}),
		one("argtopk largest", "np.argsort(-a, kind='stable')[:5]", ins("a", long), func(e *npEnv) *tensor.Tensor { return tensor.ArgTopK(e.v("a"), 5, 0, true) }),
		one("topk 2-d axis 0", "np.sort(a, axis=0)[::-1][:3]", ins("a", npR(dF32, 480, 11, 6)), func(e *npEnv) *tensor.Tensor { return tensor.TopK(e.v("a"), 3, 0, true) }),
		one("topk 2-d all", "np.sort(a, axis=1)[:, :6]", ins("a", npR(dF64, 481, 4, 6)), func(e *npEnv) *tensor.Tensor { return tensor.TopK(e.v("a"), 6, 1, false) }),
		one("topk special", "np.sort(a)[::-1][:4]", ins("a", npSpecial(dF64, 482, 25)), func(e *npEnv) *tensor.Tensor { return tensor.TopK(e.v("a"), 4, 0, true) }),
		npOne("topk k too large", "np.sort(a)[::-1][:100][99]", ins("a", npR(dF64, 483, 30)), func(e *npEnv) *tensor.Tensor { return tensor.TopK(e.v("a"), 100, 0, true) }).fails(),
		npOne("sort bad axis", "np.sort(a, axis=2)", ins("a", npR(dF64, 464, 3, 4)), func(e *npEnv) *tensor.Tensor { return e.v("a").Sort(2) }).fails(),
	}
}
