package ndarray

// Go side of log_amd64.s: the AVX-512 float64 log and log2 loops,
// bit-identical to ewLog and ewLog2, run over blocks of 8 as
// expsin_amd64.go's loops are.

//go:noescape
func logV64(d, x *float64, n int) int

//go:noescape
func log2V64(d, x *float64, n int) int

func logVec(d, x []float64) { unaryBlocks(d, x, logV64, ewLogLoop) }

func log2Vec(d, x []float64) { unaryBlocks(d, x, log2V64, ewLog2Loop) }
