package ndarray

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// rdtRefMatMul is numpy.matmul computed naively in float64 (exact for the
// small integers used in tests) over shapes already promoted to >= 2-D.
func rdtRefMatMul(a, b *Array) ([]int, []float64) {
	av, bv := a, b
	if a.NDim() == 1 {
		av = a.view([]int{1, a.shape[0]}, []int{0, a.strides[0]}, a.offset)
	}
	if b.NDim() == 1 {
		bv = b.view([]int{b.shape[0], 1}, []int{b.strides[0], 0}, b.offset)
	}
	na, nb := av.NDim(), bv.NDim()
	m, k, n := av.shape[na-2], av.shape[na-1], bv.shape[nb-1]
	batch, _ := BroadcastShapes(av.shape[:na-2], bv.shape[:nb-2])
	ab, _ := av.BroadcastTo(append(append([]int(nil), batch...), m, k))
	bb, _ := bv.BroadcastTo(append(append([]int(nil), batch...), k, n))
	nt := Size(batch)
	out := make([]float64, nt*m*n)
	for t := 0; t < nt; t++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for p := 0; p < k; p++ {
					s += rdtAt(ab, (t*m+i)*k+p) * rdtAt(bb, (t*k+p)*n+j)
				}
				out[(t*m+i)*n+j] = s
			}
		}
	}
	shape := append([]int(nil), batch...)
	if a.NDim() > 1 {
		shape = append(shape, m)
	}
	if b.NDim() > 1 {
		shape = append(shape, n)
	}
	return shape, out
}

func TestMatMulShapesAndTypes(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	cases := [][2][]int{
		{{2, 3}, {3, 4}}, {{3}, {3}}, {{3}, {3, 4}}, {{2, 3}, {3}}, {{3}, {2, 3, 4}},
		{{2, 1, 3, 4}, {5, 4, 2}}, {{4, 2, 3}, {3, 5}}, {{1, 5}, {5, 1}}, {{5, 1}, {1, 5}},
		{{2, 0}, {0, 3}}, {{0, 3}, {3, 2}}, {{3, 3}, {2, 3, 3}}, {{1, 2, 3}, {4, 3, 2}},
		{{17, 33}, {33, 9}},
	}
	for _, c := range cases {
		for _, da := range rdtDTypes {
			for _, db := range []DType{da, Float64, Int32} {
				a := rdtRand(t, rng, da, c[0]...)
				b := rdtRand(t, rng, db, c[1]...)
				for va, av := range rdtViews(t, a) {
					for vb, bv := range rdtViews(t, b) {
						got, err := MatMul(av, bv)
						if err != nil {
							t.Fatalf("%v%v @ %v%v: %v", da, c[0], db, c[1], err)
						}
						shape, want := rdtRefMatMul(av, bv)
						if got.DType() != Promote(da, db) || !SameShape(got.Shape(), shape) {
							t.Fatalf("%v%v @ %v%v: got %v%v want %v%v", da, c[0], db, c[1], got.DType(), got.Shape(), Promote(da, db), shape)
						}
						for i, w := range want {
							if got.DType() == Bool && w != 0 {
								w = 1
							}
							if g := got.AtFlat(i); math.Abs(g-w) > 1e-4*math.Max(1, math.Abs(w)) {
								t.Fatalf("%v%v(%s) @ %v%v(%s): [%d] = %v want %v", da, c[0], va, db, c[1], vb, i, g, w)
							}
						}
					}
				}
			}
		}
	}
}

func TestMatMulTransposedInPlace(t *testing.T) {
	// X.T @ X with X Fortran- and C-ordered: BLAS reads the transposes in place.
	rng := rand.New(rand.NewSource(8))
	for _, dt := range []DType{Float64, Float32} {
		x := rdtRand(t, rng, dt, 40, 7)
		xt, _ := x.Transpose()
		got, err := MatMul(xt, x)
		if err != nil {
			t.Fatal(err)
		}
		_, want := rdtRefMatMul(xt, x)
		for i, w := range want {
			if g := got.AtFlat(i); math.Abs(g-w) > 1e-4*math.Max(1, math.Abs(w)) {
				t.Fatalf("%v X.T@X [%d] = %v want %v", dt, i, g, w)
			}
		}
	}
}

