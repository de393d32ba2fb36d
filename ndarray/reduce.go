package ndarray

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"gonum.org/v1/gonum/floats"
)

// ReduceOp names a reduction. Every op is associative and commutative, so a
// distributed reduction can reduce each chunk (Reduce) and merge the partial
// results in any tree shape (Combine).
type ReduceOp uint8

// The reductions.
const (
	Sum ReduceOp = iota + 1
	Prod
	Min
	Max
	Any
	All
	CountNonzero
	// The NaN-aware reductions skip NaN (on integer and bool arrays they
	// are the plain ones): NaN counts as 0 for NanSum and 1 for NanProd;
	// NanMin and NanMax are NaN only where every element is.
	NanSum
	NanProd
	NanMin
	NanMax
)

var reduceOpNames = [...]string{
	Sum: "sum", Prod: "prod", Min: "min", Max: "max",
	Any: "any", All: "all", CountNonzero: "count_nonzero",
	NanSum: "nansum", NanProd: "nanprod", NanMin: "nanmin", NanMax: "nanmax",
}

func (op ReduceOp) valid() bool { return op >= Sum && op <= NanMax }

// String is NumPy's name for the reduction.
func (op ReduceOp) String() string {
	if op.valid() {
		return reduceOpNames[op]
	}
	return fmt.Sprintf("reduce_op(%d)", uint8(op))
}

// ufuncName is the NumPy ufunc behind the op, as its error messages name it.
func (op ReduceOp) ufuncName() string {
	switch op {
	case Min:
		return "minimum"
	case Max:
		return "maximum"
	case NanMin:
		return "fmin"
	case NanMax:
		return "fmax"
	}
	return op.String()
}

// ParseReduceOp parses the name String returns (plus NumPy's aliases amin,
// amax, product, minimum and maximum).
func ParseReduceOp(s string) (ReduceOp, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "sum":
		return Sum, nil
	case "prod", "product":
		return Prod, nil
	case "min", "amin", "minimum":
		return Min, nil
	case "max", "amax", "maximum":
		return Max, nil
	case "any":
		return Any, nil
	case "all":
		return All, nil
	case "count_nonzero":
		return CountNonzero, nil
	case "nansum":
		return NanSum, nil
	case "nanprod":
		return NanProd, nil
	case "nanmin":
		return NanMin, nil
	case "nanmax":
		return NanMax, nil
	}
	return 0, fmt.Errorf("ndarray: unknown reduction %q (want sum, prod, min, max, any, all, count_nonzero, nansum, nanprod, nanmin or nanmax)", s)
}

// ReduceResultType is the dtype NumPy 1.24 (64-bit Linux) gives the result of
// op over an array of type in: sum and prod widen bool and signed integers to
// int64 and unsigned ones to uint64, and keep float types, min and max keep the type, any and all give bool and
// count_nonzero gives int64.
func ReduceResultType(op ReduceOp, in DType) DType {
	switch op {
	case Sum, Prod, NanSum, NanProd:
		switch {
		case in.IsFloat(), in.IsComplex():
			return in
		case in.IsUnsigned():
			return Uint64
		}
		return Int64
	case Min, Max, NanMin, NanMax:
		return in
	case Any, All:
		return Bool
	case CountNonzero:
		return Int64
	}
	return Invalid
}

// redAccType is the dtype the reduction accumulates in. It is the result type
// except for float32 sums, which accumulate in float64 (more accurate than
// NumPy's float32 pairwise sum, rounded once at the end).
func redAccType(op ReduceOp, in DType) DType {
	if (op == Sum || op == NanSum) && in == Float32 {
		return Float64
	}
	return ReduceResultType(op, in)
}

// MeanResultType is the dtype NumPy gives mean, var and std of an array of
// type in: float32 stays float32, everything else is float64. Moments always
// computes in float64; callers cast the finished result to this type.
func MeanResultType(in DType) DType { return FloatFor(in) }

// redNum is the set of Go element types behind the dtypes (bool is uint8).
type redNum interface {
	~float64 | ~float32 | ~int64 | ~int32 | ~int16 | ~int8 | ~uint64 | ~uint32 | ~uint16 | ~uint8
}

// redFillInt fills an integer accumulator with op's identity: the type's
// largest value for min, its smallest for max, else 1 (sums start from 0 and
// are not filled).
func redFillInt[T ewInt](op ReduceOp, acc []T) {
	lo, hi := intLimits[T]()
	x := T(1)
	switch op {
	case Min, NanMin:
		x = hi
	case Max, NanMax:
		x = lo
	}
	redFill(acc, x)
}

// intLimits are the smallest and largest values of the integer type T.
func intLimits[T ewInt]() (lo, hi T) {
	var z T
	if ^z > 0 { // unsigned
		return 0, ^z
	}
	bits := unsafe.Sizeof(z) * 8
	hi = T(uint64(1)<<(bits-1) - 1)
	return -hi - 1, hi
}

// redView is a contiguous array of the given shape over buf from element off.
func redView(dt DType, shape []int, buf []byte, off int) *Array {
	sh := append([]int(nil), shape...)
	return &Array{dtype: dt, shape: sh, strides: ContiguousStrides(sh), offset: off, buf: buf}
}

// redAxesMask validates axes for an array of the given shape and flags them.
// nil or empty axes flag every axis. Negative axes are normalised; repeats
// are an error.
func redAxesMask(what string, shape []int, axes []int) ([]bool, error) {
	nd := len(shape)
	red := make([]bool, nd)
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
		return red, nil
	}
	for _, ax := range axes {
		n, err := NormAxis(ax, nd)
		if err != nil {
			return nil, fmt.Errorf("ndarray: %s over axes %v of array of shape %v: %w", what, axes, shape, err)
		}
		if red[n] {
			return nil, fmt.Errorf("ndarray: %s over axes %v of array of shape %v: duplicate value in axes", what, axes, shape)
		}
		red[n] = true
	}
	return red, nil
}

// redKeepShape is shape with the flagged axes set to 1, and the number of
// elements each output position reduces.
func redKeepShape(shape []int, red []bool) ([]int, int) {
	ks := make([]int, len(shape))
	count := 1
	for i, d := range shape {
		if red[i] {
			ks[i] = 1
			count *= d
		} else {
			ks[i] = d
		}
	}
	return ks, count
}

func redDropShape(shape []int, red []bool) []int {
	out := []int{}
	for i, d := range shape {
		if !red[i] {
			out = append(out, d)
		}
	}
	return out
}

// Reduce reduces a over axes (normalised; nil or empty means all axes) with
// op, keeping the reduced axes as length 1 when keepdims, as NumPy does. The
// result type is ReduceResultType. Float sums use pairwise summation (as
// NumPy does) along memory-contiguous runs and across long outer axes. Min and
// Max propagate NaN and fail on an empty reduction like NumPy.
func Reduce(op ReduceOp, a *Array, axes []int, keepdims bool) (*Array, error) {
	if !op.valid() {
		return nil, fmt.Errorf("ndarray: reduce: invalid reduction %v", op)
	}
	if a == nil || !a.dtype.Valid() {
		return nil, fmt.Errorf("ndarray: %v: nil or invalid array", op)
	}
	if a.dtype == Float16 {
		// NumPy reduces float16 in float32 and rounds the result once.
		r, err := Reduce(op, a.Astype(Float32), axes, keepdims)
		if err != nil {
			return nil, err
		}
		return toHalf(r, ReduceResultType(op, Float16)), nil
	}
	red, err := redAxesMask(op.String(), a.shape, axes)
	if err != nil {
		return nil, err
	}
	keep, count := redKeepShape(a.shape, red)
	if count == 0 && (op == Min || op == Max || op == NanMin || op == NanMax) {
		return nil, fmt.Errorf("ndarray: %v over axes %v of array of shape %v: zero-size array to reduction operation %s which has no identity",
			op, axes, a.shape, op.ufuncName())
	}
	var out *Array
	if a.dtype.IsComplex() {
		out, err = complexReduce(op, a, red, keep)
		if err != nil {
			return nil, err
		}
	} else {
		out = newArray(redAccType(op, a.dtype), keep)
		redFillIdentity(op, out)
		if a.Size() > 0 {
			redAccumulate(op, a, red, out)
		}
	}
	acc := out
	if rt := ReduceResultType(op, a.dtype); rt != acc.dtype {
		out = redConvert(acc, rt)
	}
	if !keepdims {
		out = redView(out.dtype, redDropShape(a.shape, red), out.buf, out.offset)
	}
	return out, nil
}

