package phobos_test

import (
	"context"
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// The cases of the NumPy differential suite (see numpy_diff_test.go). In
// every case the inputs are bound by name in both languages; a Go number in
// a Phobos expression is a Python literal in the NumPy one, since both are
// "weak" scalars under NumPy 1.24's value-based casting.

const (
	dF64 = ndarray.Float64
	dF32 = ndarray.Float32
	dI64 = ndarray.Int64
	dI32 = ndarray.Int32
	dBo  = ndarray.Bool
)

// The shared inputs. Shapes are small and odd (5x7, 4x6x5, 13) so that the
// chunkings cut them unevenly.
var (
	dA     = npQ(dF64, 1, 5, 7) // quarters in [-5, 5]
	dB2    = npR(dF64, 2, 5, 7) // rough values
	dRow   = npQ(dF64, 3, 7)    // broadcasts against 5x7
	dCol   = npQ(dF64, 4, 5, 1) // broadcasts against 7 and 5x7
	dA32   = npQ(dF32, 5, 5, 7) // float32 quarters
	dB32   = npR(dF32, 6, 5, 7) // float32 rough values
	dRow32 = npQ(dF32, 7, 7)    // float32 row
	dI     = npI(dI64, 8, -9, 9, 5, 7)
	dJCol  = npI(dI64, 9, -9, 9, 5, 1) // int64 column, with zeros
	dI32a  = npI(dI32, 10, -9, 9, 5, 7)
	dJ32   = npFill(dI32, 11, []int{5, 7}, func(_ int, r *npLCG) float64 { return float64([]int{-9, -4, -3, -2, -1, 1, 2, 3, 5, 8}[r.next()%10]) })
	dExpI  = npI(dI64, 12, 0, 4, 5, 1) // non-negative integer exponents
	dExp32 = npI(dI32, 13, 0, 4, 5, 7)
	dBool  = npB(14, 5, 7)
	dBoRow = npB(15, 7)
	dPos   = npPos(dF64, 16, 5, 7)
	dPos32 = npPos(dF32, 17, 5, 7)
	dS     = npSpecial(dF64, 18, 5, 7) // with NaN, +Inf, -Inf
	dS32   = npSpecial(dF32, 19, 5, 7)
	dX3    = npQ(dF64, 20, 4, 6, 5)
	dY3    = npR(dF64, 21, 4, 6, 5)
	dI3    = npI(dI64, 22, -9, 9, 4, 6, 5)
	dI323  = npI(dI32, 23, -9, 9, 4, 6, 5)
	dB3    = npB(24, 4, 6, 5)
	dF323  = npQ(dF32, 25, 4, 6, 5)
	dV     = npQ(dF64, 26, 13)
	dV2    = npR(dF64, 27, 13)
	dSm3   = npSmall(dF64, 28, 4, 6, 5)
	dNZ3   = npFill(dF64, 29, []int{4, 6, 5}, func(_ int, r *npLCG) float64 { return []float64{-2, -1.25, -1, -0.5, 0.5, 1, 1.25, 2}[r.next()%8] })
	dSmI3  = npI(dI64, 30, -2, 2, 4, 6, 5)
	dSmI32 = npI(dI32, 31, -2, 2, 4, 6, 5)
	dBig64 = npFill(dI64, 32, []int{5, 7}, func(i int, r *npLCG) float64 {
		return float64(int64(r.next()%2001-1000) * (int64(1) << (20 + i%20)))
	}) // int64 values beyond int32 and float32's exact range
	dZ0    = npFill(dF64, 33, []int{}, func(int, *npLCG) float64 { return -1.75 }) // 0-d
	dZ0i   = npFill(dI64, 34, []int{}, func(int, *npLCG) float64 { return 3 })     // 0-d int64
	dE03   = npQ(dF64, 35, 0, 3)                                                   // empty
	dM57   = npR(dF64, 36, 5, 7)
	dM74   = npR(dF64, 37, 7, 4)
	dBat1  = npR(dF64, 38, 3, 5, 7)
	dBat2  = npR(dF64, 39, 3, 7, 4)
	dRowLo = npQ(dF64, 40, 7)
)

// npCases is the whole table.
func npCases() []npCase {
	var cs []npCase
	for _, part := range [][]npCase{
		npCreationCases(),
		npBinaryCases(),
		npUnaryCases(),
		npScalarCases(),
		npBroadcastCases(),
		npReductionCases(),
		npCumulativeCases(),
		npLinalgCases(),
		npShapeCases(),
		npIndexCases(),
		npCompositeCases(),
		npErrorCases(),
		npExtraCases(),
		npFusionCases(),
		npEmptyAxisCases(),
		npMaskCases(),
		npAssignCases(),
		npSortCases(),
		npPredictCases(),
	} {
		cs = append(cs, part...)
	}
	return cs
}

// tt is shorthand for a list of tensors.
func tt(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }

// npCreationCases: every constructor against np.zeros, np.ones, np.full,
// np.arange, np.linspace, np.eye and np.array; random constructors only for
// shape, dtype and range (their values are checked by
// TestRandomSameSeedAcrossChunkings and ndarray/rng).
func npCreationCases() []npCase {
	one := func(name, expr string, f func(e *npEnv) *tensor.Tensor) npCase { return npOne(name, expr, nil, f) }
	wd := tensor.WithDType
	return []npCase{
		one("zeros 5x7", "np.zeros((5, 7))", func(e *npEnv) *tensor.Tensor { return tensor.Zeros([]int{5, 7}, e.chunks(5, 7)) }),
		one("zeros int32 3-D", "np.zeros((3, 4, 5), np.int32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Zeros([]int{3, 4, 5}, e.chunks(3, 4, 5), wd(dI32))
		}),
		one("zeros 0-d", "np.zeros(())", func(e *npEnv) *tensor.Tensor { return tensor.Zeros(nil, e.chunks()) }),
		one("ones 13", "np.ones(13)", func(e *npEnv) *tensor.Tensor { return tensor.Ones([]int{13}, e.chunks(13)) }),
		one("ones bool", "np.ones((4, 6), bool)", func(e *npEnv) *tensor.Tensor { return tensor.Ones([]int{4, 6}, e.chunks(4, 6), wd(dBo)) }),
		one("ones float32", "np.ones((2, 3, 4), np.float32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Ones([]int{2, 3, 4}, e.chunks(2, 3, 4), wd(dF32))
		}),
		one("ones int64 empty axis", "np.ones((3, 0), np.int64)", func(e *npEnv) *tensor.Tensor {
			return tensor.Ones([]int{3, 0}, e.chunks(3, 0), wd(dI64))
		}),
		one("full 2.5", "np.full(13, 2.5)", func(e *npEnv) *tensor.Tensor { return tensor.Full([]int{13}, 2.5, e.chunks(13)) }),
		one("full int64 -3", "np.full((4, 6), -3, np.int64)", func(e *npEnv) *tensor.Tensor {
			return tensor.Full([]int{4, 6}, -3, e.chunks(4, 6), wd(dI64))
		}),
		one("full float32 0.1", "np.full((5, 7), 0.1, np.float32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Full([]int{5, 7}, 0.1, e.chunks(5, 7), wd(dF32))
		}),
		one("full int32 -7", "np.full((2, 9), -7, np.int32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Full([]int{2, 9}, -7, e.chunks(2, 9), wd(dI32))
		}),
		one("full bool", "np.full((3, 5), True)", func(e *npEnv) *tensor.Tensor { return tensor.Full([]int{3, 5}, 1, e.chunks(3, 5), wd(dBo)) }),
		one("full nan", "np.full((2, 3), np.nan)", func(e *npEnv) *tensor.Tensor { return tensor.Full([]int{2, 3}, npNaN, e.chunks(2, 3)) }),
		one("full 0-d", "np.full((), 7.5)", func(e *npEnv) *tensor.Tensor { return tensor.Full([]int{}, 7.5, e.chunks()) }),
		one("arange 0..10", "np.arange(0.0, 10.0, 1.0)", func(e *npEnv) *tensor.Tensor { return tensor.Arange(0, 10, 1, e.chunks(10)) }),
		one("arange fractional step", "np.arange(-3, 4.5, 0.7)", func(e *npEnv) *tensor.Tensor { return tensor.Arange(-3, 4.5, 0.7, e.chunks(11)) }),
		one("arange negative step", "np.arange(10, -3, -1.5)", func(e *npEnv) *tensor.Tensor { return tensor.Arange(10, -3, -1.5, e.chunks(9)) }),
		one("arange 0..1 by 0.1", "np.arange(0, 1, 0.1)", func(e *npEnv) *tensor.Tensor { return tensor.Arange(0, 1, 0.1, e.chunks(10)) }),
		one("arange int32", "np.arange(2, 23, 3, dtype=np.int32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Arange(2, 23, 3, e.chunks(7), wd(dI32))
		}),
		one("arange int64 negative", "np.arange(5, -20, -4, dtype=np.int64)", func(e *npEnv) *tensor.Tensor {
			return tensor.Arange(5, -20, -4, e.chunks(7), wd(dI64))
		}),
		one("arange empty", "np.arange(5.0, 1.0, 1.0)", func(e *npEnv) *tensor.Tensor { return tensor.Arange(5, 1, 1, e.chunks(0)) }),
		one("arange n", "np.arange(17)", func(e *npEnv) *tensor.Tensor { return tensor.ArangeN(17, e.chunks(17)) }),
		one("arange n float32", "np.arange(9, dtype=np.float32)", func(e *npEnv) *tensor.Tensor { return tensor.ArangeN(9, e.chunks(9), wd(dF32)) }),
		one("linspace 0..1", "np.linspace(0, 1, 11)", func(e *npEnv) *tensor.Tensor { return tensor.Linspace(0, 1, 11, e.chunks(11)) }),
		one("linspace rough", "np.linspace(-2.5, 7, 20)", func(e *npEnv) *tensor.Tensor { return tensor.Linspace(-2.5, 7, 20, e.chunks(20)) }),
		one("linspace descending", "np.linspace(5, 1, 7)", func(e *npEnv) *tensor.Tensor { return tensor.Linspace(5, 1, 7, e.chunks(7)) }),
		one("linspace one", "np.linspace(3, 9, 1)", func(e *npEnv) *tensor.Tensor { return tensor.Linspace(3, 9, 1, e.chunks(1)) }),
		one("linspace thirds", "np.linspace(0.1, 0.7, 13)", func(e *npEnv) *tensor.Tensor { return tensor.Linspace(0.1, 0.7, 13, e.chunks(13)) }),
		one("linspace float32", "np.linspace(0, 1, 9, dtype=np.float32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Linspace(0, 1, 9, e.chunks(9), wd(dF32))
		}),
		one("linspace int64", "np.linspace(0, 10, 7, dtype=np.int64)", func(e *npEnv) *tensor.Tensor {
			return tensor.Linspace(0, 10, 7, e.chunks(7), wd(dI64))
		}),
		one("linspace empty", "np.linspace(0, 1, 0)", func(e *npEnv) *tensor.Tensor { return tensor.Linspace(0, 1, 0, e.chunks(0)) }),
		one("eye 5x7", "np.eye(5, 7)", func(e *npEnv) *tensor.Tensor { return tensor.Eye(5, 7, 0, e.chunks(5, 7)) }),
		one("eye k=-2", "np.eye(6, 4, k=-2)", func(e *npEnv) *tensor.Tensor { return tensor.Eye(6, 4, -2, e.chunks(6, 4)) }),
		one("eye k=1 int32", "np.eye(4, 4, k=1, dtype=np.int32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Eye(4, 4, 1, e.chunks(4, 4), wd(dI32))
		}),
		one("eye k beyond", "np.eye(3, 5, k=7)", func(e *npEnv) *tensor.Tensor { return tensor.Eye(3, 5, 7, e.chunks(3, 5)) }),
		one("eye bool", "np.eye(5, dtype=bool)", func(e *npEnv) *tensor.Tensor { return tensor.Eye(5, 5, 0, e.chunks(5, 5), wd(dBo)) }),
		one("eye k=3 wide", "np.eye(4, 9, k=3, dtype=np.float32)", func(e *npEnv) *tensor.Tensor {
			return tensor.Eye(4, 9, 3, e.chunks(4, 9), wd(dF32))
		}),
		one("from slice ints", "np.array([[3, -1, 0], [7, 2, -8]])", func(e *npEnv) *tensor.Tensor {
			return tensor.FromSlice([]int{3, -1, 0, 7, 2, -8}, []int{2, 3}, e.chunks(2, 3))
		}),
		one("from slice int32", "np.array([5, -6, 7, 2147483647], np.int32)", func(e *npEnv) *tensor.Tensor {
			return tensor.FromSlice([]int32{5, -6, 7, 2147483647}, []int{4}, e.chunks(4))
		}),
		one("from slice float32", "np.array([[0.1, -2.5], [3e38, 1e-40]], np.float32)", func(e *npEnv) *tensor.Tensor {
			return tensor.FromSlice([]float32{0.1, -2.5, 3e38, 1e-40}, []int{2, 2}, e.chunks(2, 2))
		}),
		one("from slice bool", "np.array([True, False, False, True, True])", func(e *npEnv) *tensor.Tensor {
			return tensor.FromSlice([]bool{true, false, false, true, true}, []int{5}, e.chunks(5))
		}),
		one("from slice float64 3-D", "np.arange(24.0).reshape(2, 3, 4) / 8", func(e *npEnv) *tensor.Tensor {
			v := make([]float64, 24)
			for i := range v {
				v[i] = float64(i) / 8
			}
			return tensor.FromSlice(v, []int{2, 3, 4}, e.chunks(2, 3, 4))
		}),
		one("from array as float32", "np.arange(35).reshape(5, 7).astype(np.float32) * 0.5", func(e *npEnv) *tensor.Tensor {
			return tensor.FromArray(npArange(dI64, 5, 7), e.chunks(5, 7), wd(dF32)).Mul(0.5)
		}),
		one("scalar float", "np.float64(2.5)", func(e *npEnv) *tensor.Tensor { return tensor.Scalar(2.5) }).with(npChunkBig),
		one("scalar int", "np.int64(-3)", func(e *npEnv) *tensor.Tensor { return tensor.Scalar(-3) }).with(npChunkBig),
		one("scalar bool", "np.bool_(True)", func(e *npEnv) *tensor.Tensor { return tensor.Scalar(true) }).with(npChunkBig),
		one("scalar arithmetic", "np.float64(2.5) * 4 + 1", func(e *npEnv) *tensor.Tensor { return tensor.Scalar(2.5).Mul(4).Add(1) }).with(npChunkBig),
		npMany("rand shape dtype range", "(np.zeros((5, 7)), True)", nil, func(e *npEnv) []*tensor.Tensor {
			r := tensor.NewGenerator(1).Rand([]int{5, 7}, e.chunks(5, 7))
			return tt(r.Mul(0), r.GreaterEqual(0).And(r.Less(1)).All())
		}),
		npMany("rand float32", "(np.zeros((6, 4), np.float32), True)", nil, func(e *npEnv) []*tensor.Tensor {
			r := tensor.NewGenerator(2).Rand([]int{6, 4}, e.chunks(6, 4), wd(dF32))
			return tt(r.Mul(0), r.GreaterEqual(0).And(r.Less(1)).All())
		}),
		npMany("randn moments", "(np.zeros((40, 50)), True, True, True)", nil, func(e *npEnv) []*tensor.Tensor {
			r := tensor.NewGenerator(3).Randn([]int{40, 50}, e.chunks(40, 50))
			return tt(r.Mul(0), r.IsFinite().All(), r.Mean().Abs().Less(0.1), r.Std().Sub(1).Abs().Less(0.1))
		}).with(npChunkFew...),
		npMany("uniform range", "(np.zeros((9, 11)), True, True)", nil, func(e *npEnv) []*tensor.Tensor {
			r := tensor.NewGenerator(4).Uniform(-2, 3, []int{9, 11}, e.chunks(9, 11))
			return tt(r.Mul(0), r.GreaterEqual(-2).And(r.Less(3)).All(), r.Min().Less(-1.5).And(r.Max().Greater(2.5)))
		}),
		npMany("normal moments", "(np.zeros(3000), True, True)", nil, func(e *npEnv) []*tensor.Tensor {
			r := tensor.NewGenerator(5).Normal(5, 0.5, []int{3000}, e.chunks(3000))
			return tt(r.Mul(0), r.Mean().Sub(5).Abs().Less(0.05), r.Std().Sub(0.5).Abs().Less(0.05))
		}).with(npChunkFew...),
		npMany("randint range", "(np.zeros((20, 30), np.int64), np.int64(-3), np.int64(3))", nil, func(e *npEnv) []*tensor.Tensor {
			r := tensor.NewGenerator(6).RandInt(-3, 4, []int{20, 30}, e.chunks(20, 30))
			return tt(r.Mul(0), r.Min(), r.Max())
		}).with(npChunkFew...),
		npMany("randint int32", "(np.zeros((7, 9), np.int32), True)", nil, func(e *npEnv) []*tensor.Tensor {
			r := tensor.NewGenerator(7).RandInt(100, 110, []int{7, 9}, e.chunks(7, 9), wd(dI32))
			return tt(r.Mul(0), r.GreaterEqual(100).And(r.Less(110)).All())
		}),
		one("generator streams differ", "True", func(e *npEnv) *tensor.Tensor {
			g := tensor.NewGenerator(8)
			a, b := g.Rand([]int{5, 7}, e.chunks(5, 7)), g.Rand([]int{5, 7}, e.chunks(5, 7))
			return a.NotEqual(b).All()
		}),
	}
}

