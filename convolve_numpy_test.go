package phobos_test

import (
	"fmt"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// convolveCases: numpy.convolve and numpy.correlate in every mode, the
// first operand shorter, longer and as long as the second (NumPy swaps and
// reverses there), lengths of 1, complex operands (correlate conjugates
// the second), integers that overflow (both wrap), booleans, mixed dtypes,
// 0-d operands (convolve reads one as one element, correlate refuses it),
// and NumPy's refusals (empty, 2-D, an unknown mode).
func convolveCases() []npCase {
	var cs []npCase
	conv := func(name, fn, mode string, a, v *ndarray.Array) npCase {
		expr := fmt.Sprintf("np.%s(a, v, mode=%q)", fn, mode)
		return npOne(fmt.Sprintf("%s %s %s", fn, mode, name), expr, ins("a", a, "v", v), func(e *npEnv) *tensor.Tensor {
			return tensor.New(ops.Convolve{Mode: mode, Correlate: fn == "correlate"}, e.v("a"), e.v("v"))
		})
	}
	lengths := [][2]int{{1, 1}, {1, 6}, {6, 1}, {7, 3}, {3, 7}, {10, 10}, {23, 5}, {5, 23}, {4, 6}, {6, 4}, {13, 12}}
	for i, l := range lengths {
		a, v := npR(dF64, uint64(1100+i), l[0]), npR(dF64, uint64(1200+i), l[1])
		ca, cv := npC(dC128, uint64(1300+i), l[0]), npC(dC128, uint64(1400+i), l[1])
		name := fmt.Sprintf("%dx%d", l[0], l[1])
		for _, fn := range []string{"convolve", "correlate"} {
			for _, mode := range []string{"full", "same", "valid"} {
				cs = append(cs, conv(name, fn, mode, a, v))
				if i%3 == 0 || l[0] < l[1] {
					cs = append(cs, conv(name+" complex", fn, mode, ca, cv))
				}
			}
		}
	}
	big := npI(dI32, 1500, 1<<28, 1<<30, 17)
	cs = append(cs,
		conv("int32 wraps", "convolve", "full", big, npI(dI32, 1501, 1<<20, 1<<22, 4)),
		conv("int64", "correlate", "same", npI(dI64, 1502, -50, 50, 19), npI(dI64, 1503, -9, 9, 8)),
		conv("uint8 wraps", "convolve", "same", npI(ndarray.Uint8, 1504, 0, 255, 15), npI(ndarray.Uint8, 1505, 0, 255, 5)),
		conv("bool", "convolve", "full", npB(1506, 16), npB(1507, 5)),
		conv("bool", "correlate", "full", npB(1508, 4), npB(1509, 11)),
		conv("float32", "convolve", "full", npR(dF32, 1510, 21), npR(dF32, 1511, 6)),
		conv("int32 float32", "correlate", "valid", npI(dI32, 1512, -9, 9, 14), npR(dF32, 1513, 3)).tol(0, 1e-5, "NumPy sums float64 in its own order"),
		conv("float64 complex64", "correlate", "full", npR(dF64, 1514, 9), npC(ndarray.Complex64, 1515, 4)),
		conv("empty a", "convolve", "full", npR(dF64, 1516, 0), npR(dF64, 1517, 3)).fails(),
		conv("empty v", "correlate", "valid", npR(dF64, 1518, 4), npR(dF64, 1519, 0)).fails(),
		conv("2-D", "convolve", "full", npR(dF64, 1520, 3, 4), npR(dF64, 1521, 2)).fails(),
		conv("bad mode", "convolve", "middle", npR(dF64, 1522, 5), npR(dF64, 1523, 2)).fails(),
		// numpy.convolve reads a 0-d operand as one element; correlate refuses it.
		conv("0-d a", "convolve", "full", npR(dF64, 1524), npR(dF64, 1525, 6)),
		conv("0-d v", "convolve", "same", npI(dI64, 1526, -9, 9, 7), npI(dI64, 1527, -9, 9)),
		conv("0-d both", "convolve", "valid", npR(dF64, 1528), npC(dC128, 1529)),
		conv("0-d", "correlate", "full", npR(dF64, 1530), npR(dF64, 1531, 4)).fails(),
	)
	return cs
}

// TestConvolveNumpyDifferential runs convolveCases against NumPy under
// every chunking, with fusion on and off and on two workers.
func TestConvolveNumpyDifferential(t *testing.T) {
	npSuite(t, "convolve", convolveCases(), npChunkAll, npSuiteModes)
}
