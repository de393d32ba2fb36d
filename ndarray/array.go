package ndarray

import (
	"fmt"
	"math"
	"unsafe"
)

// Array is a dense strided n-dimensional array over one 8-byte aligned buffer.
//
// Strides and offset count elements, not bytes. An Array is a value that
// views its buffer: Transpose, Slice, BroadcastTo, ExpandDims and friends return
// new Arrays sharing the buffer without copying. Kernels never write into an
// input; they allocate their output. A zero-dimensional Array holds a scalar.
type Array struct {
	dtype   DType
	shape   []int
	strides []int
	offset  int
	buf     []byte // whole backing buffer; the array addresses buf[offset*size:]
}

// alignedBytes returns n zeroed bytes whose first byte is 8-byte aligned,
// from the buffer pool (pool.go) when it has a free buffer of the size.
func alignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	return buffers.get(n)
}

// Size is the number of elements of an array of the given shape.
func Size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// ContiguousStrides are the row-major (C order) strides of shape, in elements.
func ContiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	contiguousStridesInto(st, shape)
	return st
}

// contiguousStridesInto writes ContiguousStrides(shape) into st, of the
// same length.
func contiguousStridesInto(st, shape []int) {
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		if shape[i] > 1 {
			s *= shape[i]
		}
	}
}

func checkShape(shape []int) error {
	n := 1
	for i, d := range shape {
		if d < 0 {
			return fmt.Errorf("ndarray: negative dimension %d at axis %d of shape %v", d, i, shape)
		}
		// At most MaxInt/16 elements, so that the bytes of any dtype
		// (complex128 the widest) fit an int: a size that wrapped around
		// would make an array larger than its buffer.
		if d > 0 && n > (math.MaxInt/16)/d {
			return fmt.Errorf("ndarray: shape %v has too many elements", shape)
		}
		n *= d
	}
	return nil
}

// New allocates a zero-filled contiguous array.
func New(dtype DType, shape ...int) (*Array, error) {
	if !dtype.Valid() {
		return nil, fmt.Errorf("ndarray: invalid dtype %v", dtype)
	}
	if err := checkShape(shape); err != nil {
		return nil, err
	}
	return newArray(dtype, shape), nil
}

// newArray is New for shapes already known to be valid.
func newArray(dtype DType, shape []int) *Array { return shapedArray(dtype, shape, true) }

// newArrayUninit is newArray whose elements may hold a reused buffer's old
// bytes: only for an output its kernel writes whole before anything reads
// it.
func newArrayUninit(dtype DType, shape []int) *Array { return shapedArray(dtype, shape, false) }

func shapedArray(dtype DType, shape []int, zero bool) *Array {
	n := Size(shape) * dtype.Size()
	if n > 0 && n <= tinyBytes && len(shape) <= smallRank {
		return tinyArray(dtype, shape, n)
	}
	buf := []byte{}
	if n > 0 {
		buf = buffers.take(n, zero)
	}
	if len(shape) <= smallRank {
		// One allocation for the array and its shape and strides: most
		// chunks are scalars, vectors or matrices.
		return (&smallArray{}).set(dtype, shape, buf)
	}
	sh := append([]int(nil), shape...)
	return &Array{dtype: dtype, shape: sh, strides: ContiguousStrides(sh), buf: buf}
}

// smallRank is the most axes whose shape and strides fit in a smallArray.
const smallRank = 2

// smallArray is an array made together with the room for its shape and
// strides. The slices are capped to their length, so growing one never
// writes over the other.
type smallArray struct {
	Array
	room [2 * smallRank]int
}

// set makes r's Array the contiguous array of shape (at most smallRank
// axes) over buf, its shape and strides in r's room.
func (r *smallArray) set(dtype DType, shape []int, buf []byte) *Array {
	nd := len(shape)
	var sh []int // nil for a scalar, as before
	if nd > 0 {
		sh = append(r.room[:0:nd], shape...)
	}
	st := r.room[nd : 2*nd : 2*nd]
	contiguousStridesInto(st, sh)
	r.Array = Array{dtype: dtype, shape: sh, strides: st, buf: buf}
	return &r.Array
}

