// Package tensor is Phobos's user API: lazy n-d tensors with NumPy semantics
// (broadcasting, dtype promotion, negative axes, keepdims). Building a tensor
// runs nothing; a Session executes it.
//
// Mistakes (a shape mismatch, a bad axis, bad chunks) do not panic: the
// tensor carries the error, every tensor built from it carries it too, and
// Execute returns it. Check Err to find out early.
package tensor

import (
	"fmt"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Tensor is a lazy n-d array: an op applied to input tensors.
type Tensor struct {
	op     ops.TensorOp
	inputs []*Tensor
	meta   ops.Meta
	err    error
	// weak marks a Python-style scalar, which adopts the dtype of the
	// array it meets when the kinds agree (NumPy's value-based casting).
	weak      bool
	isScalar  bool    // made by Scalar or from a Go number
	scalar    float64 // its value
	scalarInt int64   // its exact value when it is an integer
	scalarIm  float64 // its imaginary part when it is complex
}

// Shape is the tensor's shape (nil when it is in error).
func (t *Tensor) Shape() []int { return append([]int(nil), t.meta.Shape...) }

// DType is the element type.
func (t *Tensor) DType() ndarray.DType { return t.meta.DType }

// NDim is the number of axes.
func (t *Tensor) NDim() int { return len(t.meta.Shape) }

// Size is the number of elements.
func (t *Tensor) Size() int { return ndarray.Size(t.meta.Shape) }

// Err is the error that building this tensor (or one of its inputs) met.
func (t *Tensor) Err() error { return t.err }

// Op is the tensor's operation.
func (t *Tensor) Op() ops.TensorOp { return t.op }

// Inputs are the tensors the op reads.
func (t *Tensor) Inputs() []*Tensor { return t.inputs }

func (t *Tensor) String() string {
	if t.err != nil {
		return fmt.Sprintf("Tensor(error: %v)", t.err)
	}
	return fmt.Sprintf("Tensor(%s, %v)", t.op.Type(), t.meta)
}

// needKnown is nil when t is usable by op, which needs every length of t;
// else an error tensor (t's own error, or the unknown axis op cannot take).
func (t *Tensor) needKnown(op string) *Tensor {
	switch {
	case t == nil:
		return errorf("%s: nil tensor", op)
	case t.err != nil:
		return t
	case t.meta.Unknown != 0:
		return errTensor(&ops.UnknownShapeError{Op: op, Axis: t.meta.UnknownAxis()})
	}
	return nil
}

// errTensor is a tensor that only carries an error.
func errTensor(err error) *Tensor { return &Tensor{err: err} }

// Errorf makes a tensor that carries an error.
func errorf(format string, args ...any) *Tensor { return errTensor(fmt.Errorf(format, args...)) }

// Error is a tensor that carries only err, for packages that build tensors
// on this one (linalg) and find a mistake before they apply any op. Every
// tensor built from it carries err, and Execute returns it.
func Error(err error) *Tensor {
	if err == nil {
		err = fmt.Errorf("tensor: Error(nil)")
	}
	return errTensor(err)
}

// New applies a tensor op to inputs, inferring the output meta. It is the
// one place tensors are made, so errors propagate uniformly.
func New(op ops.TensorOp, inputs ...*Tensor) *Tensor {
	metas := make([]ops.Meta, len(inputs))
	for i, in := range inputs {
		if in == nil {
			return errorf("%s: input %d is nil", op.Type(), i)
		}
		if in.err != nil {
			return errTensor(in.err)
		}
		metas[i] = in.meta
	}
	m, err := ops.InferChecked(op, metas)
	if err != nil {
		return errTensor(err)
	}
	return &Tensor{op: op, inputs: inputs, meta: m}
}

// Build collects the tensors the given ones depend on into a TileableGraph
// in topological order, sharing common subgraphs, and returns the node of
// each given tensor. It is iterative, so deep expression chains are fine.
func Build(ts ...*Tensor) (*graph.TileableGraph, []int, error) {
	g := &graph.TileableGraph{}
	ids := make(map[*Tensor]int)
	type frame struct {
		t   *Tensor
		pos int
	}
	var stack []frame
	for _, root := range ts {
		if root == nil {
			return nil, nil, fmt.Errorf("tensor: nil tensor")
		}
		if root.err != nil {
			return nil, nil, root.err
		}
		if _, ok := ids[root]; ok {
			continue
		}
		ids[root] = -1
		stack = append(stack[:0], frame{t: root})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.pos < len(top.t.inputs) {
				in := top.t.inputs[top.pos]
				top.pos++
				if _, ok := ids[in]; !ok {
					ids[in] = -1
					stack = append(stack, frame{t: in})
				}
				continue
			}
			inputs := make([]int, len(top.t.inputs))
			for i, in := range top.t.inputs {
				inputs[i] = ids[in]
			}
			ids[top.t] = g.Add(top.t.op, inputs, top.t.meta)
			stack = stack[:len(stack)-1]
		}
	}
	out := make([]int, len(ts))
	for i, t := range ts {
		out[i] = ids[t]
	}
	return g, out, nil
}

// Option configures a tensor constructor.
type Option func(*config)

type config struct {
	dtype  ndarray.DType
	chunks ops.ChunkSpec
	codec  string // ToZarr's compressor
	// zarrFormat is ToZarr's format (0: the default, 2)
	zarrFormat int
	err        error // a bad option, reported by the constructor
}

func newConfig(dt ndarray.DType, opts []Option) config {
	c := config{dtype: dt}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Chunks sets the chunk size: one size for every axis, or one per axis (-1
// for a whole axis).
func Chunks(sizes ...int) Option {
	return func(c *config) {
		c.chunks = ops.ChunkSpec{Size: append([]int(nil), sizes...)}
		if len(sizes) == 0 { // would read as automatic chunks
			c.setErr(fmt.Errorf("chunks: no chunk size given"))
		}
	}
}

// ChunkSplits sets explicit per-axis chunk sizes, which must add up to each axis.
func ChunkSplits(splits ...[]int) Option {
	return func(c *config) {
		c.chunks = ops.ChunkSpec{Splits: splits}
	}
}

// ChunkBytes asks for automatic chunks of about n bytes (default 128 MiB).
func ChunkBytes(n int64) Option {
	return func(c *config) {
		c.chunks = ops.ChunkSpec{Bytes: n}
		if n == 0 { // would read as the default size; negatives fail in Validate
			c.setErr(fmt.Errorf("chunks: %d bytes per chunk: want a positive size", n))
		}
	}
}

func (c *config) setErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

// check reports a bad option as the error of the constructor name, so the
// tensor carries it when built (New checks the spec against the shape).
func (c config) check(name string) error {
	if c.err != nil {
		return fmt.Errorf("%s: %w", name, c.err)
	}
	return nil
}

// WithDType sets the element type.
func WithDType(dt ndarray.DType) Option { return func(c *config) { c.dtype = dt } }
