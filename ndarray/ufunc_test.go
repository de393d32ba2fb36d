package ndarray

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Tests of the ufuncs of ufunc.go against the NumPy 1.24 fixtures in
// ufunc_numpy_test.go: every op on every dtype and dtype pair, with the
// result dtype (float16 -> float64 and int8 -> int32 stand-ins) and the
// values, through contiguous, broadcast, strided and 0-d operands.

// ufULPs is the tolerance of the float results of each op, in ULPs of the
// result type; ops not listed are bit-exact (signed zeros included).
// Go's math and the ports in ufunc_math.go are within an ULP of the exact
// value; NumPy 1.24 on an AVX-512 machine uses Intel's SVML for these
// functions (up to 4 ULPs), and otherwise glibc (within an ULP or so).
var ufULPs = map[string]uint64{
	"arcsin": 4, "arccos": 4, "arctan": 4, "sinh": 4, "cosh": 4, "arcsinh": 4, "arccosh": 4, "arctanh": 4,
	"exp2": 4, "expm1": 4, "log2": 4, "log10": 4, "cbrt": 4, "arctan2": 4, "logaddexp": 4, "logaddexp2": 4,
	"float_power": 2,
}

// ufHalfDiffers are ops whose float16 result (NumPy's, for bool input) is not
// close to the float64 one Phobos computes: they show float16's spacing
// (spacing, nextafter) or its range (ldexp).
var ufHalfDiffers = map[string]bool{"spacing": true, "nextafter": true, "ldexp": true}

// ufRun applies a fixture's op, giving its results.
func ufRun(name string, args ...*Array) ([]*Array, error) {
	pair := func(a *Array, err error) func(b *Array, err2 error) ([]*Array, error) {
		return func(b *Array, err2 error) ([]*Array, error) {
			if err != nil {
				return nil, err
			}
			if err2 != nil {
				return nil, err2
			}
			return []*Array{a, b}, nil
		}
	}
	switch name {
	case "frexp":
		return pair(Unary(FrexpMantissa, args[0]))(Unary(FrexpExponent, args[0]))
	case "modf":
		return pair(Unary(ModfFrac, args[0]))(Unary(Trunc, args[0]))
	case "divmod":
		return pair(Binary(FloorDiv, args[0], args[1]))(Binary(Mod, args[0], args[1]))
	}
	if len(args) == 1 {
		op, err := ParseUnaryOp(name)
		if err != nil {
			return nil, err
		}
		r, err := Unary(op, args[0])
		return []*Array{r}, err
	}
	op, err := ParseBinaryOp(name)
	if err != nil {
		return nil, err
	}
	r, err := Binary(op, args[0], args[1])
	return []*Array{r}, err
}

// ufResultTypes is what the result-type functions predict for the fixture's op.
func ufResultTypes(name string, dts ...DType) []DType {
	var ops []string
	switch name {
	case "frexp":
		ops = []string{"frexp_mantissa", "frexp_exponent"}
	case "modf":
		ops = []string{"modf_fractional", "trunc"}
	case "divmod":
		ops = []string{"floor_divide", "remainder"}
	default:
		ops = []string{name}
	}
	var out []DType
	for _, o := range ops {
		var rt DType
		if len(dts) == 1 {
			op, _ := ParseUnaryOp(o)
			rt, _ = UnaryResultType(op, dts[0])
		} else {
			op, _ := ParseBinaryOp(o)
			rt, _ = BinaryResultType(op, dts[0], dts[1])
		}
		out = append(out, rt)
	}
	return out
}

// ufCheckAll compares each result with its part of the fixture.
func ufCheckAll(t *testing.T, what, op, dtypes string, got []*Array, want string) bool {
	t.Helper()
	dts := strings.Split(dtypes, ",")
	parts := strings.Split(want, "|")
	if len(got) != len(dts) || len(parts) != len(dts) {
		t.Errorf("%s: %d results, numpy has %d", what, len(got), len(dts))
		return false
	}
	for k, g := range got {
		wantDT := ewtNumpyDType(t, dts[k])
		if g.dtype != wantDT {
			t.Errorf("%s: result %d has dtype %v, numpy %s", what, k, g.dtype, dts[k])
			return false
		}
		half := dts[k] == "float16"
		if half && ufHalfDiffers[op] {
			continue
		}
		ewtCheck(t, fmt.Sprintf("%s result %d", what, k), g, parts[k], ufULPs[op], half)
	}
	return true
}

