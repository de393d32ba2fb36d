package phobos_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// The NumPy differential suite of the ufuncs of ndarray/ufunc.go and the
// functions built on them (tensor/ufunc.go), in the manner of
// numpy_diff_test.go: every case is a Phobos expression and its NumPy
// spelling on the same inputs, run under several chunkings, with fusion on
// and off, some also on two workers.
//
// The comparison is stricter than numpy_diff_test.go's: ints and bools
// exactly; floats bit for bit (zeros must agree in sign, NaN matches NaN)
// except where a case allows ULPs. Those are the transcendental functions,
// where NumPy 1.24 on an AVX-512 machine calls Intel's SVML (up to 4 ULPs
// from the exact value, and not the same bits as glibc, which NumPy uses
// elsewhere): Phobos is within an ULP of the exact value, so it agrees with
// NumPy to a few ULPs; ufTol holds the bounds, and the test logs the largest
// distance seen per function.
//
// NumPy computes bool inputs of float functions in float16, as Phobos
// does (computed in float32, each result rounded once).

// ufTol is the float tolerance of an op in ULPs of the result type, for
// float64 and float32 results; ops not listed are bit-exact.
var ufTol = map[string][2]uint64{
	"arcsin": {2, 2}, "arccos": {2, 2}, "arctan": {2, 2}, "sinh": {2, 2}, "cosh": {2, 2},
	"arcsinh": {2, 2}, "arccosh": {2, 2}, "arctanh": {2, 2}, "exp2": {2, 2}, "expm1": {2, 2},
	"log2": {2, 2}, "log10": {2, 2}, "arctan2": {2, 2}, "logaddexp": {2, 2},
	// NumPy's float64 cbrt is not glibc's on every CPU: on some without
	// AVX-512 it is up to 3 ULPs from the exact value, Phobos's (Go's)
	// within one, so the two may differ by 4.
	"cbrt":       {4, 2},
	"logaddexp2": {2, 2}, "float_power": {1, 1},
}

// ufCase is a case of this suite: an npCase with a float tolerance in ULPs.
type ufCase struct {
	npCase
	ulps  uint64
	op    string // the function, for its tolerance and the ULP statistics
	fixed bool   // ulps set by the case (a chain of ops): no statistics
}

// within sets the tolerance of a case that chains several ops.
func (c ufCase) within(ulps uint64) ufCase {
	c.ulps, c.fixed = ulps, true
	return c
}

// ufOp is one function under test.
type ufOp struct {
	name string // np.<name>
	un   func(x any) *tensor.Tensor
	bin  func(x, y any) *tensor.Tensor
	two  func(x any) (*tensor.Tensor, *tensor.Tensor) // frexp, modf
	two2 func(x, y any) (*tensor.Tensor, *tensor.Tensor)
	// intOnly: NumPy has integer and bool loops only; noBool: no loop for
	// bool (pairs); expInt: the second operand must be an integer (ldexp).
	intOnly, noBool, expInt bool
}

func (o ufOp) arity() int {
	if o.bin != nil || o.two2 != nil {
		return 2
	}
	return 1
}

// build applies the op, returning its results.
func (o ufOp) build(args ...any) []*tensor.Tensor {
	switch {
	case o.un != nil:
		return tt(o.un(args[0]))
	case o.bin != nil:
		return tt(o.bin(args[0], args[1]))
	case o.two != nil:
		a, b := o.two(args[0])
		return tt(a, b)
	}
	a, b := o.two2(args[0], args[1])
	return tt(a, b)
}

var ufUnary = []ufOp{
	{name: "arcsin", un: tensor.ArcSin}, {name: "arccos", un: tensor.ArcCos}, {name: "arctan", un: tensor.ArcTan},
	{name: "sinh", un: tensor.Sinh}, {name: "cosh", un: tensor.Cosh}, {name: "arcsinh", un: tensor.ArcSinh},
	{name: "arccosh", un: tensor.ArcCosh}, {name: "arctanh", un: tensor.ArcTanh}, {name: "exp2", un: tensor.Exp2},
	{name: "expm1", un: tensor.Expm1}, {name: "log2", un: tensor.Log2}, {name: "log10", un: tensor.Log10},
	{name: "cbrt", un: tensor.Cbrt}, {name: "reciprocal", un: tensor.Reciprocal}, {name: "rint", un: tensor.Rint},
	{name: "trunc", un: tensor.Trunc}, {name: "fix", un: tensor.Fix}, {name: "spacing", un: tensor.Spacing},
	{name: "signbit", un: tensor.SignBit}, {name: "degrees", un: tensor.Degrees}, {name: "radians", un: tensor.Radians},
	{name: "deg2rad", un: tensor.Deg2Rad}, {name: "rad2deg", un: tensor.Rad2Deg}, {name: "fabs", un: tensor.Fabs},
	{name: "positive", un: tensor.Positive, noBool: true}, {name: "isinf", un: tensor.IsInf},
	{name: "isneginf", un: tensor.IsNegInf}, {name: "isposinf", un: tensor.IsPosInf},
	{name: "nan_to_num", un: tensor.NanToNum}, {name: "invert", un: tensor.Invert, intOnly: true},
	{name: "frexp", two: tensor.Frexp}, {name: "modf", two: tensor.Modf},
}

var ufBinary = []ufOp{
	{name: "arctan2", bin: tensor.ArcTan2}, {name: "hypot", bin: tensor.Hypot}, {name: "logaddexp", bin: tensor.LogAddExp},
	{name: "logaddexp2", bin: tensor.LogAddExp2}, {name: "copysign", bin: tensor.CopySign},
	{name: "nextafter", bin: tensor.NextAfter}, {name: "ldexp", bin: tensor.Ldexp, expInt: true},
	{name: "fmod", bin: tensor.Fmod}, {name: "heaviside", bin: tensor.Heaviside},
	{name: "float_power", bin: tensor.FloatPower}, {name: "fmax", bin: tensor.Fmax}, {name: "fmin", bin: tensor.Fmin},
	{name: "gcd", bin: tensor.Gcd, intOnly: true, noBool: true}, {name: "lcm", bin: tensor.Lcm, intOnly: true, noBool: true},
	{name: "bitwise_and", bin: tensor.BitwiseAnd, intOnly: true}, {name: "bitwise_or", bin: tensor.BitwiseOr, intOnly: true},
	{name: "bitwise_xor", bin: tensor.BitwiseXor, intOnly: true}, {name: "left_shift", bin: tensor.LeftShift, intOnly: true},
	{name: "right_shift", bin: tensor.RightShift, intOnly: true}, {name: "divmod", two2: tensor.DivMod},
}

// ufFails says whether NumPy has no loop for the op on these dtypes.
func ufFails(o ufOp, dts ...ndarray.DType) bool {
	anyFloat, allBool := false, true
	for _, d := range dts {
		anyFloat = anyFloat || d.IsFloat()
		allBool = allBool && d == ndarray.Bool
	}
	switch {
	case o.intOnly && anyFloat, o.noBool && allBool:
		return true
	case o.expInt && dts[1].IsFloat():
		return true
	}
	return false
}

// ufWrap makes a NumPy result a tuple.
const ufWrap = "(lambda t: t if isinstance(t, tuple) else (t,))"

// ufExpr is the NumPy expression of np.<fn> applied to the inputs args
// (Python names), its results as a tuple. Float functions of bool give
// float16 on both sides.
func ufExpr(fn string, args []string, _ []ndarray.DType) string {
	return fmt.Sprintf("%s(np.%s(%s))", ufWrap, fn, strings.Join(args, ", "))
}

// ufOpCase is the case of op o on the named inputs.
func ufOpCase(name string, o ufOp, in []npIn, cks ...npChunking) ufCase {
	names := make([]string, len(in))
	dts := make([]ndarray.DType, len(in))
	for i, v := range in {
		names[i], dts[i] = v.name, v.arr.DType()
	}
	c := npMany(name, ufExpr(o.name, names, dts), in, func(e *npEnv) []*tensor.Tensor {
		args := make([]any, len(names))
		for i, n := range names {
			args[i] = e.v(n)
		}
		return o.build(args...)
	}).with(cks...)
	if ufFails(o, dts...) {
		c = c.fails()
		c.expr = fmt.Sprintf("np.%s(%s)", o.name, strings.Join(names, ", "))
	}
	return ufCase{npCase: c, op: o.name}
}