// tinyBytes is the most data bytes an array made with its header holds:
// one element of any dtype (a complex128 the widest).
const tinyBytes = 16

// tinyObject is an array of at most tinyBytes bytes of data together with
// its shape, strides and data (8-byte aligned words), in one allocation:
// the scalar partials of reductions over small chunks are made by the
// million, and each allocation counts. D is the data's words: one word
// keeps the object in a smaller size class than two.
type tinyObject[D [1]uint64 | [2]uint64] struct {
	smallArray
	data D
}

// tinyArray makes a contiguous array of shape (at most smallRank axes) and
// n <= tinyBytes bytes in one tinyObject. Its data is zero: the object is
// new.
func tinyArray(dtype DType, shape []int, n int) *Array {
	if n <= 8 {
		return tinyIn(&tinyObject[[1]uint64]{}, dtype, shape, n)
	}
	return tinyIn(&tinyObject[[2]uint64]{}, dtype, shape, n)
}

func tinyIn[D [1]uint64 | [2]uint64](r *tinyObject[D], dtype DType, shape []int, n int) *Array {
	return r.set(dtype, shape, unsafe.Slice((*byte)(unsafe.Pointer(&r.data)), n))
}

// Zeros is New that panics on nothing: it returns an error for a bad shape.
func Zeros(dtype DType, shape ...int) (*Array, error) { return New(dtype, shape...) }

// FromBytes wraps a little-endian contiguous buffer of the given type and shape.
// The bytes are copied into an aligned buffer.
func FromBytes(dtype DType, shape []int, b []byte) (*Array, error) {
	a, err := New(dtype, shape...)
	if err != nil {
		return nil, err
	}
	if len(b) != len(a.buf) {
		return nil, fmt.Errorf("ndarray: %d bytes given for %v array of shape %v (want %d)", len(b), dtype, shape, len(a.buf))
	}
	copy(a.buf, b)
	return a, nil
}

// FromFloat64s builds a float64 array of the given shape from data (copied).
func FromFloat64s(shape []int, data []float64) (*Array, error) {
	return fromSlice(Float64, shape, data)
}

// FromFloat32s builds a float32 array of the given shape from data (copied).
func FromFloat32s(shape []int, data []float32) (*Array, error) {
	return fromSlice(Float32, shape, data)
}

// FromInt64s builds an int64 array of the given shape from data (copied).
func FromInt64s(shape []int, data []int64) (*Array, error) { return fromSlice(Int64, shape, data) }

// FromInt32s builds an int32 array of the given shape from data (copied).
func FromInt32s(shape []int, data []int32) (*Array, error) { return fromSlice(Int32, shape, data) }

// FromBools builds a bool array of the given shape from data (copied).
func FromBools(shape []int, data []bool) (*Array, error) {
	a, err := New(Bool, shape...)
	if err != nil {
		return nil, err
	}
	if len(data) != a.Size() {
		return nil, fmt.Errorf("ndarray: %d values given for shape %v (want %d)", len(data), shape, a.Size())
	}
	for i, v := range data {
		if v {
			a.buf[i] = 1
		}
	}
	return a, nil
}

// FromInt8s builds an int8 array of the given shape from data (copied).
func FromInt8s(shape []int, data []int8) (*Array, error) { return fromSlice(Int8, shape, data) }

// FromInt16s builds an int16 array of the given shape from data (copied).
func FromInt16s(shape []int, data []int16) (*Array, error) { return fromSlice(Int16, shape, data) }

// FromUint8s builds a uint8 array of the given shape from data (copied).
func FromUint8s(shape []int, data []uint8) (*Array, error) { return fromSlice(Uint8, shape, data) }

// FromUint16s builds a uint16 array of the given shape from data (copied).
func FromUint16s(shape []int, data []uint16) (*Array, error) { return fromSlice(Uint16, shape, data) }

