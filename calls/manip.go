package calls

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// NumPy's array manipulation functions (tensor/manip.go), by NumPy's names
// and parameter names; functions of several results take "out".
func init() {
	for name, f := range map[string]function{
		"roll":         {[]string{"a", "shift", "axis"}, roll, 2},
		"repeat":       {[]string{"a", "repeats", "axis"}, repeat, 2},
		"tile":         {[]string{"A", "reps"}, tile, 2},
		"swapaxes":     {[]string{"a", "axis1", "axis2"}, swapaxes, 3},
		"moveaxis":     {[]string{"a", "source", "destination"}, moveaxis, 3},
		"rollaxis":     {[]string{"a", "axis", "start"}, rollaxis, 2},
		"hstack":       {[]string{"tup"}, joined(tensor.HStack), 1},
		"vstack":       {[]string{"tup"}, joined(tensor.VStack), 1},
		"dstack":       {[]string{"tup"}, joined(tensor.DStack), 1},
		"column_stack": {[]string{"tup"}, joined(tensor.ColumnStack), 1},
		"atleast_1d":   {[]string{"ary"}, oneArray("ary", tensor.AtLeast1D), 1},
		"atleast_2d":   {[]string{"ary"}, oneArray("ary", tensor.AtLeast2D), 1},
		"atleast_3d":   {[]string{"ary"}, oneArray("ary", tensor.AtLeast3D), 1},
		"diff":         {[]string{"a", "n", "axis", "prepend", "append"}, diff, 1},
		"ediff1d":      {[]string{"ary", "to_end", "to_begin"}, ediff1d, 1},
		"trapz":        {[]string{"y", "x", "dx", "axis"}, trapz, 1},
		"pad":          {[]string{"array", "pad_width", "mode", "constant_values"}, pad, 2},
		"tril":         {[]string{"m", "k"}, diagonalOf("m", (*tensor.Tensor).Tril), 1},
		"triu":         {[]string{"m", "k"}, diagonalOf("m", (*tensor.Tensor).Triu), 1},
		"diag":         {[]string{"v", "k"}, diagonalOf("v", (*tensor.Tensor).Diag), 1},
		"diagflat":     {[]string{"v", "k"}, diagonalOf("v", (*tensor.Tensor).Diagflat), 1},
		"diagonal":     {[]string{"a", "offset", "axis1", "axis2"}, diagonal(false), 1},
		"trace":        {[]string{"a", "offset", "axis1", "axis2", "dtype"}, diagonal(true), 1},
		"meshgrid":     {[]string{"xi", "indexing", "sparse", "out"}, meshgrid, 1},
		"indices":      {[]string{"dimensions", "dtype", "sparse", "out"}, indices, 1},
		"append":       {[]string{"arr", "values", "axis"}, appendValues, 2},
		"insert":       {[]string{"arr", "obj", "values", "axis"}, insert, 3},
		"delete":       {[]string{"arr", "obj", "axis"}, deleteAt, 2},
		"array_split":  {[]string{"ary", "indices_or_sections", "axis", "out"}, arraySplit, 2},
		"rot90":        {[]string{"m", "k", "axes"}, rot90, 1},
	} {
		table[name] = f
	}
}

// indexKind makes an out-of-bounds position NumPy's IndexError.
func indexKind(t *tensor.Tensor) (*tensor.Tensor, error) {
	if ie, ok := errors.AsType[*tensor.IndexError](t.Err()); ok {
		return nil, &Error{Kind: "IndexError", Err: ie}
	}
	return t, nil
}

func roll(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, shifts := p.tensor("a"), p.intList("shift")
	axes, ok := p.ints("axis")
	if p.err != nil {
		return nil, p.err
	}
	if !ok {
		axes = nil // the flattened tensor
	}
	return t.RollAxes(shifts, axes), nil
}

func repeat(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, reps, axis := p.tensor("a"), p.intList("repeats"), p.optAxis()
	if p.err != nil {
		return nil, p.err
	}
	return t.RepeatEach(reps, axis...), nil
}

func tile(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, reps := p.tensor("A"), p.intList("reps")
	if p.err != nil {
		return nil, p.err
	}
	return t.Tile(reps...), nil
}

func swapaxes(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, i, j := p.tensor("a"), p.int("axis1", 0), p.int("axis2", 0)
	if p.err != nil {
		return nil, p.err
	}
	return t.SwapAxes(i, j), nil
}

func moveaxis(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, src, dst := p.tensor("a"), p.intList("source"), p.intList("destination")
	if p.err != nil {
		return nil, p.err
	}
	return t.MoveAxis(src, dst), nil
}

func rollaxis(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, ax, start := p.tensor("a"), p.int("axis", 0), p.int("start", 0)
	if p.err != nil {
		return nil, p.err
	}
	return t.RollAxis(ax, start), nil
}