// npBin is a binary function and its NumPy spelling (x and y bound).
type npBin struct {
	name string
	py   string
	f    func(x, y any) *tensor.Tensor
}

var npBins = []npBin{
	{"add", "x + y", tensor.Add},
	{"subtract", "x - y", tensor.Sub},
	{"multiply", "x * y", tensor.Mul},
	{"true_divide", "x / y", tensor.Div},
	{"floor_divide", "x // y", tensor.FloorDiv},
	{"remainder", "x % y", tensor.Mod},
	{"power", "x ** y", tensor.Pow},
	{"maximum", "np.maximum(x, y)", tensor.Maximum},
	{"minimum", "np.minimum(x, y)", tensor.Minimum},
	{"less", "x < y", tensor.Less},
	{"less_equal", "x <= y", tensor.LessEqual},
	{"greater", "x > y", tensor.Greater},
	{"greater_equal", "x >= y", tensor.GreaterEqual},
	{"equal", "x == y", tensor.Equal},
	{"not_equal", "x != y", tensor.NotEqual},
	{"logical_and", "np.logical_and(x, y)", tensor.And},
	{"logical_or", "np.logical_or(x, y)", tensor.Or},
	{"logical_xor", "np.logical_xor(x, y)", tensor.Xor},
}

// npBinaryCases: every binary function for every dtype NumPy accepts it
// for, with different operand shapes per dtype (same shape, row, column),
// and mixed-dtype pairs for the promotion table.
func npBinaryCases() []npCase {
	type operands struct {
		dt         string
		x, y, ypow *ndarray.Array
		skip       map[string]bool
	}
	sets := []operands{
		{"float64", dA, dB2, dA, nil},                              // same shape; rough y
		{"float32", dA32, dRow32, dRow32, nil},                     // y broadcasts as a row, has zeros
		{"int64", dI, dJCol, dExpI, nil},                           // y broadcasts as a column, has zeros (NumPy gives 0)
		{"int32", dI32a, dJ32, dExp32, nil},                        // y non-zero
		{"float64 specials", dS, dA, npSmall(dF64, 41, 5, 7), nil}, // NaN and infinities
		// bool: NumPy rejects subtract and gives int8 for //, % and **.
		{"bool", dBool, dBoRow, dBoRow, map[string]bool{"subtract": true, "floor_divide": true, "remainder": true, "power": true}},
	}
	var cs []npCase
	for _, s := range sets {
		for _, b := range npBins {
			if s.skip[b.name] {
				continue
			}
			y := s.y
			if b.name == "power" {
				y = s.ypow
			}
			c := npOne(fmt.Sprintf("%s %s", b.name, s.dt), b.py, ins("x", s.x, "y", y), func(e *npEnv) *tensor.Tensor {
				return b.f(e.v("x"), e.v("y"))
			})
			if s.dt == "float64" || s.dt == "float64 specials" || s.dt == "int64" {
				c = c.with(npChunkAll...)
			} else {
				c = c.with(npChunkOdd, npChunkIrr)
			}
			if b.name == "power" && (s.dt == "float64" || s.dt == "float64 specials") {
				c = c.alsoWorkers()
			}
			cs = append(cs, c)
		}
	}
	mixed := []struct {
		name string
		b    npBin
		x, y *ndarray.Array
	}{
		{"int32 + float32 -> float64", npBins[0], dI32a, dA32},
		{"int32 * int64 -> int64", npBins[2], dI32a, dI},
		{"bool + int32 -> int32", npBins[0], dBool, dI32a},
		{"float32 - float64 -> float64", npBins[1], dA32, dB2},
		{"int64 / float32 -> float64", npBins[3], dI, dRow32},
		{"bool * float32 -> float32", npBins[2], dBool, dB32},
		{"int32 < float64", npBins[9], dI32a, dRow},
		{"maximum int64 float64", npBins[7], dI, dA},
		{"int32 // int64", npBins[4], dI32a, dJCol},
		{"float32 ** int32 -> float64", npBins[6], dRow32, dExp32},
		{"logical_and int32 float64", npBins[15], dI32a, dA},
		{"int32 % float32 -> float64", npBins[5], dI32a, dRow32},
		{"bool == int64", npBins[13], dBoRow, dJCol},
		{"minimum bool float64", npBins[8], dBool, dS},
	}
	for _, m := range mixed {
		cs = append(cs, npOne("mixed "+m.name, m.b.py, ins("x", m.x, "y", m.y), func(e *npEnv) *tensor.Tensor {
			return m.b.f(e.v("x"), e.v("y"))
		}).with(npChunkOdd, npChunkIrr, npChunk1))
	}
	return cs
}

// npNaN is a NaN for the tables.
var npNaN = math.NaN()

// npUn is a unary method and its NumPy spelling (x bound).
type npUn struct {
	name string
	py   string
	f    func(x *tensor.Tensor) *tensor.Tensor
	bool bool // NumPy accepts (and keeps Phobos's dtypes for) bool input
}

var npUns = []npUn{
	{"negative", "-x", (*tensor.Tensor).Neg, false},
	{"absolute", "np.abs(x)", (*tensor.Tensor).Abs, true},
	{"sign", "np.sign(x)", (*tensor.Tensor).Sign, false},
	{"sqrt", "np.sqrt(x)", (*tensor.Tensor).Sqrt, false},
	{"square", "np.square(x)", (*tensor.Tensor).Square, false},
	{"exp", "np.exp(x)", (*tensor.Tensor).Exp, false},
	{"log", "np.log(x)", (*tensor.Tensor).Log, false},
	{"log1p", "np.log1p(x)", (*tensor.Tensor).Log1p, false},
	{"sin", "np.sin(x)", (*tensor.Tensor).Sin, false},
	{"cos", "np.cos(x)", (*tensor.Tensor).Cos, false},
	{"tan", "np.tan(x)", (*tensor.Tensor).Tan, false},
	{"tanh", "np.tanh(x)", (*tensor.Tensor).Tanh, false},
	{"floor", "np.floor(x)", (*tensor.Tensor).Floor, false},
	{"ceil", "np.ceil(x)", (*tensor.Tensor).Ceil, false},
	{"round", "np.round(x)", (*tensor.Tensor).Round, false},
	{"isnan", "np.isnan(x)", (*tensor.Tensor).IsNaN, true},
	{"isfinite", "np.isfinite(x)", (*tensor.Tensor).IsFinite, true},
	{"logical_not", "np.logical_not(x)", (*tensor.Tensor).Not, true},
}

// npUnaryCases: every unary method for every dtype (bool only where NumPy
// keeps a Phobos dtype: it makes float16 or int8 of the others), and every
// astype conversion.
func npUnaryCases() []npCase {
	type input struct {
		dt  string
		x   *ndarray.Array
		cks []npChunking
	}
	inputs := []input{
		{"float64 specials", dS, npChunkAll},
		{"float64 positive", dPos, []npChunking{npChunkOdd}},
		{"float32 specials", dS32, []npChunking{npChunkOdd, npChunkIrr}},
		{"float32 positive", dPos32, []npChunking{npChunkIrr}},
		{"int64", dI, []npChunking{npChunkOdd, npChunk1}},
		{"int32", dI32a, []npChunking{npChunkIrr, npChunkBig}},
		{"bool", dBool, []npChunking{npChunkOdd, npChunkIrr}},
	}
	var cs []npCase
	for _, in := range inputs {
		for _, u := range npUns {
			if in.dt == "bool" && !u.bool {
				continue
			}
			if in.dt == "float64 positive" || in.dt == "float32 positive" {
				switch u.name {
				case "sqrt", "log", "log1p", "exp":
				default:
					continue
				}
			}
			cs = append(cs, npOne(u.name+" "+in.dt, u.py, ins("x", in.x), func(e *npEnv) *tensor.Tensor {
				return u.f(e.v("x"))
			}).with(in.cks...))
		}
	}
	// astype: every pair of dtypes. Floats truncate toward zero; int64
	// wraps into int32 and rounds into float32; NaN is true.
	type src struct {
		dt string
		x  *ndarray.Array
	}
	srcs := []src{{"float64", dA}, {"float64 specials", dS}, {"float32", dB32}, {"int64", dBig64}, {"int32", dI32a}, {"bool", dBool}}
	dts := []struct {
		dt ndarray.DType
		py string
	}{{dF64, "np.float64"}, {dF32, "np.float32"}, {dI64, "np.int64"}, {dI32, "np.int32"}, {dBo, "bool"}}
	for _, s := range srcs {
		for _, d := range dts {
			if s.dt == "float64 specials" && d.dt != dBo {
				continue // NaN and infinities have no integer value; NumPy's result is undefined
			}
			cs = append(cs, npOne("astype "+s.dt+" to "+d.dt.String(), "x.astype("+d.py+")", ins("x", s.x), func(e *npEnv) *tensor.Tensor {
				return e.v("x").Astype(d.dt)
			}).with(npChunkOdd, npChunkIrr))
		}
	}
	return cs
}

// npScalarCases: Go numbers as NumPy scalars, under NumPy 1.24's
// value-based casting: a scalar of a kind no higher than the array's takes
// the array's dtype (if its value fits), else its own default type.
func npScalarCases() []npCase {
	f := func(name, expr string, x *ndarray.Array, g func(x *tensor.Tensor) *tensor.Tensor) npCase {
		return npOne("scalar "+name, expr, ins("x", x), func(e *npEnv) *tensor.Tensor { return g(e.v("x")) }).with(npChunkOdd, npChunkIrr)
	}
	return []npCase{
		f("int32 + 3 stays int32", "x + 3", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(3) }),
		f("int32 + 2.5 -> float64", "x + 2.5", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(2.5) }),
		f("float32 * 2.0 stays float32", "x * 2.0", dB32, func(x *tensor.Tensor) *tensor.Tensor { return x.Mul(2.0) }),
		f("float32 + 7 stays float32", "x + 7", dA32, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(7) }),
		f("int32 + 2**40 -> int64", "x + 2**40", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(int64(1) << 40) }),
		f("int32 * 2**31 -> int64", "x * 2**31", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Mul(int64(1) << 31) }),
		f("int32 + -2**31 wraps in int32", "x + (-2**31)", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(-(int64(1) << 31)) }),
		f("bool + 1 -> int64", "x + 1", dBool, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(1) }),
		f("bool + True stays bool", "x + True", dBool, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(true) }),
		f("bool and True", "np.logical_and(x, True)", dBool, func(x *tensor.Tensor) *tensor.Tensor { return x.And(true) }),
		f("bool * 2.5 -> float64", "x * 2.5", dBool, func(x *tensor.Tensor) *tensor.Tensor { return x.Mul(2.5) }),
		f("int64 / 2 -> float64", "x / 2", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Div(2) }),
		f("int32 // -3 stays int32", "x // -3", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.FloorDiv(-3) }),
		f("int32 % 4 stays int32", "x % 4", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Mod(4) }),
		f("float64 % -1.5", "x % -1.5", dS, func(x *tensor.Tensor) *tensor.Tensor { return x.Mod(-1.5) }),
		f("float32 ** 2 stays float32", "x ** 2", dB32, func(x *tensor.Tensor) *tensor.Tensor { return x.Pow(2) }),
		f("int32 ** 3 stays int32", "x ** 3", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Pow(3) }),
		f("2.0 ** int32 -> float64", "2.0 ** x", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return tensor.Pow(2.0, x) }),
		f("3 - int32", "3 - x", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return tensor.Sub(3, x) }),
		f("1.5 / float32", "1.5 / x", dA32, func(x *tensor.Tensor) *tensor.Tensor { return tensor.Div(1.5, x) }),
		f("int32 < 2.5", "x < 2.5", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Less(2.5) }),
		f("float32 == 0.25", "x == 0.25", dA32, func(x *tensor.Tensor) *tensor.Tensor { return x.Equal(0.25) }),
		f("maximum int64 0", "np.maximum(x, 0)", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Maximum(0) }),
		f("minimum float64 nan", "np.minimum(x, np.nan)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Minimum(npNaN) }),
		f("int32 + Go float32 1.5 -> float64", "x + 1.5", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(float32(1.5)) }),
		f("int64 + Go int32 5", "x + 5", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(int32(5)) }),
		f("int32 xor 0", "np.logical_xor(x, 0)", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Xor(0) }),
		// NumPy 1.24: 1e300 does not fit float32, so the result is float64.
		f("float32 + 1e300 -> float64", "x + 1e300", dA32, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(1e300) }),
		// An int64 scalar beyond 2**53 must keep every bit.
		f("int64 + 2**53+1 exact", "x + (2**53 + 1)", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(int64(1)<<53 + 1) }),
		npOne("scalar where int32 or 0", "np.where(c, x, 0)", ins("c", dBool, "x", dI32a), func(e *npEnv) *tensor.Tensor {
			return tensor.Where(e.v("c"), e.v("x"), 0)
		}),
		f("clip int32 0 5", "np.clip(x, 0, 5)", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Clip(0, 5) }),
		f("clip float32 -1.5 2", "np.clip(x, -1.5, 2)", dA32, func(x *tensor.Tensor) *tensor.Tensor { return x.Clip(-1.5, 2) }),
		f("clip int32 0.5 3 -> float64", "np.clip(x, 0.5, 3)", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Clip(0.5, 3) }),
		f("clip lo above hi", "np.clip(x, 3, -1)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Clip(3, -1) }),
		f("clip nan passes", "np.clip(x, -1, 1)", dS, func(x *tensor.Tensor) *tensor.Tensor { return x.Clip(-1, 1) }),
		npOne("scalar where float32 or 1.5", "np.where(c, x, 1.5)", ins("c", dBool, "x", dA32), func(e *npEnv) *tensor.Tensor {
			return tensor.Where(e.v("c"), e.v("x"), 1.5)
		}),
		npOne("scalar where 1 or 2.5", "np.where(c, 1, 2.5)", ins("c", dBoRow), func(e *npEnv) *tensor.Tensor {
			return tensor.Where(e.v("c"), 1, 2.5)
		}),
		npOne("scalar where int cond", "np.where(c, x, -x)", ins("c", dI32a, "x", dA), func(e *npEnv) *tensor.Tensor {
			return tensor.Where(e.v("c"), e.v("x"), e.v("x").Neg())
		}),
		npOne("scalar only add", "np.add(2, 3)", nil, func(e *npEnv) *tensor.Tensor { return tensor.Add(2, 3) }).with(npChunkBig),
		npOne("scalar only true * 2.5", "np.multiply(True, 2.5)", nil, func(e *npEnv) *tensor.Tensor { return tensor.Mul(true, 2.5) }).with(npChunkBig),
		npOne("scalar 0-d int64 array * int64", "z * x", ins("z", dZ0i, "x", dI), func(e *npEnv) *tensor.Tensor {
			return e.v("z").Mul(e.v("x"))
		}),
		npOne("scalar 0-d float64 array - float64", "x - z", ins("x", dA, "z", dZ0), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Sub(e.v("z"))
		}),
	}
}

