package calls

import (
	"encoding/json"
	"errors"
	"fmt"

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
		"tril":         {[]string{"m", "k"}, triangle((*tensor.Tensor).Tril), 1},
		"triu":         {[]string{"m", "k"}, triangle((*tensor.Tensor).Triu), 1},
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

// optAxis is the "axis" argument as Go's optional axis: none for null
// (NumPy: work on the flattened array).
func optAxis(a *args) ([]int, error) {
	if !a.has("axis") {
		return nil, nil
	}
	ax, err := a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	return []int{ax}, nil
}

// indexKind makes an out-of-bounds position NumPy's IndexError.
func indexKind(t *tensor.Tensor) (*tensor.Tensor, error) {
	if ie, ok := errors.AsType[*tensor.IndexError](t.Err()); ok {
		return nil, &Error{Kind: "IndexError", Err: ie}
	}
	return t, nil
}

func roll(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	shifts, _, err := a.ints("shift")
	if err != nil {
		return nil, err
	}
	axes, ok, err := a.ints("axis")
	if err != nil {
		return nil, err
	}
	if !ok {
		axes = nil // the flattened tensor
	}
	return t.RollAxes(shifts, axes), nil
}

func repeat(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	reps, _, err := a.ints("repeats")
	if err != nil {
		return nil, err
	}
	axis, err := optAxis(a)
	if err != nil {
		return nil, err
	}
	return t.RepeatEach(reps, axis...), nil
}

func tile(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("A")
	if err != nil {
		return nil, err
	}
	reps, _, err := a.ints("reps")
	if err != nil {
		return nil, err
	}
	return t.Tile(reps...), nil
}

func swapaxes(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	i, err := a.int("axis1", 0)
	if err != nil {
		return nil, err
	}
	j, err := a.int("axis2", 0)
	if err != nil {
		return nil, err
	}
	return t.SwapAxes(i, j), nil
}

func moveaxis(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	src, _, err := a.ints("source")
	if err != nil {
		return nil, err
	}
	dst, _, err := a.ints("destination")
	if err != nil {
		return nil, err
	}
	return t.MoveAxis(src, dst), nil
}

func rollaxis(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	ax, err := a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	start, err := a.int("start", 0)
	if err != nil {
		return nil, err
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

// optTensor is an optional tensor argument (nil when absent or null).
func optTensor(a *args, name string) (*tensor.Tensor, error) {
	if !a.has(name) {
		return nil, nil
	}
	return a.tensor(name)
}

func diff(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	n, err := a.int("n", 1)
	if err != nil {
		return nil, err
	}
	axis, err := a.int("axis", -1)
	if err != nil {
		return nil, err
	}
	pre, err := optTensor(a, "prepend")
	if err != nil {
		return nil, err
	}
	app, err := optTensor(a, "append")
	if err != nil {
		return nil, err
	}
	return t.Diff(n, axis, pre, app), nil
}

func ediff1d(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("ary")
	if err != nil {
		return nil, err
	}
	end, err := optTensor(a, "to_end")
	if err != nil {
		return nil, err
	}
	begin, err := optTensor(a, "to_begin")
	if err != nil {
		return nil, err
	}
	return t.Ediff1d(end, begin), nil
}

func trapz(a *args) (*tensor.Tensor, error) {
	y, err := a.tensor("y")
	if err != nil {
		return nil, err
	}
	x, err := optTensor(a, "x")
	if err != nil {
		return nil, err
	}
	dx, err := a.float("dx", 1)
	if err != nil {
		return nil, err
	}
	axis, err := a.int("axis", -1)
	if err != nil {
		return nil, err
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

func pad(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("array")
	if err != nil {
		return nil, err
	}
	width, err := pairs[int](a, "pad_width")
	if err != nil {
		return nil, err
	}
	mode := "constant"
	if a.has("mode") {
		if err := jsonString(a, "mode", &mode); err != nil {
			return nil, err
		}
	}
	var constant [][2]float64
	if a.has("constant_values") {
		if constant, err = pairs[float64](a, "constant_values"); err != nil {
			return nil, err
		}
	}
	switch tensor.PadMode(mode) {
	case tensor.PadConstant, tensor.PadEdge, tensor.PadReflect, tensor.PadSymmetric, tensor.PadWrap:
	default:
		return nil, &Error{Kind: "ValueError", Err: fmt.Errorf("mode '%s' is not supported (constant, edge, reflect, symmetric, wrap)", mode)}
	}
	return t.Pad(width, tensor.PadMode(mode), constant), nil
}

func triangle(f func(*tensor.Tensor, int) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("m")
		if err != nil {
			return nil, err
		}
		k, err := a.int("k", 0)
		if err != nil {
			return nil, err
		}
		return f(t, k), nil
	}
}

func diagonalOf(name string, f func(*tensor.Tensor, int) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor(name)
		if err != nil {
			return nil, err
		}
		k, err := a.int("k", 0)
		if err != nil {
			return nil, err
		}
		return f(t, k), nil
	}
}

// diagonal is np.diagonal, or np.trace (the diagonal summed, in dtype when
// given).
func diagonal(sum bool) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		var v [3]int
		for i, p := range []struct {
			name string
			def  int
		}{{"offset", 0}, {"axis1", 0}, {"axis2", 1}} {
			if v[i], err = a.int(p.name, p.def); err != nil {
				return nil, err
			}
		}
		if !sum {
			return t.Diagonal(v[0], v[1], v[2]), nil
		}
		dt, ok, err := a.dtype("dtype")
		if err != nil {
			return nil, err
		}
		if ok {
			// NumPy sums in dtype.
			return t.Astype(dt).Trace(v[0], v[1], v[2]).Astype(dt), nil
		}
		return t.Trace(v[0], v[1], v[2]), nil
	}
}

func meshgrid(a *args) (*tensor.Tensor, error) {
	xs, err := a.tensors("xi")
	if err != nil {
		return nil, err
	}
	indexing := "xy"
	if a.has("indexing") {
		if err := jsonString(a, "indexing", &indexing); err != nil {
			return nil, err
		}
	}
	sparse, err := a.bool("sparse")
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, valueErr("meshgrid of no arrays has no results")
	}
	return pick(a, tensor.Meshgrid(indexing, sparse, xs...)...)
}

