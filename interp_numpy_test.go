package phobos_test

import (
	"math"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// interpCases: numpy.interp at points inside, outside and exactly on the
// sample points, NaN and infinite x, infinite fp (NumPy's retried slope),
// one sample point, left/right, periods (x and xp wrapped, xp unsorted,
// negative period), integer and float32 inputs of any shape, and NumPy's
// refusals.
func interpCases() []npCase {
	in := func(name, expr string, x, xp, fp *ndarray.Array, op ops.Interp) npCase {
		return npOne("interp "+name, expr, ins("x", x, "xp", xp, "fp", fp), func(e *npEnv) *tensor.Tensor {
			return tensor.New(op, e.v("x"), e.v("xp"), e.v("fp"))
		})
	}
	f := func(v ...float64) *ndarray.Array {
		a, err := ndarray.FromFloat64s([]int{len(v)}, v)
		if err != nil {
			panic(err)
		}
		return a
	}
	xs := npFill(dF64, 0, []int{41}, func(i int, _ *npLCG) float64 { return float64(i)*0.25 - 1.5 })
	xp := f(-1, 0, 0.5, 2, 3.25, 4, 7)
	fp := npR(dF64, 1600, 7)
	special := f(math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, 7, 3.25, 6.999, -1.0000001)
	infFp := f(0, math.Inf(1), math.Inf(1), 2, math.Inf(-1), 5, 5)
	l, r := -10.0, 99.0
	return []npCase{
		in("inside and out", "np.interp(x, xp, fp)", xs, xp, fp, ops.Interp{}),
		in("special x", "np.interp(x, xp, fp)", special, xp, fp, ops.Interp{}),
		in("infinite fp", "np.interp(x, xp, fp)", xs, xp, infFp, ops.Interp{}),
		in("left right", "np.interp(x, xp, fp, left=-10.0, right=99.0)", xs, xp, fp, ops.Interp{Left: &l, Right: &r}),
		in("one point", "np.interp(x, xp, fp)", special, f(3.25), f(8), ops.Interp{}),
		in("one point left", "np.interp(x, xp, fp, left=-10.0)", xs, f(0), f(8), ops.Interp{Left: &l}),
		in("2-D x", "np.interp(x, xp, fp)", npR(dF64, 1601, 5, 7), f(-1, -0.5, 0, 0.25, 1), npR(dF64, 1602, 5), ops.Interp{}),
		in("int and float32", "np.interp(x, xp, fp)", npI(dI64, 1603, -3, 12, 23), npArange(dI32, 10), npR(dF32, 1604, 10), ops.Interp{}),
		in("period", "np.interp(x, xp, fp, period=360)", npFill(dF64, 0, []int{29}, func(i int, _ *npLCG) float64 { return float64(i)*37 - 400 }),
			f(190, -190, 350, 10, -180, 185), f(5, 10, 3, 1, 8, 2), ops.Interp{Period: 360}),
		in("period 2-D", "np.interp(x, xp, fp, period=1.5)", npR(dF64, 1605, 4, 6), f(0.1, 0.7, 1.2), f(1, -1, 4), ops.Interp{Period: 1.5}),
		in("lengths differ", "np.interp(x, xp, fp)", xs, f(1, 2, 3), f(1, 2), ops.Interp{}).fails(),
		in("no points", "np.interp(x, xp, fp)", xs, f(), f(), ops.Interp{}).fails(),
		in("2-D xp", "np.interp(x, xp, fp)", xs, npR(dF64, 1606, 2, 2), npR(dF64, 1607, 2, 2), ops.Interp{}).fails(),
	}
}

// TestInterpNumpyDifferential runs interpCases against NumPy under every
// chunking, with fusion on and off and on two workers.
func TestInterpNumpyDifferential(t *testing.T) {
	npSuite(t, "interp", interpCases(), npChunkAll, npSuiteModes)
}