// FromUint32s builds a uint32 array of the given shape from data (copied).
func FromUint32s(shape []int, data []uint32) (*Array, error) { return fromSlice(Uint32, shape, data) }

// FromUint64s builds a uint64 array of the given shape from data (copied).
func FromUint64s(shape []int, data []uint64) (*Array, error) { return fromSlice(Uint64, shape, data) }

// FromComplex64s builds a complex64 array of the given shape from data (copied).
func FromComplex64s(shape []int, data []complex64) (*Array, error) {
	return fromSlice(Complex64, shape, data)
}

// FromComplex128s builds a complex128 array of the given shape from data (copied).
func FromComplex128s(shape []int, data []complex128) (*Array, error) {
	return fromSlice(Complex128, shape, data)
}

func fromSlice[T ewNum | complex64 | complex128](dt DType, shape []int, data []T) (*Array, error) {
	a, err := New(dt, shape...)
	if err != nil {
		return nil, err
	}
	if len(data) != a.Size() {
		return nil, fmt.Errorf("ndarray: %d values given for shape %v (want %d)", len(data), shape, a.Size())
	}
	copy(typed[T](a), data)
	return a, nil
}

// Scalar returns a 0-d array holding v converted to dtype.
func Scalar(dtype DType, v float64) *Array {
	a := newArray(dtype, nil)
	a.SetFlat(0, v)
	return a
}

// ScalarComplex returns a 0-d array holding v converted to dtype (a real
// dtype keeps the real part).
func ScalarComplex(dtype DType, v complex128) *Array {
	a := newArray(dtype, nil)
	a.SetComplexFlat(0, v)
	return a
}

// ScalarInt returns a 0-d int64 array holding v exactly.
func ScalarInt(v int64) *Array {
	a := newArray(Int64, nil)
	typed[int64](a)[0] = v
	return a
}

// DType is the element type.
func (a *Array) DType() DType { return a.dtype }

// Shape is the array's shape. The caller must not modify it.
func (a *Array) Shape() []int { return a.shape }

// Strides are the element strides. The caller must not modify them.
func (a *Array) Strides() []int { return a.strides }

// Offset is the element offset of the first element in the buffer.
func (a *Array) Offset() int { return a.offset }

// NDim is the number of axes.
func (a *Array) NDim() int { return len(a.shape) }

// Size is the number of elements.
func (a *Array) Size() int { return Size(a.shape) }

// Nbytes is the number of bytes the elements occupy when contiguous.
func (a *Array) Nbytes() int { return a.Size() * a.dtype.Size() }

// BufferBytes is the size of the whole backing buffer, which a view shares.
func (a *Array) BufferBytes() int { return len(a.buf) }

// SharesBuffer reports whether a and b view the same backing buffer.
func (a *Array) SharesBuffer(b *Array) bool {
	if len(a.buf) == 0 || len(b.buf) == 0 {
		return false
	}
	return &a.buf[0] == &b.buf[0]
}

// IsContiguous reports whether the elements are laid out in C order without gaps.
func (a *Array) IsContiguous() bool {
	s := 1
	for i := len(a.shape) - 1; i >= 0; i-- {
		if a.shape[i] == 1 {
			continue
		}
		if a.shape[i] == 0 {
			return true
		}
		if a.strides[i] != s {
			return false
		}
		s *= a.shape[i]
	}
	return true
}

// typed views the whole buffer as a slice of T, starting at the array's offset.
// It is only meaningful for the T matching a.dtype.
func typed[T any](a *Array) []T {
	var z T
	sz := int(unsafe.Sizeof(z))
	n := len(a.buf) / sz
	if n == 0 {
		return nil
	}
	all := unsafe.Slice((*T)(unsafe.Pointer(&a.buf[0])), n)
	return all[a.offset:]
}

// typedAll views the whole buffer as []T; index it with absolute element
// offsets (a.offset plus strides), which stay valid for negative strides.
func typedAll[T any](a *Array) []T {
	var z T
	n := len(a.buf) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&a.buf[0])), n)
}

