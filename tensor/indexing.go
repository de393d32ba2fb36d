package tensor

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// Idx is one entry of a basic index, like one item of NumPy's x[...]:
//
//	x[2:8:3]  t.Index(tensor.S(2, 8, 3))        or tensor.Range(2, 8).Step(3)
//	x[2:8]    t.Index(tensor.Range(2, 8))
//	x[2:]     t.Index(tensor.From(2))
//	x[:8]     t.Index(tensor.To(8))
//	x[:]      t.Index(tensor.All())
//	x[::-1]   t.Index(tensor.Rev())             or tensor.All().Step(-1)
//	x[5::-2]  t.Index(tensor.From(5).Step(-2))
//	x[3]      t.Index(tensor.At(3))             drops the axis
//	x[None]   t.Index(tensor.NewAxis())
//	x[..., 0] t.Index(tensor.Ellipsis(), tensor.At(0))
//
// Omitted bounds are simply not set: From, To and Step also exist as
// methods, so any Python slice is All() with the parts it has. The zero Idx
// is All(). Bounds follow Python: negative values count from the end and
// out-of-range bounds are clamped.
type Idx struct {
	kind              idxKind
	start, stop, step int
	hasStart, hasStop bool
	bad               string  // set when a slice method was applied to a non-slice
	mask              *Tensor // a boolean index (Mask) or an integer array index (Array)
}

type idxKind uint8

const (
	idxSlice idxKind = iota
	idxAt
	idxNewAxis
	idxEllipsis
	idxMask
	idxArray
)

// All selects a whole axis (:).
func All() Idx { return Idx{} }

// S is the slice start:stop:step with both bounds given.
func S(start, stop, step int) Idx { return All().From(start).To(stop).Step(step) }

// Range is the slice start:stop.
func Range(start, stop int) Idx { return All().From(start).To(stop) }

// From is the slice start: (to the end).
func From(start int) Idx { return All().From(start) }

// To is the slice :stop (from the beginning).
func To(stop int) Idx { return All().To(stop) }

// Rev reverses an axis (::-1).
func Rev() Idx { return All().Step(-1) }

// At selects element i of an axis (negative counts from the end) and drops the axis.
func At(i int) Idx { return Idx{kind: idxAt, start: i} }

// NewAxis inserts a length-1 axis (None / np.newaxis).
func NewAxis() Idx { return Idx{kind: idxNewAxis} }

// Ellipsis stands for as many whole axes as needed (...); at most one per index.
func Ellipsis() Idx { return Idx{kind: idxEllipsis} }

// Mask is a boolean index (x[mask], x[:, m]): a bool tensor covering as
// many axes as it has, which become one axis holding the elements where it
// is true, in C order. That axis's length is unknown until the tensor is
// computed (Shape reports -1; see ops.Meta.Unknown). At most one per index.
func Mask(m *Tensor) Idx { return Idx{kind: idxMask, mask: m} }

// Array is an integer array index (x[idx], x[:, idx]): the sub-arrays at
// the positions idx holds along one axis (negative counting from the end),
// which becomes idx's axes, as numpy.take. At most one boolean or integer
// array per index.
func Array(idx *Tensor) Idx { return Idx{kind: idxArray, mask: idx} }

func (x Idx) sliceOnly(method string) Idx {
	if x.kind != idxSlice && x.bad == "" {
		x.bad = fmt.Sprintf("%s applied to %v, which is not a slice", method, x)
	}
	return x
}

// From sets the start of a slice.
func (x Idx) From(start int) Idx {
	x = x.sliceOnly("From")
	x.start, x.hasStart = start, true
	return x
}

// To sets the stop of a slice.
func (x Idx) To(stop int) Idx {
	x = x.sliceOnly("To")
	x.stop, x.hasStop = stop, true
	return x
}

// Step sets the step of a slice (non-zero; negative walks backwards).
func (x Idx) Step(step int) Idx {
	x = x.sliceOnly("Step")
	x.step = step
	if step == 0 && x.bad == "" {
		x.bad = "slice step cannot be zero"
	}
	return x
}

// String prints the index the way Python would write it.
func (x Idx) String() string {
	switch x.kind {
	case idxAt:
		return strconv.Itoa(x.start)
	case idxNewAxis:
		return "None"
	case idxEllipsis:
		return "..."
	}
	s := ""
	if x.hasStart {
		s = strconv.Itoa(x.start)
	}
	s += ":"
	if x.hasStop {
		s += strconv.Itoa(x.stop)
	}
	if x.step != 0 && x.step != 1 {
		s += ":" + strconv.Itoa(x.step)
	}
	return s
}

