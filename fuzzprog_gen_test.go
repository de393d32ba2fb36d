package phobos_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/calls"
	"github.com/phobos-tensor/phobos/ndarray"
)

// Random programs over the function registry (package calls): the
// generator half of the random-program differential test (fuzzprog_test.go).
// Every registered function is a candidate; its arguments come from its
// parameter names (x, axis, keepdims, q, ...), so a function registered
// with NumPy's parameter names is fuzzed without a line here. Functions
// with no NumPy 1.24 counterpart, or whose required parameters have no
// generator, are listed in fzExcluded with the reason.

// fzExcluded are the registry functions the fuzzer leaves out, and why.
var fzExcluded = map[string]string{
	"from_npy": "reads files", "from_zarr": "reads files", "to_npy": "writes files", "to_zarr": "writes files",
	"random":                  "Phobos's counter-based generator has no NumPy counterpart",
	"rechunk":                 "only moves chunk boundaries (every program is run under random chunkings)",
	"topk":                    "not a NumPy function",
	"empty":                   "values unspecified",
	"linalg.diagonal":         "Array API, not in NumPy 1.24",
	"linalg.trace":            "Array API, not in NumPy 1.24",
	"linalg.svdvals":          "Array API, not in NumPy 1.24",
	"linalg.lu":               "SciPy's, not NumPy's",
	"linalg.solve_triangular": "SciPy's, not NumPy's",
	"linalg.randomized_svd":   "scikit-learn's, random",
	"linalg.eigh":             "eigenvectors are defined up to sign",
	"linalg.svd":              "singular vectors are defined up to sign",
	"linalg.qr":               "Q and R are defined up to signs",
	"linalg.lstsq":            "a tuple of four, checked by the linalg suite",
	"histogram_bin_count":     "a Phobos helper of histogram",
	"fft.fftfreq":             "takes no array (fuzzed by the fft suite)",
	"fft.rfftfreq":            "takes no array (fuzzed by the fft suite)",
	"choose":                  "its choices are a list of index-shaped arrays",
	"einsum":                  "subscripts need a grammar of their own",
	"meshgrid":                "a list of results",
	"indices":                 "takes no array",
	"array_split":             "a list of results",
	"argpartition":            "the order inside each part is unspecified",
	"partition":               "the order inside each part is unspecified",
}

// fzSelectOut are functions NumPy answers with a tuple and Phobos with
// the element its "out" argument selects: how many elements there are.
var fzSelectOut = map[string]int{"frexp": 2, "modf": 2, "linalg.slogdet": 2, "histogram": 2, "nonzero": 1}

// fzFamily is the family a function's counts are printed under.
func fzFamily(fn string) string {
	switch {
	case slices.Contains(ndarray.UnaryOpNames(), fn), slices.Contains(ndarray.BinaryOpNames(), fn),
		slices.Contains([]string{"frexp", "modf", "real", "imag", "conj", "angle", "clip", "where", "astype", "isclose", "allclose", "array_equal", "array_equiv"}, fn):
		return "ufuncs"
	case strings.HasPrefix(fn, "nan") && fn != "nan_to_num":
		return "nan-reductions"
	case slices.Contains([]string{"sum", "prod", "mean", "min", "max", "any", "all", "count_nonzero", "argmin", "argmax", "var", "std", "ptp", "cumsum", "cumprod"}, fn):
		return "reductions"
	case slices.Contains([]string{"median", "average", "cov", "corrcoef", "histogram", "histogram_bin_edges", "bincount", "digitize", "percentile", "quantile", "trapz", "diff", "ediff1d"}, fn):
		return "statistics"
	case slices.Contains([]string{"sort", "argsort", "searchsorted", "partition", "argpartition"}, fn):
		return "sorting"
	case slices.Contains([]string{"unique", "union1d", "intersect1d", "setdiff1d", "setxor1d", "isin"}, fn):
		return "sets"
	case slices.Contains([]string{"getitem", "setitem", "take", "put", "place", "putmask", "compress", "extract", "nonzero", "argwhere", "flatnonzero", "fill_diagonal", "diagonal", "diag", "diagflat", "tril", "triu", "delete", "insert"}, fn):
		return "indexing"
	case strings.HasPrefix(fn, "linalg.") || slices.Contains([]string{"matmul", "dot", "vdot", "inner", "outer", "tensordot", "trace", "einsum"}, fn):
		return "linalg"
	case strings.HasPrefix(fn, "fft."):
		return "fft"
	case slices.Contains([]string{"zeros", "ones", "full", "arange", "linspace", "eye"}, fn):
		return "creation"
	}
	return "shapes"
}