// More inputs for broadcasting.
var (
	d415  = npQ(dF64, 42, 4, 1, 5)
	d61   = npR(dF64, 43, 6, 1)
	d17   = npQ(dF64, 44, 1, 7)
	d11   = npFill(dF64, 45, []int{1, 1}, func(int, *npLCG) float64 { return 0.75 })
	d5    = npQ(dF64, 46, 5)
	d2131 = npR(dF64, 47, 2, 1, 3, 1)
	dC32  = npI(dI32, 49, -9, 9, 5, 1)
	dBCol = npB(50, 5, 1)
	d314  = npQ(dF64, 51, 3, 1, 4)
	d151  = npR(dF64, 52, 1, 5, 1)
)

// npBroadcastCases: operands of different shapes (row against column,
// against 0-d and 1x1, 3-D and 4-D with length-1 axes on both sides).
func npBroadcastCases() []npCase {
	b := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		return npOne("broadcast "+name, expr, in, f)
	}
	return []npCase{
		b("column + row", "c + r", ins("c", dCol, "r", dRow), func(e *npEnv) *tensor.Tensor { return e.v("c").Add(e.v("r")) }).alsoWorkers(),
		b("(4,1,5) * (6,1)", "x * y", ins("x", d415, "y", d61), func(e *npEnv) *tensor.Tensor { return e.v("x").Mul(e.v("y")) }),
		b("(1,7) - (5,1)", "x - y", ins("x", d17, "y", dCol), func(e *npEnv) *tensor.Tensor { return e.v("x").Sub(e.v("y")) }),
		b("0-d + matrix", "z + x", ins("z", dZ0, "x", dA), func(e *npEnv) *tensor.Tensor { return e.v("z").Add(e.v("x")) }),
		b("matrix / 1x1", "x / o", ins("x", dB2, "o", d11), func(e *npEnv) *tensor.Tensor { return e.v("x").Div(e.v("o")) }),
		b("where row, column, scalar", "np.where(c, x, -1.0)", ins("c", dBoRow, "x", dCol), func(e *npEnv) *tensor.Tensor {
			return tensor.Where(e.v("c"), e.v("x"), -1.0)
		}),
		b("where column cond, 3-D, row", "np.where(c.reshape(5), x, y)", ins("c", dBCol, "x", dX3, "y", d5), func(e *npEnv) *tensor.Tensor {
			return tensor.Where(e.v("c").Reshape(5), e.v("x"), e.v("y"))
		}),
		b("maximum 3-D and row", "np.maximum(x, y)", ins("x", dX3, "y", d5), func(e *npEnv) *tensor.Tensor { return e.v("x").Maximum(e.v("y")) }),
		b("column < row", "c < r", ins("c", dCol, "r", dRow), func(e *npEnv) *tensor.Tensor { return e.v("c").Less(e.v("r")) }),
		b("4-D (2,1,3,1) + (4,1,5)", "x + y", ins("x", d2131, "y", d415), func(e *npEnv) *tensor.Tensor { return e.v("x").Add(e.v("y")) }),
		b("int32 column * float32 row", "c * r", ins("c", dC32, "r", dRow32), func(e *npEnv) *tensor.Tensor { return e.v("c").Mul(e.v("r")) }),
		b("bool column or bool row", "np.logical_or(c, r)", ins("c", dBCol, "r", dBoRow), func(e *npEnv) *tensor.Tensor { return e.v("c").Or(e.v("r")) }),
		b("clip with row and column bounds", "np.clip(x, lo, hi)", ins("x", dA, "lo", dRowLo, "hi", dCol), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Clip(e.v("lo"), e.v("hi"))
		}),
		b("(3,1,4) + (1,5,1)", "x + y", ins("x", d314, "y", d151), func(e *npEnv) *tensor.Tensor { return e.v("x").Add(e.v("y")) }),
		b("int64 column ** int64 row", "c ** r", ins("c", dJCol, "r", npI(dI64, 53, 0, 3, 7)), func(e *npEnv) *tensor.Tensor {
			return e.v("c").Pow(e.v("r"))
		}),
		// NumPy 1.24 casts a 0-d array meeting n-d arrays by kind (value-based
		// casting): float32 x - float64 0-d stays float32; a 1-element array
		// does not get that treatment and promotes.
		b("float32 3-D - float64 0-d", "x - z", ins("x", dF323, "z", dZ0), func(e *npEnv) *tensor.Tensor { return e.v("x").Sub(e.v("z")) }),
		b("float32 3-D - float64 1-element", "x - z.reshape(1)", ins("x", dF323, "z", dZ0), func(e *npEnv) *tensor.Tensor { return e.v("x").Sub(e.v("z").Reshape(1)) }),
		b("int32 3-D * int64 0-d", "x * z", ins("x", npI(dI32, 3, -50, 50, 4, 5, 6), "z", npI(dI64, 11, -9, 9)), func(e *npEnv) *tensor.Tensor { return e.v("x").Mul(e.v("z")) }),
	}
}

// npRed is a reduction method and its NumPy name.
type npRed struct {
	name string
	f    func(x *tensor.Tensor, opts ...tensor.ReduceOption) *tensor.Tensor
}

var npReds = []npRed{
	{"sum", (*tensor.Tensor).Sum},
	{"prod", (*tensor.Tensor).Prod},
	{"min", (*tensor.Tensor).Min},
	{"max", (*tensor.Tensor).Max},
	{"mean", (*tensor.Tensor).Mean},
	{"var", (*tensor.Tensor).Var},
	{"std", (*tensor.Tensor).Std},
	{"any", (*tensor.Tensor).Any},
	{"all", (*tensor.Tensor).All},
	{"count_nonzero", (*tensor.Tensor).CountNonzero},
}

// npAxes is an axis selection in both languages.
type npAxes struct {
	py   string // the NumPy keyword arguments, "" for none
	opts []tensor.ReduceOption
}

func npAx(keep bool, axes ...int) npAxes {
	var a npAxes
	switch len(axes) {
	case 0:
	case 1:
		a.py = fmt.Sprintf("axis=%d", axes[0])
	default:
		s := "axis=("
		for i, ax := range axes {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprint(ax)
		}
		a.py = s + ")"
	}
	if len(axes) > 0 {
		a.opts = append(a.opts, tensor.Axis(axes...))
	}
	if keep {
		if a.py != "" {
			a.py += ", "
		}
		a.py += "keepdims=True"
		a.opts = append(a.opts, tensor.KeepDims())
	}
	return a
}

// npRedExpr is NumPy's spelling of reduction fn of x with the given arguments.
func npRedExpr(fn, x, args string) string {
	if fn == "count_nonzero" {
		if args == "" {
			return "np.count_nonzero(" + x + ")"
		}
		return "np.count_nonzero(" + x + ", " + args + ")"
	}
	return x + "." + fn + "(" + args + ")"
}