// Index is NumPy indexing t[idx...]: slices keep an axis, At drops it,
// NewAxis adds one, Ellipsis fills in whole axes, and axes not indexed are
// kept whole. Only the chunks the selection touches are computed; each
// result chunk is a view of one input chunk. One boolean Mask or integer
// Array selects along its axes; several integer Arrays broadcast together
// and pick one element per position across their axes, as NumPy's
// advanced indexing does (the result's axes from the arrays go where the
// first array is when the arrays and integers are adjacent, else first).
func (t *Tensor) Index(idx ...Idx) *Tensor {
	if u := t.needKnown("index"); u != nil {
		return u
	}
	r, err := t.resolve(idx)
	if err != nil {
		return errTensor(err)
	}
	op := ops.Index{Items: r.items}
	y := t
	if !op.IsIdentity(t.meta.Shape) {
		y = New(op, t)
	}
	if r.arrs != nil {
		return y.takeMany(r)
	}
	if r.arr == nil {
		return y
	}
	at := r.arrAt
	if at > 0 && !r.adjacent {
		// NumPy: integer and array indices (advanced indices) separated
		// by a slice put their result axes first. The indexed axes move to
		// the front, in order, before the selection.
		y, at = y.MoveAxis(axesFrom(at, r.arrAxes), axesFrom(0, r.arrAxes)), 0
	}
	if !r.isMask {
		return New(ops.Take{Axis: at}, y, r.arr)
	}
	return New(ops.BooleanMask{Axis: at}, y, r.arr)
}

// resolved is an index normalised against a shape: the basic items (a
// whole slice standing for each axis an array index covers), and the
// array index, if any.
type resolved struct {
	items    []ops.IndexItem
	arr      *Tensor // a boolean mask or an integer array, or nil
	isMask   bool
	arrAt    int  // the axis of the basic selection's result where the array's axes are
	arrAxes  int  // the axes the array covers (the mask's dimensions, or 1)
	adjacent bool // integer and array indices are next to each other
	// Several integer arrays (arr is nil then): NumPy broadcasts them
	// together, and each picks along its own axis, arrPos in the basic
	// selection's result.
	arrs   []*Tensor
	arrPos []int
	arrX   []int // the axes of the indexed tensor the arrays index
}

func (t *Tensor) resolve(idx []Idx) (resolved, error) {
	var r resolved
	shape := t.meta.Shape
	nd := len(shape)
	consumed, ellipsis, masks, bools := 0, -1, 0, 0
	for i, x := range idx {
		if x.bad != "" {
			return r, fmt.Errorf("index: %s", x.bad)
		}
		switch x.kind {
		case idxSlice, idxAt:
			consumed++
		case idxMask, idxArray:
			if x.mask == nil {
				return r, fmt.Errorf("index: nil array index")
			}
			if x.mask.err != nil {
				return r, x.mask.err
			}
			masks++
			if x.kind == idxMask {
				bools++
				consumed += x.mask.NDim()
			} else {
				consumed++
			}
		case idxEllipsis:
			if ellipsis >= 0 {
				return r, fmt.Errorf("index: an index can only have a single ellipsis (...)")
			}
			ellipsis = i
		}
	}
	if masks > 1 && bools > 0 {
		return r, fmt.Errorf("index: a boolean mask combined with other array indices is not supported; index with the mask's Nonzero() arrays, executed, instead")
	}
	if consumed > nd {
		return r, fmt.Errorf("index: too many indices for tensor: tensor is %d-dimensional, but %d were indexed", nd, consumed)
	}
	items := make([]ops.IndexItem, 0, len(idx)+nd-consumed)
	whole := func(ax int) ops.IndexItem {
		return ops.IndexItem{Kind: ops.IndexSlice, Range: ndarray.Range{Start: 0, Step: 1, Len: shape[ax]}}
	}
	ax := 0
	for _, x := range idx {
		switch x.kind {
		case idxMask, idxArray:
			pos := 0
			for _, it := range items {
				if it.Kind != ops.IndexInt {
					pos++
				}
			}
			if masks > 1 {
				r.arrs, r.arrPos, r.arrX = append(r.arrs, x.mask), append(r.arrPos, pos), append(r.arrX, ax)
				items = append(items, whole(ax))
				ax++
				continue
			}
			r.arr, r.arrAt, r.isMask = x.mask, pos, x.kind == idxMask
			r.arrAxes = 1
			if r.isMask {
				r.arrAxes = x.mask.NDim()
			}
			for range r.arrAxes {
				items = append(items, whole(ax))
				ax++
			}
		case idxNewAxis:
			items = append(items, ops.IndexItem{Kind: ops.IndexNewAxis})
		case idxEllipsis:
			for range nd - consumed {
				items = append(items, whole(ax))
				ax++
			}
		case idxAt:
			n := shape[ax]
			i := x.start
			if i < -n || i >= n {
				return r, fmt.Errorf("index: index %d is out of bounds for axis %d with size %d", i, ax, n)
			}
			if i < 0 {
				i += n
			}
			items = append(items, ops.IndexItem{Kind: ops.IndexInt, Index: i})
			ax++
		case idxSlice:
			step := x.step
			if step == 0 {
				step = 1
			}
			rg, err := ndarray.SliceRange(shape[ax], x.start, x.stop, step, x.hasStart, x.hasStop)
			if err != nil {
				return r, fmt.Errorf("index: axis %d: %w", ax, err)
			}
			items = append(items, ops.IndexItem{Kind: ops.IndexSlice, Range: rg})
			ax++
		}
	}
	for ; ax < nd; ax++ {
		items = append(items, whole(ax))
	}
	r.items = items
	r.adjacent = (r.arr == nil && r.arrs == nil) || advancedAdjacent(idx, nd-consumed)
	return r, nil
}