// Inputs.

var (
	ufNaN  = math.NaN()
	ufInf  = math.Inf(1)
	ufMax  = math.MaxFloat64
	ufMax2 = float64(math.MaxFloat32)
)

// ufFloatEdges are the special float64 inputs: signed zeros, subnormals,
// infinities, NaN, domain edges (±1 and their neighbours, 0.5), exact
// powers, overflow edges of sinh/cosh/exp2.
var ufFloatEdges = []float64{
	0, math.Copysign(0, -1), ufInf, -ufInf, ufNaN, math.Copysign(ufNaN, -1), 1, -1, 0.5, -0.5, 1.0000001, -1.0000001, 0.9999999,
	math.Nextafter(1, 2), math.Nextafter(1, 0), -math.Nextafter(1, 0), 2, 3, 8, 27, -27, 10, 100, 1000, 1e-8,
	5e-324, -5e-324, 1e-310, 2.2250738585072014e-308, 1e308, ufMax, -ufMax, 0.1, 2.5, -2.5, 1.5, -3.5,
	709.5, 710, 710.4758600739439, 711, -745.1, 1023.5, 1024, -1074, -1075.5, math.Pi, -math.Pi / 2, 1e15 + 0.5,
	4503599627370497, -4503599627370495.5, 88.7, 89.5, -103.5, 127.5, 128, -149.5, -150.5,
}

// ufFloat32Edges are the float32 counterparts.
var ufFloat32Edges = []float64{
	0, math.Copysign(0, -1), ufInf, -ufInf, ufNaN, math.Copysign(ufNaN, -1), 1, -1, 0.5, -0.5, float64(math.Nextafter32(1, 2)), float64(math.Nextafter32(1, 0)),
	-float64(math.Nextafter32(1, 0)), -float64(math.Nextafter32(1, 2)), 2, 3, 8, 27, -27, 10, 100, 1000, 1e-8,
	1.401298464324817e-45, -1.401298464324817e-45, 1e-40, 1.1754943508222875e-38, 1e38, ufMax2, -ufMax2, 0.1, 2.5, -2.5,
	1.5, -3.5, 88.7, 89.5, 89.4, -103.5, 127.5, 128, -149.5, -150.5, 8388609, -8388607.5, math.Pi, 1e30,
}

// ufIntEdges are the special integers: 0, ±1, small, and the extremes
// (placed by ufInts for each width).
var ufIntEdges = []int64{0, 1, -1, 2, -2, 3, 7, -7, 12, -18, 31, 32, 33, 63, 64, 65, 1000, 46341}

// ufFloats makes an array of dt and shape: the edges first, then values
// from rough(r).
func ufFloats(dt ndarray.DType, seed uint64, shape []int, edges []float64, rough func(r *npLCG) float64) *ndarray.Array {
	return npFill(dt, seed, shape, func(i int, r *npLCG) float64 {
		if i < len(edges) {
			return edges[i]
		}
		return rough(r)
	})
}

// ufInts makes an int32/int64 array: the edges and the type's extremes,
// then values in [-lo, lo].
func ufInts(dt ndarray.DType, seed uint64, shape []int, edges []int64, lo int64) *ndarray.Array {
	n := ndarray.Size(shape)
	r := npLCG(seed*0x9E3779B97F4A7C15 + 777)
	v := make([]int64, n)
	ext := []int64{math.MinInt64, math.MaxInt64, math.MinInt64 + 1, 1 << 53, 1<<53 + 1, 1 << 40, -(1 << 40)}
	if dt == ndarray.Int32 {
		ext = []int64{math.MinInt32, math.MaxInt32, math.MinInt32 + 1, 1 << 24, 1<<24 + 1, 1 << 20, -(1 << 20)}
	}
	all := append(slices.Clone(edges), ext...)
	for i := range v {
		if i < len(all) {
			v[i] = all[i]
		} else {
			v[i] = int64(r.next()%uint64(2*lo+1)) - lo
		}
	}
	if dt == ndarray.Int32 {
		w := make([]int32, n)
		for i := range w {
			w[i] = int32(v[i])
		}
		a, err := ndarray.FromInt32s(shape, w)
		if err != nil {
			panic(err)
		}
		return a
	}
	a, err := ndarray.FromInt64s(shape, v)
	if err != nil {
		panic(err)
	}
	return a
}

// ufUniform is a uniform value in [a, b).
func ufUniform(r *npLCG, a, b float64) float64 { return a + (b-a)*float64(r.next())/(1<<31) }

// ufLogUniform is ±exp(uniform(log lo, log hi)).
func ufLogUniform(r *npLCG, lo, hi float64, signed bool) float64 {
	v := math.Exp(ufUniform(r, math.Log(lo), math.Log(hi)))
	if signed && r.next()%2 == 0 {
		v = -v
	}
	return v
}

func ufRough(r *npLCG) float64 { return ufUniform(r, -4, 4) }

// The general inputs, one per dtype: 7x9 (odd, so chunkings cut unevenly).
var (
	ufGenF64 = ufFloats(dF64, 1, []int{7, 9}, ufFloatEdges, ufRough)
	ufGenF32 = ufFloats(dF32, 2, []int{7, 9}, ufFloat32Edges, ufRough)
	ufGenI64 = ufInts(dI64, 3, []int{7, 9}, ufIntEdges, 50)
	ufGenI32 = ufInts(dI32, 4, []int{7, 9}, ufIntEdges, 50)
	ufGenB   = npB(5, 7, 9)
)

// ufGen is the general input of a dtype.
func ufGen(dt ndarray.DType) *ndarray.Array {
	switch dt {
	case dF64:
		return ufGenF64
	case dF32:
		return ufGenF32
	case dI64:
		return ufGenI64
	case dI32:
		return ufGenI32
	}
	return ufGenB
}

// ufSecond is a second operand of a dtype, with other values in other
// places than ufGen's.
func ufSecond(dt ndarray.DType) *ndarray.Array {
	switch dt {
	case dF64:
		return ufFloats(dF64, 11, []int{7, 9}, slices.Concat(ufFloatEdges[20:], ufFloatEdges[:20]), ufRough)
	case dF32:
		return ufFloats(dF32, 12, []int{7, 9}, slices.Concat(ufFloat32Edges[15:], ufFloat32Edges[:15]), ufRough)
	case dI64:
		return ufInts(dI64, 13, []int{7, 9}, slices.Concat(ufIntEdges[9:], ufIntEdges[:9]), 40)
	case dI32:
		return ufInts(dI32, 14, []int{7, 9}, slices.Concat(ufIntEdges[9:], ufIntEdges[:9]), 40)
	}
	return npB(15, 7, 9)
}

// ufOuter is a column (k, 1) or row (1, k) of a dtype's edge values, so
// that col op row meets every pair of edges.
func ufOuter(dt ndarray.DType, col bool) *ndarray.Array {
	var a *ndarray.Array
	switch dt {
	case dF64:
		e := []float64{0, math.Copysign(0, -1), ufInf, -ufInf, ufNaN, 1, -1, 0.5, -2.5, 3, 5e-324, 1e-310, 1e308, ufMax, 709.5, -745.1, 64, -1075}
		a = ufFloats(dF64, 21, []int{len(e)}, e, ufRough)
	case dF32:
		e := []float64{0, math.Copysign(0, -1), ufInf, -ufInf, ufNaN, 1, -1, 0.5, -2.5, 3, 1.401298464324817e-45, 1e-40, 1e38, ufMax2, 88.7, -103.5, 64, -150}
		a = ufFloats(dF32, 22, []int{len(e)}, e, ufRough)
	case dI64:
		a = ufInts(dI64, 23, []int{18}, []int64{0, 1, -1, 2, -3, 6, 63, 64, 65, -64}, 10)
	case dI32:
		a = ufInts(dI32, 24, []int{18}, []int64{0, 1, -1, 2, -3, 6, 31, 32, 33, -32}, 10)
	default:
		a, _ = ndarray.FromBools([]int{2}, []bool{false, true})
	}
	n := a.Size()
	var err error
	if col {
		a, err = a.Reshape(n, 1)
	} else {
		a, err = a.Reshape(1, n)
	}
	if err != nil {
		panic(err)
	}
	return a
}

