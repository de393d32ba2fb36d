package ndarray

import (
	"math"
	"math/rand"
	"testing"
)

// rdtNaNGroups groups a's elements (flat C order) by output position of a
// reduction over red, the keepdims positions in C order.
func rdtNaNGroups(a *Array, red []bool) [][]float64 {
	keep, _ := redKeepShape(a.shape, red)
	groups := make([][]float64, Size(keep))
	idx := make([]int, a.NDim())
	for i := 0; i < a.Size(); i++ {
		r := i
		for ax := a.NDim() - 1; ax >= 0; ax-- {
			idx[ax] = r % a.shape[ax]
			r /= a.shape[ax]
		}
		o := 0
		for ax, k := range keep {
			v := idx[ax]
			if red[ax] {
				v = 0
			}
			o = o*k + v
		}
		groups[o] = append(groups[o], rdtAt(a, i))
	}
	return groups
}

// The NaN-aware reductions and moments against element-by-element
// references, over every axis subset and strided layout, with lanes that
// are all NaN.
func TestNaNReductionsAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, dt := range []DType{Float64, Float32} {
		a := rdtRand(t, rng, dt, 4, 5, 6)
		for i := 0; i < a.Size(); i++ {
			switch u := rng.Float64(); {
			case u < 0.25 || i/6%5 == 2: // and a row of every 4x5 block all NaN
				a.SetFlat(i, math.NaN())
			case u < 0.31:
				a.SetFlat(i, math.Inf(1)) // lanes with an infinite mean: NaN variance
			}
		}
		for name, v := range rdtViews(t, a) {
			for _, axes := range rdtAxesSubsets(3) {
				red, _ := redAxesMask("test", v.shape, axes)
				groups := rdtNaNGroups(v, red)
				for _, op := range []ReduceOp{NanSum, NanProd, NanMin, NanMax} {
					got, err := Reduce(op, v, axes, true)
					if err != nil {
						t.Fatal(err)
					}
					for g, xs := range groups {
						want := map[ReduceOp]float64{NanSum: 0, NanProd: 1, NanMin: math.NaN(), NanMax: math.NaN()}[op]
						for _, x := range xs {
							switch {
							case x != x:
							case op == NanSum:
								want += x
							case op == NanProd:
								want *= x
							case op == NanMin && (want != want || x < want):
								want = x
							case op == NanMax && (want != want || x > want):
								want = x
							}
						}
						if op == NanProd && dt == Float32 {
							want = float64(float32(want))
						}
						if r := rdtAt(got, g); !rdtClose(r, want, 1e-5) {
							t.Fatalf("%v %v %s axes %v: position %d got %v want %v", op, dt, name, axes, g, r, want)
						}
					}
				}
				m, err := NanMoments(v, axes)
				if err != nil {
					t.Fatal(err)
				}
				vr, err := FinishNanMoments(m, StatVar, 1)
				if err != nil {
					t.Fatal(err)
				}
				for g, xs := range groups {
					var n, s float64
					for _, x := range xs {
						if x == x {
							n, s = n+1, s+x
						}
					}
					var q float64
					for _, x := range xs {
						if x == x {
							q += (x - s/n) * (x - s/n)
						}
					}
					want := q / (n - 1)
					if n-1 <= 0 {
						want = math.NaN()
					}
					if got := rdtAt(vr, g); !rdtClose(got, want, 1e-9) {
						t.Fatalf("nanvar %v %s axes %v: position %d got %v want %v", dt, name, axes, g, got, want)
					}
				}
			}
		}
	}
}

// A partial of an all-NaN chunk stays NaN and does not win the combine.
func TestNaNMinCombineSkipsAllNaNPartials(t *testing.T) {
	nan, _ := FromFloat64s([]int{2}, []float64{math.NaN(), math.NaN()})
	num, _ := FromFloat64s([]int{2}, []float64{3, -1})
	p1, _ := Reduce(NanMin, nan, nil, true)
	p2, _ := Reduce(NanMin, num, nil, true)
	if v := p1.Float64s()[0]; !math.IsNaN(v) {
		t.Fatalf("nanmin of NaNs: %v", v)
	}
	c, err := Combine(NanMin, []*Array{p1, p2, p1})
	if err != nil || c.Float64s()[0] != -1 {
		t.Fatalf("combine: %v %v", c, err)
	}
}

// nanargmin: NaN competes as +Inf (first occurrence wins a tie with +Inf,
// as NumPy), lanes of NaN only are marked and refused at the finish.
func TestNanArgPartial(t *testing.T) {
	a, _ := FromFloat64s([]int{2, 3}, []float64{math.NaN(), math.Inf(1), math.NaN(), math.NaN(), math.NaN(), math.NaN()})
	p, err := NanArgPartial(false, a, -1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Float64s(); d[1] != 0 || d[2] != 1 {
		t.Fatalf("flat partial %v: want index 0 (NaN ties +Inf first), seen 1", d)
	}
	p, err = NanArgPartial(false, a, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FinishNanArg(false, p); err == nil {
		t.Fatal("all-NaN row: no error")
	}
	row0, _ := a.Slice([]Range{{Start: 0, Step: 1, Len: 1}, {Start: 0, Step: 1, Len: 3}})
	p, _ = NanArgPartial(true, row0, 1, nil, nil)
	got, err := FinishNanArg(true, p)
	if err != nil || got.Int64s()[0] != 1 {
		t.Fatalf("nanargmax of [NaN, Inf, NaN]: %v %v", got, err)
	}
}

// Long reduced outer axes go through pairwise temporaries and long kept
// rows through column blocks: counts and sums must still land in place.
func TestNanMomentsLongAxes(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, shape := range [][]int{{300, 3}, {3, 2000}, {260, 1100}} {
		a := rdtRand(t, rng, Float64, shape...)
		for i := 0; i < a.Size(); i++ {
			if rng.Float64() < 0.2 {
				a.SetFlat(i, math.NaN())
			}
		}
		for _, axes := range [][]int{{0}, {1}, nil} {
			red, _ := redAxesMask("test", a.shape, axes)
			groups := rdtNaNGroups(a, red)
			m, err := NanMoments(a, axes)
			if err != nil {
				t.Fatal(err)
			}
			mean, _ := FinishNanMoments(m, StatMean, 0)
			s, _ := Reduce(NanSum, a, axes, true)
			for g, xs := range groups {
				var n, sum float64
				for _, x := range xs {
					if x == x {
						n, sum = n+1, sum+x
					}
				}
				if got := rdtAt(mean, g); !rdtClose(got, sum/n, 1e-12) {
					t.Fatalf("%v axes %v: nanmean at %d is %v, want %v", shape, axes, g, got, sum/n)
				}
				if got := rdtAt(s, g); !rdtClose(got, sum, 1e-12) {
					t.Fatalf("%v axes %v: nansum at %d is %v, want %v", shape, axes, g, got, sum)
				}
			}
		}
	}
}
