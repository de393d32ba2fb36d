//go:build !amd64

package ndarray

// Other architectures use the generic loops only.

func vecKernel64(BinaryOp) (ewBinKernel[float64, float64], bool) {
	return ewBinKernel[float64, float64]{}, false
}

func vecKernel32(BinaryOp) (ewBinKernel[float32, float32], bool) {
	return ewBinKernel[float32, float32]{}, false
}

func vecCmp64(BinaryOp) (ewBinKernel[float64, uint8], bool) {
	return ewBinKernel[float64, uint8]{}, false
}

func pairSums(d, x []float64) int { return 0 }

func devSqBlock(x []float64, m float64, r *[8]float64) int { return 0 }

func vecUnary64(UnaryOp) (func(d, x []float64), bool) { return nil, false }

func vecHypot() (ewBinKernel[float64, float64], bool) { return ewBinKernel[float64, float64]{}, false }

func vecAtan2() (ewBinKernel[float64, float64], bool) { return ewBinKernel[float64, float64]{}, false }

func vecAtan() (func(d, x []float64), bool) { return nil, false }