func joined(f func(...*tensor.Tensor) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		ts, err := a.tensors("tup")
		if err != nil {
			return nil, err
		}
		if len(ts) == 0 {
			return nil, valueErr("need at least one array to concatenate")
		}
		return f(ts...), nil
	}
}

func oneArray(name string, f func(*tensor.Tensor) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor(name)
		if err != nil {
			return nil, err
		}
		return f(t), nil
	}
}

func diff(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, n, axis := p.tensor("a"), p.int("n", 1), p.int("axis", -1)
	pre, app := p.optTensor("prepend"), p.optTensor("append")
	if p.err != nil {
		return nil, p.err
	}
	return t.Diff(n, axis, pre, app), nil
}

func ediff1d(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, end, begin := p.tensor("ary"), p.optTensor("to_end"), p.optTensor("to_begin")
	if p.err != nil {
		return nil, p.err
	}
	return t.Ediff1d(end, begin), nil
}

func trapz(a *args) (*tensor.Tensor, error) {
	p := a.params()
	y, x, dx, axis := p.tensor("y"), p.optTensor("x"), p.float("dx", 1), p.int("axis", -1)
	if p.err != nil {
		return nil, p.err
	}
	return tensor.Trapz(y, x, dx, axis), nil
}

// pairs reads np.pad's pad_width or constant_values: a number, a pair or a
// list of pairs (one per axis).
func pairs[T int | float64](a *args, name string) ([][2]T, error) {
	raw := a.vals[name]
	var one T
	if json.Unmarshal(raw, &one) == nil {
		return [][2]T{{one, one}}, nil
	}
	var single []T
	if json.Unmarshal(raw, &single) == nil {
		switch len(single) {
		case 1:
			return [][2]T{{single[0], single[0]}}, nil
		case 2:
			return [][2]T{{single[0], single[1]}}, nil
		}
		return nil, valueErr("%s %s: want a number, a pair or one pair per axis", name, raw)
	}
	var many [][]T
	if err := json.Unmarshal(raw, &many); err != nil || len(many) > maxRank {
		return nil, typeErr(name, fmt.Errorf("want a number, a pair or one pair per axis, got %s", raw))
	}
	out := make([][2]T, len(many))
	for i, p := range many {
		switch len(p) {
		case 1:
			out[i] = [2]T{p[0], p[0]}
		case 2:
			out[i] = [2]T{p[0], p[1]}
		default:
			return nil, valueErr("%s %s: entry %d is not a pair", name, raw, i)
		}
	}
	return out, nil
}

// constantPairs reads np.pad's constant_values as pairs does, where a
// number may also be "nan", "inf" or "-inf" (the graph JSON's spelling of
// values JSON has no number for: xarray pads with NaN) or a bool (xarray
// pads a mask with false).
func constantPairs(a *args, name string) ([][2]float64, error) {
	raw := a.vals[name]
	if !bytes.ContainsAny(raw, `"tf`) {
		return pairs[float64](a, name)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, typeErr(name, err)
	}
	num := func(x any) (float64, bool) {
		switch x := x.(type) {
		case float64:
			return x, true
		case bool:
			if x {
				return 1, true
			}
			return 0, true
		case string:
			switch x {
			case "nan", "NaN":
				return math.NaN(), true
			case "inf", "Infinity":
				return math.Inf(1), true
			case "-inf", "-Infinity":
				return math.Inf(-1), true
			}
		}
		return 0, false
	}
	pair := func(x any) ([2]float64, bool) {
		if f, ok := num(x); ok {
			return [2]float64{f, f}, true
		}
		l, ok := x.([]any)
		if !ok || len(l) == 0 || len(l) > 2 {
			return [2]float64{}, false
		}
		lo, ok1 := num(l[0])
		hi, ok2 := num(l[len(l)-1])
		return [2]float64{lo, hi}, ok1 && ok2
	}
	if p, ok := pair(v); ok {
		return [][2]float64{p}, nil
	}
	many, ok := v.([]any)
	if !ok || len(many) > maxRank {
		return nil, typeErr(name, fmt.Errorf("want a number, a pair or one pair per axis, got %s", raw))
	}
	out := make([][2]float64, len(many))
	for i, x := range many {
		p, ok := pair(x)
		if !ok {
			return nil, valueErr("%s %s: entry %d is not a number or a pair", name, raw, i)
		}
		out[i] = p
	}
	return out, nil
}

func pad(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("array")
	if err != nil {
		return nil, err
	}
	width, err := pairs[int](a, "pad_width")
	if err != nil {
		return nil, err
	}
	p := a.params()
	mode := "constant"
	p.str("mode", &mode)
	var constant [][2]float64
	if a.has("constant_values") {
		constant, err = constantPairs(a, "constant_values")
		p.keep(err)
	}
	if p.err != nil {
		return nil, p.err
	}
	switch tensor.PadMode(mode) {
	case tensor.PadConstant, tensor.PadEdge, tensor.PadReflect, tensor.PadSymmetric, tensor.PadWrap:
	default:
		return nil, &Error{Kind: "ValueError", Err: fmt.Errorf("mode '%s' is not supported (constant, edge, reflect, symmetric, wrap)", mode)}
	}
	return t.Pad(width, tensor.PadMode(mode), constant), nil
}

