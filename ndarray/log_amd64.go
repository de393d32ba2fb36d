package ndarray

// Go side of log_amd64.s: the AVX-512 float64 log, log2 and log1p loops,
// bit-identical to ewLog, ewLog2 and ewLog1p, run over blocks of 8 as
// expsin_amd64.go's loops are.

//go:noescape
func logV64(d, x *float64, n int) int

//go:noescape
func log2V64(d, x *float64, n int) int

func logVec(d, x []float64) { unaryBlocks(d, x, logV64, ewLogLoop) }

func log2Vec(d, x []float64) { unaryBlocks(d, x, log2V64, ewLog2Loop) }

//go:noescape
func log1pV64(d, x *float64, n int) int

func log1pVec(d, x []float64) { unaryBlocks(d, x, log1pV64, ewLog1pLoop) }
