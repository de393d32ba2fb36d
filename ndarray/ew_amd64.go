package ndarray

import "golang.org/x/sys/cpu"

// hasAVX512 selects the AVX-512 loops of ew_amd64.s for float arithmetic.
var hasAVX512 = cpu.X86.HasAVX512F

//go:noescape
func addVV64(d, x, y *float64, n int)

//go:noescape
func addVS64(d, x *float64, y float64, n int)

//go:noescape
func addVV32(d, x, y *float32, n int)

//go:noescape
func addVS32(d, x *float32, y float32, n int)

//go:noescape
func subVV64(d, x, y *float64, n int)

//go:noescape
func subVS64(d, x *float64, y float64, n int)

//go:noescape
func subSV64(d *float64, x float64, y *float64, n int)

//go:noescape
func subVV32(d, x, y *float32, n int)

//go:noescape
func subVS32(d, x *float32, y float32, n int)

//go:noescape
func subSV32(d *float32, x float32, y *float32, n int)

//go:noescape
func mulVV64(d, x, y *float64, n int)

//go:noescape
func mulVS64(d, x *float64, y float64, n int)

//go:noescape
func mulVV32(d, x, y *float32, n int)

//go:noescape
func mulVS32(d, x *float32, y float32, n int)

//go:noescape
func divVV64(d, x, y *float64, n int)

//go:noescape
func divVS64(d, x *float64, y float64, n int)

//go:noescape
func divSV64(d *float64, x float64, y *float64, n int)

//go:noescape
func divVV32(d, x, y *float32, n int)

//go:noescape
func divVS32(d, x *float32, y float32, n int)

//go:noescape
func divSV32(d *float32, x float32, y *float32, n int)

//go:noescape
func ltVV64(d *uint8, x, y *float64, n int)

//go:noescape
func ltVS64(d *uint8, x *float64, y float64, n int)

//go:noescape
func leVV64(d *uint8, x, y *float64, n int)

//go:noescape
func leVS64(d *uint8, x *float64, y float64, n int)

//go:noescape
func gtVV64(d *uint8, x, y *float64, n int)

//go:noescape
func gtVS64(d *uint8, x *float64, y float64, n int)

//go:noescape
func geVV64(d *uint8, x, y *float64, n int)

//go:noescape
func geVS64(d *uint8, x *float64, y float64, n int)

//go:noescape
func eqVV64(d *uint8, x, y *float64, n int)

//go:noescape
func eqVS64(d *uint8, x *float64, y float64, n int)

//go:noescape
func neVV64(d *uint8, x, y *float64, n int)

//go:noescape
func neVS64(d *uint8, x *float64, y float64, n int)

//go:noescape
func pairSums64(d, x *float64, n int)

//go:noescape
func devSqBlock64(x *float64, n int, m float64, r *[8]float64)

// devSqBlock adds (x[i]-m)² into r[i%8] over the longest multiple-of-8
// prefix of x and says how long it was (0 without AVX-512).
func devSqBlock(x []float64, m float64, r *[8]float64) int {
	n := len(x) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	devSqBlock64(&x[0], n, m, r)
	return n
}

// vecVV, vecVS and vecSV run an assembly loop over the longest prefix whose
// length is a multiple of w and the generic loop over the rest.
func vecVV[T ewFloat](asm func(d, x, y *T, n int), rest func(d, x, y []T), w int) func(d, x, y []T) {
	return func(d, x, y []T) {
		n := len(d) &^ (w - 1)
		if n > 0 {
			x, y = x[:len(d)], y[:len(d)]
			asm(&d[0], &x[0], &y[0], n)
		}
		if n < len(d) {
			rest(d[n:], x[n:], y[n:])
		}
	}
}

func vecVS[T ewFloat](asm func(d, x *T, y T, n int), rest func(d, x []T, y T), w int) func(d, x []T, y T) {
	return func(d, x []T, y T) {
		n := len(d) &^ (w - 1)
		if n > 0 {
			x = x[:len(d)]
			asm(&d[0], &x[0], y, n)
		}
		if n < len(d) {
			rest(d[n:], x[n:], y)
		}
	}
}