// fzArg is one argument: a reference to an earlier value, a literal (its
// JSON for Phobos and its Python spelling for NumPy), or a sequence of
// arguments (an index tuple, a list of arrays).
type fzArg struct {
	Leaf  *int            `json:"leaf,omitempty"`
	Call  *int            `json:"call,omitempty"`
	JSON  json.RawMessage `json:"json,omitempty"`
	Py    string          `json:"py,omitempty"`
	Seq   []fzArg         `json:"seq,omitempty"`
	Tuple bool            `json:"tuple,omitempty"` // Seq is a Python tuple (an index), else a list
}

// fzCall is one call of a registry function.
type fzCall struct {
	Fn     string           `json:"fn"`
	Args   []fzArg          `json:"args,omitempty"`
	Kwargs map[string]fzArg `json:"kwargs,omitempty"`
	// Out selects an element of NumPy's tuple (fzSelectOut), or -1.
	Out int `json:"out"`
}

// fzLeaf is an input array with its chunking.
type fzLeaf struct {
	DType  string          `json:"dtype"`
	Shape  []int           `json:"shape"`
	Data   string          `json:"data"` // base64 of the C-order bytes
	Chunks json.RawMessage `json:"chunks,omitempty"`
}

// fzProg is a program: leaves are values 0..L-1, call i is value L+i, and
// the last call is the result.
type fzProg struct {
	Leaves []fzLeaf `json:"leaves"`
	Calls  []fzCall `json:"calls"`
}

func (l fzLeaf) array() (*ndarray.Array, error) {
	dt, err := ndarray.ParseDType(l.DType)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(l.Data)
	if err != nil {
		return nil, err
	}
	return ndarray.FromBytes(dt, l.Shape, b)
}

func fzLeafOf(a *ndarray.Array, chunks json.RawMessage) fzLeaf {
	return fzLeaf{DType: a.DType().String(), Shape: slices.Clone(a.Shape()), Data: base64.StdEncoding.EncodeToString(a.Contiguous().Bytes()), Chunks: chunks}
}

func (a fzArg) json(leaves int) json.RawMessage {
	switch {
	case a.Leaf != nil:
		return json.RawMessage(fmt.Sprintf(`{"ref":%d}`, *a.Leaf))
	case a.Call != nil:
		return json.RawMessage(fmt.Sprintf(`{"ref":%d}`, leaves+*a.Call))
	case a.Seq != nil || a.Tuple:
		parts := make([]string, len(a.Seq))
		for i, s := range a.Seq {
			parts[i] = string(s.json(leaves))
		}
		return json.RawMessage("[" + strings.Join(parts, ",") + "]")
	}
	return a.JSON
}

func (a fzArg) py() string {
	switch {
	case a.Leaf != nil:
		return fmt.Sprintf("l%d", *a.Leaf)
	case a.Call != nil:
		return fmt.Sprintf("c%d", *a.Call)
	case a.Seq != nil || a.Tuple:
		parts := make([]string, len(a.Seq))
		for i, s := range a.Seq {
			parts[i] = s.py()
		}
		if a.Tuple {
			if len(parts) == 0 {
				return "()"
			}
			return "(" + strings.Join(parts, ", ") + ",)"
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return a.Py
}

// program is the calls.Program of p: leaves as inline .npy data.
func (p fzProg) program() (calls.Program, error) {
	var prog calls.Program
	for _, l := range p.Leaves {
		a, err := l.array()
		if err != nil {
			return prog, err
		}
		prog.Nodes = append(prog.Nodes, calls.Node{Data: npyData64(a), Chunks: l.Chunks})
	}
	for _, c := range p.Calls {
		n := calls.Node{Fn: c.Fn}
		for _, a := range c.Args {
			n.Args = append(n.Args, a.json(len(p.Leaves)))
		}
		if len(c.Kwargs) > 0 || c.Out >= 0 {
			n.Kwargs = map[string]json.RawMessage{}
			for k, a := range c.Kwargs {
				n.Kwargs[k] = a.json(len(p.Leaves))
			}
			if c.Out >= 0 {
				n.Kwargs["out"] = json.RawMessage(strconv.Itoa(c.Out))
			}
		}
		prog.Nodes = append(prog.Nodes, n)
	}
	return prog, nil
}

// pyCall is call c in Python, over leaves l0, l1, ... and calls c0, ...
func (c fzCall) pyCall() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.py()
	}
	keys := make([]string, 0, len(c.Kwargs))
	for k := range c.Kwargs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	kw := make([]string, len(keys))
	for i, k := range keys {
		kw[i] = k + "=" + c.Kwargs[k].py()
	}
	var s string
	switch c.Fn {
	case "getitem":
		s = fmt.Sprintf("%s[%s]", args[0], args[1])
	case "setitem":
		s = fmt.Sprintf("_setitem(%s, %s, %s)", args[0], args[1], args[2])
	case "astype":
		s = fmt.Sprintf("%s.astype(%s)", args[0], args[1])
	case "argsort":
		// Phobos's argsort is stable; NumPy's default quicksort orders ties
		// as it happens to, so the reference is NumPy's stable sort.
		if _, ok := c.Kwargs["kind"]; !ok {
			kw = append(kw, "kind='stable'")
		}
		s = "np.argsort(" + strings.Join(append(args, kw...), ", ") + ")"
	case "place", "putmask", "put", "fill_diagonal":
		// NumPy changes its first argument in place; Phobos returns it.
		s = "_inplace(np." + c.Fn + ", " + strings.Join(append(args, kw...), ", ") + ")"
	default:
		s = "np." + c.Fn + "(" + strings.Join(append(args, kw...), ", ") + ")"
	}
	if c.Out >= 0 {
		s += fmt.Sprintf("[%d]", c.Out)
	}
	return s
}

