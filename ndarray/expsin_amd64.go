package ndarray

// Go side of expsin_amd64.s: AVX-512 float64 exp, sin and cos,
// bit-identical to ewExp, ewSin and ewCos. As in transc_amd64.go, an
// assembly loop stops at the first block of 8 holding a lane its common
// path does not cover and returns that block's index; the block runs
// scalar and the loop resumes after it.

//go:noescape
func expV64(d, x *float64, n int) int

// sinV64 is sin(x + q*π/2): q 0 for sine, 1 for cosine.
//
//go:noescape
func sinV64(d, x *float64, n int, q uint64) int

// unaryBlocks runs the assembly loop f over whole blocks of 8, and the
// scalar loop g over the blocks f stops at and over the tail.
func unaryBlocks(d, x []float64, f func(d, x *float64, n int) int, g func(d, x []float64)) {
	x = x[:len(d)]
	n := len(d) &^ 7
	for i := 0; i < n; {
		i += f(&d[i], &x[i], n-i)
		if i < n {
			g(d[i:i+8], x[i:i+8])
			i += 8
		}
	}
	g(d[n:], x[n:])
}

func expVec(d, x []float64) { unaryBlocks(d, x, expV64, ewExpLoop) }

func sinVec(d, x []float64) { unaryBlocks(d, x, sinQ0, ewSinLoop) }

func cosVec(d, x []float64) { unaryBlocks(d, x, sinQ1, ewCosLoop) }

func sinQ0(d, x *float64, n int) int { return sinV64(d, x, n, 0) }
func sinQ1(d, x *float64, n int) int { return sinV64(d, x, n, 1) }