func vecSV[T ewFloat](asm func(d *T, x T, y *T, n int), rest func(d []T, x T, y []T), w int) func(d []T, x T, y []T) {
	return func(d []T, x T, y []T) {
		n := len(d) &^ (w - 1)
		if n > 0 {
			y = y[:len(d)]
			asm(&d[0], x, &y[0], n)
		}
		if n < len(d) {
			rest(d[n:], x, y[n:])
		}
	}
}

// Kernels are built once: the wrappers are closures over package functions.
var (
	vec64 = map[BinaryOp]ewBinKernel[float64, float64]{
		Add: {vecVV(addVV64, ewAddVV[float64], 8), vecVS(addVS64, ewAddVS[float64], 8), vecSV(func(d *float64, x float64, y *float64, n int) { addVS64(d, y, x, n) }, ewAddSV[float64], 8)},
		Sub: {vecVV(subVV64, ewSubVV[float64], 8), vecVS(subVS64, ewSubVS[float64], 8), vecSV(subSV64, ewSubSV[float64], 8)},
		Mul: {vecVV(mulVV64, ewMulVV[float64], 8), vecVS(mulVS64, ewMulVS[float64], 8), vecSV(func(d *float64, x float64, y *float64, n int) { mulVS64(d, y, x, n) }, ewMulSV[float64], 8)},
		Div: {vecVV(divVV64, ewDivVV[float64], 8), vecVS(divVS64, ewDivVS[float64], 8), vecSV(divSV64, ewDivSV[float64], 8)},
		Pow: {ewPowFloatVV[float64], pow64VS, ewPowFloatSV[float64]},
	}
	vec32 = map[BinaryOp]ewBinKernel[float32, float32]{
		Add: {vecVV(addVV32, ewAddVV[float32], 16), vecVS(addVS32, ewAddVS[float32], 16), vecSV(func(d *float32, x float32, y *float32, n int) { addVS32(d, y, x, n) }, ewAddSV[float32], 16)},
		Sub: {vecVV(subVV32, ewSubVV[float32], 16), vecVS(subVS32, ewSubVS[float32], 16), vecSV(subSV32, ewSubSV[float32], 16)},
		Mul: {vecVV(mulVV32, ewMulVV[float32], 16), vecVS(mulVS32, ewMulVS[float32], 16), vecSV(func(d *float32, x float32, y *float32, n int) { mulVS32(d, y, x, n) }, ewMulSV[float32], 16)},
		Div: {vecVV(divVV32, ewDivVV[float32], 16), vecVS(divVS32, ewDivVS[float32], 16), vecSV(divSV32, ewDivSV[float32], 16)},
	}
)

// pow64VS squares with the vector multiply (x*x is the correctly rounded
// pow(x, 2), as the generic loop also uses).
func pow64VS(d, x []float64, y float64) {
	if y == 2 {
		x = x[:len(d)]
		n := len(d) &^ 7
		if n > 0 {
			mulVV64(&d[0], &x[0], &x[0], n)
		}
		ewMulVV(d[n:], x[n:], x[n:])
		return
	}
	ewPowFloatVS(d, x, y)
}

// vecCmp builds a comparison kernel from its vector loops; the scalar-first
// form uses the mirrored predicate (s < v[i] is v[i] > s).
func vecCmp(vv func(d *uint8, x, y *float64, n int), vs, mirror func(d *uint8, x *float64, y float64, n int),
	rvv func(d []uint8, x, y []float64), rvs, rmirror func(d []uint8, x []float64, y float64)) ewBinKernel[float64, uint8] {
	return ewBinKernel[float64, uint8]{
		vv: func(d []uint8, x, y []float64) {
			n := len(d) &^ 7
			if n > 0 {
				x, y = x[:len(d)], y[:len(d)]
				vv(&d[0], &x[0], &y[0], n)
			}
			if n < len(d) {
				rvv(d[n:], x[n:], y[n:])
			}
		},
		vs: func(d []uint8, x []float64, y float64) {
			n := len(d) &^ 7
			if n > 0 {
				x = x[:len(d)]
				vs(&d[0], &x[0], y, n)
			}
			if n < len(d) {
				rvs(d[n:], x[n:], y)
			}
		},
		sv: func(d []uint8, x float64, y []float64) {
			n := len(d) &^ 7
			if n > 0 {
				y = y[:len(d)]
				mirror(&d[0], &y[0], x, n)
			}
			if n < len(d) {
				rmirror(d[n:], y[n:], x)
			}
		},
	}
}

