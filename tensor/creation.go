package tensor

import (
	"math"
	"sync/atomic"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/rng"
	"github.com/phobos-tensor/phobos/ops"
)

// Full is a tensor of the given shape filled with v (float64 unless WithDType).
func Full(shape []int, v float64, opts ...Option) *Tensor {
	c := newConfig(ndarray.Float64, opts)
	if err := c.check("full"); err != nil {
		return errTensor(err)
	}
	return New(ops.Full{Meta: ops.Meta{Shape: append([]int(nil), shape...), DType: c.dtype}, Value: v, Chunks: c.chunks})
}

// Zeros is Full with 0.
func Zeros(shape []int, opts ...Option) *Tensor { return Full(shape, 0, opts...) }

// Ones is Full with 1.
func Ones(shape []int, opts ...Option) *Tensor { return Full(shape, 1, opts...) }

// Arange is NumPy's arange(start, stop, step): float64 unless WithDType.
func Arange(start, stop, step float64, opts ...Option) *Tensor {
	if step == 0 || math.IsNaN(step) || math.IsInf(step, 0) {
		return errorf("arange: step %v must be finite and non-zero", step)
	}
	n := int(math.Ceil((stop - start) / step))
	if n < 0 {
		n = 0
	}
	c := newConfig(ndarray.Float64, opts)
	if err := c.check("arange"); err != nil {
		return errTensor(err)
	}
	return New(ops.Arange{Meta: ops.Meta{Shape: []int{n}, DType: c.dtype}, Start: start, Step: step, Chunks: c.chunks})
}

// ArangeN is 0, 1, ..., n-1 as int64 (NumPy's arange(n)).
func ArangeN(n int, opts ...Option) *Tensor {
	if n < 0 {
		return errorf("arange: negative length %d", n)
	}
	c := newConfig(ndarray.Int64, opts)
	if err := c.check("arange"); err != nil {
		return errTensor(err)
	}
	return New(ops.Arange{Meta: ops.Meta{Shape: []int{n}, DType: c.dtype}, Start: 0, Step: 1, Chunks: c.chunks})
}

// Linspace is num evenly spaced values from start to stop inclusive.
func Linspace(start, stop float64, num int, opts ...Option) *Tensor {
	if num < 0 {
		return errorf("linspace: number of samples %d must be non-negative", num)
	}
	step := 0.0
	if num > 1 {
		step = (stop - start) / float64(num-1)
	}
	c := newConfig(ndarray.Float64, opts)
	if err := c.check("arange"); err != nil {
		return errTensor(err)
	}
	if num == 1 && c.dtype.IsInt() {
		// One sample is start alone, which NumPy's linspace rounds toward
		// -inf into integers as every other sample.
		start = math.Floor(start)
	}
	return New(ops.Arange{Meta: ops.Meta{Shape: []int{num}, DType: c.dtype}, Start: start, Step: step, End: stop, EndValue: num > 1, Chunks: c.chunks})
}

// Eye is an n x m tensor with ones on the k-th diagonal (float64 unless WithDType).
func Eye(n, m, k int, opts ...Option) *Tensor {
	c := newConfig(ndarray.Float64, opts)
	if err := c.check("eye"); err != nil {
		return errTensor(err)
	}
	return New(ops.Eye{Meta: ops.Meta{Shape: []int{n, m}, DType: c.dtype}, K: k, Chunks: c.chunks})
}

// FromArray makes a tensor of client data; the array must not change afterwards.
func FromArray(a *ndarray.Array, opts ...Option) *Tensor {
	if a == nil {
		return errorf("from array: nil array")
	}
	c := newConfig(a.DType(), opts)
	if err := c.check("literal"); err != nil {
		return errTensor(err)
	}
	if c.dtype != a.DType() {
		a = a.Astype(c.dtype)
	}
	return New(ops.Literal{Data: a, Chunks: c.chunks})
}

// FromSlice makes a tensor of the given shape from a []float64, []float32,
// []int64, []int32, []int16, []int8, []uint64, []uint32, []uint16, []uint8,
// []int or []bool (copied).
func FromSlice(data any, shape []int, opts ...Option) *Tensor {
	var a *ndarray.Array
	var err error
	switch d := data.(type) {
	case []float64:
		a, err = ndarray.FromFloat64s(shape, d)
	case []float32:
		a, err = ndarray.FromFloat32s(shape, d)
	case []int64:
		a, err = ndarray.FromInt64s(shape, d)
	case []int32:
		a, err = ndarray.FromInt32s(shape, d)
	case []int16:
		a, err = ndarray.FromInt16s(shape, d)
	case []int8:
		a, err = ndarray.FromInt8s(shape, d)
	case []uint64:
		a, err = ndarray.FromUint64s(shape, d)
	case []uint32:
		a, err = ndarray.FromUint32s(shape, d)
	case []uint16:
		a, err = ndarray.FromUint16s(shape, d)
	case []uint8:
		a, err = ndarray.FromUint8s(shape, d)
	case []int:
		v := make([]int64, len(d))
		for i, x := range d {
			v[i] = int64(x)
		}
		a, err = ndarray.FromInt64s(shape, v)
	case []bool:
		a, err = ndarray.FromBools(shape, d)
	default:
		return errorf("from slice: unsupported data type %T", data)
	}
	if err != nil {
		return errorf("from slice: %w", err)
	}
	return FromArray(a, opts...)
}