// advancedAdjacent reports whether the integer and boolean indices of idx
// are next to each other, with no slice, new axis or non-empty ellipsis
// (filling fill axes) between them.
func advancedAdjacent(idx []Idx, fill int) bool {
	first, last := -1, -1
	for i, x := range idx {
		if x.kind == idxAt || x.kind == idxMask || x.kind == idxArray {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if last <= first {
		return true
	}
	for _, x := range idx[first+1 : last] {
		switch x.kind {
		case idxSlice, idxNewAxis:
			return false
		case idxEllipsis:
			if fill > 0 {
				return false
			}
		}
	}
	return true
}

// takeMany is y[..., i0, ..., i1, ...] for several integer arrays over the
// axes r.arrPos of y (the basic selection, those axes whole): the arrays,
// broadcast together, become one flat index into those axes merged (moved
// to the front and reshaped into one), and one Take picks the rows.
func (y *Tensor) takeMany(r resolved) *Tensor {
	flat, b, err := flatIndex("index", r.arrs, r.arrPos, r.arrX, y.meta.Shape)
	if err != nil {
		return errTensor(err)
	}
	k := len(r.arrs)
	z := y.MoveAxis(r.arrPos, axesFrom(0, k))
	zs := z.Shape()
	z = z.Reshape(append([]int{ndarray.Size(zs[:k])}, zs[k:]...)...)
	out := Take(z, flat, 0)
	if r.adjacent && r.arrPos[0] > 0 {
		out = out.MoveAxis(axesFrom(0, len(b)), axesFrom(r.arrPos[0], len(b)))
	}
	return out
}

// flatIndex broadcasts integer index arrays, each along axis pos[i] of a
// tensor of shape (axis named[i] in error messages), to their common shape b and combines them into flat
// positions in those axes merged in order (C order). An index out of range
// fails Execute with NumPy's IndexError message; negative ones count from
// the end.
func flatIndex(op string, arrs []*Tensor, pos, named []int, shape []int) (*Tensor, []int, error) {
	shapes := make([][]int, len(arrs))
	for i, a := range arrs {
		if u := a.needKnown(op); u != nil {
			return nil, nil, u.err
		}
		if !a.meta.DType.IsInt() {
			return nil, nil, fmt.Errorf("%s: arrays used as indices must be of integer (or boolean) type, got %v", op, a.meta.DType)
		}
		shapes[i] = a.meta.Shape
	}
	b, err := ndarray.BroadcastShapes(shapes...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: shape mismatch: indexing arrays could not be broadcast together with shapes %v", op, shapes)
	}
	var flat *Tensor
	for i, a := range arrs {
		n := shape[pos[i]]
		a = a.Astype(ndarray.Int64)
		inRange := a.GreaterEqual(-n).And(a.Less(n)).All()
		a = New(ops.Check{Msg: fmt.Sprintf("%s: an index is out of bounds for axis %d with size %d", op, named[i], n)}, inRange, a)
		a = Where(a.Less(0), a.Add(n), a)
		if flat == nil {
			flat = a
		} else {
			flat = flat.Mul(n).Add(a)
		}
	}
	if !slices.Equal(flat.Shape(), b) {
		flat = flat.BroadcastTo(b...)
	}
	return flat, b, flat.err
}
