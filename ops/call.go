package ops

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Call is a program function that makes one op: its parameters as NumPy
// names them, and how the op is made from their values. Parameters of kind
// ParamTensor become the op's inputs, in order; the others are read by New.
// Package calls adds every Call to the functions programs may call, and the
// Python package's stubs for them are generated from it (go generate in
// package calls), so neither can drift from the op.
type Call struct {
	// Name is the function's name in programs and in Python.
	Name string
	// Doc is the Python function's docstring: which NumPy function it is
	// and how it differs.
	Doc    string
	Params []Param
	// New makes the op from the values of the non-tensor parameters.
	New func(v Values) (TensorOp, error)
}

// ParamKind is the type of a call's parameter.
type ParamKind uint8

const (
	// ParamTensor is an operand: a tensor, a number or a nested list.
	ParamTensor ParamKind = iota
	// ParamInt is an integer.
	ParamInt
	// ParamFloat is a number.
	ParamFloat
	// ParamBool is true or false.
	ParamBool
	// ParamString is a string, one of Choices when they are given.
	ParamString
)

// Param is one parameter of a Call.
type Param struct {
	Name string
	Kind ParamKind
	// Default is the value when the argument is absent: nil makes the
	// parameter required, unless Optional (None in Python, absent in
	// Values). Its Go type is Kind's (int, float64, bool, string).
	Default  any
	Optional bool
	// Choices are the values a ParamString may take.
	Choices []string
}

// Required reports whether a call must give the parameter.
func (p Param) Required() bool { return p.Default == nil && !p.Optional }

func (c Call) validate(tensorOp bool) error {
	if !tensorOp {
		return fmt.Errorf("call %q: the op is not a tensor op", c.Name)
	}
	if c.Name == "" || c.New == nil {
		return fmt.Errorf("call %q: want a name and New", c.Name)
	}
	optional := false
	for _, p := range c.Params {
		if p.Required() && optional {
			return fmt.Errorf("call %q: required parameter %q after an optional one", c.Name, p.Name)
		}
		optional = optional || !p.Required()
		if p.Default == nil {
			continue
		}
		ok := false
		switch p.Kind {
		case ParamInt:
			_, ok = p.Default.(int)
		case ParamFloat:
			_, ok = p.Default.(float64)
		case ParamBool:
			_, ok = p.Default.(bool)
		case ParamString:
			s, isStr := p.Default.(string)
			ok = isStr && (len(p.Choices) == 0 || slices.Contains(p.Choices, s))
		}
		if !ok {
			return fmt.Errorf("call %q: parameter %q: default %#v does not fit its kind", c.Name, p.Name, p.Default)
		}
	}
	return nil
}

// Values are a call's non-tensor arguments, by parameter name, already of
// their parameters' kinds (defaults filled in; an Optional one absent is
// missing).
type Values map[string]any

// Has reports whether the argument is there (given, or by default).
func (v Values) Has(name string) bool { _, ok := v[name]; return ok }

// Int is an integer argument (0 when absent).
func (v Values) Int(name string) int { i, _ := v[name].(int); return i }

// Float is a number argument (0 when absent).
func (v Values) Float(name string) float64 { f, _ := v[name].(float64); return f }

// Bool is a boolean argument (false when absent).
func (v Values) Bool(name string) bool { b, _ := v[name].(bool); return b }

// String is a string argument ("" when absent).
func (v Values) String(name string) string { s, _ := v[name].(string); return s }

// ArgError is an argument a call cannot take; Kind is the Python exception
// NumPy raises for the same mistake (TypeError or ValueError).
type ArgError struct {
	Kind string
	Err  error
}

func (e *ArgError) Error() string { return e.Err.Error() }

func (e *ArgError) Unwrap() error { return e.Err }

// ValueErrorf is an ArgError of kind ValueError.
func ValueErrorf(format string, args ...any) error {
	return &ArgError{Kind: "ValueError", Err: fmt.Errorf(format, args...)}
}

// resultType is NumPy's result type of inputs' dtypes.
func resultType(in []Meta) ndarray.DType {
	dt := in[0].DType
	for _, m := range in[1:] {
		dt = ndarray.Promote(dt, m.DType)
	}
	return dt
}