// npReductionCases: every reduction over every kind of axis selection
// (none, one, negative, several, all, keepdims) on 3-D float64, for every
// dtype on 2-D, with NaN and infinities, ddof, argmin/argmax with ties,
// empty arrays and axis=().
func npReductionCases() []npCase {
	var cs []npCase
	// 3-D float64: the axis selections.
	axes := []npAxes{npAx(false), npAx(false, 0), npAx(false, -1), npAx(true, 1), npAx(false, 0, 2), npAx(true, -1, -3), npAx(false, 0, 1, 2)}
	for _, r := range npReds {
		x := dX3 // quarters: sums are exact whatever the order
		switch r.name {
		case "prod":
			x = dNZ3 // no zeros, no overflow
		case "min", "max", "var", "std":
			x = dY3
		}
		for ai, a := range axes {
			if r.name == "count_nonzero" && ai == 6 {
				continue
			}
			c := npOne(fmt.Sprintf("%s 3-D (%s)", r.name, a.py), npRedExpr(r.name, "x", a.py), ins("x", x), func(e *npEnv) *tensor.Tensor {
				return r.f(e.v("x"), a.opts...)
			})
			if ai%2 == 1 {
				c = c.with(npChunkFew...)
			}
			if r.name == "var" || r.name == "std" {
				c = c.alsoWorkers()
			}
			cs = append(cs, c)
		}
	}
	// Every dtype on 2-D, over all and over axis 1 with keepdims.
	type src struct {
		dt string
		x  *ndarray.Array
	}
	srcs := []src{{"int64", dI}, {"int32", dI32a}, {"bool", dBool}, {"float32", dA32}, {"float64 specials", dS}}
	for _, s := range srcs {
		for _, r := range npReds {
			for _, a := range []npAxes{npAx(false), npAx(true, 1)} {
				c := npOne(fmt.Sprintf("%s %s (%s)", r.name, s.dt, a.py), npRedExpr(r.name, "x", a.py), ins("x", s.x), func(e *npEnv) *tensor.Tensor {
					return r.f(e.v("x"), a.opts...)
				}).with(npChunkOdd, npChunkIrr)
				cs = append(cs, c)
			}
		}
	}
	red := func(name, expr string, x *ndarray.Array, f func(x *tensor.Tensor) *tensor.Tensor) npCase {
		return npOne(name, expr, ins("x", x), func(e *npEnv) *tensor.Tensor { return f(e.v("x")) })
	}
	cs = append(cs,
		red("sum rough 3-D axis 1", "x.sum(axis=1)", dY3, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(1)) }).
			tol(1e-12, 1e-13, "sums of rough values cancel: chunked and pairwise summation round differently near 0"),
		red("sum rough float32", "x.sum(axis=0)", dB32, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(0)) }).
			tol(1e-5, 1e-5, "float32 sums of rough values cancel: chunked and pairwise summation round differently near 0"),
		red("mean rough", "x.mean()", dY3, func(x *tensor.Tensor) *tensor.Tensor { return x.Mean() }).
			tol(1e-12, 1e-14, "a sum of rough values near 0 rounds differently in another order"),
		red("var ddof=1 axis 0", "x.var(axis=0, ddof=1)", dY3, func(x *tensor.Tensor) *tensor.Tensor { return x.Var(tensor.Axis(0), tensor.DDof(1)) }),
		red("std ddof=2 axes (0, 2)", "x.std(axis=(0, 2), ddof=2)", dY3, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Std(tensor.Axis(0, 2), tensor.DDof(2))
		}),
		red("var ddof=5 of 5 rows", "x.var(axis=0, ddof=5)", dB2, func(x *tensor.Tensor) *tensor.Tensor { return x.Var(tensor.Axis(0), tensor.DDof(5)) }),
		red("var ddof=1 int32 keepdims", "x.var(axis=-1, ddof=1, keepdims=True)", dI32a, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Var(tensor.Axis(-1), tensor.DDof(1), tensor.KeepDims())
		}),
		red("std float32 ddof=1", "x.std(ddof=1)", dB32, func(x *tensor.Tensor) *tensor.Tensor { return x.Std(tensor.DDof(1)) }),
		red("var large offset", "(x + 1e6).var(axis=1)", dB2, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(1e6).Var(tensor.Axis(1)) }).
			tol(1e-9, 0, "variance of values offset by 1e6: the deviations lose ~12 bits to the offset in any algorithm"),
		// Centred moments: (x - x.mean(axes)).var(axes) is built as
		// x.var(axes) (tensor's centredMoments); the forms it must leave
		// alone are here too.
		red("centred std axis 0", "(x - x.mean(axis=0)).std(axis=0)", dY3, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Sub(x.Mean(tensor.Axis(0))).Std(tensor.Axis(0))
		}),
		red("centred var axes (0, 1) ddof=1", "(x - x.mean(axis=(0, 1))).var(axis=(0, 1), ddof=1)", dY3, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Sub(x.Mean(tensor.Axis(0, 1))).Var(tensor.Axis(0, 1), tensor.DDof(1))
		}),
		red("centred std axis 2 keepdims", "(x - x.mean(axis=2, keepdims=True)).std(axis=2)", dY3, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Sub(x.Mean(tensor.Axis(2), tensor.KeepDims())).Std(tensor.Axis(2))
		}),
		red("centred std of specials", "(x - x.mean()).std()", dS, func(x *tensor.Tensor) *tensor.Tensor { return x.Sub(x.Mean()).Std() }),
		red("centred std of specials axis 0", "(x - x.mean(axis=0)).std(axis=0)", dS, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Sub(x.Mean(tensor.Axis(0))).Std(tensor.Axis(0))
		}),
		red("centred std float32", "(x - x.mean(axis=0)).std(axis=0)", dB32, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Sub(x.Mean(tensor.Axis(0))).Std(tensor.Axis(0))
		}).tol(1e-5, 1e-6, "float32: the mean rounds, and the deviations from it with it"),
		red("centred var large offset", "(x + 1e6 - (x + 1e6).mean(axis=1, keepdims=True)).var(axis=1)", dB2, func(x *tensor.Tensor) *tensor.Tensor {
			y := x.Add(1e6)
			return y.Sub(y.Mean(tensor.Axis(1), tensor.KeepDims())).Var(tensor.Axis(1))
		}).tol(1e-9, 0, "variance of values offset by 1e6: the deviations lose ~12 bits to the offset in any algorithm"),
		red("row means broadcast across columns are not centring", "(x - x.mean(axis=1)).var(axis=1)", npR(dF64, 41, 6, 6), func(x *tensor.Tensor) *tensor.Tensor {
			return x.Sub(x.Mean(tensor.Axis(1))).Var(tensor.Axis(1))
		}),
		red("another tensor's mean is not centring", "(x - (x * 2).mean(axis=0)).var(axis=0)", dY3, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Sub(x.Mul(2).Mean(tensor.Axis(0))).Var(tensor.Axis(0))
		}),
		red("prod int32 overflow wraps", "x.prod()", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Prod() }),
		red("prod int64 3-D axis (0, 1)", "x.prod(axis=(0, 1))", dSmI3, func(x *tensor.Tensor) *tensor.Tensor { return x.Prod(tensor.Axis(0, 1)) }),
		red("sum int64 big", "x.sum(axis=0)", dBig64, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(0)) }),
		red("sum bool 3-D axis -2", "x.sum(axis=-2)", dB3, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(-2)) }),
		red("mean int32 3-D axes (1, 2)", "x.mean(axis=(1, 2))", dI323, func(x *tensor.Tensor) *tensor.Tensor { return x.Mean(tensor.Axis(1, 2)) }),
		red("mean float32 3-D axis 0", "x.mean(axis=0)", dF323, func(x *tensor.Tensor) *tensor.Tensor { return x.Mean(tensor.Axis(0)) }),
		red("max 1-D", "x.max()", dV, func(x *tensor.Tensor) *tensor.Tensor { return x.Max() }),
		red("min int32 3-D axis 2 keepdims", "x.min(axis=2, keepdims=True)", dI323, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Min(tensor.Axis(2), tensor.KeepDims())
		}),
		red("any bool 3-D axes (0, 2)", "x.any(axis=(0, 2))", dB3, func(x *tensor.Tensor) *tensor.Tensor { return x.Any(tensor.Axis(0, 2)) }),
		red("all float32 axis 0", "x.all(axis=0)", dA32, func(x *tensor.Tensor) *tensor.Tensor { return x.All(tensor.Axis(0)) }),
		red("count_nonzero int64 3-D axes (-1, 0)", "np.count_nonzero(x, axis=(-1, 0))", dI3, func(x *tensor.Tensor) *tensor.Tensor {
			return x.CountNonzero(tensor.Axis(-1, 0))
		}),
		red("sum 0-d", "x.sum()", dZ0, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum() }),
		red("sum axis=() int32", "x.sum(axis=())", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis()) }),
		red("var axis=() is zero", "x.var(axis=())", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Var(tensor.Axis()) }),
		red("count_nonzero axis=()", "np.count_nonzero(x, axis=())", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.CountNonzero(tensor.Axis()) }),
		red("sum empty axis 0", "x.sum(axis=0)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(0)) }),
		red("sum empty axis 1", "x.sum(axis=1)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(1)) }),
		red("prod empty", "x.prod(axis=0)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.Prod(tensor.Axis(0)) }),
		red("max empty along kept axis", "x.max(axis=1)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.Max(tensor.Axis(1)) }),
		red("mean empty is nan", "x.mean(axis=0)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.Mean(tensor.Axis(0)) }),
		red("any empty", "x.any(axis=0)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.Any(tensor.Axis(0)) }),
		red("all empty", "x.all(axis=0)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.All(tensor.Axis(0)) }),
		red("count_nonzero empty", "np.count_nonzero(x)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.CountNonzero() }),
	)
	// argmin and argmax: ties (first index wins), NaN (first NaN wins),
	// every dtype, with and without an axis.
	args := []struct {
		dt   string
		x    *ndarray.Array
		axis []int
		keep bool
	}{
		{"float64 ties", dA, nil, false},
		{"float64 ties", dA, []int{0}, false},
		{"float64 ties", dA, []int{1}, false},
		{"float64 ties", dA, []int{-1}, true},
		{"float64 nan", dS, nil, false},
		{"float64 nan", dS, []int{1}, false},
		{"int64", dI, []int{0}, false},
		{"int32", dI32a, nil, false},
		{"bool", dBool, []int{1}, false},
		{"bool", dBool, nil, false},
		{"float32", dA32, []int{0}, true},
		{"3-D", dX3, []int{1}, false},
		{"3-D", dY3, nil, false},
		{"3-D", dI3, []int{-3}, false},
		{"1-D", dV, []int{0}, false},
	}
	for _, a := range args {
		for _, fn := range []string{"argmin", "argmax"} {
			ax := npAx(a.keep, a.axis...)
			f := (*tensor.Tensor).ArgMin
			if fn == "argmax" {
				f = (*tensor.Tensor).ArgMax
			}
			cs = append(cs, npOne(fmt.Sprintf("%s %s (%s)", fn, a.dt, ax.py), "x."+fn+"("+ax.py+")", ins("x", a.x), func(e *npEnv) *tensor.Tensor {
				return f(e.v("x"), ax.opts...)
			}).with(npChunkOdd, npChunkIrr, npChunk1))
		}
	}
	return cs
}

// npCumulativeCases: cumsum and cumprod over each axis (negative too), for
// every dtype, and of a 0-d tensor.
func npCumulativeCases() []npCase {
	var cs []npCase
	type src struct {
		dt string
		x  *ndarray.Array
	}
	for _, fn := range []string{"cumsum", "cumprod"} {
		f := (*tensor.Tensor).CumSum
		srcs := []src{{"float64", dX3}, {"int64", dI3}, {"int32", dI323}, {"bool", dB3}, {"float32", dF323}}
		if fn == "cumprod" {
			f = (*tensor.Tensor).CumProd
			srcs = []src{{"float64", dSm3}, {"int64", dSmI3}, {"int32", dSmI32}, {"bool", dB3}, {"float32", npSmall(dF32, 54, 4, 6, 5)}}
		}
		for _, s := range srcs {
			for _, axis := range []int{0, 1, 2, -1} {
				if s.dt != "float64" && (axis == 1 || axis == -1) {
					continue
				}
				c := npOne(fmt.Sprintf("%s %s axis %d", fn, s.dt, axis), fmt.Sprintf("np.%s(x, axis=%d)", fn, axis), ins("x", s.x), func(e *npEnv) *tensor.Tensor {
					return f(e.v("x"), axis)
				})
				if s.dt != "float64" {
					c = c.with(npChunkOdd, npChunkIrr, npChunk1)
				}
				cs = append(cs, c)
			}
		}
		cs = append(cs,
			npOne(fn+" 1-D", fmt.Sprintf("np.%s(x)", fn), ins("x", dV), func(e *npEnv) *tensor.Tensor { return f(e.v("x"), 0) }),
			npOne(fn+" 0-d", fmt.Sprintf("np.%s(x)", fn), ins("x", dZ0), func(e *npEnv) *tensor.Tensor { return f(e.v("x"), 0) }).with(npChunkBig, npChunk1),
			npOne(fn+" empty", fmt.Sprintf("np.%s(x, axis=0)", fn), ins("x", dE03), func(e *npEnv) *tensor.Tensor { return f(e.v("x"), 0) }).with(npChunkBig, npChunk1),
		)
	}
	cs = append(cs, npOne("cumsum rough float32", "np.cumsum(x, axis=1)", ins("x", dB32), func(e *npEnv) *tensor.Tensor {
		return e.v("x").CumSum(1)
	}).tol(1e-5, 1e-5, "float32 running sums of rough values pass near 0, where sequential and chunked sums round differently"))
	return cs
}

// More inputs for linear algebra.
var (
	dQ74   = npQ(dF64, 60, 7, 4)
	dI74   = npI(dI64, 61, -9, 9, 7, 4)
	dI3274 = npI(dI32, 62, -9, 9, 7, 4)
	dF3274 = npQ(dF32, 63, 7, 4)
	dB74   = npB(64, 7, 4)
	d2143  = npR(dF64, 65, 2, 1, 4, 3)
	d532   = npR(dF64, 66, 5, 3, 2)
	d234   = npR(dF64, 67, 2, 3, 4)
	d543   = npR(dF64, 68, 5, 4, 3)
	d563   = npR(dF64, 69, 5, 6, 3)
	d653   = npR(dF64, 70, 6, 5, 3)
	d54    = npR(dF64, 71, 5, 4)
	d34    = npQ(dF64, 72, 3, 4)
	d2     = npQ(dF64, 73, 2)
	d23i   = npI(dI64, 74, -5, 5, 2, 3)
	dBat3  = npQ(dF64, 75, 3, 5, 7)
)

// npLinWhy explains the tolerance of products of rough values.
const npLinWhy = "sums of products of rough values cancel; BLAS blocking, FMA and chunked partial sums round differently from NumPy"

// npLinalgCases: matmul (2-D, 1-D on either side, batched, broadcast
// batches, every dtype), dot, tensordot (explicit, negative and counted
// axes) and outer.
func npLinalgCases() []npCase {
	two := func(name, expr string, a, b *ndarray.Array, f func(a, b *tensor.Tensor) *tensor.Tensor) npCase {
		return npOne(name, expr, ins("a", a, "b", b), func(e *npEnv) *tensor.Tensor { return f(e.v("a"), e.v("b")) })
	}
	rough := func(c npCase) npCase { return c.tol(1e-11, 1e-12, npLinWhy) }
	mm := tensor.MatMul
	return []npCase{
		rough(two("matmul 2-D rough", "a @ b", dM57, dM74, mm)).alsoWorkers(),
		two("matmul 2-D quarters", "a @ b", dA, dQ74, mm),
		rough(two("matmul 1-D @ 2-D", "a @ b", dRow, dM74, mm)),
		two("matmul 2-D @ 1-D", "a @ b", dA, dRow, mm),
		two("matmul 1-D @ 1-D", "a @ b", dRow, dRowLo, mm),
		rough(two("matmul batched", "a @ b", dBat1, dBat2, mm)).alsoWorkers(),
		rough(two("matmul broadcast batches", "a @ b", d2143, d532, mm)),
		rough(two("matmul batched @ 2-D", "a @ b", dBat1, dM74, mm)),
		rough(two("matmul 1-D @ batched", "a @ b", dRow, dBat2, mm)),
		two("matmul batched @ 1-D", "a @ b", dBat3, dRow, mm),
		two("matmul int64", "a @ b", dI, dI74, mm),
		two("matmul int32 stays int32", "a @ b", dI32a, dI3274, mm),
		two("matmul float32", "a @ b", dA32, dF3274, mm),
		two("matmul bool", "a @ b", dBool, dB74, mm),
		two("matmul int32 @ float64", "a @ b", dI32a, dQ74, mm),
		two("matmul method transposed", "a.T @ b", dM57, dB2, func(a, b *tensor.Tensor) *tensor.Tensor { return a.T().MatMul(b) }).
			tol(1e-11, 1e-12, npLinWhy),
		// Gram products (ops.Gram: SYRK with the centring folded in).
		rough(two("gram x.T @ x", "a.T @ a + 0 * b.sum()", dM74, dZ0, func(a, _ *tensor.Tensor) *tensor.Tensor { return a.T().MatMul(a) })).alsoWorkers(),
		rough(two("gram x @ x.T", "a @ a.T + 0 * b.sum()", dM57, dZ0, func(a, _ *tensor.Tensor) *tensor.Tensor { return a.MatMul(a.T()) })),
		rough(two("gram centred", "(a - a.mean(axis=0)).T @ (a - a.mean(axis=0)) + 0 * b.sum()", dM74, dZ0, func(a, _ *tensor.Tensor) *tensor.Tensor {
			xc := a.Sub(a.Mean(tensor.Axis(0)))
			return xc.T().MatMul(xc)
		})).alsoWorkers(),
		rough(two("gram centred keepdims, summed", "((a - a.mean(axis=0, keepdims=True)).T @ (a - a.mean(axis=0, keepdims=True))).sum(axis=1) + 0 * b.sum()", npR(dF64, 476, 15, 7), dZ0, func(a, _ *tensor.Tensor) *tensor.Tensor {
			xc := a.Sub(a.Mean(tensor.Axis(0), tensor.KeepDims()))
			return xc.T().MatMul(xc).Sum(tensor.Axis(1))
		})),
		two("gram centred float32", "(a - a.mean(axis=0)).T @ (a - a.mean(axis=0)) + 0 * b.sum()", dF3274, dZ0, func(a, _ *tensor.Tensor) *tensor.Tensor {
			xc := a.Sub(a.Mean(tensor.Axis(0)))
			return xc.T().MatMul(xc)
		}).tol(2e-5, 1e-6, "float32 sums in another order"),
		rough(two("gram standardised", "((a - a.mean(axis=0)) / a.std(axis=0, ddof=1)).T @ ((a - a.mean(axis=0)) / a.std(axis=0, ddof=1)) + 0 * b.sum()", dM74, dZ0, func(a, _ *tensor.Tensor) *tensor.Tensor {
			z := a.Sub(a.Mean(tensor.Axis(0))).Div(a.Std(tensor.Axis(0), tensor.DDof(1)))
			return z.T().MatMul(z)
		})).alsoWorkers(),
		rough(two("gram columns scaled by a row, row first", "(b[:4] * a).T @ (b[:4] * a)", dF3274, dRowLo, func(a, b *tensor.Tensor) *tensor.Tensor {
			z := b.Index(tensor.To(4)).Mul(a)
			return z.T().MatMul(z)
		})),
		rough(two("gram divided by a row, not centred", "(a / b[:4]).T @ (a / b[:4])", dM74, dRowLo, func(a, b *tensor.Tensor) *tensor.Tensor {
			z := a.Div(b.Index(tensor.To(4)))
			return z.T().MatMul(z)
		})),
		rough(two("gram shifted by a row of another dtype", "(a - b[:4]).T @ (a - b[:4])", dF3274, dRowLo, func(a, b *tensor.Tensor) *tensor.Tensor {
			xc := a.Sub(b.Index(tensor.To(4)))
			return xc.T().MatMul(xc)
		})),
		rough(two("dot 3-D . 2-D", "np.dot(a, b)", dBat1, dM74, tensor.Dot)),
		two("dot 3-D . 1-D", "np.dot(a, b)", dBat3, dRow, tensor.Dot),
		two("dot 0-d . 2-D", "np.dot(a, b)", dZ0, dA, tensor.Dot),
		two("dot 2-D . 2-D", "np.dot(a, b)", dA, dQ74, tensor.Dot),
		two("dot 1-D . 1-D", "np.dot(a, b)", dV, dV, tensor.Dot),
		rough(two("dot 3-D . 3-D", "np.dot(a, b)", d234, d543, tensor.Dot)),
		two("dot method int", "a.dot(b)", dI, dI74, (*tensor.Tensor).Dot),
		rough(two("tensordot axes ([1, 2], [1, 0])", "np.tensordot(a, b, axes=([1, 2], [1, 0]))", dY3, d563, func(a, b *tensor.Tensor) *tensor.Tensor {
			return tensor.TensorDot(a, b, []int{1, 2}, []int{1, 0})
		})),
		rough(two("tensordot negative axes", "np.tensordot(a, b, axes=([-1, 0], [0, -1]))", dY3, d54, func(a, b *tensor.Tensor) *tensor.Tensor {
			return tensor.TensorDot(a, b, []int{-1, 0}, []int{0, -1})
		})),
		two("tensordot n=0", "np.tensordot(a, b, axes=0)", d34, d2, func(a, b *tensor.Tensor) *tensor.Tensor { return tensor.TensorDotN(a, b, 0) }),
		rough(two("tensordot n=1", "np.tensordot(a, b, axes=1)", dM57, dM74, func(a, b *tensor.Tensor) *tensor.Tensor { return tensor.TensorDotN(a, b, 1) })),
		rough(two("tensordot n=2", "np.tensordot(a, b, axes=2)", dY3, d653, func(a, b *tensor.Tensor) *tensor.Tensor { return tensor.TensorDotN(a, b, 2) })),
		two("tensordot int32 n=1", "np.tensordot(a, b, axes=1)", dI32a, dI3274, func(a, b *tensor.Tensor) *tensor.Tensor { return tensor.TensorDotN(a, b, 1) }),
		two("outer 1-D", "np.outer(a, b)", dV, dRow, tensor.Outer),
		two("outer flattens 2-D", "np.outer(a, b)", d34, d23i, tensor.Outer),
		two("outer bool and int", "np.outer(a, b)", dBoRow, dV, tensor.Outer),
	}
}

// More inputs for shape ops.
var (
	d23 = npQ(dF64, 80, 2, 3)
	d8  = npR(dF64, 81, 8)
	d5i = npI(dI32, 82, -9, 9, 5)
	d75 = npR(dF64, 84, 7, 5)
)

// npShapeCases: transpose, reshape, ravel, squeeze, expand_dims,
// broadcast_to, concatenate, stack, split, flip and rechunk.
func npShapeCases() []npCase {
	one := func(name, expr string, x *ndarray.Array, f func(x *tensor.Tensor) *tensor.Tensor) npCase {
		return npOne(name, expr, ins("x", x), func(e *npEnv) *tensor.Tensor { return f(e.v("x")) })
	}
	return []npCase{
		one("T 3-D", "x.T", dX3, (*tensor.Tensor).T),
		one("transpose 2-D", "np.transpose(x, (1, 0))", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Transpose(1, 0) }),
		one("transpose (1, 2, 0)", "np.transpose(x, (1, 2, 0))", dI3, func(x *tensor.Tensor) *tensor.Tensor { return x.Transpose(1, 2, 0) }),
		one("transpose negative perm", "np.transpose(x, (-1, 0, 1))", dB3, func(x *tensor.Tensor) *tensor.Tensor { return x.Transpose(-1, 0, 1) }),
		npOne("transpose + differently chunked", "x.T + y", ins("x", dA, "y", d75), func(e *npEnv) *tensor.Tensor {
			return e.v("x").T().Add(e.v("y"))
		}),
		one("reshape 5x7 to 7x5", "x.reshape(7, 5)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(7, 5) }),
		one("reshape to 1-D", "x.reshape(35)", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(35) }),
		one("reshape -1", "x.reshape(-1, 5)", dX3, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(-1, 5) }),
		one("reshape 3-D to (2, 60)", "x.reshape(2, 60)", dX3, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(2, 60) }),
		one("reshape 3-D to (6, 4, 5)", "x.reshape(6, 4, 5)", dI323, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(6, 4, 5) }),
		one("reshape 3-D to (4, 30)", "x.reshape(4, 30)", dB3, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(4, 30) }),
		one("reshape 1-D to column", "x.reshape(13, 1)", dV, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(13, 1) }),
		one("reshape 1-D to (2, 2, 2)", "x.reshape(2, 2, 2)", d8, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(2, 2, 2) }),
		one("reshape adds axis", "x.reshape(5, 1, 7)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(5, 1, 7) }),
		one("reshape of transpose", "x.T.reshape(35)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.T().Reshape(35) }),
		one("reshape to 0-d", "x.reshape(())", d11, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape() }),
		one("ravel of transposed 3-D", "x.transpose(2, 0, 1).ravel()", dX3, func(x *tensor.Tensor) *tensor.Tensor { return x.Transpose(2, 0, 1).Ravel() }),
		one("ravel of flipped", "x[::-1, ::-1].ravel()", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip().Ravel() }),
		one("squeeze all", "np.squeeze(x)", d415, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze() }),
		one("squeeze axis 1", "np.squeeze(x, axis=1)", d415, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze(1) }),
		one("squeeze axis 0 of row", "np.squeeze(x, axis=0)", d17, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze(0) }),
		one("squeeze to 0-d", "np.squeeze(x)", d11, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze() }),
		one("squeeze axes (1, 3)", "np.squeeze(x, axis=(1, 3))", d2131, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze(1, 3) }),
		one("squeeze negative axis", "np.squeeze(x, axis=-1)", dCol, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze(-1) }),
		one("expand_dims 0", "np.expand_dims(x, 0)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.ExpandDims(0) }),
		one("expand_dims -1", "np.expand_dims(x, -1)", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.ExpandDims(-1) }),
		one("expand_dims middle 3-D", "np.expand_dims(x, 2)", dX3, func(x *tensor.Tensor) *tensor.Tensor { return x.ExpandDims(2) }),
		one("expand_dims 0-d", "np.expand_dims(x, 0)", dZ0, func(x *tensor.Tensor) *tensor.Tensor { return x.ExpandDims(0) }),
		one("broadcast_to row", "np.broadcast_to(x, (5, 7))", dRow, func(x *tensor.Tensor) *tensor.Tensor { return x.BroadcastTo(5, 7) }),
		one("broadcast_to column 3-D", "np.broadcast_to(x, (3, 5, 7))", dCol, func(x *tensor.Tensor) *tensor.Tensor { return x.BroadcastTo(3, 5, 7) }),
		one("broadcast_to (1,7) to 3-D", "np.broadcast_to(x, (4, 5, 7))", d17, func(x *tensor.Tensor) *tensor.Tensor { return x.BroadcastTo(4, 5, 7) }),
		one("broadcast_to 0-d", "np.broadcast_to(x, (3, 4))", dZ0i, func(x *tensor.Tensor) *tensor.Tensor { return x.BroadcastTo(3, 4) }),
		one("broadcast_to bool row", "np.broadcast_to(x, (6, 7))", dBoRow, func(x *tensor.Tensor) *tensor.Tensor { return x.BroadcastTo(6, 7) }),
		one("broadcast_to int32 then add", "np.broadcast_to(x, (3, 5)) + 1", d5i, func(x *tensor.Tensor) *tensor.Tensor { return x.BroadcastTo(3, 5).Add(1) }),
		npOne("concatenate axis 0", "np.concatenate([x, y], axis=0)", ins("x", dA, "y", dB2), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(0, e.v("x"), e.v("y"))
		}).alsoWorkers(),
		npOne("concatenate axis 1 column", "np.concatenate([c, x], axis=1)", ins("c", dCol, "x", dA), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(1, e.v("c"), e.v("x"))
		}),
		npOne("concatenate axis -1 3-D", "np.concatenate([x, y], axis=-1)", ins("x", dX3, "y", dY3), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(-1, e.v("x"), e.v("y"))
		}),
		npOne("concatenate promotes", "np.concatenate([i, f, b], axis=0)", ins("i", dI32a, "f", dA32, "b", dBool), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(0, e.v("i"), e.v("f"), e.v("b"))
		}),
		npOne("concatenate same input twice", "np.concatenate([x, x, x], axis=1)", ins("x", dI), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(1, e.v("x"), e.v("x"), e.v("x"))
		}),
		npOne("concatenate 1-D lengths", "np.concatenate([a, b, c])", ins("a", dV, "b", dRow, "c", d5), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(0, e.v("a"), e.v("b"), e.v("c"))
		}),
		npOne("concatenate with empty", "np.concatenate([e, x], axis=0)", ins("e", dE03, "x", d23), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(0, e.v("e"), e.v("x"))
		}),
		npOne("stack axis 0", "np.stack([x, y])", ins("x", dA, "y", dB2), func(e *npEnv) *tensor.Tensor {
			return tensor.Stack(0, e.v("x"), e.v("y"))
		}),
		npOne("stack axis 1 ints", "np.stack([x, y, x], axis=1)", ins("x", dI, "y", dI32a), func(e *npEnv) *tensor.Tensor {
			return tensor.Stack(1, e.v("x"), e.v("y"), e.v("x"))
		}),
		npOne("stack axis -1", "np.stack([x, y], axis=-1)", ins("x", dX3, "y", dY3), func(e *npEnv) *tensor.Tensor {
			return tensor.Stack(-1, e.v("x"), e.v("y"))
		}),
		npOne("stack 1-D", "np.stack([a, b], axis=1)", ins("a", dV, "b", dV2), func(e *npEnv) *tensor.Tensor {
			return tensor.Stack(1, e.v("a"), e.v("b"))
		}),
		npOne("stack 0-d", "np.stack([a, a, b])", ins("a", dZ0, "b", dZ0), func(e *npEnv) *tensor.Tensor {
			return tensor.Stack(0, e.v("a"), e.v("a"), e.v("b"))
		}),
		npMany("split 5 ways axis 0", "np.split(x, 5, axis=0)", ins("x", dA), func(e *npEnv) []*tensor.Tensor { return e.v("x").Split(0, 5) }),
		npMany("split 7 ways axis 1", "np.split(x, 7, axis=1)", ins("x", dI32a), func(e *npEnv) []*tensor.Tensor { return e.v("x").Split(1, 7) }),
		npMany("split 3-D axis -1", "np.split(x, 5, axis=-1)", ins("x", dX3), func(e *npEnv) []*tensor.Tensor { return e.v("x").Split(-1, 5) }),
		npMany("split at [2, 5]", "np.split(x, [2, 5], axis=1)", ins("x", dA), func(e *npEnv) []*tensor.Tensor { return e.v("x").SplitAt(1, 2, 5) }),
		npMany("split at [-2]", "np.split(x, [-2], axis=0)", ins("x", dB2), func(e *npEnv) []*tensor.Tensor { return e.v("x").SplitAt(0, -2) }),
		npMany("split at decreasing and beyond", "np.split(x, [3, 1, 10], axis=1)", ins("x", dA), func(e *npEnv) []*tensor.Tensor {
			return e.v("x").SplitAt(1, 3, 1, 10)
		}),
		npMany("split 1-D bool", "np.split(x, [4, 4, 6])", ins("x", dBoRow), func(e *npEnv) []*tensor.Tensor { return e.v("x").SplitAt(0, 4, 4, 6) }),
		one("flip all", "np.flip(x)", dX3, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip() }),
		one("flip axis 0", "np.flip(x, 0)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip(0) }),
		one("flip axes (0, 2)", "np.flip(x, (0, 2))", dI3, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip(0, 2) }),
		one("flip axis -1 bool", "np.flip(x, -1)", dBool, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip(-1) }),
		one("flip 1-D", "np.flip(x)", dV, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip() }),
		one("flip twice", "np.flip(np.flip(x, 1), (0, 1))", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip(1).Flip(0, 1) }),
		one("rechunk 2", "x.copy()", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Rechunk(tensor.Chunks(2)) }),
		one("rechunk irregular", "x.copy()", dX3, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Rechunk(tensor.ChunkSplits([]int{3, 1}, []int{1, 1, 4}, []int{2, 3}))
		}),
		one("rechunk bytes", "x.copy()", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Rechunk(tensor.ChunkBytes(64)) }),
		one("rechunk per axis bool", "x.copy()", dB3, func(x *tensor.Tensor) *tensor.Tensor { return x.Rechunk(tensor.Chunks(1, -1, 2)) }),
		npOne("rechunk then add", "x + y", ins("x", dA, "y", dB2), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Rechunk(tensor.Chunks(4, 6)).Add(e.v("y").Rechunk(tensor.Chunks(5, 1)))
		}),
		one("rechunk to one chunk then sum", "x.sum(axis=1)", dX3, func(x *tensor.Tensor) *tensor.Tensor { return x.Rechunk(tensor.Chunks(-1)).Sum(tensor.Axis(1)) }),
		one("rechunk 0-d", "x.copy()", dZ0, func(x *tensor.Tensor) *tensor.Tensor { return x.Rechunk(tensor.Chunks(1)) }),
		one("rechunk after view", "x[::-1, 1:6].copy()", dA, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Index(tensor.Rev(), tensor.Range(1, 6)).Rechunk(tensor.Chunks(2, 3))
		}),
	}
}