// expr is p as one Python expression over the leaves l0..l(L-1).
func (p fzProg) expr() string {
	parts := make([]string, len(p.Calls))
	for i, c := range p.Calls {
		// An intermediate NumPy scalar is a 0-d array, as Phobos has it.
		parts[i] = fmt.Sprintf("(c%d := np.asarray(%s))", i, c.pyCall())
	}
	return "(" + strings.Join(parts, ", ") + ",)[-1]"
}

// fzNumpyPrelude defines the helpers expr uses; it is a prefix of every
// expression (a lambda bound by a walrus).
const fzNumpyPrelude = "(_setitem := (lambda a, k, v: (lambda t: (t.__setitem__(k, v), t)[1])(np.array(a, copy=True)))) is None or " +
	"(_inplace := (lambda f, a, *r, **kw: (lambda t: (f(t, *r, **kw), t)[1])(np.array(a, copy=True)))) is None or "

// fzMeta is what the generator knows of a value.
type fzMeta struct {
	shape []int
	dt    ndarray.DType
}

// fzGen draws programs.
type fzGen struct {
	r         *rand.Rand
	fns       []calls.Function
	leafMetas []fzMeta
	callMetas []fzMeta
	p         fzProg
}

var fzDTypes = []ndarray.DType{ndarray.Bool, ndarray.Int8, ndarray.Int16, ndarray.Int32, ndarray.Int64,
	ndarray.Uint8, ndarray.Uint16, ndarray.Uint32, ndarray.Uint64, ndarray.Float16, ndarray.Float32,
	ndarray.Float64, ndarray.Complex64, ndarray.Complex128}

// fzSpecials are the float values drawn beside quarters.
var fzSpecials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e30, -1e-30, 1e300, 65504, 0.5, -1}

func (g *fzGen) float(special bool) float64 {
	if special && g.r.IntN(6) == 0 {
		return fzSpecials[g.r.IntN(len(fzSpecials))]
	}
	return float64(g.r.IntN(33)-16) / 4
}

// values is an array of dt and shape with values typical of its kind:
// small integers (now and then the type's ends), quarters, and with
// special the IEEE specials and extremes.
func (g *fzGen) values(dt ndarray.DType, shape []int, special bool) *ndarray.Array {
	n := ndarray.Size(shape)
	switch {
	case dt == ndarray.Bool:
		b := make([]bool, n)
		for i := range b {
			b[i] = g.r.IntN(2) == 0
		}
		a, _ := ndarray.FromBools(shape, b)
		return a
	case dt.IsInt():
		v := make([]int64, n)
		lo := int64(-9)
		if !dt.IsSigned() {
			lo = 0
		}
		for i := range v {
			v[i] = lo + int64(g.r.IntN(19))
		}
		a, _ := ndarray.FromInt64s(shape, v)
		return a.Astype(dt)
	case dt.IsComplex():
		v := make([]complex128, n)
		for i := range v {
			v[i] = complex(g.float(special), g.float(special))
		}
		a, _ := ndarray.FromComplex128s(shape, v)
		return a.Astype(dt)
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = g.float(special)
	}
	a, _ := ndarray.FromFloat64s(shape, v)
	return a.Astype(dt)
}

// chunks is a random chunking of shape: one chunk, chunks of one, sizes
// per axis (some larger than the axis) or uneven splits.
func (g *fzGen) chunks(shape []int) json.RawMessage {
	if len(shape) == 0 {
		return nil
	}
	switch g.r.IntN(4) {
	case 0:
		return nil
	case 1:
		return json.RawMessage("1")
	case 2:
		s := make([]string, len(shape))
		for i, d := range shape {
			s[i] = strconv.Itoa(1 + g.r.IntN(d+2))
		}
		return json.RawMessage("[" + strings.Join(s, ",") + "]")
	}
	axes := make([]string, len(shape))
	for i, d := range shape {
		var parts []string
		for left := d; left > 0; {
			k := 1 + g.r.IntN(left)
			parts = append(parts, strconv.Itoa(k))
			left -= k
		}
		if d == 0 {
			parts = []string{"0"}
		}
		axes[i] = "[" + strings.Join(parts, ",") + "]"
	}
	return json.RawMessage("[" + strings.Join(axes, ",") + "]")
}

