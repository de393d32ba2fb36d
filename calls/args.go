package calls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// args are a call's arguments bound to its parameter names.
type args struct {
	vals map[string]json.RawMessage
	prev []*tensor.Tensor
	ctx  context.Context
	open Opener
}

func bind(n Node, params []string, prev []*tensor.Tensor) (*args, error) {
	a := &args{vals: make(map[string]json.RawMessage), prev: prev}
	variadic := len(params) > 0 && strings.HasPrefix(params[len(params)-1], "*")
	for i, v := range n.Args {
		switch {
		case i < len(params) && !strings.HasPrefix(params[i], "*"):
			a.vals[params[i]] = v
		case variadic:
			name := params[len(params)-1]
			a.vals[name] = append(append(a.vals[name][:len(a.vals[name]):len(a.vals[name])], ','), v...)
		default:
			return nil, &Error{Kind: "TypeError", Err: fmt.Errorf("takes %d positional arguments but %d were given", len(params), len(n.Args))}
		}
	}
	if variadic {
		name := params[len(params)-1]
		if v, ok := a.vals[name]; ok {
			a.vals[name] = append(append([]byte{'['}, v[1:]...), ']')
		}
	}
	for k, v := range n.Kwargs {
		if !slices.Contains(params, k) {
			return nil, &Error{Kind: "TypeError", Err: fmt.Errorf("got an unexpected keyword argument %q", k)}
		}
		if _, dup := a.vals[k]; dup {
			return nil, &Error{Kind: "TypeError", Err: fmt.Errorf("got multiple values for argument %q", k)}
		}
		a.vals[k] = v
	}
	return a, nil
}

func typeErr(name string, err error) error {
	return &Error{Kind: "TypeError", Err: fmt.Errorf("argument %q: %w", name, err)}
}

// has reports whether the argument was given and is not null.
func (a *args) has(name string) bool {
	v, ok := a.vals[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// flatAxis reports whether the axis argument name is given as null:
// NumPy's axis=None of sort and argsort, the flattened array.
func (a *args) flatAxis(name string) bool {
	v, ok := a.vals[name]
	return ok && bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// operand is a tensor (a reference) or a Python number or bool.
func (a *args) operand(name string) (any, error) {
	v, ok := a.vals[name]
	if !ok {
		return nil, typeErr(name, errors.New("missing"))
	}
	return a.value(name, v)
}

func (a *args) value(name string, v json.RawMessage) (any, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil, typeErr(name, errors.New("missing"))
	}
	switch v[0] {
	case '{':
		if i, ok := refIndex(v); ok {
			return a.ref(name, i)
		}
		var ref struct {
			Ref  *int            `json:"ref"`
			Real json.RawMessage `json:"real"`
			Imag json.RawMessage `json:"imag"`
		}
		err := json.Unmarshal(v, &ref)
		if err == nil && ref.Ref == nil && (ref.Real != nil || ref.Imag != nil) {
			return a.complexValue(name, ref.Real, ref.Imag)
		}
		if err != nil || ref.Ref == nil {
			return nil, typeErr(name, fmt.Errorf("an object argument is a reference, {\"ref\": N}, or a complex number, {\"real\": x, \"imag\": y}: %s", v))
		}
		return a.ref(name, *ref.Ref)
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return nil, typeErr(name, err)
		}
		return b, nil
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, typeErr(name, err)
		}
		switch s {
		case "nan", "NaN":
			return math.NaN(), nil
		case "inf", "Infinity":
			return math.Inf(1), nil
		case "-inf", "-Infinity":
			return math.Inf(-1), nil
		}
		return nil, typeErr(name, fmt.Errorf("a string %q where a number or tensor goes", s))
	}
	if !bytes.ContainsAny(v, ".eE") {
		if i, ok := jsonInt(v); ok {
			return i, nil
		}
		var i int64
		if err := json.Unmarshal(v, &i); err == nil {
			return i, nil
		}
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return nil, typeErr(name, fmt.Errorf("want a number, a bool or a tensor: %s", v))
	}
	return f, nil
}

