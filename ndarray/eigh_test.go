package ndarray

import (
	"math/rand"
	"strings"
	"testing"
)

// eighBackends are the eigensolvers to test: gonum's always, OpenBLAS's
// dsyevd/ssyevd when the LAPACK backend is OpenBLAS.
func eighBackends(t *testing.T) map[string]*eighBackend {
	t.Helper()
	bs := map[string]*eighBackend{"gonum": gonumEighBackend()}
	laDefault()
	if laImpl.openblas != nil {
		if ob, ok := mmBLAS.get().(*mmOpenBLAS); ok {
			b, err := openblasEighBackend(ob)
			if err != nil {
				t.Fatal(err)
			}
			bs["openblas"] = b
		}
	} else {
		t.Logf("OpenBLAS LAPACK not available; testing gonum only")
	}
	return bs
}

// eighInput is a random n×n matrix whose lower (or upper) triangle holds
// a symmetric matrix s and whose other triangle is unrelated values that
// the solver must not read; it returns both.
func eighInput(r *rand.Rand, dt DType, n int, upper bool) (a, s *Array) {
	a = laRand(r, dt, n, n)
	s = newArray(Float64, []int{n, n})
	for i := range n {
		for j := range n {
			src := i*n + j
			if (j > i) != upper && i != j { // the other triangle: mirror
				src = j*n + i
			}
			s.SetFlat(i*n+j, a.AtFlat(src))
		}
	}
	return a, s
}

func TestEigh(t *testing.T) {
	r := rand.New(rand.NewSource(20))
	for name, b := range eighBackends(t) {
		for _, dt := range []DType{Float64, Float32} {
			t.Run(name+"/"+dt.String(), func(t *testing.T) {
				for _, n := range []int{0, 1, 2, 7, 40} {
					for _, upper := range []bool{false, true} {
						tol := laTol(dt, n) * 100
						a, s := eighInput(r, dt, n, upper)
						w, v, err := eighWith(b, a, upper, true)
						if err != nil {
							t.Fatal(err)
						}
						if w.DType() != dt || v.DType() != dt || !SameShape(w.Shape(), []int{n}) || !SameShape(v.Shape(), []int{n, n}) {
							t.Fatalf("n=%d: w %v %v, v %v %v", n, w.DType(), w.Shape(), v.DType(), v.Shape())
						}
						for i := 1; i < n; i++ {
							if w.AtFlat(i) < w.AtFlat(i-1) {
								t.Errorf("n=%d: eigenvalues not ascending: %v", n, w.ToFloat64s())
							}
						}
						// S V = V diag(w) and Vᵀ V = I.
						vw := redConvert(v, Float64).Copy()
						for i := range n {
							for j := range n {
								vw.SetFlat(i*n+j, vw.AtFlat(i*n+j)*w.AtFlat(j))
							}
						}
						if d := laMaxDiff(t, laMul(t, s, v), vw); d > tol {
							t.Errorf("n=%d upper=%v: S V - V diag(w) = %g", n, upper, d)
						}
						if d := laMaxDiff(t, laMul(t, laT(v), v), laEye(n)); d > tol {
							t.Errorf("n=%d upper=%v: Vᵀ V - I = %g", n, upper, d)
						}
						w2, _, err := eighWith(b, a, upper, false)
						if err != nil {
							t.Fatal(err)
						}
						if d := laMaxDiff(t, w, w2); d > tol {
							t.Errorf("n=%d: eigvalsh differs from eigh's eigenvalues by %g", n, d)
						}
					}
				}
			})
		}
	}
}

func TestEighBackendsAgree(t *testing.T) {
	bs := eighBackends(t)
	if len(bs) < 2 {
		t.Skip("one backend")
	}
	r := rand.New(rand.NewSource(21))
	a, _ := eighInput(r, Float64, 33, false)
	wg, _, err := eighWith(bs["gonum"], a, false, false)
	if err != nil {
		t.Fatal(err)
	}
	wo, _, err := eighWith(bs["openblas"], a, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := laMaxDiff(t, wg, wo); d > 1e-12 {
		t.Errorf("gonum and OpenBLAS eigenvalues differ by %g", d)
	}
}

func TestEighStackAndErrors(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	// A stack of int64 matrices computes in float64, each as on its own.
	st := newArray(Int64, []int{3, 4, 4})
	for i := range st.Size() {
		st.SetFlat(i, float64(r.Intn(19)-9))
	}
	w, v, err := Eigh(st, false)
	if err != nil {
		t.Fatal(err)
	}
	if w.DType() != Float64 || !SameShape(w.Shape(), []int{3, 4}) || !SameShape(v.Shape(), []int{3, 4, 4}) {
		t.Fatalf("stack: w %v %v, v %v", w.DType(), w.Shape(), v.Shape())
	}
	for k := range 3 {
		m, _ := st.Index(0, k)
		wk, vk, err := Eigh(m, false)
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := w.Index(0, k)
		vs, _ := v.Index(0, k)
		if laMaxDiff(t, ws, wk) != 0 || laMaxDiff(t, vs, vk) != 0 {
			t.Errorf("matrix %d of the stack differs from its own decomposition", k)
		}
	}
	for _, bad := range []*Array{newArray(Float64, []int{3, 4}), newArray(Float64, []int{4})} {
		if _, _, err := Eigh(bad, false); err == nil || !strings.HasPrefix(err.Error(), "eigh: ") {
			t.Errorf("shape %v: err %v", bad.Shape(), err)
		}
		if _, err := EigvalsH(bad, false); err == nil || !strings.HasPrefix(err.Error(), "eigvalsh: ") {
			t.Errorf("shape %v: err %v", bad.Shape(), err)
		}
	}
}