func (a *Array) mustBe(dt DType) {
	if a.dtype != dt {
		// Programming error inside Phobos, not a user error: the dtype is
		// checked before any typed accessor is reached.
		panic(fmt.Sprintf("ndarray: %v array accessed as %v", a.dtype, dt))
	}
}

// Float64s returns the buffer from the array's first element as []float64.
// Index it through Strides unless IsContiguous; with a negative stride some
// elements lie before the first, so strided code should use offsets from
// ForEachRun on the whole buffer instead. The array must be float64.
func (a *Array) Float64s() []float64 { a.mustBe(Float64); return typed[float64](a) }

// Float32s is Float64s for float32 arrays.
func (a *Array) Float32s() []float32 { a.mustBe(Float32); return typed[float32](a) }

// Int64s is Float64s for int64 arrays.
func (a *Array) Int64s() []int64 { a.mustBe(Int64); return typed[int64](a) }

// Int32s is Float64s for int32 arrays.
func (a *Array) Int32s() []int32 { a.mustBe(Int32); return typed[int32](a) }

// Int8s is Float64s for int8 arrays.
func (a *Array) Int8s() []int8 { a.mustBe(Int8); return typed[int8](a) }

// Int16s is Float64s for int16 arrays.
func (a *Array) Int16s() []int16 { a.mustBe(Int16); return typed[int16](a) }

// Uint8s is Float64s for uint8 arrays.
func (a *Array) Uint8s() []uint8 { a.mustBe(Uint8); return typed[uint8](a) }

// Uint16s is Float64s for uint16 arrays.
func (a *Array) Uint16s() []uint16 { a.mustBe(Uint16); return typed[uint16](a) }

// Uint32s is Float64s for uint32 arrays.
func (a *Array) Uint32s() []uint32 { a.mustBe(Uint32); return typed[uint32](a) }

// Uint64s is Float64s for uint64 arrays.
func (a *Array) Uint64s() []uint64 { a.mustBe(Uint64); return typed[uint64](a) }

// Float16s is Float64s for float16 arrays: the elements' bits (see
// HalfToFloat64 and Float64ToHalf).
func (a *Array) Float16s() []uint16 { a.mustBe(Float16); return typed[uint16](a) }

// Complex64s is Float64s for complex64 arrays.
func (a *Array) Complex64s() []complex64 { a.mustBe(Complex64); return typed[complex64](a) }

// Complex128s is Float64s for complex128 arrays.
func (a *Array) Complex128s() []complex128 { a.mustBe(Complex128); return typed[complex128](a) }

// Bools is Float64s for bool arrays: one byte per element, 0 or 1.
func (a *Array) Bools() []uint8 { a.mustBe(Bool); return typed[uint8](a) }

// Bytes returns the contiguous little-endian bytes of the elements, copying
// only when the array is not already contiguous.
func (a *Array) Bytes() []byte {
	c := a.Contiguous()
	n := c.Nbytes()
	off := c.offset * c.dtype.Size()
	return c.buf[off : off+n]
}

// flatOffset converts a C-order flat index into an element offset in buf.
func (a *Array) flatOffset(i int) int {
	off := a.offset
	for ax := len(a.shape) - 1; ax >= 0; ax-- {
		d := a.shape[ax]
		if d == 0 {
			return off
		}
		off += (i % d) * a.strides[ax]
		i /= d
	}
	return off
}

