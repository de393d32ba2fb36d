package tensor

import (
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// NumPy's array manipulation functions. Most are arrangements of views
// (Index slices, Flip, Transpose) joined by Concatenate, which reuses its
// inputs' chunks: nothing is gathered into one chunk. Repeat, Tril/Triu and
// Diagonal are chunk ops of their own (ops/manip.go).

// IndexError is a position out of bounds for an axis (NumPy raises
// IndexError), from Insert and Delete.
type IndexError struct {
	Func              string
	Index, Axis, Size int
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("%s: index %d is out of bounds for axis %d with size %d", e.Func, e.Index, e.Axis, e.Size)
}

// axisSlice is t[..., lo:hi, ...] along axis ax (already normalised).
func (t *Tensor) axisSlice(ax, lo, hi int) *Tensor {
	idx := make([]Idx, ax+1)
	for i := range ax {
		idx[i] = All()
	}
	idx[ax] = Range(lo, hi)
	return t.Index(idx...)
}

// firstErr is the first tensor among ts that carries an error (a nil one
// becomes an error tensor saying so), or nil.
func firstErr(ts ...*Tensor) *Tensor {
	for i, x := range ts {
		if x == nil {
			return errorf("tensor %d is nil", i)
		}
		if x.err != nil {
			return x
		}
	}
	return nil
}

// optAxis reads an optional axis: ok is false when none is given.
func optAxis(name string, axis []int) (ax int, ok bool, err error) {
	switch len(axis) {
	case 0:
		return 0, false, nil
	case 1:
		return axis[0], true, nil
	}
	return 0, false, fmt.Errorf("%s: takes at most one axis, got %v", name, axis)
}

// Roll shifts the elements of t by shift along the given axes (np.roll),
// elements that fall off one end coming back at the other. With no axes t
// is rolled as if flattened, and keeps its shape.
func (t *Tensor) Roll(shift int, axes ...int) *Tensor {
	if len(axes) == 0 {
		return t.RollAxes([]int{shift}, nil)
	}
	shifts := make([]int, len(axes))
	for i := range shifts {
		shifts[i] = shift
	}
	return t.RollAxes(shifts, axes)
}

// RollAxes is np.roll with a shift per axis: shifts and axes broadcast
// against each other (one of them may have a single entry), and shifts of
// one axis named twice add up. Nil axes roll the flattened tensor by the
// sum of the shifts.
func (t *Tensor) RollAxes(shifts, axes []int) *Tensor {
	if t.err != nil {
		return t
	}
	if axes == nil {
		return t.Ravel().RollAxes(shifts, []int{0}).Reshape(t.meta.Shape...)
	}
	switch {
	case len(shifts) == len(axes):
	case len(shifts) == 1:
		shifts = slices.Repeat(shifts, len(axes))
	case len(axes) == 1:
		axes = slices.Repeat(axes, len(shifts))
	default:
		return errorf("roll: 'shift' and 'axis' should be scalars or 1D sequences of one length, got %d shifts and %d axes", len(shifts), len(axes))
	}
	total := make([]int, t.NDim())
	for i, a := range axes {
		ax, err := ndarray.NormAxis(a, t.NDim())
		if err != nil {
			return errorf("roll: %w", err)
		}
		total[ax] += shifts[i]
	}
	r := t
	for ax, s := range total {
		n := t.meta.Shape[ax]
		if n == 0 {
			continue
		}
		if s = ((s % n) + n) % n; s == 0 {
			continue
		}
		r = Concatenate(ax, r.axisSlice(ax, n-s, n), r.axisSlice(ax, 0, n-s))
	}
	return r
}

// Repeat repeats each element repeats times (np.repeat with one count):
// along the axis if one is given, else over the flattened tensor. Each
// chunk repeats its own elements; nothing moves between chunks.
func (t *Tensor) Repeat(repeats int, axis ...int) *Tensor {
	return t.RepeatEach([]int{repeats}, axis...)
}

// RepeatEach is np.repeat with a count per element (or one for all):
// element i of the axis (of the flattened tensor if no axis is given) is
// repeated repeats[i] times.
func (t *Tensor) RepeatEach(repeats []int, axis ...int) *Tensor {
	if t.err != nil {
		return t
	}
	a, ok, err := optAxis("repeat", axis)
	if err != nil {
		return errTensor(err)
	}
	x := t
	if !ok {
		x = t.Ravel()
	}
	ax, err := ndarray.NormAxis(a, x.NDim())
	if err != nil {
		return errorf("repeat: %w", err)
	}
	if len(repeats) == 0 {
		return errorf("repeat: no repeat counts")
	}
	return New(ops.Repeat{Axis: ax, Repeats: slices.Clone(repeats)}, x)
}

// Tile repeats the whole tensor reps[i] times along axis i (np.tile): the
// shorter of reps and the shape is padded with leading ones. Copies are
// concatenations of t's own chunks.
func (t *Tensor) Tile(reps ...int) *Tensor {
	if t.err != nil {
		return t
	}
	for _, r := range reps {
		if r < 0 {
			return errorf("tile: negative dimensions are not allowed: reps %v", reps)
		}
		// Each copy is at least one chunk of the concatenation.
		if r > ops.MaxChunkOps {
			return errorf("tile: %d copies along one axis would exceed %d chunks (reps %v)", r, ops.MaxChunkOps, reps)
		}
	}
	nd := max(t.NDim(), len(reps))
	shape := slices.Concat(slices.Repeat([]int{1}, nd-t.NDim()), t.meta.Shape)
	full := slices.Concat(slices.Repeat([]int{1}, nd-len(reps)), reps)
	r := t.Reshape(shape...)
	for ax, k := range full {
		switch k {
		case 1:
		case 0:
			r = r.axisSlice(ax, 0, 0)
		default:
			r = Concatenate(ax, slices.Repeat([]*Tensor{r}, k)...)
		}
	}
	return r
}

// SwapAxes interchanges two axes (np.swapaxes).
func (t *Tensor) SwapAxes(axis1, axis2 int) *Tensor {
	if t.err != nil {
		return t
	}
	i, err := ndarray.NormAxis(axis1, t.NDim())
	if err != nil {
		return errorf("swapaxes: axis1: %w", err)
	}
	j, err := ndarray.NormAxis(axis2, t.NDim())
	if err != nil {
		return errorf("swapaxes: axis2: %w", err)
	}
	perm := identityPerm(t.NDim())
	perm[i], perm[j] = perm[j], perm[i]
	return t.Transpose(perm...)
}

func identityPerm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// MoveAxis moves axes source to positions destination, the others keeping
// their order (np.moveaxis).
func (t *Tensor) MoveAxis(source, destination []int) *Tensor {
	if t.err != nil {
		return t
	}
	if len(source) != len(destination) {
		return errorf("moveaxis: `source` and `destination` arguments must have the same number of elements (%d and %d)", len(source), len(destination))
	}
	nd := t.NDim()
	src, err := normAxesOrdered(source, nd)
	if err != nil {
		return errorf("moveaxis: source: %w", err)
	}
	dst, err := normAxesOrdered(destination, nd)
	if err != nil {
		return errorf("moveaxis: destination: %w", err)
	}
	perm := make([]int, nd)
	for i := range perm {
		perm[i] = -1
	}
	moved := make([]bool, nd)
	for i, d := range dst {
		perm[d] = src[i]
		moved[src[i]] = true
	}
	rest := 0
	for i := range perm {
		if perm[i] >= 0 {
			continue
		}
		for moved[rest] {
			rest++
		}
		perm[i] = rest
		rest++
	}
	return t.Transpose(perm...)
}

// normAxesOrdered normalises axes keeping their order, rejecting repeats.
func normAxesOrdered(axes []int, nd int) ([]int, error) {
	out := make([]int, len(axes))
	seen := make([]bool, nd)
	for i, a := range axes {
		ax, err := ndarray.NormAxis(a, nd)
		if err != nil {
			return nil, err
		}
		if seen[ax] {
			return nil, fmt.Errorf("repeated axis %d in %v", ax, axes)
		}
		seen[ax] = true
		out[i] = ax
	}
	return out, nil
}

// RollAxis moves axis to position start (np.rollaxis; start may be
// -ndim..ndim).
func (t *Tensor) RollAxis(axis, start int) *Tensor {
	if t.err != nil {
		return t
	}
	n := t.NDim()
	ax, err := ndarray.NormAxis(axis, n)
	if err != nil {
		return errorf("rollaxis: %w", err)
	}
	if start < 0 {
		start += n
	}
	if start < 0 || start > n {
		return errTensor(fmt.Errorf("rollaxis: %w", &ndarray.AxisError{Axis: start, NDim: n + 1}))
	}
	if ax < start {
		start--
	}
	if ax == start {
		return t
	}
	perm := slices.Delete(identityPerm(n), ax, ax+1)
	perm = slices.Insert(perm, start, ax)
	return t.Transpose(perm...)
}

// AtLeast1D is t with a length-1 axis if it is 0-d (np.atleast_1d).
func AtLeast1D(t *Tensor) *Tensor {
	if t == nil || t.err != nil || t.NDim() >= 1 {
		return t
	}
	return t.Reshape(1)
}

// AtLeast2D is t as at least 2-d (np.atleast_2d): 0-d becomes (1, 1), 1-d
// (n) becomes (1, n).
func AtLeast2D(t *Tensor) *Tensor {
	if t == nil || t.err != nil {
		return t
	}
	switch t.NDim() {
	case 0:
		return t.Reshape(1, 1)
	case 1:
		return t.ExpandDims(0)
	}
	return t
}

// AtLeast3D is t as at least 3-d (np.atleast_3d): 0-d becomes (1, 1, 1),
// (n) becomes (1, n, 1), (m, n) becomes (m, n, 1).
func AtLeast3D(t *Tensor) *Tensor {
	if t == nil || t.err != nil {
		return t
	}
	switch t.NDim() {
	case 0:
		return t.Reshape(1, 1, 1)
	case 1:
		return t.ExpandDims(0).ExpandDims(2)
	case 2:
		return t.ExpandDims(2)
	}
	return t
}

// stackWith concatenates ts after f along axis.
func stackWith(name string, axis func(nd int) int, f func(*Tensor) *Tensor, ts []*Tensor) *Tensor {
	if len(ts) == 0 {
		return errorf("%s: need at least one array to concatenate", name)
	}
	if e := firstErr(ts...); e != nil {
		return e
	}
	xs := make([]*Tensor, len(ts))
	for i, x := range ts {
		xs[i] = f(x)
	}
	r := Concatenate(axis(xs[0].NDim()), xs...)
	if r.err != nil {
		return errorf("%s: %w", name, r.err)
	}
	return r
}

// HStack joins tensors column-wise (np.hstack): along axis 1, or axis 0
// for 1-d tensors; 0-d tensors become 1-d.
func HStack(ts ...*Tensor) *Tensor {
	return stackWith("hstack", func(nd int) int {
		if nd == 1 {
			return 0
		}
		return 1
	}, AtLeast1D, ts)
}

// VStack joins tensors row-wise (np.vstack) after AtLeast2D.
func VStack(ts ...*Tensor) *Tensor {
	return stackWith("vstack", func(int) int { return 0 }, AtLeast2D, ts)
}

// DStack joins tensors along the third axis (np.dstack) after AtLeast3D.
func DStack(ts ...*Tensor) *Tensor {
	return stackWith("dstack", func(int) int { return 2 }, AtLeast3D, ts)
}

// ColumnStack joins 1-d tensors as columns of a 2-d tensor, and 2-d
// tensors as they are (np.column_stack).
func ColumnStack(ts ...*Tensor) *Tensor {
	return stackWith("column_stack", func(int) int { return 1 }, func(x *Tensor) *Tensor {
		if x.NDim() < 2 {
			return x.Reshape(-1, 1)
		}
		return x
	}, ts)
}

// Diff is the n-th discrete difference along axis (np.diff): out[i] =
// a[i+1] - a[i], repeated n times (for bools, a[i+1] != a[i]). before and
// after (NumPy's prepend and append), when not nil, are joined to t along
// the axis first; a 0-d one is broadcast to a slice of length 1.
func (t *Tensor) Diff(n, axis int, before, after *Tensor) *Tensor {
	if t.err != nil {
		return t
	}
	if u := t.needKnown("diff"); u != nil {
		return u
	}
	if n < 0 {
		return errorf("diff: order must be non-negative but got %d", n)
	}
	if n == 0 {
		return t
	}
	if t.NDim() == 0 {
		return errorf("diff: diff requires input that is at least one dimensional")
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errorf("diff: %w", err)
	}
	edge := func(v *Tensor) *Tensor {
		if v.NDim() != 0 {
			return v
		}
		shape := t.Shape()
		shape[ax] = 1
		return v.BroadcastTo(shape...)
	}
	a := t
	if before != nil || after != nil {
		parts := []*Tensor{t}
		if before != nil {
			parts = slices.Insert(parts, 0, edge(before))
		}
		if after != nil {
			parts = append(parts, edge(after))
		}
		if a = Concatenate(ax, parts...); a.err != nil {
			return errorf("diff: %w", a.err)
		}
	}
	for range n {
		l := a.meta.Shape[ax]
		hi, lo := a.axisSlice(ax, min(1, l), l), a.axisSlice(ax, 0, max(l-1, 0))
		if a.DType() == ndarray.Bool {
			a = NotEqual(hi, lo)
		} else {
			a = Sub(hi, lo)
		}
	}
	return a
}

// Ediff1d is the differences of consecutive elements of the flattened
// tensor (np.ediff1d), with toBegin and toEnd (flattened, when not nil)
// joined before and after. They must cast to t's dtype (same kind).
func (t *Tensor) Ediff1d(toEnd, toBegin *Tensor) *Tensor {
	if t.err != nil {
		return t
	}
	if t.DType() == ndarray.Bool {
		return errTensor(&ndarray.DTypeError{Msg: "ediff1d: numpy boolean subtract, the `-` operator, is not supported"})
	}
	a := t.Ravel()
	if a.err != nil {
		return a
	}
	n := a.meta.Shape[0]
	parts := []*Tensor{Sub(a.axisSlice(0, min(1, n), n), a.axisSlice(0, 0, max(n-1, 0)))}
	for i, v := range []*Tensor{toBegin, toEnd} {
		if v == nil {
			continue
		}
		if v.err != nil {
			return v
		}
		if dtypeKind(v.DType()) > dtypeKind(t.DType()) {
			return errTensor(&ndarray.DTypeError{Msg: fmt.Sprintf("ediff1d: dtype of `%s` must be compatible with input `ary` under the `same_kind` rule (%v to %v)", []string{"to_begin", "to_end"}[i], v.DType(), t.DType())})
		}
		v = v.Ravel().Astype(t.DType())
		if i == 0 {
			parts = slices.Insert(parts, 0, v)
		} else {
			parts = append(parts, v)
		}
	}
	return Concatenate(0, parts...)
}

// dtypeKind orders NumPy's kinds for the same_kind casting rule: a value
// casts to a dtype of its own kind or a higher one.
func dtypeKind(dt ndarray.DType) int {
	switch {
	case dt.IsComplex():
		return 3
	case dt.IsFloat():
		return 2
	case dt.IsInt():
		return 1
	}
	return 0
}

// Trapz integrates y along axis by the trapezoidal rule (np.trapz): with
// sample points x when x is not nil (1-d along the axis, or y's shape),
// else with spacing dx.
func Trapz(y, x *Tensor, dx float64, axis int) *Tensor {
	if y == nil || y.err != nil {
		return y
	}
	if y.NDim() == 0 {
		return errTensor(fmt.Errorf("trapz: %w", &ndarray.AxisError{Axis: axis, NDim: 0}))
	}
	ax, err := ndarray.NormAxis(axis, y.NDim())
	if err != nil {
		return errorf("trapz: %w", err)
	}
	n := y.meta.Shape[ax]
	sum := Add(y.axisSlice(ax, min(1, n), n), y.axisSlice(ax, 0, max(n-1, 0)))
	var prod *Tensor
	if x == nil {
		prod = Mul(dx, sum)
	} else {
		if x.err != nil {
			return x
		}
		var d *Tensor
		if x.NDim() == 1 {
			d = x.Diff(1, 0, nil, nil)
			if d.err == nil {
				shape := slices.Repeat([]int{1}, y.NDim())
				shape[ax] = d.meta.Shape[0]
				d = d.Reshape(shape...)
			}
		} else {
			d = x.Diff(1, ax, nil, nil)
		}
		prod = Mul(d, sum)
	}
	r := Div(prod, 2.0).Sum(Axis(ax))
	if r.err != nil {
		return errorf("trapz: %w", r.err)
	}
	return r
}

// PadMode is how Pad fills the new elements (np.pad's mode).
type PadMode string

// The modes of np.pad that Pad has.
const (
	PadConstant  PadMode = "constant"  // the constant values
	PadEdge      PadMode = "edge"      // the edge value
	PadReflect   PadMode = "reflect"   // mirrored about the edge value
	PadSymmetric PadMode = "symmetric" // mirrored including the edge value
	PadWrap      PadMode = "wrap"      // the other end of the axis
)

// broadcastPairs reads np.pad's pad_width or constant_values: one pair for
// every axis, one pair for all, or a single value for all.
func broadcastPairs[T any](name string, v [][2]T, nd int) ([][2]T, error) {
	switch len(v) {
	case nd:
		return v, nil
	case 1:
		return slices.Repeat(v, nd), nil
	}
	return nil, fmt.Errorf("%s: %d pairs for a tensor of %d dimensions: give one pair or one per axis", name, len(v), nd)
}

// Pad extends t along each axis by width[ax][0] elements before and
// width[ax][1] after (np.pad): width has one pair per axis or one pair for
// all. constant holds constant mode's values the same way (nil: zeros);
// they are cast to t's dtype. The other modes read t's own elements; for
// pads wider than the axis reflect, symmetric and wrap repeat the pattern
// as NumPy 1.24 does. New edges are their own chunks (constants, views of
// the edge, flipped slices), joined to t's chunks by Concatenate.
func (t *Tensor) Pad(width [][2]int, mode PadMode, constant [][2]float64) *Tensor {
	if t.err != nil {
		return t
	}
	nd := t.NDim()
	w, err := broadcastPairs("pad: pad_width", width, nd)
	if err != nil {
		return errTensor(err)
	}
	for _, p := range w {
		if p[0] < 0 || p[1] < 0 {
			return errorf("pad: index can't contain negative values: pad_width %v", width)
		}
	}
	cv := [][2]float64{{0, 0}}
	if constant != nil {
		if mode != PadConstant {
			return errorf("pad: unsupported keyword arguments for mode '%s': constant_values", mode)
		}
		cv = constant
	}
	c, err := broadcastPairs("pad: constant_values", cv, nd)
	if err != nil && nd > 0 {
		return errTensor(err)
	}
	switch mode {
	case PadConstant, PadEdge, PadReflect, PadSymmetric, PadWrap:
	default:
		return errorf("pad: mode '%s' is not supported (constant, edge, reflect, symmetric, wrap)", mode)
	}
	r := t
	for ax := range nd {
		before, after := w[ax][0], w[ax][1]
		if before == 0 && after == 0 {
			continue
		}
		n := r.meta.Shape[ax]
		if mode == PadConstant {
			var parts []*Tensor
			edge := func(k int, v float64) *Tensor {
				shape := r.Shape()
				shape[ax] = k
				return Full(shape, v, WithDType(r.DType()))
			}
			if before > 0 {
				parts = append(parts, edge(before, c[ax][0]))
			}
			parts = append(parts, r)
			if after > 0 {
				parts = append(parts, edge(after, c[ax][1]))
			}
			r = Concatenate(ax, parts...)
			continue
		}
		if n == 0 {
			return errorf("pad: can't extend empty axis %d using modes other than 'constant' or 'empty'", ax)
		}
		m := mode
		if n == 1 {
			m = PadEdge // every mode repeats a single element (NumPy: legacy for reflect)
		}
		if wide := max(before, after) > n-1; wide && m != PadEdge {
			// NumPy's rounds are replayed element by element (padMap), and
			// every round is at least one more chunk.
			if before+n+after > maxPadMap || (before+after)/max(n-1, 1) > ops.MaxChunkOps {
				return errorf("pad: pads %d and %d on axis %d of length %d: pads wider than the axis are supported up to a padded length of %d", before, after, ax, n, maxPadMap)
			}
		}
		var parts []*Tensor
		for _, run := range padRuns(m, n, before, after) {
			parts = append(parts, r.axisRun(ax, run))
		}
		r = Concatenate(ax, parts...)
	}
	return r
}

// padRun is len elements of an axis read from src on, forwards (step 1),
// backwards (step -1) or the one element src repeated (step 0).
type padRun struct{ src, step, len int }

// axisRun is the run as a tensor along axis ax.
func (t *Tensor) axisRun(ax int, r padRun) *Tensor {
	switch r.step {
	case 0:
		shape := t.Shape()
		shape[ax] = r.len
		return t.axisSlice(ax, r.src, r.src+1).BroadcastTo(shape...)
	case 1:
		return t.axisSlice(ax, r.src, r.src+r.len)
	}
	idx := make([]Idx, ax+1)
	for i := range ax {
		idx[i] = All()
	}
	// r.src down to r.src-len+1; the stop is exclusive (and -1 would count
	// from the end, so the last one is left open).
	s := From(r.src).Step(-1)
	if stop := r.src - r.len; stop >= 0 {
		s = s.To(stop)
	}
	idx[ax] = s
	return t.Index(idx...)
}

// padSource is the element of an axis of length n that position i (which
// may lie outside 0..n-1) reads in mode, and the direction the source runs
// in as i grows, when neither pad is wider than the part of the axis the
// mode mirrors or wraps: then NumPy fills each pad in one step, and the
// pattern is the periodic one.
func padSource(mode PadMode, n, i int) (src, step int) {
	mod := func(a, m int) int { return ((a % m) + m) % m }
	switch mode {
	case PadEdge:
		switch {
		case i < 0:
			return 0, 0
		case i >= n:
			return n - 1, 0
		}
		return i, 1
	case PadWrap:
		return mod(i, n), 1
	case PadReflect:
		if n == 1 {
			return 0, 0
		}
		p := mod(i, 2*(n-1))
		if p < n {
			return p, 1
		}
		return 2*(n-1) - p, -1
	default: // symmetric
		p := mod(i, 2*n)
		if p < n {
			return p, 1
		}
		return 2*n - 1 - p, -1
	}
}

// maxPadMap bounds the padded length of an axis whose pads are wider than
// it (padMap holds one int per position).
const maxPadMap = 1 << 24

// padMap is the source of every position of an axis of length n padded by
// before and after, by NumPy 1.24's own iteration (numpy/lib/arraypad.py,
// _set_wrap_both and _set_reflect_both): a pad wider than the axis is filled
// in several rounds, each copying from what the last one filled, and with
// unequal pads the result is not periodic. Its length is the padded axis'.
func padMap(mode PadMode, n, before, after int) []int {
	size := before + n + after
	p := make([]int, size)
	for i := range n {
		p[before+i] = i
	}
	left, right := before, after
	if (mode == PadReflect || mode == PadSymmetric) && n == 1 {
		return p // all zeros: NumPy extends a singleton axis by its edge
	}
	for left > 0 || right > 0 {
		inner := size - left - right // filled so far
		if mode == PadWrap {
			newL, newR := 0, 0
			if left > 0 {
				hi := size - right
				chunk := slices.Clone(p[hi-min(inner, left) : hi])
				if left > inner {
					copy(p[left-inner:left], chunk)
					newL = left - inner
				} else {
					copy(p[:left], chunk)
				}
			}
			if right > 0 {
				chunk := slices.Clone(p[left : left+min(inner, right)])
				if right > inner {
					copy(p[size-right:size-right+inner], chunk)
					newR = right - inner
				} else {
					copy(p[size-right:], chunk)
				}
			}
			left, right = newL, newR
			continue
		}
		edge, old := 1, inner
		if mode == PadReflect {
			edge, old = 0, inner-1
		}
		if left > 0 {
			cl := min(old, left)
			start := left - edge + cl // walks down to left-edge+1
			for k := range cl {
				p[left-cl+k] = p[start-k]
			}
			left -= cl
		}
		if right > 0 {
			cl := min(old, right)
			start := size - right + edge - 2
			for k := range cl {
				p[size-right+k] = p[start-k]
			}
			right -= cl
		}
	}
	return p
}

// padRuns cuts positions -before..n+after-1 of a padded axis into runs that
// each read a contiguous stretch of the axis.
func padRuns(mode PadMode, n, before, after int) []padRun {
	hi := n + after
	var runs []padRun
	if mode == PadEdge || max(before, after) <= n-1 {
		// The periodic pattern: each run goes to the end of its stretch.
		for i := -before; i < hi; {
			src, step := padSource(mode, n, i)
			var l int
			switch {
			case step == 1:
				l = n - src
			case step == -1:
				l = src + 1
			case i < 0:
				l = min(0, hi) - i
			default:
				l = hi - i
			}
			l = min(l, hi-i)
			runs = append(runs, padRun{src: src, step: step, len: l})
			i += l
		}
		return runs
	}
	m := padMap(mode, n, before, after)
	for j := 0; j < len(m); {
		step := 1
		if j+1 < len(m) {
			if d := m[j+1] - m[j]; d >= -1 && d <= 1 {
				step = d
			}
		}
		l := 1
		for j+l < len(m) && m[j+l] == m[j]+step*l {
			l++
		}
		runs = append(runs, padRun{src: m[j], step: step, len: l})
		j += l
	}
	return runs
}

// Tril is t with the elements above the k-th diagonal of the last two axes
// zeroed (np.tril); a 1-d t of length n is first broadcast to (n, n).
// Chunks wholly below the diagonal are reused, wholly above are zeros.
func (t *Tensor) Tril(k int) *Tensor { return t.tri(k, true) }

// Triu is t with the elements below the k-th diagonal zeroed (np.triu).
func (t *Tensor) Triu(k int) *Tensor { return t.tri(k, false) }

func (t *Tensor) tri(k int, lower bool) *Tensor {
	if t.err != nil {
		return t
	}
	x := t
	switch t.NDim() {
	case 0:
		return errorf("%s: tensor of shape () has fewer than 1 dimension", ops.Tri{Lower: lower}.Type())
	case 1:
		n := t.meta.Shape[0]
		x = t.BroadcastTo(n, n)
	}
	return New(ops.Tri{K: k, Lower: lower}, x)
}

// Diagonal is the diagonal at offset (above the main one if positive) of
// the 2-d slices over axis1 and axis2 (np.diagonal): those axes are
// removed and the diagonal is the last axis of the result.
func (t *Tensor) Diagonal(offset, axis1, axis2 int) *Tensor {
	if t.err != nil {
		return t
	}
	nd := t.NDim()
	if nd < 2 {
		return errorf("diagonal: diag requires an array of at least two dimensions, got shape %v", t.meta.Shape)
	}
	a1, err := ndarray.NormAxis(axis1, nd)
	if err != nil {
		return errorf("diagonal: axis1: %w", err)
	}
	a2, err := ndarray.NormAxis(axis2, nd)
	if err != nil {
		return errorf("diagonal: axis2: %w", err)
	}
	if a1 == a2 {
		return errorf("diagonal: axis1 and axis2 cannot be the same (both are %d)", a1)
	}
	var perm []int
	for ax := range nd {
		if ax != a1 && ax != a2 {
			perm = append(perm, ax)
		}
	}
	perm = append(perm, a1, a2)
	return New(ops.Diagonal{Offset: offset}, t.Transpose(perm...))
}

// Trace is the sum along the diagonal (np.trace): Diagonal summed over its
// last axis, in the dtype Sum gives.
func (t *Tensor) Trace(offset, axis1, axis2 int) *Tensor {
	d := t.Diagonal(offset, axis1, axis2)
	if d.err != nil {
		return errorf("trace: %w", d.err)
	}
	return d.Sum(Axis(-1))
}

// Diag is np.diag: of a 1-d tensor, the 2-d tensor with it on the k-th
// diagonal; of a 2-d tensor, its k-th diagonal.
func (t *Tensor) Diag(k int) *Tensor {
	if t.err != nil {
		return t
	}
	switch t.NDim() {
	case 1:
		n := t.meta.Shape[0]
		m := n + abs(k)
		// v[j - max(k, 0)] on row j - k: the row vector padded to m
		// columns, where the k-th diagonal of an eye mask picks it.
		row := t.Pad([][2]int{{max(k, 0), max(-k, 0)}}, PadConstant, nil).Reshape(1, m)
		return Where(Eye(m, m, k, WithDType(ndarray.Bool)), row, Zeros([]int{}, WithDType(t.DType())))
	case 2:
		return t.Diagonal(k, 0, 1)
	}
	return errorf("diag: input must be 1- or 2-d, got shape %v", t.meta.Shape)
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// Diagflat is the 2-d tensor with the flattened t on the k-th diagonal
// (np.diagflat).
func (t *Tensor) Diagflat(k int) *Tensor {
	if t.err != nil {
		return t
	}
	return t.Ravel().Diag(k)
}

// Meshgrid is np.meshgrid of 1-d coordinate tensors (each flattened): with
// indexing "xy" the first two axes of the results are swapped (Cartesian),
// with "ij" they are not (matrix). Sparse results keep length-1 axes
// instead of broadcasting (no copy either way: broadcasts are views).
func Meshgrid(indexing string, sparse bool, xs ...*Tensor) []*Tensor {
	if indexing != "xy" && indexing != "ij" {
		return errTensors(len(xs), fmt.Errorf("meshgrid: Valid values for `indexing` are 'xy' and 'ij', got %q", indexing))
	}
	if e := firstErr(xs...); e != nil {
		return errTensors(len(xs), e.err)
	}
	nd := len(xs)
	out := make([]*Tensor, nd)
	full := make([]int, nd)
	for i, x := range xs {
		x = x.Ravel()
		shape := slices.Repeat([]int{1}, nd)
		pos := i
		if indexing == "xy" && nd > 1 && i < 2 {
			pos = 1 - i
		}
		shape[pos] = x.meta.Shape[0]
		full[pos] = x.meta.Shape[0]
		out[i] = x.Reshape(shape...)
	}
	if !sparse {
		for i := range out {
			out[i] = out[i].BroadcastTo(full...)
		}
	}
	return out
}

// Indices is np.indices: a tensor of shape (len(dims), dims...) whose
// slice i holds the index along axis i (int64 unless WithDType).
func Indices(dims []int, opts ...Option) *Tensor {
	sp := IndicesSparse(dims, opts...)
	if len(dims) == 0 {
		if sp[0].err != nil {
			return sp[0]
		}
		c := newConfig(ndarray.Int64, opts)
		return Zeros([]int{0}, WithDType(c.dtype))
	}
	for i := range sp {
		sp[i] = sp[i].BroadcastTo(dims...)
	}
	return Stack(0, sp...)
}

// IndicesSparse is np.indices(sparse=True): tensor i has shape dims[i]
// along axis i and 1 along the others.
func IndicesSparse(dims []int, opts ...Option) []*Tensor {
	c := newConfig(ndarray.Int64, opts)
	if err := c.check("indices"); err != nil {
		return errTensors(len(dims), err)
	}
	for _, d := range dims {
		if d < 0 {
			return errTensors(len(dims), fmt.Errorf("indices: negative dimensions are not allowed: %v", dims))
		}
	}
	out := make([]*Tensor, len(dims))
	for i, d := range dims {
		shape := slices.Repeat([]int{1}, len(dims))
		shape[i] = d
		out[i] = ArangeN(d, opts...).Reshape(shape...)
	}
	if len(out) == 0 {
		return []*Tensor{Zeros([]int{0}, WithDType(c.dtype))}
	}
	return out
}

// Append is np.append: values joined after t along the axis, or both
// flattened when no axis is given.
func Append(t, values *Tensor, axis ...int) *Tensor {
	if e := firstErr(t, values); e != nil {
		return e
	}
	a, ok, err := optAxis("append", axis)
	if err != nil {
		return errTensor(err)
	}
	if !ok {
		return Concatenate(0, t.Ravel(), values.Ravel())
	}
	return Concatenate(a, t, values)
}

// positions reads np.insert's and np.delete's obj: an int, a []int or a
// slice (Idx) over an axis of length n. scalar says obj was one int.
func positions(name string, obj any, n int) (pos []int, scalar bool, err error) {
	switch o := obj.(type) {
	case int:
		return []int{o}, true, nil
	case []int:
		return slices.Clone(o), false, nil
	case Idx:
		if o.kind != idxSlice || o.bad != "" {
			return nil, false, fmt.Errorf("%s: index %v is not a slice", name, o)
		}
		step := o.step
		if step == 0 {
			step = 1
		}
		r, err := ndarray.SliceRange(n, o.start, o.stop, step, o.hasStart, o.hasStop)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", name, err)
		}
		for k := range r.Len {
			pos = append(pos, r.Start+k*r.Step)
		}
		return pos, false, nil
	}
	return nil, false, fmt.Errorf("%s: obj must be an int, a []int or a slice, got %T", name, obj)
}

// flatOrAxis is t and the axis an axis-or-flattened function works on.
func flatOrAxis(name string, t *Tensor, axis []int) (*Tensor, int, error) {
	if u := t.needKnown(name); u != nil {
		return nil, 0, u.err
	}
	a, ok, err := optAxis(name, axis)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return t.Ravel(), 0, nil
	}
	ax, err := ndarray.NormAxis(a, t.NDim())
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return t, ax, nil
}

