package ndarray

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestVectorArithMatchesGeneric checks every AVX-512 loop against the generic
// loop bit for bit, over lengths around the unroll widths and values that
// include signed zeros, infinities, NaNs and subnormals.
func TestVectorArithMatchesGeneric(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU: the generic loops are the only ones")
	}
	r := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -2.5e-310, math.MaxFloat64, 1e-300}
	val := func() float64 {
		if r.IntN(4) == 0 {
			return special[r.IntN(len(special))]
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
	}
	generic64 := map[BinaryOp]ewBinKernel[float64, float64]{
		Add: {ewAddVV[float64], ewAddVS[float64], ewAddSV[float64]},
		Sub: {ewSubVV[float64], ewSubVS[float64], ewSubSV[float64]},
		Mul: {ewMulVV[float64], ewMulVS[float64], ewMulSV[float64]},
		Div: {ewDivVV[float64], ewDivVS[float64], ewDivSV[float64]},
	}
	generic32 := map[BinaryOp]ewBinKernel[float32, float32]{
		Add: {ewAddVV[float32], ewAddVS[float32], ewAddSV[float32]},
		Sub: {ewSubVV[float32], ewSubVS[float32], ewSubSV[float32]},
		Mul: {ewMulVV[float32], ewMulVS[float32], ewMulSV[float32]},
		Div: {ewDivVV[float32], ewDivVS[float32], ewDivSV[float32]},
	}
	for op, g := range generic64 {
		v, ok := vecKernel64(op)
		if !ok {
			t.Fatalf("no float64 vector kernel for %v", op)
		}
		g32 := generic32[op]
		v32, ok := vecKernel32(op)
		if !ok {
			t.Fatalf("no float32 vector kernel for %v", op)
		}
		for n := range 140 {
			x, y := make([]float64, n), make([]float64, n)
			x32, y32 := make([]float32, n), make([]float32, n)
			for i := range n {
				x[i], y[i] = val(), val()
				x32[i], y32[i] = float32(x[i]), float32(y[i])
			}
			s := val()
			check64 := func(form string, got, want []float64) {
				t.Helper()
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("float64 %v %s n=%d: [%d] = %v, generic %v", op, form, n, i, got[i], want[i])
					}
				}
			}
			check32 := func(form string, got, want []float32) {
				t.Helper()
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("float32 %v %s n=%d: [%d] = %v, generic %v", op, form, n, i, got[i], want[i])
					}
				}
			}
			got, want := make([]float64, n), make([]float64, n)
			v.vv(got, x, y)
			g.vv(want, x, y)
			check64("vv", got, want)
			v.vs(got, x, s)
			g.vs(want, x, s)
			check64("vs", got, want)
			v.sv(got, s, y)
			g.sv(want, s, y)
			check64("sv", got, want)
			copy(got, x) // in place: d aliases x
			v.vv(got, got, y)
			g.vv(want, x, y)
			check64("vv in place", got, want)

			got32, want32 := make([]float32, n), make([]float32, n)
			v32.vv(got32, x32, y32)
			g32.vv(want32, x32, y32)
			check32("vv", got32, want32)
			v32.vs(got32, x32, float32(s))
			g32.vs(want32, x32, float32(s))
			check32("vs", got32, want32)
			v32.sv(got32, float32(s), y32)
			g32.sv(want32, float32(s), y32)
			check32("sv", got32, want32)
		}
	}
}

