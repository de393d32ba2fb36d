// Package calls is the tensor API by name: a client that is not written in
// Go (the Python package in python/) describes a computation as a program,
// a list of calls of named functions ("add", "sum", "reshape", ...) whose
// arguments are JSON values and references to earlier calls, and the web
// service builds it with the tensor package. The semantics are therefore
// the Go API's, NumPy's, in one place; clients list the functions with
// GET /api/functions and cannot drift from them.
package calls

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// Program is a computation as calls: node i may refer to nodes before it.
type Program struct {
	Nodes []Node `json:"nodes"`
}

// Node is one call, or an array the client holds.
type Node struct {
	Fn     string                     `json:"fn,omitempty"`
	Args   []json.RawMessage          `json:"args,omitempty"`
	Kwargs map[string]json.RawMessage `json:"kwargs,omitempty"`
	// Data is an array sent inline: base64 of its .npy bytes, with Chunks.
	Data   string          `json:"data,omitempty"`
	Chunks json.RawMessage `json:"chunks,omitempty"`
	// Uploaded is an array sent as an upload (POST .../uploads).
	Uploaded *ops.Uploaded `json:"uploaded,omitempty"`
	// Held names a result of an earlier graph of the session whose chunks
	// the cluster keeps (ref, result, meta): a persisted tensor.
	Held *ops.Held `json:"held,omitempty"`
	// Like stands for an array by its shape, dtype and chunks alone: enough
	// to describe what a program makes, not to run it.
	Like *Like `json:"like,omitempty"`
}

// Like is an array's metadata.
type Like struct {
	Shape  []int           `json:"shape"`
	DType  string          `json:"dtype"`
	Chunks json.RawMessage `json:"chunks,omitempty"`
}

// Error is a call that cannot be built; Kind is the Python exception NumPy
// raises for the same mistake.
type Error struct {
	Node int
	Fn   string
	Kind string // TypeError, ValueError, IndexError, NotImplementedError
	Err  error
}