// diagonalOf is a function of a tensor and a diagonal k (tril, triu, diag,
// diagflat).
func diagonalOf(name string, f func(*tensor.Tensor, int) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		t, k := p.tensor(name), p.int("k", 0)
		if p.err != nil {
			return nil, p.err
		}
		return f(t, k), nil
	}
}

// diagonal is np.diagonal, or np.trace (the diagonal summed, in dtype when
// given).
func diagonal(sum bool) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		p := a.params()
		t, offset, ax1, ax2 := p.tensor("a"), p.int("offset", 0), p.int("axis1", 0), p.int("axis2", 1)
		var dt ndarray.DType
		var ok bool
		if sum {
			dt, ok = p.dtype("dtype")
		}
		switch {
		case p.err != nil:
			return nil, p.err
		case !sum:
			return t.Diagonal(offset, ax1, ax2), nil
		case ok:
			// NumPy sums in dtype.
			return t.Astype(dt).Trace(offset, ax1, ax2).Astype(dt), nil
		}
		return t.Trace(offset, ax1, ax2), nil
	}
}

func meshgrid(a *args) (*tensor.Tensor, error) {
	p := a.params()
	xs := p.tensors("xi")
	indexing := "xy"
	p.str("indexing", &indexing)
	sparse := p.bool("sparse")
	if p.err != nil {
		return nil, p.err
	}
	if len(xs) == 0 {
		return nil, valueErr("meshgrid of no arrays has no results")
	}
	return pick(a, tensor.Meshgrid(indexing, sparse, xs...)...)
}

func indices(a *args) (*tensor.Tensor, error) {
	p := a.params()
	dims, opts, sparse := p.shape("dimensions"), p.opts(ndarray.Int64), p.bool("sparse")
	switch {
	case p.err != nil:
		return nil, p.err
	case sparse:
		return pick(a, tensor.IndicesSparse(dims, opts...)...)
	}
	return pick(a, tensor.Indices(dims, opts...))
}

func appendValues(a *args) (*tensor.Tensor, error) {
	p := a.params()
	ts, axis := p.tensorArgs("arr", "values"), p.optAxis()
	if p.err != nil {
		return nil, p.err
	}
	return tensor.Append(ts[0], ts[1], axis...), nil
}

// positions reads insert's and delete's obj: an integer, a list of them,
// or {"slice": [start, stop, step]} (nulls where Python has None).
func (p *params) positions() any {
	x, err := positionsArg(p.a)
	p.keep(err)
	return x
}

func positionsArg(a *args) (any, error) {
	raw := a.vals["obj"]
	var i int
	if json.Unmarshal(raw, &i) == nil {
		return i, nil
	}
	var list []int
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var sl struct {
		Slice []*int `json:"slice"`
	}
	if json.Unmarshal(raw, &sl) == nil && len(sl.Slice) == 3 {
		x, err := sliceIdx(sl.Slice)
		if err != nil {
			return nil, err
		}
		return x, nil
	}
	return nil, &Error{Kind: "IndexError", Err: fmt.Errorf("obj: want an integer, a list of integers or a slice, got %s", raw)}
}

func insert(a *args) (*tensor.Tensor, error) {
	p := a.params()
	ts := p.tensorArgs("arr", "values")
	obj := p.positions()
	axis := p.optAxis()
	if p.err != nil {
		return nil, p.err
	}
	return indexKind(ts[0].Insert(obj, ts[1], axis...))
}

func deleteAt(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, obj, axis := p.tensor("arr"), p.positions(), p.optAxis()
	if p.err != nil {
		return nil, p.err
	}
	return indexKind(t.Delete(obj, axis...))
}

func arraySplit(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, axis := p.tensor("ary"), p.int("axis", 0)
	if p.err != nil {
		return nil, p.err
	}
	var sections int
	if json.Unmarshal(a.vals["indices_or_sections"], &sections) == nil {
		if sections <= 0 {
			return nil, valueErr("number sections must be larger than 0.")
		}
		return pick(a, t.ArraySplit(sections, axis)...)
	}
	idx := p.intList("indices_or_sections")
	if p.err != nil {
		return nil, p.err
	}
	return pick(a, t.SplitAt(axis, idx...)...)
}

func rot90(a *args) (*tensor.Tensor, error) {
	p := a.params()
	t, k := p.tensor("m"), p.int("k", 1)
	axes := []int{0, 1}
	if a.has("axes") {
		axes = p.intList("axes")
	}
	if p.err != nil {
		return nil, p.err
	}
	if len(axes) != 2 {
		return nil, valueErr("len(axes) must be 2.")
	}
	return t.Rot90(k, [2]int{axes[0], axes[1]}), nil
}