var cmp64 = map[BinaryOp]ewBinKernel[float64, uint8]{
	Less:         vecCmp(ltVV64, ltVS64, gtVS64, ewLtVV[float64], ewLtVS[float64], ewGtVS[float64]),
	LessEqual:    vecCmp(leVV64, leVS64, geVS64, ewLeVV[float64], ewLeVS[float64], ewGeVS[float64]),
	Greater:      vecCmp(gtVV64, gtVS64, ltVS64, func(d []uint8, x, y []float64) { ewLtVV(d, y, x) }, ewGtVS[float64], ewLtVS[float64]),
	GreaterEqual: vecCmp(geVV64, geVS64, leVS64, func(d []uint8, x, y []float64) { ewLeVV(d, y, x) }, ewGeVS[float64], ewLeVS[float64]),
	Equal:        vecCmp(eqVV64, eqVS64, eqVS64, ewEqVV[float64], ewEqVS[float64], ewEqVS[float64]),
	NotEqual:     vecCmp(neVV64, neVS64, neVS64, ewNeVV[float64], ewNeVS[float64], ewNeVS[float64]),
}

// vecCmp64 is the AVX-512 comparison kernel of op on float64, if any.
func vecCmp64(op BinaryOp) (ewBinKernel[float64, uint8], bool) {
	if !hasAVX512 || !cpu.X86.HasAVX512BW || !cpu.X86.HasAVX512VL {
		return ewBinKernel[float64, uint8]{}, false
	}
	k, ok := cmp64[op]
	return k, ok
}

// pairSums writes d[r] = x[2r] + x[2r+1] for the longest multiple-of-8
// prefix of d and says how many it wrote.
func pairSums(d, x []float64) int {
	n := len(d) &^ 7
	if !hasAVX512 || n == 0 {
		return 0
	}
	_ = x[2*n-1]
	pairSums64(&d[0], &x[0], n)
	return n
}

//go:noescape
func negV64(d, x *float64, n int)

//go:noescape
func absV64(d, x *float64, n int)

//go:noescape
func squareV64(d, x *float64, n int)

//go:noescape
func sqrtV64(d, x *float64, n int)

// vecUn wraps a unary assembly loop: the multiple-of-8 prefix in assembly,
// the rest with the generic loop.
func vecUn(asm func(d, x *float64, n int), rest func(d, x []float64)) func(d, x []float64) {
	return func(d, x []float64) {
		n := len(d) &^ 7
		if n > 0 {
			x = x[:len(d)]
			asm(&d[0], &x[0], n)
		}
		if n < len(d) {
			rest(d[n:], x[n:])
		}
	}
}

var un64 = map[UnaryOp]func(d, x []float64){
	Neg:    vecUn(negV64, ewNegLoop[float64]),
	Abs:    vecUn(absV64, ewAbsF64Loop),
	Square: vecUn(squareV64, ewSquareLoop[float64]),
	Sqrt:   vecUn(sqrtV64, ewSqrtLoop[float64]),
	Exp:    expVec,
	Sin:    sinVec,
	Cos:    cosVec,
	Log:    logVec,
	Log2:   log2Vec,
	Log1p:  log1pVec,
}

// vecUnary64 is the AVX-512 loop of a float64 unary op, if there is one.
func vecUnary64(op UnaryOp) (func(d, x []float64), bool) {
	if !hasAVX512 {
		return nil, false
	}
	f, ok := un64[op]
	return f, ok
}

// vecKernel64 is the AVX-512 kernel of op on float64, if there is one.
func vecKernel64(op BinaryOp) (ewBinKernel[float64, float64], bool) {
	if !hasAVX512 {
		return ewBinKernel[float64, float64]{}, false
	}
	k, ok := vec64[op]
	return k, ok
}

// vecKernel32 is the AVX-512 kernel of op on float32, if there is one.
func vecKernel32(op BinaryOp) (ewBinKernel[float32, float32], bool) {
	if !hasAVX512 {
		return ewBinKernel[float32, float32]{}, false
	}
	k, ok := vec32[op]
	return k, ok
}