// ufExponents are ldexp exponents: 0, ±1, the float64 and float32
// over- and underflow edges, huge ones and the integer extremes.
func ufExponents(dt ndarray.DType) *ndarray.Array {
	e := []int64{0, 1, -1, 3, 127, 128, -126, -149, -150, 1023, 1024, -1022, -1074, -1075, 52, -53, 2000, -2000}
	return ufInts(dt, 31, []int{7, 9}, e, 1100)
}

var ufDTypes = []ndarray.DType{dF64, dF32, dI64, dI32, dBo}

// ufChunkSweep are the chunkings of the sweeps: an odd size and one chunk.
var ufChunkSweep = []npChunking{
	{"chunks 97", func(int, []int) tensor.Option { return tensor.Chunks(97) }},
	npChunkBig,
}

// ufCases is the whole table.
func ufCases() []ufCase {
	var cs []ufCase
	// Unary: every op on every dtype, on the general input.
	for _, o := range ufUnary {
		for _, dt := range ufDTypes {
			cks := npChunkAll
			if dt == dBo || dt == dI32 {
				cks = []npChunking{npChunkOdd, npChunkIrr}
			}
			cs = append(cs, ufOpCase(fmt.Sprintf("%s %v", o.name, dt), o, ins("x", ufGen(dt)), cks...))
		}
	}
	// Binary: every op on every pair of dtypes.
	for _, o := range ufBinary {
		for _, dx := range ufDTypes {
			for _, dy := range ufDTypes {
				if dx == dy {
					y := ufSecond(dy)
					if o.name == "ldexp" && dy.IsInt() {
						y = ufExponents(dy)
					}
					cs = append(cs, ufOpCase(fmt.Sprintf("%s %v %v", o.name, dx, dy), o, ins("x", ufGen(dx), "y", y), npChunkAll...))
					cs = append(cs, ufOpCase(fmt.Sprintf("%s %v %v outer", o.name, dx, dy), o,
						ins("c", ufOuter(dx, true), "r", ufOuter(dy, false)), npChunkOdd, npChunkIrr))
					continue
				}
				y := ufSecond(dy)
				if o.name == "ldexp" && dy.IsInt() {
					y = ufExponents(dy)
				}
				cks := []npChunking{npChunkOdd, npChunkIrr}
				if ufFails(o, dx, dy) {
					cks = []npChunking{npChunkOdd}
				}
				cs = append(cs, ufOpCase(fmt.Sprintf("%s %v %v", o.name, dx, dy), o, ins("x", ufGen(dx), "y", y), cks...))
			}
		}
	}
	cs = append(cs, ufSweepCases()...)
	cs = append(cs, ufSpecialCases()...)
	cs = append(cs, ufCompositeCases()...)
	cs = append(cs, ufFusionCases()...)
	for i := range cs {
		if t, ok := ufTol[cs[i].op]; ok && !cs[i].fixed {
			cs[i].ulps = t[0]
			if cs[i].wantsFloat32() {
				cs[i].ulps = t[1]
			}
		}
	}
	return cs
}

// wantsFloat32 says whether every float input of the case is float32 (so
// the tolerance is float32's).
func (c ufCase) wantsFloat32() bool {
	f32 := false
	for _, in := range c.inputs {
		switch in.arr.DType() {
		case dF32:
			f32 = true
		case dF64, dI64, dI32:
			return false
		}
	}
	return f32
}

// ufSweep is a 1-d input of n values of dt drawn by f, for the accuracy
// sweeps.
func ufSweep(dt ndarray.DType, seed uint64, n int, f func(r *npLCG) float64) *ndarray.Array {
	return npFill(dt, seed, []int{n}, func(_ int, r *npLCG) float64 { return f(r) })
}

// ufSweepCases run the transcendental functions over thousands of values
// of their domains, in float64 and float32.
func ufSweepCases() []ufCase {
	near1 := func(r *npLCG) float64 { // within 2**-k of ±1
		v := 1 - math.Ldexp(1, -int(r.next()%50)-1)*ufUniform(r, 0, 1)
		if r.next()%2 == 0 {
			v = -v
		}
		return v
	}
	mix := func(fs ...func(r *npLCG) float64) func(r *npLCG) float64 {
		return func(r *npLCG) float64 { return fs[r.next()%uint64(len(fs))](r) }
	}
	u := func(a, b float64) func(r *npLCG) float64 { return func(r *npLCG) float64 { return ufUniform(r, a, b) } }
	lu := func(lo, hi float64, signed bool) func(r *npLCG) float64 {
		return func(r *npLCG) float64 { return ufLogUniform(r, lo, hi, signed) }
	}
	type sweep struct {
		op     string
		f64    func(r *npLCG) float64
		f32    func(r *npLCG) float64
		second func(r *npLCG) float64 // second operand of binary ops
	}
	sweeps := []sweep{
		{op: "arcsin", f64: mix(u(-1, 1), near1, lu(1e-300, 1e-5, true)), f32: mix(u(-1, 1), near1)},
		{op: "arccos", f64: mix(u(-1, 1), near1, lu(1e-300, 1e-5, true)), f32: mix(u(-1, 1), near1)},
		{op: "arctan", f64: lu(1e-300, 1e300, true), f32: lu(1e-30, 1e30, true)},
		{op: "sinh", f64: mix(u(-3, 3), lu(1e-300, 711, true)), f32: mix(u(-3, 3), lu(1e-30, 90, true))},
		{op: "cosh", f64: mix(u(-3, 3), lu(1e-300, 711, true)), f32: mix(u(-3, 3), lu(1e-30, 90, true))},
		{op: "arcsinh", f64: lu(1e-300, 1e300, true), f32: lu(1e-30, 1e30, true)},
		{op: "arccosh", f64: mix(func(r *npLCG) float64 { return 1 + ufLogUniform(r, 1e-16, 1e300, false) }, u(1, 3)),
			f32: mix(func(r *npLCG) float64 { return 1 + ufLogUniform(r, 1e-7, 1e30, false) }, u(1, 3))},
		{op: "arctanh", f64: mix(u(-1, 1), near1, lu(1e-300, 1e-5, true)), f32: mix(u(-1, 1), near1)},
		{op: "exp2", f64: mix(u(-4, 4), u(-1080, 1030)), f32: mix(u(-4, 4), u(-152, 130))},
		{op: "expm1", f64: mix(lu(1e-300, 1, true), u(-40, 710)), f32: mix(lu(1e-30, 1, true), u(-20, 89))},
		{op: "log2", f64: mix(lu(1e-320, 1e308, false), u(0.5, 2)), f32: mix(lu(1e-44, 1e38, false), u(0.5, 2))},
		{op: "log10", f64: mix(lu(1e-320, 1e308, false), u(0.5, 2)), f32: mix(lu(1e-44, 1e38, false), u(0.5, 2))},
		{op: "cbrt", f64: lu(1e-320, 1e308, true), f32: lu(1e-44, 1e38, true)},
		{op: "degrees", f64: lu(1e-300, 1e300, true), f32: lu(1e-30, 1e30, true)},
		{op: "radians", f64: lu(1e-300, 1e300, true), f32: lu(1e-30, 1e30, true)},
		{op: "reciprocal", f64: lu(1e-310, 1e308, true), f32: lu(1e-40, 1e38, true)},
		{op: "arctan2", f64: lu(1e-300, 1e300, true), f32: lu(1e-30, 1e30, true), second: lu(1e-5, 1e5, true)},
		{op: "hypot", f64: mix(lu(1e-320, 1e308, true), u(-10, 10)), f32: mix(lu(1e-44, 1e38, true), u(-10, 10)), second: u(-10, 10)},
		{op: "logaddexp", f64: mix(u(-50, 50), lu(1e-3, 1e300, true)), f32: mix(u(-50, 50), lu(1e-3, 1e30, true)), second: u(-50, 50)},
		{op: "logaddexp2", f64: mix(u(-50, 50), lu(1e-3, 1e300, true)), f32: mix(u(-50, 50), lu(1e-3, 1e30, true)), second: u(-50, 50)},
		{op: "float_power", f64: lu(1e-3, 1e3, false), f32: lu(1e-3, 1e3, false), second: u(-30, 30)},
		{op: "fmod", f64: lu(1e-300, 1e300, true), f32: lu(1e-30, 1e30, true), second: lu(1e-5, 1e5, true)},
	}
	ops := map[string]ufOp{}
	for _, o := range slices.Concat(ufUnary, ufBinary) {
		ops[o.name] = o
	}
	var cs []ufCase
	for i, s := range sweeps {
		o := ops[s.op]
		for k, dt := range []ndarray.DType{dF64, dF32} {
			f := s.f64
			if dt == dF32 {
				f = s.f32
			}
			seed := uint64(1000 + 10*i + k)
			x := ufSweep(dt, seed, 3001, f)
			in := ins("x", x)
			if s.second != nil {
				in = ins("x", x, "y", ufSweep(dt, seed+5, 3001, mix(s.second, f)))
			}
			cs = append(cs, ufOpCase(fmt.Sprintf("sweep %s %v", s.op, dt), o, in, ufChunkSweep...))
		}
	}
	return cs
}

