package calls

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// opTable holds the functions the ops declare (ops.Descriptor.Calls): each
// builds its op from its arguments by the op's own schema, so an op's call
// is written once, beside its kernel. A name is in table or in opTable,
// never both (TestOpCallsApart).
var opTable = opCalls()

func opCalls() map[string]function {
	out := map[string]function{}
	for _, d := range ops.Descriptors() {
		for _, c := range d.Calls {
			if _, dup := out[c.Name]; dup {
				panic(fmt.Sprintf("calls: two ops declare the function %q", c.Name))
			}
			out[c.Name] = opCall(c)
		}
	}
	return out
}

// lookup is the function called name.
func lookup(name string) (function, bool) {
	if f, ok := table[name]; ok {
		return f, true
	}
	f, ok := opTable[name]
	return f, ok
}

// opCall is the function of an op's Call.
func opCall(c ops.Call) function {
	f := function{params: make([]string, len(c.Params))}
	for i, p := range c.Params {
		f.params[i] = p.Name
		if p.Required() {
			f.required++
		}
	}
	f.build = func(a *args) (*tensor.Tensor, error) {
		vals := ops.Values{}
		var ins []*tensor.Tensor
		for _, p := range c.Params {
			if p.Kind == ops.ParamTensor {
				if !a.has(p.Name) {
					if p.Optional {
						continue
					}
					return nil, typeErr(p.Name, errors.New("want a tensor or a number, got None"))
				}
				t, err := a.tensor(p.Name)
				if err != nil {
					return nil, err
				}
				ins = append(ins, t)
				continue
			}
			v, err := paramValue(a, p)
			if err != nil {
				return nil, err
			}
			if v != nil {
				vals[p.Name] = v
			}
		}
		op, err := c.New(vals)
		if err != nil {
			if ae, ok := errors.AsType[*ops.ArgError](err); ok {
				return nil, &Error{Kind: ae.Kind, Err: ae.Err}
			}
			return nil, &Error{Kind: "ValueError", Err: err}
		}
		return tensor.New(op, ins...), nil
	}
	return f
}

// paramValue is a non-tensor argument of p's kind, its default when absent
// or null, and nil when absent and optional.
func paramValue(a *args, p ops.Param) (any, error) {
	if !a.has(p.Name) {
		return p.Default, nil
	}
	switch p.Kind {
	case ops.ParamInt:
		return a.int(p.Name, 0)
	case ops.ParamFloat:
		return a.float(p.Name, 0)
	case ops.ParamBool:
		return a.bool(p.Name)
	case ops.ParamString:
		var s string
		if err := jsonString(a, p.Name, &s); err != nil {
			return nil, err
		}
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, s) {
			return nil, &Error{Kind: "ValueError", Err: fmt.Errorf("%s must be one of %s, not %q", p.Name, strings.Join(p.Choices, ", "), s)}
		}
		return s, nil
	}
	return nil, fmt.Errorf("parameter %q: unknown kind %d", p.Name, p.Kind)
}
