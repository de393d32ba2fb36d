package ndarray

import (
	"math"
	"testing"
)

// TestGram checks Gram against the product of the shifted matrix made
// explicitly, for both dtypes, strided and reversed views, with and
// without shifts, symmetric and cross, on OpenBLAS (when loaded) and on
// gonum.
func TestGram(t *testing.T) {
	mk := func(dt DType, r, c int, seed uint64) *Array {
		v := make([]float64, r*c)
		s := seed
		for i := range v {
			s = s*6364136223846793005 + 1442695040888963407
			v[i] = float64(s>>11)/(1<<53)*4 - 1
		}
		a, err := FromFloat64s([]int{r, c}, v)
		if err != nil {
			t.Fatal(err)
		}
		return a.Astype(dt)
	}
	shift := func(x, s *Array) *Array {
		if s == nil {
			return x.Contiguous()
		}
		d, err := Binary(Sub, x, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	want := func(x1, s1, x2, s2 *Array) *Array {
		a, b := shift(x1, s1), shift(x2, s2)
		at, err := a.Transpose(1, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := MatMul(at.Contiguous().Astype(Float64), b.Astype(Float64))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	must := func(a *Array, err error) *Array {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, dt := range []DType{Float64, Float32} {
		tol := 1e-12
		if dt == Float32 {
			tol = 1e-4
		}
		for _, rows := range []int{1, 7, 700, 5003} {
			x := mk(dt, rows, 13, uint64(rows))
			y := mk(dt, rows, 4, uint64(rows)+1)
			s := must(mk(dt, 1, 13, 99).Reshape(13))
			sy := must(mk(dt, 1, 4, 98).Reshape(4))
			xt := must(mk(dt, 13, rows, 5).Transpose(1, 0)) // strided view
			rev := must(x.Flip(0))                          // reversed rows
			cases := []struct {
				name           string
				x1, s1, x2, s2 *Array
			}{
				{"sym", x, nil, nil, nil},
				{"sym shifted", x, s, nil, nil},
				{"sym strided", xt, nil, nil, nil},
				{"sym reversed shifted", rev, s, nil, nil},
				{"cross", x, s, y, sy},
				{"cross unshifted strided", xt, nil, y, nil},
			}
			for _, c := range cases {
				got, err := Gram(c.x1, c.s1, c.x2, c.s2)
				if err != nil {
					t.Fatalf("%v %d %s: %v", dt, rows, c.name, err)
				}
				x2, s2 := c.x2, c.s2
				if x2 == nil {
					x2, s2 = c.x1, c.s1
				}
				w := want(c.x1, c.s1, x2, s2)
				g := got.Astype(Float64).Float64s()
				for i, v := range w.Float64s() {
					if math.Abs(g[i]-v) > tol*(1+math.Abs(v))*float64(rows) {
						t.Fatalf("%v rows %d %s: [%d] = %v, want %v", dt, rows, c.name, i, g[i], v)
					}
				}
			}
		}
	}
	if _, err := Gram(mk(Float64, 3, 2, 1), nil, mk(Float64, 4, 2, 1), nil); err == nil {
		t.Error("rows 3 and 4 accepted")
	}
	if _, err := Gram(mk(Float64, 3, 2, 1).Astype(Int64), nil, nil, nil); err == nil {
		t.Error("int64 accepted")
	}
}