// ufOne is a one-result case of this suite.
func ufOne(op, name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor, cks ...npChunking) ufCase {
	if len(cks) == 0 {
		cks = []npChunking{npChunkOdd, npChunkIrr}
	}
	return ufCase{npCase: npOne(name, expr, in, f).with(cks...), op: op}
}

// ufSpecialCases: Go numbers as operands (NumPy scalars), the NumPy names
// through tensor.Ufunc, methods, errors, 0-d and empty inputs.
func ufSpecialCases() []ufCase {
	type E = npEnv
	type T = tensor.Tensor
	x64, x32, i64, i32, b := ufGenF64, ufGenF32, ufGenI64, ufGenI32, ufGenB
	sc := func(op, name, expr string, x *ndarray.Array, f func(x *T) *T) ufCase {
		return ufOne(op, "scalar "+name, expr, ins("x", x), func(e *E) *T { return f(e.v("x")) })
	}
	cs := []ufCase{
		sc("ldexp", "ldexp float32 by 3 stays float32", "np.ldexp(x, 3)", x32, func(x *T) *T { return tensor.Ldexp(x, 3) }),
		sc("ldexp", "ldexp float64 by -1074", "np.ldexp(x, -1074)", x64, func(x *T) *T { return x.Ldexp(-1074) }),
		sc("ldexp", "ldexp int32 by 2 -> float64", "np.ldexp(x, 2)", i32, func(x *T) *T { return tensor.Ldexp(x, 2) }),
		sc("ldexp", "ldexp float32 by True", "np.ldexp(x, True)", x32, func(x *T) *T { return tensor.Ldexp(x, true) }),
		sc("ldexp", "ldexp float32 by 2**40", "np.ldexp(x, 2**40)", x32, func(x *T) *T { return tensor.Ldexp(x, int64(1)<<40) }),
		sc("ldexp", "ldexp 2.0 by int32", "np.ldexp(2.0, x)", i32, func(x *T) *T { return tensor.Ldexp(2.0, x) }),
		sc("arctan2", "arctan2 float32 by 1.5", "np.arctan2(x, 1.5)", x32, func(x *T) *T { return x.ArcTan2(1.5) }),
		sc("arctan2", "arctan2 -0.0 by x", "np.arctan2(-0.0, x)", x64, func(x *T) *T { return tensor.ArcTan2(math.Copysign(0, -1), x) }),
		sc("hypot", "hypot 2 and int32 -> float64", "np.hypot(2, x)", i32, func(x *T) *T { return tensor.Hypot(2, x) }),
		sc("hypot", "hypot float32 and 1e300 -> float64", "np.hypot(x, 1e300)", x32, func(x *T) *T { return x.Hypot(1e300) }),
		sc("copysign", "copysign float32 by -1", "np.copysign(x, -1)", x32, func(x *T) *T { return x.CopySign(-1) }),
		sc("copysign", "copysign by -0.0", "np.copysign(x, -0.0)", x64, func(x *T) *T { return x.CopySign(math.Copysign(0, -1)) }),
		sc("nextafter", "nextafter float32 to inf", "np.nextafter(x, np.inf)", x32, func(x *T) *T { return x.NextAfter(math.Inf(1)) }),
		sc("nextafter", "nextafter to -0.0", "np.nextafter(x, -0.0)", x64, func(x *T) *T { return x.NextAfter(math.Copysign(0, -1)) }),
		sc("heaviside", "heaviside int32 0.5 -> float64", "np.heaviside(x, 0.5)", i32, func(x *T) *T { return x.Heaviside(0.5) }),
		sc("heaviside", "heaviside float32 nan", "np.heaviside(x, np.nan)", x32, func(x *T) *T { return x.Heaviside(math.NaN()) }),
		sc("fmod", "fmod int32 by 2.5 -> float64", "np.fmod(x, 2.5)", i32, func(x *T) *T { return x.Fmod(2.5) }),
		sc("fmod", "fmod int64 by -3", "np.fmod(x, -3)", i64, func(x *T) *T { return x.Fmod(-3) }),
		sc("fmod", "fmod int32 by 0", "np.fmod(x, 0)", i32, func(x *T) *T { return x.Fmod(0) }),
		sc("fmod", "fmod 7.5 by float64", "np.fmod(7.5, x)", x64, func(x *T) *T { return tensor.Fmod(7.5, x) }),
		sc("float_power", "float_power int64 by -2", "np.float_power(x, -2)", i64, func(x *T) *T { return x.FloatPower(-2) }),
		sc("float_power", "float_power float32 by 2", "np.float_power(x, 2)", x32, func(x *T) *T { return x.FloatPower(2) }),
		sc("float_power", "float_power 2 by float64", "np.float_power(2, x)", x64, func(x *T) *T { return tensor.FloatPower(2, x) }),
		sc("fmax", "fmax nan", "np.fmax(x, np.nan)", x64, func(x *T) *T { return x.Fmax(math.NaN()) }),
		sc("fmin", "fmin float32 0", "np.fmin(x, 0)", x32, func(x *T) *T { return x.Fmin(0) }),
		sc("fmax", "fmax bool 2 -> int64", "np.fmax(x, 2)", b, func(x *T) *T { return x.Fmax(2) }),
		sc("fmin", "fmin -0.0 and x", "np.fmin(-0.0, x)", x64, func(x *T) *T { return tensor.Fmin(math.Copysign(0, -1), x) }),
		sc("gcd", "gcd int32 12", "np.gcd(x, 12)", i32, func(x *T) *T { return x.Gcd(12) }),
		sc("lcm", "lcm int64 -6", "np.lcm(x, -6)", i64, func(x *T) *T { return x.Lcm(-6) }),
		sc("gcd", "gcd bool 6 -> int64", "np.gcd(x, 6)", b, func(x *T) *T { return x.Gcd(6) }),
		sc("bitwise_and", "bitwise_and bool 1 -> int64", "np.bitwise_and(x, 1)", b, func(x *T) *T { return x.BitwiseAnd(1) }),
		sc("bitwise_or", "bitwise_or bool True", "np.bitwise_or(x, True)", b, func(x *T) *T { return x.BitwiseOr(true) }),
		sc("bitwise_xor", "bitwise_xor int32 -1", "np.bitwise_xor(x, -1)", i32, func(x *T) *T { return x.BitwiseXor(-1) }),
		sc("left_shift", "left_shift int32 by 40", "np.left_shift(x, 40)", i32, func(x *T) *T { return x.LeftShift(40) }),
		sc("left_shift", "left_shift int64 by 63", "np.left_shift(x, 63)", i64, func(x *T) *T { return x.LeftShift(63) }),
		sc("left_shift", "left_shift int64 by 64", "np.left_shift(x, 64)", i64, func(x *T) *T { return x.LeftShift(64) }),
		sc("left_shift", "left_shift int64 by -1", "np.left_shift(x, -1)", i64, func(x *T) *T { return x.LeftShift(-1) }),
		sc("right_shift", "right_shift int32 by -1", "np.right_shift(x, -1)", i32, func(x *T) *T { return x.RightShift(-1) }),
		sc("right_shift", "right_shift int64 by 64", "np.right_shift(x, 64)", i64, func(x *T) *T { return x.RightShift(64) }),
		sc("left_shift", "left_shift 1 by int64", "np.left_shift(1, x)", i64, func(x *T) *T { return tensor.LeftShift(1, x) }),
		sc("left_shift", "left_shift bool by 1 -> int64", "np.left_shift(x, 1)", b, func(x *T) *T { return x.LeftShift(1) }),
		sc("logaddexp", "logaddexp float32 1e300 -> float64", "np.logaddexp(x, 1e300)", x32, func(x *T) *T { return x.LogAddExp(1e300) }),
		sc("logaddexp2", "logaddexp2 -inf", "np.logaddexp2(x, -np.inf)", x64, func(x *T) *T { return x.LogAddExp2(math.Inf(-1)) }),
		ufCase{npCase: npMany("scalar divmod int32 by -4", "np.divmod(x, -4)", ins("x", i32), func(e *E) []*T {
			q, r := e.v("x").DivMod(-4)
			return tt(q, r)
		}).with(npChunkOdd, npChunkIrr), op: "divmod"},
		ufOne("arcsin", "scalar only arcsin 0.5", "np.arcsin(0.5)", nil, func(e *E) *T { return tensor.ArcSin(0.5) }, npChunkBig),
		ufOne("gcd", "scalar only gcd", "np.gcd(12, -18)", nil, func(e *E) *T { return tensor.Gcd(12, -18) }, npChunkBig),
		ufOne("hypot", "scalar only hypot", "np.hypot(3, 4)", nil, func(e *E) *T { return tensor.Hypot(3, 4) }, npChunkBig),
		ufOne("ldexp", "scalar only ldexp", "np.ldexp(3, 2)", nil, func(e *E) *T { return tensor.Ldexp(3, 2) }, npChunkBig),
		// The NumPy names through Ufunc, and the alias bitwise_not.
		ufOne("arctanh", "Ufunc arctanh", "np.arctanh(x)", ins("x", x64), func(e *E) *T { return tensor.Ufunc("arctanh", e.v("x")) }),
		ufOne("bitwise_and", "Ufunc bitwise_and", "np.bitwise_and(x, y)", ins("x", i64, "y", ufSecond(dI64)), func(e *E) *T {
			return tensor.Ufunc("bitwise_and", e.v("x"), e.v("y"))
		}),
		ufOne("invert", "Ufunc bitwise_not", "np.bitwise_not(x)", ins("x", i32), func(e *E) *T { return tensor.Ufunc("bitwise_not", e.v("x")) }),
		ufOne("nan_to_num", "Ufunc nan_to_num float32", "np.nan_to_num(x)", ins("x", x32), func(e *E) *T { return tensor.Ufunc("nan_to_num", e.v("x")) }),
		// Methods.
		ufOne("arcsin", "methods arcsin arccos arctan", "(np.arcsin(x), np.arccos(x), np.arctan(x))", ins("x", x64),
			func(e *E) *T { return e.v("x").ArcSin() }).asManyUf(func(e *E, first *T) []*T { return tt(first, e.v("x").ArcCos(), e.v("x").ArcTan()) }).within(2),
		ufOne("sinh", "methods hyperbolic", "(np.sinh(x), np.cosh(x), np.arcsinh(x), np.arccosh(x), np.arctanh(x))", ins("x", x32),
			func(e *E) *T { return e.v("x").Sinh() }).asManyUf(func(e *E, first *T) []*T {
			x := e.v("x")
			return tt(first, x.Cosh(), x.ArcSinh(), x.ArcCosh(), x.ArcTanh())
		}).within(2),
		ufOne("log2", "methods exp log", "(np.exp2(x), np.expm1(x), np.log2(x), np.log10(x), np.cbrt(x))", ins("x", x64),
			func(e *E) *T { return e.v("x").Exp2() }).asManyUf(func(e *E, first *T) []*T {
			x := e.v("x")
			return tt(first, x.Expm1(), x.Log2(), x.Log10(), x.Cbrt())
		}).within(2),
		ufOne("rint", "methods rounding", "(np.rint(x), np.trunc(x), np.fix(x), np.reciprocal(x), np.fabs(x), np.positive(x), np.spacing(x))", ins("x", x32),
			func(e *E) *T { return e.v("x").Rint() }).asManyUf(func(e *E, first *T) []*T {
			x := e.v("x")
			return tt(first, x.Trunc(), x.Fix(), x.Reciprocal(), x.Fabs(), x.Positive(), x.Spacing())
		}).within(0),
		ufOne("degrees", "methods angles and tests", "(np.degrees(x), np.radians(x), np.rad2deg(x), np.deg2rad(x), np.signbit(x), np.isinf(x), np.isposinf(x), np.isneginf(x), np.nan_to_num(x))",
			ins("x", x64), func(e *E) *T { return e.v("x").Degrees() }).asManyUf(func(e *E, first *T) []*T {
			x := e.v("x")
			return tt(first, x.Radians(), x.Rad2Deg(), x.Deg2Rad(), x.SignBit(), x.IsInf(), x.IsPosInf(), x.IsNegInf(), x.NanToNum())
		}).within(0),
		ufOne("gcd", "methods integer", "(np.invert(x), np.gcd(x, y), np.lcm(x, y), x & y, x | y, x ^ y, x << y, x >> y)", ins("x", i64, "y", ufSecond(dI64)),
			func(e *E) *T { return e.v("x").Invert() }).asManyUf(func(e *E, first *T) []*T {
			x, y := e.v("x"), e.v("y")
			return tt(first, x.Gcd(y), x.Lcm(y), x.BitwiseAnd(y), x.BitwiseOr(y), x.BitwiseXor(y), x.LeftShift(y), x.RightShift(y))
		}),
		ufOne("hypot", "methods binary float", "(np.arctan2(x, y), np.hypot(x, y), np.logaddexp(x, y), np.logaddexp2(x, y), np.copysign(x, y), np.nextafter(x, y), np.fmod(x, y), np.heaviside(x, y), np.float_power(np.abs(x), y), np.fmax(x, y), np.fmin(x, y))",
			ins("x", x32, "y", ufSecond(dF32)), func(e *E) *T { return e.v("x").ArcTan2(e.v("y")) }).asManyUf(func(e *E, first *T) []*T {
			x, y := e.v("x"), e.v("y")
			return tt(first, x.Hypot(y), x.LogAddExp(y), x.LogAddExp2(y), x.CopySign(y), x.NextAfter(y), x.Fmod(y),
				x.Heaviside(y), x.Abs().FloatPower(y), x.Fmax(y), x.Fmin(y))
		}).within(2),
		{npCase: npMany("methods frexp modf divmod", "np.frexp(x) + np.modf(x) + np.divmod(x, y)", ins("x", x64, "y", ufSecond(dF64)), func(e *E) []*T {
			m, ex := e.v("x").Frexp()
			f, i := e.v("x").Modf()
			q, r := e.v("x").DivMod(e.v("y"))
			return tt(m, ex, f, i, q, r)
		}).with(npChunkOdd, npChunkIrr), op: "frexp"},
		// 0-d and empty inputs.
		ufOne("hypot", "0-d hypot", "np.hypot(z, x)", ins("z", dZ0, "x", x64), func(e *E) *T { return tensor.Hypot(e.v("z"), e.v("x")) }),
		ufOne("gcd", "0-d gcd", "np.gcd(z, x)", ins("z", dZ0i, "x", i32), func(e *E) *T { return tensor.Gcd(e.v("z"), e.v("x")) }),
		ufOne("arcsin", "0-d arcsin", "np.arcsin(z)", ins("z", dZ0), func(e *E) *T { return tensor.ArcSin(e.v("z")) }, npChunkBig),
		ufOne("arctan2", "empty arctan2", "np.arctan2(x, x)", ins("x", dE03), func(e *E) *T { return tensor.ArcTan2(e.v("x"), e.v("x")) }, npChunkOdd),
		{npCase: npMany("empty frexp", "np.frexp(x)", ins("x", dE03), func(e *E) []*T {
			m, ex := tensor.Frexp(e.v("x"))
			return tt(m, ex)
		}).with(npChunkOdd), op: "frexp"},
	}
	// Errors NumPy raises (TypeError) that Phobos must report.
	bad := func(name, expr string, in []npIn, f func(e *E) *T) ufCase {
		c := ufOne("", "error "+name, expr, in, f, npChunkOdd)
		c.npCase = c.fails()
		return c
	}
	cs = append(cs,
		bad("ldexp float exponent scalar", "np.ldexp(x, 2.5)", ins("x", x64), func(e *E) *T { return e.v("x").Ldexp(2.5) }),
		bad("gcd of floats", "np.gcd(x, 2.0)", ins("x", x64), func(e *E) *T { return e.v("x").Gcd(2.0) }),
		bad("gcd of bools", "np.gcd(x, x)", ins("x", b), func(e *E) *T { return e.v("x").Gcd(e.v("x")) }),
		bad("invert float32", "np.invert(x)", ins("x", x32), func(e *E) *T { return e.v("x").Invert() }),
		bad("left_shift by float", "np.left_shift(x, 1.5)", ins("x", i32), func(e *E) *T { return e.v("x").LeftShift(1.5) }),
		bad("bitwise_or float and int", "np.bitwise_or(x, y)", ins("x", x32, "y", i32), func(e *E) *T { return e.v("x").BitwiseOr(e.v("y")) }),
		bad("positive bool", "np.positive(x)", ins("x", b), func(e *E) *T { return e.v("x").Positive() }),
		bad("hypot broadcast", "np.hypot(x, y)", ins("x", x64, "y", dRow), func(e *E) *T { return e.v("x").Hypot(e.v("y")) }),
		bad("unknown ufunc", "np.frobnicate(x)", ins("x", x64), func(e *E) *T { return tensor.Ufunc("frobnicate", e.v("x")) }),
	)
	return cs
}