// leaf adds an input array and returns its reference.
func (g *fzGen) leaf(dt ndarray.DType, shape []int, special bool) fzArg {
	a := g.values(dt, shape, special)
	return g.addLeaf(a, g.chunks(shape))
}

// addLeaf adds a as an input and returns its reference.
func (g *fzGen) addLeaf(a *ndarray.Array, chunks json.RawMessage) fzArg {
	i := len(g.p.Leaves)
	g.p.Leaves = append(g.p.Leaves, fzLeafOf(a, chunks))
	g.leafMetas = append(g.leafMetas, fzMeta{shape: slices.Clone(a.Shape()), dt: a.DType()})
	return fzArg{Leaf: &i}
}

func fzLit(v any) fzArg {
	b, _ := json.Marshal(v)
	switch x := v.(type) {
	case float64:
		b = []byte(fzFloat(x)) // 1.0, not 1: a float stays one in both languages
	case []float64:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fzFloat(e)
		}
		b = []byte("[" + strings.Join(parts, ",") + "]")
	}
	return fzArg{JSON: b, Py: fzPy(v)}
}

// fzFloat spells a finite float with a point or an exponent.
func fzFloat(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".en") {
		s += ".0"
	}
	return s
}

// fzPy spells a JSON-able Go value in Python.
func fzPy(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return strconv.Quote(x)
	case float64:
		return fzFloat(x)
	case []int:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = strconv.Itoa(e)
		}
		if len(s) == 0 {
			return "()"
		}
		return "(" + strings.Join(s, ", ") + ",)"
	case []float64:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = fzFloat(e)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// shape draws a shape: 0-d, or up to three axes of length 0 to 5.
func (g *fzGen) shape() []int {
	nd := g.r.IntN(4)
	if g.r.IntN(5) == 0 {
		nd = 0
	}
	s := make([]int, nd)
	for i := range s {
		s[i] = g.r.IntN(6)
		if s[i] == 0 && g.r.IntN(3) != 0 {
			s[i] = 1 + g.r.IntN(5) // empty axes now and then, not half the time
		}
	}
	return s
}

// operand picks a value of the program so far (leaves and calls), the
// latest call more often than the rest.
func (g *fzGen) operand() fzArg {
	nc := len(g.callMetas)
	if nc > 0 && g.r.IntN(2) == 0 {
		i := nc - 1
		return fzArg{Call: &i}
	}
	i := g.r.IntN(len(g.leafMetas) + nc)
	if i < len(g.leafMetas) {
		return fzArg{Leaf: &i}
	}
	i -= len(g.leafMetas)
	return fzArg{Call: &i}
}

func (g *fzGen) meta(a fzArg) fzMeta {
	switch {
	case a.Leaf != nil:
		return g.leafMetas[*a.Leaf]
	case a.Call != nil:
		// An axis of unknown length (a mask's selection) is drawn against
		// as if of length one: arguments that do not fit are refused by both.
		m := g.callMetas[*a.Call]
		m.shape = slices.Clone(m.shape)
		for i, d := range m.shape {
			if d < 0 {
				m.shape[i] = 1
			}
		}
		return m
	}
	return fzMeta{}
}

func (a fzArg) isRef() bool { return a.Leaf != nil || a.Call != nil }

// axis draws an axis of a value of nd dimensions, negative now and then.
func (g *fzGen) axis(nd int) int {
	if nd == 0 {
		return 0
	}
	a := g.r.IntN(nd)
	if g.r.IntN(3) == 0 {
		a -= nd
	}
	return a
}

// fzParam generates an argument for a parameter, given the arguments
// drawn so far (by name); ok false means none can be drawn.
type fzParam func(g *fzGen, fn string, got map[string]fzArg) (fzArg, bool)

// first is the array argument drawn first (the one axes refer to).
func fzFirst(got map[string]fzArg) fzArg {
	for _, k := range []string{"a", "x", "x1", "m", "ar", "ar1", "arr", "ary", "array", "y", "v", "val", "z", "element", "A", "a1"} {
		if a, ok := got[k]; ok && a.isRef() {
			return a
		}
	}
	return fzArg{}
}

func fzOperand(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) { return g.operand(), true }

// fzSecond is a second operand: another value, one broadcast against the
// first, or a Python number.
func fzSecond(g *fzGen, _ string, got map[string]fzArg) (fzArg, bool) {
	switch g.r.IntN(5) {
	case 0:
		return fzLit(float64(g.r.IntN(9)-4) / 2), true
	case 4:
		return fzLit(g.r.IntN(9) - 4), true
	case 1:
		if f := g.meta(fzFirst(got)); (f.shape != nil || f.dt.Valid()) && !slices.Contains(f.shape, -1) {
			shape := slices.Clone(f.shape)
			if len(shape) > 0 && g.r.IntN(2) == 0 {
				shape = shape[1:]
			}
			return g.leaf(fzDTypes[g.r.IntN(len(fzDTypes))], shape, true), true
		}
	}
	return g.operand(), true
}