// Combine merges same-shape partial results of op elementwise, the step of a
// tree reduction: Sum and CountNonzero add, Prod multiplies, Min and Max take
// the (NaN-propagating) minimum or maximum, Any ors and All ands. The result
// has the partials' dtype (that of ReduceResultType for valid partials).
func Combine(op ReduceOp, parts []*Array) (*Array, error) { return combine(op, parts, nil) }

// CombineInto is Combine that writes its result into out, and returns out,
// when out is a contiguous array of the result's dtype and the partials'
// shape; otherwise it makes its result as Combine does. Whatever it
// returns, it keeps no reference to out.
func CombineInto(op ReduceOp, parts []*Array, out *Array) (*Array, error) {
	return combine(op, parts, out)
}

func combine(op ReduceOp, parts []*Array, into *Array) (*Array, error) {
	if !op.valid() {
		return nil, fmt.Errorf("ndarray: combine: invalid reduction %v", op)
	}
	if !redPartsMatch(parts, Invalid) {
		// The name is made only for the error: a tree of small combines
		// would pay a string per op.
		return nil, redCheckParts("combine "+op.String(), parts, Invalid)
	}
	if parts[0].dtype == Float16 {
		single := make([]*Array, len(parts))
		for i, p := range parts {
			single[i] = p.Astype(Float32)
		}
		r, err := Combine(op, single)
		if err != nil {
			return nil, err
		}
		return toHalf(r, Float16), nil
	}
	if parts[0].dtype.IsComplex() {
		return complexCombine(op, parts)
	}
	cop := op
	switch op {
	case CountNonzero:
		cop = Sum // partial counts add up
	case NanSum, NanProd:
		// A partial is NaN only from inf-inf or 0*inf, which NumPy's
		// nansum propagates too: partials combine as plain sums.
		cop = op - NanSum + Sum
	}
	p0 := parts[0]
	var acc *Array
	at := redAccType(cop, p0.dtype)
	if into != nil && into.dtype == at && ReduceResultType(cop, p0.dtype) == at && SameShape(into.shape, p0.shape) && into.IsContiguous() {
		acc = into
		sz := at.Size()
		clear(acc.buf[acc.offset*sz : (acc.offset+acc.Size())*sz]) // the identity fill assumes zeros
	} else {
		acc = newArray(at, p0.shape)
	}
	redFillIdentity(cop, acc)
	if cop == Sum && p0.dtype == Float64 && acc.dtype == Float64 && allContiguous(parts) {
		// The common combine (tree sums of float64 partials): the same
		// additions as the general path, without planning a reduction.
		a := typedAll[float64](acc)[:acc.Size()]
		if len(a) == 1 {
			// Scalar partials (a tree over small chunks): the same
			// additions in a register.
			s := a[0]
			for _, p := range parts {
				s += typed[float64](p)[0]
			}
			a[0] = s
			return acc, nil
		}
		for _, p := range parts {
			AddFloat64s(a, a, typed[float64](p))
		}
		return acc, nil
	}
	red := make([]bool, p0.NDim())
	if acc.Size() > 0 {
		for _, p := range parts {
			redAccumulate(cop, p, red, acc)
		}
	}
	if rt := ReduceResultType(cop, p0.dtype); rt != acc.dtype {
		return redConvert(acc, rt), nil
	}
	return acc, nil
}

func allContiguous(parts []*Array) bool {
	for _, p := range parts {
		if !p.IsContiguous() {
			return false
		}
	}
	return true
}

// redCheckParts checks that parts is non-empty and all parts share shape and
// dtype (and have dtype want unless want is Invalid).
func redCheckParts(what string, parts []*Array, want DType) error {
	if len(parts) == 0 {
		return fmt.Errorf("ndarray: %s: no partial results", what)
	}
	for i, p := range parts {
		if p == nil || !p.dtype.Valid() {
			return fmt.Errorf("ndarray: %s: partial %d is nil or invalid", what, i)
		}
		if want != Invalid && p.dtype != want {
			return fmt.Errorf("ndarray: %s: partial %d has dtype %v (want %v)", what, i, p.dtype, want)
		}
		if p.dtype != parts[0].dtype || !SameShape(p.shape, parts[0].shape) {
			return fmt.Errorf("ndarray: %s: partial %d is %v%v but partial 0 is %v%v",
				what, i, p.dtype, p.shape, parts[0].dtype, parts[0].shape)
		}
	}
	return nil
}

// redPartsMatch reports whether redCheckParts(_, parts, want) passes.
func redPartsMatch(parts []*Array, want DType) bool {
	if len(parts) == 0 {
		return false
	}
	p0 := parts[0]
	for _, p := range parts {
		if p == nil || !p.dtype.Valid() || (want != Invalid && p.dtype != want) ||
			p.dtype != p0.dtype || !SameShape(p.shape, p0.shape) {
			return false
		}
	}
	return true
}

// redFillIdentity sets every element of the contiguous acc to op's identity
// in acc's type. Min and Max use the type's extreme values (±Inf for
// floats); they never reach the result of an empty reduction, which Reduce
// rejects first.
func redFillIdentity(op ReduceOp, acc *Array) {
	n := acc.Size()
	var v float64
	switch op {
	case Sum, Any, CountNonzero:
		return // zeroed already
	case Prod, All:
		v = 1
	case Min:
		v = math.Inf(1)
	case Max:
		v = math.Inf(-1)
	case NanSum:
		return
	case NanProd:
		v = 1
	case NanMin, NanMax:
		// NaN until a number is seen, so an all-NaN lane stays NaN; the
		// integer types take Min's and Max's identities below.
		v = math.NaN()
	}
	switch acc.dtype {
	case Float64:
		redFill(typedAll[float64](acc)[:n], v)
	case Float32:
		redFill(typedAll[float32](acc)[:n], float32(v))
	case Int64:
		redFillInt[int64](op, typedAll[int64](acc)[:n])
	case Int32:
		redFillInt[int32](op, typedAll[int32](acc)[:n])
	case Int16:
		redFillInt[int16](op, typedAll[int16](acc)[:n])
	case Int8:
		redFillInt[int8](op, typedAll[int8](acc)[:n])
	case Uint64:
		redFillInt[uint64](op, typedAll[uint64](acc)[:n])
	case Uint32:
		redFillInt[uint32](op, typedAll[uint32](acc)[:n])
	case Uint16:
		redFillInt[uint16](op, typedAll[uint16](acc)[:n])
	case Uint8:
		redFillInt[uint8](op, typedAll[uint8](acc)[:n])
	case Bool:
		var x uint8
		if op == Prod || op == All || op == Min || op == NanProd || op == NanMin {
			x = 1
		}
		redFill(typedAll[uint8](acc)[:n], x)
	}
}

