package ndarray

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

var rdtDTypes = []DType{Bool, Int32, Int64, Float32, Float64}
var rdtOps = []ReduceOp{Sum, Prod, Min, Max, Any, All, CountNonzero}

// rdtRand fills a new array of dt and shape: floats ~N(0,1), integers in
// -4..4 (small so products stay readable), bools with p = 0.7 of true.
func rdtRand(t testing.TB, rng *rand.Rand, dt DType, shape ...int) *Array {
	t.Helper()
	a, err := New(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < a.Size(); i++ {
		switch dt {
		case Bool:
			if rng.Float64() < 0.7 {
				a.SetFlat(i, 1)
			}
		case Int32, Int64:
			a.SetFlat(i, float64(rng.Intn(9)-4))
		default:
			a.SetFlat(i, rng.NormFloat64())
		}
	}
	return a
}

// rdtViews returns a and strided views of arrays holding the same elements
// as a: a transposed copy transposed back, a flipped-and-flipped-back copy,
// and a step-2 slice of a larger array, so every kernel sees odd strides.
func rdtViews(t testing.TB, a *Array) map[string]*Array {
	t.Helper()
	out := map[string]*Array{"contig": a}
	nd := a.NDim()
	if nd >= 2 {
		perm := make([]int, nd)
		for i := range perm {
			perm[i] = nd - 1 - i
		}
		tr, _ := a.Transpose(perm...)
		fc := redConvert(tr, a.dtype) // Fortran-ordered data of a
		back, _ := fc.Transpose(perm...)
		out["fortran"] = back
	}
	if nd >= 1 {
		f, _ := a.Flip(nd - 1)
		fcopy := redConvert(f, a.dtype)
		back, _ := fcopy.Flip(nd - 1)
		out["flipped"] = back
		// step-2 slice along axis 0 of an array twice as long
		big := append([]int(nil), a.shape...)
		big[0] *= 2
		b := newArray(a.dtype, big)
		rs := []Range{{Start: 0, Step: 2, Len: a.shape[0]}}
		s, err := b.Slice(rs)
		if err != nil {
			t.Fatal(err)
		}
		CopyInto(s, a)
		out["step2"] = s
	}
	return out
}

// rdtRef reduces naively: element by element in float64 (exact int64 for
// integer sums and products, float32 for float32 products, Neumaier
// compensated summation for float sums) and returns values in C order of
// the keepdims shape.
func rdtRef(op ReduceOp, a *Array, red []bool) []float64 {
	keep, _ := redKeepShape(a.shape, red)
	m := Size(keep)
	type st struct {
		f, c   float64
		i      int64
		f32    float32
		seen   bool
		nan    bool
		truthy bool
	}
	acc := make([]st, m)
	for j := range acc {
		acc[j].i = 0
		if op == Prod {
			acc[j].i, acc[j].f, acc[j].f32 = 1, 1, 1
		}
		if op == All {
			acc[j].truthy = true
		}
	}
	nd := a.NDim()
	idx := make([]int, nd)
	for flat := 0; flat < a.Size(); flat++ {
		r := flat
		for ax := nd - 1; ax >= 0; ax-- {
			idx[ax] = r % a.shape[ax]
			r /= a.shape[ax]
		}
		o := 0
		for ax := 0; ax < nd; ax++ {
			if !red[ax] {
				o = o*keep[ax] + idx[ax]
			} else {
				o = o * 1
			}
		}
		v := rdtAt(a, flat)
		iv := rdtIntAt(a, flat)
		s := &acc[o]
		switch op {
		case Sum:
			s.i += iv
			t := s.f + v
			if math.Abs(s.f) >= math.Abs(v) {
				s.c += (s.f - t) + v
			} else {
				s.c += (v - t) + s.f
			}
			s.f = t
		case Prod:
			s.i *= iv
			s.f *= v
			s.f32 *= float32(v)
		case Min, Max:
			if v != v {
				s.nan = true
			}
			if !s.seen || (op == Min && v < s.f) || (op == Max && v > s.f) {
				s.f = v
			}
			s.seen = true
		case Any:
			s.truthy = s.truthy || v != 0
		case All:
			s.truthy = s.truthy && v != 0
		case CountNonzero:
			if v != 0 {
				s.i++
			}
		}
	}
	out := make([]float64, m)
	for j, s := range acc {
		switch op {
		case Sum:
			if a.dtype.IsFloat() {
				out[j] = s.f + s.c
			} else {
				out[j] = float64(s.i)
			}
		case Prod:
			switch a.dtype {
			case Float64:
				out[j] = s.f
			case Float32:
				out[j] = float64(s.f32)
			default:
				out[j] = float64(s.i)
			}
		case Min, Max:
			out[j] = s.f
			if s.nan {
				out[j] = math.NaN()
			}
		case Any, All:
			if s.truthy {
				out[j] = 1
			}
		case CountNonzero:
			out[j] = float64(s.i)
		}
	}
	return out
}

// rdtAt is AtFlat that also works for views with negative strides.
func rdtAt(a *Array, i int) float64 {
	o := a.flatOffset(i)
	switch a.dtype {
	case Float64:
		return typedAll[float64](a)[o]
	case Float32:
		return float64(typedAll[float32](a)[o])
	case Int64:
		return float64(typedAll[int64](a)[o])
	case Int32:
		return float64(typedAll[int32](a)[o])
	}
	return float64(typedAll[uint8](a)[o])
}

func rdtIntAt(a *Array, i int) int64 {
	o := a.flatOffset(i)
	switch a.dtype {
	case Int64:
		return typedAll[int64](a)[o]
	case Int32:
		return int64(typedAll[int32](a)[o])
	case Bool:
		return int64(typedAll[uint8](a)[o])
	}
	return int64(rdtAt(a, i))
}

func rdtClose(got, want, rel float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

// rdtAxesSubsets lists every subset of 0..nd-1 (nil first, meaning all).
func rdtAxesSubsets(nd int) [][]int {
	out := [][]int{nil}
	for mask := 1; mask < 1<<nd; mask++ {
		var s []int
		for i := 0; i < nd; i++ {
			if mask&(1<<i) != 0 {
				s = append(s, i)
			}
		}
		out = append(out, s)
	}
	return out
}

func TestReduceOpNames(t *testing.T) {
	for _, op := range rdtOps {
		got, err := ParseReduceOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseReduceOp(%q) = %v, %v", op.String(), got, err)
		}
	}
	if s := CountNonzero.String(); s != "count_nonzero" {
		t.Errorf("CountNonzero.String() = %q", s)
	}
	if _, err := ParseReduceOp("mean"); err == nil {
		t.Error("ParseReduceOp(mean) succeeded")
	}
}

func TestReduceResultType(t *testing.T) {
	// np.sum/np.prod/np.min/np.any/np.count_nonzero of each dtype (numpy 1.24, linux).
	want := map[ReduceOp][5]DType{ // bool, int32, int64, float32, float64
		Sum:          {Int64, Int64, Int64, Float32, Float64},
		Prod:         {Int64, Int64, Int64, Float32, Float64},
		Min:          {Bool, Int32, Int64, Float32, Float64},
		Max:          {Bool, Int32, Int64, Float32, Float64},
		Any:          {Bool, Bool, Bool, Bool, Bool},
		All:          {Bool, Bool, Bool, Bool, Bool},
		CountNonzero: {Int64, Int64, Int64, Int64, Int64},
	}
	for op, w := range want {
		for i, dt := range rdtDTypes {
			if got := ReduceResultType(op, dt); got != w[i] {
				t.Errorf("ReduceResultType(%v, %v) = %v, want %v", op, dt, got, w[i])
			}
		}
	}
	if MeanResultType(Float32) != Float32 || MeanResultType(Int32) != Float64 || MeanResultType(Bool) != Float64 {
		t.Error("MeanResultType")
	}
}

// TestReduceAgainstReference runs every op over every dtype, every axes
// subset of a 3-D array (contiguous, Fortran-ordered, flipped and step-2
// views) with and without keepdims against the naive reference.
func TestReduceAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, shape := range [][]int{{3, 4, 5}, {2, 1, 7}, {17, 3, 130}, {300, 2, 3}} {
		for _, dt := range rdtDTypes {
			base := rdtRand(t, rng, dt, shape...)
			for vname, a := range rdtViews(t, base) {
				for _, axes := range rdtAxesSubsets(len(shape)) {
					red, _ := redAxesMask("test", a.shape, axes)
					for _, op := range rdtOps {
						want := rdtRef(op, a, red)
						for _, keep := range []bool{false, true} {
							got, err := Reduce(op, a, axes, keep)
							if err != nil {
								t.Fatalf("%v %v %v axes %v: %v", op, dt, vname, axes, err)
							}
							if got.DType() != ReduceResultType(op, dt) {
								t.Fatalf("%v %v: dtype %v", op, dt, got.DType())
							}
							ks, _ := redKeepShape(a.shape, red)
							wantShape := ks
							if !keep {
								wantShape = redDropShape(a.shape, red)
							}
							if !SameShape(got.Shape(), wantShape) {
								t.Fatalf("%v %v %v axes %v keep %v: shape %v want %v", op, dt, vname, axes, keep, got.Shape(), wantShape)
							}
							rel := 1e-12
							if dt == Float32 {
								rel = 1e-5
							}
							for i, w := range want {
								g := got.AtFlat(i)
								if !rdtClose(g, w, rel) {
									t.Fatalf("%v %v %v%v axes %v keep %v: [%d] = %v, want %v", op, dt, vname, shape, axes, keep, i, g, w)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestReduceNumpy checks values printed by numpy 1.24.
func TestReduceNumpy(t *testing.T) {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = math.Sqrt(float64(i + 1))
	}
	a, _ := FromFloat64s([]int{1000}, x)
	s, _ := Reduce(Sum, a, nil, false)
	// np.sqrt(np.arange(1, 1001, dtype=np.float64)).sum() -> 21097.455887480734
	// (the SIMD leaf adds its eight partial sums in another order: within an ulp)
	if v, _ := s.Item(); !rdtClose(v, 21097.455887480734, 1e-15) {
		t.Errorf("sum sqrt = %.17g", v)
	}
	y := make([]float64, 24)
	for i := range y {
		y[i] = float64(i) * 0.1
	}
	b, _ := FromFloat64s([]int{2, 3, 4}, y)
	// (np.arange(24.).reshape(2,3,4)*0.1).sum(axis=(0,2)) -> [6., 9.200000000000001, 12.4]
	s, _ = Reduce(Sum, b, []int{0, 2}, false)
	for i, w := range []float64{6, 9.200000000000001, 12.4} {
		if !rdtClose(s.AtFlat(i), w, 1e-15) {
			t.Errorf("sum axes (0,2)[%d] = %.17g want %.17g", i, s.AtFlat(i), w)
		}
	}
	// np.array([100000]*4, dtype=np.int32).prod() -> 7766279631452241920 (int64 wrap)
	c, _ := FromInt32s([]int{4}, []int32{100000, 100000, 100000, 100000})
	p, _ := Reduce(Prod, c, nil, false)
	if v := p.IntAtFlat(0); v != 7766279631452241920 {
		t.Errorf("int32 prod = %d", v)
	}
	// np.array([2**62]*3).sum() -> -4611686018427387904
	d, _ := FromInt64s([]int{3}, []int64{1 << 62, 1 << 62, 1 << 62})
	p, _ = Reduce(Sum, d, nil, false)
	if v := p.IntAtFlat(0); v != -4611686018427387904 {
		t.Errorf("int64 sum = %d", v)
	}
	// (np.ones(10, dtype=np.float32)*np.float32(0.1)).sum() -> 1.0 (float32)
	f := make([]float32, 10)
	for i := range f {
		f[i] = 0.1
	}
	e, _ := FromFloat32s([]int{10}, f)
	p, _ = Reduce(Sum, e, nil, false)
	if p.DType() != Float32 || p.AtFlat(0) != 1 {
		t.Errorf("float32 sum = %v", p)
	}
}

func TestReduceNaN(t *testing.T) {
	nan := math.NaN()
	a, _ := FromFloat64s([]int{2, 3}, []float64{1, nan, 3, 4, 5, 6})
	for _, op := range []ReduceOp{Min, Max} {
		r, _ := Reduce(op, a, nil, false)
		if !math.IsNaN(r.AtFlat(0)) {
			t.Errorf("%v with NaN = %v", op, r)
		}
		r, _ = Reduce(op, a, []int{0}, false) // [1 nan 3; 4 5 6] -> [., nan, .]
		if !math.IsNaN(r.AtFlat(1)) || math.IsNaN(r.AtFlat(0)) || math.IsNaN(r.AtFlat(2)) {
			t.Errorf("%v axis 0 with NaN = %v", op, r)
		}
		r, _ = Reduce(op, a, []int{1}, false)
		if !math.IsNaN(r.AtFlat(0)) || math.IsNaN(r.AtFlat(1)) {
			t.Errorf("%v axis 1 with NaN = %v", op, r)
		}
	}
	// np.count_nonzero([[0,1.],[nan,0]], axis=0) -> [1, 1]; NaN is truthy.
	b, _ := FromFloat64s([]int{2, 2}, []float64{0, 1, nan, 0})
	r, _ := Reduce(CountNonzero, b, []int{0}, false)
	if r.IntAtFlat(0) != 1 || r.IntAtFlat(1) != 1 {
		t.Errorf("count_nonzero = %v", r)
	}
	c, _ := FromFloat32s([]int{2}, []float32{float32(nan), 0})
	r, _ = Reduce(Any, c, nil, false)
	if r.AtFlat(0) != 1 {
		t.Errorf("any(nan, 0) = %v", r)
	}
}

func TestReduceEmpty(t *testing.T) {
	for _, dt := range rdtDTypes {
		a, _ := New(dt, 0, 3)
		s, err := Reduce(Sum, a, nil, false)
		if err != nil || s.AtFlat(0) != 0 || s.NDim() != 0 {
			t.Errorf("%v sum of empty = %v, %v", dt, s, err)
		}
		p, _ := Reduce(Prod, a, []int{0}, true)
		if !SameShape(p.Shape(), []int{1, 3}) || p.AtFlat(2) != 1 {
			t.Errorf("%v prod of empty = %v", dt, p)
		}
		all, _ := Reduce(All, a, nil, false)
		if all.AtFlat(0) != 1 {
			t.Errorf("%v all of empty = %v", dt, all)
		}
		// np.zeros((0,3)).max(axis=0) -> ValueError: zero-size array to reduction operation maximum which has no identity
		if _, err := Reduce(Max, a, []int{0}, false); err == nil || !strings.Contains(err.Error(), "zero-size array to reduction operation maximum which has no identity") {
			t.Errorf("%v max of empty: %v", dt, err)
		}
		if _, err := Reduce(Min, a, nil, false); err == nil || !strings.Contains(err.Error(), "minimum") {
			t.Errorf("%v min of empty: %v", dt, err)
		}
		// np.zeros((0,3)).max(axis=1) -> array([]): nothing is reduced from nothing
		m, err := Reduce(Max, a, []int{1}, false)
		if err != nil || !SameShape(m.Shape(), []int{0}) {
			t.Errorf("%v max axis 1 of (0,3) = %v, %v", dt, m, err)
		}
	}
}

func TestReduceScalarAndErrors(t *testing.T) {
	s := Scalar(Float64, 2.5)
	r, err := Reduce(Sum, s, nil, true)
	if err != nil || r.NDim() != 0 || r.AtFlat(0) != 2.5 {
		t.Errorf("sum of scalar = %v, %v", r, err)
	}
	a, _ := New(Float64, 2, 3)
	for _, axes := range [][]int{{2}, {0, 0}, {-3}} {
		if _, err := Reduce(Sum, a, axes, false); err == nil || !strings.Contains(err.Error(), "[2 3]") {
			t.Errorf("axes %v: err %v", axes, err)
		}
	}
	if r, err := Reduce(Sum, a, []int{-1}, false); err != nil || !SameShape(r.Shape(), []int{2}) {
		t.Errorf("axes [-1]: %v %v", r, err)
	}
	if _, err := Reduce(ReduceOp(99), a, nil, false); err == nil {
		t.Error("invalid op accepted")
	}
	if _, err := Reduce(Sum, nil, nil, false); err == nil {
		t.Error("nil array accepted")
	}
	if _, err := Combine(Sum, nil); err == nil {
		t.Error("combine of nothing accepted")
	}
	b, _ := New(Float64, 3, 2)
	if _, err := Combine(Sum, []*Array{a, b}); err == nil {
		t.Error("combine of different shapes accepted")
	}
}

// TestReduceBroadcastInput reduces a zero-stride (broadcast) view.
func TestReduceBroadcastInput(t *testing.T) {
	row, _ := FromFloat64s([]int{3}, []float64{1, 2, 3})
	b, _ := row.BroadcastTo([]int{1000, 3})
	s, _ := Reduce(Sum, b, []int{0}, false)
	for i, w := range []float64{1000, 2000, 3000} {
		if s.AtFlat(i) != w {
			t.Errorf("broadcast sum[%d] = %v", i, s.AtFlat(i))
		}
	}
}

// rdtNeumaier is a compensated reference sum.
func rdtNeumaier(x []float64) float64 {
	var s, c float64
	for _, v := range x {
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	}
	return s + c
}

// TestReduceLongSumAccuracy checks pairwise summation on long reductions,
// along the contiguous axis and along a long outer axis, against a
// compensated sum: the error must stay near one rounding, far inside the
// 1e-12 that results are held to against NumPy.
func TestReduceLongSumAccuracy(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const n = 1 << 20
	x := make([]float64, 2*n)
	for i := range x {
		x[i] = rng.Float64() + 1e-3*rng.NormFloat64()
	}
	a, _ := FromFloat64s([]int{n, 2}, x)
	col := make([]float64, n)
	for j := 0; j < 2; j++ {
		for i := range col {
			col[i] = x[2*i+j]
		}
		want := rdtNeumaier(col)
		// axis 0 of C-ordered (n, 2): an outer reduction, rows accumulated
		got, _ := Reduce(Sum, a, []int{0}, false)
		if e := math.Abs(got.AtFlat(j)-want) / want; e > 1e-15 {
			t.Errorf("outer-axis sum col %d: rel err %g", j, e)
		}
		// the same column as a contiguous 1-D array
		c, _ := FromFloat64s([]int{n}, col)
		g1, _ := Reduce(Sum, c, nil, false)
		if e := math.Abs(g1.AtFlat(0)-want) / want; e > 1e-15 {
			t.Errorf("contiguous sum col %d: rel err %g", j, e)
		}
		// strided: column j of the transposed view, reduced along axis 1
		tr, _ := a.Transpose()
		g2, _ := Reduce(Sum, tr, []int{1}, false)
		if e := math.Abs(g2.AtFlat(j)-want) / want; e > 1e-15 {
			t.Errorf("strided sum col %d: rel err %g", j, e)
		}
	}
	want := rdtNeumaier(x)
	all, _ := Reduce(Sum, a, nil, false)
	if e := math.Abs(all.AtFlat(0)-want) / want; e > 1e-15 {
		t.Errorf("full sum rel err %g", e)
	}
	// a long reduced axis that cannot be merged (step-2 slice): split pairwise.
	s, _ := a.Slice([]Range{{Start: 0, Step: 2, Len: n / 2}})
	got, _ := Reduce(Sum, s, nil, false)
	var ev []float64
	for i := 0; i < n; i += 2 {
		ev = append(ev, x[2*i], x[2*i+1])
	}
	if e := math.Abs(got.AtFlat(0)-rdtNeumaier(ev)) / rdtNeumaier(ev); e > 1e-15 {
		t.Errorf("step-2 sum rel err %g", e)
	}
}

// rdtSplit cuts a along axis into pieces of the given lengths (views).
func rdtSplit(t testing.TB, a *Array, axis int, lens ...int) ([]*Array, []int) {
	t.Helper()
	var parts []*Array
	var offs []int
	start := 0
	for _, l := range lens {
		rs := make([]Range, a.NDim())
		for i := range rs {
			rs[i] = Range{Start: 0, Step: 1, Len: a.shape[i]}
		}
		rs[axis] = Range{Start: start, Step: 1, Len: l}
		p, err := a.Slice(rs)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
		offs = append(offs, start)
		start += l
	}
	if start != a.shape[axis] {
		t.Fatalf("split lengths %v do not cover axis %d of %v", lens, axis, a.shape)
	}
	return parts, offs
}

// TestCombineTree reduces chunks and combines the partials, for every op and
// dtype, comparing with the direct reduction of the whole array.
func TestCombineTree(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, dt := range rdtDTypes {
		a := rdtRand(t, rng, dt, 7, 5, 6)
		if dt.IsFloat() {
			a.SetFlat(40, math.NaN()) // min/max must carry it through Combine
		}
		for _, axes := range [][]int{nil, {0}, {0, 2}, {1}} {
			for _, op := range rdtOps {
				want, err := Reduce(op, a, axes, true)
				if err != nil {
					t.Fatal(err)
				}
				parts, _ := rdtSplit(t, a, 0, 2, 1, 4)
				var partials []*Array
				for _, p := range parts {
					r, err := Reduce(op, p, axes, true)
					if err != nil {
						t.Fatal(err)
					}
					partials = append(partials, r)
				}
				if red, _ := redAxesMask("", a.shape, axes); !red[0] {
					continue // split along a kept axis: partials are not combinable
				}
				got, err := Combine(op, partials)
				if err != nil {
					t.Fatal(err)
				}
				if got.DType() != want.DType() || !SameShape(got.Shape(), want.Shape()) {
					t.Fatalf("%v %v: combined %v%v want %v%v", op, dt, got.DType(), got.Shape(), want.DType(), want.Shape())
				}
				rel := 1e-13
				if dt == Float32 {
					rel = 1e-6
				}
				for i := 0; i < want.Size(); i++ {
					if !rdtClose(got.AtFlat(i), want.AtFlat(i), rel) {
						t.Fatalf("%v %v axes %v: combined[%d] = %v want %v", op, dt, axes, i, got.AtFlat(i), want.AtFlat(i))
					}
				}
			}
		}
	}
}

// TestMoments checks mean/var/std against numpy and tree merges.
func TestMoments(t *testing.T) {
	y := make([]float64, 24)
	for i := range y {
		y[i] = float64(i) * 0.1
	}
	b, _ := FromFloat64s([]int{2, 3, 4}, y)
	fin := func(m *Array, s MomentStat, ddof int) *Array {
		r, err := FinishMoments(m, s, ddof)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	m, err := Moments(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !SameShape(m.Shape(), []int{3, 1, 1, 1}) {
		t.Fatalf("moments shape %v", m.Shape())
	}
	// y.var() -> 0.4791666666666667, y.std(ddof=1) -> 0.7071067811865476
	if v := fin(m, StatVar, 0).AtFlat(0); !rdtClose(v, 0.4791666666666667, 1e-15) {
		t.Errorf("var = %.17g", v)
	}
	if v := fin(m, StatStd, 1).AtFlat(0); !rdtClose(v, 0.7071067811865476, 1e-15) {
		t.Errorf("std ddof 1 = %.17g", v)
	}
	// y.var(axis=(0,2), ddof=1) -> [0.42571428571428577]*3
	m2, _ := Moments(b, []int{0, 2})
	v2 := fin(m2, StatVar, 1)
	if !SameShape(v2.Shape(), []int{1, 3, 1}) {
		t.Errorf("var shape %v", v2.Shape())
	}
	for i := 0; i < 3; i++ {
		if !rdtClose(v2.AtFlat(i), 0.42571428571428577, 1e-14) {
			t.Errorf("var axes (0,2)[%d] = %.17g", i, v2.AtFlat(i))
		}
	}
	// y.mean(axis=1)[0] -> [0.4000000000000001, 0.5, 0.6, 0.7000000000000001]
	m1, _ := Moments(b, []int{1})
	mean := fin(m1, StatMean, 0)
	for i, w := range []float64{0.4000000000000001, 0.5, 0.6, 0.7000000000000001} {
		if !rdtClose(mean.AtFlat(i), w, 1e-15) {
			t.Errorf("mean axis 1 [%d] = %.17g", i, mean.AtFlat(i))
		}
	}
	// np.var([1.,2.], ddof=2) -> inf; np.var([1.], ddof=1) -> nan; np.var([1.,2.,3.], ddof=5) -> inf
	for _, c := range []struct {
		x    []float64
		ddof int
		inf  bool
	}{{[]float64{1, 2}, 2, true}, {[]float64{1}, 1, false}, {[]float64{1, 2, 3}, 5, true}, {[]float64{5, 5}, 2, false}} {
		a, _ := FromFloat64s([]int{len(c.x)}, c.x)
		mm, _ := Moments(a, nil)
		v := fin(mm, StatVar, c.ddof).AtFlat(0)
		if c.inf && !math.IsInf(v, 1) || !c.inf && !math.IsNaN(v) {
			t.Errorf("var(%v, ddof=%d) = %v", c.x, c.ddof, v)
		}
	}
	// np.mean(np.zeros((0,3)), axis=0) -> [nan nan nan]
	e, _ := New(Float64, 0, 3)
	me, _ := Moments(e, []int{0})
	if r := fin(me, StatMean, 0); !math.IsNaN(r.AtFlat(1)) {
		t.Errorf("mean of empty = %v", r)
	}
	if _, err := FinishMoments(b, StatMean, 0); err == nil {
		t.Error("FinishMoments of a non-partial accepted")
	}
}

func TestMomentsTree(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, dt := range rdtDTypes {
		a := rdtRand(t, rng, dt, 9, 4, 5)
		if dt.IsFloat() {
			// shift so mean >> spread: a naive sum-of-squares would cancel
			for i := 0; i < a.Size(); i++ {
				a.SetFlat(i, a.AtFlat(i)+1e4)
			}
		}
		for _, axes := range [][]int{nil, {0}, {0, 2}} {
			whole, _ := Moments(a, axes)
			for _, lens := range [][]int{{9}, {1, 8}, {3, 3, 3}, {2, 0, 4, 3}} {
				parts, _ := rdtSplit(t, a, 0, lens...)
				var ps []*Array
				for _, p := range parts {
					m, err := Moments(p, axes)
					if err != nil {
						t.Fatal(err)
					}
					ps = append(ps, m)
				}
				got, err := CombineMoments(ps)
				if err != nil {
					t.Fatal(err)
				}
				for _, st := range []MomentStat{StatMean, StatVar, StatStd} {
					w, _ := FinishMoments(whole, st, 1)
					g, _ := FinishMoments(got, st, 1)
					for i := 0; i < w.Size(); i++ {
						rel := 1e-12
						if dt == Float32 {
							rel = 1e-6
						}
						if !rdtClose(g.AtFlat(i), w.AtFlat(i), rel) {
							t.Fatalf("%v axes %v split %v %v[%d] = %.17g want %.17g", dt, axes, lens, st, i, g.AtFlat(i), w.AtFlat(i))
						}
					}
				}
			}
		}
	}
	// float32 data: a fresh reference computed by hand in float64
	x, _ := FromFloat32s([]int{3}, []float32{1, 2, 4})
	m, _ := Moments(x, nil)
	mean, _ := FinishMoments(m, StatMean, 0)
	// np.array([1,2,4], dtype=np.float32).mean() -> 2.3333333 (float32)
	if float32(mean.AtFlat(0)) != float32(2.3333333) {
		t.Errorf("float32 mean = %v", mean)
	}
}

// TestArgReduce checks argmin/argmax against numpy over axes and flattened.
func TestArgReduce(t *testing.T) {
	z, _ := FromInt32s([]int{3, 4}, []int32{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8})
	// z.argmax() -> 5, z.argmax(axis=0) -> [1 1 2 2], z.argmax(axis=1) -> [2 1 3]
	// z.argmin() -> 1, z.argmin(axis=0) -> [0 0 1 0], z.argmin(axis=1) -> [1 2 1]
	cases := []struct {
		isMax bool
		axis  int
		want  []int64
	}{
		{true, -1, []int64{5}}, {true, 0, []int64{1, 1, 2, 2}}, {true, 1, []int64{2, 1, 3}},
		{false, -1, []int64{1}}, {false, 0, []int64{0, 0, 1, 0}}, {false, 1, []int64{1, 2, 1}},
	}
	for _, dt := range rdtDTypes[1:] {
		zz := redConvert(z, dt)
		for _, vname := range []string{"contig", "fortran", "flipped", "step2"} {
			v := rdtViews(t, zz)[vname]
			for _, c := range cases {
				p, err := ArgPartial(c.isMax, v, c.axis, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				got := FinishArg(p)
				for i, w := range c.want {
					if got.IntAtFlat(i) != w {
						t.Errorf("%v %v isMax=%v axis %d: %v want %v", dt, vname, c.isMax, c.axis, got, c.want)
						break
					}
				}
			}
		}
	}
	nan := math.NaN()
	// np.array([1,nan,3,nan]).argmax() -> 1, .argmin() -> 1
	f, _ := FromFloat64s([]int{4}, []float64{1, nan, 3, nan})
	for _, isMax := range []bool{true, false} {
		p, _ := ArgPartial(isMax, f, -1, nil, nil)
		if FinishArg(p).IntAtFlat(0) != 1 {
			t.Errorf("NaN arg isMax=%v = %v", isMax, p)
		}
		p, _ = ArgPartial(isMax, f, 0, nil, nil)
		if FinishArg(p).IntAtFlat(0) != 1 {
			t.Errorf("NaN arg axis 0 isMax=%v = %v", isMax, p)
		}
	}
	bl, _ := FromBools([]int{4}, []bool{false, true, true, false})
	p, _ := ArgPartial(true, bl, -1, nil, nil)
	if FinishArg(p).IntAtFlat(0) != 1 {
		t.Errorf("bool argmax = %v", p)
	}
	// np.zeros((3,0)).argmax(axis=1) -> ValueError: attempt to get argmax of an empty sequence
	e, _ := New(Float64, 3, 0)
	if _, err := ArgPartial(true, e, 1, nil, nil); err == nil || !strings.Contains(err.Error(), "empty sequence") {
		t.Errorf("argmax of empty: %v", err)
	}
	if _, err := ArgPartial(true, e, -1, nil, nil); err == nil {
		t.Error("flat argmax of empty accepted")
	}
	// np.zeros((0,3)).argmax(axis=1) -> array([], dtype=int64)
	e2, _ := New(Float64, 0, 3)
	if p, err := ArgPartial(true, e2, 1, nil, nil); err != nil || FinishArg(p).Size() != 0 {
		t.Errorf("argmax of (0,3) axis 1: %v %v", p, err)
	}
	if _, err := ArgPartial(true, z, 2, nil, nil); err == nil {
		t.Error("bad axis accepted")
	}
	if _, err := ArgPartial(true, z, 0, []int{3, 4}, []int{1, 0}); err == nil {
		t.Error("chunk outside global shape accepted")
	}
}

// TestArgTree splits arrays into chunks along several axes and merges
// ArgPartial results with CombineArg, including ties across chunks and NaNs.
func TestArgTree(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, dt := range rdtDTypes {
		a := rdtRand(t, rng, dt, 6, 5, 4) // small ints and bools: many ties
		if dt.IsFloat() {
			a.SetFlat(77, math.NaN())
			a.SetFlat(93, math.NaN())
		}
		for _, isMax := range []bool{true, false} {
			for _, axis := range []int{-1, 0, 1, 2} {
				want, err := ArgPartial(isMax, a, axis, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				for splitAxis, lens := range [][]int{{2, 1, 3}, {1, 4}, {3, 1}} {
					if axis >= 0 && axis != splitAxis {
						continue
					}
					parts, offs := rdtSplit(t, a, splitAxis, lens...)
					var ps []*Array
					for i, p := range parts {
						off := make([]int, 3)
						off[splitAxis] = offs[i]
						r, err := ArgPartial(isMax, p, axis, a.Shape(), off)
						if err != nil {
							t.Fatal(err)
						}
						ps = append(ps, r)
					}
					// reversed order must not matter
					for i, j := 0, len(ps)-1; i < j; i, j = i+1, j-1 {
						ps[i], ps[j] = ps[j], ps[i]
					}
					got, err := CombineArg(isMax, ps)
					if err != nil {
						t.Fatal(err)
					}
					gi, wi := FinishArg(got), FinishArg(want)
					for i := 0; i < wi.Size(); i++ {
						if gi.IntAtFlat(i) != wi.IntAtFlat(i) {
							t.Fatalf("%v isMax=%v axis %d split axis %d: %v want %v", dt, isMax, axis, splitAxis, gi, wi)
						}
					}
				}
			}
		}
	}
}

// rdtFillBench writes data into every page: untouched zeroed pages all map
// to one physical page and read unrealistically fast.
func rdtFillBench(a *Array) {
	x := a.Float64s()[:a.Size()]
	for i := range x {
		x[i] = float64(i%1000) * 0.25
	}
}

func BenchmarkSumFloat64Contiguous(b *testing.B) {
	const n = 1 << 23 // 64 MiB
	a, _ := New(Float64, n)
	rdtFillBench(a)
	b.SetBytes(8 * n)
	for b.Loop() {
		if _, err := Reduce(Sum, a, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumFloat64OuterAxis(b *testing.B) {
	a, _ := New(Float64, 4096, 2048) // 64 MiB, reduce axis 0
	rdtFillBench(a)
	b.SetBytes(8 * 4096 * 2048)
	for b.Loop() {
		if _, err := Reduce(Sum, a, []int{0}, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumFloat64InnerAxis(b *testing.B) {
	a, _ := New(Float64, 2048, 4096) // 64 MiB, reduce axis 1
	rdtFillBench(a)
	b.SetBytes(8 * 4096 * 2048)
	for b.Loop() {
		if _, err := Reduce(Sum, a, []int{1}, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMaxFloat64Contiguous(b *testing.B) {
	const n = 1 << 23
	a, _ := New(Float64, n)
	rdtFillBench(a)
	b.SetBytes(8 * n)
	for b.Loop() {
		if _, err := Reduce(Max, a, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVarFloat64(b *testing.B) {
	const n = 1 << 22
	a, _ := New(Float64, n)
	rdtFillBench(a)
	b.SetBytes(8 * n)
	for b.Loop() {
		if _, err := Moments(a, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumFloat64ShortRows(b *testing.B) {
	a, _ := New(Float64, 1<<21, 4) // 64 MiB, reduce axis 1 of length 4
	rdtFillBench(a)
	b.SetBytes(8 << 23)
	for b.Loop() {
		if _, err := Reduce(Sum, a, []int{1}, false); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReduceBlocked covers long kept innermost rows under a reduced axis
// (cut into redColBlock blocks, with and without pairwise splitting of the
// reduced axis) and short reduced innermost axes (loops swapped), for sums,
// max and moments (whose means are looked up by real output offset).
func TestReduceBlocked(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	for _, shape := range [][]int{{260, 1100}, {3, 2, 1030}, {1100, 3}, {2, 1100, 7}} {
		for _, dt := range []DType{Float64, Int32, Float32} {
			a := rdtRand(t, rng, dt, shape...)
			for _, axes := range rdtAxesSubsets(len(shape)) {
				red, _ := redAxesMask("", a.shape, axes)
				for _, op := range []ReduceOp{Sum, Max, CountNonzero} {
					got, err := Reduce(op, a, axes, true)
					if err != nil {
						t.Fatal(err)
					}
					rel := 1e-12
					if dt == Float32 {
						rel = 1e-5
					}
					for i, w := range rdtRef(op, a, red) {
						if !rdtClose(got.AtFlat(i), w, rel) {
							t.Fatalf("%v %v%v axes %v: [%d] = %v want %v", op, dt, shape, axes, i, got.AtFlat(i), w)
						}
					}
				}
				m, err := Moments(a, axes)
				if err != nil {
					t.Fatal(err)
				}
				v, _ := FinishMoments(m, StatVar, 0)
				// reference: var = E[(x - mean)^2] from the reference sums
				sum := rdtRef(Sum, a, red)
				keep, count := redKeepShape(a.shape, red)
				dev := newArray(Float64, a.shape)
				for i := 0; i < a.Size(); i++ {
					o, r := 0, i
					idx := make([]int, a.NDim())
					for ax := a.NDim() - 1; ax >= 0; ax-- {
						idx[ax] = r % a.shape[ax]
						r /= a.shape[ax]
					}
					for ax := range idx {
						if !red[ax] {
							o = o*keep[ax] + idx[ax]
						}
					}
					d := rdtAt(a, i) - sum[o]/float64(count)
					dev.SetFlat(i, d*d)
				}
				wv := rdtRef(Sum, dev, red)
				for i := range wv {
					if w := wv[i] / float64(count); !rdtClose(v.AtFlat(i), w, 1e-11) {
						t.Fatalf("var %v%v axes %v: [%d] = %v want %v", dt, shape, axes, i, v.AtFlat(i), w)
					}
				}
			}
		}
	}
}