func TestUfuncUnaryNumpy(t *testing.T) {
	for _, c := range ufUnCases {
		dx, _ := ParseDType(c.dx)
		x := ewtParse(t, dx, ufGrids["unary:"+c.dx])
		name := fmt.Sprintf("%s(%s)", c.op, c.dx)
		got, err := ufRun(c.op, x)
		if c.err != "" {
			if err == nil {
				t.Errorf("%s: no error, numpy raised %q", name, c.err)
			} else if !strings.Contains(err.Error(), c.op) {
				t.Errorf("%s: error %q does not name the op", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for k, rt := range ufResultTypes(c.op, dx) {
			if want := ewtNumpyDType(t, strings.Split(c.dtype, ",")[k]); rt != want {
				t.Errorf("%s: result type %v, numpy %s", name, rt, c.dtype)
			}
		}
		if !ufCheckAll(t, name, c.op, c.dtype, got, c.want) {
			continue
		}
		// A reversed view and a broadcast 0-d input go through the strided
		// and constant drivers.
		rev, _ := x.Flip(0)
		got, _ = ufRun(c.op, rev)
		for k := range got {
			got[k], _ = got[k].Flip(0)
		}
		ufCheckAll(t, name+" flipped", c.op, c.dtype, got, c.want)
		parts := strings.Split(c.want, "|")
		for i := range x.Size() {
			xi, _ := x.Index(0, i)
			xb, _ := xi.BroadcastTo([]int{3, 2})
			got, _ := ufRun(c.op, xb)
			var ws []string
			for _, p := range parts {
				ws = append(ws, strings.Repeat(strings.Fields(p)[i]+" ", 6))
			}
			ufCheckAll(t, name+" broadcast scalar", c.op, c.dtype, got, strings.Join(ws, "|"))
		}
	}
}

func TestUfuncBinaryNumpy(t *testing.T) {
	for _, c := range ufBinCases {
		dx, _ := ParseDType(c.gx[strings.IndexByte(c.gx, ':')+1:])
		dy, _ := ParseDType(c.gy[strings.IndexByte(c.gy, ':')+1:])
		gx, gy := ewtParse(t, dx, ufGrids[c.gx]), ewtParse(t, dy, ufGrids[c.gy])
		nx, ny := gx.Size(), gy.Size()
		name := fmt.Sprintf("%s(%s, %s)", c.op, c.gx, c.gy)
		x, y := newArray(dx, []int{nx * ny}), newArray(dy, []int{nx * ny})
		for i := range nx {
			for j := range ny {
				f, n := ewtGet(gx, i)
				ewtSet(x, i*ny+j, f, n)
				f, n = ewtGet(gy, j)
				ewtSet(y, i*ny+j, f, n)
			}
		}
		got, err := ufRun(c.op, x, y)
		if c.err != "" {
			if err == nil {
				t.Errorf("%s: no error, numpy raised %q", name, c.err)
			} else if !strings.Contains(err.Error(), c.op) {
				t.Errorf("%s: error %q does not name the op", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for k, rt := range ufResultTypes(c.op, dx, dy) {
			if want := ewtNumpyDType(t, strings.Split(c.dtype, ",")[k]); rt != want {
				t.Errorf("%s: result type %v, numpy %s", name, rt, c.dtype)
			}
		}
		if !ufCheckAll(t, name, c.op, c.dtype, got, c.want) {
			continue
		}
		// (nx,1) op (1,ny): runs with x constant (scalar-vector loops).
		xc, _ := gx.Reshape(nx, 1)
		yr, _ := gy.Reshape(1, ny)
		got, err = ufRun(c.op, xc, yr)
		if err != nil {
			t.Fatalf("%s broadcast: %v", name, err)
		}
		ufCheckAll(t, name+" broadcast (nx,1)x(1,ny)", c.op, c.dtype, got, c.want)
		// (1,nx) op (ny,1), transposed back: y constant along runs.
		xr, _ := gx.Reshape(1, nx)
		yc, _ := gy.Reshape(ny, 1)
		got, err = ufRun(c.op, xr, yc)
		if err != nil {
			t.Fatalf("%s broadcast: %v", name, err)
		}
		for k := range got {
			got[k], _ = got[k].Transpose()
		}
		ufCheckAll(t, name+" broadcast (1,nx)x(ny,1).T", c.op, c.dtype, got, c.want)
		// 0-d operands: the vector-scalar and scalar-vector loops.
		parts := strings.Split(c.want, "|")
		for i := range nx {
			xi, _ := gx.Index(0, i)
			got, err := ufRun(c.op, xi, gy)
			if err != nil {
				t.Fatalf("%s scalar x: %v", name, err)
			}
			var ws []string
			for _, p := range parts {
				ws = append(ws, strings.Join(strings.Fields(p)[i*ny:(i+1)*ny], " "))
			}
			ufCheckAll(t, name+" 0-d x", c.op, c.dtype, got, strings.Join(ws, "|"))
		}
		for j := range ny {
			yj, _ := gy.Index(0, j)
			got, err := ufRun(c.op, gx, yj)
			if err != nil {
				t.Fatalf("%s scalar y: %v", name, err)
			}
			var ws []string
			for _, p := range parts {
				f := strings.Fields(p)
				col := make([]string, nx)
				for i := range nx {
					col[i] = f[i*ny+j]
				}
				ws = append(ws, strings.Join(col, " "))
			}
			ufCheckAll(t, name+" 0-d y", c.op, c.dtype, got, strings.Join(ws, "|"))
		}
	}
}

// TestUfuncInto: the in-place forms the fused kernels call agree with the
// allocating ones for every new op.
func TestUfuncInto(t *testing.T) {
	x := ewtParse(t, Float64, ufGrids["unary:float64"])
	for op := ArcSin; op < ewUnaryEnd; op++ {
		x := x
		if op == Invert {
			x = ewtParse(t, Int32, ufGrids["unary:int32"])
		}
		want, err := Unary(op, x)
		if err != nil {
			t.Fatalf("%v: %v", op, err)
		}
		out := newArray(want.dtype, x.shape)
		if err := UnaryInto(op, out, x); err != nil {
			t.Fatalf("%v into: %v", op, err)
		}
		if err := ewtEqual(out, want); err != nil {
			t.Errorf("%v into: %v", op, err)
		}
	}
	a := ewtParse(t, Int64, ufGrids["same:int64"])
	b, _ := a.Flip(0)
	for op := ArcTan2; op < ewBinaryEnd; op++ {
		want, err := Binary(op, a, b)
		if err != nil {
			t.Fatalf("%v: %v", op, err)
		}
		out := newArray(want.dtype, a.shape)
		if err := BinaryInto(op, out, a, b); err != nil {
			t.Fatalf("%v into: %v", op, err)
		}
		if err := ewtEqual(out, want); err != nil {
			t.Errorf("%v into: %v", op, err)
		}
	}
}

// TestUfuncNames: every op round-trips through its name; the public name
// lists hold the NumPy names and not the internal parts of frexp and modf.
func TestUfuncNames(t *testing.T) {
	for op := Neg; op < ewUnaryEnd; op++ {
		p, err := ParseUnaryOp(op.String())
		if err != nil || p != op {
			t.Errorf("ParseUnaryOp(%q) = %v, %v", op.String(), p, err)
		}
	}
	for op := Add; op < ewBinaryEnd; op++ {
		p, err := ParseBinaryOp(op.String())
		if err != nil || p != op {
			t.Errorf("ParseBinaryOp(%q) = %v, %v", op.String(), p, err)
		}
	}
	if p, err := ParseUnaryOp("bitwise_not"); err != nil || p != Invert {
		t.Errorf("bitwise_not: %v, %v", p, err)
	}
	names := strings.Join(UnaryOpNames(), " ")
	for _, n := range []string{"arcsin", "nan_to_num", "invert", "fix", "isposinf"} {
		if !strings.Contains(names, n) {
			t.Errorf("UnaryOpNames lacks %s", n)
		}
	}
	if strings.Contains(names, "frexp") || strings.Contains(names, "modf") {
		t.Errorf("UnaryOpNames lists the parts of frexp/modf: %s", names)
	}
	if bn := BinaryOpNames(); bn[len(bn)-1] != "right_shift" || len(bn) != int(ewBinaryEnd-Add) {
		t.Errorf("BinaryOpNames = %v", bn)
	}
	if UnaryOp(200).String() != "UnaryOp(200)" || BinaryOp(200).String() != "BinaryOp(200)" {
		t.Error("out-of-range names")
	}
}

// TestUfuncExactValues: results NumPy gives exactly (glibc and SVML are
// exact there) and Go's math package would not: log10 of powers of ten,
// log2 of powers of two, cube roots of cubes, sinh/cosh near overflow,
// asin/acos near ±1.
func TestUfuncExactValues(t *testing.T) {
	for k := -300; k <= 300; k++ {
		x, _ := strconv.ParseFloat(fmt.Sprintf("1e%d", k), 64)
		if got := ewLog10(x); got != float64(k) {
			t.Errorf("log10(1e%d) = %v", k, got)
		}
	}
	for k := -1074; k <= 1023; k++ {
		if got := ewLog2(math.Ldexp(1, k)); got != float64(k) {
			t.Errorf("log2(2**%d) = %v", k, got)
		}
	}
	for k := 1; k < 1000; k++ {
		if got := math.Cbrt(float64(k * k * k)); got != float64(k) {
			t.Errorf("cbrt(%d**3) = %v", k, got)
		}
	}
	// Near overflow (NumPy's values; Go's math.Exp is +Inf from 709.44).
	near := func(got, want float64) bool { return math.Abs(got-want) <= 4e-16*want }
	for _, c := range []struct {
		op      UnaryOp
		x, want float64
	}{
		{Exp, 709.5, 1.3549863193146328e+308}, {Exp, 709.78, 1.7928227943945155e+308},
		{Sinh, 710, 1.1169973830808555e+308}, {Cosh, -710.4, 1.6663642832806496e+308},
	} {
		got, err := Unary(c.op, ewtF64(t, c.x))
		if err != nil {
			t.Fatal(err)
		}
		if v := got.Float64s()[0]; !near(v, c.want) {
			t.Errorf("%v(%v) = %v, numpy %v", c.op, c.x, v, c.want)
		}
	}
	if v := ewSinh(710.5); !math.IsInf(v, 1) {
		t.Errorf("sinh(710.5) = %v", v)
	}
	// acos(1 - 2**-40) = 2**-19.5 * (1 + ...): relative accuracy near 1.
	x := 1 - 0x1p-40
	want := 1.3486991523487112e-06 // glibc's acos(1 - 2**-40)
	if got := ewAcos(x); got != want {
		t.Errorf("acos(1-2**-40) = %v, want %v", got, want)
	}
	if got := ewAsin(-1); got != -math.Pi/2 {
		t.Errorf("asin(-1) = %v", got)
	}
}

// A computation type an op has no loop for is an error from the kernel,
// never an output left as it was (type resolution refuses these first;
// the kernels do not rely on it).
func TestUfuncKernelWithoutLoopIsAnError(t *testing.T) {
	x, err := FromFloat64s([]int{3}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	out := newArray(Float64, []int{3})
	if err := ufuncUnaryKernel(Invert, Float64, out, x); err == nil {
		t.Error("invert of float64 ran")
	}
	if err := ufuncBinaryKernel(Gcd, Float64, out, x, x); err == nil {
		t.Error("gcd of float64 ran")
	}
	if err := ufuncUnaryKernel(ArcSin, Float64, out, x); err != nil {
		t.Errorf("arcsin of float64: %v", err)
	}
}