// tolUf is npCase.tol for a ufCase: a relative and absolute tolerance in
// place of ULPs.
func (c ufCase) tolUf(rtol, atol float64, why string) ufCase {
	c.npCase = c.tol(rtol, atol, why)
	return c
}

// asManyUf is npCase.asMany for a ufCase.
func (c ufCase) asManyUf(more func(e *npEnv, first *tensor.Tensor) []*tensor.Tensor) ufCase {
	c.npCase = c.asMany(more)
	return c
}

// ufCompositeCases: isclose, allclose, array_equal, array_equiv.
func ufCompositeCases() []ufCase {
	type E = npEnv
	type T = tensor.Tensor
	// Nearby values: y is x moved by relative steps around rtol and by
	// absolute steps around atol, with NaN and infinities in both.
	near := func(dt ndarray.DType, seed uint64) (*ndarray.Array, *ndarray.Array) {
		x := ufGen(dt)
		y := npFill(dt, seed, x.Shape(), func(i int, r *npLCG) float64 {
			v := x.AtFlat(i)
			switch r.next() % 6 {
			case 0:
				return v
			case 1:
				return v * (1 + 1e-5*ufUniform(r, 0, 2))
			case 2:
				return v + 1e-8*ufUniform(r, -2, 2)
			case 3:
				return v * (1 + 1e-9)
			case 4:
				return -v
			}
			return ufRough(r)
		})
		return x, y
	}
	var cs []ufCase
	type pair struct {
		name string
		x, y *ndarray.Array
	}
	f64x, f64y := near(dF64, 200)
	f32x, f32y := near(dF32, 201)
	pairs := []pair{
		{"float64", f64x, f64y}, {"float32", f32x, f32y}, {"float64 float32", f64x, f32y}, {"float32 float64", f32x, f64y},
		{"int64", ufGenI64, ufSecond(dI64)}, {"int32 float32", ufGenI32, f32y}, {"bool", ufGenB, ufSecond(dBo)},
		{"int64 itself", ufGenI64, ufGenI64}, {"float64 itself", f64x, f64x},
	}
	for _, p := range pairs {
		in := ins("x", p.x, "y", p.y)
		cs = append(cs,
			ufOne("isclose", "isclose "+p.name, "np.isclose(x, y)", in, func(e *E) *T {
				return tensor.IsClose(e.v("x"), e.v("y"), 1e-5, 1e-8, false)
			}, npChunkAll...),
			ufOne("isclose", "isclose equal_nan "+p.name, "np.isclose(x, y, equal_nan=True)", in, func(e *E) *T {
				return e.v("x").IsClose(e.v("y"), 1e-5, 1e-8, true)
			}),
			ufOne("isclose", "isclose rtol 1e-3 atol 0 "+p.name, "np.isclose(x, y, rtol=1e-3, atol=0)", in, func(e *E) *T {
				return tensor.IsClose(e.v("x"), e.v("y"), 1e-3, 0, false)
			}),
			ufOne("allclose", "allclose "+p.name, "np.allclose(x, y)", in, func(e *E) *T {
				return tensor.AllClose(e.v("x"), e.v("y"), 1e-5, 1e-8, false)
			}),
			ufOne("allclose", "allclose equal_nan atol 10 "+p.name, "np.allclose(x, y, rtol=0, atol=10, equal_nan=True)", in, func(e *E) *T {
				return e.v("x").AllClose(e.v("y"), 0, 10, true)
			}),
			ufOne("array_equal", "array_equal "+p.name, "np.array_equal(x, y)", in, func(e *E) *T {
				return tensor.ArrayEqual(e.v("x"), e.v("y"), false)
			}),
			ufOne("array_equal", "array_equal equal_nan "+p.name, "np.array_equal(x, y, equal_nan=True)", in, func(e *E) *T {
				return tensor.ArrayEqual(e.v("x"), e.v("y"), true)
			}),
			ufOne("array_equiv", "array_equiv "+p.name, "np.array_equiv(x, y)", in, func(e *E) *T {
				return tensor.ArrayEquiv(e.v("x"), e.v("y"))
			}),
		)
	}
	// A row of ufGenF64 (no NaN in it) and three copies of it.
	rowArr := npFill(dF64, 0, []int{9}, func(i int, _ *npLCG) float64 { return ufGenF64.AtFlat(18 + i) })
	rows := npFill(dF64, 0, []int{3, 9}, func(i int, _ *npLCG) float64 { return rowArr.AtFlat(i % 9) })
	cs = append(cs,
		ufOne("isclose", "isclose scalar", "np.isclose(x, 0.5)", ins("x", f64x), func(e *E) *T { return tensor.IsClose(e.v("x"), 0.5, 1e-5, 1e-8, false) }),
		ufOne("isclose", "isclose scalar first", "np.isclose(1, x)", ins("x", f32x), func(e *E) *T { return tensor.IsClose(1, e.v("x"), 1e-5, 1e-8, false) }),
		ufOne("isclose", "isclose broadcast", "np.isclose(x, r)", ins("x", f64x, "r", rowArr), func(e *E) *T {
			return tensor.IsClose(e.v("x"), e.v("r"), 1e-5, 1e-8, true)
		}),
		ufOne("array_equal", "array_equal shapes differ", "np.array_equal(x, r)", ins("x", f64x, "r", rowArr), func(e *E) *T {
			return tensor.ArrayEqual(e.v("x"), e.v("r"), false)
		}),
		ufOne("array_equiv", "array_equiv broadcast equal", "np.array_equiv(r, rr)", ins("r", rowArr, "rr", rows), func(e *E) *T {
			return tensor.ArrayEquiv(e.v("r"), e.v("rr"))
		}),
		ufOne("array_equiv", "array_equiv not broadcastable", "np.array_equiv(x, y)", ins("x", f64x, "y", dRow), func(e *E) *T {
			return tensor.ArrayEquiv(e.v("x"), e.v("y"))
		}),
		ufOne("array_equal", "array_equal empty", "np.array_equal(x, x)", ins("x", dE03), func(e *E) *T {
			return tensor.ArrayEqual(e.v("x"), e.v("x"), false)
		}, npChunkOdd),
		ufOne("array_equal", "array_equal nan itself", "np.array_equal(x, x)", ins("x", f64x), func(e *E) *T {
			return tensor.ArrayEqual(e.v("x"), e.v("x"), false)
		}),
	)
	return cs
}