// Scalar is a 0-d tensor holding v (a Go number or bool) with NumPy's
// scalar promotion: it takes the dtype of the array it meets when kinds agree.
func Scalar(v any) *Tensor { return asTensor(v) }

// asTensor turns an operand into a tensor: tensors pass through, Go numbers
// and bools become weak scalars.
func asTensor(x any) *Tensor {
	var dt ndarray.DType
	var v float64
	var iv int64
	var im float64
	switch s := x.(type) {
	case complex128:
		dt, v, im = ndarray.Complex128, real(s), imag(s)
	case complex64:
		dt, v, im = ndarray.Complex128, float64(real(s)), float64(imag(s))
	case *Tensor:
		if s == nil {
			return errorf("nil tensor operand")
		}
		return s
	case float64:
		dt, v = ndarray.Float64, s
	case float32:
		dt, v = ndarray.Float64, float64(s)
	case int:
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case int64:
		dt, v, iv = ndarray.Int64, float64(s), s
	case int32:
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case int16:
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case int8:
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case uint8:
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case uint16:
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case uint32:
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case uint:
		return asTensor(uint64(s))
	case uint64:
		if s > math.MaxInt64 {
			return errorf("unsigned operand %d above 2**63-1: make a uint64 tensor (FromSlice) instead", s)
		}
		dt, v, iv = ndarray.Int64, float64(s), int64(s)
	case bool:
		dt = ndarray.Bool
		if s {
			v = 1
		}
	default:
		return errorf("unsupported operand type %T (want *Tensor, a Go number, complex number or bool)", x)
	}
	if dt == ndarray.Bool {
		iv = int64(v)
	}
	t := scalarTensor(dt, v, im, iv)
	t.weak = true
	return t
}

func scalarTensor(dt ndarray.DType, v, im float64, iv int64) *Tensor {
	if !dt.IsComplex() {
		im = 0
	}
	c := ops.Const{Value: v, Imag: im, Int: iv, DType: dt}
	t := New(ops.Literal{Data: c.Array()})
	t.scalar, t.scalarInt, t.scalarIm = v, iv, im
	t.isScalar = true
	return t
}

// isScalarLiteral reports whether t is a scalar made from a Go value.
func (t *Tensor) isScalarLiteral() bool { return t.isScalar }

// weakKind orders the kinds for NumPy 1.24's value-based casting.
func weakKind(dt ndarray.DType) int {
	switch {
	case dt == ndarray.Bool:
		return 0
	case dt.IsInt():
		return 1
	}
	return 2
}

// weakCategory is weakKind, except that a complex scalar is by itself: it
// meets float and complex arrays by value (float32 + 1j is complex64, as
// NumPy 1.24 treats both as inexact), but it does not shrink to a real
// type, so its own value type stands for it.
func weakCategory(dt ndarray.DType) int {
	if dt.IsComplex() {
		return 3
	}
	return weakKind(dt)
}

// resolveWeak gives a weak scalar the dtype NumPy 1.24 would: when the
// scalar's kind is not above the array's, the array's dtype promoted with
// the scalar's smallest type by value (ndarray.WeakIntType,
// ndarray.MinScalarFloat), so int8 + 300 is int16 and float32 + 1e39
// float64; else the default type of the scalar's kind.
func resolveWeak(s *Tensor, other ndarray.DType) *Tensor {
	sk, ok := weakCategory(s.meta.DType), weakKind(other)
	dt := s.meta.DType
	if sk <= ok || (sk == 3 && ok == 2) {
		switch sk {
		case 0:
			dt = other
		case 1:
			dt = ndarray.WeakIntType(other, s.scalarInt)
		case 2:
			dt = ndarray.Promote(other, ndarray.MinScalarFloat(s.scalar))
		default:
			dt = ndarray.Promote(other, ndarray.MinScalarComplex(complex(s.scalar, s.scalarIm)))
		}
	}
	if dt == s.meta.DType {
		return s
	}
	iv := s.scalarInt
	if sk == 2 || sk == 0 || sk == 3 {
		iv = int64(s.scalar)
	}
	return scalarTensor(dt, s.scalar, s.scalarIm, iv)
}