// npIndexCases: basic indexing — slices with positive and negative steps,
// open and out-of-range bounds, empty selections, integer indices
// (negative too), None and Ellipsis — on 1-, 2- and 3-D inputs of
// several dtypes.
func npIndexCases() []npCase {
	ix := func(py string, x *ndarray.Array, dt string, idx ...tensor.Idx) npCase {
		return npOne(fmt.Sprintf("index %s x[%s]", dt, py), "x["+py+"]", ins("x", x), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(idx...)
		})
	}
	S, R, From, To, All, Rev, At := tensor.S, tensor.Range, tensor.From, tensor.To, tensor.All, tensor.Rev, tensor.At
	return []npCase{
		ix("1:4", dA, "2-D", R(1, 4)),
		ix("::2", dA, "2-D", All().Step(2)),
		ix("::-1", dA, "2-D", Rev()),
		ix("4::-2", dA, "2-D", From(4).Step(-2)),
		ix("-3:", dI, "2-D int64", From(-3)),
		ix(":, 2:6:3", dA, "2-D", All(), S(2, 6, 3)),
		ix("1, :", dA, "2-D", At(1), All()),
		ix("-1", dI32a, "2-D int32", At(-1)),
		ix("2, 3", dA, "2-D", At(2), At(3)),
		ix("-5, -7", dBool, "2-D bool", At(-5), At(-7)),
		ix("..., 0", dA, "2-D", tensor.Ellipsis(), At(0)),
		ix("None", dA, "2-D", tensor.NewAxis()),
		ix(":, None, :", dA, "2-D", All(), tensor.NewAxis(), All()),
		ix("..., None", dBool, "2-D bool", tensor.Ellipsis(), tensor.NewAxis()),
		ix("1:-1, ::-2", dA, "2-D", R(1, -1), All().Step(-2)),
		ix("10:20", dA, "2-D", R(10, 20)),
		ix("3:1", dA, "2-D", R(3, 1)),
		ix("::-3, -2", dI, "2-D int64", All().Step(-3), At(-2)),
		ix("-100:100", dA, "2-D", R(-100, 100)),
		ix(":, -1:-8:-2", dA32, "2-D float32", All(), S(-1, -8, -2)),
		ix(":, :0:-1", dA, "2-D", All(), To(0).Step(-1)),
		ix("1:3, ::-1, 4", dX3, "3-D", R(1, 3), Rev(), At(4)),
		ix("..., ::2", dX3, "3-D", tensor.Ellipsis(), All().Step(2)),
		ix("-2, ..., 1:", dI3, "3-D int64", At(-2), tensor.Ellipsis(), From(1)),
		ix("None, 1, ..., None", dX3, "3-D", tensor.NewAxis(), At(1), tensor.Ellipsis(), tensor.NewAxis()),
		ix("::-1, 1::2, ::-2", dB3, "3-D bool", Rev(), From(1).Step(2), All().Step(-2)),
		ix("2, 5, 4", dI323, "3-D int32", At(2), At(5), At(4)),
		ix(":, 1:5, None, 2:", dF323, "3-D float32", All(), R(1, 5), tensor.NewAxis(), From(2)),
		ix("12:0:-4", dV, "1-D", S(12, 0, -4)),
		ix("::-5", dV, "1-D", All().Step(-5)),
		ix("-13", dV, "1-D", At(-13)),
		ix("...", dZ0, "0-d", tensor.Ellipsis()),
		ix("None", dZ0, "0-d", tensor.NewAxis()),
		ix(":", dE03, "empty", All()),
		ix("::-1, 1", dE03, "empty", Rev(), At(1)),
	}
}

// More inputs for the composite cases.
var (
	dC5  = npQ(dF64, 90, 5)
	dC3  = npQ(dF64, 91, 3)
	dB2b = npB(92, 5, 7)
)

