package ndarray

// Go side of transc_amd64.s: AVX-512 float64 hypot, arctan2 and arctan,
// bit-identical to ewHypot, ewAtan2 and ewAtan. An assembly loop stops at
// the first block of 8 holding a lane its common path does not cover and
// returns that block's index; the wrappers run the block with the scalar
// loop and resume the assembly after it, so special values cost a scalar
// block each, not the whole slice.

//go:noescape
func hypotVV64(d, x, y *float64, n int) int

//go:noescape
func atan2VV64(d, y, x *float64, n int) int

//go:noescape
func atanV64(d, x *float64, n int) int

// vecBcast is the length of the stack buffer that holds a broadcast scalar
// operand, so the scalar forms run the vector-vector loops.
const vecBcast = 256

func hypotVecVV(d, x, y []float64) {
	x, y = x[:len(d)], y[:len(d)]
	n := len(d) &^ 7
	for i := 0; i < n; {
		i += hypotVV64(&d[i], &x[i], &y[i], n-i)
		if i < n {
			ewHypotVV(d[i:i+8], x[i:i+8], y[i:i+8])
			i += 8
		}
	}
	ewHypotVV(d[n:], x[n:], y[n:])
}

func hypotVecVS(d, x []float64, y float64) {
	var ys [vecBcast]float64
	fillBcast(ys[:], y, len(d))
	for len(d) > 0 {
		m := min(len(d), vecBcast)
		hypotVecVV(d[:m], x[:m], ys[:m])
		d, x = d[m:], x[m:]
	}
}

func hypotVecSV(d []float64, x float64, y []float64) { hypotVecVS(d, y, x) }

func atan2VecVV(d, y, x []float64) {
	y, x = y[:len(d)], x[:len(d)]
	n := len(d) &^ 7
	for i := 0; i < n; {
		i += atan2VV64(&d[i], &y[i], &x[i], n-i)
		if i < n {
			ewAtan2VV(d[i:i+8], y[i:i+8], x[i:i+8])
			i += 8
		}
	}
	ewAtan2VV(d[n:], y[n:], x[n:])
}

func atan2VecVS(d, y []float64, x float64) {
	var xs [vecBcast]float64
	fillBcast(xs[:], x, len(d))
	for len(d) > 0 {
		m := min(len(d), vecBcast)
		atan2VecVV(d[:m], y[:m], xs[:m])
		d, y = d[m:], y[m:]
	}
}

func atan2VecSV(d []float64, y float64, x []float64) {
	var ys [vecBcast]float64
	fillBcast(ys[:], y, len(d))
	for len(d) > 0 {
		m := min(len(d), vecBcast)
		atan2VecVV(d[:m], ys[:m], x[:m])
		d, x = d[m:], x[m:]
	}
}

// fillBcast sets the first min(n, len(b)) elements of b to v.
func fillBcast(b []float64, v float64, n int) {
	b = b[:min(n, len(b))]
	for i := range b {
		b[i] = v
	}
}

func atanVec(d, x []float64) {
	x = x[:len(d)]
	n := len(d) &^ 7
	for i := 0; i < n; {
		i += atanV64(&d[i], &x[i], n-i)
		if i < n {
			ewAtanLoop(d[i:i+8], x[i:i+8])
			i += 8
		}
	}
	ewAtanLoop(d[n:], x[n:])
}

// vecHypot, vecAtan2 and vecAtan are the float64 AVX-512 loops, if the CPU
// has AVX-512.
func vecHypot() (ewBinKernel[float64, float64], bool) {
	return ewBinKernel[float64, float64]{hypotVecVV, hypotVecVS, hypotVecSV}, hasAVX512
}

func vecAtan2() (ewBinKernel[float64, float64], bool) {
	return ewBinKernel[float64, float64]{atan2VecVV, atan2VecVS, atan2VecSV}, hasAVX512
}

func vecAtan() (func(d, x []float64), bool) { return atanVec, hasAVX512 }