func TestMatMulNumpy(t *testing.T) {
	// np.array([[70000, 70000]], dtype=np.int32) @ np.array([[70000],[1]], dtype=np.int32) -> [[605102704]] (int32 wraps)
	a, _ := FromInt32s([]int{1, 2}, []int32{70000, 70000})
	b, _ := FromInt32s([]int{2, 1}, []int32{70000, 1})
	c, err := MatMul(a, b)
	if err != nil || c.DType() != Int32 || c.IntAtFlat(0) != 605102704 {
		t.Errorf("int32 matmul = %v, %v", c, err)
	}
	// np.arange(6.).reshape(2,3) @ np.arange(12, dtype=np.float32).reshape(3,4)
	// -> [[20,23,26,29],[56,68,80,92]] float64
	x := make([]float64, 6)
	y := make([]float32, 12)
	for i := range x {
		x[i] = float64(i)
	}
	for i := range y {
		y[i] = float32(i)
	}
	xa, _ := FromFloat64s([]int{2, 3}, x)
	ya, _ := FromFloat32s([]int{3, 4}, y)
	r, _ := MatMul(xa, ya)
	for i, w := range []float64{20, 23, 26, 29, 56, 68, 80, 92} {
		if r.AtFlat(i) != w || r.DType() != Float64 {
			t.Fatalf("f64@f32 = %v", r)
		}
	}
	// np.array([1,2]) @ np.array([3,4]) -> 11 (0-d int64)
	v, _ := FromInt64s([]int{2}, []int64{1, 2})
	w, _ := FromInt64s([]int{2}, []int64{3, 4})
	d, _ := MatMul(v, w)
	if d.NDim() != 0 || d.IntAtFlat(0) != 11 {
		t.Errorf("vector dot = %v", d)
	}
}

func TestMatMulErrors(t *testing.T) {
	a, _ := New(Float64, 2, 3)
	b, _ := New(Float64, 4)
	// np.ones((2,3)) @ np.ones(4) -> ValueError: matmul: Input operand 1 has a mismatch in its core
	// dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)
	if _, err := MatMul(a, b); err == nil || !strings.Contains(err.Error(), "size 4 is different from 3") {
		t.Errorf("core mismatch: %v", err)
	}
	if _, err := MatMul(Scalar(Float64, 1), b); err == nil || !strings.Contains(err.Error(), "Input operand 0 does not have enough dimensions") {
		t.Errorf("0-d: %v", err)
	}
	c, _ := New(Float64, 2, 2, 3)
	d, _ := New(Float64, 3, 3, 1)
	if _, err := MatMul(c, d); err == nil || !strings.Contains(err.Error(), "batch") {
		t.Errorf("batch mismatch: %v", err)
	}
	if _, err := MatMul(nil, d); err == nil {
		t.Error("nil accepted")
	}
}

// rdtOpenBLAS loads OpenBLAS directly, independent of PHOBOS_BLAS.
func rdtOpenBLAS(t testing.TB) *mmOpenBLAS {
	ob, err := mmOpenOpenBLAS()
	if err != nil {
		t.Skipf("OpenBLAS not loadable: %v", err)
	}
	return ob
}