func redFill[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// redPlan is the loop nest of a reduction: the input's axes of length > 1,
// ordered by decreasing input stride (so the innermost loop walks memory as
// densely as possible whatever the layout), with adjacent axes merged when
// both input and accumulator are contiguous across them. Accumulator strides
// are 0 along reduced axes, so a loop with os == 0 is a reduction.
type redPlan struct {
	dims, is, os []int
	in0, out0    int // base element offsets in the whole buffers
}

func newRedPlan(a *Array, red []bool, acc *Array) *redPlan {
	type ax struct{ n, is, os int }
	accSt := acc.strides
	axs := make([]ax, 0, a.NDim())
	for i, n := range a.shape {
		if n == 1 {
			continue
		}
		os := accSt[i]
		if red[i] {
			os = 0
		}
		axs = append(axs, ax{n, a.strides[i], os})
	}
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	sort.SliceStable(axs, func(i, j int) bool { return abs(axs[i].is) > abs(axs[j].is) })
	p := &redPlan{in0: a.offset, out0: acc.offset}
	for _, x := range axs {
		if k := len(p.dims) - 1; k >= 0 && p.is[k] == x.is*x.n && p.os[k] == x.os*x.n {
			p.dims[k] *= x.n
			p.is[k], p.os[k] = x.is, x.os
			continue
		}
		p.dims = append(p.dims, x.n)
		p.is = append(p.is, x.is)
		p.os = append(p.os, x.os)
	}
	if len(p.dims) == 0 { // a single element
		p.dims, p.is, p.os = []int{1}, []int{0}, []int{0}
	}
	// A short reduced innermost loop inside a longer kept one (summing rows
	// of 4, say) would cost one kernel call per few elements: swap them so
	// the kernel accumulates long rows instead; the data stays in cache.
	if L := len(p.dims); L >= 2 && p.os[L-1] == 0 && p.os[L-2] != 0 && p.dims[L-1] <= 16 && p.dims[L-2] > p.dims[L-1] {
		p.dims[L-1], p.dims[L-2] = p.dims[L-2], p.dims[L-1]
		p.is[L-1], p.is[L-2] = p.is[L-2], p.is[L-1]
		p.os[L-1], p.os[L-2] = p.os[L-2], p.os[L-1]
	}
	return p
}

// redKernel folds input runs into accumulators of type A. run folds n inputs
// (from element io, stride is) into one accumulator; row folds them into n
// accumulators acc[ao+i*as]. A kernel holds its whole input buffer. ro (and
// rs for rows) locate the run in the real output even when acc is a pairwise
// temporary; only kernels reading per-output data (M2's means) use them.
type redKernel[A any] interface {
	run(acc A, io, n, is, ro int) A
	row(acc []A, ao, as, io, n, is, ro, rs int)
}

// redSplitRows is the longest stretch of an outer reduced axis accumulated
// straight into the output; longer stretches are halved recursively into
// temporaries (pairwise summation across rows), like NumPy's 128-element
// pairwise blocks along the contiguous axis.
const redSplitRows = 128

// redEngine walks a redPlan applying a kernel. merge is non-nil for float
// sums, which are split pairwise along long outer reduced axes.
type redEngine[A any, K redKernel[A]] struct {
	k     K
	p     *redPlan
	merge func(x, y A) A
	tmps  map[[2]int][]A // temporaries by (axis, split depth)
	tos   map[int][]int  // temporary strides by axis
	cols  int            // when > 0, the innermost loop is cut to this block
}

// redColBlock is the innermost block length when a reduced loop sits just
// outside a long kept innermost loop: the accumulators of one block stay in
// L1 while every reduced row adds into them, instead of the whole output row
// streaming through memory once per reduced row.
const redColBlock = 1024

func redRun[A any, K redKernel[A]](p *redPlan, k K, acc []A, merge func(x, y A) A) {
	e := &redEngine[A, K]{k: k, p: p, merge: merge}
	e.walk(0, p.in0, acc, p.out0, p.os, p.out0)
}

// walk runs loops d.. from input offset io into acc at ao (strides os); ro
// is the matching offset in the real output.
func (e *redEngine[A, K]) walk(d, io int, acc []A, ao int, os []int, ro int) {
	p := e.p
	n, last := p.dims[d], len(p.dims)-1
	if d == last && e.cols > 0 {
		n = e.cols
	}
	if d == last-1 && os[d] == 0 && p.os[last] != 0 && e.cols == 0 && p.dims[last] > redColBlock {
		for c0, nc := 0, p.dims[last]; c0 < nc; c0 += redColBlock {
			e.cols = min(redColBlock, nc-c0)
			e.walk(d, io+c0*p.is[last], acc, ao+c0*os[last], os, ro+c0*p.os[last])
		}
		e.cols = 0
		return
	}
	if d == last {
		if os[d] == 0 {
			acc[ao] = e.k.run(acc[ao], io, n, p.is[d], ro)
		} else {
			e.k.row(acc, ao, os[d], io, n, p.is[d], ro, p.os[d])
		}
		return
	}
	if os[d] == 0 && e.merge != nil && n > redSplitRows {
		e.walkRange(d, 0, n, 0, io, acc, ao, os, ro)
		return
	}
	for i := 0; i < n; i++ {
		e.walk(d+1, io+i*p.is[d], acc, ao+i*os[d], os, ro+i*p.os[d])
	}
}

// walkRange reduces indices lo..hi of reduced axis d into acc: the first half
// directly, the second half into a zeroed temporary that is then merged.
func (e *redEngine[A, K]) walkRange(d, lo, hi, depth, io int, acc []A, ao int, os []int, ro int) {
	p := e.p
	if hi-lo <= redSplitRows {
		for i := lo; i < hi; i++ {
			e.walk(d+1, io+i*p.is[d], acc, ao, os, ro)
		}
		return
	}
	mid := lo + (hi-lo)/2
	e.walkRange(d, lo, mid, depth+1, io, acc, ao, os, ro)
	tmp, tos := e.temp(d, depth)
	e.walkRange(d, mid, hi, depth+1, io, tmp, 0, tos, ro)
	e.mergeInto(d+1, acc, ao, os, tmp, 0, tos)
}

// temp returns the zeroed temporary for axis d at the given split depth: one
// accumulator per position of the kept axes inside d.
func (e *redEngine[A, K]) temp(d, depth int) ([]A, []int) {
	p := e.p
	if e.tmps == nil {
		e.tmps, e.tos = map[[2]int][]A{}, map[int][]int{}
	}
	tos, ok := e.tos[d]
	if !ok {
		tos = make([]int, len(p.dims))
		s := 1
		for j := len(p.dims) - 1; j > d; j-- {
			if p.os[j] != 0 {
				tos[j] = s
				s *= p.dims[j]
			}
		}
		e.tos[d] = tos
	}
	size := 1
	for j := d + 1; j < len(p.dims); j++ {
		if p.os[j] != 0 {
			size *= p.dims[j]
		}
	}
	if e.cols > 0 && d == len(p.dims)-2 {
		size = e.cols // blocked: the temporary covers one block of the row
	}
	key := [2]int{d, depth}
	t, ok := e.tmps[key]
	if !ok || cap(t) < size {
		t = make([]A, size)
		e.tmps[key] = t
	}
	t = t[:size]
	clear(t)
	return t, tos
}

func (e *redEngine[A, K]) mergeInto(d int, acc []A, ao int, os []int, tmp []A, to int, tos []int) {
	p := e.p
	if d == len(p.dims) {
		acc[ao] = e.merge(acc[ao], tmp[to])
		return
	}
	if os[d] == 0 {
		e.mergeInto(d+1, acc, ao, os, tmp, to, tos)
		return
	}
	n := p.dims[d]
	if d == len(p.dims)-1 && e.cols > 0 {
		n = e.cols
	}
	for i := 0; i < n; i++ {
		e.mergeInto(d+1, acc, ao+i*os[d], os, tmp, to+i*tos[d], tos)
	}
}

// redAccumulate folds a into the contiguous accumulator acc (dtype
// redAccType(op, a.dtype), shape a's with the red axes set to 1).
func redAccumulate(op ReduceOp, a *Array, red []bool, acc *Array) {
	switch a.dtype {
	case Float64:
		redAccumulateT[float64](op, a, red, acc)
	case Float32:
		redAccumulateT[float32](op, a, red, acc)
	case Int64:
		redAccumulateT[int64](op, a, red, acc)
	case Int32:
		redAccumulateT[int32](op, a, red, acc)
	case Int8:
		redAccumulateT[int8](op, a, red, acc)
	case Int16:
		redAccumulateT[int16](op, a, red, acc)
	case Uint8:
		redAccumulateT[uint8](op, a, red, acc)
	case Uint16:
		redAccumulateT[uint16](op, a, red, acc)
	case Uint32:
		redAccumulateT[uint32](op, a, red, acc)
	case Uint64:
		redAccumulateT[uint64](op, a, red, acc)
	case Bool:
		redAccumulateT[uint8](op, a, red, acc)
	}
}

func redAddF(x, y float64) float64 { return x + y }

func redAccumulateT[T redNum](op ReduceOp, a *Array, red []bool, acc *Array) {
	in := typedAll[T](a)
	p := newRedPlan(a, red, acc)
	switch op {
	case Sum:
		if acc.dtype == Float64 {
			redRun(p, redSumF[T]{in}, typedAll[float64](acc), redAddF)
		} else {
			// int64 and uint64 sums wrap alike, so a uint64 accumulator is
			// summed as int64.
			redRun(p, redSumI[T]{in}, typedAll[int64](acc), nil)
		}
	case Prod:
		switch acc.dtype {
		case Float64:
			redRun(p, redProd[T, float64]{in}, typedAll[float64](acc), nil)
		case Float32:
			redRun(p, redProd[T, float32]{in}, typedAll[float32](acc), nil)
		default:
			redRun(p, redProd[T, int64]{in}, typedAll[int64](acc), nil)
		}
	case Min:
		redRun(p, redMin[T]{in}, typedAll[T](acc), nil)
	case Max:
		redRun(p, redMax[T]{in}, typedAll[T](acc), nil)
	case Any:
		redRun(p, redAny[T]{in}, typedAll[uint8](acc), nil)
	case All:
		redRun(p, redAllK[T]{in}, typedAll[uint8](acc), nil)
	case CountNonzero:
		redRun(p, redCount[T]{in}, typedAll[int64](acc), nil)
	case NanSum, NanProd, NanMin, NanMax:
		if !redIsFloat[T]() {
			redAccumulateT[T](op-NanSum+Sum, a, red, acc) // no NaN to skip
			return
		}
		redAccumulateNaN(op, in, p, acc)
	}
}

// ---- kernels ----

// redSumF sums into float64 with NumPy's pairwise algorithm.
type redSumF[T redNum] struct{ in []T }

func (k redSumF[T]) run(acc float64, io, n, is, _ int) float64 {
	if is == 1 {
		if f, ok := any(k.in).([]float64); ok {
			return acc + SumFloat64s(f[io:io+n])
		}
		return acc + redPairwise(k.in[io:io+n])
	}
	return acc + redPairwiseStrided(k.in, io, n, is)
}

func (k redSumF[T]) row(acc []float64, ao, as, io, n, is, _, _ int) {
	if as == 1 && is == 1 {
		a, s := acc[ao:ao+n], k.in[io:io+n]
		if f, ok := any(s).([]float64); ok {
			AddFloat64s(a, a, f) // AVX-512 where the CPU has it
			return
		}
		for i := range a {
			a[i] += float64(s[i])
		}
		return
	}
	if as == 1 && is > 0 {
		a, s := acc[ao:ao+n], k.in[io:io+(n-1)*is+1]
		for i := range a {
			a[i] += float64(s[i*is])
		}
		return
	}
	for i := 0; i < n; i++ {
		acc[ao+i*as] += float64(k.in[io+i*is])
	}
}

// redPairwise is NumPy's pairwise_sum: eight accumulators over blocks of up
// to 128 elements (fast: independent add chains; accurate: error grows with
// log n), halving longer runs recursively.
func redPairwise[T redNum](s []T) float64 {
	n := len(s)
	switch {
	case n < 8:
		var r float64
		for _, v := range s {
			r += float64(v)
		}
		return r
	case n <= 128:
		r0, r1, r2, r3 := float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3])
		r4, r5, r6, r7 := float64(s[4]), float64(s[5]), float64(s[6]), float64(s[7])
		i := 8
		for ; i+8 <= n; i += 8 {
			b := s[i : i+8 : i+8]
			r0 += float64(b[0])
			r1 += float64(b[1])
			r2 += float64(b[2])
			r3 += float64(b[3])
			r4 += float64(b[4])
			r5 += float64(b[5])
			r6 += float64(b[6])
			r7 += float64(b[7])
		}
		r := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
		for ; i < n; i++ {
			r += float64(s[i])
		}
		return r
	}
	n2 := n / 2
	n2 -= n2 % 8
	return redPairwise(s[:n2]) + redPairwise(s[n2:])
}

