package tensor

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// numpy.fft: discrete Fourier transforms with NumPy 1.24's semantics. Each
// transform along one axis is an ops.FFT, which makes that axis whole in
// every chunk (the other axes keep their chunks) and transforms each chunk's
// lanes; transforms over several axes go one axis at a time, as NumPy's do.
// As NumPy 1.24 computes every transform in float64, results are complex128
// (float64 for IRFFT and HFFT) whatever the input's dtype.

// FFTOption sets a parameter of a transform: its length (NumPy's n) or
// lengths (s), its axis or axes, its normalisation.
type FFTOption func(*fftConfig)

type fftConfig struct {
	n       int // the 1-D length, when nSet (else NumPy's None)
	nSet    bool
	axis    int
	axisSet bool
	s       []int // nil: None
	axes    []int
	axesSet bool // FFTAxes given (possibly with no axes)
	norm    string
}

// FFTLen is the transform length n of a 1-D transform: the axis is cut to
// n or padded with zeros (for IRFFT and HFFT, n is the output length).
func FFTLen(n int) FFTOption { return func(c *fftConfig) { c.n, c.nSet = n, true } }

// FFTAxis is the axis of a 1-D transform (default -1).
func FFTAxis(axis int) FFTOption {
	return func(c *fftConfig) { c.axis, c.axisSet = axis, true }
}

// FFTShape is NumPy's s for the n-dimensional transforms: the length of
// each transformed axis.
func FFTShape(s ...int) FFTOption {
	return func(c *fftConfig) { c.s = append([]int{}, s...) }
}

// FFTAxes are the axes of an n-dimensional transform (an axis named twice
// is transformed twice, as in NumPy).
func FFTAxes(axes ...int) FFTOption {
	return func(c *fftConfig) { c.axes, c.axesSet = append([]int{}, axes...), true }
}

// FFTNorm is NumPy's norm: "backward" (the default; the inverse is scaled
// by 1/n), "ortho" (both by 1/sqrt(n)) or "forward" (the forward by 1/n).
func FFTNorm(norm string) FFTOption { return func(c *fftConfig) { c.norm = norm } }