// TestBLASBackendsAgree runs the same gemms, every transpose combination,
// through gonum and OpenBLAS and requires (nearly) equal results.
func TestBLASBackendsAgree(t *testing.T) {
	t.Logf("BLASBackend() = %s", BLASBackend())
	ob := rdtOpenBLAS(t)
	var pure gonum.Implementation
	rng := rand.New(rand.NewSource(9))
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 7}, {64, 33, 100}, {130, 129, 131}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				a := make([]float64, m*k)
				b := make([]float64, k*n)
				for i := range a {
					a[i] = rng.NormFloat64()
				}
				for i := range b {
					b[i] = rng.NormFloat64()
				}
				ta, lda := mmTr(tA, m, k)
				tb, ldb := mmTr(tB, k, n)
				c1 := make([]float64, m*n)
				c2 := make([]float64, m*n)
				pure.Dgemm(ta, tb, m, n, k, 1, a, lda, b, ldb, 0, c1, n)
				ob.Dgemm(ta, tb, m, n, k, 1, a, lda, b, ldb, 0, c2, n)
				for i := range c1 {
					if math.Abs(c1[i]-c2[i]) > 1e-12*math.Max(1, math.Abs(c1[i]))*float64(k) {
						t.Fatalf("dgemm %v tA=%v tB=%v: gonum %v openblas %v", sz, tA, tB, c1[i], c2[i])
					}
				}
				af, bf := make([]float32, len(a)), make([]float32, len(b))
				for i := range a {
					af[i] = float32(a[i])
				}
				for i := range b {
					bf[i] = float32(b[i])
				}
				s1, s2 := make([]float32, m*n), make([]float32, m*n)
				pure.Sgemm(ta, tb, m, n, k, 1, af, lda, bf, ldb, 0, s1, n)
				ob.Sgemm(ta, tb, m, n, k, 1, af, lda, bf, ldb, 0, s2, n)
				for i := range s1 {
					if math.Abs(float64(s1[i]-s2[i])) > 1e-5*math.Max(1, math.Abs(float64(s1[i])))*float64(k) {
						t.Fatalf("sgemm %v: gonum %v openblas %v", sz, s1[i], s2[i])
					}
				}
			}
		}
	}
}

func mmTr(trans bool, rows, cols int) (tr blas.Transpose, ld int) {
	if trans {
		return blas.Trans, rows // stored as cols×rows
	}
	return blas.NoTrans, cols
}

func TestBLASBackendInUse(t *testing.T) {
	name := BLASBackend()
	if _, err := mmOpenOpenBLAS(); err == nil && !strings.HasPrefix(name, "openblas ") && !strings.EqualFold(os.Getenv("PHOBOS_BLAS"), "gonum") {
		t.Errorf("OpenBLAS is loadable but BLASBackend() = %q", name)
	}
	t.Logf("BLASBackend() = %s", name)
}

