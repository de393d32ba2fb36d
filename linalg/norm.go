package linalg

import (
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// Norm is numpy.linalg.norm(x, ord, axis) (keepdims=False). ord is nil
// (NumPy's None), a number (int or float64; math.Inf(1) and math.Inf(-1)
// for inf and -inf) or one of the strings "fro" and "nuc"; axes are none,
// one axis (a vector norm along it) or two (a matrix norm over them).
//
// With no axes, a 1-D x takes a vector norm and a 2-D x a matrix norm; with
// ord nil any x takes the 2-norm of all its elements. Vector norms: 2
// (nil), inf, -inf, 0 (the count of nonzeros), 1, and any other p as
// sum(|x|^p)^(1/p). Matrix norms: "fro" (nil), 1, -1, inf, -inf (largest
// and smallest absolute column and row sums), and, through the singular
// values, "nuc", 2 and -2, which need x itself to be the 2-D matrix (a TSQR
// along its rows; no stacks).
func Norm(x *tensor.Tensor, ord any, axes ...int) *tensor.Tensor {
	if e := bad("norm", x); e != nil {
		return e
	}
	x = x.Astype(ndarray.LinalgFloat(x.DType()))
	nd := x.NDim()
	o, err := normOrd(ord)
	if err != nil {
		return tensor.Error(err)
	}
	matrixOrd := ((len(axes) == 0 && nd == 2 && ord != nil) || len(axes) == 2) && (o.name == "nuc" || o.p == 2 || o.p == -2)
	if x.DType().IsComplex() && !matrixOrd {
		// Every other norm is one of the magnitudes |z| (NumPy squares
		// real and imaginary parts, not z): a real result.
		x = x.Abs()
	}
	norm := func(axis int) (int, error) {
		a, err := ndarray.NormAxis(axis, nd)
		if err != nil {
			return 0, fmt.Errorf("norm: %w", err)
		}
		return a, nil
	}
	switch {
	case len(axes) == 0 && ord == nil:
		return x.Square().Sum().Sqrt()
	case len(axes) == 0 && nd == 1:
		return vectorNorm(x, o, 0)
	case len(axes) == 0 && nd == 2:
		return matrixNorm(x, o, 0, 1)
	case len(axes) == 0:
		return tensor.Error(fmt.Errorf("norm: improper number of dimensions to norm: a %d-D tensor without axes takes only ord=None", nd))
	case len(axes) == 1:
		a, err := norm(axes[0])
		if err != nil {
			return tensor.Error(err)
		}
		return vectorNorm(x, o, a)
	case len(axes) == 2:
		r, err := norm(axes[0])
		if err != nil {
			return tensor.Error(err)
		}
		c, err := norm(axes[1])
		if err != nil {
			return tensor.Error(err)
		}
		if r == c {
			return tensor.Error(fmt.Errorf("norm: duplicate axes given (%v)", axes))
		}
		return matrixNorm(x, o, r, c)
	}
	return tensor.Error(fmt.Errorf("norm: improper number of dimensions to norm (%d axes)", len(axes)))
}

// normOrder is a parsed ord: NumPy's None, a number p or a name.
type normOrder struct {
	none bool
	p    float64
	name string // "fro" or "nuc"
}

func normOrd(ord any) (normOrder, error) {
	switch o := ord.(type) {
	case nil:
		return normOrder{none: true}, nil
	case string:
		if o != "fro" && o != "nuc" {
			return normOrder{}, fmt.Errorf("norm: invalid norm order %q", o)
		}
		return normOrder{name: o}, nil
	case int:
		return normOrder{p: float64(o)}, nil
	case float64:
		if math.IsNaN(o) {
			return normOrder{}, fmt.Errorf("norm: invalid norm order NaN")
		}
		return normOrder{p: o}, nil
	}
	return normOrder{}, fmt.Errorf("norm: ord of type %T: want nil, a number, \"fro\" or \"nuc\"", ord)
}

func vectorNorm(x *tensor.Tensor, o normOrder, axis int) *tensor.Tensor {
	ax := tensor.Axis(axis)
	p := o.p
	switch {
	case o.name != "":
		return tensor.Error(fmt.Errorf("norm: invalid norm order %q for vectors", o.name))
	case o.none || p == 2:
		return x.Square().Sum(ax).Sqrt()
	case math.IsInf(p, 1):
		return x.Abs().Max(ax)
	case math.IsInf(p, -1):
		return x.Abs().Min(ax)
	case p == 0:
		return x.NotEqual(0).Astype(x.DType()).Sum(ax)
	case p == 1:
		return x.Abs().Sum(ax)
	}
	// NumPy raises to 1/p in the sum's own dtype (a 0-d float32 sum stays
	// float32).
	return x.Abs().Pow(p).Sum(ax).Pow(tensor.Scalar(1 / p).Astype(x.DType()))
}

func matrixNorm(x *tensor.Tensor, o normOrder, r, c int) *tensor.Tensor {
	p, name := o.p, o.name
	switch {
	case o.none || name == "fro":
		return x.Square().Sum(tensor.Axis(r, c)).Sqrt()
	case name == "nuc" || p == 2 || p == -2:
		if x.NDim() != 2 {
			return tensor.Error(fmt.Errorf("norm: ord %v over two axes of a %d-D tensor: the norms through singular values take a 2-D tensor", ordString(p, name), x.NDim()))
		}
		a := x
		if r == 1 {
			a = x.T()
		}
		s := SVDVals(a)
		switch {
		case name == "nuc":
			return s.Sum()
		case p == 2:
			return s.Max()
		}
		return s.Min()
	case p == 1 || p == -1:
		// largest (smallest) absolute column sum: sum over rows, then
		// over the columns that remain.
		cc := c
		if c > r {
			cc--
		}
		sums := x.Abs().Sum(tensor.Axis(r))
		if p == 1 {
			return sums.Max(tensor.Axis(cc))
		}
		return sums.Min(tensor.Axis(cc))
	case math.IsInf(p, 0):
		rr := r
		if r > c {
			rr--
		}
		sums := x.Abs().Sum(tensor.Axis(c))
		if p > 0 {
			return sums.Max(tensor.Axis(rr))
		}
		return sums.Min(tensor.Axis(rr))
	}
	return tensor.Error(fmt.Errorf("norm: invalid norm order %s for matrices", ordString(p, name)))
}

func ordString(p float64, name string) string {
	if name != "" {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprint(p)
}