func fzAxisParam(g *fzGen, fn string, got map[string]fzArg) (fzArg, bool) {
	f := fzFirst(got)
	nd := len(g.meta(f).shape)
	if strings.HasPrefix(fn, "fft.") {
		return fzLit(g.axis(max(nd, 1))), true // NumPy's FFTs take no axis=None
	}
	if nd == 0 || g.r.IntN(4) == 0 {
		return fzLit(nil), true
	}
	return fzLit(g.axis(nd)), true
}

func fzBool(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) {
	return fzLit(g.r.IntN(2) == 0), true
}

func fzSmallInt(lo, hi int) fzParam {
	return func(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) { return fzLit(lo + g.r.IntN(hi-lo+1)), true }
}

func fzOneOf(vals ...any) fzParam {
	return func(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) {
		return fzLit(vals[g.r.IntN(len(vals))]), true
	}
}

// fzSameShape is a new leaf of the first operand's shape and dtype dt.
func fzSameShape(dt ndarray.DType) fzParam {
	return func(g *fzGen, _ string, got map[string]fzArg) (fzArg, bool) {
		f := fzFirst(got)
		if !f.isRef() {
			return fzArg{}, false
		}
		return g.leaf(dt, g.meta(f).shape, false), true
	}
}

// fzIndices is an int64 leaf of indices into the first operand (flat, or
// along axis when one was drawn), negative ones among them.
func fzIndices(g *fzGen, _ string, got map[string]fzArg) (fzArg, bool) {
	f := g.meta(fzFirst(got))
	n := ndarray.Size(f.shape)
	if ax, ok := got["axis"]; ok && len(ax.JSON) > 0 && string(ax.JSON) != "null" {
		var a int
		if json.Unmarshal(ax.JSON, &a) == nil && len(f.shape) > 0 {
			n = f.shape[(a+len(f.shape))%len(f.shape)]
		}
	}
	k := g.r.IntN(5)
	v := make([]int64, k)
	for i := range v {
		if n > 0 {
			v[i] = int64(g.r.IntN(2*n) - n)
		}
	}
	a, _ := ndarray.FromInt64s([]int{k}, v)
	return g.addLeaf(a, g.chunks([]int{k})), true
}

// fzKey is an index: integers, slices, a new axis, an ellipsis, an
// integer array or a boolean mask of the first operand.
func fzKey(g *fzGen, _ string, got map[string]fzArg) (fzArg, bool) {
	f := g.meta(fzFirst(got))
	nd := len(f.shape)
	if nd > 0 && g.r.IntN(4) == 0 {
		return g.leaf(ndarray.Bool, f.shape, false), true
	}
	if nd > 0 && g.r.IntN(4) == 0 {
		sub := map[string]fzArg{"a": fzFirst(got), "axis": fzLit(0)}
		idx, _ := fzIndices(g, "", sub)
		return fzArg{Seq: []fzArg{idx}, Tuple: true}, true
	}
	var items []fzArg
	for ax := 0; ax < nd && g.r.IntN(4) != 0; ax++ {
		d := f.shape[ax]
		switch g.r.IntN(3) {
		case 0:
			if d > 0 {
				i := g.r.IntN(2*d) - d
				items = append(items, fzLit(i))
				continue
			}
			fallthrough
		case 1:
			lo, hi, st := g.r.IntN(d+2)-1, g.r.IntN(d+3)-1, []int{1, 2, -1, 3}[g.r.IntN(4)]
			items = append(items, fzArg{JSON: json.RawMessage(fmt.Sprintf(`{"slice":[%d,%d,%d]}`, lo, hi, st)), Py: fmt.Sprintf("slice(%d, %d, %d)", lo, hi, st)})
		default:
			items = append(items, fzArg{JSON: json.RawMessage(`{"slice":[null,null,null]}`), Py: "slice(None)"})
		}
	}
	if g.r.IntN(5) == 0 {
		items = append(items, fzArg{JSON: json.RawMessage("null"), Py: "None"})
	}
	return fzArg{Seq: items, Tuple: true}, true
}