func indices(a *args) (*tensor.Tensor, error) {
	dims, err := a.shape("dimensions")
	if err != nil {
		return nil, err
	}
	opts, err := a.opts(ndarray.Int64)
	if err != nil {
		return nil, err
	}
	sparse, err := a.bool("sparse")
	if err != nil {
		return nil, err
	}
	if sparse {
		return pick(a, tensor.IndicesSparse(dims, opts...)...)
	}
	return pick(a, tensor.Indices(dims, opts...))
}

func appendValues(a *args) (*tensor.Tensor, error) {
	ts, err := a.tensorArgs("arr", "values")
	if err != nil {
		return nil, err
	}
	axis, err := optAxis(a)
	if err != nil {
		return nil, err
	}
	return tensor.Append(ts[0], ts[1], axis...), nil
}

// positionsArg reads insert's and delete's obj: an integer, a list of
// them, or {"slice": [start, stop, step]} (nulls where Python has None).
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
		x := tensor.All()
		if sl.Slice[0] != nil {
			x = x.From(*sl.Slice[0])
		}
		if sl.Slice[1] != nil {
			x = x.To(*sl.Slice[1])
		}
		if sl.Slice[2] != nil {
			if *sl.Slice[2] == 0 {
				return nil, valueErr("slice step cannot be zero")
			}
			x = x.Step(*sl.Slice[2])
		}
		return x, nil
	}
	return nil, &Error{Kind: "IndexError", Err: fmt.Errorf("obj: want an integer, a list of integers or a slice, got %s", raw)}
}

func insert(a *args) (*tensor.Tensor, error) {
	ts, err := a.tensorArgs("arr", "values")
	if err != nil {
		return nil, err
	}
	obj, err := positionsArg(a)
	if err != nil {
		return nil, err
	}
	axis, err := optAxis(a)
	if err != nil {
		return nil, err
	}
	return indexKind(ts[0].Insert(obj, ts[1], axis...))
}

func deleteAt(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("arr")
	if err != nil {
		return nil, err
	}
	obj, err := positionsArg(a)
	if err != nil {
		return nil, err
	}
	axis, err := optAxis(a)
	if err != nil {
		return nil, err
	}
	return indexKind(t.Delete(obj, axis...))
}

func arraySplit(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("ary")
	if err != nil {
		return nil, err
	}
	axis, err := a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	raw := a.vals["indices_or_sections"]
	var sections int
	if json.Unmarshal(raw, &sections) == nil {
		if sections <= 0 {
			return nil, valueErr("number sections must be larger than 0.")
		}
		return pick(a, t.ArraySplit(sections, axis)...)
	}
	idx, _, err := a.ints("indices_or_sections")
	if err != nil {
		return nil, err
	}
	return pick(a, t.SplitAt(axis, idx...)...)
}

func rot90(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("m")
	if err != nil {
		return nil, err
	}
	k, err := a.int("k", 1)
	if err != nil {
		return nil, err
	}
	axes := [2]int{0, 1}
	if a.has("axes") {
		v, _, err := a.ints("axes")
		if err != nil {
			return nil, err
		}
		if len(v) != 2 {
			return nil, valueErr("len(axes) must be 2.")
		}
		axes = [2]int{v[0], v[1]}
	}
	return t.Rot90(k, axes), nil
}