// npCompositeCases mix views, concatenation, broadcasting, rechunking and
// long fused elementwise chains, ending in reductions: the graphs a fusion
// pass rewrites.
func npCompositeCases() []npCase {
	type E = npEnv
	type T = tensor.Tensor
	c := func(name, expr string, in []npIn, f func(e *E) *T) npCase {
		return npOne("composite "+name, expr, in, f)
	}
	xy := ins("x", dA, "y", dB2)
	cs := []npCase{
		c("((x.T + y)[::-1, 2:] * 3 - z).sum(axis=0)", "((x.T + y)[::-1, 2:] * 3 - z).sum(axis=0)", ins("x", dA, "y", dC5, "z", dC3), func(e *E) *T {
			return e.v("x").T().Add(e.v("y")).Index(tensor.Rev(), tensor.From(2)).Mul(3).Sub(e.v("z")).Sum(tensor.Axis(0))
		}).alsoWorkers(),
		c("concatenate flipped slices then sum", "np.concatenate([x[::-1], y[:, ::-1]], axis=0).sum(axis=1)", xy, func(e *E) *T {
			return tensor.Concatenate(0, e.v("x").Flip(0), e.v("y").Index(tensor.All(), tensor.Rev())).Sum(tensor.Axis(1))
		}).tol(1e-12, 1e-13, "sums of rough values near 0 round differently in another order").alsoWorkers(),
		c("clip of where over broadcast, mean", "np.clip(np.where(x > y, x, y * 2), -3, 3).mean(axis=1)", ins("x", dA, "y", dRow), func(e *E) *T {
			x, y := e.v("x"), e.v("y")
			return tensor.Where(x.Greater(y), x, y.Mul(2)).Clip(-3, 3).Mean(tensor.Axis(1))
		}),
		c("long chain", "((((x + 1) * 2 - y) / 3 + x * y - 0.5) * (y - x) + 7).sum(axis=0)", xy, func(e *E) *T {
			x, y := e.v("x"), e.v("y")
			return x.Add(1).Mul(2).Sub(y).Div(3).Add(x.Mul(y)).Sub(0.5).Mul(y.Sub(x)).Add(7).Sum(tensor.Axis(0))
		}).tol(1e-12, 1e-12, "sums of rough values near 0 round differently in another order"),
		c("sqrt abs + exp -square, max", "(np.sqrt(np.abs(x)) + np.exp(-np.square(y))).max(axis=0)", xy, func(e *E) *T {
			return e.v("x").Abs().Sqrt().Add(e.v("y").Square().Neg().Exp()).Max(tensor.Axis(0))
		}),
		c("var of column + row", "(c + r).var(axis=1)", ins("c", dCol, "r", dRow), func(e *E) *T {
			return e.v("c").Add(e.v("r")).Var(tensor.Axis(1))
		}),
		c("centred sum of squares", "((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)", xy, func(e *E) *T {
			x := e.v("x")
			return x.Sub(x.Mean(tensor.Axis(1), tensor.KeepDims())).Pow(2).Sum(tensor.Axis(1))
		}),
		c("softmax", "np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)", ins("x", dB2), func(e *E) *T {
			x := e.v("x")
			ex := x.Sub(x.Max(tensor.Axis(1), tensor.KeepDims())).Exp()
			return ex.Div(ex.Sum(tensor.Axis(1), tensor.KeepDims()))
		}),
		c("standardise columns", "(x - x.mean(axis=0)) / x.std(axis=0)", ins("x", dB2), func(e *E) *T {
			x := e.v("x")
			return x.Sub(x.Mean(tensor.Axis(0))).Div(x.Std(tensor.Axis(0)))
		}).tol(1e-11, 1e-12, "deviations from the mean cancel; the mean itself rounds differently in chunked order"),
		c("stack then sum", "np.stack([x, y, x * y]).sum(axis=0)", xy, func(e *E) *T {
			x, y := e.v("x"), e.v("y")
			return tensor.Stack(0, x, y, x.Mul(y)).Sum(tensor.Axis(0))
		}),
		c("concatenate strided and flipped, prod", "np.concatenate([x[:, ::-2], y[::-1, 1:3]], axis=1).prod(axis=1)", xy, func(e *E) *T {
			return tensor.Concatenate(1, e.v("x").Index(tensor.All(), tensor.All().Step(-2)), e.v("y").Index(tensor.Rev(), tensor.Range(1, 3))).Prod(tensor.Axis(1))
		}),
		c("matmul of slices", "x[:, 1:6] @ y.T[1:6, ::-1]", xy, func(e *E) *T {
			return e.v("x").Index(tensor.All(), tensor.Range(1, 6)).MatMul(e.v("y").T().Index(tensor.Range(1, 6), tensor.Rev()))
		}).tol(1e-11, 1e-12, npLinWhy),
		c("cumsum of flipped then argmax", "np.cumsum(x[::-1], axis=0).argmax(axis=1)", ins("x", dA), func(e *E) *T {
			return e.v("x").Flip(0).CumSum(0).ArgMax(tensor.Axis(1))
		}),
		c("reshape of broadcast sum", "(c + r).reshape(7, 5).sum(axis=0)", ins("c", dCol, "r", dRow), func(e *E) *T {
			return e.v("c").Add(e.v("r")).Reshape(7, 5).Sum(tensor.Axis(0))
		}),
		c("cumsum of ravelled transpose", "np.cumsum(x.T.ravel())", ins("x", dA), func(e *E) *T {
			return e.v("x").T().Ravel().CumSum(0)
		}),
		c("split and recombine", "(lambda p: p[0].sum(axis=1) + p[1][:, 0] * p[2].max(axis=1))(np.split(x, [2, 3], axis=1))", ins("x", dA), func(e *E) *T {
			p := e.v("x").SplitAt(1, 2, 3)
			return p[0].Sum(tensor.Axis(1)).Add(p[1].Index(tensor.All(), tensor.At(0)).Mul(p[2].Max(tensor.Axis(1))))
		}),
		c("int chain", "((i * 3 + j) // 4 % 5).sum(axis=0)", ins("i", dI, "j", dJCol), func(e *E) *T {
			return e.v("i").Mul(3).Add(e.v("j")).FloorDiv(4).Mod(5).Sum(tensor.Axis(0))
		}),
		c("bool chain count", "np.logical_and(x > 0, y < 1).sum(axis=1)", xy, func(e *E) *T {
			return e.v("x").Greater(0).And(e.v("y").Less(1)).Sum(tensor.Axis(1))
		}),
		c("count_nonzero of where", "np.count_nonzero(np.where(b, x, 0), axis=0)", ins("b", dBool, "x", dA), func(e *E) *T {
			return tensor.Where(e.v("b"), e.v("x"), 0).CountNonzero(tensor.Axis(0))
		}),
		c("rechunk in the middle", "(x + y.T.T).min()", xy, func(e *E) *T {
			return e.v("x").Rechunk(tensor.Chunks(2)).Add(e.v("y").T().Rechunk(tensor.Chunks(3, 1)).T()).Min()
		}),
		c("broadcast_to then slice", "np.broadcast_to(r, (5, 7))[::-1, 1::2] * x[:, 1::2]", ins("r", dRow, "x", dA), func(e *E) *T {
			return e.v("r").BroadcastTo(5, 7).Index(tensor.Rev(), tensor.From(1).Step(2)).Mul(e.v("x").Index(tensor.All(), tensor.From(1).Step(2)))
		}),
		c("expand_dims and squeeze", "np.squeeze(np.expand_dims(x, 1) + y[None], axis=0).sum(axis=(0, 1))", ins("x", dC5, "y", dA), func(e *E) *T {
			return e.v("x").ExpandDims(1).Add(e.v("y").Index(tensor.NewAxis())).Squeeze(0).Sum(tensor.Axis(0, 1))
		}),
		c("3-D transposed views, std", "(x.transpose(2, 0, 1)[::-1, :, 1:5] - y.transpose(2, 0, 1)[:, :, :4]).std(axis=(0, 2))", ins("x", dX3, "y", dY3), func(e *E) *T {
			a := e.v("x").Transpose(2, 0, 1).Index(tensor.Rev(), tensor.All(), tensor.Range(1, 5))
			b := e.v("y").Transpose(2, 0, 1).Index(tensor.All(), tensor.All(), tensor.To(4))
			return a.Sub(b).Std(tensor.Axis(0, 2))
		}),
		c("float32 chain", "((a * 2.0 + 1) / (b ** 2 + 1)).sum(axis=1)", ins("a", dA32, "b", dB32), func(e *E) *T {
			return e.v("a").Mul(2.0).Add(1).Div(e.v("b").Pow(2).Add(1)).Sum(tensor.Axis(1))
		}),
		c("int32 chain stays int32", "((x * 3 - 7) % 5).max(axis=0)", ins("x", dI32a), func(e *E) *T {
			return e.v("x").Mul(3).Sub(7).Mod(5).Max(tensor.Axis(0))
		}),
		c("mixed promotion mean", "(i + f).mean(axis=0)", ins("i", dI32a, "f", dA32), func(e *E) *T {
			return e.v("i").Add(e.v("f")).Mean(tensor.Axis(0))
		}),
		c("where isfinite sum", "np.where(np.isfinite(s), s, 0).sum(axis=1)", ins("s", dS), func(e *E) *T {
			s := e.v("s")
			return tensor.Where(s.IsFinite(), s, 0).Sum(tensor.Axis(1))
		}),
		c("clip of cumsum mean", "np.clip(np.cumsum(x, axis=1), -2, 2).mean()", ins("x", dA), func(e *E) *T {
			return e.v("x").CumSum(1).Clip(-2, 2).Mean()
		}),
		c("tensordot of views", "np.tensordot(x[::-1], y[:, ::2], axes=([0, 2], [0, 2]))", ins("x", dX3, "y", dY3), func(e *E) *T {
			return tensor.TensorDot(e.v("x").Flip(0), e.v("y").Index(tensor.All(), tensor.All().Step(2)), []int{0, 2}, []int{0, 2})
		}).tol(1e-11, 1e-12, npLinWhy),
		c("outer of slices then sum", "np.outer(v[::3], r[1:]).sum(axis=0)", ins("v", dV, "r", dRow), func(e *E) *T {
			return tensor.Outer(e.v("v").Index(tensor.All().Step(3)), e.v("r").Index(tensor.From(1))).Sum(tensor.Axis(0))
		}),
		c("concatenate broadcast rows, var", "np.concatenate([np.broadcast_to(r, (3, 7)), x], axis=0).var(axis=0)", ins("r", dRow, "x", dA), func(e *E) *T {
			return tensor.Concatenate(0, e.v("r").BroadcastTo(3, 7), e.v("x")).Var(tensor.Axis(0))
		}),
		c("stack of transposes max", "np.stack([x.T, y.T], axis=-1).max(axis=(0, 2))", xy, func(e *E) *T {
			return tensor.Stack(-1, e.v("x").T(), e.v("y").T()).Max(tensor.Axis(0, 2))
		}),
		c("index chain", "x[1:, ::-1][::2, 3:][..., None].sum(axis=(1, 2))", ins("x", dA), func(e *E) *T {
			return e.v("x").Index(tensor.From(1), tensor.Rev()).Index(tensor.All().Step(2), tensor.From(3)).
				Index(tensor.Ellipsis(), tensor.NewAxis()).Sum(tensor.Axis(1, 2))
		}),
		c("strided 3-D view reshape", "x[::-1, 1::2, ::-2].reshape(4, -1).sum(axis=1)", ins("x", dX3), func(e *E) *T {
			return e.v("x").Index(tensor.Rev(), tensor.From(1).Step(2), tensor.All().Step(-2)).Reshape(4, -1).Sum(tensor.Axis(1))
		}),
		c("round and floor", "(np.round(x * 1.5) - np.floor(y)).sum(axis=0)", xy, func(e *E) *T {
			return e.v("x").Mul(1.5).Round().Sub(e.v("y").Floor()).Sum(tensor.Axis(0))
		}),
		c("argmin of broadcast distance", "np.abs(c - r).argmin(axis=1)", ins("c", dCol, "r", dRow), func(e *E) *T {
			return e.v("c").Sub(e.v("r")).Abs().ArgMin(tensor.Axis(1))
		}),
		c("eye masks", "(np.eye(5, 7, k=1) * x).sum(axis=1)", ins("x", dA), func(e *E) *T {
			return tensor.Eye(5, 7, 1, e.chunks(5, 7)).Mul(e.v("x")).Sum(tensor.Axis(1))
		}),
		c("arange weights", "(np.arange(35).reshape(5, 7) * x).sum(axis=1)", ins("x", dA), func(e *E) *T {
			return tensor.ArangeN(35, e.chunks(35)).Reshape(5, 7).Mul(e.v("x")).Sum(tensor.Axis(1))
		}),
		c("linspace row", "(x - np.linspace(0, 1, 7)).max(axis=0)", ins("x", dB2), func(e *E) *T {
			return e.v("x").Sub(tensor.Linspace(0, 1, 7, e.chunks(7))).Max(tensor.Axis(0))
		}),
		c("where against full", "np.where(b, x, np.full((5, 7), -9.0)).min(axis=1)", ins("b", dBool, "x", dA), func(e *E) *T {
			return tensor.Where(e.v("b"), e.v("x"), tensor.Full([]int{5, 7}, -9, e.chunks(5, 7))).Min(tensor.Axis(1))
		}),
		c("sign disagreement any", "((x > 0) != (y > 0)).any(axis=0)", xy, func(e *E) *T {
			return e.v("x").Greater(0).NotEqual(e.v("y").Greater(0)).Any(tensor.Axis(0))
		}),
		c("xor or chain all", "np.logical_xor(b, np.logical_or(c, x < 0)).all(axis=1)", ins("b", dBool, "c", dB2b, "x", dA), func(e *E) *T {
			return e.v("b").Xor(e.v("c").Or(e.v("x").Less(0))).All(tensor.Axis(1))
		}),
		c("pow chain", "(np.abs(x) ** 0.5 + y ** 2).sum(axis=-1)", xy, func(e *E) *T {
			return e.v("x").Abs().Pow(0.5).Add(e.v("y").Pow(2)).Sum(tensor.Axis(-1))
		}),
		c("maximum minimum broadcast", "np.minimum(np.maximum(x, c), r).sum(axis=0)", ins("x", dA, "c", dCol, "r", dRow), func(e *E) *T {
			return e.v("x").Maximum(e.v("c")).Minimum(e.v("r")).Sum(tensor.Axis(0))
		}),
		c("log1p tanh mean", "np.log1p(np.tanh(x) + 1).mean(axis=0)", xy, func(e *E) *T {
			return e.v("x").Tanh().Add(1).Log1p().Mean(tensor.Axis(0))
		}),
		c("sin^2 + cos^2", "(np.sin(y) ** 2 + np.cos(y) ** 2).sum()", xy, func(e *E) *T {
			y := e.v("y")
			return y.Sin().Pow(2).Add(y.Cos().Pow(2)).Sum()
		}),
		c("split equal and restack", "np.stack(np.split(x, 2, axis=0), axis=0).sum(axis=(1, 3))", ins("x", dX3), func(e *E) *T {
			return tensor.Stack(0, e.v("x").Split(0, 2)...).Sum(tensor.Axis(1, 3))
		}),
		c("transpose flip identity", "x.T[::-1].T[:, ::-1]", ins("x", dI32a), func(e *E) *T {
			return e.v("x").T().Index(tensor.Rev()).T().Index(tensor.All(), tensor.Rev())
		}),
		c("concatenate differently chunked, mean", "np.concatenate([x, y, x], axis=1).mean(axis=1)", xy, func(e *E) *T {
			return tensor.Concatenate(1, e.v("x"), e.v("y"), e.v("x")).Mean(tensor.Axis(1))
		}).tol(1e-12, 1e-14, "sums of rough values near 0 round differently in another order"),
		c("cumprod of flipped, sum", "np.cumprod(x[:, ::-1], axis=1).sum(axis=(0, 1))", ins("x", dSm3), func(e *E) *T {
			return e.v("x").Flip(1).CumProd(1).Sum(tensor.Axis(0, 1))
		}),
		c("matmul plus eye", "(x @ y.T + np.eye(5)).sum(axis=0)", xy, func(e *E) *T {
			return e.v("x").MatMul(e.v("y").T()).Add(tensor.Eye(5, 5, 0, e.chunks(5, 5))).Sum(tensor.Axis(0))
		}).tol(1e-11, 1e-11, npLinWhy),
		c("int32 cumsum threshold", "(np.cumsum(x, axis=1) > 5).sum(axis=0)", ins("x", dI32a), func(e *E) *T {
			return e.v("x").CumSum(1).Greater(5).Sum(tensor.Axis(0))
		}),
		c("astype chain", "(x.astype(np.int32) * 2 + i).astype(np.float32).sum(axis=1)", ins("x", dA, "i", dI32a), func(e *E) *T {
			return e.v("x").Astype(dI32).Mul(2).Add(e.v("i")).Astype(dF32).Sum(tensor.Axis(1))
		}),
		c("0-d in a chain", "((x - z) * z).max()", ins("x", dB2, "z", dZ0), func(e *E) *T {
			z := e.v("z")
			return e.v("x").Sub(z).Mul(z).Max()
		}),
		c("where column cond argmax", "np.where(b, x, -x).argmax(axis=0)", ins("b", dBCol, "x", dA), func(e *E) *T {
			x := e.v("x")
			return tensor.Where(e.v("b"), x, x.Neg()).ArgMax(tensor.Axis(0))
		}),
		c("rechunk transpose index", "(x.T[2:5] * 2)", ins("x", dA), func(e *E) *T {
			return e.v("x").Rechunk(tensor.Chunks(4, 1)).T().Index(tensor.Range(2, 5)).Mul(2)
		}),
		c("reshape after index", "x[:, 1:].reshape(5, 3, 2).sum(axis=2)", ins("x", dA), func(e *E) *T {
			return e.v("x").Index(tensor.All(), tensor.From(1)).Reshape(5, 3, 2).Sum(tensor.Axis(2))
		}),
		c("reshape transpose step", "x.reshape(6, 20).T[::3]", ins("x", dI3), func(e *E) *T {
			return e.v("x").Reshape(6, 20).T().Index(tensor.All().Step(3))
		}),
		npMany("composite shared subexpression", "(lambda t: ((t * t - t).sum(axis=0), t.max()))(x + y)", xy, func(e *E) []*T {
			t := e.v("x").Add(e.v("y"))
			return tt(t.Mul(t).Sub(t).Sum(tensor.Axis(0)), t.Max())
		}),
		npMany("composite several results", "(x.sum(), x.mean(axis=0), (x * y).max(axis=1), y.argmin())", xy, func(e *E) []*T {
			x, y := e.v("x"), e.v("y")
			return tt(x.Sum(), x.Mean(tensor.Axis(0)), x.Mul(y).Max(tensor.Axis(1)), y.ArgMin())
		}),
		c("standardise 3-D keepdims", "(x - x.mean(axis=(0, 2), keepdims=True)) / (x.std(axis=(0, 2), keepdims=True) + 1)", ins("x", dY3), func(e *E) *T {
			x := e.v("x")
			return x.Sub(x.Mean(tensor.Axis(0, 2), tensor.KeepDims())).Div(x.Std(tensor.Axis(0, 2), tensor.KeepDims()).Add(1))
		}).tol(1e-11, 1e-13, "deviations from the mean cancel; the mean itself rounds differently in chunked order"),
		c("empty slice in a chain", "(x[3:3] + 1).sum(axis=0)", ins("x", dA), func(e *E) *T {
			return e.v("x").Index(tensor.Range(3, 3)).Add(1).Sum(tensor.Axis(0))
		}),
		c("where of scalars sum", "np.where(x > 0, 1, -1).sum(axis=1)", ins("x", dA), func(e *E) *T {
			return tensor.Where(e.v("x").Greater(0), 1, -1).Sum(tensor.Axis(1))
		}),
		c("clip to reduced bounds", "np.clip(x, x.min(axis=0), x.max(axis=0) / 2)", ins("x", dA), func(e *E) *T {
			x := e.v("x")
			return x.Clip(x.Min(tensor.Axis(0)), x.Max(tensor.Axis(0)).Div(2))
		}),
		c("dot chain with ones", "np.dot(np.dot(x, m), np.ones(4))", ins("x", dA, "m", dQ74), func(e *E) *T {
			return tensor.Dot(tensor.Dot(e.v("x"), e.v("m")), tensor.Ones([]int{4}, e.chunks(4)))
		}),
		c("flip concatenate flip", "np.flip(np.concatenate([np.flip(x, 1), y], axis=1), 1)[:, 2:-2].min(axis=1)", xy, func(e *E) *T {
			return tensor.Concatenate(1, e.v("x").Flip(1), e.v("y")).Flip(1).Index(tensor.All(), tensor.Range(2, -2)).Min(tensor.Axis(1))
		}),
		c("broadcast 3-D chain, argmax", "(x * y[0, :, :1] - np.abs(z)).argmax(axis=0)", ins("x", dX3, "y", dY3, "z", d5), func(e *E) *T {
			return e.v("x").Mul(e.v("y").Index(tensor.At(0), tensor.All(), tensor.To(1))).Sub(e.v("z").Abs()).ArgMax(tensor.Axis(0))
		}),
		c("bool arithmetic chain", "((b + c) * b).sum(axis=0)", ins("b", dBool, "c", dB2b), func(e *E) *T {
			return e.v("b").Add(e.v("c")).Mul(e.v("b")).Sum(tensor.Axis(0))
		}),
		c("nan propagation chain", "np.maximum(s * 2, x).min(axis=1)", ins("s", dS, "x", dA), func(e *E) *T {
			return e.v("s").Mul(2).Maximum(e.v("x")).Min(tensor.Axis(1))
		}),
		c("var of strided concat", "np.concatenate([x[::2], y[1::2]]).var()", xy, func(e *E) *T {
			return tensor.Concatenate(0, e.v("x").Index(tensor.All().Step(2)), e.v("y").Index(tensor.From(1).Step(2))).Var()
		}),
	}
	return cs
}

