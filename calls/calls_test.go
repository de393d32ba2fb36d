// The tests are in an external package: the root package (the session)
// imports calls through the web service.
package calls_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/calls"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ndarray/rng"
	"github.com/phobos-tensor/phobos/ndarray/zarr"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// The prelude of every build case: like nodes the cases refer to by name
// (@A is {"ref": 0}, ...); NumPy's equivalents are np.zeros of that shape
// and dtype.
const (
	A    = iota // (2, 3) float64
	I           // (2, 3) int64
	B           // (2, 3) bool
	F4          // (3,) float32
	I4          // (3,) int32
	M           // (3, 4) float64
	V           // (4,) float64
	Z131        // (1, 3, 1) float64
	Z234        // (2, 3, 4) float64
)

var prelude = []string{
	`{"like":{"shape":[2,3],"dtype":"float64"}}`,
	`{"like":{"shape":[2,3],"dtype":"int64"}}`,
	`{"like":{"shape":[2,3],"dtype":"bool","chunks":[1,2]}}`,
	`{"like":{"shape":[3],"dtype":"float32"}}`,
	`{"like":{"shape":[3],"dtype":"int32"}}`,
	`{"like":{"shape":[3,4],"dtype":"float64"}}`,
	`{"like":{"shape":[4],"dtype":"f8"}}`,
	`{"like":{"shape":[1,3,1],"dtype":"float64"}}`,
	`{"like":{"shape":[2,3,4],"dtype":"float64"}}`,
	`{"like":{"shape":[3,3],"dtype":"float64"}}`,
}

// refs expands @NAME into a reference to a prelude node ("@I4" before "@I").
var refs = strings.NewReplacer(
	"@A", `{"ref":0}`, "@I4", `{"ref":4}`, "@I", `{"ref":1}`, "@B", `{"ref":2}`,
	"@F4", `{"ref":3}`, "@M", `{"ref":5}`, "@V", `{"ref":6}`, "@Z131", `{"ref":7}`, "@Z234", `{"ref":8}`, "@S", `{"ref":9}`,
)

func parse(t testing.TB, nodes ...string) calls.Program {
	t.Helper()
	var p calls.Program
	src := `{"nodes":[` + refs.Replace(strings.Join(nodes, ",")) + `]}`
	if err := json.Unmarshal([]byte(src), &p); err != nil {
		t.Fatalf("bad test program %s: %v", src, err)
	}
	return p
}

type pre []*tensor.Tensor

// buildCase is one call after the prelude: the tensor it builds has shape
// and dtype, and the same values as direct builds with the Go API (when set).
type buildCase struct {
	fn, args, kwargs string
	shape            []int
	dtype            string
	direct           func(p pre) *tensor.Tensor
}

// kindCase is a node that cannot be built and the Python exception it
// raises.
type kindCase struct{ node, kind string }

// checkKinds builds each case's node after the prelude and checks the
// kind of the error.
func checkKinds(t *testing.T, cases []kindCase) {
	t.Helper()
	for _, c := range cases {
		_, err := parse(t, append(prelude, c.node)...).Build(true)
		var ce *calls.Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: want a %s, got %v", c.node, c.kind, err)
			continue
		}
		if ce.Kind != c.kind {
			t.Errorf("%s: %s (%v), want %s", c.node, ce.Kind, ce.Err, c.kind)
		}
	}
}