// fzParams generate arguments by parameter name; fzParamsFor overrides
// them per function where a name means something else there.
var fzParams = map[string]fzParam{
	"x": fzOperand, "a": fzOperand, "m": fzOperand, "ar": fzOperand, "ar1": fzOperand, "arr": fzOperand,
	"ary": fzOperand, "array": fzOperand, "val": fzOperand, "z": fzOperand, "element": fzOperand, "A": fzOperand,
	"a1": fzOperand, "y": fzOperand, "v": fzSecond, "x1": fzOperand, "x2": fzSecond, "b": fzSecond,
	"ar2": fzSecond, "a2": fzSecond, "test_elements": fzSecond,
	"axis": fzAxisParam, "keepdims": fzBool, "ddof": fzSmallInt(0, 1), "deg": fzBool,
	"equal_nan": fzBool, "side": fzOneOf("left", "right"), "k": fzSmallInt(-2, 2), "n": fzSmallInt(1, 6),
	"norm":    fzOneOf(nil, "ortho", "forward", "backward"),
	"q":       fzOneOf(0.0, 0.25, 0.5, 1.0, []float64{0.1, 0.9}),
	"method":  fzOneOf("linear", "lower", "higher", "nearest", "midpoint"),
	"repeats": fzSmallInt(0, 3), "shift": fzSmallInt(-3, 3), "right": fzBool,
	"rowvar": fzBool, "bias": fzBool, "offset": fzSmallInt(-1, 1), "wrap": fzBool,
	"condition": fzSameShape(ndarray.Bool), "mask": fzSameShape(ndarray.Bool),
	"indices": fzIndices, "ind": fzIndices, "key": fzKey,
	"dtype": fzOneOf(nil, "float64", "int64", "float32", "int32", "bool", "complex128", "uint8", "float16"),
	// var and std in an integer dtype truncate each squared deviation in
	// NumPy's own order of operations; only float dtypes are drawn.
	"ddof_dtype": fzOneOf(nil, "float64", "float32"),
	"bins":       fzSmallInt(1, 4), "minlength": fzSmallInt(0, 4), "UPLO": fzOneOf("L", "U"),
}

func fzTensorList(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) {
	n := 1 + g.r.IntN(3)
	seq := make([]fzArg, n)
	for i := range seq {
		seq[i] = g.operand()
	}
	return fzArg{Seq: seq}, true
}