func newFFTConfig(opts []FFTOption) fftConfig {
	c := fftConfig{axis: -1}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// FFT is numpy.fft.fft: the discrete Fourier transform along an axis.
func FFT(t *Tensor, opts ...FFTOption) *Tensor {
	return fft1("fft", t, ops.FFT{Kind: ops.FFTComplex}, false, newFFTConfig(opts))
}

// IFFT is numpy.fft.ifft, the inverse of FFT.
func IFFT(t *Tensor, opts ...FFTOption) *Tensor {
	return fft1("ifft", t, ops.FFT{Kind: ops.FFTComplex, Inverse: true}, false, newFFTConfig(opts))
}

// RFFT is numpy.fft.rfft: the n/2+1 non-negative frequency terms of the
// transform of real input (the imaginary part of complex input is
// discarded, as NumPy does after its ComplexWarning).
func RFFT(t *Tensor, opts ...FFTOption) *Tensor {
	return fft1("rfft", t, ops.FFT{Kind: ops.FFTReal}, false, newFFTConfig(opts))
}

// IRFFT is numpy.fft.irfft: the inverse of RFFT, n real values (default
// 2*(m-1) for an axis of length m).
func IRFFT(t *Tensor, opts ...FFTOption) *Tensor {
	return fft1("irfft", t, ops.FFT{Kind: ops.FFTInvReal}, false, newFFTConfig(opts))
}

// HFFT is numpy.fft.hfft: the transform of a signal with Hermitian
// symmetry given by its first half, real output: IRFFT of the conjugate
// with the normalisation's direction swapped.
func HFFT(t *Tensor, opts ...FFTOption) *Tensor {
	return fft1("hfft", t, ops.FFT{Kind: ops.FFTInvReal, Conj: true}, true, newFFTConfig(opts))
}

// IHFFT is numpy.fft.ihfft, the inverse of HFFT: the conjugate of RFFT
// with the normalisation's direction swapped.
func IHFFT(t *Tensor, opts ...FFTOption) *Tensor {
	return fft1("ihfft", t, ops.FFT{Kind: ops.FFTReal, Conj: true}, true, newFFTConfig(opts))
}

// swapNorm is numpy.fft's _swap_direction.
func swapNorm(norm string) string {
	switch norm {
	case "", "backward":
		return "forward"
	case "forward":
		return "backward"
	}
	return norm
}

// fft1 builds a 1-D transform with the kind and flags of op along c's axis.
func fft1(name string, t *Tensor, op ops.FFT, swap bool, c fftConfig) *Tensor {
	if e := t.needKnown(name); e != nil {
		return e
	}
	if c.s != nil || c.axesSet {
		return errorf("%s: takes a length and an axis (FFTLen, FFTAxis), not a shape and axes", name)
	}
	n := -1 // None
	if c.nSet {
		if c.n < 1 {
			return errorf("%s: %w", name, &ops.FFTLengthError{N: c.n})
		}
		n = c.n
	}
	return fftAlong(name, t, op, swap, n, c.axis, c.norm)
}

// fftAlong is the 1-D transform op along axis of length n (-1: NumPy's
// default for the kind).
func fftAlong(name string, t *Tensor, op ops.FFT, swap bool, n, axis int, norm string) *Tensor {
	if err := ops.CheckFFTNorm(norm); err != nil {
		return errorf("%s: %w", name, err)
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errorf("%s of tensor of shape %v: %w", name, t.meta.Shape, err)
	}
	if n == -1 {
		n = t.meta.Shape[ax]
		if op.Kind == ops.FFTInvReal {
			n = 2 * (n - 1)
		}
		if n < 1 {
			return errorf("%s of tensor of shape %v along axis %d: %w", name, t.meta.Shape, axis, &ops.FFTLengthError{N: n})
		}
	}
	if swap {
		norm = swapNorm(norm)
	}
	if norm == "backward" {
		norm = "" // the default, left out of the graph JSON
	}
	op.Axis, op.N, op.Norm = ax, n, norm
	if t.meta.DType == ndarray.Float16 {
		// NumPy computes in float64 anyway; float32 holds every float16
		// exactly and the kernel reads it as float64.
		t = t.Astype(ndarray.Float32)
	}
	return New(op, t)
}

// FFT2 is numpy.fft.fft2: FFTN over the last two axes unless FFTAxes says.
func FFT2(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("fft2", t, ops.FFT{Kind: ops.FFTComplex}, true, opts)
}

// IFFT2 is numpy.fft.ifft2, the inverse of FFT2.
func IFFT2(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("ifft2", t, ops.FFT{Kind: ops.FFTComplex, Inverse: true}, true, opts)
}

// FFTN is numpy.fft.fftn: the transform over several axes (all of them,
// or the last len(s) ones given FFTShape, unless FFTAxes says).
func FFTN(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("fftn", t, ops.FFT{Kind: ops.FFTComplex}, false, opts)
}

// IFFTN is numpy.fft.ifftn, the inverse of FFTN.
func IFFTN(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("ifftn", t, ops.FFT{Kind: ops.FFTComplex, Inverse: true}, false, opts)
}

// RFFT2 is numpy.fft.rfft2: RFFTN over the last two axes unless FFTAxes says.
func RFFT2(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("rfft2", t, ops.FFT{Kind: ops.FFTReal}, true, opts)
}

// IRFFT2 is numpy.fft.irfft2, the inverse of RFFT2.
func IRFFT2(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("irfft2", t, ops.FFT{Kind: ops.FFTInvReal}, true, opts)
}

// RFFTN is numpy.fft.rfftn: RFFT over the last axis named, then FFT over
// the others.
func RFFTN(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("rfftn", t, ops.FFT{Kind: ops.FFTReal}, false, opts)
}

// IRFFTN is numpy.fft.irfftn, the inverse of RFFTN: IFFT over all axes
// named but the last, then IRFFT over the last (whose length defaults to
// 2*(m-1)).
func IRFFTN(t *Tensor, opts ...FFTOption) *Tensor {
	return fftn("irfftn", t, ops.FFT{Kind: ops.FFTInvReal}, false, opts)
}

// fftn is numpy.fft's _cook_nd_args followed by the 1-D transforms, one
// axis at a time. two makes the default axes (-2, -1) (the *2 functions).
func fftn(name string, t *Tensor, op ops.FFT, two bool, opts []FFTOption) *Tensor {
	if e := t.needKnown(name); e != nil {
		return e
	}
	c := newFFTConfig(opts)
	if c.nSet || c.axisSet {
		return errorf("%s: takes a shape and axes (FFTShape, FFTAxes), not a length and an axis", name)
	}
	if err := ops.CheckFFTNorm(c.norm); err != nil {
		return errorf("%s: %w", name, err)
	}
	axes := c.axes
	if !c.axesSet && two {
		axes = []int{-2, -1}
	}
	given := c.s != nil
	s := c.s
	if !given {
		if axes == nil {
			s = slices.Clone(t.meta.Shape)
		} else {
			s = make([]int, len(axes))
			for i, a := range axes {
				ax, err := ndarray.NormAxis(a, t.NDim())
				if err != nil {
					return errorf("%s of tensor of shape %v: %w", name, t.meta.Shape, err)
				}
				s[i] = t.meta.Shape[ax]
			}
		}
	}
	if axes == nil {
		axes = make([]int, len(s))
		for i := range axes {
			axes[i] = i - len(s)
		}
	}
	if len(s) != len(axes) {
		return errorf("%s: Shape and axes have different lengths (%d lengths, %d axes).", name, len(s), len(axes))
	}
	if len(axes) == 0 {
		if op.Kind != ops.FFTComplex {
			return errorf("%s: at least one axis must be transformed", name)
		}
		return t // NumPy returns its input untouched
	}
	last := len(axes) - 1
	if op.Kind == ops.FFTInvReal && !given {
		ax, err := ndarray.NormAxis(axes[last], t.NDim())
		if err != nil {
			return errorf("%s of tensor of shape %v: %w", name, t.meta.Shape, err)
		}
		s[last] = 2 * (t.meta.Shape[ax] - 1)
	}
	for _, n := range s {
		if n < 1 {
			return errorf("%s: %w", name, &ops.FFTLengthError{N: n})
		}
	}
	r := t
	switch op.Kind {
	case ops.FFTComplex:
		for i := last; i >= 0; i-- {
			r = fftAlong(name, r, op, false, s[i], axes[i], c.norm)
		}
	case ops.FFTReal:
		r = fftAlong(name, r, op, false, s[last], axes[last], c.norm)
		for i := range last {
			r = fftAlong(name, r, ops.FFT{Kind: ops.FFTComplex}, false, s[i], axes[i], c.norm)
		}
	case ops.FFTInvReal:
		for i := range last {
			r = fftAlong(name, r, ops.FFT{Kind: ops.FFTComplex, Inverse: true}, false, s[i], axes[i], c.norm)
		}
		r = fftAlong(name, r, op, false, s[last], axes[last], c.norm)
	}
	return r
}

// FFTShift is numpy.fft.fftshift: the zero-frequency term moved to the
// centre by rolling each axis (every axis if none is given) by half its
// length.
func FFTShift(t *Tensor, axes ...int) *Tensor { return fftShift("fftshift", t, axes, 1) }

// IFFTShift is numpy.fft.ifftshift, the inverse of FFTShift (they differ
// for odd lengths).
func IFFTShift(t *Tensor, axes ...int) *Tensor { return fftShift("ifftshift", t, axes, -1) }

func fftShift(name string, t *Tensor, axes []int, sign int) *Tensor {
	if e := t.needKnown(name); e != nil {
		return e
	}
	if len(axes) == 0 {
		axes = make([]int, t.NDim())
		for i := range axes {
			axes[i] = i
		}
	}
	if len(axes) == 0 {
		return t
	}
	shifts := make([]int, len(axes))
	for i, a := range axes {
		ax, err := ndarray.NormAxis(a, t.NDim())
		if err != nil {
			return errorf("%s of tensor of shape %v: %w", name, t.meta.Shape, err)
		}
		shifts[i] = sign * (t.meta.Shape[ax] / 2)
	}
	return t.RollAxes(shifts, axes)
}

// FFTFreq is numpy.fft.fftfreq(n, d): the sample frequencies of an FFT of
// length n with sample spacing d, [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (n*d).
func FFTFreq(n int, d float64, opts ...Option) *Tensor {
	if err := freqArgs("fftfreq", n, d); err != nil {
		return errTensor(err)
	}
	val := 1.0 / (float64(n) * d)
	// -(n/2) ... (n-1)/2, rolled left by n/2 as ifftshift does: NumPy's
	// integers in NumPy's order, then one multiplication each, as NumPy.
	ints := Arange(float64(-(n / 2)), float64((n-1)/2+1), 1, slices.Concat(opts, []Option{WithDType(ndarray.Int64)})...)
	return IFFTShift(ints).Mul(val)
}

// RFFTFreq is numpy.fft.rfftfreq(n, d): the n/2+1 non-negative sample
// frequencies of an RFFT of length n, [0, 1, ..., n/2] / (n*d).
func RFFTFreq(n int, d float64, opts ...Option) *Tensor {
	if err := freqArgs("rfftfreq", n, d); err != nil {
		return errTensor(err)
	}
	return ArangeN(n/2+1, opts...).Mul(1.0 / (float64(n) * d))
}

// FFTFreqError is an argument of FFTFreq or RFFTFreq NumPy refuses:
// n = 0 or d = 0 divide by zero (ZeroDivisionError), n < 0 is a negative
// dimension (ValueError).
type FFTFreqError struct {
	Fn   string
	N    int
	D    float64
	Zero bool // a division by zero
}

func (e *FFTFreqError) Error() string {
	if e.Zero {
		return fmt.Sprintf("%s: float division by zero (n=%d, d=%v)", e.Fn, e.N, e.D)
	}
	return fmt.Sprintf("%s: negative dimensions are not allowed (n=%d)", e.Fn, e.N)
}

func freqArgs(fn string, n int, d float64) error {
	switch {
	case n < 0:
		return &FFTFreqError{Fn: fn, N: n, D: d}
	case n == 0 || d == 0:
		return &FFTFreqError{Fn: fn, N: n, D: d, Zero: true}
	}
	return nil
}