// exactSumMax is the longest contiguous run that SumFloat64s adds in
// NumPy's own order (one block of redPairwise: eight accumulators), so that
// its sum is NumPy's to the last bit; longer runs take gonum's vector blocks
// (redPairwiseF64), in an order of their own with the same error bound,
// about twice as fast in cache. A short run costs its chunk's overhead more
// than its additions.
const exactSumMax = 128

// SumFloat64s is the sum of a contiguous float64 run as Reduce(Sum) adds it;
// fused kernels sum tiles with it too.
func SumFloat64s(s []float64) float64 {
	if len(s) <= exactSumMax {
		return redPairwise(s)
	}
	return redPairwiseF64(s)
}

// redPairwiseF64 is redPairwise for float64 with gonum's SIMD sum (eight
// partial sums, in an order of its own) on each block of up to 128 elements.
func redPairwiseF64(s []float64) float64 {
	if len(s) <= 128 {
		return floats.Sum(s)
	}
	n2 := len(s) / 2
	n2 -= n2 % 8
	return redPairwiseF64(s[:n2]) + redPairwiseF64(s[n2:])
}

func redPairwiseStrided[T redNum](in []T, io, n, is int) float64 {
	switch {
	case n < 8:
		var r float64
		for i := 0; i < n; i++ {
			r += float64(in[io+i*is])
		}
		return r
	case n <= 128:
		var r [8]float64
		for j := range r {
			r[j] = float64(in[io+j*is])
		}
		i := 8
		for ; i+8 <= n; i += 8 {
			o := io + i*is
			for j := range r {
				r[j] += float64(in[o+j*is])
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += float64(in[io+i*is])
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return redPairwiseStrided(in, io, n2, is) + redPairwiseStrided(in, io+n2*is, n-n2, is)
}

// redSumI sums integers and bools into int64, wrapping like NumPy.
type redSumI[T redNum] struct{ in []T }

func (k redSumI[T]) run(acc int64, io, n, is, _ int) int64 {
	if is == 1 {
		s := k.in[io : io+n]
		var r0, r1, r2, r3 int64
		i := 0
		for ; i+4 <= n; i += 4 {
			b := s[i : i+4 : i+4]
			r0 += int64(b[0])
			r1 += int64(b[1])
			r2 += int64(b[2])
			r3 += int64(b[3])
		}
		for ; i < n; i++ {
			r0 += int64(s[i])
		}
		return acc + (r0 + r1) + (r2 + r3)
	}
	for i := 0; i < n; i++ {
		acc += int64(k.in[io+i*is])
	}
	return acc
}

func (k redSumI[T]) row(acc []int64, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		acc[ao+i*as] += int64(k.in[io+i*is])
	}
}

// redProd multiplies sequentially in A, as NumPy's multiply.reduce does (so
// float32 products overflow where NumPy's do).
type redProd[T redNum, A float64 | float32 | int64] struct{ in []T }

func (k redProd[T, A]) run(acc A, io, n, is, _ int) A {
	for i := 0; i < n; i++ {
		acc *= A(k.in[io+i*is])
	}
	return acc
}

func (k redProd[T, A]) row(acc []A, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		acc[ao+i*as] *= A(k.in[io+i*is])
	}
}

// redMin and redMax use Go's min and max, which propagate NaN like NumPy.
type redMin[T redNum] struct{ in []T }

func (k redMin[T]) run(acc T, io, n, is, _ int) T {
	if is == 1 {
		return redMinRun(acc, k.in[io:io+n])
	}
	for i := 0; i < n; i++ {
		acc = min(acc, k.in[io+i*is])
	}
	return acc
}

func redMinRun[T cmp.Ordered](acc T, s []T) T {
	m0, m1, m2, m3 := acc, acc, acc, acc
	i := 0
	for ; i+4 <= len(s); i += 4 {
		b := s[i : i+4 : i+4]
		m0 = min(m0, b[0])
		m1 = min(m1, b[1])
		m2 = min(m2, b[2])
		m3 = min(m3, b[3])
	}
	for ; i < len(s); i++ {
		m0 = min(m0, s[i])
	}
	return min(min(m0, m1), min(m2, m3))
}

func (k redMin[T]) row(acc []T, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		acc[ao+i*as] = min(acc[ao+i*as], k.in[io+i*is])
	}
}