// TestVectorCompareMatchesGeneric checks the AVX-512 comparisons, squaring
// and pair sums against the generic loops, NaNs and signed zeros included.
func TestVectorCompareMatchesGeneric(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(3, 4))
	pool := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, 2}
	val := func() float64 { return pool[r.IntN(len(pool))] }
	generic := map[BinaryOp]ewBinKernel[float64, uint8]{
		Less:         {ewLtVV[float64], ewLtVS[float64], func(d []uint8, s float64, v []float64) { ewGtVS(d, v, s) }},
		LessEqual:    {ewLeVV[float64], ewLeVS[float64], func(d []uint8, s float64, v []float64) { ewGeVS(d, v, s) }},
		Greater:      {func(d []uint8, u, v []float64) { ewLtVV(d, v, u) }, ewGtVS[float64], func(d []uint8, s float64, v []float64) { ewLtVS(d, v, s) }},
		GreaterEqual: {func(d []uint8, u, v []float64) { ewLeVV(d, v, u) }, ewGeVS[float64], func(d []uint8, s float64, v []float64) { ewLeVS(d, v, s) }},
		Equal:        {ewEqVV[float64], ewEqVS[float64], func(d []uint8, s float64, v []float64) { ewEqVS(d, v, s) }},
		NotEqual:     {ewNeVV[float64], ewNeVS[float64], func(d []uint8, s float64, v []float64) { ewNeVS(d, v, s) }},
	}
	for op, g := range generic {
		v, ok := vecCmp64(op)
		if !ok {
			t.Fatalf("no vector comparison for %v", op)
		}
		for n := range 70 {
			x, y := make([]float64, n), make([]float64, n)
			for i := range n {
				x[i], y[i] = val(), val()
			}
			for _, s := range pool {
				got, want := make([]uint8, n), make([]uint8, n)
				v.vv(got, x, y)
				g.vv(want, x, y)
				if !slices.Equal(got, want) {
					t.Fatalf("%v vv n=%d: %v, generic %v (x %v y %v)", op, n, got, want, x, y)
				}
				v.vs(got, x, s)
				g.vs(want, x, s)
				if !slices.Equal(got, want) {
					t.Fatalf("%v vs %v n=%d: %v, generic %v (x %v)", op, s, n, got, want, x)
				}
				v.sv(got, s, y)
				g.sv(want, s, y)
				if !slices.Equal(got, want) {
					t.Fatalf("%v sv %v n=%d: %v, generic %v (y %v)", op, s, n, got, want, y)
				}
			}
		}
	}
	for n := range 70 {
		x := make([]float64, 2*n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		if n > 0 {
			x[r.IntN(len(x))] = math.Inf(1)
		}
		got, want := make([]float64, n), make([]float64, n)
		RowSums(got, x, 2)
		for i := range want {
			want[i] = x[2*i] + x[2*i+1]
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("RowSums k=2 n=%d: [%d] = %v, want %v", n, i, got[i], want[i])
			}
		}
		sq, sqWant := make([]float64, 2*n), make([]float64, 2*n)
		pow64VS(sq, x, 2)
		ewPowFloatVS(sqWant, x, 2)
		for i := range sq {
			if math.Float64bits(sq[i]) != math.Float64bits(sqWant[i]) {
				t.Fatalf("x**2 n=%d: [%d] = %v, want %v", 2*n, i, sq[i], sqWant[i])
			}
		}
	}
}

// TestVectorUnaryMatchesGeneric checks the AVX-512 negative, absolute,
// square and sqrt against the generic loops, bit for bit (NaN sign bits
// included: negative flips it, absolute clears it).
func TestVectorUnaryMatchesGeneric(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this CPU")
	}
	generic := map[UnaryOp]func(d, x []float64){
		Neg: ewNegLoop[float64], Abs: ewAbsF64Loop, Square: ewSquareLoop[float64], Sqrt: ewSqrtLoop[float64],
	}
	r := rand.New(rand.NewPCG(7, 8))
	pool := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(), 5e-324, -5e-324, 1e300, -1e-300}
	for op, g := range generic {
		v, ok := vecUnary64(op)
		if !ok {
			t.Fatalf("no vector loop for %v", op)
		}
		for n := range 90 {
			x := make([]float64, n)
			for i := range x {
				if r.IntN(3) == 0 {
					x[i] = pool[r.IntN(len(pool))]
				} else {
					x[i] = r.NormFloat64() * 1e3
				}
			}
			got, want := make([]float64, n), make([]float64, n)
			v(got, x)
			g(want, x)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%v n=%d: [%d] = %v (%#x), generic %v (%#x) of %v", op, n, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]), x[i])
				}
			}
		}
	}
}
