package ndarray

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"testing"
)

// ---- helpers (independent of the kernels under test) ----

// ewtFlatOffset is the absolute buffer offset of C-order element i; unlike
// AtFlat it also works for negative strides.
func ewtFlatOffset(a *Array, i int) int {
	off := a.offset
	for ax := len(a.shape) - 1; ax >= 0; ax-- {
		d := a.shape[ax]
		off += (i % d) * a.strides[ax]
		i /= d
	}
	return off
}

// ewtGet returns element i as float64 and, exactly, as int64 (for ints/bools).
func ewtGet(a *Array, i int) (float64, int64) {
	o := ewtFlatOffset(a, i)
	switch a.dtype {
	case Float64:
		v := typedAll[float64](a)[o]
		return v, 0
	case Float32:
		v := typedAll[float32](a)[o]
		return float64(v), 0
	case Int64:
		v := typedAll[int64](a)[o]
		return float64(v), v
	case Int32:
		v := typedAll[int32](a)[o]
		return float64(v), int64(v)
	case Bool:
		v := typedAll[uint8](a)[o]
		return float64(v), int64(v)
	case Float16:
		return HalfToFloat64(typedAll[uint16](a)[o]), 0
	}
	if a.dtype.IsInt() {
		return a.AtFlat(i), a.IntAtFlat(i)
	}
	panic("bad dtype")
}

// ewtSet stores f (floats) or n (ints/bools) at flat index i of a contiguous array.
func ewtSet(a *Array, i int, f float64, n int64) {
	switch a.dtype {
	case Float64:
		typedAll[float64](a)[i] = f
	case Float32:
		typedAll[float32](a)[i] = float32(f)
	case Int64:
		typedAll[int64](a)[i] = n
	case Int32:
		typedAll[int32](a)[i] = int32(n)
	case Bool:
		typedAll[uint8](a)[i] = uint8(n)
	case Int16:
		typedAll[int16](a)[i] = int16(n)
	case Int8:
		typedAll[int8](a)[i] = int8(n)
	case Uint64:
		typedAll[uint64](a)[i] = uint64(n)
	case Uint32:
		typedAll[uint32](a)[i] = uint32(n)
	case Uint16:
		typedAll[uint16](a)[i] = uint16(n)
	case Uint8:
		typedAll[uint8](a)[i] = uint8(n)
	}
}

// ewtMaterialize copies a (any view) into a new contiguous array element by element.
func ewtMaterialize(a *Array) *Array {
	out := newArray(a.dtype, a.shape)
	for i := range a.Size() {
		f, n := ewtGet(a, i)
		ewtSet(out, i, f, n)
	}
	return out
}

// ewtParse builds a contiguous 1-d array of dtype dt from space-separated numbers.
func ewtParse(t testing.TB, dt DType, s string) *Array {
	t.Helper()
	fs := strings.Fields(s)
	a := newArray(dt, []int{len(fs)})
	for i, f := range fs {
		if dt.IsFloat() {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			ewtSet(a, i, v, 0)
		} else {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			ewtSet(a, i, 0, v)
		}
	}
	return a
}