// operands converts operands and settles weak scalars against the arrays.
// NumPy 1.24 also casts 0-d arrays by value when they meet n-d arrays; the
// value of a computed 0-d tensor is not known yet, so it follows the kind
// rule alone: a 0-d tensor whose kind is not above the arrays' takes their
// dtype (float32 x - x.mean() stays float32, as in NumPy).
func operands(xs ...any) []*Tensor {
	ts := make([]*Tensor, len(xs))
	strong := ndarray.Invalid
	hasND := false
	for i, x := range xs {
		ts[i] = asTensor(x)
		if t := ts[i]; t.err == nil && !t.weak && t.NDim() > 0 {
			hasND = true
			if strong == ndarray.Invalid {
				strong = t.meta.DType
			} else {
				strong = ndarray.Promote(strong, t.meta.DType)
			}
		}
	}
	if !hasND {
		// Only scalars and 0-d tensors: NumPy 1.24 casts by value only
		// when scalars meet arrays, so here Python numbers count as their
		// default types (int64, float64) in ordinary promotion.
		for _, t := range ts {
			if t.err == nil {
				if strong == ndarray.Invalid {
					strong = t.meta.DType
				} else {
					strong = ndarray.Promote(strong, t.meta.DType)
				}
			}
		}
	}
	if strong != ndarray.Invalid {
		for i, t := range ts {
			switch {
			case t.err != nil:
			case t.weak:
				ts[i] = resolveWeak(t, strong)
			case hasND && t.NDim() == 0 && weakKind(t.meta.DType) <= weakKind(strong) && t.meta.DType != strong &&
				!(t.meta.DType.IsComplex() && !strong.IsComplex()):
				// A complex 0-d tensor meeting real arrays keeps its kind:
				// its value is complex, so no real type holds it.
				ts[i] = t.Astype(strong)
			}
		}
	}
	return ts
}

// Generator makes random tensors from a seed. Each tensor it makes gets its
// own stream, so a, b := g.Rand(..), g.Rand(..) differ, and a program that
// makes the same calls gets the same numbers whatever the chunking.
type Generator struct {
	seed   uint64
	stream atomic.Uint64
}

// NewGenerator returns a generator for seed.
func NewGenerator(seed uint64) *Generator { return &Generator{seed: seed} }

func (g *Generator) random(shape []int, dist rng.Dist, p1, p2 float64, def ndarray.DType, opts []Option) *Tensor {
	return randomStream(g.seed, g.stream.Add(1)-1, dist, p1, p2, shape, def, opts)
}

// RandomStream is the tensor a Generator of seed makes as its stream-th
// (counting from 0) with the same distribution and parameters: a client in
// another language numbers its random tensors the same way and gets the
// same numbers. Uniform and Normal are float64, Intn int64, unless WithDType.
func RandomStream(seed, stream uint64, dist rng.Dist, p1, p2 float64, shape []int, opts ...Option) *Tensor {
	def := ndarray.Float64
	if dist == rng.Intn {
		def = ndarray.Int64
	}
	return randomStream(seed, stream, dist, p1, p2, shape, def, opts)
}

func randomStream(seed, stream uint64, dist rng.Dist, p1, p2 float64, shape []int, def ndarray.DType, opts []Option) *Tensor {
	c := newConfig(def, opts)
	if err := c.check("random"); err != nil {
		return errTensor(err)
	}
	key := rng.NewKey(seed, stream)
	return New(ops.Random{Meta: ops.Meta{Shape: append([]int(nil), shape...), DType: c.dtype}, Key: key, Dist: dist, P1: p1, P2: p2, Chunks: c.chunks})
}

// Rand is uniform on [0, 1).
func (g *Generator) Rand(shape []int, opts ...Option) *Tensor {
	return g.random(shape, rng.Uniform, 0, 1, ndarray.Float64, opts)
}

// Uniform is uniform on [lo, hi).
func (g *Generator) Uniform(lo, hi float64, shape []int, opts ...Option) *Tensor {
	return g.random(shape, rng.Uniform, lo, hi, ndarray.Float64, opts)
}

// Randn is standard normal.
func (g *Generator) Randn(shape []int, opts ...Option) *Tensor {
	return g.random(shape, rng.Normal, 0, 1, ndarray.Float64, opts)
}

// Normal is normal with the given mean and standard deviation.
func (g *Generator) Normal(mean, std float64, shape []int, opts ...Option) *Tensor {
	if std < 0 {
		return errorf("normal: negative standard deviation %v", std)
	}
	return g.random(shape, rng.Normal, mean, std, ndarray.Float64, opts)
}

// RandInt is uniform on the integers [lo, hi), int64 unless WithDType.
func (g *Generator) RandInt(lo, hi int64, shape []int, opts ...Option) *Tensor {
	if hi <= lo {
		return errorf("randint: empty range [%d, %d)", lo, hi)
	}
	return g.random(shape, rng.Intn, float64(lo), float64(hi), ndarray.Int64, opts)
}

// Rechunk changes the chunking of t (see Chunks, ChunkSplits, ChunkBytes).
func (t *Tensor) Rechunk(opts ...Option) *Tensor {
	if u := t.needKnown("rechunk"); u != nil {
		return u
	}
	c := newConfig(t.meta.DType, opts)
	if t == nil || t.err != nil {
		return New(ops.Rechunk{Chunks: c.chunks}, t)
	}
	if err := c.check("rechunk"); err != nil {
		return errTensor(err)
	}
	return New(ops.Rechunk{Chunks: c.chunks}, t)
}