// buildCases are one call each, after the prelude; shape and dtype are what
// NumPy 1.24 gives for the same call on the prelude's arrays (checked with
// python3), and direct, when set, is the same call through the Go API.
var buildCases = []buildCase{
	// unary ufuncs
	{"negative", `[@I]`, ``, []int{2, 3}, "int64", func(p pre) *tensor.Tensor { return p[I].Neg() }},
	{"negative", `[3]`, ``, []int{}, "int64", nil},
	{"absolute", `[@F4]`, ``, []int{3}, "float32", func(p pre) *tensor.Tensor { return p[F4].Abs() }},
	{"sign", `[@I4]`, ``, []int{3}, "int32", nil},
	{"sqrt", `[@I]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.Ufunc("sqrt", p[I]) }},
	{"square", `[@I4]`, ``, []int{3}, "int32", nil},
	{"exp", `[@F4]`, ``, []int{3}, "float32", nil},
	{"log", `[@A]`, ``, []int{2, 3}, "float64", nil},
	{"log1p", `[@I4]`, ``, []int{3}, "float64", nil},
	{"sin", `[@A]`, ``, []int{2, 3}, "float64", nil},
	{"cos", `[@F4]`, ``, []int{3}, "float32", nil},
	{"tan", `[@I]`, ``, []int{2, 3}, "float64", nil},
	{"tanh", `[@A]`, ``, []int{2, 3}, "float64", nil},
	{"floor", `[@A]`, ``, []int{2, 3}, "float64", nil},
	{"ceil", `[@F4]`, ``, []int{3}, "float32", nil},
	{"round", `[@I]`, ``, []int{2, 3}, "int64", nil},
	{"isnan", `[@A]`, ``, []int{2, 3}, "bool", nil},
	{"isfinite", `[@I]`, ``, []int{2, 3}, "bool", nil},
	{"logical_not", `[]`, `{"x":@A}`, []int{2, 3}, "bool", nil},
	// binary ufuncs
	{"add", `[@A, 2]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.Add(p[A], 2) }},
	{"add", `[@I4, 2.5]`, ``, []int{3}, "float64", nil},
	{"add", `[@B, @B]`, ``, []int{2, 3}, "bool", nil},
	{"subtract", `[@I, @F4]`, ``, []int{2, 3}, "float64", nil},
	{"multiply", `[@I4]`, `{"x2":2}`, []int{3}, "int32", func(p pre) *tensor.Tensor { return p[I4].Mul(2) }},
	{"true_divide", `[@I, 2]`, ``, []int{2, 3}, "float64", nil},
	{"floor_divide", `[@I4, @I]`, ``, []int{2, 3}, "int64", nil},
	{"remainder", `[@A, 3]`, ``, []int{2, 3}, "float64", nil},
	{"power", `[@I4, 2]`, ``, []int{3}, "int32", nil},
	{"maximum", `[@F4, 1.5]`, ``, []int{3}, "float32", nil},
	{"minimum", `[@I, @I4]`, ``, []int{2, 3}, "int64", nil},
	{"less", `[@A, 1]`, ``, []int{2, 3}, "bool", nil},
	{"less_equal", `[@I4, @F4]`, ``, []int{3}, "bool", nil},
	{"greater", `[@I, 2.5]`, ``, []int{2, 3}, "bool", nil},
	{"greater_equal", `[@A, @F4]`, ``, []int{2, 3}, "bool", nil},
	{"equal", `[@B, true]`, ``, []int{2, 3}, "bool", nil},
	{"not_equal", `[@I, @I]`, ``, []int{2, 3}, "bool", nil},
	{"logical_and", `[@B, @A]`, ``, []int{2, 3}, "bool", nil},
	{"logical_or", `[@I4, 0]`, ``, []int{3}, "bool", nil},
	{"logical_xor", `[@B, @B]`, ``, []int{2, 3}, "bool", nil},
	// reductions
	{"sum", `[@I4]`, ``, []int{}, "int64", nil},
	{"sum", `[@A, 1]`, `{"keepdims":true}`, []int{2, 1}, "float64", func(p pre) *tensor.Tensor { return p[A].Sum(tensor.Axis(1), tensor.KeepDims()) }},
	{"sum", `[@B]`, `{"dtype":"int32"}`, []int{}, "int32", nil},
	{"prod", `[@I4]`, `{"dtype":"int32"}`, []int{}, "int32", nil},
	{"prod", `[@I, 0]`, ``, []int{3}, "int64", func(p pre) *tensor.Tensor { return p[I].Prod(tensor.Axis(0)) }},
	{"mean", `[@I]`, ``, []int{}, "float64", nil},
	{"mean", `[@F4]`, ``, []int{}, "float32", nil},
	{"mean", `[@F4]`, `{"dtype":"float64"}`, []int{}, "float64", nil},
	{"min", `[@A, [0, 1]]`, ``, []int{}, "float64", nil},
	{"max", `[@I4, -1, true]`, ``, []int{1}, "int32", func(p pre) *tensor.Tensor { return p[I4].Max(tensor.Axis(-1), tensor.KeepDims()) }},
	{"any", `[@A, 0]`, ``, []int{3}, "bool", nil},
	{"all", `[@I]`, ``, []int{}, "bool", nil},
	{"count_nonzero", `[@A]`, `{"axis":0}`, []int{3}, "int64", nil},
	{"argmin", `[@A, 1]`, ``, []int{2}, "int64", nil},
	{"argmax", `[@I]`, ``, []int{}, "int64", nil},
	{"var", `[@I]`, `{"ddof":1}`, []int{}, "float64", func(p pre) *tensor.Tensor { return p[I].Var(tensor.DDof(1)) }},
	{"var", `[@A, 0]`, `{"keepdims":true}`, []int{1, 3}, "float64", nil},
	{"std", `[@F4]`, ``, []int{}, "float32", nil},
	{"std", `[@I4]`, `{"dtype":"float32"}`, []int{}, "float32", nil},
	{"cumsum", `[@A]`, ``, []int{6}, "float64", func(p pre) *tensor.Tensor { return p[A].Ravel().CumSum(0) }},
	{"cumsum", `[@I4, 0]`, ``, []int{3}, "int64", nil},
	{"cumsum", `[@I]`, `{"dtype":"float32"}`, []int{6}, "float32", nil},
	{"cumsum", `[@I4]`, `{"dtype":"int32"}`, []int{3}, "int32", nil},
	{"cumprod", `[@B, 1]`, ``, []int{2, 3}, "int64", nil},
	// creation
	{"zeros", `[[2, 3]]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.Zeros([]int{2, 3}) }},
	{"zeros", `[3, "int32"]`, ``, []int{3}, "int32", nil},
	{"ones", `[2]`, `{"dtype":"bool"}`, []int{2}, "bool", nil},
	{"empty", `[[0, 4]]`, `{"chunks":"auto"}`, []int{0, 4}, "float64", nil},
	{"full", `[[2, 2], 7]`, ``, []int{2, 2}, "int64", nil},
	{"full", `[2, 1.5]`, ``, []int{2}, "float64", nil},
	{"full", `[3, true]`, ``, []int{3}, "bool", nil},
	{"full", `[2, 7, "float32"]`, ``, []int{2}, "float32", nil},
	{"arange", `[0, 10, 3]`, ``, []int{4}, "int64", nil},
	{"arange", `[0, 1, 0.25]`, ``, []int{4}, "float64", func(p pre) *tensor.Tensor { return tensor.Arange(0, 1, 0.25) }},
	{"arange", `[5, 0, 1]`, ``, []int{0}, "int64", nil},
	{"arange", `[10, 0, -3]`, ``, []int{4}, "int64", nil},
	{"arange", `[0, 5, 1]`, `{"dtype":"float32","chunks":2}`, []int{5}, "float32", nil},
	{"linspace", `[0, 1]`, ``, []int{50}, "float64", nil},
	{"linspace", `[0, 1, 5, "int32"]`, ``, []int{5}, "int32", nil},
	{"eye", `[3]`, ``, []int{3, 3}, "float64", nil},
	{"eye", `[2, 4, 1, "int64"]`, ``, []int{2, 4}, "int64", func(p pre) *tensor.Tensor { return tensor.Eye(2, 4, 1, tensor.WithDType(ndarray.Int64)) }},
	{"eye", `[2]`, `{"M":null}`, []int{2, 2}, "float64", nil},
	{"random", `[1, 0, "uniform", 0, 1, [2, 3]]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor {
		return tensor.RandomStream(1, 0, rng.Uniform, 0, 1, []int{2, 3})
	}},
	{"random", `[]`, `{"seed":1,"stream":5,"dist":"normal","shape":4,"dtype":"float32"}`, []int{4}, "float32", nil},
	{"random", `[2, 1, "randint", 0, 10, [3]]`, ``, []int{3}, "int64", nil},
	// linear algebra
	{"linalg.qr", `[@M]`, ``, []int{3, 3}, "float64", nil},
	{"linalg.qr", `[@M]`, `{"out":1}`, []int{3, 4}, "float64", nil},
	{"linalg.qr", `[@A]`, `{"mode":"r"}`, []int{2, 3}, "float64", nil},
	{"linalg.svd", `[@M]`, `{"full_matrices":false,"out":1}`, []int{3}, "float64", nil},
	{"linalg.svdvals", `[@S]`, ``, []int{3}, "float64", nil},
	{"linalg.cholesky", `[@S]`, ``, []int{3, 3}, "float64", nil},
	{"linalg.lu", `[@M]`, ``, []int{3, 3}, "float64", nil},
	{"inner", `[@A, @A]`, ``, []int{2, 2}, "float64", nil},
	{"vdot", `[@M, @M]`, ``, []int{}, "float64", nil},
	{"linalg.trace", `[@Z234]`, ``, []int{2}, "float64", nil},
	{"linalg.diagonal", `[@Z234]`, ``, []int{2, 3}, "float64", nil},
	{"linalg.lu", `[@M]`, `{"out":2}`, []int{3, 4}, "float64", nil},
	{"linalg.lu", `[@M]`, `{"permute_l":true}`, []int{3, 3}, "float64", nil},
	{"linalg.randomized_svd", `[@M, 2]`, ``, []int{3, 2}, "float64", nil},
	{"linalg.randomized_svd", `[@M, 2]`, `{"out":2,"n_iter":"auto","random_state":3}`, []int{2, 4}, "float64", nil},
	{"linalg.randomized_svd", `[@M, 2]`, `{"out":1,"n_iter":1,"flip_sign":false,"random_state":null}`, []int{2}, "float64", nil},
	{"linalg.inv", `[@S]`, ``, []int{3, 3}, "float64", nil},
	{"linalg.det", `[@S]`, ``, []int{}, "float64", nil},
	{"linalg.slogdet", `[@S,1]`, ``, []int{}, "float64", nil},
	{"linalg.eigh", `[@S]`, ``, []int{3}, "float64", nil},
	{"linalg.eigh", `[@S]`, `{"out":1,"UPLO":"U"}`, []int{3, 3}, "float64", nil},
	{"linalg.eigvalsh", `[@S]`, `{"UPLO":"L"}`, []int{3}, "float64", nil},
	{"linalg.solve", `[@S,@M]`, ``, []int{3, 4}, "float64", nil},
	{"linalg.solve_triangular", `[@S,@M]`, `{"lower":true}`, []int{3, 4}, "float64", nil},
	{"linalg.lstsq", `[@M,@S]`, ``, []int{4, 3}, "float64", nil},
	{"linalg.pinv", `[@M]`, ``, []int{4, 3}, "float64", nil},
	{"linalg.matrix_rank", `[@S]`, `{"tol":1e-9}`, []int{}, "int64", nil},
	{"linalg.cond", `[@S]`, `{"p":"fro"}`, []int{}, "float64", nil},
	{"linalg.norm", `[@M]`, `{"ord":1}`, []int{}, "float64", nil},
	{"linalg.norm", `[@Z234]`, `{"axis":[1,2]}`, []int{2}, "float64", nil},
	{"linalg.multi_dot", `[@A,@M,@V]`, ``, []int{2}, "float64", nil},
	{"einsum", `["ij,jk->ik",@A,@M]`, ``, []int{2, 4}, "float64", nil},
	// complex numbers: {"real": x, "imag": y} is a complex scalar
	{"multiply", `[@A, {"real":1,"imag":-2}]`, ``, []int{2, 3}, "complex128", func(p pre) *tensor.Tensor { return tensor.Mul(p[A], complex(1, -2)) }},
	{"real", `[{"ref":0}]`, ``, []int{2, 3}, "float64", nil},
	{"real", `[{"real":1.5,"imag":"nan"}]`, ``, []int{}, "float64", nil},
	{"imag", `[{"imag":2}]`, ``, []int{}, "float64", nil},
	{"conj", `[{"real":1,"imag":2}]`, ``, []int{}, "complex128", nil},
	{"angle", `[{"real":1,"imag":1}]`, `{"deg":true}`, []int{}, "float64", func(p pre) *tensor.Tensor { return tensor.Angle(complex(1, 1), true) }},
	{"angle", `[@A]`, ``, []int{2, 3}, "float64", nil},
	// elementwise beyond the ufuncs
	{"frexp", `[@A,0]`, ``, []int{2, 3}, "float64", nil},
	{"frexp", `[@A,1]`, ``, []int{2, 3}, "int32", nil},
	{"modf", `[@A,0]`, ``, []int{2, 3}, "float64", nil},
	{"isclose", `[@A,@A]`, `{"rtol":0.1,"equal_nan":true}`, []int{2, 3}, "bool", nil},
	{"allclose", `[@A,1]`, ``, []int{}, "bool", nil},
	{"array_equal", `[@A,@A]`, `{"equal_nan":true}`, []int{}, "bool", nil},
	{"array_equiv", `[@A,2.5]`, ``, []int{}, "bool", nil},
	{"where", `[@B, @A, 0]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.Where(p[B], p[A], 0) }},
	{"where", `[@B, 1, 2]`, ``, []int{2, 3}, "int64", nil},
	{"where", `[@B, @I4, 1.5]`, ``, []int{2, 3}, "float64", nil},
	{"clip", `[@I, 0, 1]`, ``, []int{2, 3}, "int64", nil},
	{"clip", `[@F4, 0, 1]`, ``, []int{3}, "float32", func(p pre) *tensor.Tensor { return p[F4].Clip(0, 1) }},
	{"astype", `[@A, "int32"]`, ``, []int{2, 3}, "int32", nil},
	// shape
	{"reshape", `[@A, [3, -1]]`, ``, []int{3, 2}, "float64", func(p pre) *tensor.Tensor { return p[A].Reshape(3, -1) }},
	{"reshape", `[@A, 6]`, ``, []int{6}, "float64", nil},
	{"transpose", `[@A]`, ``, []int{3, 2}, "float64", nil},
	{"transpose", `[@Z234, [1, 0, 2]]`, ``, []int{3, 2, 4}, "float64", nil},
	{"ravel", `[@M]`, ``, []int{12}, "float64", nil},
	{"squeeze", `[@Z131]`, ``, []int{3}, "float64", nil},
	{"squeeze", `[@Z131, 0]`, ``, []int{3, 1}, "float64", nil},
	{"expand_dims", `[@A, [0, -1]]`, ``, []int{1, 2, 3, 1}, "float64", nil},
	{"expand_dims", `[@A, [-1, -2]]`, ``, []int{2, 3, 1, 1}, "float64", nil},
	{"expand_dims", `[@A, 1]`, ``, []int{2, 1, 3}, "float64", func(p pre) *tensor.Tensor { return p[A].ExpandDims(1) }},
	{"flip", `[@A]`, ``, []int{2, 3}, "float64", nil},
	{"flip", `[@A, 1]`, ``, []int{2, 3}, "float64", nil},
	{"broadcast_to", `[@F4, [2, 3]]`, ``, []int{2, 3}, "float32", nil},
	{"concatenate", `[[@A, @I], 0]`, ``, []int{4, 3}, "float64", nil},
	{"concatenate", `[[@A, @V]]`, `{"axis":null}`, []int{10}, "float64", nil},
	{"concatenate", `[[@I4, @I4]]`, ``, []int{6}, "int32", nil},
	{"stack", `[[@A, @A], 1]`, ``, []int{2, 2, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.Stack(1, p[A], p[A]) }},
	{"stack", `[[@F4, @I4]]`, ``, []int{2, 3}, "float64", nil},
	{"stack", `[[@A, @A], -1]`, ``, []int{2, 3, 2}, "float64", nil},
	{"rechunk", `[@A, 1]`, ``, []int{2, 3}, "float64", nil},
	{"getitem", `[@M, [0]]`, ``, []int{4}, "float64", nil},
	{"getitem", `[@M, [{"slice":[null,null,-1]}, "...", null]]`, ``, []int{3, 4, 1}, "float64", nil},
	{"getitem", `[@M, [-1, {"slice":[1,3,null]}]]`, ``, []int{2}, "float64", func(p pre) *tensor.Tensor { return p[M].Index(tensor.At(-1), tensor.Range(1, 3)) }},
	{"getitem", `[@A, ["...", 1]]`, ``, []int{2}, "float64", nil},
	{"getitem", `[@A, [@B]]`, ``, []int{-1}, "float64", func(p pre) *tensor.Tensor { return p[A].Index(tensor.Mask(p[B])) }},
	{"getitem", `[@Z234, [@B, "..."]]`, ``, []int{-1, 4}, "float64", nil},
	{"nonzero", `[@M]`, `{"out":1}`, []int{-1}, "int64", nil},
	{"argwhere", `[@M]`, ``, []int{-1, 2}, "int64", nil},
	{"flatnonzero", `[@M]`, ``, []int{-1}, "int64", nil},
	{"compress", `[@F4, @A]`, `{"axis":1}`, []int{2, -1}, "float64", nil},
	{"compress", `[@F4, @A]`, ``, []int{-1}, "float64", nil},
	{"take", `[@M, @I]`, `{"axis":1}`, []int{3, 2, 3}, "float64", nil},
	{"take", `[@M, @I4]`, ``, []int{3}, "float64", func(p pre) *tensor.Tensor { return tensor.Take(p[M], p[I4]) }},
	{"getitem", `[@M, [@I4]]`, ``, []int{3, 4}, "float64", nil},
	{"sort", `[@M]`, ``, []int{3, 4}, "float64", func(p pre) *tensor.Tensor { return p[M].Sort(-1) }},
	{"sort", `[@M]`, `{"axis":0}`, []int{3, 4}, "float64", nil},
	{"sort", `[@M]`, `{"axis":null}`, []int{12}, "float64", func(p pre) *tensor.Tensor { return p[M].Ravel().Sort(0) }},
	{"searchsorted", `[@V, @M]`, `{"side":"right"}`, []int{3, 4}, "int64", nil},
	{"unique", `[@M]`, ``, []int{-1}, "float64", func(p pre) *tensor.Tensor { return tensor.Unique(p[M]) }},
	{"isin", `[@M, @V]`, ``, []int{3, 4}, "bool", nil},
	{"topk", `[@M, 2]`, ``, []int{3, 2}, "float64", func(p pre) *tensor.Tensor { return tensor.TopK(p[M], 2, -1, true) }},
	{"topk", `[@M, 2]`, `{"axis":0,"largest":false,"return_index":true}`, []int{2, 4}, "int64", nil},
	{"extract", `[@B, @A]`, ``, []int{-1}, "float64", func(p pre) *tensor.Tensor { return tensor.Extract(p[B], p[A]) }},
	// linear algebra
	{"matmul", `[@A, @M]`, ``, []int{2, 4}, "float64", func(p pre) *tensor.Tensor { return tensor.MatMul(p[A], p[M]) }},
	{"matmul", `[@M, @V]`, ``, []int{3}, "float64", nil},
	{"dot", `[@F4, @F4]`, ``, []int{}, "float32", nil},
	{"dot", `[@A]`, `{"b":@M}`, []int{2, 4}, "float64", nil},
	{"outer", `[@F4, @V]`, ``, []int{3, 4}, "float64", nil},
	{"tensordot", `[@A, @M, 1]`, ``, []int{2, 4}, "float64", func(p pre) *tensor.Tensor { return tensor.TensorDotN(p[A], p[M], 1) }},
	{"tensordot", `[@M, @V, [[1], [0]]]`, ``, []int{3}, "float64", nil},
	{"tensordot", `[@M, @V, [1, 0]]`, ``, []int{3}, "float64", nil},
	{"tensordot", `[@A, @A]`, ``, []int{}, "float64", nil},
	// files on the workers ($DIR is a directory the test fills)
	{"from_npy", `["$DIR/a.npy"]`, ``, []int{2, 2}, "int32", nil},
	{"from_zarr", `["$DIR/z.zarr"]`, `{"chunks":[2,5]}`, []int{4, 5}, "float64", nil},
	{"to_npy", `[@A, "$DIR/out.npy"]`, ``, []int{}, "int64", nil},
	{"to_zarr", `[@A, "$DIR/out.zarr"]`, `{"chunks":[1,3],"compressor":"zstd"}`, []int{}, "int64", nil},
	// medians and quantiles
	{"median", `[@A]`, ``, []int{}, "float64", func(p pre) *tensor.Tensor { return p[A].Median() }},
	{"nanmedian", `[@I]`, `{"axis":1,"keepdims":true}`, []int{2, 1}, "float64", nil},
	{"quantile", `[@A, [0.1, 0.9], 0]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.Quantile(p[A], []float64{0.1, 0.9}, "", tensor.Axis(0)) }},
	{"quantile", `[@F4, 0.5]`, `{"method":"nearest"}`, []int{}, "float32", nil},
	{"percentile", `[@I, [10, 90]]`, `{"method":"lower"}`, []int{2}, "int64", nil},
	{"nanquantile", `[@Z234, 0.5]`, `{"axis":[0,2]}`, []int{3}, "float64", nil},
	{"nanpercentile", `[@I4, 50]`, ``, []int{}, "float64", nil},
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tempDir is a temporary directory, JSON-escaped.
func tempDir(t *testing.T) string {
	q, _ := json.Marshal(t.TempDir())
	return string(q[1 : len(q)-1])
}