// Delete is np.delete: t without the elements at obj (an int, a []int or
// a slice Idx) along the axis, or of the flattened t when none is given.
// The kept stretches are views joined by Concatenate.
func (t *Tensor) Delete(obj any, axis ...int) *Tensor {
	if t.err != nil {
		return t
	}
	x, ax, err := flatOrAxis("delete", t, axis)
	if err != nil {
		return errTensor(err)
	}
	n := x.meta.Shape[ax]
	pos, _, err := positions("delete", obj, n)
	if err != nil {
		return errTensor(err)
	}
	for k, p := range pos {
		if p < -n || p >= n {
			return errTensor(&IndexError{Func: "delete", Index: p, Axis: ax, Size: n})
		}
		if p < 0 {
			pos[k] += n
		}
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	var parts []*Tensor
	prev := 0 // the kept stretches lie between the deleted positions
	for _, p := range append(pos, n) {
		if p > prev {
			parts = append(parts, x.axisSlice(ax, prev, p))
		}
		prev = p + 1
	}
	if len(parts) == 0 {
		return x.axisSlice(ax, 0, 0)
	}
	return Concatenate(ax, parts...)
}

// Insert is np.insert: values inserted before the positions obj (an int,
// a []int or a slice Idx) along the axis, or into the flattened t when none
// is given. values is cast to t's dtype. With one int position, values is
// inserted as a block (its first axis becoming the axis); with a list,
// one slice of values goes before each position (values broadcast to one
// slice per position), in the order of the positions.
func (t *Tensor) Insert(obj any, values *Tensor, axis ...int) *Tensor {
	if e := firstErr(t, values); e != nil {
		return e
	}
	x, ax, err := flatOrAxis("insert", t, axis)
	if err != nil {
		return errTensor(err)
	}
	nd := x.NDim()
	n := x.meta.Shape[ax]
	pos, scalar, err := positions("insert", obj, n)
	if err != nil {
		return errTensor(err)
	}
	if _, isSlice := obj.(Idx); isSlice && len(pos) == 0 {
		return x
	}
	v := values.Astype(x.DType())
	for v.NDim() < nd {
		v = v.ExpandDims(0)
	}
	if v.NDim() > nd {
		return errorf("insert: values of shape %v have more dimensions than the tensor (%d)", values.meta.Shape, nd)
	}
	if scalar || len(pos) == 1 {
		p := pos[0]
		if p < -n || p > n {
			return errTensor(&IndexError{Func: "insert", Index: p, Axis: ax, Size: n})
		}
		if p < 0 {
			p += n
		}
		if scalar {
			// NumPy moves values' first axis to the insertion axis.
			v = v.MoveAxis([]int{0}, []int{ax})
		}
		shape := x.Shape()
		shape[ax] = v.meta.Shape[ax]
		if v = v.BroadcastTo(shape...); v.err != nil {
			return errorf("insert: %w", v.err)
		}
		return Concatenate(ax, x.axisSlice(ax, 0, p), v, x.axisSlice(ax, p, n))
	}
	shape := x.Shape()
	shape[ax] = len(pos)
	if v = v.BroadcastTo(shape...); v.err != nil {
		return errorf("insert: %w", v.err)
	}
	// Stable order of the positions: values[k] goes before element pos[k],
	// ties in the order given.
	order := identityPerm(len(pos))
	norm := make([]int, len(pos))
	for k, p := range pos {
		if p < -n || p > n {
			return errTensor(&IndexError{Func: "insert", Index: p, Axis: ax, Size: n})
		}
		norm[k] = p
		if p < 0 {
			norm[k] += n
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return norm[a] - norm[b] })
	var parts []*Tensor
	prev := 0
	for _, k := range order {
		if norm[k] > prev {
			parts = append(parts, x.axisSlice(ax, prev, norm[k]))
			prev = norm[k]
		}
		parts = append(parts, v.axisSlice(ax, k, k+1))
	}
	if prev < n || len(parts) == 0 {
		parts = append(parts, x.axisSlice(ax, prev, n))
	}
	return Concatenate(ax, parts...)
}

// ArraySplit divides t into sections parts along axis (np.array_split):
// the first n % sections parts have one element more. On error every
// returned tensor carries it.
func (t *Tensor) ArraySplit(sections, axis int) []*Tensor {
	if t.err != nil {
		return errTensors(sections, t.err)
	}
	if sections <= 0 {
		return errTensors(1, fmt.Errorf("array_split: number sections must be larger than 0, got %d", sections))
	}
	ax, err := ndarray.NormAxis(axis, t.NDim())
	if err != nil {
		return errTensors(sections, fmt.Errorf("array_split: %w", err))
	}
	n := t.meta.Shape[ax]
	each, extra := n/sections, n%sections
	idx := make([]int, sections-1)
	at := 0
	for i := range idx {
		at += each
		if i < extra {
			at++
		}
		idx[i] = at
	}
	return t.SplitAt(ax, idx...)
}

// Rot90 rotates t by 90 degrees k times in the plane of axes (np.rot90),
// from the first axis towards the second: flips and a transpose, all views.
func (t *Tensor) Rot90(k int, axes [2]int) *Tensor {
	if t.err != nil {
		return t
	}
	nd := t.NDim()
	if axes[0] == axes[1] || abs(axes[0]-axes[1]) == nd {
		return errorf("rot90: Axes must be different, got %v", axes)
	}
	for _, a := range axes {
		if a >= nd || a < -nd {
			return errorf("rot90: Axes=%v out of range for array of ndim=%d", axes, nd)
		}
	}
	a0, _ := ndarray.NormAxis(axes[0], nd)
	a1, _ := ndarray.NormAxis(axes[1], nd)
	switch ((k % 4) + 4) % 4 {
	case 0:
		return t
	case 2:
		return t.Flip(a0, a1)
	}
	perm := identityPerm(nd)
	perm[a0], perm[a1] = perm[a1], perm[a0]
	if ((k%4)+4)%4 == 1 {
		return t.Flip(a1).Transpose(perm...)
	}
	return t.Transpose(perm...).Flip(a1)
}