// ufFusionCases: chains of new ops (and old ones) that the fusion pass
// turns into one kernel; each also runs without fusion, and both must agree
// with NumPy.
func ufFusionCases() []ufCase {
	type E = npEnv
	type T = tensor.Tensor
	big := ufFloats(dF64, 300, []int{60, 50}, ufFloatEdges, ufRough)
	big2 := ufFloats(dF64, 301, []int{60, 50}, nil, ufRough)
	bigI := ufInts(dI64, 302, []int{60, 50}, ufIntEdges, 1000)
	big32 := ufFloats(dF32, 303, []int{60, 50}, ufFloat32Edges, ufRough)
	cks := []npChunking{npChunkOdd, npChunkIrr, npChunkBig, {"chunks 7,11", func(int, []int) tensor.Option { return tensor.Chunks(7, 11) }}}
	c := func(op, name, expr string, in []npIn, f func(e *E) *T) ufCase {
		u := ufOne(op, "fusion "+name, expr, in, f, cks...)
		return u
	}
	cs := []ufCase{
		c("hypot", "hypot of arcsin and log2", "np.hypot(np.arcsin(x / 4), np.log2(np.abs(y) + 1))", ins("x", big2, "y", big), func(e *E) *T {
			return tensor.Hypot(e.v("x").Div(4).ArcSin(), e.v("y").Abs().Add(1).Log2())
		}).within(4),
		c("arctan2", "arctan2 sum", "np.nan_to_num(np.arctan2(y, x)).sum(axis=1)", ins("x", big, "y", big2), func(e *E) *T {
			return tensor.ArcTan2(e.v("y"), e.v("x")).NanToNum().Sum(tensor.Axis(1))
		}).tolUf(1e-13, 1e-13, "sums of angles: ULPs of arctan2 and summation order"),
		c("logaddexp", "logaddexp chain max", "np.logaddexp(np.sinh(x), np.cbrt(y) * 3).max(axis=0)", ins("x", big2, "y", big2), func(e *E) *T {
			return tensor.LogAddExp(e.v("x").Sinh(), e.v("y").Cbrt().Mul(3)).Max(tensor.Axis(0))
		}).within(4),
		c("fmax", "fmax fmin nan_to_num", "np.nan_to_num(np.fmin(np.fmax(x, y), 2.5))", ins("x", big, "y", big2), func(e *E) *T {
			return tensor.Fmin(tensor.Fmax(e.v("x"), e.v("y")), 2.5).NanToNum()
		}),
		c("gcd", "integer chain", "(np.gcd(i, 12) + (i << 3) ^ (i >> 2)) & 1023", ins("i", bigI), func(e *E) *T {
			i := e.v("i")
			return tensor.BitwiseAnd(tensor.BitwiseXor(tensor.Gcd(i, 12).Add(i.LeftShift(3)), i.RightShift(2)), 1023)
		}),
		c("ldexp", "frexp then ldexp", "np.ldexp(*np.frexp(x)) - x", ins("x", big2), func(e *E) *T {
			m, ex := tensor.Frexp(e.v("x"))
			return tensor.Ldexp(m, ex).Sub(e.v("x"))
		}),
		c("degrees", "float32 chain", "np.degrees(np.arctan(np.trunc(x) * 0.5 + np.copysign(0.25, x)))", ins("x", big32), func(e *E) *T {
			x := e.v("x")
			return x.Trunc().Mul(0.5).Add(tensor.CopySign(0.25, x)).ArcTan().Degrees()
		}).within(2),
		c("isclose", "isclose count", "np.isclose(np.expm1(x), np.exp(x) - 1).sum(axis=0)", ins("x", big2), func(e *E) *T {
			x := e.v("x")
			return tensor.IsClose(x.Expm1(), x.Exp().Sub(1), 1e-5, 1e-8, false).Sum(tensor.Axis(0))
		}),
		c("modf", "modf parts sum", "np.modf(x)[0] + np.modf(x)[1]", ins("x", big), func(e *E) *T {
			f, i := e.v("x").Modf()
			return f.Add(i)
		}),
		c("heaviside", "heaviside mean", "np.heaviside(x, 0.5).mean(axis=1)", ins("x", big), func(e *E) *T {
			return e.v("x").Heaviside(0.5).Mean(tensor.Axis(1))
		}),
	}
	for i := range cs {
		cs[i].npCase = cs[i].alsoWorkers()
		cs[i].fixed = true
	}
	return cs
}