// npErrorCases: NumPy raises, so Phobos must report an error (when the
// tensor is built or when it is executed), not compute something.
func npErrorCases() []npCase {
	bad := func(name, expr string, in []npIn, f func(e *npEnv) *tensor.Tensor) npCase {
		return npOne("error "+name, expr, in, f).fails().with(npChunkOdd, npChunkBig)
	}
	return []npCase{
		bad("broadcast mismatch", "x + y", ins("x", dA, "y", dC5), func(e *npEnv) *tensor.Tensor { return e.v("x").Add(e.v("y")) }),
		bad("matmul mismatch", "x @ y", ins("x", dA, "y", dB2), func(e *npEnv) *tensor.Tensor { return e.v("x").MatMul(e.v("y")) }),
		bad("reshape size", "x.reshape(6, 6)", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Reshape(6, 6) }),
		bad("concatenate shapes", "np.concatenate([x, y])", ins("x", dA, "y", dM74), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(0, e.v("x"), e.v("y"))
		}),
		bad("split unequal", "np.split(x, 2, axis=0)", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Split(0, 2)[0] }),
		bad("index out of bounds", "x[10]", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.At(10)) }),
		bad("too many indices", "x[1, 2, 3]", ins("x", dA), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Index(tensor.At(1), tensor.At(2), tensor.At(3))
		}),
		bad("axis out of range", "x.sum(axis=2)", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Sum(tensor.Axis(2)) }),
		bad("repeated axis", "x.sum(axis=(1, -1))", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Sum(tensor.Axis(1, -1)) }),
		bad("bool subtract", "x - y", ins("x", dBool, "y", dB2b), func(e *npEnv) *tensor.Tensor { return e.v("x").Sub(e.v("y")) }),
		bad("bool negative", "-x", ins("x", dBool), func(e *npEnv) *tensor.Tensor { return e.v("x").Neg() }),
		bad("int to negative int power", "x ** y", ins("x", dI, "y", npI(dI64, 99, -2, -1, 5, 7)), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Pow(e.v("y"))
		}),
		bad("argmin of two axes", "np.argmin(x, axis=(0, 1))", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").ArgMin(tensor.Axis(0, 1)) }),
		bad("stack shapes", "np.stack([x, y])", ins("x", dA, "y", dM74), func(e *npEnv) *tensor.Tensor { return tensor.Stack(0, e.v("x"), e.v("y")) }),
		bad("max of empty", "x.max(axis=0)", ins("x", dE03), func(e *npEnv) *tensor.Tensor { return e.v("x").Max(tensor.Axis(0)) }),
		bad("argmax of empty", "x.argmax()", ins("x", dE03), func(e *npEnv) *tensor.Tensor { return e.v("x").ArgMax() }),
		bad("transpose perm", "np.transpose(x, (0, 0))", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Transpose(0, 0) }),
		bad("squeeze non-1 axis", "np.squeeze(x, axis=0)", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Squeeze(0) }),
		bad("broadcast_to incompatible", "np.broadcast_to(x, (5, 6))", ins("x", dRow), func(e *npEnv) *tensor.Tensor { return e.v("x").BroadcastTo(5, 6) }),
		bad("tensordot lengths", "np.tensordot(x, y, axes=([0], [0]))", ins("x", dA, "y", dM74), func(e *npEnv) *tensor.Tensor {
			return tensor.TensorDot(e.v("x"), e.v("y"), []int{0}, []int{0})
		}),
		bad("cumsum axis", "np.cumsum(x, axis=2)", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").CumSum(2) }),
		bad("matmul 0-d", "np.matmul(z, x)", ins("z", dZ0, "x", dA), func(e *npEnv) *tensor.Tensor { return tensor.MatMul(e.v("z"), e.v("x")) }),
		bad("concatenate 0-d", "np.concatenate([z, z])", ins("z", dZ0), func(e *npEnv) *tensor.Tensor {
			return tensor.Concatenate(0, e.v("z"), e.v("z"))
		}),
		bad("slice step zero", "x[::0]", ins("x", dA), func(e *npEnv) *tensor.Tensor { return e.v("x").Index(tensor.All().Step(0)) }),
	}
}

// Larger inputs, for long reductions and scans: accumulation order and
// precision show only over many elements.
var (
	dLong64 = npPos(dF64, 100, 200003)
	dLong32 = npPos(dF32, 101, 100003)
	dLongR  = npR(dF64, 102, 300, 401)
	dLongI  = npI(dI32, 103, -1000, 1000, 300, 401)
)

// npLargeChunks are the chunkings of the large inputs: odd sizes, a
// chunking per axis that differs between inputs, and one chunk.
var npLargeChunks = []npChunking{
	{"chunks 30011|7777", func(k int, _ []int) tensor.Option { return tensor.Chunks([]int{30011, 7777}[k%2]) }},
	{"chunks 97,-1|-1,53", func(k int, shape []int) tensor.Option {
		if len(shape) != 2 {
			return tensor.Chunks(9973)
		}
		if k%2 == 0 {
			return tensor.Chunks(97, -1)
		}
		return tensor.Chunks(-1, 53)
	}},
	npChunkBig,
}

// npExtraCases: larger inputs, reductions of views, FanIn, wrap-around and
// other corners.
func npExtraCases() []npCase {
	one := func(name, expr string, x *ndarray.Array, f func(x *tensor.Tensor) *tensor.Tensor) npCase {
		return npOne(name, expr, ins("x", x), func(e *npEnv) *tensor.Tensor { return f(e.v("x")) })
	}
	large := func(c npCase) npCase { return c.with(npLargeChunks...) }
	return []npCase{
		large(one("large sum float64", "x.sum()", dLong64, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum() })),
		large(one("large sum float32", "x.sum()", dLong32, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum() })),
		large(one("large mean float32", "x.mean()", dLong32, func(x *tensor.Tensor) *tensor.Tensor { return x.Mean() })),
		large(one("large var float64", "x.var()", dLong64, func(x *tensor.Tensor) *tensor.Tensor { return x.Var() })),
		large(one("large cumsum float64", "np.cumsum(x)", dLong64, func(x *tensor.Tensor) *tensor.Tensor { return x.CumSum(0) })),
		large(one("large cumsum float32 tail", "np.cumsum(x)[-5:]", dLong32, func(x *tensor.Tensor) *tensor.Tensor {
			return x.CumSum(0).Index(tensor.From(-5))
		})).tol(2e-4, 0, "NumPy adds 1e5 float32 values one after another, rounding each partial sum to float32 (relative error up to ~1e-4); chunked scans round differently"),
		large(one("large 2-D sum axis 0", "x.sum(axis=0)", dLongR, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(0)) })).
			tol(1e-12, 1e-12, "sums of 300 rough values cancel; pairwise and chunked summation round differently near 0"),
		large(one("large 2-D std axis 1", "x.std(axis=1)", dLongR, func(x *tensor.Tensor) *tensor.Tensor { return x.Std(tensor.Axis(1)) })),
		large(one("large 2-D argmax axis 0", "x.argmax(axis=0)", dLongI, func(x *tensor.Tensor) *tensor.Tensor { return x.ArgMax(tensor.Axis(0)) })),
		large(one("large 2-D argmin", "x.argmin()", dLongI, func(x *tensor.Tensor) *tensor.Tensor { return x.ArgMin() })),
		large(one("large 2-D int32 sum", "x.sum(axis=1)", dLongI, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.Axis(1)) })),
		large(npOne("large matmul", "x.T @ y", ins("x", dLongR, "y", dLongR), func(e *npEnv) *tensor.Tensor {
			return e.v("x").T().MatMul(e.v("y"))
		})).tol(1e-10, 1e-11, npLinWhy),
		large(npOne("large chain", "((x * 2 - y.T.T) ** 2).mean(axis=0)", ins("x", dLongR, "y", dLongR), func(e *npEnv) *tensor.Tensor {
			return e.v("x").Mul(2).Sub(e.v("y").T().T()).Pow(2).Mean(tensor.Axis(0))
		})),
		one("sum of transposed view", "x.T.sum(axis=0)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.T().Sum(tensor.Axis(0)) }),
		one("argmin of flipped view", "x[::-1, ::-1].argmin(axis=1)", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip().ArgMin(tensor.Axis(1)) }),
		one("cumsum of transposed view", "np.cumsum(x.T, axis=1)", dI32a, func(x *tensor.Tensor) *tensor.Tensor { return x.T().CumSum(1) }),
		one("matmul of flipped views", "x[::-1] @ x.T[:, ::-1]", dA, func(x *tensor.Tensor) *tensor.Tensor { return x.Flip(0).MatMul(x.T().Flip(1)) }),
		one("unary of strided view", "np.exp(x[::2, ::-3])", dA, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Index(tensor.All().Step(2), tensor.All().Step(-3)).Exp()
		}),
		one("x + x", "x + x", dB2, func(x *tensor.Tensor) *tensor.Tensor { return x.Add(x) }),
		one("var FanIn 2", "x.var(axis=(0, 2))", dY3, func(x *tensor.Tensor) *tensor.Tensor { return x.Var(tensor.Axis(0, 2), tensor.FanIn(2)) }),
		one("argmax FanIn 3", "x.argmax(axis=1)", dX3, func(x *tensor.Tensor) *tensor.Tensor { return x.ArgMax(tensor.Axis(1), tensor.FanIn(3)) }),
		one("sum FanIn 2 int32", "x.sum()", dI323, func(x *tensor.Tensor) *tensor.Tensor { return x.Sum(tensor.FanIn(2)) }),
		one("where True scalar cond", "np.where(True, x, -1.0)", dA, func(x *tensor.Tensor) *tensor.Tensor { return tensor.Where(true, x, -1.0) }),
		one("int32 add wraps", "x + np.array(2147483640, np.int32)", dI32a, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Add(tensor.FromSlice([]int32{2147483640}, []int{}))
		}),
		one("int64 ** 40 wraps", "x ** 40", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Pow(40) }),
		one("int64 sum wraps", "(x * 2**60).sum(axis=0)", dI, func(x *tensor.Tensor) *tensor.Tensor { return x.Mul(int64(1) << 60).Sum(tensor.Axis(0)) }),
		one("argmax all nan row", "np.where(x > -100, np.nan, 0).argmax(axis=1)", dA, func(x *tensor.Tensor) *tensor.Tensor {
			return tensor.Where(x.Greater(-100), npNaN, 0).ArgMax(tensor.Axis(1))
		}),
		one("max with inf ties", "x.max(axis=0)", dS, func(x *tensor.Tensor) *tensor.Tensor { return x.Max(tensor.Axis(0)) }),
		// A fused elementwise chain into a whole sum (its compensated
		// accumulator) meeting infinities: +Inf alone, then both signs.
		one("fused sum to +inf", "np.fmax(np.abs(x), 0).sum()", dS, func(x *tensor.Tensor) *tensor.Tensor { return x.Abs().Fmax(0).Sum() }),
		one("fused sum of both infinities", "np.fmax(x, -np.inf).sum()", dS, func(x *tensor.Tensor) *tensor.Tensor { return x.Fmax(math.Inf(-1)).Sum() }),
		// NumPy (since 1.20) floors linspace values for an integer dtype.
		npOne("linspace int32", "np.linspace(-1, 1, 5, dtype=np.int32)", nil, func(e *npEnv) *tensor.Tensor {
			return tensor.Linspace(-1, 1, 5, e.chunks(5), tensor.WithDType(dI32))
		}).with(npChunkBig, npChunk1),
		one("reshape empty", "x.reshape(3, 0)", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(3, 0) }),
		one("matmul empty contraction", "x.T @ x", dE03, func(x *tensor.Tensor) *tensor.Tensor { return x.T().MatMul(x) }),
		npOne("matmul empty rows", "x @ y", ins("x", dE03, "y", npQ(dF64, 104, 3, 2)), func(e *npEnv) *tensor.Tensor { return e.v("x").MatMul(e.v("y")) }),
		one("where nan is true", "np.where(x, 1, 0)", dS, func(x *tensor.Tensor) *tensor.Tensor { return tensor.Where(x, 1, 0) }),
		one("float32 * True stays float32", "x * True", dB32, func(x *tensor.Tensor) *tensor.Tensor { return x.Mul(true) }),
		one("mean bool", "x.mean(axis=0)", dBool, func(x *tensor.Tensor) *tensor.Tensor { return x.Mean(tensor.Axis(0)) }),
		npOne("eye k=-5 empty diagonal", "np.eye(5, 5, k=-5)", nil, func(e *npEnv) *tensor.Tensor { return tensor.Eye(5, 5, -5, e.chunks(5, 5)) }),
		npOne("arange float32 fractional", "np.arange(0, 3, 0.1, dtype=np.float32)", nil, func(e *npEnv) *tensor.Tensor {
			return tensor.Arange(0, 3, 0.1, e.chunks(30), tensor.WithDType(dF32))
		}),
		npOne("linspace two", "np.linspace(-7.5, 2.25, 2)", nil, func(e *npEnv) *tensor.Tensor { return tensor.Linspace(-7.5, 2.25, 2, e.chunks(2)) }),
		// Minimal: the mean of integers summing to 0 is exactly 0 in NumPy
		// (sum, then divide); chunk means combined by weight round.
		one("mean int64 exactly zero", "x.mean()", npFill(dI64, 0, []int{6}, func(i int, _ *npLCG) float64 { return []float64{1, 0, 0, 0, 0, -1}[i] }),
			func(x *tensor.Tensor) *tensor.Tensor { return x.Mean() }).with(npChunking{"chunks 5", func(int, []int) tensor.Option { return tensor.Chunks(5) }}),
		one("chunk bytes creation", "np.ones((50, 30), np.int32).cumsum(axis=1)", dA, func(x *tensor.Tensor) *tensor.Tensor {
			return tensor.Ones([]int{50, 30}, tensor.ChunkBytes(1000), tensor.WithDType(dI32)).CumSum(1)
		}).with(npChunkBig),
	}
}

