package tensor

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Choose is numpy.choose(a, choices, mode): a (integers) and the choices,
// broadcast together, give at each position the element of choices[a].
// mode is "raise" (NumPy's default: an entry outside [0, len(choices))
// fails Execute), "wrap" (taken modulo len(choices)) or "clip".
func Choose(a *Tensor, choices []*Tensor, mode string) *Tensor {
	if u := a.needKnown("choose"); u != nil {
		return u
	}
	n := len(choices)
	if n == 0 {
		return errorf("choose: no choices")
	}
	if !a.meta.DType.IsInt() {
		return errTensor(fmt.Errorf("choose: %w", &ndarray.DTypeError{Msg: fmt.Sprintf("cannot cast array data from dtype('%v') to dtype('int64') according to the rule 'safe'", a.meta.DType)}))
	}
	shapes := [][]int{a.meta.Shape}
	for i, c := range choices {
		if u := c.needKnown("choose"); u != nil {
			return u
		}
		if c.err != nil {
			return errTensor(fmt.Errorf("choose: choice %d: %w", i, c.err))
		}
		shapes = append(shapes, c.meta.Shape)
	}
	b, err := ndarray.BroadcastShapes(shapes...)
	if err != nil {
		return errorf("choose: shape mismatch: objects cannot be broadcast to a single shape (shapes %v)", shapes)
	}
	switch mode {
	case "", "raise":
		ok := a.GreaterEqual(0).And(a.Less(n)).All()
		a = New(ops.Check{Msg: "choose: invalid entry in choice array"}, ok, a)
	case "wrap":
		a = a.Mod(n)
	case "clip":
		a = Clip(a, 0, n-1)
	default:
		return errorf("choose: clipmode must be one of 'clip', 'raise', or 'wrap' (got '%s')", mode)
	}
	out := choices[n-1]
	for i := n - 2; i >= 0; i-- {
		out = Where(a.Equal(i), choices[i], out)
	}
	if out.err == nil && !slices.Equal(out.meta.Shape, b) {
		out = out.BroadcastTo(b...)
	}
	return out
}
