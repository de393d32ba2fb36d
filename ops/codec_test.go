package ops_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/tensor"
)

// zoo builds tensors that exercise most ops, so tiling and fusing them
// yields most chunk ops too.
func zoo(t *testing.T) []*tensor.Tensor {
	t.Helper()
	g := tensor.NewGenerator(7)
	a := g.Rand([]int{12, 10}, tensor.Chunks(5, 4))
	b := g.Normal(1, 2, []int{10, 6}, tensor.Chunks(4, 3))
	lit := tensor.FromSlice([]float64{1, 2, 3, math.NaN(), math.Inf(1), -4, 5, 6, 7, 8}, []int{10}, tensor.Chunks(3))
	ints := g.RandInt(0, 9, []int{12}, tensor.Chunks(5))
	out := []*tensor.Tensor{
		a.Add(b.Sum(tensor.Axis(1)).Reshape(1, 10).BroadcastTo(12, 10)).Mul(2).Sum(),
		a.MatMul(b).T().Flip(0).Index(tensor.S(0, 5, 2), tensor.At(3)),
		tensor.Concatenate(0, a, a.Clip(math.Inf(-1), 0.5)).Std(tensor.Axis(0), tensor.DDof(1)),
		tensor.Where(lit.IsNaN(), 0, lit.CumSum(0)),
		tensor.Full([]int{4, 4}, math.NaN(), tensor.Chunks(2)).ExpandDims(0).Squeeze(0).Rechunk(tensor.Chunks(3)),
		ints.Astype(ndarray.Float32).Add(tensor.Linspace(0, 1, 12, tensor.Chunks(5)).Astype(ndarray.Float32)).ArgMax(),
		tensor.TensorDot(a, tensor.Eye(10, 10, 1, tensor.Chunks(4)), []int{1}, []int{0}).CumProd(1).Mean(tensor.Axis(0), tensor.KeepDims()),
		tensor.ArangeN(24, tensor.Chunks(7)).Reshape(4, 6).Max(tensor.Axis(1)),
	}
	for i, x := range out {
		if x.Err() != nil {
			t.Fatalf("zoo tensor %d: %v", i, x.Err())
		}
	}
	return out
}

// roundTrip encodes op, decodes it, and checks the decoding encodes to the
// same bytes and (when it holds no arrays, whose buffers differ) is deeply equal.
func roundTrip(t *testing.T, op any, tensorOp bool) {
	t.Helper()
	b1, err := ops.MarshalOp(op)
	if err != nil {
		t.Fatalf("marshal %T: %v", op, err)
	}
	var back any
	if tensorOp {
		back, err = ops.UnmarshalTensorOp(b1)
	} else {
		back, err = ops.UnmarshalChunkOp(b1)
	}
	if err != nil {
		t.Fatalf("unmarshal %T from %s: %v", op, b1, err)
	}
	b2, err := ops.MarshalOp(back)
	if err != nil {
		t.Fatalf("re-marshal %T: %v", back, err)
	}
	if !bytes.Equal(b1, b2) {
		t.Fatalf("%T does not round-trip:\n%s\n%s", op, b1, b2)
	}
	if f, ok := op.(ops.Fused); ok {
		op = f.Unshared() // working memory is not encoded
	}
	if !bytes.Contains(b1, []byte(`"data"`)) && !reflect.DeepEqual(normNaN(op), normNaN(back)) {
		t.Fatalf("%T decodes to a different value:\n%#v\n%#v", op, op, back)
	}
}

// normNaN makes NaN fields comparable by DeepEqual by going through the encoding.
func normNaN(op any) any {
	b, _ := ops.MarshalOp(op)
	if bytes.Contains(b, []byte(`"NaN"`)) {
		return string(b)
	}
	return op
}