// npRandom materialises the first tensor of tensor.NewGenerator(seed) —
// Rand, Randn, RandInt(-50, 50), Uniform(-2, 3) as float32 — so NumPy can
// be given the very numbers a builder regenerates (the same whatever the
// chunking; see TestRandomSameSeedAcrossChunkings). That lets the fused
// generator kernels be checked against NumPy.
func npRandom(kind string, seed uint64, shape ...int) *tensor.Tensor {
	g := tensor.NewGenerator(seed)
	return npRandomOf(g, kind, shape)
}

func npRandomOf(g *tensor.Generator, kind string, shape []int, opts ...tensor.Option) *tensor.Tensor {
	switch kind {
	case "rand":
		return g.Rand(shape, opts...)
	case "randn":
		return g.Randn(shape, opts...)
	case "randint":
		return g.RandInt(-50, 50, shape, opts...)
	case "uniform32":
		return g.Uniform(-2, 3, shape, append(opts, tensor.WithDType(dF32))...)
	}
	panic("npRandom: unknown kind " + kind)
}

// npMaterialise executes tensors in a throwaway session (for inputs).
func npMaterialise(ts ...*tensor.Tensor) []*ndarray.Array {
	sess, err := phobos.NewSession(phobos.WithFusion(false))
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	out, err := sess.Execute(context.Background(), ts...)
	if err != nil {
		panic(err)
	}
	return out
}

// npFusionCases probe the fused kernels: generators (random, arange,
// linspace, full, eye) inside chains, generators shared by several
// consumers, trailing reductions, and intermediate dtypes a fused kernel
// must keep (float32 rounding and overflow, int32 and int64 wrap-around,
// casts in the middle of a chain).
func npFusionCases() []npCase {
	type E = npEnv
	type T = tensor.Tensor
	rnd := npMaterialise(npRandom("rand", 501, 40, 30), npRandom("randn", 502, 40, 30), npRandom("randint", 503, 40, 30), npRandom("uniform32", 504, 40, 30))
	r, n, ri, u32 := rnd[0], rnd[1], rnd[2], rnd[3]
	gen := func(kind string, seed uint64, e *E) *T {
		return npRandomOf(tensor.NewGenerator(seed), kind, []int{40, 30}, e.chunks(40, 30))
	}
	c := func(name, expr string, in []npIn, f func(e *E) *T) npCase {
		return npOne("fusion "+name, expr, in, f).with(npChunkOdd, npChunkIrr, npChunkBig)
	}
	return []npCase{
		c("rand chain sum", "(r * 2 - 1).sum(axis=1)", ins("r", r), func(e *E) *T {
			return gen("rand", 501, e).Mul(2).Sub(1).Sum(tensor.Axis(1))
		}).tol(1e-12, 1e-13, "sums of values in [-1, 1) cancel; chunked and pairwise summation round differently near 0"),
		c("rand shared by two branches", "(r * 2 - r ** 2).sum()", ins("r", r), func(e *E) *T {
			x := gen("rand", 501, e)
			return x.Mul(2).Sub(x.Pow(2)).Sum()
		}),
		c("rand where clip max", "np.clip(np.where(r > 0.5, r, -r), -0.3, 0.9).max(axis=0)", ins("r", r), func(e *E) *T {
			x := gen("rand", 501, e)
			return tensor.Where(x.Greater(0.5), x, x.Neg()).Clip(-0.3, 0.9).Max(tensor.Axis(0))
		}),
		c("randn exp sum", "np.exp(n).sum(axis=1)", ins("n", n), func(e *E) *T { return gen("randn", 502, e).Exp().Sum(tensor.Axis(1)) }),
		c("randn var", "n.var(axis=0)", ins("n", n), func(e *E) *T { return gen("randn", 502, e).Var(tensor.Axis(0)) }),
		c("randn argmax", "np.abs(n).argmax(axis=1)", ins("n", n), func(e *E) *T { return gen("randn", 502, e).Abs().ArgMax(tensor.Axis(1)) }),
		c("randint chain", "(i % 7 * 3 - i // 4).sum(axis=0)", ins("i", ri), func(e *E) *T {
			x := gen("randint", 503, e)
			return x.Mod(7).Mul(3).Sub(x.FloorDiv(4)).Sum(tensor.Axis(0))
		}),
		c("uniform float32 chain", "(u * 2.0 + 1).mean(axis=1)", ins("u", u32), func(e *E) *T {
			return gen("uniform32", 504, e).Mul(2.0).Add(1).Mean(tensor.Axis(1))
		}),
		c("rand plus arange row", "(r + np.arange(30)).sum(axis=0)", ins("r", r), func(e *E) *T {
			return gen("rand", 501, e).Add(tensor.ArangeN(30, e.chunks(30))).Sum(tensor.Axis(0))
		}),
		c("two generators", "(r * n).sum(axis=1)", ins("r", r, "n", n), func(e *E) *T {
			return gen("rand", 501, e).Mul(gen("randn", 502, e)).Sum(tensor.Axis(1))
		}).tol(1e-12, 1e-13, "sums of products of random values cancel; chunked and pairwise summation round differently near 0"),
		c("rand result and reduction", "(r * 3, (r * 3).min())", ins("r", r), func(e *E) *T {
			return gen("rand", 501, e).Mul(3) // second result below
		}).asMany(func(e *E, first *T) []*T { return tt(first, first.Min()) }),
		c("arange sin sum", "np.sin(np.arange(1000) * 0.01).sum()", nil, func(e *E) *T {
			return tensor.ArangeN(1000, e.chunks(1000)).Mul(0.01).Sin().Sum()
		}).tol(1e-12, 1e-13, "a sum of sines cancels; chunked and pairwise summation round differently"),
		c("linspace square mean", "(np.linspace(-1, 1, 501) ** 2).mean()", nil, func(e *E) *T {
			return tensor.Linspace(-1, 1, 501, e.chunks(501)).Pow(2).Mean()
		}),
		c("full times input", "(np.full((5, 7), 2.5) * x - 1).prod(axis=0)", ins("x", dA), func(e *E) *T {
			return tensor.Full([]int{5, 7}, 2.5, e.chunks(5, 7)).Mul(e.v("x")).Sub(1).Prod(tensor.Axis(0))
		}),
		c("eye chain", "(np.eye(30) * 3 + 1).sum(axis=0)", nil, func(e *E) *T {
			return tensor.Eye(30, 30, 0, e.chunks(30, 30)).Mul(3).Add(1).Sum(tensor.Axis(0))
		}),
		c("arange float32 chain", "(np.arange(-50, 50, 0.5, dtype=np.float32) * 0.25).sum()", nil, func(e *E) *T {
			return tensor.Arange(-50, 50, 0.5, e.chunks(200), tensor.WithDType(dF32)).Mul(0.25).Sum()
		}),
		c("ones int32 chain wraps", "(np.ones((6, 9), np.int32) * 2147483647 + 5).sum(axis=1)", nil, func(e *E) *T {
			return tensor.Ones([]int{6, 9}, e.chunks(6, 9), tensor.WithDType(dI32)).Mul(2147483647).Add(5).Sum(tensor.Axis(1))
		}),
		// Intermediate dtypes.
		c("float32 rounding in chain", "((x + 1e-8) - x).sum(axis=1)", ins("x", dB32), func(e *E) *T {
			x := e.v("x")
			return x.Add(1e-8).Sub(x).Sum(tensor.Axis(1))
		}),
		c("float32 overflow in chain", "x * 1e30 * 1e30 / 1e30", ins("x", dA32), func(e *E) *T {
			return e.v("x").Mul(1e30).Mul(1e30).Div(1e30)
		}),
		c("float32 overflow then reduce", "(x * 1e30 * 1e30 / 1e30).max(axis=0)", ins("x", dA32), func(e *E) *T {
			return e.v("x").Mul(1e30).Mul(1e30).Div(1e30).Max(tensor.Axis(0))
		}),
		c("int32 wrap in chain", "(x * 1000000 * 1000 // 3).sum(axis=0)", ins("x", dI32a), func(e *E) *T {
			return e.v("x").Mul(1000000).Mul(1000).FloorDiv(3).Sum(tensor.Axis(0))
		}),
		c("int64 wrap in chain", "(x * 2**62 * 4 + x) // 3", ins("x", dI), func(e *E) *T {
			return e.v("x").Mul(int64(1) << 62).Mul(4).Add(e.v("x")).FloorDiv(3)
		}),
		c("cast in chain", "((x * 2.7).astype(np.int32) % 4 * 1.5).sum(axis=0)", ins("x", dA), func(e *E) *T {
			return e.v("x").Mul(2.7).Astype(dI32).Mod(4).Mul(1.5).Sum(tensor.Axis(0))
		}),
		c("float32 to float64 and back", "((x.astype(np.float64) / 3).astype(np.float32) * 3 - x)", ins("x", dB32), func(e *E) *T {
			x := e.v("x")
			return x.Astype(dF64).Div(3).Astype(dF32).Mul(3).Sub(x)
		}).tol(0, 1e-6, "the result is float32 rounding noise around 0; compare absolutely"),
		c("bool add in chain", "((b + c) * 1).sum(axis=0)", ins("b", dBool, "c", dB2b), func(e *E) *T {
			return e.v("b").Add(e.v("c")).Mul(1).Sum(tensor.Axis(0))
		}),
		c("int32 true divide in chain", "(x / 4 + x // 4).sum(axis=1)", ins("x", dI32a), func(e *E) *T {
			x := e.v("x")
			return x.Div(4).Add(x.FloorDiv(4)).Sum(tensor.Axis(1))
		}),
		c("float32 exp log", "np.log(np.exp(x)).min(axis=1)", ins("x", dA32), func(e *E) *T {
			return e.v("x").Exp().Log().Min(tensor.Axis(1))
		}).tol(1e-5, 1e-6, "log(exp(x)) in float32 is x up to float32 rounding; near 0 compare absolutely"),
		c("comparison chain to count", "((x > y) == (y < 0)).sum(axis=1)", ins("x", dA, "y", dRow), func(e *E) *T {
			x, y := e.v("x"), e.v("y")
			return x.Greater(y).Equal(y.Less(0)).Sum(tensor.Axis(1))
		}),
		c("fused input shared with result", "(x * 2, (x * 2).sum(axis=0), x.max())", ins("x", dB2), func(e *E) *T {
			return e.v("x").Mul(2)
		}).asMany(func(e *E, first *T) []*T { return tt(first, first.Sum(tensor.Axis(0)), e.v("x").Max()) }),
		c("chain over a transpose and broadcast", "((x.T * 2 + r[:, None]) ** 2).sum(axis=1)", ins("x", dA, "r", dRow), func(e *E) *T {
			return e.v("x").T().Mul(2).Add(e.v("r").ExpandDims(1)).Pow(2).Sum(tensor.Axis(1))
		}),
		c("very long chain", "(((x * 1.0001 + 0.001) * 1.0001 + 0.001) * 1.0001 + 0.001)", ins("x", dB2), func(e *E) *T {
			return e.v("x").Mul(1.0001).Add(0.001).Mul(1.0001).Add(0.001).Mul(1.0001).Add(0.001)
		}),
	}
}

// asMany turns a one-result case into a several-result one: more derives
// the results from the tensor the original builder makes.
func (c npCase) asMany(more func(e *npEnv, first *tensor.Tensor) []*tensor.Tensor) npCase {
	build := c.build
	c.build = func(e *npEnv) []*tensor.Tensor { return more(e, build(e)[0]) }
	return c
}