func (e *Error) Error() string {
	if e.Fn == "" {
		return fmt.Sprintf("node %d: %v", e.Node, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Fn, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Limits on what a program may ask for, before anything is built.
const (
	MaxNodes = 1 << 16
	maxRank  = 32
)

// Opener opens a file source ("npy" or "zarr") where it will be read: a
// web service asks a worker, under the worker's data roots.
type Opener func(ctx context.Context, kind, path string, spec ops.ChunkSpec) (ops.TensorOp, error)

// Build makes the tensor of every node. Like nodes are refused unless
// like is true (they carry no data). File sources are opened in this
// process, with no restriction on paths, as a local session opens them.
func (p Program) Build(like bool) ([]*tensor.Tensor, error) {
	return p.BuildWith(context.Background(), like, func(ctx context.Context, kind, path string, spec ops.ChunkSpec) (ops.TensorOp, error) {
		return ops.OpenSource(ctx, kind, path, spec)
	})
}

// BuildWith is Build with file sources opened by open.
func (p Program) BuildWith(ctx context.Context, like bool, open Opener) ([]*tensor.Tensor, error) {
	if len(p.Nodes) > MaxNodes {
		return nil, &Error{Kind: "ValueError", Err: fmt.Errorf("a program of %d calls (at most %d)", len(p.Nodes), MaxNodes)}
	}
	out := make([]*tensor.Tensor, len(p.Nodes))
	for i, n := range p.Nodes {
		t, err := n.build(ctx, out[:i], like, open)
		if err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				ce.Node = i
				if ce.Fn == "" {
					ce.Fn = n.Fn
				}
				return nil, ce
			}
			return nil, &Error{Node: i, Fn: n.Fn, Kind: "ValueError", Err: err}
		}
		if err := t.Err(); err != nil {
			return nil, &Error{Node: i, Fn: n.Fn, Kind: kindOf(n.Fn, err), Err: err}
		}
		out[i] = t
	}
	return out, nil
}

// kindOf is the Python exception NumPy raises for a tensor that cannot be
// built.
func kindOf(fn string, err error) string {
	var ae *ndarray.AxisError
	var de *ndarray.DTypeError
	var ode *ops.DTypeError
	switch {
	case errors.As(err, &ae):
		return "AxisError"
	case errors.As(err, &de), errors.As(err, &ode):
		// An op without a kernel for the dtype: NumPy's TypeError for
		// ufuncs without a loop.
		return "TypeError"
	case fn == "getitem", fn == "setitem" && strings.Contains(err.Error(), "index"):
		return "IndexError"
	}
	return "ValueError"
}

func (n Node) build(ctx context.Context, prev []*tensor.Tensor, like bool, open Opener) (*tensor.Tensor, error) {
	kinds := 0
	for _, b := range []bool{n.Fn != "", n.Data != "", n.Uploaded != nil, n.Held != nil, n.Like != nil} {
		if b {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, &Error{Kind: "TypeError", Err: errors.New(`a node is one of {"fn": ...}, {"data": ...}, {"uploaded": ...}, {"held": ...} or {"like": ...}`)}
	}
	switch {
	case n.Data != "":
		a, err := npy.Read(base64.NewDecoder(base64.StdEncoding, strings.NewReader(n.Data)))
		if err != nil {
			return nil, &Error{Kind: "TypeError", Err: fmt.Errorf("data: %w", err)}
		}
		opts, err := chunkOpts(n.Chunks)
		if err != nil {
			return nil, err
		}
		return tensor.FromArray(a, opts...), nil
	case n.Uploaded != nil:
		return tensor.New(*n.Uploaded), nil
	case n.Held != nil:
		return heldNode(*n.Held)
	case n.Like != nil:
		if !like {
			return nil, &Error{Kind: "TypeError", Err: errors.New(`"like" nodes only describe; send the array's data to run it`)}
		}
		dt, err := ndarray.ParseDType(n.Like.DType)
		if err != nil {
			return nil, &Error{Kind: "TypeError", Err: err}
		}
		if ax := slices.Index(n.Like.Shape, -1); ax >= 0 {
			return likeUnknown(n.Like.Shape, ax, dt)
		}
		if err := checkShape(n.Like.Shape); err != nil {
			return nil, err
		}
		opts, err := chunkOpts(n.Like.Chunks)
		if err != nil {
			return nil, err
		}
		return tensor.Full(n.Like.Shape, 0, append(opts, tensor.WithDType(dt))...), nil
	}
	f, ok := lookup(n.Fn)
	if !ok {
		return nil, &Error{Fn: n.Fn, Kind: "NotImplementedError", Err: fmt.Errorf("phobos has no function %q", n.Fn)}
	}
	a, err := bind(n, f.params, prev)
	if a != nil {
		a.ctx, a.open = ctx, open
	}
	if err != nil {
		return nil, err
	}
	for _, p := range f.params[:f.required] {
		if _, ok := a.vals[p]; !ok {
			return nil, &Error{Kind: "TypeError", Err: fmt.Errorf("missing required argument %q", strings.TrimPrefix(p, "*"))}
		}
	}
	t, err := f.build(a)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.Fn = n.Fn
			return nil, ce
		}
		return nil, &Error{Fn: n.Fn, Kind: "TypeError", Err: err}
	}
	return t, nil
}

// Function describes a function for clients.
type Function struct {
	Name   string   `json:"name"`
	Params []string `json:"params"`
	// Required is how many of the first Params a call must give.
	Required int `json:"required"`
}

// Functions lists every function a program may call, by name.
func Functions() []Function {
	out := make([]Function, 0, len(table)+len(opTable))
	for _, t := range []map[string]function{table, opTable} {
		for name, f := range t {
			out = append(out, Function{Name: name, Params: f.params, Required: f.required})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
