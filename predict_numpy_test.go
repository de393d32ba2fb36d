package phobos_test

import (
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// npPredictCases: the kernels of a linear classifier's predict
// (scikit-learn's take(classes, argmax(X @ coef.T + intercept, axis=1))):
// a row broadcast over a matrix's rows (the periodic elementwise path, for
// several periods, operand orders, dtypes and comparisons), argmin and
// argmax along the last axis of chunks that hold it whole (ties, signed
// zeros, NaN first, last and alone, every dtype the direct path takes),
// and take from an array whose axis is one block, whole and chained.
func npPredictCases() []npCase {
	x := npR(dF64, 601, 40, 3)
	x32 := npR(dF32, 602, 40, 3)
	xi := npI(dI64, 603, -9, 9, 40, 3)
	x5 := npR(dF64, 604, 30, 5)
	x3 := npR(dF64, 605, 6, 4, 5)
	b3 := npR(dF64, 606, 3)
	b3f := npR(dF32, 607, 3)
	b3i := npI(dI64, 608, -3, 3, 3)
	b5 := npR(dF64, 609, 5)
	b45 := npR(dF64, 610, 4, 5)
	w := npR(dF64, 611, 3, 6)
	xs := npR(dF64, 612, 41, 6)
	classes := npFill(dI64, 0, []int{3}, func(i int, _ *npLCG) float64 { return []float64{10, -4, 7}[i] })
	names := npFill(dF64, 0, []int{4}, func(i int, _ *npLCG) float64 { return []float64{0.5, -1, 2, 3.25}[i] })
	// Rows with ties, signed zeros and NaN in every place of a short row.
	sz := npFill(dF64, 0, []int{8, 3}, func(i int, _ *npLCG) float64 {
		nan := math.NaN()
		return []float64{
			math.Copysign(0, -1), 0, math.Copysign(0, -1),
			0, math.Copysign(0, -1), 1,
			2, 2, 2,
			nan, 5, 6,
			5, nan, 6,
			5, 6, nan,
			nan, nan, nan,
			math.Inf(-1), math.Inf(1), math.Inf(1),
		}[i]
	})
	sz32 := npFill(dF32, 0, []int{8, 3}, func(i int, _ *npLCG) float64 {
		return []float64{3, math.NaN(), 3, 1, 1, 0, -2, -1, -1, 0, 0, 0, math.Inf(1), 1, math.NaN(), -1, -3, -3, 4, 4, 5, 2, 1, 2}[i]
	})
	xb := npB(613, 9, 4)
	xi32 := npI(dI32, 614, -3, 3, 9, 4)
	idx := npI(dI64, 615, -3, 2, 25)
	idx2 := npI(dI64, 616, 0, 3, 5, 4)
	one := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		return npOne("predict: "+name, expr, in, f)
	}
	// Row-chunked as the benchmark's X is: whole rows, chunks of a few.
	rows := npChunking{"rows of 7", func(_ int, shape []int) tensor.Option {
		s := make([]int, len(shape))
		for i := range s {
			s[i] = -1
		}
		if len(s) > 0 {
			s[0] = 7
		}
		return tensor.Chunks(s...)
	}}
	all := append([]npChunking{rows, npChunkAxis}, npChunkAll...)
	cs := []npCase{
		one("row + matrix", "x + b", ins("x", x, "b", b3), func(e *npEnv) *tensor.Tensor { return e.v("x").Add(e.v("b")) }),
		one("row - matrix", "b - x", ins("x", x, "b", b3), func(e *npEnv) *tensor.Tensor { return e.v("b").Sub(e.v("x")) }),
		one("matrix * row of 5", "x * b", ins("x", x5, "b", b5), func(e *npEnv) *tensor.Tensor { return e.v("x").Mul(e.v("b")) }),
		one("3-D / trailing 2-D block", "x / b", ins("x", x3, "b", b45), func(e *npEnv) *tensor.Tensor { return e.v("x").Div(e.v("b")) }),
		one("float32 row + matrix", "x + b", ins("x", x32, "b", b3f), func(e *npEnv) *tensor.Tensor { return e.v("x").Add(e.v("b")) }),
		one("int64 matrix - row", "x - b", ins("x", xi, "b", b3i), func(e *npEnv) *tensor.Tensor { return e.v("x").Sub(e.v("b")) }),
		one("complex row + matrix", "x + b", ins("x", npCRough(dC128, 618, 40, 3), "b", npCRough(dC128, 619, 3)), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Add(e.v("b"))
		}),
		one("int64 matrix % row", "x % b", ins("x", xi, "b", npFill(dI64, 0, []int{3}, func(i int, _ *npLCG) float64 { return []float64{4, -3, 7}[i] })), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Mod(e.v("b"))
		}),
		one("matrix > row", "x > b", ins("x", x, "b", b3), func(e *npEnv) *tensor.Tensor { return e.v("x").Greater(e.v("b")) }),
		one("row <= matrix", "b <= x", ins("x", x, "b", b3), func(e *npEnv) *tensor.Tensor { return e.v("b").LessEqual(e.v("x")) }),
		one("row + transposed matrix", "x.T[:, :3] + b", ins("x", x, "b", b3), func(e *npEnv) *tensor.Tensor {
			return e.v("x").T().Index(tensor.All(), tensor.To(3)).Add(e.v("b"))
		}),
		one("decision function", "x @ w.T + b", ins("x", xs, "w", w, "b", b3), func(e *npEnv) *tensor.Tensor {
			return tensor.MatMul(e.v("x"), e.v("w").T()).Add(e.v("b"))
		}).tol(1e-12, 1e-14, "products summed over k chunks in another order"),
		one("predict", "np.take(k, np.argmax(x @ w.T + b, axis=1), axis=0)", ins("x", xs, "w", w, "b", b3, "k", classes), func(e *npEnv) *tensor.Tensor {
			return tensor.Take(e.v("k"), tensor.MatMul(e.v("x"), e.v("w").T()).Add(e.v("b")).ArgMax(tensor.Axis(1)), 0)
		}),
		one("take of a one-block table", "np.take(k, i, axis=0)", ins("k", classes, "i", idx), func(e *npEnv) *tensor.Tensor {
			return tensor.Take(e.v("k"), e.v("i"), 0)
		}),
		one("take of a one-block table, 2-D indices", "t[i]", ins("t", names, "i", idx2), func(e *npEnv) *tensor.Tensor {
			return e.v("t").Index(tensor.Array(e.v("i")))
		}),
		one("take of rows, 2-D indices", "np.take(x, i, axis=1)", ins("x", x3, "i", npI(dI64, 617, -4, 3, 2, 3)), func(e *npEnv) *tensor.Tensor {
			return tensor.Take(e.v("x"), e.v("i"), 1)
		}),
		npOne("predict: take of a one-block table out of range", "np.take(k, i, axis=0)", ins("k", classes, "i", npFill(dI64, 0, []int{4}, func(i int, _ *npLCG) float64 { return []float64{0, 2, 3, 1}[i] })), func(e *npEnv) *tensor.Tensor {
			return tensor.Take(e.v("k"), e.v("i"), 0)
		}).fails(),
	}
	type argIn struct {
		name string
		x    *ndarray.Array
	}
	for _, a := range []argIn{{"signed zeros, NaN", sz}, {"float32 NaN", sz32}, {"bool", xb}, {"int32", xi32}, {"int64", xi}, {"3-D", x3}} {
		for _, fn := range []string{"argmax", "argmin"} {
			f := (*tensor.Tensor).ArgMax
			if fn == "argmin" {
				f = (*tensor.Tensor).ArgMin
			}
			cs = append(cs, one(fmt.Sprintf("%s last axis, %s", fn, a.name), "x."+fn+"(axis=-1)", ins("x", a.x), func(e *npEnv) *tensor.Tensor {
				return f(e.v("x"), tensor.Axis(-1))
			}))
		}
	}
	for i := range cs {
		if !cs[i].wantErr {
			cs[i] = cs[i].with(all...).alsoWorkers()
		}
	}
	return cs
}
