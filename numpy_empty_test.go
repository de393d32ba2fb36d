package phobos_test

import (
	"github.com/phobos-tensor/phobos/tensor"
)

// Empty axes through every shape of fused kernel. A fused tile kernel that
// ends in a reduction over an axis of length 0 used to fail ("cannot
// reshape array of size 0 into shape [7 1 1]") where the unfused graph gave
// NumPy's answer.
var (
	dEmpMid  = npQ(dF64, 41, 6, 0, 5) // empty middle axis
	dEmpHead = npQ(dF64, 42, 0, 7)    // empty leading axis
	dEmpLast = npQ(dF64, 43, 5, 4, 0) // empty trailing axis
	dEmpI32  = npI(dI32, 44, -9, 9, 6, 0, 5)
)

func npEmptyAxisCases() []npCase {
	type E = npEnv
	type T = tensor.Tensor
	c := func(name, expr string, in []npIn, f func(e *E) *T) npCase {
		return npOne("empty axis "+name, expr, in, f).with(npChunkOdd, npChunkBig, npChunk1)
	}
	bad := func(name, expr string, in []npIn, f func(e *E) *T) npCase {
		return npOne("empty axis error "+name, expr, in, f).fails().with(npChunkOdd, npChunkBig)
	}
	x := func(e *E) *T { return e.v("x") }
	// Generated values of an empty shape are empty, so NumPy's input of
	// that shape is the same array: generators fuse into these kernels.
	gen := func(e *E, shape ...int) *T {
		return tensor.NewGenerator(7).Uniform(0, 1, shape, e.chunks(shape...))
	}
	return []npCase{
		c("clip log1p mean keepdims", "np.log1p(np.clip(x, 0.1, 0.9)).mean(axis=(1, 2), keepdims=True)", ins("x", dEmpMid), func(e *E) *T {
			return x(e).Clip(0.1, 0.9).Log1p().Mean(tensor.Axis(1, 2), tensor.KeepDims())
		}),
		c("chain sum axis 1", "(x * 2 + 1).sum(axis=1)", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(2).Add(1).Sum(tensor.Axis(1)) }),
		c("chain sum axis 0", "(x * 2 + 1).sum(axis=0)", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(2).Add(1).Sum(tensor.Axis(0)) }),
		c("chain sum axis 2", "(x * 2 + 1).sum(axis=2)", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(2).Add(1).Sum(tensor.Axis(2)) }),
		c("chain sum all", "(x * 2 + 1).sum()", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(2).Add(1).Sum() }),
		c("chain sum axes (0, 2) keepdims", "np.exp(x).sum(axis=(0, 2), keepdims=True)", ins("x", dEmpMid), func(e *E) *T {
			return x(e).Exp().Sum(tensor.Axis(0, 2), tensor.KeepDims())
		}),
		c("chain prod axis 1", "(x + 1).prod(axis=1)", ins("x", dEmpMid), func(e *E) *T { return x(e).Add(1).Prod(tensor.Axis(1)) }),
		c("chain mean all", "np.sqrt(np.abs(x)).mean()", ins("x", dEmpMid), func(e *E) *T { return x(e).Abs().Sqrt().Mean() }),
		c("chain var axis 1", "(x * 3).var(axis=1)", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(3).Var(tensor.Axis(1)) }),
		c("chain std axes (1, 2)", "(x - 1).std(axis=(1, 2))", ins("x", dEmpMid), func(e *E) *T { return x(e).Sub(1).Std(tensor.Axis(1, 2)) }),
		c("max over a full axis", "(x * 2).max(axis=0)", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(2).Max(tensor.Axis(0)) }),
		c("elementwise only", "np.exp(x * 2) - 1", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(2).Exp().Sub(1) }),
		c("leading axis sum axis 0", "np.square(x).sum(axis=0)", ins("x", dEmpHead), func(e *E) *T { return x(e).Square().Sum(tensor.Axis(0)) }),
		c("leading axis mean axis 1", "(x + 2).mean(axis=1)", ins("x", dEmpHead), func(e *E) *T { return x(e).Add(2).Mean(tensor.Axis(1)) }),
		c("trailing axis sum axis -1", "(x * x).sum(axis=-1)", ins("x", dEmpLast), func(e *E) *T { return x(e).Mul(x(e)).Sum(tensor.Axis(-1)) }),
		c("trailing axis mean keepdims", "(x * x).mean(axis=-1, keepdims=True)", ins("x", dEmpLast), func(e *E) *T {
			return x(e).Mul(x(e)).Mean(tensor.Axis(-1), tensor.KeepDims())
		}),
		c("two levels: inner sum feeds a count", "((x * x).sum(axis=-1) < 1).sum()", ins("x", dEmpLast), func(e *E) *T {
			return x(e).Mul(x(e)).Sum(tensor.Axis(-1)).Less(1).Sum()
		}),
		c("two levels: inner mean, outer sum", "(x.mean(axis=1) * 2).sum(axis=0)", ins("x", dEmpMid), func(e *E) *T {
			return x(e).Mean(tensor.Axis(1)).Mul(2).Sum(tensor.Axis(0))
		}),
		c("int32 sum axis 1", "(x * 2).sum(axis=1)", ins("x", dEmpI32), func(e *E) *T { return x(e).Mul(2).Sum(tensor.Axis(1)) }),
		c("generator sum axis 1", "(x * 2 - 1).sum(axis=1)", ins("x", dEmpMid), func(e *E) *T { return gen(e, 6, 0, 5).Mul(2).Sub(1).Sum(tensor.Axis(1)) }),
		c("generator mean keepdims", "np.log1p(x).mean(axis=(1, 2), keepdims=True)", ins("x", dEmpMid), func(e *E) *T {
			return gen(e, 6, 0, 5).Log1p().Mean(tensor.Axis(1, 2), tensor.KeepDims())
		}),
		c("generator plus input", "(x + x * 2).sum(axis=0)", ins("x", dEmpHead), func(e *E) *T { return gen(e, 0, 7).Add(x(e).Mul(2)).Sum(tensor.Axis(0)) }),
		bad("max over the empty axis", "(x * 2).max(axis=1)", ins("x", dEmpMid), func(e *E) *T { return x(e).Mul(2).Max(tensor.Axis(1)) }),
		bad("min of all", "(x + 1).min()", ins("x", dEmpMid), func(e *E) *T { return x(e).Add(1).Min() }),
		bad("max keepdims over the empty axis", "np.abs(x).max(axis=-1, keepdims=True)", ins("x", dEmpLast), func(e *E) *T {
			return x(e).Abs().Max(tensor.Axis(-1), tensor.KeepDims())
		}),
	}
}
