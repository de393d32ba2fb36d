// Package ndarray holds dense strided n-dimensional arrays and the kernels that
// compute on them. It is the bottom layer of Phobos and imports nothing above it.
package ndarray

import (
	"fmt"
	"math"
	"strings"
)

// DType is the element type of an Array.
type DType uint8

// The supported element types. The first five keep their historical values
// (tests and fixtures name them); the narrower and unsigned integers follow.
// Order carries no meaning: promotion goes through Promote's rules.
const (
	Invalid DType = iota
	Bool
	Int32
	Int64
	Float32
	Float64
	Int8
	Int16
	Uint8
	Uint16
	Uint32
	Uint64
	// Float16 is IEEE half precision, stored as its bits; kernels compute
	// in float32 and round each result once, as NumPy's half loops do.
	Float16
	// Complex64 and Complex128 are NumPy's complex types: two float32 or
	// two float64, real part first, as Go's complex64 and complex128 are.
	Complex64
	Complex128
	dtypeEnd // one past the last valid dtype
)

// dtypeInfo describes a dtype: NumPy's kind character, its item size and its
// names (the first is NumPy's name).
type dtypeInfo struct {
	kind  byte // 'b', 'i', 'u', 'f', 'c'
	size  int
	names []string
}

var dtypeInfos = [dtypeEnd]dtypeInfo{
	Bool:       {'b', 1, []string{"bool", "b1", "?", "bool_", "|b1"}},
	Int8:       {'i', 1, []string{"int8", "i1", "|i1", "byte"}},
	Int16:      {'i', 2, []string{"int16", "i2", "<i2", "short"}},
	Int32:      {'i', 4, []string{"int32", "i4", "<i4", "intc"}},
	Int64:      {'i', 8, []string{"int64", "i8", "<i8", "int", "int_", "intp", "long", "longlong"}},
	Uint8:      {'u', 1, []string{"uint8", "u1", "|u1", "ubyte"}},
	Uint16:     {'u', 2, []string{"uint16", "u2", "<u2", "ushort"}},
	Uint32:     {'u', 4, []string{"uint32", "u4", "<u4", "uintc"}},
	Uint64:     {'u', 8, []string{"uint64", "u8", "<u8", "uint", "uintp", "ulonglong"}},
	Float16:    {'f', 2, []string{"float16", "f2", "<f2", "half", "e"}},
	Float32:    {'f', 4, []string{"float32", "f4", "<f4", "single"}},
	Float64:    {'f', 8, []string{"float64", "f8", "<f8", "float", "double", "float_"}},
	Complex64:  {'c', 8, []string{"complex64", "c8", "<c8", "csingle", "F"}},
	Complex128: {'c', 16, []string{"complex128", "c16", "<c16", "complex", "cdouble", "complex_", "D"}},
}

// DTypes lists every supported dtype.
func DTypes() []DType {
	out := make([]DType, 0, dtypeEnd-1)
	for d := Bool; d < dtypeEnd; d++ {
		out = append(out, d)
	}
	return out
}

// Size is the number of bytes of one element.
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return dtypeInfos[d].size
}

// Kind is NumPy's kind character: 'b' bool, 'i' signed and 'u' unsigned
// integer, 'f' float, 'c' complex; 0 for an invalid dtype.
func (d DType) Kind() byte {
	if !d.Valid() {
		return 0
	}
	return dtypeInfos[d].kind
}

// String is NumPy's name for the type.
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return dtypeInfos[d].names[0]
}

// Valid reports whether d is one of the supported types.
func (d DType) Valid() bool { return d >= Bool && d < dtypeEnd }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d.Kind() == 'f' }

// IsComplex reports whether d is a complex type.
func (d DType) IsComplex() bool { return d.Kind() == 'c' }

// IsInt reports whether d is an integer type, signed or unsigned.
func (d DType) IsInt() bool { k := d.Kind(); return k == 'i' || k == 'u' }

