package ndarray

import (
	"math"
	"math/rand"
	"testing"
)

// rdtRefCum is the sequential reference: float64/float32 accumulate in
// their own type, the rest in int64.
func rdtRefCum(prod bool, a *Array, ax int) []float64 {
	n := a.Size()
	out := make([]float64, n)
	st := ContiguousStrides(a.shape)[ax]
	idx := make([]int, a.NDim())
	for flat := 0; flat < n; flat++ {
		r := flat
		for d := a.NDim() - 1; d >= 0; d-- {
			idx[d] = r % a.shape[d]
			r /= a.shape[d]
		}
		v := rdtAt(a, flat)
		if idx[ax] == 0 {
			out[flat] = v
			continue
		}
		prev := out[flat-st]
		switch {
		case a.dtype == Float32 && prod:
			out[flat] = float64(float32(prev) * float32(v))
		case a.dtype == Float32:
			out[flat] = float64(float32(prev) + float32(v))
		case a.dtype == Float64 && prod:
			out[flat] = prev * v
		case a.dtype == Float64:
			out[flat] = prev + v
		case prod:
			out[flat] = float64(int64(prev) * int64(v))
		default:
			out[flat] = float64(int64(prev) + int64(v))
		}
	}
	return out
}

func TestCumulative(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, shape := range [][]int{{7}, {3, 4, 5}, {4, 1, 300}} {
		for _, dt := range rdtDTypes {
			base := rdtRand(t, rng, dt, shape...)
			for vname, a := range rdtViews(t, base) {
				for ax := -len(shape); ax < len(shape); ax++ {
					nax, _ := NormAxis(ax, len(shape))
					for _, prod := range []bool{false, true} {
						var got *Array
						var err error
						if prod {
							got, err = CumProd(a, ax)
						} else {
							got, err = CumSum(a, ax)
						}
						if err != nil {
							t.Fatal(err)
						}
						wdt := Int64
						if dt.IsFloat() {
							wdt = dt
						}
						if got.DType() != wdt || !SameShape(got.Shape(), a.Shape()) {
							t.Fatalf("%v: got %v%v", dt, got.DType(), got.Shape())
						}
						want := rdtRefCum(prod, a, nax)
						for i, w := range want {
							if g := got.AtFlat(i); !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
								t.Fatalf("%v %v %v axis %d prod=%v: [%d] = %v want %v", dt, vname, shape, ax, prod, i, g, w)
							}
						}
					}
				}
			}
		}
	}
}

func TestCumulativeNumpy(t *testing.T) {
	z, _ := FromInt32s([]int{3, 4}, []int32{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8})
	// z.cumsum(axis=0) -> [[3,1,4,1],[8,10,6,7],[13,13,11,15]] (int64)
	s, _ := CumSum(z, 0)
	for i, w := range []int64{3, 1, 4, 1, 8, 10, 6, 7, 13, 13, 11, 15} {
		if s.IntAtFlat(i) != w || s.DType() != Int64 {
			t.Fatalf("cumsum axis 0 = %v", s)
		}
	}
	// z.cumprod(axis=1) -> [[3,3,12,12],[5,45,90,540],[5,15,75,600]]
	p, _ := CumProd(z, 1)
	for i, w := range []int64{3, 3, 12, 12, 5, 45, 90, 540, 5, 15, 75, 600} {
		if p.IntAtFlat(i) != w {
			t.Fatalf("cumprod axis 1 = %v", p)
		}
	}
	// np.cumsum(np.full(5, 0.1, dtype=np.float32)) -> [0.10000000149011612, 0.20000000298023224,
	// 0.30000001192092896, 0.4000000059604645, 0.5]
	f, _ := FromFloat32s([]int{5}, []float32{0.1, 0.1, 0.1, 0.1, 0.1})
	c, _ := CumSum(f, 0)
	for i, w := range []float64{0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645, 0.5} {
		if c.AtFlat(i) != w {
			t.Fatalf("float32 cumsum = %v", c)
		}
	}
	// np.cumsum(np.array(3.0), axis=0) -> array([3.])
	sc, err := CumSum(Scalar(Float64, 3), 0)
	if err != nil || !SameShape(sc.Shape(), []int{1}) || sc.AtFlat(0) != 3 {
		t.Errorf("cumsum of 0-d = %v, %v", sc, err)
	}
	if _, err := CumSum(Scalar(Float64, 3), 1); err == nil {
		t.Error("cumsum of 0-d along axis 1 accepted")
	}
	if _, err := CumProd(z, 2); err == nil {
		t.Error("bad axis accepted")
	}
	// np.array([True,True]).cumprod() -> [1, 1] int64
	b, _ := FromBools([]int{2}, []bool{true, true})
	bp, _ := CumProd(b, 0)
	if bp.DType() != Int64 || bp.IntAtFlat(1) != 1 {
		t.Errorf("bool cumprod = %v", bp)
	}
	e, _ := New(Float64, 0, 3)
	if r, err := CumSum(e, 1); err != nil || !SameShape(r.Shape(), []int{0, 3}) {
		t.Errorf("cumsum of empty = %v, %v", r, err)
	}
}

// TestCumProdComplex64Steps: a complex64 running product takes NumPy's
// float32 steps: (1e30+1e30j)**2 overflows each part's products, so the
// real part is inf - inf, NaN, where a float64 step would give 0.
func TestCumProdComplex64Steps(t *testing.T) {
	a, err := FromComplex64s([]int{2}, []complex64{complex(1e30, 1e30), complex(1e30, 1e30)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := CumProd(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Complex64s()
	if re, im := real(got[1]), imag(got[1]); !math.IsNaN(float64(re)) || !math.IsInf(float64(im), 1) {
		t.Errorf("cumprod of complex64 (1e30+1e30j, 1e30+1e30j)[1] = %v, want NaN+Infj as NumPy's", got[1])
	}
	b, err := FromComplex128s([]int{2}, []complex128{complex(1e30, 1e30), complex(1e30, 1e30)})
	if err != nil {
		t.Fatal(err)
	}
	out, err = CumProd(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	x := 1e30 // a variable, so the products round as float64 steps do
	if got, want := out.Complex128s()[1], complex(x*x-x*x, x*x+x*x); got != want {
		t.Errorf("complex128: %v, want %v", got, want)
	}
}