type redMax[T redNum] struct{ in []T }

func (k redMax[T]) run(acc T, io, n, is, _ int) T {
	if is == 1 {
		return redMaxRun(acc, k.in[io:io+n])
	}
	for i := 0; i < n; i++ {
		acc = max(acc, k.in[io+i*is])
	}
	return acc
}

func redMaxRun[T cmp.Ordered](acc T, s []T) T {
	m0, m1, m2, m3 := acc, acc, acc, acc
	i := 0
	for ; i+4 <= len(s); i += 4 {
		b := s[i : i+4 : i+4]
		m0 = max(m0, b[0])
		m1 = max(m1, b[1])
		m2 = max(m2, b[2])
		m3 = max(m3, b[3])
	}
	for ; i < len(s); i++ {
		m0 = max(m0, s[i])
	}
	return max(max(m0, m1), max(m2, m3))
}

func (k redMax[T]) row(acc []T, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		acc[ao+i*as] = max(acc[ao+i*as], k.in[io+i*is])
	}
}

// redAny and redAllK give bool (0/1) accumulators; NaN counts as true.
type redAny[T redNum] struct{ in []T }

func (k redAny[T]) run(acc uint8, io, n, is, _ int) uint8 {
	if acc != 0 {
		return 1
	}
	for i := 0; i < n; i++ {
		if k.in[io+i*is] != 0 {
			return 1
		}
	}
	return 0
}

func (k redAny[T]) row(acc []uint8, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		if k.in[io+i*is] != 0 {
			acc[ao+i*as] = 1
		}
	}
}

type redAllK[T redNum] struct{ in []T }

func (k redAllK[T]) run(acc uint8, io, n, is, _ int) uint8 {
	if acc == 0 {
		return 0
	}
	for i := 0; i < n; i++ {
		if k.in[io+i*is] == 0 {
			return 0
		}
	}
	return 1
}

func (k redAllK[T]) row(acc []uint8, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		if k.in[io+i*is] == 0 {
			acc[ao+i*as] = 0
		}
	}
}

type redCount[T redNum] struct{ in []T }

func (k redCount[T]) run(acc int64, io, n, is, _ int) int64 {
	for i := 0; i < n; i++ {
		if k.in[io+i*is] != 0 {
			acc++
		}
	}
	return acc
}

func (k redCount[T]) row(acc []int64, ao, as, io, n, is, _, _ int) {
	for i := 0; i < n; i++ {
		if k.in[io+i*is] != 0 {
			acc[ao+i*as]++
		}
	}
}

// ---- conversion ----

// redConvert returns a new contiguous array of dtype dt holding a's elements
// (bool results are v != 0). It handles every stride, negative ones included.
func redConvert(a *Array, dt DType) *Array {
	out := newArray(dt, a.shape)
	if out.Size() == 0 {
		return out
	}
	switch a.dtype {
	case Float64:
		redConvertFrom[float64](a, out)
	case Float32:
		redConvertFrom[float32](a, out)
	case Int64:
		redConvertFrom[int64](a, out)
	case Int32:
		redConvertFrom[int32](a, out)
	case Int8:
		redConvertFrom[int8](a, out)
	case Int16:
		redConvertFrom[int16](a, out)
	case Uint8:
		redConvertFrom[uint8](a, out)
	case Uint16:
		redConvertFrom[uint16](a, out)
	case Uint32:
		redConvertFrom[uint32](a, out)
	case Uint64:
		redConvertFrom[uint64](a, out)
	case Bool:
		redConvertFrom[uint8](a, out)
	}
	return out
}

func redConvertFrom[S redNum](a, out *Array) {
	switch out.dtype {
	case Float64:
		redConvertTo[S, float64](a, out)
	case Float32:
		redConvertTo[S, float32](a, out)
	case Int64:
		redConvertTo[S, int64](a, out)
	case Int32:
		redConvertTo[S, int32](a, out)
	case Int8:
		redConvertTo[S, int8](a, out)
	case Int16:
		redConvertTo[S, int16](a, out)
	case Uint8:
		redConvertTo[S, uint8](a, out)
	case Uint16:
		redConvertTo[S, uint16](a, out)
	case Uint32:
		redConvertTo[S, uint32](a, out)
	case Uint64:
		redConvertTo[S, uint64](a, out)
	case Bool:
		src, dst := typedAll[S](a), typedAll[uint8](out)
		ForEachRun([]*Array{a, out}, a.shape, func(offs []int, n int, st []int) {
			so, do := a.offset+offs[0], out.offset+offs[1]
			for i := 0; i < n; i++ {
				if src[so+i*st[0]] != 0 {
					dst[do+i*st[1]] = 1
				}
			}
		})
	}
}

func redConvertTo[S, D redNum](a, out *Array) {
	src, dst := typedAll[S](a), typedAll[D](out)
	ForEachRun([]*Array{a, out}, a.shape, func(offs []int, n int, st []int) {
		so, do, ss := a.offset+offs[0], out.offset+offs[1], st[0]
		if st[1] != 1 {
			for i := 0; i < n; i++ {
				dst[do+i*st[1]] = D(src[so+i*ss])
			}
			return
		}
		d := dst[do : do+n]
		if ss == 1 {
			s := src[so : so+n]
			for i := range d {
				d[i] = D(s[i])
			}
			return
		}
		for i := range d {
			d[i] = D(src[so+i*ss])
		}
	})
}

// ---- moments (mean, var, std) ----

// MomentStat selects what FinishMoments computes.
type MomentStat uint8

// The statistics a moments partial can finish into.
const (
	StatMean MomentStat = iota + 1
	StatVar
	StatStd
)

func (s MomentStat) String() string {
	switch s {
	case StatMean:
		return "mean"
	case StatVar:
		return "var"
	case StatStd:
		return "std"
	}
	return fmt.Sprintf("moment_stat(%d)", uint8(s))
}