var fzParamsFor = map[string]map[string]fzParam{
	"var": {"dtype": fzMomentDType}, "std": {"dtype": fzMomentDType},
	"nanvar": {"dtype": fzMomentDType}, "nanstd": {"dtype": fzMomentDType},
	"reshape": {"shape": func(g *fzGen, _ string, got map[string]fzArg) (fzArg, bool) {
		s := g.meta(got["a"]).shape
		n := ndarray.Size(s)
		switch {
		case n > 1 && n%2 == 0 && g.r.IntN(2) == 0:
			return fzLit([]int{2, -1}), true
		case g.r.IntN(3) == 0:
			return fzLit([]int{n}), true
		}
		return fzLit([]int{-1}), true
	}},
	"broadcast_to": {"shape": func(g *fzGen, _ string, got map[string]fzArg) (fzArg, bool) {
		return fzLit(append([]int{g.r.IntN(3)}, g.meta(got["array"]).shape...)), true
	}},
	"zeros": {"shape": fzShapeParam}, "ones": {"shape": fzShapeParam}, "full": {"shape": fzShapeParam, "fill_value": fzNumber},
	"arange":   {"start": fzNumber, "stop": fzNumber, "step": fzOneOf(1.0, 0.5, -1.0, 2.0, 3)},
	"linspace": {"start": fzNumber, "stop": fzNumber, "num": fzSmallInt(0, 6)},
	"eye":      {"N": fzSmallInt(0, 4), "M": fzSmallInt(0, 4)},
	"transpose": {"axes": func(g *fzGen, _ string, got map[string]fzArg) (fzArg, bool) {
		nd := len(g.meta(got["a"]).shape)
		return fzLit(g.r.Perm(nd)), true
	}},
	"squeeze":             {"axis": fzOneOf(nil)},
	"expand_dims":         {"axis": fzSmallInt(-1, 1)},
	"concatenate":         {"arrays": fzTensorList, "axis": fzSmallInt(0, 1)},
	"stack":               {"arrays": fzTensorList, "axis": fzSmallInt(0, 1)},
	"hstack":              {"tup": fzTensorList},
	"vstack":              {"tup": fzTensorList},
	"dstack":              {"tup": fzTensorList},
	"column_stack":        {"tup": fzTensorList},
	"linalg.multi_dot":    {"*arrays": fzTensorList},
	"clip":                {"a_min": fzClipBound, "a_max": fzClipBound},
	"where":               {"x": fzSecond, "y": fzSecond},
	"astype":              {"dtype": fzOneOf("float64", "int64", "float32", "int8", "bool", "complex64", "uint16", "float16")},
	"put":                 {"v": fzNumber},
	"place":               {"vals": fzSecond},
	"putmask":             {"values": fzSecond},
	"setitem":             {"value": fzSecond},
	"fill_diagonal":       {"val": fzNumber},
	"insert":              {"obj": fzSmallInt(0, 2), "values": fzNumber},
	"delete":              {"obj": fzSmallInt(0, 2)},
	"append":              {"values": fzSecond},
	"pad":                 {"pad_width": fzSmallInt(0, 2), "mode": fzOneOf("constant", "edge", "wrap")},
	"moveaxis":            {"source": fzSmallInt(0, 1), "destination": fzSmallInt(-1, 0)},
	"swapaxes":            {"axis1": fzSmallInt(0, 1), "axis2": fzSmallInt(-1, 0)},
	"rollaxis":            {"axis": fzSmallInt(0, 1), "start": fzSmallInt(0, 1)},
	"rot90":               {"k": fzSmallInt(-1, 2)},
	"tile":                {"reps": fzOneOf(2, []int{2, 1}, []int{1, 3})},
	"tensordot":           {"axes": fzSmallInt(0, 1)},
	"diagonal":            {"axis1": fzOneOf(0), "axis2": fzOneOf(1)},
	"trace":               {"axis1": fzOneOf(0), "axis2": fzOneOf(1)},
	"linalg.norm":         {"ord": fzOneOf(nil, 1, 2, -1, -2, 0, 3, "fro", "inf", "-inf")},
	"linalg.cond":         {"p": fzOneOf(nil)},
	"linalg.matrix_rank":  {"tol": fzOneOf(nil)},
	"linalg.pinv":         {"rcond": fzOneOf(1e-15)},
	"searchsorted":        {"a": fzSortedLeaf},
	"digitize":            {"bins": fzSortedLeaf},
	"bincount":            {"x": fzSmallIndexLeaf, "weights": fzOneOf(nil)},
	"average":             {"weights": fzOneOf(nil), "returned": fzOneOf(false)},
	"histogram":           {"range": fzOneOf(nil), "weights": fzOneOf(nil), "density": fzBool},
	"histogram_bin_edges": {"range": fzOneOf(nil), "weights": fzOneOf(nil)},
	"trapz":               {"x": fzOneOf(nil), "dx": fzOneOf(1.0, 0.5)},
	"diff":                {"prepend": fzOneOf(nil), "append": fzOneOf(nil)},
	"ediff1d":             {"to_end": fzOneOf(nil), "to_begin": fzOneOf(nil)},
	"cov":                 {"y": fzOneOf(nil), "fweights": fzOneOf(nil), "aweights": fzOneOf(nil)},
	"corrcoef":            {"y": fzOneOf(nil)},
	"unique":              {"return_index": fzOneOf(false), "return_inverse": fzOneOf(false), "return_counts": fzOneOf(false)},
	"roll":                {"shift": fzSmallInt(-3, 3)},
	"repeat":              {"repeats": fzSmallInt(0, 3)},
	"fft.fft2":            {"s": fzOneOf(nil), "axes": fzOneOf([]int{-2, -1})},
	"fft.ifft2":           {"s": fzOneOf(nil), "axes": fzOneOf([]int{-2, -1})},
	"fft.rfft2":           {"s": fzOneOf(nil), "axes": fzOneOf([]int{-2, -1})},
	"fft.irfft2":          {"s": fzOneOf(nil), "axes": fzOneOf([]int{-2, -1})},
	"fft.fftn":            {"s": fzOneOf(nil), "axes": fzOneOf(nil)},
	"fft.ifftn":           {"s": fzOneOf(nil), "axes": fzOneOf(nil)},
	"fft.rfftn":           {"s": fzOneOf(nil), "axes": fzOneOf(nil)},
	"fft.irfftn":          {"s": fzOneOf(nil), "axes": fzOneOf(nil)},
	"fft.fftshift":        {"axes": fzOneOf(nil, 0)},
	"fft.ifftshift":       {"axes": fzOneOf(nil, 0)},
	"nanpercentile":       {"q": fzOneOf(0.0, 25.0, 50.0, 100.0, []float64{10, 90})},
	"percentile":          {"q": fzOneOf(0.0, 25.0, 50.0, 100.0, []float64{10, 90})},
	"diag":                {"v": fzOperand},
	"diagflat":            {"v": fzOperand},
	"isin":                {"test_elements": fzSecond},
	"atleast_1d":          {"ary": fzOperand},
	"array_equal":         {"a2": fzSecond},
}

// fzMomentDType is a dtype for var and std: a float one, and none for
// complex data (NumPy casts it to a real dtype, dropping the imaginary
// part, with a warning).
func fzMomentDType(g *fzGen, fn string, got map[string]fzArg) (fzArg, bool) {
	if g.meta(fzFirst(got)).dt.IsComplex() {
		return fzLit(nil), true
	}
	return fzParams["ddof_dtype"](g, fn, got)
}

func fzShapeParam(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) {
	return fzLit(g.shape()), true
}