// The runner.

// ufULP is the distance in ULPs of the type between two finite floats.
func ufULP(a, b float64, f32 bool) uint64 {
	if f32 {
		x, y := int64(int32(math.Float32bits(float32(a)))), int64(int32(math.Float32bits(float32(b))))
		if x < 0 {
			x = math.MinInt32 - x
		}
		if y < 0 {
			y = math.MinInt32 - y
		}
		if x > y {
			return uint64(x - y)
		}
		return uint64(y - x)
	}
	x, y := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if x < 0 {
		x = math.MinInt64 - x
	}
	if y < 0 {
		y = math.MinInt64 - y
	}
	d, borrow := bits.Sub64(uint64(x), uint64(y), 0)
	if borrow != 0 {
		d = -d
	}
	return d
}

// ufCompare checks got against NumPy's want: equal dtype and shape, ints
// and bools equal, floats within ulps ULPs (NaN matches NaN, infinities
// and zeros must match exactly, sign included), or within the case's
// rtol/atol when it sets them. It returns the largest ULP distance seen.
func ufCompare(got, want *ndarray.Array, ulps uint64, rtol, atol float64) (uint64, error) {
	if !got.DType().IsFloat() || rtol != 0 || atol != 0 {
		return 0, numpytest.Compare(got, want, rtol, atol)
	}
	if got.DType() == ndarray.Float16 {
		// Computed in float32 and rounded once on both sides: a float32
		// ULP apart rounds apart rarely, by one half ULP (2**-11 relative).
		return 0, numpytest.Compare(got, want, 0x1p-10, 0)
	}
	if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
		return 0, numpytest.Compare(got, want, 0, 0)
	}
	f32 := got.DType() == ndarray.Float32
	g, w := got.Contiguous(), want.Contiguous()
	n := g.Size()
	at := func(a *ndarray.Array, i int) float64 {
		if f32 {
			return float64(a.Float32s()[i])
		}
		return a.Float64s()[i]
	}
	var worst uint64
	bad, first := 0, -1
	for i := range n {
		gv, wv := at(g, i), at(w, i)
		ok := true
		switch {
		case math.IsNaN(gv) || math.IsNaN(wv):
			ok = math.IsNaN(gv) && math.IsNaN(wv)
		case math.IsInf(gv, 0) || math.IsInf(wv, 0) || (gv == 0 && wv == 0):
			ok = gv == wv && math.Signbit(gv) == math.Signbit(wv)
		case gv == 0 || wv == 0:
			// A zero against a subnormal: within ulps of the same sign
			// (NumPy's float32 exp2(-149.5) is 0, the correctly rounded
			// result 2**-149).
			d := ufULP(gv, wv, f32)
			worst = max(worst, d)
			ok = d <= ulps && math.Signbit(gv) == math.Signbit(wv)
		default:
			d := ufULP(gv, wv, f32)
			worst = max(worst, d)
			ok = d <= ulps
		}
		if !ok {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return worst, nil
	}
	return worst, fmt.Errorf("%d of %d elements differ (tolerance %d ULPs, signed zeros exact); first at flat index %d: got %v (%#x), want %v",
		bad, n, ulps, first, at(g, first), math.Float64bits(at(g, first)), at(w, first))
}