// Moments computes the partial of a mean/var/std tree reduction of a over
// axes (nil or empty: all): a float64 array of shape [3, keepdims shape...]
// holding, per output position, the element count, the mean and M2, the sum
// of squared deviations from that mean. It uses two passes (pairwise sums of
// x, then of (x-mean)²) like NumPy's var, so M2 does not suffer the
// cancellation of a sum-of-squares formula.
func Moments(a *Array, axes []int) (*Array, error) {
	if a == nil || !a.dtype.Valid() {
		return nil, fmt.Errorf("ndarray: moments: nil or invalid array")
	}
	a = single(a)
	red, err := redAxesMask("moments", a.shape, axes)
	if err != nil {
		return nil, err
	}
	keep, count := redKeepShape(a.shape, red)
	m := Size(keep)
	out := newArray(Float64, append([]int{3}, keep...))
	all := typedAll[float64](out)
	redFill(all[:m], float64(count))
	if count == 0 || m == 0 {
		return out, nil // count 0, mean 0, M2 0: the identity of CombineMoments
	}
	if a.dtype == Float64 && m >= 16 && a.IsContiguous() && leadingAxes(red) {
		// Rows of the m kept values each (enough of them for the vector
		// add to pay): summed and squared a row at a time, as fused
		// moments are, merged into an empty accumulator.
		clear(all[:m])
		RowMoments(all, typed[float64](a)[:count*m], make([]float64, 4*m), count, m)
		return out, nil
	}
	mean := redView(Float64, keep, out.buf, m)
	redSumF64(a, red, mean)
	for i := m; i < 2*m; i++ {
		all[i] /= float64(count)
	}
	m2 := redView(Float64, keep, out.buf, 2*m)
	p := newRedPlan(a, red, m2)
	dst := typedAll[float64](out)
	switch a.dtype {
	case Float64:
		redRun(p, redDevSq[float64]{typedAll[float64](a), all, -m}, dst, redAddF)
	case Float32:
		redRun(p, redDevSq[float32]{typedAll[float32](a), all, -m}, dst, redAddF)
	case Int64:
		redRun(p, redDevSq[int64]{typedAll[int64](a), all, -m}, dst, redAddF)
	case Int32:
		redRun(p, redDevSq[int32]{typedAll[int32](a), all, -m}, dst, redAddF)
	case Int8:
		redRun(p, redDevSq[int8]{typedAll[int8](a), all, -m}, dst, redAddF)
	case Int16:
		redRun(p, redDevSq[int16]{typedAll[int16](a), all, -m}, dst, redAddF)
	case Uint8:
		redRun(p, redDevSq[uint8]{typedAll[uint8](a), all, -m}, dst, redAddF)
	case Uint16:
		redRun(p, redDevSq[uint16]{typedAll[uint16](a), all, -m}, dst, redAddF)
	case Uint32:
		redRun(p, redDevSq[uint32]{typedAll[uint32](a), all, -m}, dst, redAddF)
	case Uint64:
		redRun(p, redDevSq[uint64]{typedAll[uint64](a), all, -m}, dst, redAddF)
	case Bool:
		redRun(p, redDevSq[uint8]{typedAll[uint8](a), all, -m}, dst, redAddF)
	}
	return out, nil
}

// leadingAxes: red marks the first axes and no later one.
func leadingAxes(red []bool) bool {
	i := 0
	for i < len(red) && red[i] {
		i++
	}
	return i > 0 && !slices.Contains(red[i:], true)
}

// redSumF64 adds the pairwise float64 sum of a over the red axes into acc.
func redSumF64(a *Array, red []bool, acc *Array) {
	p := newRedPlan(a, red, acc)
	dst := typedAll[float64](acc)
	switch a.dtype {
	case Float64:
		redRun(p, redSumF[float64]{typedAll[float64](a)}, dst, redAddF)
	case Float32:
		redRun(p, redSumF[float32]{typedAll[float32](a)}, dst, redAddF)
	case Int64:
		redRun(p, redSumF[int64]{typedAll[int64](a)}, dst, redAddF)
	case Int32:
		redRun(p, redSumF[int32]{typedAll[int32](a)}, dst, redAddF)
	case Int8:
		redRun(p, redSumF[int8]{typedAll[int8](a)}, dst, redAddF)
	case Int16:
		redRun(p, redSumF[int16]{typedAll[int16](a)}, dst, redAddF)
	case Uint8:
		redRun(p, redSumF[uint8]{typedAll[uint8](a)}, dst, redAddF)
	case Uint16:
		redRun(p, redSumF[uint16]{typedAll[uint16](a)}, dst, redAddF)
	case Uint32:
		redRun(p, redSumF[uint32]{typedAll[uint32](a)}, dst, redAddF)
	case Uint64:
		redRun(p, redSumF[uint64]{typedAll[uint64](a)}, dst, redAddF)
	case Bool:
		redRun(p, redSumF[uint8]{typedAll[uint8](a)}, dst, redAddF)
	}
}

// redDevSq is the kernel of M2, the pairwise sum of (x - mean)², fused so
// no input-sized temporary is needed. The mean of the output position at
// real offset ro is mean[ro+shift] (the means sit shift elements from M2).
type redDevSq[T redNum] struct {
	in    []T
	mean  []float64
	shift int
}

func (k redDevSq[T]) run(acc float64, io, n, is, ro int) float64 {
	if is == 1 {
		if f, ok := any(k.in).([]float64); ok {
			return acc + redPairwiseDevF64(f[io:io+n], k.mean[ro+k.shift])
		}
	}
	return acc + redPairwiseDev(k.in, io, n, is, k.mean[ro+k.shift])
}

// redPairwiseDevF64 is redPairwiseDev for contiguous float64, whose blocks
// of eight accumulators run as one vector register where the CPU allows.
func redPairwiseDevF64(s []float64, m float64) float64 {
	n := len(s)
	if n < 8 || n > 128 {
		if n < 8 {
			return redPairwiseDev(s, 0, n, 1, m)
		}
		n2 := n / 2
		n2 -= n2 % 8
		return redPairwiseDevF64(s[:n2], m) + redPairwiseDevF64(s[n2:], m)
	}
	var r [8]float64
	i := devSqBlock(s, m, &r)
	for ; i+8 <= n; i += 8 {
		for j := range r {
			d := s[i+j] - m
			r[j] += d * d
		}
	}
	res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
	for ; i < n; i++ {
		d := s[i] - m
		res += d * d
	}
	return res
}

func (k redDevSq[T]) row(acc []float64, ao, as, io, n, is, ro, rs int) {
	for i := 0; i < n; i++ {
		d := float64(k.in[io+i*is]) - k.mean[ro+k.shift+i*rs]
		acc[ao+i*as] += d * d
	}
}