// AtFlat returns the element at C-order flat index i as float64 (bools are 0
// or 1, complex numbers their real part, as NumPy's float() of a complex
// array element would refuse and astype(float) keeps). Slow; for tests,
// printing and scalars.
func (a *Array) AtFlat(i int) float64 {
	o := a.flatOffset(i)
	switch a.dtype {
	case Complex64:
		return float64(real(typedAll[complex64](a)[o]))
	case Complex128:
		return real(typedAll[complex128](a)[o])
	case Float64:
		return typedAll[float64](a)[o]
	case Float32:
		return float64(typedAll[float32](a)[o])
	case Int64:
		return float64(typedAll[int64](a)[o])
	case Int32:
		return float64(typedAll[int32](a)[o])
	case Int8:
		return float64(typedAll[int8](a)[o])
	case Int16:
		return float64(typedAll[int16](a)[o])
	case Uint8:
		return float64(typedAll[uint8](a)[o])
	case Uint16:
		return float64(typedAll[uint16](a)[o])
	case Uint32:
		return float64(typedAll[uint32](a)[o])
	case Uint64:
		return float64(typedAll[uint64](a)[o])
	case Float16:
		return HalfToFloat64(typedAll[uint16](a)[o])
	case Bool:
		return float64(typedAll[uint8](a)[o])
	}
	return math.NaN()
}

// ComplexAtFlat returns the element at C-order flat index i as complex128
// (real types give a zero imaginary part). Slow; for tests and scalars.
func (a *Array) ComplexAtFlat(i int) complex128 {
	switch a.dtype {
	case Complex64:
		return complex128(typedAll[complex64](a)[a.flatOffset(i)])
	case Complex128:
		return typedAll[complex128](a)[a.flatOffset(i)]
	}
	return complex(a.AtFlat(i), 0)
}

// SetComplexFlat stores v at C-order flat index i; a real array keeps the
// real part only (NumPy's ComplexWarning cast).
func (a *Array) SetComplexFlat(i int, v complex128) {
	switch a.dtype {
	case Complex64:
		typedAll[complex64](a)[a.flatOffset(i)] = complex64(v)
	case Complex128:
		typedAll[complex128](a)[a.flatOffset(i)] = v
	case Bool:
		// bool of a complex is "nonzero", not "real part nonzero".
		b := 0.0
		if v != 0 {
			b = 1
		}
		a.SetFlat(i, b)
	default:
		a.SetFlat(i, real(v))
	}
}

// IntAtFlat returns the element at flat index i as int64; exact for integer types.
func (a *Array) IntAtFlat(i int) int64 {
	o := a.flatOffset(i)
	switch a.dtype {
	case Int64:
		return typedAll[int64](a)[o]
	case Int32:
		return int64(typedAll[int32](a)[o])
	case Int8:
		return int64(typedAll[int8](a)[o])
	case Int16:
		return int64(typedAll[int16](a)[o])
	case Uint8:
		return int64(typedAll[uint8](a)[o])
	case Uint16:
		return int64(typedAll[uint16](a)[o])
	case Uint32:
		return int64(typedAll[uint32](a)[o])
	case Uint64:
		return int64(typedAll[uint64](a)[o])
	case Bool:
		return int64(typedAll[uint8](a)[o])
	}
	return int64(a.AtFlat(i))
}

// SetFlat stores v (converted to the array's type) at C-order flat index i.
func (a *Array) SetFlat(i int, v float64) {
	o := a.flatOffset(i)
	switch a.dtype {
	case Complex64:
		typedAll[complex64](a)[o] = complex(float32(v), 0)
	case Complex128:
		typedAll[complex128](a)[o] = complex(v, 0)
	case Float64:
		typedAll[float64](a)[o] = v
	case Float32:
		typedAll[float32](a)[o] = float32(v)
	case Int64:
		typedAll[int64](a)[o] = ewCvt64(v)
	case Int32:
		typedAll[int32](a)[o] = ewCvt32(v)
	case Int8:
		typedAll[int8](a)[o] = ewFloatToInt[float64, int8](v)
	case Int16:
		typedAll[int16](a)[o] = ewFloatToInt[float64, int16](v)
	case Uint8:
		typedAll[uint8](a)[o] = ewFloatToInt[float64, uint8](v)
	case Uint16:
		typedAll[uint16](a)[o] = ewFloatToInt[float64, uint16](v)
	case Uint32:
		typedAll[uint32](a)[o] = ewFloatToInt[float64, uint32](v)
	case Uint64:
		typedAll[uint64](a)[o] = ewFloatToInt[float64, uint64](v)
	case Float16:
		typedAll[uint16](a)[o] = Float64ToHalf(v)
	case Bool:
		if v != 0 {
			typedAll[uint8](a)[o] = 1
		} else {
			typedAll[uint8](a)[o] = 0
		}
	}
}