func fzNumber(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) {
	return fzLit(float64(g.r.IntN(17)-8) / 2), true
}

func fzClipBound(g *fzGen, fn string, got map[string]fzArg) (fzArg, bool) {
	if g.r.IntN(3) == 0 {
		return fzSecond(g, fn, got)
	}
	return fzNumber(g, fn, got)
}

// fzSortedLeaf is a sorted 1-D float64 or int64 leaf (with repeats and
// both zeros), what searchsorted and digitize search.
func fzSortedLeaf(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) {
	n := g.r.IntN(7)
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(g.r.IntN(9)-4) / 2
		if v[i] == 0 && g.r.IntN(2) == 0 {
			v[i] = math.Copysign(0, -1)
		}
	}
	slices.Sort(v)
	a, _ := ndarray.FromFloat64s([]int{n}, v)
	if g.r.IntN(3) == 0 {
		a = a.Astype(ndarray.Int64)
	}
	return g.addLeaf(a, g.chunks([]int{n})), true
}

// fzSmallIndexLeaf is a 1-D leaf of non-negative small integers (bincount).
func fzSmallIndexLeaf(g *fzGen, _ string, _ map[string]fzArg) (fzArg, bool) {
	n := g.r.IntN(7)
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(g.r.IntN(5))
	}
	a, _ := ndarray.FromInt64s([]int{n}, v)
	return g.addLeaf(a, g.chunks([]int{n})), true
}

// fzParamFor is the generator of parameter p of fn, or nil.
func fzParamFor(fn, p string) fzParam {
	if m, ok := fzParamsFor[fn]; ok {
		if f, ok := m[p]; ok {
			return f
		}
	}
	return fzParams[p]
}

// fzFuzzable splits the registry into the functions the fuzzer draws
// and those it cannot, with why.
func fzFuzzable() (fns []calls.Function, skipped map[string]string) {
	skipped = map[string]string{}
	for _, f := range calls.Functions() {
		if why, ok := fzExcluded[f.Name]; ok {
			skipped[f.Name] = why
			continue
		}
		req := fzRequired(f)
		ok := true
		for _, p := range f.Params[:req] {
			if _, sel := fzSelectOut[f.Name]; sel && p == "out" {
				continue
			}
			if fzParamFor(f.Name, p) == nil {
				skipped[f.Name] = fmt.Sprintf("no generator for its required parameter %q", p)
				ok = false
				break
			}
		}
		if ok {
			fns = append(fns, f)
		}
	}
	return fns, skipped
}

// fzRequired is how many leading parameters a call must give, as the
// registry says; they are passed by position, the others by keyword.
func fzRequired(f calls.Function) int { return f.Required }

// draw makes a program of one to three calls on one or two leaves.
func (g *fzGen) draw() (fzProg, string) {
	g.p, g.leafMetas, g.callMetas = fzProg{}, nil, nil
	base := g.shape()
	special := g.r.IntN(3) == 0
	for range 1 + g.r.IntN(2) {
		shape := slices.Clone(base)
		if len(shape) > 0 && g.r.IntN(4) == 0 {
			shape = shape[1:]
		}
		g.leaf(fzDTypes[g.r.IntN(len(fzDTypes))], shape, special)
	}
	depth := 1 + g.r.IntN(3)
	family := ""
	for range depth {
		f := g.fns[g.r.IntN(len(g.fns))]
		c, ok := g.call(f)
		if !ok {
			continue
		}
		g.p.Calls = append(g.p.Calls, c)
		family = fzFamily(f.Name)
		meta, err := fzBuildMeta(g.p)
		if err != nil {
			break // Phobos refuses it: it is the last call, checked against NumPy's refusal
		}
		g.callMetas = append(g.callMetas, meta)
	}
	return g.p, family
}

// call draws the arguments of one call of f.
func (g *fzGen) call(f calls.Function) (fzCall, bool) {
	c := fzCall{Fn: f.Name, Out: -1, Kwargs: map[string]fzArg{}}
	req := fzRequired(f)
	got := map[string]fzArg{}
	for i, p := range f.Params {
		if p == "out" {
			if n, ok := fzSelectOut[f.Name]; ok {
				c.Out = g.r.IntN(n)
			} else if i < req {
				return c, false
			}
			continue
		}
		gen := fzParamFor(f.Name, p)
		if i >= req && (gen == nil || g.r.IntN(3) != 0) {
			continue
		}
		if gen == nil {
			return c, false
		}
		a, ok := gen(g, f.Name, got)
		if !ok {
			return c, false
		}
		got[p] = a
		switch {
		case strings.HasPrefix(p, "*"):
			c.Args = append(c.Args, a.Seq...)
		case i < req:
			c.Args = append(c.Args, a)
		default:
			c.Kwargs[p] = a
		}
	}
	return c, true
}