func benchGemm(b *testing.B, g mmGemmer, n int) {
	rng := rand.New(rand.NewSource(1))
	a, bb, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range a {
		a[i], bb[i] = rng.Float64(), rng.Float64()
	}
	b.ResetTimer()
	for b.Loop() {
		g.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, bb, n, 0, c, n)
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkDgemm1000(b *testing.B) {
	b.Run("gonum", func(b *testing.B) { benchGemm(b, gonum.Implementation{}, 1000) })
	b.Run("openblas", func(b *testing.B) { benchGemm(b, rdtOpenBLAS(b), 1000) })
}

func BenchmarkMatMulFloat64(b *testing.B) {
	for _, n := range []int{64, 512} {
		x, _ := New(Float64, n, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := MatMul(x, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMatMulInt64(b *testing.B) {
	x, _ := New(Int64, 256, 256)
	for b.Loop() {
		if _, err := MatMul(x, x); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMatMulConcurrent runs many gemms at once (chunks are processed in
// parallel in Phobos): OpenBLAS must be safe to enter from several threads.
func TestMatMulConcurrent(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	a := rdtRand(t, rng, Float64, 80, 60)
	b := rdtRand(t, rng, Float64, 60, 70)
	want, err := MatMul(a, b)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		go func() {
			for i := 0; i < 20; i++ {
				got, err := MatMul(a, b)
				if err != nil {
					errs <- err
					return
				}
				for j := 0; j < want.Size(); j++ {
					if got.AtFlat(j) != want.AtFlat(j) {
						errs <- fmt.Errorf("concurrent matmul differs at %d: %v vs %v", j, got.AtFlat(j), want.AtFlat(j))
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 16; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// mmSplitK cuts the contraction axis of a @ b at the given points: the
// pairs a[..., lo:hi], b[..., lo:hi, :] for MatMulSum.
func mmSplitK(t *testing.T, a, b *Array, cuts []int) []*Array {
	t.Helper()
	ka, kb := a.NDim()-1, max(b.NDim()-2, 0)
	var pairs []*Array
	for i := 0; i+1 < len(cuts); i++ {
		ra := make([]Range, ka+1)
		for ax := range ka {
			ra[ax] = Range{Start: 0, Step: 1, Len: a.shape[ax]}
		}
		ra[ka] = Range{Start: cuts[i], Step: 1, Len: cuts[i+1] - cuts[i]}
		rb := make([]Range, kb+1)
		for ax := range kb {
			rb[ax] = Range{Start: 0, Step: 1, Len: b.shape[ax]}
		}
		rb[kb] = Range{Start: cuts[i], Step: 1, Len: cuts[i+1] - cuts[i]}
		if ra[ka].Len == 0 {
			ra[ka].Start, rb[kb].Start = 0, 0
		}
		pa, err := a.Slice(ra)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := b.Slice(rb)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pa, pb)
	}
	return pairs
}

func TestMatMulSum(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	cases := []struct {
		a, b []int
		cuts []int
	}{
		{[]int{5, 7}, []int{7, 3}, []int{0, 3, 7}},
		{[]int{17, 33}, []int{33, 9}, []int{0, 10, 20, 30, 33}},
		{[]int{7}, []int{7, 4}, []int{0, 2, 7}},
		{[]int{4, 7}, []int{7}, []int{0, 5, 7}},
		{[]int{6}, []int{6}, []int{0, 1, 6}},
		{[]int{3, 1, 4, 5}, []int{2, 5, 3}, []int{0, 2, 4, 5}},
		{[]int{2, 4, 5}, []int{5, 3}, []int{0, 0, 5}},        // an empty block first
		{[]int{4, 6}, []int{6, 2}, []int{0, 3, 3, 6}},        // an empty block between
		{[]int{0, 6}, []int{6, 2}, []int{0, 3, 6}},           // no output elements
		{[]int{40, 300}, []int{300, 30}, []int{0, 150, 300}}, // gemm-sized
	}
	for _, c := range cases {
		for _, dts := range [][2]DType{{Float64, Float64}, {Float32, Float32}, {Int32, Float64}, {Float32, Int64}} {
			a := rdtRand(t, rng, dts[0], c.a...)
			b := rdtRand(t, rng, dts[1], c.b...)
			for va, av := range rdtViews(t, a) {
				for vb, bv := range rdtViews(t, b) {
					what := fmt.Sprintf("%v%v(%s) @ %v%v(%s) cut at %v", dts[0], c.a, va, dts[1], c.b, vb, c.cuts)
					got, err := MatMulSum(mmSplitK(t, av, bv, c.cuts)...)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					shape, want := rdtRefMatMul(av, bv)
					if got.DType() != Promote(dts[0], dts[1]) || !SameShape(got.Shape(), shape) {
						t.Fatalf("%s: got %v%v want %v%v", what, got.DType(), got.Shape(), Promote(dts[0], dts[1]), shape)
					}
					tol := 1e-12
					if got.DType() == Float32 {
						tol = 1e-5
					}
					for i, w := range want {
						if g := got.AtFlat(i); math.Abs(g-w) > tol*float64(c.a[len(c.a)-1])*math.Max(1, math.Abs(w)) {
							t.Fatalf("%s: [%d] = %v want %v", what, i, g, w)
						}
					}
				}
			}
		}
	}
}

// TestMatMulSumOnePair checks that one pair is exactly MatMul, and that a
// sum of two is exactly the first product followed by gemm's beta = 1
// accumulation (the rounding the tiled matmul now has).
func TestMatMulSumOnePair(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	a := rdtRand(t, rng, Float64, 30, 50)
	b := rdtRand(t, rng, Float64, 50, 20)
	one, err := MatMulSum(a, b)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := MatMul(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref.Size() {
		if one.AtFlat(i) != ref.AtFlat(i) {
			t.Fatalf("[%d] = %v, MatMul %v", i, one.AtFlat(i), ref.AtFlat(i))
		}
	}
	pairs := mmSplitK(t, a, b, []int{0, 20, 50})
	two, err := MatMulSum(pairs...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := MatMul(pairs[0], pairs[1])
	if err != nil {
		t.Fatal(err)
	}
	ta, lda, _ := mmLayout(30, 30, pairs[2].strides[0], pairs[2].strides[1])
	tb, ldb, _ := mmLayout(30, 20, pairs[3].strides[0], pairs[3].strides[1])
	C := typedAll[float64](c)
	mmBLAS.get().Dgemm(ta, tb, 30, 20, 30, 1, typedAll[float64](pairs[2])[pairs[2].offset:], lda, typedAll[float64](pairs[3])[pairs[3].offset:], ldb, 1, C, 20)
	for i := range C {
		if two.AtFlat(i) != C[i] {
			t.Fatalf("[%d] = %v, gemm with beta 1 %v", i, two.AtFlat(i), C[i])
		}
	}
}

func TestMatMulSumErrors(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	f := rdtRand(t, rng, Float64, 3, 4)
	g := rdtRand(t, rng, Float64, 4, 2)
	i32 := rdtRand(t, rng, Int32, 3, 4)
	j32 := rdtRand(t, rng, Int32, 4, 2)
	h := rdtRand(t, rng, Float64, 4, 5)
	f32 := rdtRand(t, rng, Float32, 3, 4)
	g32 := rdtRand(t, rng, Float32, 4, 2)
	cases := []struct {
		name string
		in   []*Array
		want string
	}{
		{"none", nil, "want pairs"},
		{"odd", []*Array{f, g, f}, "want pairs"},
		{"ints", []*Array{i32, j32, i32, j32}, "float32 and float64 only"},
		{"shapes", []*Array{f, g, f, h}, "like the sum's first product"},
		{"dtypes", []*Array{f, g, f32, g32}, "like the sum's first product"},
		{"mismatch", []*Array{f, g, f, f}, "mismatch"},
	}
	for _, c := range cases {
		_, err := MatMulSum(c.in...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := MatMulSum(i32, j32, i32, j32); !errors.As(err, new(*DTypeError)) {
		t.Errorf("ints: error %T, want *DTypeError", err)
	}
}

// TestMatMulThreadsIdentical checks that splitting a gemm's columns over
// goroutines changes no bit of the result with the BLAS that allows it,
// for both float types, operands read in place, transposed or gathered,
// and sums.
func TestMatMulThreadsIdentical(t *testing.T) {
	mmBLAS.get()
	if !mmBLAS.bands {
		t.Skipf("%s: gemm runs on one thread (bands not known to be identical)", BLASBackend())
	}
	rng := rand.New(rand.NewSource(24))
	cases := []struct{ m, k, n int }{{300, 300, 400}, {350, 257, 401}, {129, 1100, 450}, {1000, 100, 500}, {37, 2000, 800}, {700, 60, 1000}}
	for _, c := range cases {
		for _, dt := range []DType{Float64, Float32} {
			a := rdtRand(t, rng, dt, c.m, c.k)
			b := rdtRand(t, rng, dt, c.k, c.n)
			for va, av := range rdtViews(t, a) {
				for _, threads := range []int{2, 3, 5} {
					what := fmt.Sprintf("%v %dx%dx%d A %s, %d threads", dt, c.m, c.k, c.n, va, threads)
					if len(mmBands(c.m, c.k, c.n, threads)) < 3 {
						t.Fatalf("%s: not split", what)
					}
					for _, cuts := range [][]int{{0, c.k}, {0, c.k / 3, c.k}} {
						pairs := mmSplitK(t, av, b, cuts)
						one, err := MatMulSumThreads(1, pairs...)
						if err != nil {
							t.Fatal(err)
						}
						par, err := MatMulSumThreads(threads, pairs...)
						if err != nil {
							t.Fatal(err)
						}
						for i := range one.Size() {
							if g, w := par.AtFlat(i), one.AtFlat(i); math.Float64bits(g) != math.Float64bits(w) {
								t.Fatalf("%s, %d products: [%d] = %v, one thread %v", what, len(pairs)/2, i, g, w)
							}
						}
					}
				}
			}
		}
	}
}

func TestMatMulBands(t *testing.T) {
	cases := []struct {
		m, k, n, threads int
		want             []int
	}{
		{4000, 4000, 4000, 2, []int{0, 1920, 4000}},
		{4000, 4000, 4000, 1, []int{0, 4000}},
		{4000, 4000, 300, 2, []int{0, 300}}, // fewer than two bands of 192 columns
		{10, 10, 1000, 2, []int{0, 1000}},   // too little work
		{1000, 1000, 1000, 3, []int{0, 384, 768, 1000}},
	}
	for _, c := range cases {
		if got := mmBands(c.m, c.k, c.n, c.threads); !slices.Equal(got, c.want) {
			t.Errorf("mmBands(%d, %d, %d, %d) = %v, want %v", c.m, c.k, c.n, c.threads, got, c.want)
		}
	}
}