// ToFloat64s returns the elements in C order as a new []float64 (complex
// elements give their real part).
func (a *Array) ToFloat64s() []float64 {
	c := a.Contiguous()
	n := c.Size()
	out := make([]float64, n)
	switch c.dtype {
	case Complex64:
		for i, v := range typed[complex64](c)[:n] {
			out[i] = float64(real(v))
		}
	case Complex128:
		for i, v := range typed[complex128](c)[:n] {
			out[i] = real(v)
		}
	case Float64:
		copy(out, typed[float64](c)[:n])
	case Float32:
		for i, v := range typed[float32](c)[:n] {
			out[i] = float64(v)
		}
	case Int64:
		for i, v := range typed[int64](c)[:n] {
			out[i] = float64(v)
		}
	case Int32:
		for i, v := range typed[int32](c)[:n] {
			out[i] = float64(v)
		}
	case Int8:
		for i, v := range typed[int8](c)[:n] {
			out[i] = float64(v)
		}
	case Int16:
		for i, v := range typed[int16](c)[:n] {
			out[i] = float64(v)
		}
	case Uint8:
		for i, v := range typed[uint8](c)[:n] {
			out[i] = float64(v)
		}
	case Uint16:
		for i, v := range typed[uint16](c)[:n] {
			out[i] = float64(v)
		}
	case Uint32:
		for i, v := range typed[uint32](c)[:n] {
			out[i] = float64(v)
		}
	case Uint64:
		for i, v := range typed[uint64](c)[:n] {
			out[i] = float64(v)
		}
	case Float16:
		for i, v := range typed[uint16](c)[:n] {
			out[i] = HalfToFloat64(v)
		}
	case Bool:
		for i, v := range typed[uint8](c)[:n] {
			out[i] = float64(v)
		}
	}
	return out
}

// Item returns the single element of a one-element array as float64.
func (a *Array) Item() (float64, error) {
	if a.Size() != 1 {
		return 0, fmt.Errorf("ndarray: Item of an array of shape %v (%d elements, want 1)", a.shape, a.Size())
	}
	return a.AtFlat(0), nil
}

// String prints dtype and shape, and the values of small arrays.
func (a *Array) String() string {
	if a.Size() <= 16 && a.dtype.IsComplex() {
		vs := make([]complex128, a.Size())
		for i := range vs {
			vs[i] = a.ComplexAtFlat(i)
		}
		return fmt.Sprintf("array(%v, %v, %v)", vs, a.dtype, a.shape)
	}
	if a.Size() <= 16 {
		return fmt.Sprintf("array(%v, %v, %v)", a.ToFloat64s(), a.dtype, a.shape)
	}
	return fmt.Sprintf("array(<%d elements>, %v, %v)", a.Size(), a.dtype, a.shape)
}

// Contiguous returns a itself when it is C-contiguous, else a contiguous copy.
func (a *Array) Contiguous() *Array {
	if a.IsContiguous() {
		return a
	}
	return a.Copy()
}

// Copy returns a contiguous copy that shares nothing with a.
func (a *Array) Copy() *Array {
	out := newArray(a.dtype, a.shape)
	CopyInto(out, a)
	return out
}