// ref is the node a reference argument names, one before this one.
func (a *args) ref(name string, i int) (any, error) {
	if i < 0 || i >= len(a.prev) {
		return nil, typeErr(name, fmt.Errorf("reference %d to a node not before this one", i))
	}
	return a.prev[i], nil
}

// complexValue is the complex number {"real": x, "imag": y} (a missing
// part is 0; each part a number or "nan", "inf", "-inf" as elsewhere).
func (a *args) complexValue(name string, re, im json.RawMessage) (any, error) {
	part := func(raw json.RawMessage) (float64, error) {
		if raw == nil {
			return 0, nil
		}
		v, err := a.value(name, raw)
		if err != nil {
			return 0, err
		}
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
		return 0, typeErr(name, fmt.Errorf("a complex number's parts are numbers: %s", raw))
	}
	r, err := part(re)
	if err != nil {
		return nil, err
	}
	i, err := part(im)
	if err != nil {
		return nil, err
	}
	return complex(r, i), nil
}

// operands are the named arguments as operands, in order.
func (a *args) operands(names ...string) ([]any, error) {
	out := make([]any, len(names))
	for i, n := range names {
		x, err := a.operand(n)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// tensorArgs are the named arguments as tensors, in order.
func (a *args) tensorArgs(names ...string) ([]*tensor.Tensor, error) {
	out := make([]*tensor.Tensor, len(names))
	for i, n := range names {
		t, err := a.tensor(n)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// tensor is an operand as a tensor (numbers become scalars).
func (a *args) tensor(name string) (*tensor.Tensor, error) {
	x, err := a.operand(name)
	if err != nil {
		return nil, err
	}
	if t, ok := x.(*tensor.Tensor); ok {
		return t, nil
	}
	return tensor.Scalar(x), nil
}

// tensors is a list of operands as tensors.
func (a *args) tensors(name string) ([]*tensor.Tensor, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(a.vals[name], &raws); err != nil {
		return nil, typeErr(name, errors.New("want a list of tensors"))
	}
	out := make([]*tensor.Tensor, len(raws))
	for i, r := range raws {
		x, err := a.value(name, r)
		if err != nil {
			return nil, err
		}
		if t, ok := x.(*tensor.Tensor); ok {
			out[i] = t
		} else {
			out[i] = tensor.Scalar(x)
		}
	}
	return out, nil
}

func (a *args) float(name string, def float64) (float64, error) {
	if !a.has(name) {
		return def, nil
	}
	x, err := a.operand(name)
	if err != nil {
		return 0, err
	}
	switch v := x.(type) {
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	}
	return 0, typeErr(name, errors.New("want a number, not a tensor"))
}

func (a *args) int(name string, def int) (int, error) {
	if !a.has(name) {
		return def, nil
	}
	if i, ok := jsonInt(a.vals[name]); ok {
		return int(i), nil
	}
	var i int
	if err := json.Unmarshal(a.vals[name], &i); err != nil {
		return 0, typeErr(name, fmt.Errorf("want an integer, got %s", a.vals[name]))
	}
	return i, nil
}

func (a *args) bool(name string) (bool, error) {
	if !a.has(name) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(a.vals[name], &b); err != nil {
		return false, typeErr(name, fmt.Errorf("want true or false, got %s", a.vals[name]))
	}
	return b, nil
}

// ints is an integer or a list of them; ok is false when not given.
func (a *args) ints(name string) (v []int, ok bool, err error) {
	if !a.has(name) {
		return nil, false, nil
	}
	raw := a.vals[name]
	var i int
	if json.Unmarshal(raw, &i) == nil {
		return []int{i}, true, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false, typeErr(name, fmt.Errorf("want an integer or a list of integers, got %s", raw))
	}
	if len(v) > maxRank {
		return nil, false, typeErr(name, fmt.Errorf("%d entries", len(v)))
	}
	return v, true, nil
}

func (a *args) shape(name string) ([]int, error) {
	s, _, err := a.ints(name)
	if err != nil {
		return nil, err
	}
	if err := checkShape(s); err != nil {
		return nil, err
	}
	return s, nil
}

// likeUnknown describes a tensor whose length along ax is unknown (-1 in
// shape; a boolean mask's selection): a tensor of that meta, made as such
// tensors are, by a mask along ax.
func likeUnknown(shape []int, ax int, dt ndarray.DType) (*tensor.Tensor, error) {
	known := slices.Clone(shape)
	known[ax] = 1
	if slices.Contains(known, -1) {
		return nil, &Error{Kind: "ValueError", Err: fmt.Errorf("shape %v: at most one axis of unknown length (-1)", shape)}
	}
	if err := checkShape(known); err != nil {
		return nil, err
	}
	idx := make([]tensor.Idx, ax+1)
	idx[ax] = tensor.Mask(tensor.Full([]int{1}, 1, tensor.WithDType(ndarray.Bool)))
	return tensor.Full(known, 0, tensor.WithDType(dt)).Index(idx...), nil
}

func checkShape(s []int) error {
	if len(s) > maxRank {
		return &Error{Kind: "ValueError", Err: fmt.Errorf("shape %v: at most %d dimensions", s, maxRank)}
	}
	n := 1.0
	for _, d := range s {
		if d < 0 {
			return &Error{Kind: "ValueError", Err: fmt.Errorf("negative dimensions are not allowed: %v", s)}
		}
		n *= float64(d)
	}
	if n > math.MaxInt64/16 {
		return &Error{Kind: "ValueError", Err: fmt.Errorf("shape %v is too large", s)}
	}
	return nil
}

func (a *args) dtype(name string) (ndarray.DType, bool, error) {
	if !a.has(name) {
		return 0, false, nil
	}
	var s string
	if err := json.Unmarshal(a.vals[name], &s); err != nil {
		return 0, false, typeErr(name, fmt.Errorf("want a dtype name, got %s", a.vals[name]))
	}
	dt, err := ndarray.ParseDType(s)
	if err != nil {
		return 0, false, &Error{Kind: "TypeError", Err: fmt.Errorf("dtype %q is not supported by phobos (bool, int32, int64, float32, float64 are)", s)}
	}
	return dt, true, nil
}

// opts are the chunks and dtype options of a creation call.
func (a *args) opts(defDType ndarray.DType) ([]tensor.Option, error) {
	opts, err := chunkOpts(a.vals["chunks"])
	if err != nil {
		return nil, err
	}
	dt, ok, err := a.dtype("dtype")
	if err != nil {
		return nil, err
	}
	if !ok {
		dt = defDType
	}
	return append(opts, tensor.WithDType(dt)), nil
}

// chunkSpec reads chunks as Mars and Dask take them: null or "auto"
// (automatic), an integer (every axis), a list of integers (per axis, -1
// whole), a list of lists (explicit sizes), or {"bytes": N}.
func chunkSpec(raw json.RawMessage) (ops.ChunkSpec, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte(`"auto"`)) {
		return ops.ChunkSpec{}, nil
	}
	var i int
	if json.Unmarshal(raw, &i) == nil {
		return ops.ChunkSpec{Size: []int{i}}, nil
	}
	var sizes []int
	if json.Unmarshal(raw, &sizes) == nil && len(sizes) > 0 && len(sizes) <= maxRank {
		return ops.ChunkSpec{Size: sizes}, nil
	}
	var splits [][]int
	if json.Unmarshal(raw, &splits) == nil && len(splits) <= maxRank {
		return ops.ChunkSpec{Splits: splits}, nil
	}
	var b struct {
		Bytes int64 `json:"bytes"`
	}
	if json.Unmarshal(raw, &b) == nil && b.Bytes != 0 {
		return ops.ChunkSpec{Bytes: b.Bytes}, nil
	}
	return ops.ChunkSpec{}, &Error{Kind: "TypeError", Err: fmt.Errorf("chunks %s: want an integer, a list of integers, a list of lists of integers, \"auto\" or {\"bytes\": N}", raw)}
}

// chunkOpts is chunkSpec as tensor options.
func chunkOpts(raw json.RawMessage) ([]tensor.Option, error) {
	spec, err := chunkSpec(raw)
	switch {
	case err != nil:
		return nil, err
	case len(spec.Size) > 0:
		return []tensor.Option{tensor.Chunks(spec.Size...)}, nil
	case spec.Splits != nil:
		return []tensor.Option{tensor.ChunkSplits(spec.Splits...)}, nil
	case spec.Bytes != 0:
		return []tensor.Option{tensor.ChunkBytes(spec.Bytes)}, nil
	}
	return nil, nil
}

// params reads a call's arguments in turn and keeps the first error, so
// that an adapter reads what it needs and checks once. After an error the
// values read are zeros: check err before using them.
type params struct {
	a   *args
	err error
}

func (a *args) params() *params { return &params{a: a} }

func (p *params) keep(err error) {
	if p.err == nil {
		p.err = err
	}
}

func (p *params) tensor(name string) *tensor.Tensor {
	t, err := p.a.tensor(name)
	p.keep(err)
	return t
}

func (p *params) tensors(name string) []*tensor.Tensor {
	ts, err := p.a.tensors(name)
	p.keep(err)
	return ts
}

func (p *params) tensorArgs(names ...string) []*tensor.Tensor {
	ts, err := p.a.tensorArgs(names...)
	p.keep(err)
	return ts
}

// optTensor is an optional tensor argument (nil when absent or null).
func (p *params) optTensor(name string) *tensor.Tensor {
	if !p.a.has(name) {
		return nil
	}
	return p.tensor(name)
}

func (p *params) operand(name string) any {
	x, err := p.a.operand(name)
	p.keep(err)
	return x
}

func (p *params) operands(names ...string) []any {
	xs, err := p.a.operands(names...)
	p.keep(err)
	return xs
}

func (p *params) int(name string, def int) int {
	i, err := p.a.int(name, def)
	p.keep(err)
	return i
}

func (p *params) ints(name string) ([]int, bool) {
	v, ok, err := p.a.ints(name)
	p.keep(err)
	return v, ok
}

func (p *params) bool(name string) bool {
	b, err := p.a.bool(name)
	p.keep(err)
	return b
}

func (p *params) float(name string, def float64) float64 {
	f, err := p.a.float(name, def)
	p.keep(err)
	return f
}

func (p *params) dtype(name string) (ndarray.DType, bool) {
	dt, ok, err := p.a.dtype(name)
	p.keep(err)
	return dt, ok
}

func (p *params) shape(name string) []int {
	s, err := p.a.shape(name)
	p.keep(err)
	return s
}

// optAxis is the "axis" argument as Go's optional axis: none for null
// (NumPy: work on the flattened array).
func (p *params) optAxis() []int {
	if !p.a.has("axis") {
		return nil
	}
	return []int{p.int("axis", 0)}
}

// str reads a string argument into s, leaving s (its default) when the
// argument is absent or null.
func (p *params) str(name string, s *string) {
	if p.a.has(name) {
		p.keep(jsonString(p.a, name, s))
	}
}

// intList is an integer or a list of them, nil when not given.
func (p *params) intList(name string) []int {
	v, _ := p.ints(name)
	return v
}

// opts are the chunks and dtype options of a creation call.
func (p *params) opts(defDType ndarray.DType) []tensor.Option {
	o, err := p.a.opts(defDType)
	p.keep(err)
	return o
}

// reduceOpts are the axis and keepdims arguments as reduction options.
func (p *params) reduceOpts() []tensor.ReduceOption {
	var opts []tensor.ReduceOption
	if axes, ok := p.ints("axis"); ok {
		opts = append(opts, tensor.Axis(axes...))
	}
	if p.bool("keepdims") {
		opts = append(opts, tensor.KeepDims())
	}
	return opts
}