// fileDir makes a directory holding a.npy, (2, 2) int32, and the metadata
// of z.zarr, (4, 5) float64.
func fileDir(t *testing.T) string {
	dir := tempDir(t)
	a, err := ndarray.FromInt32s([]int{2, 2}, []int32{1, 2, 3, 4})
	must(t, err)
	must(t, npy.WriteFile(filepath.Join(dir, "a.npy"), a))
	z, err := zarr.NewArray([]int{4, 5}, []int{2, 5}, ndarray.Float64, "")
	must(t, err)
	must(t, os.Mkdir(filepath.Join(dir, "z.zarr"), 0o755))
	must(t, z.WriteMeta(filepath.Join(dir, "z.zarr")))
	return dir
}

func TestBuildEveryFunction(t *testing.T) {
	dir := fileDir(t)
	covered := map[string]bool{}
	for i, c := range buildCases {
		covered[c.fn] = true
		t.Run(fmt.Sprintf("%d_%s", i, c.fn), func(t *testing.T) {
			node := `{"fn":"` + c.fn + `","args":` + c.args
			if c.kwargs != "" {
				node += `,"kwargs":` + c.kwargs
			}
			node = strings.ReplaceAll(node+"}", "$DIR", dir)
			p := parse(t, append(slices.Clone(prelude), node)...)
			ts, err := p.Build(true)
			if err != nil {
				t.Fatalf("%s: %v", node, err)
			}
			if len(ts) != len(p.Nodes) {
				t.Fatalf("%d tensors for %d nodes", len(ts), len(p.Nodes))
			}
			got := ts[len(ts)-1]
			if !slices.Equal(got.Shape(), c.shape) || got.DType().String() != c.dtype {
				t.Errorf("%s: got %v %v, NumPy gives %v %s", node, got.Shape(), got.DType(), c.shape, c.dtype)
			}
			if c.direct != nil {
				want := c.direct(pre(ts[:len(prelude)]))
				if want.Err() != nil {
					t.Fatalf("direct call: %v", want.Err())
				}
				if !slices.Equal(got.Shape(), want.Shape()) || got.DType() != want.DType() {
					t.Errorf("%s: got %v %v, the Go API gives %v %v", node, got.Shape(), got.DType(), want.Shape(), want.DType())
				}
			}
		})
	}
	fns := calls.Functions()
	if !slices.IsSortedFunc(fns, func(a, b calls.Function) int { return strings.Compare(a.Name, b.Name) }) {
		t.Errorf("Functions() is not sorted by name")
	}
	listed := map[string]bool{}
	ufuncs := map[string]bool{}
	for _, n := range append(ndarray.UnaryOpNames(), ndarray.BinaryOpNames()...) {
		ufuncs[n] = true // TestEveryUfuncBuilds
	}
	// Functions an op declares (ops.Descriptor.Calls) are built by the
	// op's own schema and tested beside the op.
	declared := map[string]bool{}
	for _, d := range ops.Descriptors() {
		for _, c := range d.Calls {
			declared[c.Name] = true
		}
	}
	for _, f := range fns {
		listed[f.Name] = true
		if !covered[f.Name] && !ufuncs[f.Name] && !declared[f.Name] {
			t.Errorf("function %q (params %v) has no build case", f.Name, f.Params)
		}
	}
	for fn := range covered {
		if !listed[fn] {
			t.Errorf("build case for %q, which Functions() does not list", fn)
		}
	}
}

