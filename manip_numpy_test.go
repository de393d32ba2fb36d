package phobos_test

import (
	"fmt"
	"testing"

	"github.com/phobos-tensor/phobos/tensor"
)

// The NumPy differential suite of the array manipulation functions (roll,
// repeat, tile, pad, tril, diagonal, insert, ...; tensor/manip.go), run like
// the main suite: every case under every chunking, with fusion on and off
// and on two workers.

// Inputs of the manipulation cases, beside the main suite's.
var (
	mV1   = npQ(dF64, 101, 1)                 // one element
	mV2   = npQ(dF64, 102, 2)                 // two elements
	mV0   = npQ(dF64, 103, 0)                 // empty 1-d
	mI1   = npI(dI64, 104, -9, 9, 11)         // int64 vector
	mV32  = npQ(dF32, 105, 9)                 // float32 vector
	mB1   = npB(106, 8)                       // bool vector
	mW    = npQ(dF64, 107, 8, 3)              // tall
	mI4   = npI(dI32, 108, -9, 9, 2, 3, 4, 5) // 4-d int32
	mX    = npPos(dF64, 109, 13)              // sample points (increasing after cumsum)
	mX2   = npPos(dF64, 110, 5, 7)            // 2-d sample spacings
	mVals = npI(dI64, 111, 100, 120, 5)       // values to insert
	mVF   = npR(dF64, 112, 7)                 // float values to insert into ints
	mE30  = npQ(dF64, 113, 3, 0)              // empty, other axis
	mSq   = npR(dF64, 114, 6, 6)              // square
	mBat  = npR(dF32, 115, 3, 4, 6)           // float32 stack of matrices
	mBo2  = npB(116, 4, 5)                    // bool matrix
	mW2   = npI(dI64, 117, 0, 3, 4)           // small non-negative integers
	mV5   = npQ(dF64, 118, 5)                 // a column to insert
)