// redPairwiseDev is redPairwiseStrided of (x - m)².
func redPairwiseDev[T redNum](in []T, io, n, is int, m float64) float64 {
	switch {
	case n < 8:
		var r float64
		for i := 0; i < n; i++ {
			d := float64(in[io+i*is]) - m
			r += d * d
		}
		return r
	case n <= 128:
		var r [8]float64
		i := 0
		for ; i+8 <= n; i += 8 {
			o := io + i*is
			for j := range r {
				d := float64(in[o+j*is]) - m
				r[j] += d * d
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			d := float64(in[io+i*is]) - m
			res += d * d
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return redPairwiseDev(in, io, n2, is, m) + redPairwiseDev(in, io+n2*is, n-n2, is, m)
}

// redCheckStacked checks partials of a [lead, ...] layout.
func redCheckStacked(what string, parts []*Array, lead int) error {
	if err := redCheckParts(what, parts, Float64); err != nil {
		return err
	}
	if parts[0].NDim() == 0 || parts[0].shape[0] != lead {
		return fmt.Errorf("ndarray: %s: partial of shape %v does not have leading axis %d", what, parts[0].shape, lead)
	}
	return nil
}

// redContigF64 returns a's float64 elements in C order, copying only when a
// is not contiguous.
func redContigF64(a *Array) []float64 {
	if !a.IsContiguous() {
		a = redConvert(a, Float64)
	}
	return typedAll[float64](a)[a.offset : a.offset+a.Size()]
}

// CombineMoments merges moments partials (same shape, from Moments or
// CombineMoments) with Chan et al.'s parallel formulas, in a balanced tree so
// that rounding grows with log(len(parts)).
func CombineMoments(parts []*Array) (*Array, error) {
	if err := redCheckStacked("combine moments", parts, 3); err != nil {
		return nil, err
	}
	data := make([][]float64, len(parts))
	for i, p := range parts {
		data[i] = redContigF64(p)
	}
	out := newArray(Float64, parts[0].shape)
	m := out.Size() / 3
	copy(typedAll[float64](out), redMergeMoments(data, m))
	return out, nil
}

func redMergeMoments(parts [][]float64, m int) []float64 {
	if len(parts) == 1 {
		return append([]float64(nil), parts[0][:3*m]...)
	}
	h := len(parts) / 2
	a, b := redMergeMoments(parts[:h], m), redMergeMoments(parts[h:], m)
	for i := 0; i < m; i++ {
		a[i], a[m+i], a[2*m+i] = redChan(a[i], a[m+i], a[2*m+i], b[i], b[m+i], b[2*m+i])
	}
	return a
}

// redChan merges (count, mean, M2) of two disjoint sets.
func redChan(na, ma, qa, nb, mb, qb float64) (n, mean, q float64) {
	switch {
	case nb == 0:
		return na, ma, qa
	case na == 0:
		return nb, mb, qb
	}
	n = na + nb
	if ma == mb { // also keeps equal infinite means finite-free of NaN
		return n, ma, qa + qb
	}
	delta := mb - ma
	mean = ma + delta*(nb/n)
	q = qa + qb + delta*delta*(na*nb/n)
	if math.IsInf(mean, 0) || math.IsNaN(mean) {
		q = math.NaN() // NumPy: x - mean is NaN for an infinite mean
	}
	return n, mean, q
}

// FinishMoments turns a moments partial into the mean, variance or standard
// deviation: a float64 array of m's shape without the leading 3 (callers
// reshape for keepdims and cast to MeanResultType). Like NumPy, an empty
// mean is NaN and the variance divides M2 by max(count-ddof, 0), giving NaN
// (0/0) or +Inf when count <= ddof.
func FinishMoments(m *Array, stat MomentStat, ddof int) (*Array, error) {
	if stat < StatMean || stat > StatStd {
		return nil, fmt.Errorf("ndarray: finish moments: invalid statistic %v", stat)
	}
	if m == nil {
		return nil, fmt.Errorf("ndarray: finish moments: nil partial")
	}
	if err := redCheckStacked("finish moments "+stat.String(), []*Array{m}, 3); err != nil {
		return nil, err
	}
	d := redContigF64(m)
	out := newArray(Float64, m.shape[1:])
	k := out.Size()
	o := typedAll[float64](out)
	for i := 0; i < k; i++ {
		n, mean, q := d[i], d[k+i], d[2*k+i]
		switch stat {
		case StatMean:
			if n == 0 {
				mean = math.NaN()
			}
			o[i] = mean
		default:
			v := q / max(n-float64(ddof), 0)
			if stat == StatStd {
				v = math.Sqrt(v)
			}
			o[i] = v
		}
	}
	return out, nil
}

// ---- argmin / argmax ----

func redArgName(isMax bool) string {
	if isMax {
		return "argmax"
	}
	return "argmin"
}

// redArgBetter reports whether v beats the current best b: NaN beats every
// number and the earlier of two NaNs or equal values wins, as in NumPy.
func redArgBetter[T redNum](isMax bool, v, b T) bool {
	if v != v {
		return b == b
	}
	if isMax {
		return v > b
	}
	return v < b
}

// ArgPartial is the per-chunk step of an argmin (isMax false) or argmax tree
// reduction. It returns a float64 array [2, keepdims shape...] holding the
// winning value and its GLOBAL index: along axis (a normalised axis) the
// index along that axis plus chunkOffset[axis]; with axis -1 (flattened; the
// keepdims shape is then all ones) the C-order flat index in globalShape.
// globalShape and chunkOffset locate the chunk a in the whole tensor; nil
// means a is the whole tensor. Values of int64 beyond 2^53 lose exactness
// when partials of different chunks are compared (within a chunk the native
// type is compared).
func ArgPartial(isMax bool, a *Array, axis int, globalShape, chunkOffset []int) (*Array, error) {
	if a != nil {
		a = single(a) // float16 values are exact in float32
	}
	p, _, err := argPartial(isMax, false, a, axis, globalShape, chunkOffset)
	return p, err
}

// argPartial is ArgPartial; with nan, NaN competes as the worst value
// (+Inf for argmin, -Inf for argmax) and seen reports, per lane in C order,
// 1 if the lane holds a number and 0 if it is all NaN.
func argPartial(isMax, nan bool, a *Array, axis int, globalShape, chunkOffset []int) (p *Array, seen []float64, err error) {
	name := redArgName(isMax)
	if nan {
		name = "nan" + name
	}
	if a == nil || !a.dtype.Valid() {
		return nil, nil, fmt.Errorf("ndarray: %s: nil or invalid array", name)
	}
	nd := a.NDim()
	gs, off := globalShape, chunkOffset
	if gs == nil {
		gs = a.shape
	}
	if off == nil {
		off = make([]int, nd)
	}
	if len(gs) != nd || len(off) != nd {
		return nil, nil, fmt.Errorf("ndarray: %s: chunk of shape %v, global shape %v and chunk offset %v differ in dimension", name, a.shape, gs, off)
	}
	for i := range gs {
		if off[i] < 0 || off[i]+a.shape[i] > gs[i] {
			return nil, nil, fmt.Errorf("ndarray: %s: chunk of shape %v at offset %v does not fit in global shape %v", name, a.shape, off, gs)
		}
	}
	if axis == -1 {
		if a.Size() == 0 {
			return nil, nil, fmt.Errorf("ndarray: %s of array of shape %v: attempt to get %s of an empty sequence", name, a.shape, name)
		}
		var val float64
		var flat int
		var num bool
		switch a.dtype {
		case Float64:
			val, flat, num = redArgFlat[float64](isMax, nan, a)
		case Float32:
			val, flat, num = redArgFlat[float32](isMax, nan, a)
		case Int64:
			val, flat, num = redArgFlat[int64](isMax, nan, a)
		case Int32:
			val, flat, num = redArgFlat[int32](isMax, nan, a)
		case Int8:
			val, flat, num = redArgFlat[int8](isMax, nan, a)
		case Int16:
			val, flat, num = redArgFlat[int16](isMax, nan, a)
		case Uint8:
			val, flat, num = redArgFlat[uint8](isMax, nan, a)
		case Uint16:
			val, flat, num = redArgFlat[uint16](isMax, nan, a)
		case Uint32:
			val, flat, num = redArgFlat[uint32](isMax, nan, a)
		case Uint64:
			val, flat, num = redArgFlat[uint64](isMax, nan, a)
		case Bool:
			val, flat, num = redArgFlat[uint8](isMax, nan, a)
		}
		seen = []float64{0}
		if num {
			seen[0] = 1
		}
		g, gstride := 0, 1
		for i := nd - 1; i >= 0; i-- {
			g += (flat%a.shape[i] + off[i]) * gstride
			flat /= a.shape[i]
			gstride *= gs[i]
		}
		keep := make([]int, nd)
		for i := range keep {
			keep[i] = 1
		}
		out := newArray(Float64, append([]int{2}, keep...))
		o := typedAll[float64](out)
		o[0], o[1] = val, float64(g)
		return out, seen, nil
	}
	if axis < 0 || axis >= nd {
		return nil, nil, fmt.Errorf("ndarray: %s: axis %d is out of bounds for array of dimension %d (want 0..%d, or -1 to flatten)", name, axis, nd, nd-1)
	}
	if a.shape[axis] == 0 {
		return nil, nil, fmt.Errorf("ndarray: %s along axis %d of array of shape %v: attempt to get %s of an empty sequence", name, axis, a.shape, name)
	}
	keep := append([]int(nil), a.shape...)
	keep[axis] = 1
	out := newArray(Float64, append([]int{2}, keep...))
	m := Size(keep)
	seen = make([]float64, m)
	if m == 0 {
		return out, seen, nil
	}
	o := typedAll[float64](out)
	if !nan {
		seen = nil
	}
	switch a.dtype {
	case Float64:
		redArgAxis[float64](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Float32:
		redArgAxis[float32](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Int64:
		redArgAxis[int64](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Int32:
		redArgAxis[int32](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Int8:
		redArgAxis[int8](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Int16:
		redArgAxis[int16](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Uint8:
		redArgAxis[uint8](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Uint16:
		redArgAxis[uint16](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Uint32:
		redArgAxis[uint32](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Uint64:
		redArgAxis[uint64](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	case Bool:
		redArgAxis[uint8](isMax, a, axis, o[:m], o[m:], seen, off[axis])
	}
	return out, seen, nil
}

// redArgFlat returns the winning value, its C-order flat index in a, and
// whether a held a number (always, unless nan and every element is NaN).
// With nan, NaN competes as the worst value (redArgWorst).
func redArgFlat[T redNum](isMax, nan bool, a *Array) (float64, int, bool) {
	in := typedAll[T](a)
	worst := redArgWorst[T](isMax)
	var bv T
	bi, k, num := -1, 0, !nan
	ForEachRun([]*Array{a}, a.shape, func(offs []int, n int, st []int) {
		o := a.offset + offs[0]
		for i := 0; i < n; i++ {
			v := in[o+i*st[0]]
			if nan {
				if v != v {
					v = worst
				} else {
					num = true
				}
			}
			if bi < 0 || redArgBetter(isMax, v, bv) {
				bv, bi = v, k+i
			}
		}
		k += n
	})
	return float64(bv), bi, num
}

// redArgWorst is the value NaN stands for in nanargmin (+Inf) and
// nanargmax (-Inf), as NumPy replaces it; integer types never use it.
func redArgWorst[T redNum](isMax bool) T {
	if !redIsFloat[T]() {
		var z T
		return z
	}
	inf := math.Inf(1)
	if isMax {
		inf = math.Inf(-1)
	}
	return T(inf)
}

// redArgAxis finds the winners along axis, writing values and global indices
// (shifted by off) in C order of the remaining axes. When axis is the
// densest in memory it scans each lane; otherwise it sweeps whole slices
// a[..., j, ...] against running winners so memory is read in order. A
// non-nil seen makes it NaN-aware: NaN competes as the worst value and
// seen[k] is set to 1 when lane k holds a number.
func redArgAxis[T redNum](isMax bool, a *Array, axis int, vals, idxs, seen []float64, off int) {
	in := typedAll[T](a)
	nan := seen != nil
	worst := redArgWorst[T](isMax)
	L, st := a.shape[axis], a.strides[axis]
	base, _ := a.Index(axis, 0)
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	scan := true
	for i, d := range a.shape {
		if i != axis && d > 1 && abs(a.strides[i]) < abs(st) {
			scan = false
		}
	}
	if scan {
		k := 0
		ForEachRun([]*Array{base}, base.shape, func(offs []int, n int, sts []int) {
			for i := 0; i < n; i++ {
				o := base.offset + offs[0] + i*sts[0]
				if nan {
					// NaN competes as the worst value, so a NaN ties with
					// an infinity of that sign and the first one wins.
					bv, bi, num := worst, -1, false
					for j := 0; j < L; j++ {
						v := in[o+j*st]
						if v != v {
							v = worst
						} else {
							num = true
						}
						if bi < 0 || redArgBetter(isMax, v, bv) {
							bv, bi = v, j
						}
					}
					vals[k], idxs[k] = float64(bv), float64(bi+off)
					if num {
						seen[k] = 1
					}
					k++
					continue
				}
				bv, bi := in[o], 0
				for j := 1; j < L && bv == bv; j++ {
					if v := in[o+j*st]; redArgBetter(isMax, v, bv) {
						bv, bi = v, j
					}
				}
				vals[k], idxs[k] = float64(bv), float64(bi+off)
				k++
			}
		})
		return
	}
	bvA := newArray(a.dtype, base.shape)
	bv := typedAll[T](bvA)
	bi := make([]int, len(vals))
	for j := 0; j < L; j++ {
		sj := base.view(base.shape, base.strides, base.offset+j*st)
		ForEachRun([]*Array{sj, bvA}, base.shape, func(offs []int, n int, sts []int) {
			so, bo := sj.offset+offs[0], offs[1]
			for i := 0; i < n; i++ {
				v := in[so+i*sts[0]]
				b := bo + i*sts[1]
				if nan {
					if v != v {
						v = worst
					} else {
						seen[b] = 1
					}
				}
				if j == 0 || redArgBetter(isMax, v, bv[b]) {
					bv[b], bi[b] = v, j
				}
			}
		})
	}
	for k := range vals {
		vals[k], idxs[k] = float64(bv[k]), float64(bi[k]+off)
	}
}

// CombineArg merges ArgPartial partials: the better value wins, NaN beats
// numbers, and ties (or two NaNs) go to the smaller global index, which is
// NumPy's first occurrence. A negative index marks an empty partial.
func CombineArg(isMax bool, parts []*Array) (*Array, error) {
	if err := redCheckStacked("combine "+redArgName(isMax), parts, 2); err != nil {
		return nil, err
	}
	out := newArray(Float64, parts[0].shape)
	o := typedAll[float64](out)
	m := len(o) / 2
	for i := range m {
		o[m+i] = -1
	}
	for _, p := range parts {
		redArgMerge(isMax, o, redContigF64(p), m)
	}
	return out, nil
}

// redArgMerge merges the m (value, index) pairs of partial d into o.
func redArgMerge(isMax bool, o, d []float64, m int) {
	for i := 0; i < m; i++ {
		v, j := d[i], d[m+i]
		if j < 0 {
			continue
		}
		bv, bj := o[i], o[m+i]
		better := bj < 0
		if !better {
			vn, bn := v != v, bv != bv
			switch {
			case vn || bn:
				better = (vn && !bn) || (vn && bn && j < bj)
			case v == bv:
				better = j < bj
			case isMax:
				better = v > bv
			default:
				better = v < bv
			}
		}
		if better {
			o[i], o[m+i] = v, j
		}
	}
}

// FinishArg extracts the int64 indices of an ArgPartial/CombineArg partial:
// shape p's without the leading 2. A p not of that form gives nil.
func FinishArg(p *Array) *Array {
	if p == nil || p.dtype != Float64 || p.NDim() == 0 || p.shape[0] != 2 {
		return nil
	}
	d := redContigF64(p)
	out := newArray(Int64, p.shape[1:])
	o := typedAll[int64](out)
	m := len(d) / 2
	for i := range o[:m] {
		o[i] = int64(d[m+i])
	}
	return out
}

// RowSums writes the sum of each run of k consecutive elements of x into
// out, each as Reduce sums a contiguous run (SumFloat64s):
// len(x) must be at least k*len(out). Fused kernels use it for inner
// reductions over short rows, such as W2's two columns.
func RowSums(out, x []float64, k int) {
	switch k {
	case 1:
		copy(out, x)
	case 2:
		n := pairSums(out, x)
		for r := n; r < len(out); r++ {
			out[r] = x[2*r] + x[2*r+1]
		}
	default:
		for r := range out {
			out[r] = SumFloat64s(x[r*k : (r+1)*k])
		}
	}
}