// CopyInto copies src into dst elementwise; shapes must be equal and dtypes
// equal (use Astype to convert). dst may be a strided view.
func CopyInto(dst, src *Array) {
	if dst.dtype != src.dtype || !SameShape(dst.shape, src.shape) {
		panic(fmt.Sprintf("ndarray: CopyInto %v%v <- %v%v", dst.dtype, dst.shape, src.dtype, src.shape))
	}
	switch dst.dtype {
	case Float64:
		copyStrided[float64](dst, src)
	case Float32:
		copyStrided[float32](dst, src)
	case Int64:
		copyStrided[int64](dst, src)
	case Int32:
		copyStrided[int32](dst, src)
	case Int8:
		copyStrided[int8](dst, src)
	case Int16:
		copyStrided[int16](dst, src)
	case Uint8:
		copyStrided[uint8](dst, src)
	case Uint16:
		copyStrided[uint16](dst, src)
	case Uint32:
		copyStrided[uint32](dst, src)
	case Uint64:
		copyStrided[uint64](dst, src)
	case Float16:
		copyStrided[uint16](dst, src)
	case Complex64:
		copyStrided[complex64](dst, src)
	case Complex128:
		copyStrided[complex128](dst, src)
	case Bool:
		copyStrided[uint8](dst, src)
	}
}

func copyStrided[T any](dst, src *Array) {
	if dst.IsContiguous() && src.IsContiguous() {
		n := dst.Size()
		copy(typed[T](dst)[:n], typed[T](src)[:n])
		return
	}
	d, s := typedAll[T](dst), typedAll[T](src)
	ForEachRun([]*Array{dst, src}, dst.shape, func(offs []int, n int, strides []int) {
		do, so, ds, ss := dst.offset+offs[0], src.offset+offs[1], strides[0], strides[1]
		if ds == 1 && ss == 1 {
			copy(d[do:do+n], s[so:so+n])
			return
		}
		for i := 0; i < n; i++ {
			d[do+i*ds] = s[so+i*ss]
		}
	})
}

// SameShape reports whether two shapes are equal.
func SameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ForEachRun walks the elements of arrays that all have (or broadcast by
// zero strides to) the given shape, in C order, one innermost run at a time.
// For each run it calls fn with each array's element offset (relative to the
// array's own first element, i.e. index into typed slices returned by
// Float64s etc.), the run length and each array's stride along the run.
// Adjacent axes that are contiguous in every array are merged so that runs are
// as long as possible. Arrays must have len(shape) axes; broadcast ones carry
// stride 0 along broadcast axes (see BroadcastTo).
func ForEachRun(arrs []*Array, shape []int, fn func(offs []int, n int, strides []int)) {
	nd := len(shape)
	if Size(shape) == 0 {
		return
	}
	k := len(arrs)
	// Collapse axes: drop size-1 axes, merge axis i into i+1 when for every
	// array stride[i] == stride[i+1]*shape[i+1].
	dims := make([]int, 0, nd)
	st := make([][]int, k)
	for j := range st {
		st[j] = make([]int, 0, nd)
	}
	for ax := 0; ax < nd; ax++ {
		if shape[ax] == 1 {
			continue
		}
		if len(dims) > 0 {
			last := len(dims) - 1
			merge := true
			for j, a := range arrs {
				if st[j][last] != a.strides[ax]*shape[ax] {
					merge = false
					break
				}
			}
			if merge {
				dims[last] *= shape[ax]
				for j, a := range arrs {
					st[j][last] = a.strides[ax]
				}
				continue
			}
		}
		dims = append(dims, shape[ax])
		for j, a := range arrs {
			st[j] = append(st[j], a.strides[ax])
		}
	}
	offs := make([]int, k)
	inner := make([]int, k)
	if len(dims) == 0 {
		fn(offs, 1, inner)
		return
	}
	last := len(dims) - 1
	n := dims[last]
	for j := range arrs {
		inner[j] = st[j][last]
	}
	if last == 0 {
		fn(offs, n, inner)
		return
	}
	idx := make([]int, last)
	for {
		fn(offs, n, inner)
		// increment the outer multi-index
		ax := last - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			for j := range arrs {
				offs[j] += st[j][ax]
			}
			if idx[ax] < dims[ax] {
				break
			}
			for j := range arrs {
				offs[j] -= st[j][ax] * dims[ax]
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// BufferID identifies the backing buffer, so byte accounting can count a
// buffer shared by several views once. It is 0 for an empty buffer.
func (a *Array) BufferID() uintptr {
	if len(a.buf) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&a.buf[0]))
}