func manipCases() []npCase {
	one := npOne
	var cs []npCase
	add := func(c ...npCase) { cs = append(cs, c...) }

	// roll
	for _, s := range []int{0, 1, 3, -2, 7, 36, -36, 100} {
		add(one(fmt.Sprintf("roll flat %d", s), fmt.Sprintf("np.roll(a, %d)", s), ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Roll(s) }))
		add(one(fmt.Sprintf("roll axis -1 by %d", s), fmt.Sprintf("np.roll(a, %d, axis=-1)", s), ins("a", dI),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Roll(s, -1) }))
	}
	add(
		one("roll 3-d two axes", "np.roll(a, (2, -3), axis=(0, 2))", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RollAxes([]int{2, -3}, []int{0, 2}) }),
		one("roll one shift two axes", "np.roll(a, 4, axis=(1, 2))", ins("a", dI323),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Roll(4, 1, 2) }),
		one("roll one axis twice", "np.roll(a, (1, 2), axis=(1, 1))", ins("a", dB3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RollAxes([]int{1, 2}, []int{1, 1}) }),
		one("roll shifts on one axis", "np.roll(a, (1, 5), axis=0)", ins("a", dA32),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RollAxes([]int{1, 5}, []int{0}) }),
		one("roll flat several shifts", "np.roll(a, (2, 5, -1))", ins("a", dI),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RollAxes([]int{2, 5, -1}, nil) }),
		one("roll empty", "np.roll(a, 2, axis=0)", ins("a", dE03),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Roll(2, 0) }),
		one("roll one element", "np.roll(a, 5)", ins("a", mV1),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Roll(5) }),
		one("roll bad axis", "np.roll(a, 1, axis=2)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Roll(1, 2) }).fails(),
		one("roll mismatched", "np.roll(a, (1, 2, 3), axis=(0, 1))", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RollAxes([]int{1, 2, 3}, []int{0, 1}) }).fails(),
	)

	// repeat
	for _, r := range []int{0, 1, 3} {
		add(one(fmt.Sprintf("repeat flat %d", r), fmt.Sprintf("np.repeat(a, %d)", r), ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Repeat(r) }))
		add(one(fmt.Sprintf("repeat axis 0 by %d", r), fmt.Sprintf("np.repeat(a, %d, axis=0)", r), ins("a", dI32a),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Repeat(r, 0) }))
		add(one(fmt.Sprintf("repeat axis -1 by %d 3-d", r), fmt.Sprintf("np.repeat(a, %d, axis=-1)", r), ins("a", dB3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Repeat(r, -1) }))
	}
	reps := []int{2, 0, 1, 3, 2}
	reps7 := []int{1, 0, 2, 3, 1, 1, 4}
	add(
		one("repeat each axis 0", "np.repeat(a, [2, 0, 1, 3, 2], axis=0)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RepeatEach(reps, 0) }),
		one("repeat each axis 1", "np.repeat(a, [1, 0, 2, 3, 1, 1, 4], axis=1)", ins("a", dA32),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RepeatEach(reps7, 1) }),
		one("repeat each flat", "np.repeat(a, [2, 0, 1, 3, 2])", ins("a", mVals),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RepeatEach(reps) }),
		one("repeat empty", "np.repeat(a, 3, axis=0)", ins("a", dE03),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Repeat(3, 0) }),
		one("repeat 0-d", "np.repeat(a, 4)", ins("a", dZ0),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Repeat(4) }),
		one("repeat bad count", "np.repeat(a, [1, 2], axis=0)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RepeatEach([]int{1, 2}, 0) }).fails(),
		one("repeat negative", "np.repeat(a, -1)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Repeat(-1) }).fails(),
		one("repeat bad axis", "np.repeat(a, 2, axis=3)", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Repeat(2, 3) }).fails(),
	)

	// tile
	for _, r := range [][]int{{2}, {3, 1}, {1, 2}, {2, 1, 3}, {0}, {2, 0}, {}} {
		add(one(fmt.Sprintf("tile 2-d %v", r), fmt.Sprintf("np.tile(a, %s)", pyTuple(r)), ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tile(r...) }))
	}
	add(
		one("tile 1-d", "np.tile(a, (2, 3))", ins("a", mI1),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tile(2, 3) }),
		one("tile 3-d short reps", "np.tile(a, 2)", ins("a", dB3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tile(2) }),
		one("tile 0-d", "np.tile(a, (2, 2))", ins("a", dZ0i),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tile(2, 2) }),
		one("tile negative", "np.tile(a, -1)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tile(-1) }).fails(),
	)

	// axes
	add(
		one("swapaxes", "np.swapaxes(a, 0, 2)", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").SwapAxes(0, 2) }),
		one("swapaxes negative", "np.swapaxes(a, -1, 1)", ins("a", dI3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").SwapAxes(-1, 1) }),
		one("swapaxes same", "np.swapaxes(a, 1, 1)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").SwapAxes(1, 1) }),
		one("swapaxes bad", "np.swapaxes(a, 0, 3)", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").SwapAxes(0, 3) }).fails(),
		one("moveaxis one", "np.moveaxis(a, 0, -1)", ins("a", mI4),
			func(e *npEnv) *tensor.Tensor { return e.v("a").MoveAxis([]int{0}, []int{-1}) }),
		one("moveaxis two", "np.moveaxis(a, [0, 3], [2, 0])", ins("a", mI4),
			func(e *npEnv) *tensor.Tensor { return e.v("a").MoveAxis([]int{0, 3}, []int{2, 0}) }),
		one("moveaxis three", "np.moveaxis(a, [1, 2, 0], [-1, 0, 1])", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").MoveAxis([]int{1, 2, 0}, []int{-1, 0, 1}) }),
		one("moveaxis repeated", "np.moveaxis(a, [0, 0], [1, 2])", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").MoveAxis([]int{0, 0}, []int{1, 2}) }).fails(),
		one("moveaxis lengths", "np.moveaxis(a, [0, 1], [1])", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").MoveAxis([]int{0, 1}, []int{1}) }).fails(),
	)
	for _, ar := range [][2]int{{2, 0}, {0, 3}, {0, 4}, {3, 1}, {-1, 0}, {1, -2}, {2, 4}} {
		add(one(fmt.Sprintf("rollaxis %v", ar), fmt.Sprintf("np.rollaxis(a, %d, %d)", ar[0], ar[1]), ins("a", mI4),
			func(e *npEnv) *tensor.Tensor { return e.v("a").RollAxis(ar[0], ar[1]) }))
	}
	add(one("rollaxis bad start", "np.rollaxis(a, 0, 5)", ins("a", dX3),
		func(e *npEnv) *tensor.Tensor { return e.v("a").RollAxis(0, 5) }).fails())

	// stacking
	add(
		one("hstack 2-d", "np.hstack([a, b])", ins("a", dA, "b", dI),
			func(e *npEnv) *tensor.Tensor { return tensor.HStack(e.v("a"), e.v("b")) }),
		one("hstack 1-d", "np.hstack([a, b, c])", ins("a", dV, "b", mI1, "c", mV0),
			func(e *npEnv) *tensor.Tensor { return tensor.HStack(e.v("a"), e.v("b"), e.v("c")) }),
		one("hstack 0-d", "np.hstack([a, b])", ins("a", dZ0, "b", dZ0i),
			func(e *npEnv) *tensor.Tensor { return tensor.HStack(e.v("a"), e.v("b")) }),
		one("vstack 1-d", "np.vstack([a, b])", ins("a", dRow, "b", dRowLo),
			func(e *npEnv) *tensor.Tensor { return tensor.VStack(e.v("a"), e.v("b")) }),
		one("vstack mixed", "np.vstack([a, b, c])", ins("a", dA, "b", dRow32, "c", dI),
			func(e *npEnv) *tensor.Tensor { return tensor.VStack(e.v("a"), e.v("b"), e.v("c")) }),
		one("vstack bad", "np.vstack([a, b])", ins("a", dA, "b", dV),
			func(e *npEnv) *tensor.Tensor { return tensor.VStack(e.v("a"), e.v("b")) }).fails(),
		one("dstack 2-d", "np.dstack([a, b])", ins("a", dA, "b", dB2),
			func(e *npEnv) *tensor.Tensor { return tensor.DStack(e.v("a"), e.v("b")) }),
		one("dstack 1-d", "np.dstack([a, b])", ins("a", dV, "b", dV2),
			func(e *npEnv) *tensor.Tensor { return tensor.DStack(e.v("a"), e.v("b")) }),
		one("dstack 3-d", "np.dstack([a, b])", ins("a", dX3, "b", dB3),
			func(e *npEnv) *tensor.Tensor { return tensor.DStack(e.v("a"), e.v("b")) }),
		one("column_stack 1-d", "np.column_stack([a, b])", ins("a", dV, "b", dV2),
			func(e *npEnv) *tensor.Tensor { return tensor.ColumnStack(e.v("a"), e.v("b")) }),
		one("column_stack mixed", "np.column_stack([a, b])", ins("a", dA, "b", npQ(dF64, 130, 5)),
			func(e *npEnv) *tensor.Tensor { return tensor.ColumnStack(e.v("a"), e.v("b")) }),
		npMany("atleast_1d", "(np.atleast_1d(a), np.atleast_1d(b), np.atleast_1d(c))", ins("a", dZ0, "b", dV, "c", dA),
			func(e *npEnv) []*tensor.Tensor {
				return []*tensor.Tensor{tensor.AtLeast1D(e.v("a")), tensor.AtLeast1D(e.v("b")), tensor.AtLeast1D(e.v("c"))}
			}),
		npMany("atleast_2d", "(np.atleast_2d(a), np.atleast_2d(b), np.atleast_2d(c))", ins("a", dZ0, "b", dV, "c", dX3),
			func(e *npEnv) []*tensor.Tensor {
				return []*tensor.Tensor{tensor.AtLeast2D(e.v("a")), tensor.AtLeast2D(e.v("b")), tensor.AtLeast2D(e.v("c"))}
			}),
		npMany("atleast_3d", "(np.atleast_3d(a), np.atleast_3d(b), np.atleast_3d(c), np.atleast_3d(d))", ins("a", dZ0i, "b", dV, "c", dA, "d", mI4),
			func(e *npEnv) []*tensor.Tensor {
				return []*tensor.Tensor{tensor.AtLeast3D(e.v("a")), tensor.AtLeast3D(e.v("b")), tensor.AtLeast3D(e.v("c")), tensor.AtLeast3D(e.v("d"))}
			}),
		one("append flat", "np.append(a, b)", ins("a", dA, "b", dI),
			func(e *npEnv) *tensor.Tensor { return tensor.Append(e.v("a"), e.v("b")) }),
		one("append axis", "np.append(a, b, axis=0)", ins("a", dA, "b", dB2),
			func(e *npEnv) *tensor.Tensor { return tensor.Append(e.v("a"), e.v("b"), 0) }),
		one("append bad", "np.append(a, b, axis=1)", ins("a", dA, "b", dV),
			func(e *npEnv) *tensor.Tensor { return tensor.Append(e.v("a"), e.v("b"), 1) }).fails(),
	)

	// diff and friends
	for _, n := range []int{0, 1, 2, 3, 7, 9} {
		add(one(fmt.Sprintf("diff n=%d", n), fmt.Sprintf("np.diff(a, n=%d)", n), ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(n, -1, nil, nil) }))
	}
	add(
		one("diff axis 0 int32", "np.diff(a, axis=0)", ins("a", dI32a),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(1, 0, nil, nil) }),
		one("diff bool", "np.diff(a, n=2, axis=1)", ins("a", dBool),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(2, 1, nil, nil) }),
		one("diff 3-d axis 1", "np.diff(a, 2, axis=1)", ins("a", dF323),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(2, 1, nil, nil) }),
		one("diff prepend scalar", "np.diff(a, prepend=np.float64(0.5))", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(1, -1, tensor.Scalar(0.5).Astype(dF64), nil) }),
		one("diff prepend append arrays", "np.diff(a, axis=0, prepend=p.reshape(1, 7), append=q)", ins("a", dI, "p", dRowLo.Astype(dF64), "q", dB2),
			func(e *npEnv) *tensor.Tensor {
				return e.v("a").Diff(1, 0, e.v("p").Reshape(1, 7), e.v("q"))
			}),
		one("diff append int", "np.diff(a, append=q)", ins("a", mI1, "q", mVals),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(1, 0, nil, e.v("q")) }),
		one("diff empty axis", "np.diff(a, axis=0)", ins("a", dE03),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(1, 0, nil, nil) }),
		one("diff 0-d", "np.diff(a)", ins("a", dZ0),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(1, -1, nil, nil) }).fails(),
		one("diff negative n", "np.diff(a, n=-1)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(-1, -1, nil, nil) }).fails(),
		one("diff bad axis", "np.diff(a, axis=2)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diff(1, 2, nil, nil) }).fails(),
		one("ediff1d", "np.ediff1d(a)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Ediff1d(nil, nil) }),
		one("ediff1d ends", "np.ediff1d(a, to_end=q, to_begin=p)", ins("a", mI1, "p", mW2, "q", mVals),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Ediff1d(e.v("q"), e.v("p")) }),
		one("ediff1d float ends", "np.ediff1d(a, to_begin=p)", ins("a", dA32, "p", mVals),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Ediff1d(nil, e.v("p")) }),
		one("ediff1d one element", "np.ediff1d(a)", ins("a", mV1),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Ediff1d(nil, nil) }),
		one("ediff1d unsafe ends", "np.ediff1d(a, to_end=q)", ins("a", mI1, "q", dV),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Ediff1d(e.v("q"), nil) }).fails(),
		one("ediff1d bool", "np.ediff1d(a)", ins("a", mB1),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Ediff1d(nil, nil) }).fails(),
		one("trapz dx", "np.trapz(a, dx=0.5)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return tensor.Trapz(e.v("a"), nil, 0.5, -1) }),
		one("trapz int axis 0", "np.trapz(a, axis=0)", ins("a", dI),
			func(e *npEnv) *tensor.Tensor { return tensor.Trapz(e.v("a"), nil, 1, 0) }),
		one("trapz float32", "np.trapz(a, dx=2.0, axis=1)", ins("a", dF323),
			func(e *npEnv) *tensor.Tensor { return tensor.Trapz(e.v("a"), nil, 2, 1) }),
		one("trapz x 1-d", "np.trapz(y, x=np.cumsum(x))", ins("y", dV, "x", mX),
			func(e *npEnv) *tensor.Tensor { return tensor.Trapz(e.v("y"), e.v("x").CumSum(0), 1, -1) }),
		one("trapz x 1-d axis 0", "np.trapz(y, x=np.cumsum(x)[:5], axis=0)", ins("y", dA, "x", mX),
			func(e *npEnv) *tensor.Tensor {
				return tensor.Trapz(e.v("y"), e.v("x").CumSum(0).Index(tensor.To(5)), 1, 0)
			}),
		one("trapz x 2-d", "np.trapz(y, x=x)", ins("y", dB2, "x", mX2),
			func(e *npEnv) *tensor.Tensor { return tensor.Trapz(e.v("y"), e.v("x"), 1, -1) }),
		one("trapz one sample", "np.trapz(a)", ins("a", mV1),
			func(e *npEnv) *tensor.Tensor { return tensor.Trapz(e.v("a"), nil, 1, -1) }),
	)

	// pad
	type padCase struct {
		width [][2]int
		py    string
	}
	widths := []padCase{
		{[][2]int{{1, 2}}, "(1, 2)"},
		{[][2]int{{0, 3}, {2, 0}}, "((0, 3), (2, 0))"},
		{[][2]int{{4, 4}, {6, 7}}, "((4, 4), (6, 7))"},
		{[][2]int{{12, 1}, {0, 15}}, "((12, 1), (0, 15))"},
	}
	for _, mode := range []tensor.PadMode{tensor.PadConstant, tensor.PadEdge, tensor.PadReflect, tensor.PadSymmetric, tensor.PadWrap} {
		for wi, w := range widths {
			add(one(fmt.Sprintf("pad %s %d", mode, wi), fmt.Sprintf("np.pad(a, %s, mode=%q)", w.py, mode), ins("a", dA),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Pad(w.width, mode, nil) }))
		}
		add(
			one(fmt.Sprintf("pad %s 1-d wide", mode), fmt.Sprintf("np.pad(a, (9, 11), mode=%q)", mode), ins("a", mV2),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{{9, 11}}, mode, nil) }),
			one(fmt.Sprintf("pad %s one element", mode), fmt.Sprintf("np.pad(a, (3, 2), mode=%q)", mode), ins("a", mV1),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{{3, 2}}, mode, nil) }),
			one(fmt.Sprintf("pad %s int 3-d", mode), fmt.Sprintf("np.pad(a, ((1, 0), (2, 3), (7, 1)), mode=%q)", mode), ins("a", dI3),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{{1, 0}, {2, 3}, {7, 1}}, mode, nil) }),
			one(fmt.Sprintf("pad %s bool", mode), fmt.Sprintf("np.pad(a, 3, mode=%q)", mode), ins("a", dBool),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{{3, 3}}, mode, nil) }),
		)
	}
	// Pads wider than the axis, where NumPy 1.24 fills in rounds.
	for _, n := range []int{1, 2, 3, 5} {
		v := npArange(dI64, n)
		for _, w := range [][2]int{{0, 7}, {8, 1}, {13, 13}, {1, 9}, {6, 2}, {3, 11}} {
			for _, mode := range []tensor.PadMode{tensor.PadReflect, tensor.PadSymmetric, tensor.PadWrap} {
				add(one(fmt.Sprintf("pad %s n=%d %v", mode, n, w), fmt.Sprintf("np.pad(a, (%d, %d), mode=%q)", w[0], w[1], mode), ins("a", v),
					func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{w}, mode, nil) }).with(npChunk1, npChunkOdd))
			}
		}
	}
	add(
		one("pad constant values", "np.pad(a, ((1, 2), (3, 1)), constant_values=((-1.5, 2.5), (7, 8)))", ins("a", dA32),
			func(e *npEnv) *tensor.Tensor {
				return e.v("a").Pad([][2]int{{1, 2}, {3, 1}}, tensor.PadConstant, [][2]float64{{-1.5, 2.5}, {7, 8}})
			}),
		one("pad constant int truncates", "np.pad(a, 2, constant_values=1.75)", ins("a", dI),
			func(e *npEnv) *tensor.Tensor {
				return e.v("a").Pad([][2]int{{2, 2}}, tensor.PadConstant, [][2]float64{{1.75, 1.75}})
			}),
		one("pad constant empty", "np.pad(a, ((1, 1), (0, 2)), constant_values=3)", ins("a", dE03),
			func(e *npEnv) *tensor.Tensor {
				return e.v("a").Pad([][2]int{{1, 1}, {0, 2}}, tensor.PadConstant, [][2]float64{{3, 3}})
			}),
		one("pad reflect empty", "np.pad(a, 1, mode='reflect')", ins("a", dE03),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{{1, 1}}, tensor.PadReflect, nil) }).fails(),
		one("pad negative", "np.pad(a, -1)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{{-1, -1}}, tensor.PadConstant, nil) }).fails(),
		one("pad bad widths", "np.pad(a, ((1, 1), (1, 1), (1, 1)))", ins("a", dA),
			func(e *npEnv) *tensor.Tensor {
				return e.v("a").Pad([][2]int{{1, 1}, {1, 1}, {1, 1}}, tensor.PadConstant, nil)
			}).fails(),
		one("pad no-op", "np.pad(a, 0, mode='wrap')", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Pad([][2]int{{0, 0}}, tensor.PadWrap, nil) }),
	)

	// triangles
	for _, k := range []int{0, 1, -1, 3, -4, 6, -5, 100, -100} {
		add(
			one(fmt.Sprintf("tril k=%d", k), fmt.Sprintf("np.tril(a, %d)", k), ins("a", dA),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Tril(k) }),
			one(fmt.Sprintf("triu k=%d", k), fmt.Sprintf("np.triu(a, %d)", k), ins("a", dI32a),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Triu(k) }),
		)
	}
	add(
		one("tril stack", "np.tril(a, 1)", ins("a", mBat),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tril(1) }),
		one("triu stack", "np.triu(a, -2)", ins("a", dB3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Triu(-2) }),
		one("tril 1-d", "np.tril(a, -1)", ins("a", dV),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tril(-1) }),
		one("triu 1-d", "np.triu(a, 2)", ins("a", mI1),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Triu(2) }),
		one("tril tall", "np.tril(a)", ins("a", mW),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tril(0) }),
		one("triu empty", "np.triu(a)", ins("a", dE03),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Triu(0) }),
		one("tril 0-d", "np.tril(a)", ins("a", dZ0),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Tril(0) }).fails(),
	)

	// diagonals
	for _, k := range []int{0, 1, -1, 4, -3, 6, -4, 7, -5, 20} {
		add(
			one(fmt.Sprintf("diagonal offset %d", k), fmt.Sprintf("np.diagonal(a, %d)", k), ins("a", dA),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Diagonal(k, 0, 1) }),
			one(fmt.Sprintf("trace offset %d", k), fmt.Sprintf("np.trace(a, %d)", k), ins("a", dI32a),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Trace(k, 0, 1) }),
			one(fmt.Sprintf("diag of 2-d k=%d", k), fmt.Sprintf("np.diag(a, %d)", k), ins("a", mSq),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Diag(k) }),
		)
	}
	for _, k := range []int{0, 2, -3} {
		add(
			one(fmt.Sprintf("diag of 1-d k=%d", k), fmt.Sprintf("np.diag(a, %d)", k), ins("a", mI1),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Diag(k) }),
			one(fmt.Sprintf("diagflat k=%d", k), fmt.Sprintf("np.diagflat(a, %d)", k), ins("a", mBo2),
				func(e *npEnv) *tensor.Tensor { return e.v("a").Diagflat(k) }),
		)
	}
	add(
		one("diagonal 3-d axes 1 2", "np.diagonal(a, 1, 1, 2)", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diagonal(1, 1, 2) }),
		one("diagonal 3-d axes 2 0", "np.diagonal(a, -1, 2, 0)", ins("a", dB3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diagonal(-1, 2, 0) }),
		one("diagonal 4-d", "np.diagonal(a, 0, -1, 1)", ins("a", mI4),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diagonal(0, -1, 1) }),
		one("trace 3-d", "np.trace(a, 2, 0, 2)", ins("a", dF323),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Trace(2, 0, 2) }),
		one("trace bool", "np.trace(a)", ins("a", dBool),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Trace(0, 0, 1) }),
		one("diagonal empty", "np.diagonal(a)", ins("a", dE03),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diagonal(0, 0, 1) }),
		one("diag empty 1-d", "np.diag(a, 2)", ins("a", mV0),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diag(2) }),
		one("diagonal same axes", "np.diagonal(a, 0, 1, 1)", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diagonal(0, 1, 1) }).fails(),
		one("diagonal 1-d", "np.diagonal(a)", ins("a", dV),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diagonal(0, 0, 1) }).fails(),
		one("diag 3-d", "np.diag(a)", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Diag(0) }).fails(),
	)

	// grids
	for _, ix := range []string{"xy", "ij"} {
		for _, sparse := range []bool{false, true} {
			py := "True"
			if !sparse {
				py = "False"
			}
			add(
				npMany(fmt.Sprintf("meshgrid 2 %s sparse=%v", ix, sparse), fmt.Sprintf("tuple(np.meshgrid(a, b, indexing=%q, sparse=%s))", ix, py), ins("a", dV, "b", mI1),
					func(e *npEnv) []*tensor.Tensor { return tensor.Meshgrid(ix, sparse, e.v("a"), e.v("b")) }),
				npMany(fmt.Sprintf("meshgrid 3 %s sparse=%v", ix, sparse), fmt.Sprintf("tuple(np.meshgrid(a, b, c, indexing=%q, sparse=%s))", ix, py), ins("a", mV2, "b", mV32, "c", dA),
					func(e *npEnv) []*tensor.Tensor { return tensor.Meshgrid(ix, sparse, e.v("a"), e.v("b"), e.v("c")) }),
			)
		}
	}
	add(
		npMany("meshgrid 1", "tuple(np.meshgrid(a))", ins("a", dV),
			func(e *npEnv) []*tensor.Tensor { return tensor.Meshgrid("xy", false, e.v("a")) }),
		npMany("meshgrid bad indexing", "tuple(np.meshgrid(a, indexing='yx'))", ins("a", dV),
			func(e *npEnv) []*tensor.Tensor { return tensor.Meshgrid("yx", false, e.v("a")) }).fails(),
		one("indices", "np.indices((3, 4, 2))", nil,
			func(e *npEnv) *tensor.Tensor { return tensor.Indices([]int{3, 4, 2}, tensor.Chunks(2)) }),
		one("indices int32", "np.indices((5,), dtype=np.int32)", nil,
			func(e *npEnv) *tensor.Tensor { return tensor.Indices([]int{5}, tensor.WithDType(dI32)) }),
		one("indices empty dim", "np.indices((2, 0))", nil,
			func(e *npEnv) *tensor.Tensor { return tensor.Indices([]int{2, 0}) }),
		npMany("indices sparse", "np.indices((3, 5), sparse=True)", nil,
			func(e *npEnv) []*tensor.Tensor { return tensor.IndicesSparse([]int{3, 5}) }),
	)

	// insert and delete
	add(
		one("delete int flat", "np.delete(a, 5)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete(5) }),
		one("delete negative axis 1", "np.delete(a, -1, axis=1)", ins("a", dI),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete(-1, 1) }),
		one("delete list", "np.delete(a, [0, 3, 3, -1], axis=0)", ins("a", dX3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete([]int{0, 3, 3, -1}, 0) }),
		one("delete slice", "np.delete(a, slice(1, None, 2), axis=1)", ins("a", dB3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete(tensor.From(1).Step(2), 1) }),
		one("delete reverse slice", "np.delete(a, slice(None, None, -3))", ins("a", dV),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete(tensor.Rev().Step(-3)) }),
		one("delete all", "np.delete(a, slice(None), axis=0)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete(tensor.All(), 0) }),
		one("delete empty list", "np.delete(a, np.array([], dtype=int), axis=1)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete([]int{}, 1) }),
		one("delete out of bounds", "np.delete(a, 7, axis=0)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete(7, 0) }).fails(),
		one("delete list out of bounds", "np.delete(a, [1, -14])", ins("a", dV),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Delete([]int{1, -14}) }).fails(),
		one("insert scalar flat", "np.insert(a, 3, 9.5)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert(3, tensor.Scalar(9.5)) }),
		one("insert scalar axis row", "np.insert(a, 2, v, axis=0)", ins("a", dA, "v", dRowLo),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert(2, e.v("v"), 0) }),
		one("insert scalar axis block", "np.insert(a, -1, v, axis=1)", ins("a", dI, "v", npI(dI64, 140, 0, 5, 2, 5)),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert(-1, e.v("v"), 1) }),
		one("insert at end", "np.insert(a, 7, v, axis=1)", ins("a", dA, "v", mV5),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert(7, e.v("v"), 1) }),
		one("insert list", "np.insert(a, [1, 5, 1, 0, -2], v[:5])", ins("a", mI1, "v", mVF),
			func(e *npEnv) *tensor.Tensor {
				return e.v("a").Insert([]int{1, 5, 1, 0, -2}, e.v("v").Index(tensor.To(5)))
			}),
		one("insert list axis", "np.insert(a, [0, 7, 3], 2.5, axis=1)", ins("a", dA32),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert([]int{0, 7, 3}, tensor.Scalar(2.5), 1) }),
		one("insert one-item list", "np.insert(a, [2], v, axis=1)", ins("a", dA, "v", npQ(dF64, 141, 5, 1)),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert([]int{2}, e.v("v"), 1) }),
		one("insert slice", "np.insert(a, slice(0, 4, 2), -1, axis=0)", ins("a", dB3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert(tensor.S(0, 4, 2), tensor.Scalar(true), 0) }),
		one("insert out of bounds", "np.insert(a, 6, 1.0, axis=0)", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Insert(6, tensor.Scalar(1.0), 0) }).fails(),
	)

	// splitting and rotating
	for _, s := range []int{1, 2, 3, 5, 8} {
		s := s
		py := "(" + fmt.Sprint("np.array_split(a, ", s, ", axis=1)") + ")"
		add(npMany(fmt.Sprintf("array_split %d", s), "tuple"+py, ins("a", dA),
			func(e *npEnv) []*tensor.Tensor { return e.v("a").ArraySplit(s, 1) }))
	}
	add(
		npMany("array_split 1-d", "tuple(np.array_split(a, 4))", ins("a", dV),
			func(e *npEnv) []*tensor.Tensor { return e.v("a").ArraySplit(4, 0) }),
		npMany("array_split zero", "tuple(np.array_split(a, 0))", ins("a", dV),
			func(e *npEnv) []*tensor.Tensor { return e.v("a").ArraySplit(0, 0) }).fails(),
	)
	for _, k := range []int{0, 1, 2, 3, -1, 5} {
		add(one(fmt.Sprintf("rot90 k=%d", k), fmt.Sprintf("np.rot90(a, %d)", k), ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Rot90(k, [2]int{0, 1}) }))
		add(one(fmt.Sprintf("rot90 3-d k=%d", k), fmt.Sprintf("np.rot90(a, %d, axes=(2, 0))", k), ins("a", dI3),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Rot90(k, [2]int{2, 0}) }))
	}
	add(
		one("rot90 same axes", "np.rot90(a, 1, axes=(0, -2))", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Rot90(1, [2]int{0, -2}) }).fails(),
		one("rot90 axes out of range", "np.rot90(a, 1, axes=(0, 2))", ins("a", dA),
			func(e *npEnv) *tensor.Tensor { return e.v("a").Rot90(1, [2]int{0, 2}) }).fails(),
	)
	return cs
}

// pyTuple writes ints as a Python tuple.
func pyTuple(v []int) string {
	s := "("
	for _, x := range v {
		s += fmt.Sprintf("%d, ", x)
	}
	return s + ")"
}

// TestManipNumpyDifferential runs manipCases against NumPy.
func TestManipNumpyDifferential(t *testing.T) {
	npSuite(t, "manip", manipCases(), npChunkAll, npSuiteModes)
}