func TestCodecRoundTripsCompiledGraphs(t *testing.T) {
	tg, ids, err := tensor.Build(zoo(t)...)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, nd := range tg.Nodes {
		roundTrip(t, nd.Op, true)
		n, _ := ops.RegisteredName(nd.Op)
		seen[n] = true
	}
	cg, tiled, err := graph.Tile(tg)
	if err != nil {
		t.Fatal(err)
	}
	var refs []ops.ChunkRef
	for _, id := range ids {
		refs = append(refs, tiled[id].Chunks...)
	}
	cg, refs = optimize.Cull(cg, refs)
	check := func(g *graph.ChunkGraph) {
		for _, nd := range g.Nodes {
			roundTrip(t, nd.Op, false)
			n, _ := ops.RegisteredName(nd.Op)
			seen[n] = true
			if f, ok := nd.Op.(ops.Fused); ok {
				for _, in := range f.Nodes {
					n, _ := ops.RegisteredName(in.Op)
					seen[n] = true
				}
			}
		}
	}
	check(cg)
	fused, _ := optimize.Fuse(cg, refs)
	check(fused)
	var missing []string
	for _, n := range ops.RegisteredNames() {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	t.Logf("ops not met in the compiled zoo (covered by TestCodecExamples): %v", missing)
}

func TestCodecExamples(t *testing.T) {
	lit, _ := ndarray.FromFloat64s([]int{2, 3}, []float64{1, math.NaN(), 3, 4, 5, math.Inf(-1)})
	view, _ := lit.Slice([]ndarray.Range{{Start: 0, Step: 1, Len: 2}, {Start: 2, Step: -1, Len: 2}})
	for _, c := range []struct {
		op     any
		tensor bool
	}{
		{ops.Full{Meta: ops.Meta{Shape: []int{3}, DType: ndarray.Float32}, Value: math.Inf(1), Chunks: ops.ChunkSpec{Size: []int{2}}}, true},
		{ops.FullChunk{Shape: []int{0}, DType: ndarray.Bool, Value: math.NaN()}, false},
		{ops.Literal{Data: lit, Chunks: ops.ChunkSpec{Splits: [][]int{{1, 1}, {3}}}}, true},
		{ops.LiteralChunk{Data: view}, false},
		{ops.Reduction{Func: "argmin"}, true},             // nil axes: flattened
		{ops.Reduction{Func: "sum", Axes: []int{}}, true}, // empty axes: no reduction
		{ops.ReduceCombine{Func: "mean", Finish: &ops.ReduceFinish{Func: "mean", Shape: []int{}, DType: ndarray.Float64}}, false},
		{ops.Elementwise{Kind: "clip", Consts: []ops.Const{{Pos: 1, Value: math.Inf(-1), DType: ndarray.Float64}, {Pos: 2, Int: math.MaxInt64, DType: ndarray.Int64}}}, false},
		{ops.MatMul{}, false},
		{ops.QR{Complete: true, FanIn: 8}, true},
		{ops.SVD{}, true},
		{ops.QRFactorChunk{DType: ndarray.Float32}, false},
		{ops.QRRChunk{M: 100, N: 5}, false},
		{ops.QRApply{M: 100, N: 5, Row: 10, Cols: 5, OutCols: 5}, false},
		{ops.SVDSmall{}, false},
		{ops.QRComplete{}, false},
		{ops.SolveTriangular{Lower: true, UnitDiagonal: true}, true},
		{ops.Lstsq{RCond: new(-1.0)}, true},
		{ops.Lstsq{}, true},
		{ops.Slogdet{}, false},
		{ops.FFT{Kind: ops.FFTInvReal, Axis: 1, N: 7, Norm: "ortho", Conj: true}, true},
		{ops.FFT{Kind: ops.FFTComplex, Inverse: true, N: 1}, false},
		{ops.Fused{Shape: []int{4}, Nodes: []ops.FusedNode{
			{Op: ops.FullChunk{Shape: []int{4}, DType: ndarray.Float64, Value: 1}, Meta: ops.Meta{Shape: []int{4}, DType: ndarray.Float64}},
			{Op: ops.Elementwise{Kind: "binary", Name: "add"}, Args: []int{0, -1}, Meta: ops.Meta{Shape: []int{4}, DType: ndarray.Float64}},
		}}, false},
	} {
		roundTrip(t, c.op, c.tensor)
	}
	// Literal data survives exactly, NaN included, and views come back in C order.
	b, _ := ops.MarshalOp(ops.LiteralChunk{Data: view})
	back, err := ops.UnmarshalChunkOp(b)
	if err != nil {
		t.Fatal(err)
	}
	got := back.(ops.LiteralChunk).Data.ToFloat64s()
	want := view.ToFloat64s()
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("literal view: got %v want %v", got, want)
		}
	}
}

func TestCodecErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":"nope"}`, `unknown op "nope"`},
		{`{"type":"elementwise","params":{"kind":"binary","nmae":"add"}}`, `unknown field "nmae"`},
		{`{"type":"full_chunk","params":{"shape":[1.5]}}`, `params.shape[0]: 1.5 is not an integer`},
		{`{"type":"full_chunk","params":{"dtype":"float128"}}`, `params.dtype`},
		{`{"type":"full_chunk","params":{"value":"lots"}}`, `want a number`},
		{`{"type":"fused","params":{"nodes":[{"op":{"type":"full"}}]}}`, `op "full" is not a chunk op`},
		{`{"type":"literal_chunk","params":{"data":"!!"}}`, `not base64`},
		{`{"type":"literal_chunk","params":{"data":"AAAA"}}`, `npy`},
		{`[1,2]`, `want an object`},
		{`{"type":"full"`, `malformed JSON`},
		{`{"type":"full","extra":1}`, `unknown key "extra"`},
	} {
		_, err := ops.UnmarshalChunkOp([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.in, err, c.want)
		}
	}
	if _, err := ops.UnmarshalChunkOp([]byte(`{"type":"full","params":{}}`)); err == nil || !strings.Contains(err.Error(), "not a chunk op") {
		t.Errorf("tensor op as chunk op: %v", err)
	}
	type notRegistered struct{ ops.MatMul }
	if _, err := ops.MarshalOp(notRegistered{}); err == nil {
		t.Error("an unregistered op type encoded")
	}
}

// TestEveryOpRegistered parses the package's sources: every type with a
// Type() method must be registered, so a new op cannot miss the wire format.
func TestEveryOpRegistered(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	registered := map[string]bool{}
	for _, n := range ops.RegisteredNames() {
		v, _ := ops.NewRegistered(n)
		registered[reflect.TypeOf(v).Name()] = true
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "Type" || len(fd.Recv.List) != 1 {
				continue
			}
			rt := fd.Recv.List[0].Type
			if st, ok := rt.(*ast.StarExpr); ok {
				rt = st.X
			}
			id, ok := rt.(*ast.Ident)
			if ok && ast.IsExported(id.Name) && !registered[id.Name] {
				t.Errorf("op type %s has a Type method but is not registered in ops/registry.go", id.Name)
			}
		}
	}
}
