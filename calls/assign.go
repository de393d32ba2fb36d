package calls

import (
	"github.com/phobos-tensor/phobos/tensor"
)

// Assignment by NumPy's names. Tensors never change, so each of these is a
// new tensor: setitem is x[key] = value, and put, place, putmask and
// fill_diagonal are the functions NumPy runs in place. A client that offers
// in-place syntax rebinds its handle to the result.
func init() {
	for name, f := range map[string]function{
		"setitem":       {[]string{"a", "key", "value"}, setitem, 3},
		"put":           {[]string{"a", "ind", "v"}, withValue("a", "ind", "v", tensor.Put), 3},
		"place":         {[]string{"arr", "mask", "vals"}, withValue("arr", "mask", "vals", tensor.Place), 3},
		"putmask":       {[]string{"a", "mask", "values"}, withValue("a", "mask", "values", tensor.PutMask), 3},
		"fill_diagonal": {[]string{"a", "val", "wrap"}, fillDiagonal, 2},
		"choose":        {[]string{"a", "choices", "mode"}, chooseFn, 2},
	} {
		table[name] = f
	}
}

func setitem(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	idx, err := a.index("key")
	if err != nil {
		return nil, err
	}
	v, err := a.operand("value")
	if err != nil {
		return nil, err
	}
	return t.Set(idx, v), nil
}

// withValue is f of two tensor arguments and a value (a tensor or a
// number), named as NumPy names them.
func withValue(t1, t2, v string, f func(a, b *tensor.Tensor, v any) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		x, err := a.tensorArgs(t1, t2)
		if err != nil {
			return nil, err
		}
		val, err := a.operand(v)
		if err != nil {
			return nil, err
		}
		return f(x[0], x[1], val), nil
	}
}

func fillDiagonal(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	v, err := a.operand("val")
	if err != nil {
		return nil, err
	}
	wrap, err := a.bool("wrap")
	if err != nil {
		return nil, err
	}
	return tensor.FillDiagonal(t, v, wrap), nil
}

// chooseFn is numpy.choose(a, choices, mode="raise").
func chooseFn(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	cs, err := a.tensors("choices")
	if err != nil {
		return nil, err
	}
	mode := "raise"
	if a.has("mode") {
		if err := jsonString(a, "mode", &mode); err != nil {
			return nil, err
		}
	}
	return tensor.Choose(t, cs, mode), nil
}