// ufRunCase is npRun with ufCompare.
func ufRunCase(sess *phobos.Session, c *ufCase, ck npChunking, want []*ndarray.Array, fused *int) (worst uint64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	env := &npEnv{in: map[string]*tensor.Tensor{}, ck: ck}
	for k, in := range c.inputs {
		env.in[in.name] = tensor.FromArray(in.arr, ck.opt(k, in.arr.Shape()))
	}
	outs := c.build(env)
	for i, o := range outs {
		if o == nil {
			return 0, fmt.Errorf("result %d: builder returned a nil tensor", i)
		}
		if o.Err() != nil {
			if c.wantErr {
				return 0, nil
			}
			return 0, fmt.Errorf("result %d: building failed: %v", i, o.Err())
		}
	}
	if fused != nil {
		plan, err := sess.Explain(outs...)
		if err != nil && !c.wantErr {
			return 0, fmt.Errorf("explain: %v", err)
		}
		if err == nil {
			*fused = plan.Passes[len(plan.Passes)-1].FusedGroups
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	got, err := sess.Execute(ctx, outs...)
	if c.wantErr {
		if err == nil {
			return 0, fmt.Errorf("NumPy raises, but Phobos computed %v", got)
		}
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("execute: %v", err)
	}
	if len(got) != len(want) {
		return 0, fmt.Errorf("%d results, NumPy has %d", len(got), len(want))
	}
	var errs []error
	for i := range got {
		if got[i].DType() != outs[i].DType() || !slices.Equal(got[i].Shape(), outs[i].Shape()) {
			errs = append(errs, fmt.Errorf("result %d: tensor meta says %v %v but execution gave %v %v",
				i, outs[i].DType(), outs[i].Shape(), got[i].DType(), got[i].Shape()))
		}
		w, err := ufCompare(got[i], want[i], c.ulps, c.rtol, c.atol)
		worst = max(worst, w)
		if err != nil {
			errs = append(errs, fmt.Errorf("result %d: %v", i, err))
		}
	}
	return worst, errors.Join(errs...)
}

// TestUfuncDifferential is the ufunc differential suite (see the top of
// this file).
func TestUfuncDifferential(t *testing.T) {
	npRunner.Skip(t)
	start := time.Now()
	_, version := npRunner.Available()
	cases := ufCases()
	plain := make([]npCase, len(cases))
	for i := range cases {
		plain[i] = cases[i].npCase
	}
	npCheckTable(t, plain)
	for i := range cases {
		cases[i].chunkings = plain[i].chunkings
	}

	want, pyErrs := npEvaluate(t, plain)
	pyTime := time.Since(start)

	total := 0
	for i := range cases {
		total += len(cases[i].chunkings)
	}
	tally := npTally{failed: map[[2]int]bool{}}
	for i, c := range cases {
		switch {
		case c.wantErr && pyErrs[i] == nil:
			t.Errorf("case %q: marked as failing, but NumPy evaluated %s", c.name, c.expr)
		case !c.wantErr && pyErrs[i] != nil:
			t.Errorf("case %q: NumPy failed: %v", c.name, pyErrs[i])
		default:
			continue
		}
		for k := range c.chunkings {
			tally.failed[[2]int{i, k}] = true
		}
	}

	modes := []npMode{
		{name: "default", all: true, fusion: true},
		{name: "nofusion", opts: []phobos.Option{phobos.WithFusion(false)}, all: true},
		{name: "workers2", opts: []phobos.Option{phobos.WithWorkers(2)}, fusion: true},
	}
	worst := map[string][2]uint64{} // by op: float64, float32 results
	workerRuns, fusedRuns := 0, 0
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			sess, err := phobos.NewSession(m.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for i := range cases {
				c := &cases[i]
				if !m.all && !c.workers {
					continue
				}
				for k, ck := range c.chunkings {
					if pyErrs[i] != nil && !c.wantErr {
						continue
					}
					tally.runs++
					if !m.all {
						workerRuns++
					}
					groups := 0
					w, err := ufRunCase(sess, c, ck, want[i], &groups)
					if err != nil {
						tally.failed[[2]int{i, k}] = true
						t.Errorf("case %q [%s, %s]\n  numpy: %s\n  %v", c.name, ck.name, m.name, c.expr, err)
					}
					if c.op != "" && !c.fixed && len(want[i]) > 0 {
						j := 0
						if want[i][0].DType() == ndarray.Float32 {
							j = 1
						}
						wv := worst[c.op]
						wv[j] = max(wv[j], w)
						worst[c.op] = wv
					}
					switch {
					case m.fusion && groups > 0:
						fusedRuns++
					case !m.fusion && groups > 0:
						t.Errorf("case %q [%s, %s]: %d fused kernels in a session without fusion", c.name, ck.name, m.name, groups)
					}
				}
			}
		})
	}
	var stats []string
	for op, w := range worst {
		if w != [2]uint64{} {
			stats = append(stats, fmt.Sprintf("%s %d/%d", op, w[0], w[1]))
		}
	}
	sort.Strings(stats)
	t.Logf("largest distance from NumPy in ULPs (float64/float32): %s", strings.Join(stats, ", "))
	failed := len(tally.failed)
	msg := fmt.Sprintf("ufunc differential: %d cases (%d expressions x chunkings), %d passed, %d failed; "+
		"%d runs (fusion on, fusion off, %d on 2 workers; %d runs had fused kernels) in %v (NumPy %v; %s)",
		total, len(cases), total-failed, failed, tally.runs, workerRuns, fusedRuns,
		time.Since(start).Round(time.Millisecond), pyTime.Round(time.Millisecond), version)
	fmt.Println(msg)
	t.Log(msg)
	if fusedRuns == 0 {
		t.Errorf("no run had a fused kernel: the fusion pass is not exercised")
	}
}

// TestUfuncFusedMatchesUnfused: chains of the new ops give the same bits
// in one fused kernel as op by op, over chunkings that split the inputs
// unevenly (and the fused plan does fuse them).
func TestUfuncFusedMatchesUnfused(t *testing.T) {
	x := ufFloats(dF64, 400, []int{90, 70}, ufFloatEdges, ufRough)
	y := ufFloats(dF64, 401, []int{90, 70}, nil, func(r *npLCG) float64 { return ufLogUniform(r, 1e-3, 1e3, true) })
	x32 := ufFloats(dF32, 402, []int{90, 70}, ufFloat32Edges, ufRough)
	n := ufInts(dI64, 403, []int{90, 70}, ufIntEdges, 1<<20)
	chains := []struct {
		name string
		f    func(x, y, x32, n *tensor.Tensor) []*tensor.Tensor
	}{
		{"transcendental", func(x, y, _, _ *tensor.Tensor) []*tensor.Tensor {
			return tt(tensor.Hypot(x.Div(4).ArcSin(), y.Abs().Log10()).Add(tensor.ArcTan2(y, x).Cosh()).LogAddExp(y.Cbrt()))
		}},
		// Max and min, not sums: a fused sum adds in another order.
		{"with a reduction", func(x, y, _, _ *tensor.Tensor) []*tensor.Tensor {
			return tt(tensor.ArcTan2(y, x).NanToNum().Max(tensor.Axis(1)), x.Sinh().Fmax(y.Expm1()).Fmin(1e300).Min(tensor.Axis(0)))
		}},
		{"float32", func(_, _, x32, _ *tensor.Tensor) []*tensor.Tensor {
			m, e := x32.Frexp()
			f, i := x32.Modf()
			return tt(tensor.Ldexp(m, e).Sub(x32), f.Add(i).Spacing(), x32.Degrees().ArcSinh().Rint(), x32.LogAddExp2(x32.Exp2()))
		}},
		{"integers", func(_, _, _, n *tensor.Tensor) []*tensor.Tensor {
			return tt(tensor.Gcd(n, 360).Lcm(n.RightShift(3)).BitwiseXor(n.LeftShift(2)).Invert(), n.Fmod(7).Reciprocal(), tensor.IsClose(n, n.Add(1), 1e-5, 1e-8, false))
		}},
		{"mixed types", func(x, _, x32, n *tensor.Tensor) []*tensor.Tensor {
			return tt(tensor.CopySign(n.Fabs(), x32).NextAfter(x).Heaviside(0.5).FloatPower(x32), n.SignBit().BitwiseOr(x.IsNegInf()).BitwiseAnd(x32.IsPosInf().Invert()))
		}},
	}
	cks := []tensor.Option{tensor.Chunks(7, 11), tensor.Chunks(64, 64), tensor.ChunkSplits([]int{1, 40, 49}, []int{33, 37})}
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
	for _, c := range chains {
		for _, ck := range cks {
			build := func() []*tensor.Tensor {
				return c.f(tensor.FromArray(x, ck), tensor.FromArray(y, ck), tensor.FromArray(x32, ck), tensor.FromArray(n, ck))
			}
			plan, err := fused.Explain(build()...)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if plan.Passes[len(plan.Passes)-1].FusedGroups == 0 {
				t.Errorf("%s: nothing fused", c.name)
			}
			a, err := fused.Execute(ctx, build()...)
			if err != nil {
				t.Fatalf("%s fused: %v", c.name, err)
			}
			b, err := plain.Execute(ctx, build()...)
			if err != nil {
				t.Fatalf("%s unfused: %v", c.name, err)
			}
			for i := range a {
				if k, ok := npBitsEqual(a[i], b[i]); !ok {
					t.Errorf("%s result %d: fused and unfused differ at flat index %d: %v vs %v", c.name, i, k, a[i].AtFlat(k), b[i].AtFlat(k))
				}
			}
		}
	}
}
