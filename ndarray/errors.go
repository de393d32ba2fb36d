package ndarray

import "fmt"

// AxisError is an axis out of range for an array's dimensions (NumPy
// raises numpy.AxisError).
type AxisError struct {
	Axis, NDim int
}

func (e *AxisError) Error() string {
	return fmt.Sprintf("axis %d is out of bounds for array of dimension %d", e.Axis, e.NDim)
}

// DTypeError is an operation NumPy has no loop for with its operands'
// dtypes (NumPy raises TypeError).
type DTypeError struct {
	Msg string
}

func (e *DTypeError) Error() string { return e.Msg }