// npyData is an array as a data node's "data": base64 of its .npy bytes.
func npyData(t *testing.T, a *ndarray.Array) string {
	t.Helper()
	var buf bytes.Buffer
	must(t, npy.Write(&buf, a))
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func newSession(t *testing.T) *phobos.Session {
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	must(t, err)
	t.Cleanup(func() { sess.Close() })
	return sess
}

type result struct {
	node  int
	shape []int
	dtype string
	vals  []float64
}

// run builds the program (without like nodes), executes the nodes of want
// and compares their values.
func run(t *testing.T, sess *phobos.Session, p calls.Program, want []result) {
	t.Helper()
	ts, err := p.Build(false)
	must(t, err)
	sel := make([]*tensor.Tensor, len(want))
	for i, w := range want {
		sel[i] = ts[w.node]
	}
	got, err := sess.Execute(context.Background(), sel...)
	must(t, err)
	for i, w := range want {
		a := got[i]
		if !slices.Equal(a.Shape(), w.shape) || a.DType().String() != w.dtype {
			t.Errorf("node %d: got %v %v, want %v %s", w.node, a.Shape(), a.DType(), w.shape, w.dtype)
			continue
		}
		for j, v := range w.vals {
			if g := a.AtFlat(j); math.Abs(g-v) > 1e-12*max(1, math.Abs(v)) {
				t.Errorf("node %d (%s): element %d is %v, want %v", w.node, p.Nodes[w.node].Fn, j, g, v)
			}
		}
	}
}

func TestExecute(t *testing.T) {
	sess := newSession(t)
	xa, err := ndarray.FromFloat64s([]int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	must(t, err)
	x := npyData(t, xa)
	p := parse(t,
		`{"data":"`+x+`","chunks":[1,2]}`,                                             // 0
		`{"fn":"sum","args":[{"ref":0}],"kwargs":{"axis":0}}`,                         // 1
		`{"fn":"mean","args":[{"ref":0}]}`,                                            // 2
		`{"fn":"getitem","args":[{"ref":0},[1,{"slice":[null,null,-1]}]]}`,            // 3
		`{"fn":"greater","args":[{"ref":0},2.5]}`,                                     // 4
		`{"fn":"where","args":[{"ref":4},{"ref":0},0]}`,                               // 5
		`{"fn":"cumsum","args":[{"ref":0}]}`,                                          // 6
		`{"fn":"transpose","args":[{"ref":0}]}`,                                       // 7
		`{"fn":"matmul","args":[{"ref":0},{"ref":7}]}`,                                // 8
		`{"fn":"var","args":[{"ref":0}],"kwargs":{"ddof":1}}`,                         // 9
		`{"fn":"std","args":[{"ref":0},1]}`,                                           // 10
		`{"fn":"argmax","args":[{"ref":0}],"kwargs":{"axis":1}}`,                      // 11
		`{"fn":"arange","args":[0,10,1],"kwargs":{"chunks":3}}`,                       // 12
		`{"fn":"reshape","args":[{"ref":12},[2,5]]}`,                                  // 13
		`{"fn":"sum","args":[{"ref":13},1]}`,                                          // 14
		`{"fn":"linspace","args":[0,1,5]}`,                                            // 15
		`{"fn":"eye","args":[2,3,1]}`,                                                 // 16
		`{"fn":"clip","args":[{"ref":12},2,7]}`,                                       // 17
		`{"fn":"full","args":[[2],-1.7]}`,                                             // 18
		`{"fn":"astype","args":[{"ref":18},"int32"]}`,                                 // 19
		`{"fn":"stack","args":[[{"ref":15},{"ref":15}],1]}`,                           // 20
		`{"fn":"count_nonzero","args":[{"ref":4}]}`,                                   // 21
		`{"fn":"flip","args":[{"ref":0}]}`,                                            // 22
		`{"fn":"tensordot","args":[{"ref":0},{"ref":0},[[0,1],[0,1]]]}`,               // 23
		`{"fn":"concatenate","args":[[{"ref":0},{"ref":12}]],"kwargs":{"axis":null}}`, // 24
		`{"fn":"power","args":[{"ref":12},2]}`,                                        // 25
	)
	s := math.Sqrt(2.0 / 3)
	run(t, sess, p, []result{
		{0, []int{2, 3}, "float64", []float64{1, 2, 3, 4, 5, 6}},
		{1, []int{3}, "float64", []float64{5, 7, 9}},
		{2, []int{}, "float64", []float64{3.5}},
		{3, []int{3}, "float64", []float64{6, 5, 4}},
		{5, []int{2, 3}, "float64", []float64{0, 0, 3, 4, 5, 6}},
		{6, []int{6}, "float64", []float64{1, 3, 6, 10, 15, 21}},
		{8, []int{2, 2}, "float64", []float64{14, 32, 32, 77}},
		{9, []int{}, "float64", []float64{3.5}},
		{10, []int{2}, "float64", []float64{s, s}},
		{11, []int{2}, "int64", []float64{2, 2}},
		{14, []int{2}, "int64", []float64{10, 35}},
		{15, []int{5}, "float64", []float64{0, 0.25, 0.5, 0.75, 1}},
		{16, []int{2, 3}, "float64", []float64{0, 1, 0, 0, 0, 1}},
		{17, []int{10}, "int64", []float64{2, 2, 2, 3, 4, 5, 6, 7, 7, 7}},
		{19, []int{2}, "int32", []float64{-1, -1}},
		{20, []int{5, 2}, "float64", []float64{0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1}},
		{21, []int{}, "int64", []float64{4}},
		{22, []int{2, 3}, "float64", []float64{6, 5, 4, 3, 2, 1}},
		{23, []int{}, "float64", []float64{91}},
		{24, []int{16}, "float64", []float64{1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{25, []int{10}, "int64", []float64{0, 1, 4, 9, 16, 25, 36, 49, 64, 81}},
	})
}

// TestExecuteRandom: a random node is the Go Generator's stream, value for
// value.
func TestExecuteRandom(t *testing.T) {
	sess := newSession(t)
	p := parse(t,
		`{"fn":"random","args":[7,3,"normal",1,2,[1000]],"kwargs":{"chunks":300}}`,
		`{"fn":"random","kwargs":{"seed":7,"stream":4,"dist":"randint","p1":-3,"p2":3,"shape":[500]}}`,
	)
	ts, err := p.Build(false)
	must(t, err)
	direct := tensor.RandomStream(7, 3, rng.Normal, 1, 2, []int{1000}, tensor.Chunks(300))
	got, err := sess.Execute(context.Background(), ts[0], ts[1], direct)
	must(t, err)
	if !slices.Equal(got[0].Float64s(), got[2].Float64s()) {
		t.Errorf("random node differs from tensor.RandomStream")
	}
	for _, v := range got[1].Int64s() {
		if v < -3 || v >= 3 {
			t.Fatalf("randint(-3, 3) gave %d", v)
		}
	}
}

// TestExecuteFiles writes with to_npy and to_zarr and reads back with
// from_npy and from_zarr.
func TestExecuteFiles(t *testing.T) {
	sess := newSession(t)
	dir := tempDir(t)
	w := parse(t,
		`{"fn":"arange","args":[0,12,1],"kwargs":{"chunks":5}}`,
		`{"fn":"reshape","args":[{"ref":0},[3,4]]}`,
		`{"fn":"to_npy","args":[{"ref":1},"`+dir+`/x.npy"]}`,
		`{"fn":"to_zarr","args":[{"ref":1},"`+dir+`/x.zarr"],"kwargs":{"chunks":[2,3]}}`,
	)
	ts, err := w.Build(false)
	must(t, err)
	if _, err := sess.Execute(context.Background(), ts[2], ts[3]); err != nil {
		t.Fatal(err)
	}
	r := parse(t,
		`{"fn":"from_npy","args":["`+dir+`/x.npy"],"kwargs":{"chunks":2}}`,
		`{"fn":"from_zarr","args":["`+dir+`/x.zarr"]}`,
		`{"fn":"sum","args":[{"ref":0},1]}`,
		`{"fn":"getitem","args":[{"ref":1},[{"slice":[null,null,null]},3]]}`,
	)
	run(t, sess, r, []result{
		{2, []int{3}, "int64", []float64{6, 22, 38}},
		{3, []int{3}, "int64", []float64{3, 7, 11}},
	})
}

var errorCases = []struct {
	name  string
	nodes []string
	like  bool
	kind  string
	node  int
}{
	{"unknown function", []string{`{"fn":"fft","args":[1]}`}, false, "NotImplementedError", 0},
	{"eigh UPLO", []string{`{"fn":"zeros","args":[[2,2]]}`, `{"fn":"linalg.eigh","args":[{"ref":0}],"kwargs":{"UPLO":"X"}}`}, false, "ValueError", 1},
	{"eigvalsh not square", []string{`{"fn":"zeros","args":[[2,3]]}`, `{"fn":"linalg.eigvalsh","args":[{"ref":0}]}`}, false, "ValueError", 1},
	{"too many args", []string{`{"fn":"add","args":[1,2,3]}`}, false, "TypeError", 0},
	{"too few args", []string{`{"fn":"add","args":[1]}`}, false, "TypeError", 0},
	{"unexpected kwarg", []string{`{"fn":"add","args":[1,2],"kwargs":{"out":1}}`}, false, "TypeError", 0},
	{"duplicate arg", []string{`{"fn":"add","args":[1,2],"kwargs":{"x1":3}}`}, false, "TypeError", 0},
	{"shape mismatch", []string{`{"fn":"zeros","args":[[2,3]]}`, `{"fn":"zeros","args":[4]}`, `{"fn":"add","args":[{"ref":0},{"ref":1}]}`}, false, "ValueError", 2},
	{"getitem out of range", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"getitem","args":[{"ref":0},[5]]}`}, false, "IndexError", 1},
	{"getitem too many indices", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"getitem","args":[{"ref":0},[0,0]]}`}, false, "IndexError", 1},
	{"getitem bad item", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"getitem","args":[{"ref":0},[1.5]]}`}, false, "IndexError", 1},
	{"getitem float array", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"getitem","args":[{"ref":0},[{"ref":0}]]}`}, false, "IndexError", 1},
	{"getitem mask of the wrong shape", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"zeros","args":[4]}`, `{"fn":"greater","args":[{"ref":1},0]}`,
		`{"fn":"getitem","args":[{"ref":0},[{"ref":2}]]}`}, false, "IndexError", 3},
	{"forward ref", []string{`{"fn":"negative","args":[{"ref":1}]}`, `{"fn":"zeros","args":[3]}`}, false, "TypeError", 0},
	{"self ref", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"negative","args":[{"ref":1}]}`}, false, "TypeError", 1},
	{"negative ref", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"negative","args":[{"ref":-1}]}`}, false, "TypeError", 1},
	{"object not a ref", []string{`{"fn":"negative","args":[{"x":1}]}`}, false, "TypeError", 0},
	{"string operand", []string{`{"fn":"negative","args":["one"]}`}, false, "TypeError", 0},
	{"like without like", []string{`{"like":{"shape":[2],"dtype":"float64"}}`}, false, "TypeError", 0},
	{"like bad dtype", []string{`{"like":{"shape":[2],"dtype":"complex256"}}`}, true, "TypeError", 0},
	{"like negative shape", []string{`{"like":{"shape":[-2],"dtype":"float64"}}`}, true, "ValueError", 0},
	{"fn and data", []string{`{"fn":"zeros","args":[3],"data":"AAAA"}`}, false, "TypeError", 0},
	{"empty node", []string{`{}`}, false, "TypeError", 0},
	{"bad base64", []string{`{"data":"%%%"}`}, false, "TypeError", 0},
	{"not npy", []string{`{"data":"AAAA"}`}, false, "TypeError", 0},
	{"bad dtype", []string{`{"fn":"zeros","args":[3],"kwargs":{"dtype":"str"}}`}, false, "TypeError", 0},
	{"dtype not a string", []string{`{"fn":"ones","args":[3,5]}`}, false, "TypeError", 0},
	{"negative shape", []string{`{"fn":"zeros","args":[[2,-1]]}`}, false, "ValueError", 0},
	{"huge shape", []string{`{"fn":"ones","args":[[4294967296,4294967296]]}`}, false, "ValueError", 0},
	{"bad chunks", []string{`{"fn":"zeros","args":[3],"kwargs":{"chunks":"big"}}`}, false, "TypeError", 0},
	{"arange step 0", []string{`{"fn":"arange","args":[0,10,0]}`}, false, "ZeroDivisionError", 0},
	{"arange step 0.0", []string{`{"fn":"arange","args":[0,1,0.0]}`}, false, "ZeroDivisionError", 0},
	{"arange huge", []string{`{"fn":"arange","args":[0,1e300,1]}`}, false, "ValueError", 0},
	{"arange nan", []string{`{"fn":"arange","args":[0,"nan",1]}`}, false, "ValueError", 0},
	{"linspace negative num", []string{`{"fn":"linspace","args":[0,1,-1]}`}, false, "ValueError", 0},
	{"eye negative", []string{`{"fn":"eye","args":[-1]}`}, false, "ValueError", 0},
	{"random unknown dist", []string{`{"fn":"random","args":[1,0,"cauchy",0,1,[3]]}`}, false, "ValueError", 0},
	{"random negative seed", []string{`{"fn":"random","args":[-1,0,"uniform",0,1,[3]]}`}, false, "TypeError", 0},
	{"randint low >= high", []string{`{"fn":"random","args":[1,0,"randint",5,5,[3]]}`}, false, "ValueError", 0},
	{"randint float dtype", []string{`{"fn":"random","args":[1,0,"randint",0,5,[3],"float64"]}`}, false, "TypeError", 0},
	{"expand_dims axis", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"expand_dims","args":[{"ref":0},5]}`}, false, "AxisError", 1},
	{"expand_dims repeated", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"expand_dims","args":[{"ref":0},[0,0]]}`}, false, "ValueError", 1},
	{"argmax axis list", []string{`{"fn":"zeros","args":[[2,2]]}`, `{"fn":"argmax","args":[{"ref":0},[0,1]]}`}, false, "TypeError", 1},
	{"reshape size", []string{`{"fn":"zeros","args":[6]}`, `{"fn":"reshape","args":[{"ref":0},[4,2]]}`}, false, "ValueError", 1},
	{"concatenate none", []string{`{"fn":"concatenate","args":[[]]}`}, false, "ValueError", 0},
	{"concatenate 0-d", []string{`{"fn":"concatenate","args":[[1,2]]}`}, false, "ValueError", 0},
	{"stack not a list", []string{`{"fn":"stack","args":[1]}`}, false, "TypeError", 0},
	{"tensordot bad axes", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"tensordot","args":[{"ref":0},{"ref":0},"x"]}`}, false, "TypeError", 1},
	{"astype no dtype", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"astype","args":[{"ref":0}]}`}, false, "TypeError", 1},
	{"from_npy no path", []string{`{"fn":"from_npy","args":[""]}`}, false, "TypeError", 0},
	{"zeros without shape", []string{`{"fn":"zeros"}`}, false, "TypeError", 0},
	{"linspace without start", []string{`{"fn":"linspace"}`}, false, "TypeError", 0},
	{"eye too large", []string{`{"fn":"eye","args":[4294967296,4294967296]}`}, false, "ValueError", 0},
	{"randint out of int64", []string{`{"fn":"random","args":[1,0,"randint",-1e300,1e300,[3]]}`}, false, "ValueError", 0},
	{"negative of bool", []string{`{"fn":"ones","args":[2,"bool"]}`, `{"fn":"negative","args":[{"ref":0}]}`}, false, "TypeError", 1},
	{"sum axis out of bounds", []string{`{"fn":"zeros","args":[2]}`, `{"fn":"sum","args":[{"ref":0},5]}`}, false, "AxisError", 1},
	{"slice step 0", []string{`{"fn":"zeros","args":[3]}`, `{"fn":"getitem","args":[{"ref":0},[{"slice":[null,null,0]}]]}`}, false, "ValueError", 1},
}

func checkKind(t *testing.T, err error, kind string, node int) {
	t.Helper()
	var ce *calls.Error
	if !errors.As(err, &ce) {
		t.Fatalf("got %T %v, want a *calls.Error", err, err)
	}
	if ce.Kind != kind || ce.Node != node {
		t.Errorf("got %s at node %d (%v), want %s at node %d", ce.Kind, ce.Node, err, kind, node)
	}
}

func TestBuildErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			ts, err := parse(t, c.nodes...).Build(c.like)
			if err == nil {
				t.Fatalf("no error; built %v", ts[len(ts)-1])
			}
			checkKind(t, err, c.kind, c.node)
		})
	}
	t.Run("too many nodes", func(t *testing.T) {
		p := calls.Program{Nodes: make([]calls.Node, calls.MaxNodes+1)}
		for i := range p.Nodes {
			p.Nodes[i] = calls.Node{Fn: "zeros", Args: []json.RawMessage{json.RawMessage(`1`)}}
		}
		_, err := p.Build(true)
		checkKind(t, err, "ValueError", 0)
	})
	// Errors of the call (sqrt) and of its arguments' binding (add) both name it.
	for fn, args := range map[string]string{"sqrt": `["x"]`, "add": `["x",1,2]`} {
		t.Run("error names "+fn, func(t *testing.T) {
			_, err := parse(t, `{"fn":"zeros","args":[3]}`, `{"fn":"`+fn+`","args":`+args+`}`).Build(false)
			var ce *calls.Error
			if !errors.As(err, &ce) || ce.Fn != fn || ce.Node != 1 || !strings.HasPrefix(err.Error(), fn+":") {
				t.Errorf("got %v", err)
			}
		})
	}
}

var fuzzSeeds = []string{
	`{"nodes":[{"fn":"zeros","args":[[2,3]]},{"fn":"sum","args":[{"ref":0}],"kwargs":{"axis":1,"keepdims":true}}]}`,
	`{"nodes":[{"like":{"shape":[3,4],"dtype":"int32","chunks":[[1,2],[4]]}},{"fn":"getitem","args":[{"ref":0},[{"slice":[null,null,-1]},"...",null,1]]}]}`,
	`{"nodes":[{"fn":"arange","args":[0,10,1],"kwargs":{"chunks":{"bytes":16}}},{"fn":"reshape","args":[{"ref":0},[2,-1]]},{"fn":"tensordot","args":[{"ref":1},{"ref":1},[[0],[0]]]}]}`,
	`{"nodes":[{"fn":"random","args":[1,2,"randint",0,9,[4]]},{"fn":"where","args":[{"fn":"x"},1,2]},{"fn":"expand_dims","args":[{"ref":0},[0,-1]]}]}`,
	`{"nodes":[{"fn":"full","args":[[2],"nan","float32"]},{"fn":"concatenate","args":[[{"ref":0},{"ref":0}]],"kwargs":{"axis":null}},{"fn":"cumsum","args":[{"ref":1}]}]}`,
	`{"nodes":[{"data":"k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAADwPwAAAAAAAABA","chunks":1},{"fn":"stack","args":[[{"ref":0},{"ref":0}],-1]}]}`,
}

func FuzzProgram(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p calls.Program
		if json.Unmarshal(b, &p) != nil {
			return
		}
		for _, like := range []bool{true, false} {
			ts, err := p.Build(like)
			if err != nil {
				var ce *calls.Error
				if !errors.As(err, &ce) {
					t.Fatalf("Build(%v): %T %v is not a *calls.Error", like, err, err)
				}
				continue
			}
			if len(ts) != len(p.Nodes) {
				t.Fatalf("Build(%v): %d tensors for %d nodes", like, len(ts), len(p.Nodes))
			}
			for i, x := range ts {
				if x == nil || x.Err() != nil {
					t.Fatalf("Build(%v): node %d is %v without an error", like, i, x)
				}
			}
		}
	})
}

// Every ufunc of ndarray is a function of the registry and builds, from
// each dtype, what the Go API builds (or refuses it alike).
func TestEveryUfuncBuilds(t *testing.T) {
	dts := []string{"bool", "int32", "int64", "float32", "float64"}
	likes := make([]*tensor.Tensor, len(dts))
	for i, dt := range dts {
		d, err := ndarray.ParseDType(dt)
		if err != nil {
			t.Fatal(err)
		}
		likes[i] = tensor.Full([]int{2, 3}, 0, tensor.WithDType(d))
	}
	listed := map[string]bool{}
	for _, f := range calls.Functions() {
		listed[f.Name] = true
	}
	check := func(name string, args []string, direct *tensor.Tensor) {
		t.Helper()
		nodes := []string{}
		for _, dt := range dts {
			nodes = append(nodes, `{"like":{"shape":[2,3],"dtype":"`+dt+`"}}`)
		}
		nodes = append(nodes, `{"fn":"`+name+`","args":[`+strings.Join(args, ",")+`]}`)
		ts, err := parse(t, nodes...).Build(true)
		if direct.Err() != nil {
			if err == nil {
				t.Errorf("%s%v: built, the Go API refuses: %v", name, args, direct.Err())
			}
			return
		}
		if err != nil {
			t.Errorf("%s%v: %v", name, args, err)
			return
		}
		got := ts[len(ts)-1]
		if !slices.Equal(got.Shape(), direct.Shape()) || got.DType() != direct.DType() {
			t.Errorf("%s%v: got %v %v, the Go API gives %v %v", name, args, got.Shape(), got.DType(), direct.Shape(), direct.DType())
		}
	}
	for _, name := range ndarray.UnaryOpNames() {
		if !listed[name] {
			t.Errorf("ufunc %q is not a registry function", name)
		}
		for i := range dts {
			check(name, []string{fmt.Sprintf(`{"ref":%d}`, i)}, tensor.Ufunc(name, likes[i]))
		}
	}
	for _, name := range ndarray.BinaryOpNames() {
		if !listed[name] {
			t.Errorf("ufunc %q is not a registry function", name)
		}
		for i := range dts {
			for j := range dts {
				check(name, []string{fmt.Sprintf(`{"ref":%d}`, i), fmt.Sprintf(`{"ref":%d}`, j)}, tensor.Ufunc(name, likes[i], likes[j]))
			}
			check(name, []string{fmt.Sprintf(`{"ref":%d}`, i), "2"}, tensor.Ufunc(name, likes[i], int64(2)))
		}
	}
}
