// Package ndarray holds dense strided n-dimensional arrays and the kernels that
// compute on them. It is the bottom layer of Phobos and imports nothing above it.
package ndarray

import (
	"fmt"
	"strings"
)

// DType is the element type of an Array.
type DType uint8

// The supported element types, in NumPy's promotion order.
const (
	Invalid DType = iota
	Bool
	Int32
	Int64
	Float32
	Float64
)

// Size is the number of bytes of one element.
func (d DType) Size() int {
	switch d {
	case Bool:
		return 1
	case Int32, Float32:
		return 4
	case Int64, Float64:
		return 8
	}
	return 0
}

// String is NumPy's name for the type.
func (d DType) String() string {
	switch d {
	case Bool:
		return "bool"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Valid reports whether d is one of the supported types.
func (d DType) Valid() bool { return d >= Bool && d <= Float64 }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// IsInt reports whether d is a (signed) integer type.
func (d DType) IsInt() bool { return d == Int32 || d == Int64 }

// ParseDType parses NumPy's name for a type ("float64", "f8", "int32", ...).
func ParseDType(s string) (DType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "bool", "b1", "?", "bool_":
		return Bool, nil
	case "int32", "i4", "<i4":
		return Int32, nil
	case "int64", "i8", "<i8", "int":
		return Int64, nil
	case "float32", "f4", "<f4":
		return Float32, nil
	case "float64", "f8", "<f8", "float", "double":
		return Float64, nil
	}
	return Invalid, fmt.Errorf("ndarray: unknown dtype %q (want bool, int32, int64, float32 or float64)", s)
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

// Promote is NumPy's result type for a binary operation on arrays of types a
// and b (np.result_type for arrays): bool < int32 < int64 < float32 < float64,
// except that a 32-bit float meeting any integer type needs float64 to keep the
// integer exact, as NumPy decides for int32 and int64.
func Promote(a, b DType) DType {
	if a == b {
		return a
	}
	if a > b {
		a, b = b, a
	}
	// now a < b
	if b == Float32 && a.IsInt() {
		return Float64
	}
	return b
}

// FloatFor is the floating type NumPy computes a float-only function (sqrt,
// exp, true division, mean) in for inputs of type d.
func FloatFor(d DType) DType {
	if d == Float32 {
		return Float32
	}
	return Float64
}