// IsSigned reports whether d is a signed integer type.
func (d DType) IsSigned() bool { return d.Kind() == 'i' }

// IsUnsigned reports whether d is an unsigned integer type.
func (d DType) IsUnsigned() bool { return d.Kind() == 'u' }

// ParseDType parses NumPy's name for a type ("float64", "f8", "uint8", ...).
func ParseDType(s string) (DType, error) {
	t := strings.TrimSpace(s)
	n := strings.ToLower(t)
	for d := Bool; d < dtypeEnd; d++ {
		for _, name := range dtypeInfos[d].names {
			// One-letter type codes are case sensitive in NumPy ("F" is
			// complex64, "f" float32); full names are not.
			if len(name) == 1 && name[0] >= 'A' && name[0] <= 'Z' {
				if t == name {
					return d, nil
				}
				continue
			}
			if n == name {
				return d, nil
			}
		}
	}
	return Invalid, fmt.Errorf("ndarray: unknown dtype %q (want one of %s)", s, dtypeNames())
}

func dtypeNames() string {
	var b strings.Builder
	for d := Bool; d < dtypeEnd; d++ {
		if d > Bool {
			b.WriteString(", ")
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// MarshalText implements encoding.TextMarshaler so dtypes appear by name in JSON.
func (d DType) MarshalText() ([]byte, error) {
	if !d.Valid() {
		return nil, fmt.Errorf("ndarray: cannot marshal invalid dtype %d", uint8(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *DType) UnmarshalText(b []byte) error {
	v, err := ParseDType(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// DTypeOf is the dtype of NumPy kind kind ('b', 'i', 'u', 'f', 'c') and item
// size size in bytes, or Invalid when Phobos has none.
func DTypeOf(kind byte, size int) DType {
	for d := Bool; d < dtypeEnd; d++ {
		if dtypeInfos[d].kind == kind && dtypeInfos[d].size == size {
			return d
		}
	}
	return Invalid
}

// intOf is the signed (kind 'i') or unsigned ('u') integer type of size bytes.
func intOf(kind byte, size int) DType { return DTypeOf(kind, size) }

// floatFor is the smallest float type that holds every value of the integer
// type d exactly: float16 for 8-bit integers, float32 for 16-bit ones,
// float64 for wider ones.
func floatFor(d DType) DType {
	switch d.Size() {
	case 1:
		return Float16
	case 2:
		return Float32
	}
	return Float64
}

// Promote is NumPy 1.24's np.promote_types(a, b): the smallest type both
// convert to safely. Signed and unsigned integers meet in the next wider
// signed type (uint64 and a signed type give float64); an integer meets a
// float in a float at least as wide as the integer needs.
func Promote(a, b DType) DType {
	if a == b {
		return a
	}
	if !a.Valid() || !b.Valid() {
		return Invalid
	}
	if a == Bool {
		return b
	}
	if b == Bool {
		return a
	}
	ka, kb := a.Kind(), b.Kind()
	if ka == 'c' || kb == 'c' {
		return promoteComplex(a, b)
	}
	if ka == 'f' && kb != 'f' {
		a, b, ka, kb = b, a, kb, ka
	}
	switch {
	case kb == 'f' && ka == 'f':
		return maxSize(a, b)
	case kb == 'f':
		return maxSize(floatFor(a), b)
	case ka == kb:
		return maxSize(a, b)
	}
	// One signed, one unsigned: s signed, u unsigned.
	s, u := a, b
	if ka == 'u' {
		s, u = b, a
	}
	if s.Size() > u.Size() {
		return s
	}
	if u.Size() == 8 {
		return Float64
	}
	return intOf('i', 2*u.Size())
}

// promoteComplex is Promote when a or b is complex: the complex type whose
// parts hold the other operand's real type, i.e. complex64 when the real
// side promotes with float32 to float32 (float16, float32, 8- and 16-bit
// integers), else complex128 (np.promote_types(float64, complex64) is
// complex128).
func promoteComplex(a, b DType) DType {
	if a == Complex128 || b == Complex128 {
		return Complex128
	}
	// One of them is complex64; r is the other (possibly complex64 too).
	r := b
	if b == Complex64 {
		r = a
	}
	if r == Complex64 || Promote(r, Float32) == Float32 {
		return Complex64
	}
	return Complex128
}

// ComplexPart is the real type of one part of the complex type d
// (float32 for complex64, float64 for complex128); d itself otherwise.
func ComplexPart(d DType) DType {
	switch d {
	case Complex64:
		return Float32
	case Complex128:
		return Float64
	}
	return d
}

// ComplexFor is the complex type NumPy gives a real type d meeting a
// complex number: complex64 for types float32 holds, else complex128.
func ComplexFor(d DType) DType {
	if d.IsComplex() {
		return d
	}
	return promoteComplex(d, Complex64)
}

func maxSize(a, b DType) DType {
	if b.Size() > a.Size() {
		return b
	}
	return a
}

// MinScalarInt is np.min_scalar_type of an integer: the smallest unsigned
// type holding v when v >= 0, else the smallest signed one.
func MinScalarInt(v int64) DType {
	switch {
	case v >= 0 && v <= math.MaxUint8:
		return Uint8
	case v >= 0 && v <= math.MaxUint16:
		return Uint16
	case v >= 0 && v <= math.MaxUint32:
		return Uint32
	case v >= 0:
		return Uint64
	case v >= math.MinInt8:
		return Int8
	case v >= math.MinInt16:
		return Int16
	case v >= math.MinInt32:
		return Int32
	}
	return Int64
}

// WeakIntType is NumPy 1.24's result type of an array of type dt (an
// integer or float type) meeting a Python int v, by value-based casting:
// dt promoted with v's min_scalar_type, where a non-negative v that also
// fits the signed type of that size counts as signed unless dt is unsigned
// (NumPy's "small unsigned"), so int8 + 300 is int16 and int32 + 2**40 int64.
func WeakIntType(dt DType, v int64) DType {
	m := MinScalarInt(v)
	if v >= 0 && dt.Kind() != 'u' && dt != Bool && v <= int64(1)<<(8*m.Size()-1)-1 {
		m = intOf('i', m.Size())
	}
	return Promote(dt, m)
}

// MinScalarFloat is np.min_scalar_type of a float, with NumPy 1.24's bounds
// (-65000, 65000 for float16, -3.4e38, 3.4e38 for float32; NaN and
// infinities fit any float).
func MinScalarFloat(v float64) DType {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || (v > -65000 && v < 65000):
		return Float16
	case v > -3.4e38 && v < 3.4e38:
		return Float32
	}
	return Float64
}

// MinScalarComplex is np.min_scalar_type of a complex number: complex64
// when both parts fit float32 (MinScalarFloat's bounds), else complex128.
func MinScalarComplex(v complex128) DType {
	if MinScalarFloat(real(v)) != Float64 && MinScalarFloat(imag(v)) != Float64 {
		return Complex64
	}
	return Complex128
}

// UfuncFloat is the type NumPy 1.24's float ufuncs (sqrt, exp, arctan2,
// ...) give for inputs of type d: the float itself, float16 for bool and
// 8-bit integers, float32 for 16-bit ones, float64 for wider ones.
func UfuncFloat(d DType) DType {
	switch {
	case d.IsFloat(), d.IsComplex():
		return d
	case d.IsInt():
		return floatFor(d)
	}
	return Float16
}

// FloatFor is the floating type NumPy computes true division, mean and
// linear algebra in for inputs of type d: float32, float16 and the complex
// types stay, everything else is float64.
func FloatFor(d DType) DType {
	if d == Float32 || d == Float16 || d.IsComplex() {
		return d
	}
	return Float64
}
