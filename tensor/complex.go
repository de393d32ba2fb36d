package tensor

// The complex-number functions of NumPy: np.real, np.imag, np.conj
// (np.conjugate), np.angle and np.abs, which for a complex tensor gives its
// magnitude in the part type (float32 for complex64, float64 for
// complex128). On real tensors they behave as NumPy's do: Real and Conj
// return the values, Imag zeros of the same dtype, Angle 0 or pi as a float.
// Like the other ufuncs they are elementwise ops, fused with their
// neighbours.

// Real is the real part (np.real).
func Real(x any) *Tensor { return unary("real", x) }

// Imag is the imaginary part (np.imag).
func Imag(x any) *Tensor { return unary("imag", x) }

// Conj is the complex conjugate (np.conj, np.conjugate).
func Conj(x any) *Tensor { return unary("conjugate", x) }

// Angle is the argument of complex x in radians, in (-pi, pi] (np.angle);
// with deg true it is in degrees (np.angle(x, deg=True)).
func Angle(x any, deg bool) *Tensor {
	if deg {
		return unary("angle_deg", x)
	}
	return unary("angle", x)
}

// Abs is the absolute value (np.abs): the magnitude hypot(re, im) of a
// complex number, as a float of the part's type.
func Abs(x any) *Tensor { return unary("absolute", x) }

// Real is the real part of t (x.real).
func (t *Tensor) Real() *Tensor { return Real(t) }

// Imag is the imaginary part of t (x.imag).
func (t *Tensor) Imag() *Tensor { return Imag(t) }

// Conj is the complex conjugate of t (x.conj()).
func (t *Tensor) Conj() *Tensor { return Conj(t) }
