package phobos_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// setopsCases: argsort (stable, so compared exactly with NumPy's
// kind='stable'), partition and argpartition (NumPy allows any arrangement
// with the kth elements in place, so the kth values and the guarantee are
// compared, not the arrangement), unique's extras and the set operations,
// with duplicates, NaNs, infinities, signed zeros and empty inputs.
func setopsCases() []npCase {
	one := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		return npOne(name, expr, in, f).alsoWorkers()
	}
	argsort0 := func(name string, a *ndarray.Array) npCase {
		return one("argsort "+name, "np.argsort(a, kind='stable')", ins("a", a), func(e *npEnv) *tensor.Tensor { return e.v("a").Argsort(0) })
	}
	zeros := npFill(dF64, 0, []int{23}, func(i int, _ *npLCG) float64 {
		return []float64{0, math.Copysign(0, -1), 1, -1, math.NaN()}[i%5]
	})
	long := npR(dF64, 901, 997)
	// distinct: assume_unique's inputs must be (NumPy's answer is undefined otherwise).
	distinct := npFill(dF64, 0, []int{997}, func(i int, _ *npLCG) float64 { return float64(i*7919%997) + 0.5 })
	dups := npI(dI64, 902, -4, 4, 61)
	special := npSpecial(dF64, 903, 37)
	mostlyTwos := npFill(dF64, 0, []int{40}, func(i int, _ *npLCG) float64 { return []float64{2, 2, 2, 2, 2, 2, 2, -3, 9, 2}[i%10] })
	uniqueAll := func(name string, a *ndarray.Array) npCase {
		return npMany("unique all "+name, "np.unique(a, return_index=True, return_inverse=True, return_counts=True)", ins("a", a),
			func(e *npEnv) []*tensor.Tensor {
				v, i, inv, c := tensor.UniqueAll(e.v("a"))
				return []*tensor.Tensor{v, i, inv, c}
			}).alsoWorkers()
	}
	// kthCheck compares the kth values of partition(a, ks) with the sorted
	// array's and checks NumPy's guarantee around each (a 1 for each k).
	kthCheck := func(name string, a *ndarray.Array, ks []int, arg bool) npCase {
		n := a.Shape()[0]
		expr := fmt.Sprintf("(np.sort(a)[%s], np.ones(%d, bool))", pyInts(ks), len(ks))
		return npMany(name, expr, ins("a", a), func(e *npEnv) []*tensor.Tensor {
			x := e.v("a")
			var p *tensor.Tensor
			if arg {
				// The take's source in a few chunks: a take pairs every chunk of
				// its indices with every chunk of its source.
				p = tensor.Take(x.Rechunk(tensor.Chunks(128)), tensor.Argpartition(x, ks, 0))
			} else {
				p = tensor.Partition(x, ks, 0)
			}
			var ok []*tensor.Tensor
			for _, k := range ks {
				k = (k + n) % n
				pk := p.Index(tensor.Range(k, k+1))
				below := p.Index(tensor.To(k)).LessEqual(pk).All()
				above := p.Index(tensor.From(k + 1)).GreaterEqual(pk).All()
				ok = append(ok, below.And(above).Reshape(1))
			}
			idx := tensor.FromSlice(ks, []int{len(ks)}, tensor.WithDType(ndarray.Int64))
			return []*tensor.Tensor{tensor.Take(p, idx), tensor.Concatenate(0, ok...)}
		}).alsoWorkers()
	}
	return []npCase{
		argsort0("float64", npR(dF64, 904, 41)),
		argsort0("float32", npR(dF32, 905, 37)),
		argsort0("int64 duplicates", dups),
		argsort0("int32", npI(dI32, 906, -1000, 1000, 29)),
		argsort0("bool", npB(907, 23)),
		argsort0("special values", special),
		argsort0("signed zeros and NaNs", zeros),
		argsort0("all equal", npFill(dF64, 0, []int{40}, func(int, *npLCG) float64 { return 2.5 })),
		argsort0("long", long),
		argsort0("one element", npR(dF64, 908, 1)),
		argsort0("empty", npR(dF64, 909, 0)),
		one("argsort more chunks than parts", "np.argsort(a, kind='stable')", ins("a", npI(dI64, 910, 0, 50, 2000)), func(e *npEnv) *tensor.Tensor {
			return e.v("a").Rechunk(tensor.Chunks(37)).Argsort(0)
		}),
		one("argsort takes the sort", "a[np.argsort(a, kind='stable')]", ins("a", special), func(e *npEnv) *tensor.Tensor {
			return tensor.Take(e.v("a"), e.v("a").Argsort(0))
		}),
		one("argsort 2-d last axis", "np.argsort(a, kind='stable')", ins("a", npI(dI64, 911, -3, 3, 9, 13)), func(e *npEnv) *tensor.Tensor { return e.v("a").Argsort(-1) }),
		one("argsort 2-d axis 0", "np.argsort(a, axis=0, kind='stable')", ins("a", npSpecial(dF64, 912, 9, 13)), func(e *npEnv) *tensor.Tensor { return e.v("a").Argsort(0) }),
		one("argsort 3-d axis 1", "np.argsort(a, axis=1, kind='stable')", ins("a", npR(dF32, 913, 3, 7, 4)), func(e *npEnv) *tensor.Tensor { return e.v("a").Argsort(1) }),
		one("argsort flattened", "np.argsort(a, axis=None, kind='stable')", ins("a", npI(dI32, 914, 0, 5, 6, 7)), func(e *npEnv) *tensor.Tensor {
			return e.v("a").Ravel().Argsort(0)
		}),
		npOne("argsort bad axis", "np.argsort(a, axis=2)", ins("a", npR(dF64, 915, 3, 4)), func(e *npEnv) *tensor.Tensor { return e.v("a").Argsort(2) }).fails(),
		kthCheck("partition kth", long, []int{0, 17, 500, -1}, false),
		kthCheck("partition duplicates", dups, []int{30}, false),
		kthCheck("argpartition kth", long, []int{3, 996}, true),
		kthCheck("argpartition duplicates", dups, []int{0, 7, -3}, true),
		one("partition 2-d axis 1 kth values", "np.partition(a, 4, axis=1)[:, 4]", ins("a", npI(dI64, 916, -9, 9, 6, 11)), func(e *npEnv) *tensor.Tensor {
			return tensor.Partition(e.v("a"), []int{4}, 1).Index(tensor.All(), tensor.At(4))
		}),
		npOne("partition kth out of bounds", "np.partition(a, 41)", ins("a", npR(dF64, 917, 41)), func(e *npEnv) *tensor.Tensor {
			return tensor.Partition(e.v("a"), []int{41}, 0)
		}).fails(),
		npOne("argpartition kth below bounds", "np.argpartition(a, -42)", ins("a", npR(dF64, 918, 41)), func(e *npEnv) *tensor.Tensor {
			return tensor.Argpartition(e.v("a"), []int{-42}, 0)
		}).fails(),
		uniqueAll("ints", npI(dI64, 919, -6, 6, 5, 9)),
		uniqueAll("special", special),
		uniqueAll("signed zeros and NaNs", zeros),
		uniqueAll("float32", npI(dF32, 920, 0, 9, 33)),
		uniqueAll("bool", npB(921, 17)),
		uniqueAll("long", npI(dI32, 922, 0, 300, 997)),
		uniqueAll("one element", npR(dF64, 923, 1)),
		uniqueAll("empty", npR(dF64, 924, 0)),
		// The unique tables' merge tree: many chunks (single elements, odd
		// splits), values that never repeat, the dtypes with order keys.
		uniqueAll("all distinct", npI(dI64, 960, -1_000_000_000, 1_000_000_000, 301)),
		uniqueAll("uint64", npI(ndarray.Uint64, 961, 0, 40, 50)),
		uniqueAll("int8", npI(ndarray.Int8, 962, -128, 127, 77)),
		uniqueAll("2-d", npI(dI64, 963, 0, 7, 9, 11)),
		uniqueAll("float32 signed zeros and NaNs", npFill(dF32, 0, []int{19}, func(i int, _ *npLCG) float64 {
			return []float64{math.Copysign(0, -1), math.NaN(), 0, 3, math.Inf(-1), math.NaN()}[i%6]
		})),
		uniqueAll("all NaN", npFill(dF64, 0, []int{7}, func(int, *npLCG) float64 { return math.NaN() })),
		uniqueAll("one value", npFill(dF64, 0, []int{29}, func(int, *npLCG) float64 { return 2.5 })),
		one("unique values all distinct", "np.unique(a)", ins("a", npR(dF64, 964, 203)), func(e *npEnv) *tensor.Tensor { return tensor.Unique(e.v("a")) }),
		one("unique values 2-d float32", "np.unique(a)", ins("a", npI(dF32, 965, -3, 3, 7, 5)), func(e *npEnv) *tensor.Tensor { return tensor.Unique(e.v("a")) }),
		one("union1d", "np.union1d(a, b)", ins("a", npI(dI64, 925, -9, 9, 4, 6), "b", npI(dI32, 926, 0, 20, 7)), func(e *npEnv) *tensor.Tensor {
			return tensor.Union1d(e.v("a"), e.v("b"))
		}),
		one("union1d special", "np.union1d(a, b)", ins("a", special, "b", npSpecial(dF64, 927, 9)), func(e *npEnv) *tensor.Tensor {
			return tensor.Union1d(e.v("a"), e.v("b"))
		}),
		one("intersect1d", "np.intersect1d(a, b)", ins("a", npI(dI64, 928, -9, 9, 40), "b", npI(dF64, 929, 0, 20, 13)), func(e *npEnv) *tensor.Tensor {
			return tensor.Intersect1d(e.v("a"), e.v("b"), false)
		}),
		one("intersect1d special", "np.intersect1d(a, b)", ins("a", special, "b", npSpecial(dF64, 930, 40)), func(e *npEnv) *tensor.Tensor {
			return tensor.Intersect1d(e.v("a"), e.v("b"), false)
		}),
		one("intersect1d assume_unique", "np.intersect1d(a, np.concatenate([b, a[3:9]]), assume_unique=True)", ins("a", distinct, "b", npR(dF64, 931, 30)), func(e *npEnv) *tensor.Tensor {
			return tensor.Intersect1d(e.v("a"), tensor.Concatenate(0, e.v("b"), e.v("a").Index(tensor.Range(3, 9))), true)
		}),
		one("intersect1d assume_unique duplicates", "np.intersect1d(a, b, assume_unique=True)", ins("a", dups, "b", npI(dI64, 932, 0, 3, 5)), func(e *npEnv) *tensor.Tensor {
			return tensor.Intersect1d(e.v("a"), e.v("b"), true)
		}),
		one("setdiff1d", "np.setdiff1d(a, b)", ins("a", npI(dI64, 933, -9, 9, 5, 8), "b", npI(dI64, 934, -3, 6, 11)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setdiff1d(e.v("a"), e.v("b"), false)
		}),
		one("setdiff1d special", "np.setdiff1d(a, b)", ins("a", special, "b", npSpecial(dF64, 935, 20)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setdiff1d(e.v("a"), e.v("b"), false)
		}),
		one("setdiff1d assume_unique", "np.setdiff1d(a, np.concatenate([b, a[10:30]]), assume_unique=True)", ins("a", distinct, "b", npR(dF64, 936, 30)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setdiff1d(e.v("a"), tensor.Concatenate(0, e.v("b"), e.v("a").Index(tensor.Range(10, 30))), true)
		}),
		one("setxor1d", "np.setxor1d(a, b)", ins("a", npI(dI64, 937, -9, 9, 30), "b", npI(dI32, 938, 0, 20, 17)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setxor1d(e.v("a"), e.v("b"), false)
		}),
		one("setxor1d special (a NaN from each)", "np.setxor1d(a, b)", ins("a", special, "b", npSpecial(dF64, 939, 20)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setxor1d(e.v("a"), e.v("b"), false)
		}),
		one("setxor1d NaN in one", "np.setxor1d(a, b)", ins("a", zeros, "b", npI(dF64, 940, -2, 2, 9)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setxor1d(e.v("a"), e.v("b"), false)
		}),
		one("setxor1d assume_unique", "np.setxor1d(a, np.concatenate([b, a[3:9]]), assume_unique=True)", ins("a", distinct, "b", npR(dF64, 941, 30)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setxor1d(e.v("a"), tensor.Concatenate(0, e.v("b"), e.v("a").Index(tensor.Range(3, 9))), true)
		}),
		one("union1d empty", "np.union1d(a, b)", ins("a", npR(dF64, 942, 0), "b", npI(dI64, 943, 0, 4, 9)), func(e *npEnv) *tensor.Tensor {
			return tensor.Union1d(e.v("a"), e.v("b"))
		}),
		one("intersect1d empty", "np.intersect1d(a, b)", ins("a", dups, "b", npR(dF64, 944, 0)), func(e *npEnv) *tensor.Tensor {
			return tensor.Intersect1d(e.v("a"), e.v("b"), false)
		}),
		one("setdiff1d empty", "np.setdiff1d(a, b)", ins("a", dups, "b", npR(dF64, 945, 0)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setdiff1d(e.v("a"), e.v("b"), false)
		}),
		one("setxor1d empty both", "np.setxor1d(a, b)", ins("a", npR(dF64, 946, 0), "b", npR(dF64, 947, 0)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setxor1d(e.v("a"), e.v("b"), false)
		}),
		// Histogram rules on data whose quartiles are equal (fd's width 0:
		// one bin; auto falls back to Sturges) and on duplicate-heavy data.
		npOne("bin count fd zero IQR", "np.int64(len(np.histogram_bin_edges(a, bins='fd')) - 1)", ins("a", mostlyTwos), func(e *npEnv) *tensor.Tensor {
			return tensor.HistogramBinCount(e.v("a"), "fd")
		}),
		npOne("bin count auto zero IQR", "np.int64(len(np.histogram_bin_edges(a, bins='auto')) - 1)", ins("a", mostlyTwos), func(e *npEnv) *tensor.Tensor {
			return tensor.HistogramBinCount(e.v("a"), "auto")
		}),
		npOne("bin count auto duplicates", "np.int64(len(np.histogram_bin_edges(a, bins='auto')) - 1)", ins("a", dups), func(e *npEnv) *tensor.Tensor {
			return tensor.HistogramBinCount(e.v("a"), "auto")
		}),
		npOne("bin count fd long range", "np.int64(len(np.histogram_bin_edges(a, bins='fd', range=(-0.5, 0.7))) - 1)", ins("a", long), func(e *npEnv) *tensor.Tensor {
			return tensor.HistogramBinCount(e.v("a"), "fd", tensor.HistRange(-0.5, 0.7))
		}),
		npOne("bin count auto special in range", "np.int64(len(np.histogram_bin_edges(a, bins='auto', range=(-1, 1))) - 1)", ins("a", special), func(e *npEnv) *tensor.Tensor {
			return tensor.HistogramBinCount(e.v("a"), "auto", tensor.HistRange(-1, 1))
		}),
		npOne("histogram auto empty", "np.int64(len(np.histogram_bin_edges(a, bins='auto')) - 1)", ins("a", npR(dF64, 950, 0)), func(e *npEnv) *tensor.Tensor {
			return tensor.HistogramBinCount(e.v("a"), "auto")
		}),
		one("setxor1d one element", "np.setxor1d(a, b, assume_unique=True)", ins("a", npR(dF64, 948, 1), "b", npR(dF64, 949, 0)), func(e *npEnv) *tensor.Tensor {
			return tensor.Setxor1d(e.v("a"), e.v("b"), true)
		}),
	}
}

// pyInts is ks as a Python list.
func pyInts(ks []int) string {
	s := "["
	for _, k := range ks {
		s += fmt.Sprintf("%d, ", k)
	}
	return s + "]"
}

// TestSetopsNumpyDifferential runs setopsCases against NumPy under every
// chunking, with fusion on and off and on two workers.
func TestSetopsNumpyDifferential(t *testing.T) {
	npSuite(t, "setops", setopsCases(), npChunkAll, npSuiteModes)
}