// ewtNumpyDType maps a NumPy result dtype to the Phobos one, applying the
// documented stand-ins for types Phobos lacks.
func ewtNumpyDType(t testing.TB, name string) DType {
	t.Helper()
	d, err := ParseDType(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ewtULPs(a, b float64, dt DType) uint64 {
	if dt == Float32 {
		x, y := int64(int32(math.Float32bits(float32(a)))), int64(int32(math.Float32bits(float32(b))))
		if x < 0 {
			x = math.MinInt32 - x
		}
		if y < 0 {
			y = math.MinInt32 - y
		}
		d := x - y
		if d < 0 {
			d = -d
		}
		return uint64(d)
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

// ewtSame compares element i of got with want: bit-exact (NaN equals NaN,
// zeros must agree in sign) unless ulps > 0, then within ulps (float) or a
// relative 1e-3 when the expected value came from a NumPy float16.
func ewtSame(got *Array, i int, wantF float64, wantN int64, ulps uint64, half bool) bool {
	f, n := ewtGet(got, i)
	if !got.dtype.IsFloat() {
		return n == wantN
	}
	if math.IsNaN(wantF) || math.IsNaN(f) {
		return math.IsNaN(wantF) && math.IsNaN(f)
	}
	if half {
		return f == wantF || math.Abs(f-wantF) <= 1e-3*math.Abs(wantF)
	}
	if f == wantF {
		return math.Signbit(f) == math.Signbit(wantF)
	}
	if math.IsInf(f, 0) || math.IsInf(wantF, 0) {
		return false
	}
	if ulps >= 4 && math.Abs(f-wantF) <= 0x1p-52 {
		return true // trig: absolute error of Go's argument reduction
	}
	return ulps > 0 && ewtULPs(f, wantF, got.dtype) <= ulps
}

// ewtCheck compares got (any layout) with the values in want (NumPy text).
func ewtCheck(t *testing.T, what string, got *Array, want string, ulps uint64, half bool) {
	t.Helper()
	ws := strings.Fields(want)
	if got.Size() != len(ws) {
		t.Fatalf("%s: got %d elements, want %d", what, got.Size(), len(ws))
	}
	bad := 0
	for i, w := range ws {
		var wf float64
		var wn int64
		if got.dtype.IsFloat() {
			wf, _ = strconv.ParseFloat(w, 64)
		} else {
			wn, _ = strconv.ParseInt(w, 10, 64)
		}
		if !ewtSame(got, i, wf, wn, ulps, half) {
			f, n := ewtGet(got, i)
			if got.dtype.IsFloat() {
				t.Errorf("%s: element %d = %v (%x), want %s", what, i, f, math.Float64bits(f), w)
			} else {
				t.Errorf("%s: element %d = %d, want %s", what, i, n, w)
			}
			if bad++; bad > 5 {
				t.Fatalf("%s: too many mismatches", what)
			}
		}
	}
}

// ewtEqual reports whether two arrays have equal dtype, shape and elements
// (bitwise, NaN == NaN).
func ewtEqual(a, b *Array) error {
	if a.dtype != b.dtype || !SameShape(a.shape, b.shape) {
		return fmt.Errorf("got %v%v, want %v%v", a.dtype, a.shape, b.dtype, b.shape)
	}
	for i := range a.Size() {
		af, an := ewtGet(a, i)
		bf, bn := ewtGet(b, i)
		if a.dtype.IsFloat() {
			if math.IsNaN(af) && math.IsNaN(bf) {
				continue
			}
			if math.Float64bits(af) != math.Float64bits(bf) {
				return fmt.Errorf("element %d: got %v, want %v", i, af, bf)
			}
		} else if an != bn {
			return fmt.Errorf("element %d: got %d, want %d", i, an, bn)
		}
	}
	return nil
}

// Transcendental ops are compared within a few ULPs: Go's math package and
// NumPy's libm/SIMD routines (which differ between CPUs) are not
// bit-identical. Trig results may also be off by ~1e-16 absolute (see
// ewtSame), since Go's sin/cos/tan reduce large arguments in double precision.
var ewtULPUnary = map[string]uint64{"exp": 2, "log": 2, "log1p": 2, "sin": 4, "cos": 4, "tan": 4, "tanh": 2}

// ---- NumPy fixture tests (data in elementwise_numpy_test.go) ----

func TestElementwiseBinaryNumpy(t *testing.T) {
	for _, c := range npBinCases {
		op, err := ParseBinaryOp(c.op)
		if err != nil {
			t.Fatal(err)
		}
		dx, _ := ParseDType(c.gx[strings.IndexByte(c.gx, ':')+1:])
		dy, _ := ParseDType(c.gy[strings.IndexByte(c.gy, ':')+1:])
		gx, gy := ewtParse(t, dx, npGrids[c.gx]), ewtParse(t, dy, npGrids[c.gy])
		nx, ny := gx.Size(), gy.Size()
		name := fmt.Sprintf("%s(%s, %s)", c.op, c.gx, c.gy)
		// Outer product as flat vectors (contiguous vector-vector path).
		x, y := newArray(dx, []int{nx * ny}), newArray(dy, []int{nx * ny})
		for i := range nx {
			for j := range ny {
				f, n := ewtGet(gx, i)
				ewtSet(x, i*ny+j, f, n)
				f, n = ewtGet(gy, j)
				ewtSet(y, i*ny+j, f, n)
			}
		}
		got, err := Binary(op, x, y)
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
		wantDT := ewtNumpyDType(t, c.dtype)
		if rt, _ := BinaryResultType(op, dx, dy); rt != wantDT || got.dtype != wantDT {
			t.Errorf("%s: dtype %v (BinaryResultType %v), numpy %s", name, got.dtype, rt, c.dtype)
			continue
		}
		var ulps uint64
		if op == Pow && wantDT.IsFloat() {
			ulps = 2
		}
		half := c.dtype == "float16"
		ewtCheck(t, name, got, c.want, ulps, half)
		// The same through broadcasting: (nx,1) op (1,ny) walks runs with a
		// zero stride on x (scalar-vector loop) ...
		xc, _ := gx.Reshape(nx, 1)
		yr, _ := gy.Reshape(1, ny)
		got, err = Binary(op, xc, yr)
		if err != nil {
			t.Fatalf("%s broadcast: %v", name, err)
		}
		ewtCheck(t, name+" broadcast (nx,1)x(1,ny)", got, c.want, ulps, half)
		// ... and (1,nx) op (ny,1), transposed back, has y constant along runs.
		xr, _ := gx.Reshape(1, nx)
		yc, _ := gy.Reshape(ny, 1)
		got, err = Binary(op, xr, yc)
		if err != nil {
			t.Fatalf("%s broadcast: %v", name, err)
		}
		gotT, _ := got.Transpose()
		ewtCheck(t, name+" broadcast (1,nx)x(ny,1).T", gotT, c.want, ulps, half)
		// Scalar operands (0-d): the vector-scalar and scalar-vector loops.
		ws := strings.Fields(c.want)
		for i := range nx {
			xi, _ := gx.Index(0, i)
			got, err := Binary(op, xi, gy)
			if err != nil {
				t.Fatalf("%s scalar x: %v", name, err)
			}
			ewtCheck(t, name+" 0-d x", got, strings.Join(ws[i*ny:(i+1)*ny], " "), ulps, half)
		}
		for j := range ny {
			yj, _ := gy.Index(0, j)
			got, err := Binary(op, gx, yj)
			if err != nil {
				t.Fatalf("%s scalar y: %v", name, err)
			}
			col := make([]string, nx)
			for i := range nx {
				col[i] = ws[i*ny+j]
			}
			ewtCheck(t, name+" 0-d y", got, strings.Join(col, " "), ulps, half)
		}
	}
}

func TestElementwiseUnaryNumpy(t *testing.T) {
	for _, c := range npUnCases {
		op, err := ParseUnaryOp(c.op)
		if err != nil {
			t.Fatal(err)
		}
		dx, _ := ParseDType(c.dx)
		x := ewtParse(t, dx, npGrids["unary:"+c.dx])
		name := fmt.Sprintf("%s(%s)", c.op, c.dx)
		got, err := Unary(op, x)
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
		wantDT := ewtNumpyDType(t, c.dtype)
		if rt, _ := UnaryResultType(op, dx); rt != wantDT || got.dtype != wantDT {
			t.Errorf("%s: dtype %v (UnaryResultType %v), numpy %s", name, got.dtype, rt, c.dtype)
			continue
		}
		want := ewtLargeTrig(t, c.op, x, got, c.want)
		ewtCheck(t, name, got, want, ewtULPUnary[c.op], c.dtype == "float16")
		// Reversed view and a broadcast 0-d input go through the strided drivers.
		rev, _ := x.Flip(0)
		got, _ = Unary(op, rev)
		gotRev, _ := got.Flip(0)
		ewtCheck(t, name+" flipped", gotRev, want, ewtULPUnary[c.op], c.dtype == "float16")
		ws := strings.Fields(want)
		for i := range x.Size() {
			xi, _ := x.Index(0, i)
			xb, _ := xi.BroadcastTo([]int{3, 2})
			got, _ := Unary(op, xb)
			ewtCheck(t, name+" broadcast scalar", got, strings.Repeat(ws[i]+" ", 6), ewtULPUnary[c.op], c.dtype == "float16")
		}
	}
}

// ewtLargeTrig accepts, for sin/cos/tan of |x| >= 2^29, a relative error up
// to 1e-12 by substituting the computed value into want. Known deviation: Go's
// math reduces such arguments with a double-precision result, so e.g.
// tan(2**63) is off by ~30 ULP; NumPy (libm/SVML) is within an ULP or so.
func ewtLargeTrig(t *testing.T, op string, x, got *Array, want string) string {
	if op != "sin" && op != "cos" && op != "tan" {
		return want
	}
	ws := strings.Fields(want)
	for i := range ws {
		xf, _ := ewtGet(x, i)
		if math.Abs(xf) < 1<<29 || math.IsInf(xf, 0) {
			continue
		}
		g, _ := ewtGet(got, i)
		w, _ := strconv.ParseFloat(ws[i], 64)
		if math.Abs(g-w) <= 1e-12*math.Abs(w) {
			ws[i] = strconv.FormatFloat(g, 'g', -1, 64)
		}
	}
	return strings.Join(ws, " ")
}

func TestElementwiseAstypeNumpy(t *testing.T) {
	for _, c := range npCastCases {
		dx, _ := ParseDType(c.dx)
		to, _ := ParseDType(c.to)
		x := ewtParse(t, dx, c.x)
		name := fmt.Sprintf("%s.astype(%s)", c.dx, c.to)
		got := x.Astype(to)
		if got.dtype != to {
			t.Fatalf("%s: dtype %v", name, got.dtype)
		}
		ewtCheck(t, name, got, c.want, 0, false)
		// strided source: every element twice, reversed
		n := x.Size()
		xx := newArray(dx, []int{n, 2})
		for i := range n {
			f, v := ewtGet(x, i)
			ewtSet(xx, 2*i, f, v)
			ewtSet(xx, 2*i+1, f, v)
		}
		col, _ := xx.Index(1, 1)
		rev, _ := col.Flip(0)
		got, _ = rev.Astype(to).Flip(0)
		ewtCheck(t, name+" strided", got, c.want, 0, false)
	}
}

// ---- layout tests: views vs. the same data made contiguous ----

// ewtData builds a contiguous array of the given shape with varied values
// including special ones for the dtype.
func ewtData(dt DType, shape []int, seed int) *Array {
	a := newArray(dt, shape)
	specF := []float64{0, math.Copysign(0, -1), 1.5, -2.5, 7, math.Inf(1), math.Inf(-1), math.NaN(), 0.1, -3, 4, 1e300}
	specI := []int64{0, 1, -1, 7, -7, 3, math.MinInt32, math.MaxInt32, 2, -3, 11, 5}
	for i := range a.Size() {
		k := (i*7 + seed*3) % 23
		switch {
		case dt == Bool:
			ewtSet(a, i, 0, int64((i+seed)%3%2))
		case dt.IsFloat():
			v := float64(k) - 11.5
			if k < len(specF) && (i+seed)%4 == 0 {
				v = specF[k]
			}
			ewtSet(a, i, v, 0)
		default:
			v := int64(k) - 11
			if k < len(specI) && (i+seed)%4 == 0 {
				v = specI[k]
				if dt == Int64 && v == math.MinInt32 {
					v = math.MinInt64
				}
			}
			ewtSet(a, i, 0, v)
		}
	}
	return a
}

// ewtLayouts returns pairs of operands (views of various kinds) to combine.
func ewtLayouts(t *testing.T, dx, dy DType) [][2]*Array {
	t.Helper()
	must := func(a *Array, err error) *Array {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	var out [][2]*Array
	// contiguous, same shape
	out = append(out, [2]*Array{ewtData(dx, []int{4, 6}, 1), ewtData(dy, []int{4, 6}, 2)})
	// transposed vs. row broadcast
	out = append(out, [2]*Array{must(ewtData(dx, []int{6, 4}, 3).Transpose()), ewtData(dy, []int{6}, 4)})
	// negative step slice vs. column broadcast
	neg := must(ewtData(dx, []int{4, 12}, 5).Slice([]Range{{0, 1, 4}, {11, -2, 6}}))
	out = append(out, [2]*Array{neg, ewtData(dy, []int{4, 1}, 6)})
	// flipped vs. 0-d
	out = append(out, [2]*Array{must(ewtData(dx, []int{4, 6}, 7).Flip(0)), must(ewtData(dy, []int{1}, 8).Reshape())})
	// 0-d vs. transposed, flipped
	tf := must(must(ewtData(dy, []int{6, 4}, 9).Transpose()).Flip(1))
	out = append(out, [2]*Array{must(ewtData(dx, []int{1}, 10).Reshape()), tf})
	// 3-d broadcast both ways
	out = append(out, [2]*Array{ewtData(dx, []int{2, 1, 6}, 11), ewtData(dy, []int{3, 1}, 12)})
	// explicit BroadcastTo view vs. step-3 slice
	bt := must(ewtData(dx, []int{6}, 13).BroadcastTo([]int{4, 6}))
	s3 := must(ewtData(dy, []int{4, 18}, 14).Slice([]Range{{0, 1, 4}, {1, 3, 6}}))
	out = append(out, [2]*Array{bt, s3})
	// long strided runs (more than one gather block) and a reversed run
	long := must(ewtData(dx, []int{3, 2300}, 15).Slice([]Range{{0, 1, 3}, {2299, -2, 1150}}))
	out = append(out, [2]*Array{long, ewtData(dy, []int{3, 1150}, 16)})
	// long strided vs long strided
	l2 := must(ewtData(dy, []int{1150, 3}, 17).Transpose())
	out = append(out, [2]*Array{long, l2})
	// big enough for the tiled walk: transposed vs. reversed stride -2,
	// and a 3-d batch of transposes vs. a row broadcast
	bigT := must(ewtData(dx, []int{200, 300}, 22).Transpose())
	bigR := must(ewtData(dy, []int{300, 401}, 23).Slice([]Range{{0, 1, 300}, {400, -2, 200}}))
	out = append(out, [2]*Array{bigT, bigR})
	b3 := must(ewtData(dx, []int{2, 140, 150}, 24).Transpose(0, 2, 1))
	out = append(out, [2]*Array{b3, ewtData(dy, []int{140}, 25)})
	// empty
	out = append(out, [2]*Array{ewtData(dx, []int{0, 6}, 18), ewtData(dy, []int{6}, 19)})
	// both 0-d
	out = append(out, [2]*Array{must(ewtData(dx, []int{1}, 20).Reshape()), must(ewtData(dy, []int{1}, 21).Reshape())})
	return out
}

var ewtDTypes = []DType{Bool, Int32, Int64, Float32, Float64}

func TestElementwiseBinaryLayouts(t *testing.T) {
	for op := Add; op <= Xor; op++ {
		for _, dx := range ewtDTypes {
			for _, dy := range ewtDTypes {
				if dx != dy && dx != Float64 && dy != Int32 {
					continue // a sample of the mixed pairs keeps the test fast
				}
				for li, p := range ewtLayouts(t, dx, dy) {
					x, y := p[0], p[1]
					if x.Size() > 10000 && dx != dy && op != Add && op != Less {
						continue // big (tiled) layouts: all ops for equal dtypes only, to keep this fast
					}
					if op == Pow && Promote(dx, dy).IsInt() {
						y = ewtAbs(y)
					}
					got, err := Binary(op, x, y)
					shape, _ := BroadcastShapes(x.shape, y.shape)
					xm, _ := ewtMaterialize(must2(x.BroadcastTo(shape))).Reshape(-1)
					ym, _ := ewtMaterialize(must2(y.BroadcastTo(shape))).Reshape(-1)
					want, werr := Binary(op, xm, ym)
					if (err == nil) != (werr == nil) {
						t.Fatalf("%v %v,%v layout %d: error %v vs contiguous %v", op, dx, dy, li, err, werr)
					}
					if err != nil {
						continue
					}
					want, _ = want.Reshape(shape...)
					if e := ewtEqual(got, want); e != nil {
						t.Errorf("%v %v,%v layout %d (shapes %v %v strides %v %v): %v",
							op, dx, dy, li, x.shape, y.shape, x.strides, y.strides, e)
					}
					if !got.IsContiguous() || got.offset != 0 {
						t.Errorf("%v: output not a new contiguous array", op)
					}
				}
			}
		}
	}
}

func must2(a *Array, err error) *Array {
	if err != nil {
		panic(err)
	}
	return a
}

// ewtAbs returns a contiguous copy with negative integers made non-negative
// (for integer power, which rejects negative exponents).
func ewtAbs(a *Array) *Array {
	m := ewtMaterialize(a)
	for i := range m.Size() {
		f, n := ewtGet(m, i)
		if n < 0 {
			n = -n
			if n < 0 {
				n = 5
			}
		}
		ewtSet(m, i, f, n)
	}
	return m
}

func TestElementwiseUnaryLayouts(t *testing.T) {
	for op := Neg; op <= Not; op++ {
		for _, dt := range ewtDTypes {
			for li, p := range ewtLayouts(t, dt, dt) {
				if p[0].Size() > 10000 && op != Neg && op != Sqrt && op != IsNaN && op != Sign {
					continue // big (tiled) layouts for a few ops only, to keep this fast
				}
				for _, x := range p {
					got, err := Unary(op, x)
					want, werr := Unary(op, ewtMaterialize(x))
					if (err == nil) != (werr == nil) {
						t.Fatalf("%v %v layout %d: error %v vs %v", op, dt, li, err, werr)
					}
					if err != nil {
						continue
					}
					if e := ewtEqual(got, want); e != nil {
						t.Errorf("%v %v layout %d (shape %v strides %v): %v", op, dt, li, x.shape, x.strides, e)
					}
				}
			}
		}
	}
}

// A naive reference for the simple ops, written from the NumPy definitions.
func TestElementwiseNaiveReference(t *testing.T) {
	for _, dt := range ewtDTypes {
		for li, p := range ewtLayouts(t, dt, dt) {
			x, y := p[0], p[1]
			shape, _ := BroadcastShapes(x.shape, y.shape)
			xb, yb := must2(x.BroadcastTo(shape)), must2(y.BroadcastTo(shape))
			for _, op := range []BinaryOp{Add, Mul, Sub, Maximum, Minimum, Less, GreaterEqual, Equal, NotEqual, And, Xor} {
				got, err := Binary(op, x, y)
				if op == Sub && dt == Bool {
					if err == nil {
						t.Errorf("bool subtract: no error")
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for i := range Size(shape) {
					xf, xn := ewtGet(xb, i)
					yf, yn := ewtGet(yb, i)
					wf, wn := ewtNaive(op, dt, xf, yf, xn, yn)
					if !ewtSame(got, i, wf, wn, 0, false) {
						gf, gn := ewtGet(got, i)
						t.Errorf("%v %v layout %d element %d: %v op %v = %v/%d, want %v/%d", op, dt, li, i, xf, yf, gf, gn, wf, wn)
						break
					}
				}
			}
		}
	}
}

func ewtNaive(op BinaryOp, dt DType, x, y float64, xn, yn int64) (float64, int64) {
	b := func(c bool) (float64, int64) {
		if c {
			return 1, 1
		}
		return 0, 0
	}
	if dt.IsFloat() {
		r := func(v float64) (float64, int64) {
			if dt == Float32 {
				return float64(float32(v)), 0
			}
			return v, 0
		}
		switch op {
		case Add:
			return r(x + y)
		case Sub:
			return r(x - y)
		case Mul:
			return r(x * y)
		case Maximum:
			if math.IsNaN(x) || math.IsNaN(y) {
				return math.NaN(), 0
			}
			if x > y {
				return x, 0
			}
			return y, 0
		case Minimum:
			if math.IsNaN(x) || math.IsNaN(y) {
				return math.NaN(), 0
			}
			if x < y {
				return x, 0
			}
			return y, 0
		}
	} else {
		w := func(v int64) (float64, int64) {
			switch dt {
			case Int32:
				return float64(int32(v)), int64(int32(v))
			case Bool:
				if v != 0 {
					return 1, 1
				}
				return 0, 0
			}
			return float64(v), v
		}
		switch op {
		case Add:
			return w(xn + yn)
		case Sub:
			return w(xn - yn)
		case Mul:
			return w(xn * yn)
		case Maximum:
			return w(max(xn, yn))
		case Minimum:
			return w(min(xn, yn))
		}
	}
	switch op {
	case Less:
		return b(x < y && dt.IsFloat() || xn < yn && !dt.IsFloat())
	case GreaterEqual:
		return b(x >= y && dt.IsFloat() || xn >= yn && !dt.IsFloat())
	case Equal:
		return b(x == y && dt.IsFloat() || xn == yn && !dt.IsFloat())
	case NotEqual:
		return b(x != y && dt.IsFloat() || xn != yn && !dt.IsFloat())
	case And:
		return b(x != 0 && y != 0)
	case Xor:
		return b((x != 0) != (y != 0))
	}
	panic("op")
}

// ---- hand-picked NumPy semantics ----

func ewtF64(t *testing.T, vals ...float64) *Array {
	t.Helper()
	a, err := FromFloat64s([]int{len(vals)}, vals)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestElementwiseTrickyNumpy(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	i32 := func(v ...int32) *Array { return must2(FromInt32s([]int{len(v)}, v)) }
	i64 := func(v ...int64) *Array { return must2(FromInt64s([]int{len(v)}, v)) }
	run := func(name string, got *Array, err error, want string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ewtCheck(t, name, got, want, 0, false)
	}
	// a = np.array([7,-7,7,-7,0,5,-5,mn,mn,mn,3], np.int32); b = np.array([2,2,-2,-2,3,0,0,-1,1,2,mn], np.int32)
	// (a // b).tolist(); (a % b).tolist()
	a := i32(7, -7, 7, -7, 0, 5, -5, math.MinInt32, math.MinInt32, math.MinInt32, 3)
	b := i32(2, 2, -2, -2, 3, 0, 0, -1, 1, 2, math.MinInt32)
	got, err := Binary(FloorDiv, a, b)
	run("int32 floor_divide", got, err, "3 -4 -4 3 0 0 0 -2147483648 -2147483648 -1073741824 -1")
	got, err = Binary(Mod, a, b)
	run("int32 remainder", got, err, "1 1 -1 -1 0 0 0 0 0 0 -2147483645")
	// np.array([mn64, 5], np.int64) // np.array(-1, np.int64) -> [mn64, -5]; // 0 -> [0, 0]
	got, err = Binary(FloorDiv, i64(math.MinInt64, 5), must2(i64(-1).Reshape()))
	run("int64 floor_divide by -1 scalar", got, err, "-9223372036854775808 -5")
	got, err = Binary(FloorDiv, i64(math.MinInt64, 5), must2(i64(0).Reshape()))
	run("int64 floor_divide by 0 scalar", got, err, "0 0")
	got, err = Binary(Mod, i64(math.MinInt64, 5), must2(i64(0).Reshape()))
	run("int64 remainder by 0 scalar", got, err, "0 0")
	// fa = np.array([7,-7,0,-0.0,5,-5,0,inf,1,-1,1,-1,nan,5.5,-5.5,0.1]); fb = np.array([-2,2,3,3,0,0,0,2,inf,inf,-inf,-inf,1,0.5,0.5,0.01])
	// (fa // fb).tolist(); (fa % fb).tolist()
	fa := ewtF64(t, 7, -7, 0, math.Copysign(0, -1), 5, -5, 0, inf, 1, -1, 1, -1, nan, 5.5, -5.5, 0.1)
	fb := ewtF64(t, -2, 2, 3, 3, 0, 0, 0, 2, inf, inf, -inf, -inf, 1, 0.5, 0.5, 0.01)
	got, err = Binary(FloorDiv, fa, fb)
	run("float floor_divide", got, err, "-4.0 -4.0 0.0 -0.0 inf -inf nan nan 0.0 -1.0 -1.0 0.0 nan 11.0 -11.0 10.0")
	got, err = Binary(Mod, fa, fb)
	run("float remainder", got, err, "-1.0 1.0 0.0 0.0 nan nan nan nan 1.0 inf -inf -1.0 nan 0.0 0.0 3.469446951953614e-18")
	// np.sign(np.array([nan, -0.0, 0.0, -2.5, inf])) -> [nan, 0.0, 0.0, -1.0, 1.0] (+0 for -0)
	got, err = Unary(Sign, ewtF64(t, nan, math.Copysign(0, -1), 0, -2.5, inf))
	run("sign", got, err, "nan 0.0 0.0 -1.0 1.0")
	// np.round(np.array([0.5,1.5,2.5,-0.5,-1.5,-2.5,0.49999999999999994,4503599627370497.0]))
	got, err = Unary(Round, ewtF64(t, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 4503599627370497.0))
	run("round", got, err, "0.0 2.0 2.0 -0.0 -2.0 -2.0 0.0 4503599627370497.0")
	// np.maximum(np.array([nan,1,-0.0,0.0]), np.array([1,nan,0.0,-0.0])) -> [nan, nan, 0.0, -0.0]
	m1, m2 := ewtF64(t, nan, 1, math.Copysign(0, -1), 0), ewtF64(t, 1, nan, 0, math.Copysign(0, -1))
	got, err = Binary(Maximum, m1, m2)
	run("maximum", got, err, "nan nan 0.0 -0.0")
	got, err = Binary(Minimum, m1, m2)
	run("minimum", got, err, "nan nan 0.0 -0.0")
	// np.abs(np.array([mn32, -1], np.int32)) -> [-2147483648, 1]; -np.array([mn32]) -> [-2147483648]
	got, err = Unary(Abs, i32(math.MinInt32, -1))
	run("abs INT_MIN", got, err, "-2147483648 1")
	got, err = Unary(Neg, i32(math.MinInt32))
	run("neg INT_MIN", got, err, "-2147483648")
	// np.power(np.array([2,3,-2,0,0,1,-1,7]), np.array([10,40,3,0,5,100,101,0])) (int64)
	got, err = Binary(Pow, i64(2, 3, -2, 0, 0, 1, -1, 7), i64(10, 40, 3, 0, 5, 100, 101, 0))
	run("int power", got, err, "1024 -6289078614652622815 -8 1 0 1 -1 1")
	// np.power(np.array([2]), np.array([-1])) -> ValueError: Integers to negative integer powers are not allowed.
	if _, err := Binary(Pow, i64(2), i64(-1)); err == nil || !strings.Contains(err.Error(), "negative integer powers") {
		t.Errorf("int power with negative exponent: err = %v", err)
	}
	// np.power(np.array([-1.,-1,1,nan,0,-0.0,-0.0,-8]), np.array([inf,-inf,nan,0,-1,-1,-2,1/3]))
	got, err = Binary(Pow, ewtF64(t, -1, -1, 1, nan, 0, math.Copysign(0, -1), math.Copysign(0, -1), -8),
		ewtF64(t, inf, -inf, nan, 0, -1, -1, -2, 1.0/3))
	run("float power specials", got, err, "1.0 1.0 1.0 1.0 inf -inf inf nan")
	// np.array([1,-1,0], np.int32) / np.array([0,0,0], np.int32) -> [inf, -inf, nan] (float64)
	got, err = Binary(Div, i32(1, -1, 0), i32(0, 0, 0))
	run("int true_divide by zero", got, err, "inf -inf nan")
	if got.dtype != Float64 {
		t.Errorf("int32/int32 dtype %v", got.dtype)
	}
	// np.array([2**53+1]) == np.array([2.0**53]) -> [True] (compared in float64)
	got, err = Binary(Equal, i64(1<<53+1), ewtF64(t, 1<<53))
	run("int64 == float64", got, err, "1")
	// np.logical_and(np.array([nan, 0, -0.0, 2]), np.array([1,1,1,0])) -> [True, False, False, False]
	got, err = Binary(And, ewtF64(t, nan, 0, math.Copysign(0, -1), 2), i32(1, 1, 1, 0))
	run("logical_and", got, err, "1 0 0 0")
}

// ewPow is a port of glibc's pow; these are glibc's own results, from
//
//	rng = np.random.default_rng(7)
//	xs = list(rng.uniform(0,10,16)) + list(np.exp(rng.uniform(-700,700,12))) + list(rng.uniform(0.999,1.001,8)) \
//	     + list(np.exp(rng.uniform(-745,-708,6))) + list(-rng.uniform(0,10,8)) + [0.5, 2.0, 10.0, 1.0000001, 0.1]
//	ys = list(rng.uniform(-5,5,16)) + list(rng.uniform(-1.5,1.5,12)) + list(rng.uniform(-1e5,1e5,8)) \
//	     + list(rng.uniform(-1.1,1.1,6)) + list(rng.integers(-40,40,8).astype(float)) + [1074.5, -1074.0, 308.25, 7.1e9, 7.0]
//	[(x.hex(), y.hex(), math.pow(x, y).hex()) for x, y in zip(xs, ys)]   # OverflowError -> inf
//
// NumPy calls this pow except where it has SIMD code (on AVX-512 CPUs it uses
// SVML, which differs from glibc by 1 ULP in about 28 percent of cases).
func TestElementwisePowMatchesGlibc(t *testing.T) {
	cases := [][3]float64{
		{0x1.900fa428dcbd3p+2, -0x1.6329fc7d23c96p+0, 0x1.422da54f7f252p-4},
		{0x1.1f1bc12bdaf00p+3, 0x1.f6b3d210dd6b8p-1, 0x1.13e4d1705fa37p+3},
		{0x1.f07057eef21b7p+2, -0x1.1a1435febabc2p+2, 0x1.f6c9975870d58p-14},
		{0x1.2043e45b2b12ap+1, -0x1.1fa99f7166000p+0, 0x1.9b40e6d8b427cp-2},
		{0x1.80367cfd47149p+1, -0x1.c506e66e0446cp+0, 0x1.24cd1c6e44982p-3},
		{0x1.17897f8d1b38ap+3, -0x1.bfbe8d82df2aap+1, 0x1.0b43003d96d43p-11},
		{0x1.af5570a40a120p-5, 0x1.94e9ab7be86d0p+1, 0x1.7a7929d69db89p-14},
		{0x1.06cb08335fee8p+3, -0x1.349e2831fd724p+0, 0x1.438c4500dce2ep-4},
		{0x1.fe1fdaeed41f4p+2, 0x1.32660daa703f2p+2, 0x1.4361663f232e3p+14},
		{0x1.2b7a7671cc369p+2, 0x1.ccc1e96fd8488p-1, 0x1.009ed4ef0629ep+2},
		{0x1.83e1aa6615134p+1, 0x1.0cf1aaa065158p+0, 0x1.9a3efbaead661p+1},
		{0x1.6462812bb5409p+1, 0x1.6145706e7503cp+0, 0x1.06f1b0f5e1249p+2},
		{0x1.463baa9e98ec2p+1, 0x1.c3b66e8978b58p+0, 0x1.4d868a36ce2cap+2},
		{0x1.1cd94d4cf9e4ep+2, -0x1.befdc82937576p+1, 0x1.6482004bcb9f5p-8},
		{0x1.42e92fceb203ep+2, -0x1.31985510c46e8p-1, 0x1.85ba63816d1cep-2},
		{0x1.623d0193f4d3dp+2, -0x1.4d5bae5535c43p+1, 0x1.7c48f88aaa8f3p-7},
		{0x1.bd24649f736afp+1000, -0x1.2b86755b5f750p-2, 0x1.32dc4e19a2bd2p-293},
		{0x1.1468a1beefadep+591, -0x1.35bb339585827p+0, 0x1.c4b828287f390p-716},
		{0x1.b5db60a8c0e12p+246, 0x1.674abcca37e3cp+0, 0x1.44e5cde7a8be4p+346},
		{0x1.80f38c460f13bp+987, -0x1.b5c0f8f24a8bfp-1, 0x1.8a77f4c272b31p-845},
		{0x1.fbd26e126587bp-576, 0x1.07d4cf680ba8cp-1, 0x1.9f9603a716d63p-297},
		{0x1.a17053a628657p-687, -0x1.328e0469ea17ep-1, 0x1.e1a704a590351p+410},
		{0x1.3c262118bea59p+227, 0x1.1f4a89347dbdap+0, 0x1.10203478c2da1p+255},
		{0x1.d2b37d068d804p-922, 0x1.f252dc711d414p-2, 0x1.aa46633752c9ep-449},
		{0x1.21ecdc745cba2p-938, -0x1.1aeb471666a18p+0, math.Inf(1)},
		{0x1.0d1b7bf11140ap+30, 0x1.09045f40896eap+0, 0x1.186281fc9d797p+31},
		{0x1.acb467d3772b9p-69, 0x1.55b85eba72b64p+0, 0x1.d9f74f44df011p-92},
		{0x1.7fce022a75ce0p+842, 0x1.3635459ad2126p+0, 0x1.004f5fa90cd90p+1021},
		{0x1.0010f01d12da8p+0, 0x1.b3bea2f691a68p+13, 0x1.25c4db671f94bp+5},
		{0x1.0001d9b5a92fap+0, -0x1.14fc025e10956p+16, 0x1.14973889a52a7p-3},
		{0x1.ffff2e2e0770cp-1, -0x1.e0869a1d808ccp+15, 0x1.781380fcfeb33p+0},
		{0x1.ffbdd00363b76p-1, 0x1.4e4d230f155bap+16, 0x1.8e1093f0bce97p-63},
		{0x1.ff80050d39565p-1, 0x1.470a615938088p+13, 0x1.3095df623491dp-15},
		{0x1.ffaf5d7512881p-1, -0x1.f3230028a92d8p+15, 0x1.a63dc509c9597p+56},
		{0x1.00192b875ba1dp+0, 0x1.2c0b60fb9caa2p+16, 0x1.77576b96e4783p+42},
		{0x1.ffb1840eaefbap-1, 0x1.ba695d3ac4b5cp+14, 0x1.72618b6ef036cp-25},
		{0x0.0000000078ec2p-1022, 0x1.3a03b7c8ab348p-3, 0x1.2b9f9706257d3p-162},
		{0x0.0000000000001p-1022, -0x1.16b2e21dddd94p-2, 0x1.3cba60ef5a091p+292},
		{0x0.00b501f6df640p-1022, -0x1.91332b61e4bb4p-3, 0x1.d4f3d7e9f6821p+201},
		{0x0.00000000000adp-1022, -0x1.2570794bdc868p-1, 0x1.35872f0b05726p+611},
		{0x0.0000000002c87p-1022, -0x1.042a87e5d4a1ap+0, math.Inf(1)},
		{0x0.048b5acf8e1cfp-1022, 0x1.a7c5da82aa5a6p-1, 0x1.3a474566acc38p-851},
		{-0x1.4644205477303p+2, 0x1.4000000000000p+2, -0x1.ae65d4f5af8f5p+11},
		{-0x1.0f168c55acb87p+3, -0x1.8000000000000p+1, -0x1.af2e13c947cd1p-10},
		{-0x1.996b42b8c5120p+2, 0x1.4000000000000p+4, 0x1.7676d598a0e9cp+53},
		{-0x1.dabbc0841af3fp+2, 0x1.8000000000000p+1, -0x1.9823e969fd528p+8},
		{-0x1.d4751e9578632p-1, -0x1.0000000000000p+1, 0x1.31cd29e364343p+0},
		{-0x1.5a5500f21c786p+2, -0x1.e000000000000p+3, -0x1.601831394153fp-37},
		{-0x1.44f96737d124dp+2, -0x1.4000000000000p+2, -0x1.36a36efe9b5d3p-12},
		{-0x1.16d41f2a4424ap+3, 0x1.4000000000000p+4, 0x1.6149585ae8c4ep+62},
		{0x1.0000000000000p-1, 0x1.0ca0000000000p+10, 0x0.0000000000001p-1022},
		{0x1.0000000000000p+1, -0x1.0c80000000000p+10, 0x0.0000000000001p-1022},
		{0x1.4000000000000p+3, 0x1.3440000000000p+8, 0x1.fa788589d81d3p+1023},
		{0x1.000001ad7f29bp+0, 0x1.a731670000000p+32, math.Inf(1)},
		{0x1.999999999999ap-4, 0x1.c000000000000p+2, 0x1.ad7f29abcaf4bp-24},
	}
	for _, c := range cases {
		if g := ewPow(c[0], c[1]); math.Float64bits(g) != math.Float64bits(c[2]) {
			t.Errorf("pow(%x, %x) = %x, glibc %x", c[0], c[1], g, c[2])
		}
	}
	// 0.1**7: Go's math.Pow gives 1.0000000000000007e-07.
	x := ewtF64(t, 0.1, 0.1)
	got, err := Binary(Pow, x, ewtF64(t, 7, 2))
	if err != nil {
		t.Fatal(err)
	}
	ewtCheck(t, "pow", got, "1.0000000000000004e-07 0.010000000000000002", 0, false)
}

func TestElementwiseWhere(t *testing.T) {
	nan := math.NaN()
	// np.where(np.array([nan, 0, -0.0, 2]), np.array([1,1,1,1], np.int32), np.array([2.,2,2,2], np.float32))
	// -> [1.0, 2.0, 2.0, 1.0] float64
	got, err := Where(ewtF64(t, nan, 0, math.Copysign(0, -1), 2), must2(FromInt32s([]int{4}, []int32{1, 1, 1, 1})),
		must2(FromFloat32s([]int{4}, []float32{2, 2, 2, 2})))
	if err != nil {
		t.Fatal(err)
	}
	if got.dtype != Float64 {
		t.Errorf("where dtype %v, want float64", got.dtype)
	}
	ewtCheck(t, "where", got, "1.0 2.0 2.0 1.0", 0, false)
	// Layouts against a naive reference.
	for _, dt := range ewtDTypes {
		for li, p := range ewtLayouts(t, dt, Int64) {
			x, y := p[0], p[1]
			cond := must2(ewtData(Float64, []int{ewtLastDim(x, y)}, li).Flip(0))
			got, err := Where(cond, x, y)
			if err != nil {
				t.Fatal(err)
			}
			shape, _ := BroadcastShapes(cond.shape, x.shape, y.shape)
			cb, xb, yb := must2(cond.BroadcastTo(shape)), must2(x.BroadcastTo(shape)), must2(y.BroadcastTo(shape))
			wantDT := Promote(dt, Int64)
			want := newArray(wantDT, shape)
			for i := range Size(shape) {
				c, _ := ewtGet(cb, i)
				src := yb
				if c != 0 {
					src = xb
				}
				f, n := ewtGet(src, i)
				ewtSet(want, i, f, n)
			}
			if e := ewtEqual(got, want); e != nil {
				t.Errorf("where %v layout %d: %v", dt, li, e)
			}
		}
	}
	if _, err := Where(ewtF64(t, 1, 2), ewtF64(t, 1, 2, 3), ewtF64(t, 1)); err == nil {
		t.Error("where: no broadcast error")
	}
}

// ewtLastDim is the innermost length of the broadcast shape of x and y (1 for 0-d).
func ewtLastDim(x, y *Array) int {
	shape, _ := BroadcastShapes(x.shape, y.shape)
	if len(shape) == 0 {
		return 1
	}
	return shape[len(shape)-1]
}

func TestElementwiseClip(t *testing.T) {
	nan, nz := math.NaN(), math.Copysign(0, -1)
	// np.clip(np.array([nan,1,5,-0.0,0.0,3,3,2]), np.array([0,nan,0,0.0,-0.0,4,0,0]), np.array([1,2,nan,1,1,2,nan,1]))
	// -> [nan, nan, nan, 0.0, -0.0, 2.0, nan, 1.0]
	got, err := Clip(ewtF64(t, nan, 1, 5, nz, 0, 3, 3, 2), ewtF64(t, 0, nan, 0, 0, nz, 4, 0, 0), ewtF64(t, 1, 2, nan, 1, 1, 2, nan, 1))
	if err != nil {
		t.Fatal(err)
	}
	ewtCheck(t, "clip", got, "nan nan nan 0.0 -0.0 2.0 nan 1.0", 0, false)
	// np.clip(np.array([1,5,-3,10], np.int32), 4, 0) -> [0, 0, 0, 0]  (lo > hi gives hi)
	x := must2(FromInt32s([]int{4}, []int32{1, 5, -3, 10}))
	got, err = Clip(x, Scalar(Int32, 4), Scalar(Int32, 0))
	if err != nil {
		t.Fatal(err)
	}
	ewtCheck(t, "clip lo>hi", got, "0 0 0 0", 0, false)
	// np.clip(np.array([1,5,-3,10], np.int32), np.array([0], np.int32), np.array([4], np.int64)) -> int64 [1, 4, 0, 4]
	// Phobos treats 0-d bounds like these 1-element arrays (Promote); NumPy 1.24
	// would apply value-based casting to 0-d arrays and return int32.
	got, err = Clip(x, Scalar(Int32, 0), ScalarInt(4))
	if err != nil {
		t.Fatal(err)
	}
	if got.dtype != Int64 {
		t.Errorf("clip dtype %v, want int64", got.dtype)
	}
	ewtCheck(t, "clip scalar bounds", got, "1 4 0 4", 0, false)
	// Layouts with array bounds against minimum(maximum(a, lo), hi).
	for _, dt := range ewtDTypes {
		for li, p := range ewtLayouts(t, dt, dt) {
			lo := must2(ewtData(dt, []int{ewtLastDim(p[0], p[1])}, li).Flip(0))
			got, err := Clip(p[0], lo, p[1])
			if err != nil {
				t.Fatal(err)
			}
			want := must2(Binary(Minimum, must2(Binary(Maximum, p[0], lo)), p[1]))
			if e := ewtEqual(got, want); e != nil {
				t.Errorf("clip %v layout %d: %v", dt, li, e)
			}
			l, h := must2(lo.Index(0, 0)), must2(lo.Index(0, lo.Size()-1))
			got, _ = Clip(p[0], l, h)
			want = must2(Binary(Minimum, must2(Binary(Maximum, p[0], l)), h))
			if e := ewtEqual(got, want); e != nil {
				t.Errorf("clip %v scalar bounds layout %d: %v", dt, li, e)
			}
		}
	}
}

func TestElementwiseFillScalar(t *testing.T) {
	cases := []struct {
		dt   DType
		v    float64
		want string
	}{
		// np.full((2,3), x, dtype=dt).ravel() for each (dt, x) below
		{Float64, 2.5, "2.5"}, {Float32, 0.1, "0.10000000149011612"}, {Int64, -2.7, "-2"}, {Int32, 3e9, "-2147483648"},
		{Int64, math.NaN(), "-9223372036854775808"}, {Bool, 0.5, "1"}, {Bool, math.NaN(), "1"}, {Bool, 0, "0"},
	}
	for _, c := range cases {
		a := FillScalar(c.dt, []int{2, 3}, c.v)
		if a.dtype != c.dt || !SameShape(a.shape, []int{2, 3}) {
			t.Fatalf("FillScalar(%v): %v%v", c.dt, a.dtype, a.shape)
		}
		ewtCheck(t, fmt.Sprintf("FillScalar(%v, %v)", c.dt, c.v), a, strings.Repeat(c.want+" ", 6), 0, false)
	}
	if a := FillScalar(Float64, nil, 4); a.NDim() != 0 || a.AtFlat(0) != 4 {
		t.Errorf("0-d FillScalar: %v", a)
	}
	if a := FillScalar(Int32, []int{0, 5}, 4); a.Size() != 0 {
		t.Errorf("empty FillScalar: %v", a)
	}
}

func TestElementwiseConcat(t *testing.T) {
	a := ewtData(Float64, []int{2, 3}, 1)
	bT := must2(ewtData(Float64, []int{3, 4}, 2).Transpose())           // (4,3)
	c := must2(must2(ewtData(Float64, []int{1, 3}, 3).Flip(1)).Flip(0)) // (1,3)
	empty := ewtData(Float64, []int{0, 3}, 4)
	got, err := Concat(0, []*Array{a, bT, empty, c})
	if err != nil {
		t.Fatal(err)
	}
	if !SameShape(got.shape, []int{7, 3}) {
		t.Fatalf("concat shape %v", got.shape)
	}
	var want []float64
	for _, p := range []*Array{a, bT, c} {
		for i := range p.Size() {
			f, _ := ewtGet(p, i)
			want = append(want, f)
		}
	}
	if e := ewtEqual(got, must2(FromFloat64s([]int{7, 3}, want))); e != nil {
		t.Errorf("concat axis 0: %v", e)
	}
	// axis -1 of (2,3) and (2,1) views
	d := must2(ewtData(Int32, []int{2, 4}, 5).Slice([]Range{{1, -1, 2}, {3, -3, 2}})) // (2,2)
	e := ewtData(Int32, []int{2, 1}, 6)
	got, err = Concat(-1, []*Array{d, e})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		for j := range 3 {
			var w int64
			if j < 2 {
				_, w = ewtGet(d, i*2+j)
			} else {
				_, w = ewtGet(e, i)
			}
			if _, g := ewtGet(got, i*3+j); g != w {
				t.Errorf("concat axis -1 [%d,%d] = %d, want %d", i, j, g, w)
			}
		}
	}
	// errors, as np.concatenate raises them
	bad := []struct {
		axis int
		arrs []*Array
		msg  string
	}{
		{0, nil, "need at least one array"},
		{0, []*Array{must2(a.Reshape(-1)), a}, "same number of dimensions"},
		{1, []*Array{a, ewtData(Float64, []int{3, 3}, 1)}, "along dimension 0"},
		{0, []*Array{Scalar(Float64, 1)}, "zero-dimensional"},
		{2, []*Array{a}, "out of bounds"},
		{0, []*Array{a, ewtData(Float32, []int{2, 3}, 1)}, "dtype"},
		{0, []*Array{a, nil}, "nil"},
	}
	for _, c := range bad {
		if _, err := Concat(c.axis, c.arrs); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Concat(%d, ...) error = %v, want mention of %q", c.axis, err, c.msg)
		}
	}
}

func TestElementwiseErrors(t *testing.T) {
	bools := must2(FromBools([]int{2}, []bool{true, false}))
	f := ewtF64(t, 1, 2, 3)
	if _, err := Binary(Sub, bools, bools); err == nil || !strings.Contains(err.Error(), "subtract") || !strings.Contains(err.Error(), "bool") {
		t.Errorf("bool - bool: %v", err)
	}
	if _, err := Unary(Neg, bools); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("-bool: %v", err)
	}
	if _, err := Unary(Sign, bools); err == nil {
		t.Errorf("sign(bool): no error")
	}
	if _, err := Binary(Add, f, ewtF64(t, 1, 2)); err == nil || !strings.Contains(err.Error(), "[3]") || !strings.Contains(err.Error(), "add") {
		t.Errorf("broadcast error: %v", err)
	}
	if _, err := Binary(BinaryOp(99), f, f); err == nil {
		t.Errorf("unknown op: no error")
	}
	if _, err := Unary(UnaryOp(0), f); err == nil {
		t.Errorf("unknown unary op: no error")
	}
	if _, err := Binary(Add, nil, f); err == nil {
		t.Errorf("nil: no error")
	}
	if _, err := Unary(Exp, nil); err == nil {
		t.Errorf("nil: no error")
	}
	if _, err := Clip(f, nil, f); err == nil {
		t.Errorf("nil: no error")
	}
	// An empty broadcast result never meets the negative exponent.
	if _, err := Binary(Pow, must2(FromInt64s([]int{0}, nil)), ScalarInt(-1)); err != nil {
		t.Errorf("empty int power: %v", err)
	}
	if _, err := BinaryResultType(Sub, Bool, Bool); err == nil {
		t.Errorf("BinaryResultType(Sub, bool, bool): no error")
	}
	if _, err := UnaryResultType(Neg, Bool); err == nil {
		t.Errorf("UnaryResultType(Neg, bool): no error")
	}
}

func TestElementwiseNames(t *testing.T) {
	for op := Neg; op <= Not; op++ {
		p, err := ParseUnaryOp(op.String())
		if err != nil || p != op {
			t.Errorf("ParseUnaryOp(%q) = %v, %v", op.String(), p, err)
		}
	}
	for op := Add; op <= Xor; op++ {
		p, err := ParseBinaryOp(op.String())
		if err != nil || p != op {
			t.Errorf("ParseBinaryOp(%q) = %v, %v", op.String(), p, err)
		}
	}
	if Div.String() != "true_divide" || Not.String() != "logical_not" || Abs.String() != "absolute" {
		t.Error("names")
	}
	if _, err := ParseBinaryOp("frobnicate"); err == nil {
		t.Error("ParseBinaryOp accepted nonsense")
	}
	if _, err := ParseUnaryOp("frobnicate"); err == nil {
		t.Error("ParseUnaryOp accepted nonsense")
	}
}

// In-place reuse of a cast operand must not disturb the caller's arrays.
func TestElementwiseInputsUntouched(t *testing.T) {
	a := must2(FromInt32s([]int{3}, []int32{1, 2, 3}))
	b := ewtF64(t, 0.5, 0.5, 0.5)
	if _, err := Binary(Add, a, b); err != nil {
		t.Fatal(err)
	}
	if _, err := Unary(Sqrt, a); err != nil {
		t.Fatal(err)
	}
	if e := ewtEqual(a, must2(FromInt32s([]int{3}, []int32{1, 2, 3}))); e != nil {
		t.Error(e)
	}
	if e := ewtEqual(b, ewtF64(t, 0.5, 0.5, 0.5)); e != nil {
		t.Error(e)
	}
}

// The drivers also write into a contiguous view with an offset (as the
// in-place forms do), leaving the rest of its buffer alone.
func TestElementwiseRunIntoOffsetView(t *testing.T) {
	x := ewtData(Float64, []int{4, 6}, 1)
	xt := must2(ewtData(Float64, []int{6, 4}, 2).Transpose())
	big := FillScalar(Float64, []int{3, 4, 6}, 9)
	out := must2(big.Index(0, 1))
	if out.offset == 0 || !out.IsContiguous() {
		t.Fatal("want a contiguous view with an offset")
	}
	ewBinaryRun(ewBinKernel[float64, float64]{ewAddVV[float64], ewAddVS[float64], ewAddSV[float64]}, out, x, xt)
	if e := ewtEqual(out, must2(Binary(Add, x, xt))); e != nil {
		t.Error(e)
	}
	ewUnaryRun(ewNegLoop[float64], out, xt)
	if e := ewtEqual(out, must2(Unary(Neg, xt))); e != nil {
		t.Error(e)
	}
	for _, i := range []int{0, 2} {
		rest := must2(big.Index(0, i))
		if e := ewtEqual(rest, FillScalar(Float64, []int{4, 6}, 9)); e != nil {
			t.Errorf("slab %d touched: %v", i, e)
		}
	}
}

// ---- benchmarks ----

func BenchmarkElementwiseAddF64(b *testing.B) {
	const n = 10_000_000
	x, y := FillScalar(Float64, []int{n}, 1.5), FillScalar(Float64, []int{n}, 2.5)
	b.SetBytes(3 * 8 * n) // two reads and one write per element
	b.ResetTimer()
	for b.Loop() {
		if _, err := Binary(Add, x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkElementwiseAddF64Scalar(b *testing.B) {
	const n = 10_000_000
	x, y := FillScalar(Float64, []int{n}, 1.5), Scalar(Float64, 2)
	b.SetBytes(2 * 8 * n)
	for b.Loop() {
		if _, err := Binary(Add, x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkElementwiseAddF64Broadcast(b *testing.B) {
	x, y := FillScalar(Float64, []int{1000, 10000}, 1.5), FillScalar(Float64, []int{10000}, 2)
	b.SetBytes(2 * 8 * 10_000_000)
	for b.Loop() {
		if _, err := Binary(Add, x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkElementwiseAddF64Transposed(b *testing.B) {
	x := FillScalar(Float64, []int{3000, 3000}, 1.5)
	xt := must2(x.Transpose())
	b.SetBytes(3 * 8 * 9_000_000)
	for b.Loop() {
		if _, err := Binary(Add, xt, x); err != nil {
			b.Fatal(err)
		}
	}
}
