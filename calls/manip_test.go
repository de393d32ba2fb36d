package calls_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/tensor"
)

// The manipulation functions' build cases join TestBuildEveryFunction's;
// shapes and dtypes are NumPy 1.24's for the same calls on the prelude.
func init() {
	buildCases = append(buildCases, []buildCase{
		{"roll", `[@A, 1]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return p[A].Roll(1) }},
		{"roll", `[@Z234, [1, 2], [0, 2]]`, ``, []int{2, 3, 4}, "float64", nil},
		{"repeat", `[@A, 2]`, ``, []int{12}, "float64", func(p pre) *tensor.Tensor { return p[A].Repeat(2) }},
		{"repeat", `[@I4, [1, 2, 0]]`, `{"axis":0}`, []int{3}, "int32", nil},
		{"tile", `[@F4, [2, 2]]`, ``, []int{2, 6}, "float32", func(p pre) *tensor.Tensor { return p[F4].Tile(2, 2) }},
		{"swapaxes", `[@Z234, 0, 2]`, ``, []int{4, 3, 2}, "float64", nil},
		{"moveaxis", `[@Z234, [0, 1], [2, 0]]`, ``, []int{3, 4, 2}, "float64", nil},
		{"rollaxis", `[@Z234, 2]`, ``, []int{4, 2, 3}, "float64", nil},
		{"hstack", `[[@A, @I]]`, ``, []int{2, 6}, "float64", nil},
		{"vstack", `[[@F4, @I4]]`, ``, []int{2, 3}, "float64", nil},
		{"dstack", `[[@A, @A]]`, ``, []int{2, 3, 2}, "float64", nil},
		{"column_stack", `[[@F4, @I4]]`, ``, []int{3, 2}, "float64", nil},
		{"atleast_1d", `[2.5]`, ``, []int{1}, "float64", nil},
		{"atleast_2d", `[@F4]`, ``, []int{1, 3}, "float32", nil},
		{"atleast_3d", `[@A]`, ``, []int{2, 3, 1}, "float64", nil},
		{"diff", `[@A]`, ``, []int{2, 2}, "float64", func(p pre) *tensor.Tensor { return p[A].Diff(1, -1, nil, nil) }},
		{"diff", `[@B]`, `{"axis":0}`, []int{1, 3}, "bool", nil},
		{"diff", `[@I]`, `{"prepend":0}`, []int{2, 3}, "int64", nil},
		{"ediff1d", `[@I]`, `{"to_end":@I4}`, []int{8}, "int64", nil},
		{"trapz", `[@A]`, ``, []int{2}, "float64", nil},
		{"trapz", `[@I]`, `{"dx":2}`, []int{2}, "float64", nil},
		{"pad", `[@A, 1]`, ``, []int{4, 5}, "float64", nil},
		{"pad", `[@I4, [1, 2], "reflect"]`, ``, []int{6}, "int32", nil},
		{"pad", `[@A, [[1, 0], [0, 2]]]`, `{"constant_values":[[1, 2], [3, 4]]}`, []int{3, 5}, "float64", nil},
		{"pad", `[@A, [[1, 0], [0, 2]]]`, `{"constant_values":"nan"}`, []int{3, 5}, "float64", nil},
		{"pad", `[@A, [[1, 0], [0, 2]]]`, `{"constant_values":[["nan", 1], [2, "-inf"]]}`, []int{3, 5}, "float64", nil},
		{"pad", `[@B, 1]`, `{"constant_values":false}`, []int{4, 5}, "bool", nil},
		{"tril", `[@A]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return p[A].Tril(0) }},
		{"triu", `[@M, 1]`, ``, []int{3, 4}, "float64", nil},
		{"diag", `[@V]`, ``, []int{4, 4}, "float64", nil},
		{"diag", `[@M, 1]`, ``, []int{3}, "float64", nil},
		{"diagflat", `[@A]`, ``, []int{6, 6}, "float64", nil},
		{"diagonal", `[@Z234, 0, 0, 2]`, ``, []int{3, 2}, "float64", nil},
		{"trace", `[@I]`, ``, []int{}, "int64", nil},
		{"trace", `[@A]`, `{"dtype":"float32"}`, []int{}, "float32", nil},
		{"meshgrid", `[[@F4, @V]]`, `{"out":1}`, []int{4, 3}, "float64", nil},
		{"meshgrid", `[[@F4, @V]]`, `{"indexing":"ij","sparse":true}`, []int{3, 1}, "float32", nil},
		{"indices", `[[2, 3]]`, ``, []int{2, 2, 3}, "int64", nil},
		{"indices", `[[2, 3]]`, `{"sparse":true,"out":1}`, []int{1, 3}, "int64", nil},
		{"indices", `[[2, 3], "int32"]`, ``, []int{2, 2, 3}, "int32", nil},
		{"append", `[@A, @I]`, ``, []int{12}, "float64", nil},
		{"append", `[@A, @A]`, `{"axis":0}`, []int{4, 3}, "float64", nil},
		{"insert", `[@A, 1, 5.0]`, `{"axis":1}`, []int{2, 4}, "float64", nil},
		{"insert", `[@I4, [0, 2], 2.5]`, ``, []int{5}, "int32", nil},
		{"insert", `[@M, {"slice":[0, 2, null]}, 1]`, `{"axis":0}`, []int{5, 4}, "float64", nil},
		{"delete", `[@M, 1]`, `{"axis":1}`, []int{3, 3}, "float64", nil},
		{"delete", `[@V, [0, 1]]`, ``, []int{2}, "float64", nil},
		{"delete", `[@M, {"slice":[null, null, 2]}]`, ``, []int{6}, "float64", nil},
		{"array_split", `[@V, 3]`, ``, []int{2}, "float64", nil},
		{"array_split", `[@M, [1, 3]]`, `{"axis":1,"out":2}`, []int{3, 1}, "float64", nil},
		{"rot90", `[@M]`, ``, []int{4, 3}, "float64", nil},
		{"rot90", `[@Z234, 1, [1, 2]]`, ``, []int{2, 4, 3}, "float64", nil},
	}...)
}

// TestManipCallErrors: NumPy's exception for each mistake.
func TestManipCallErrors(t *testing.T) {
	checkKinds(t, []kindCase{
		{`{"fn":"delete","args":[@V, 4]}`, "IndexError"},
		{`{"fn":"insert","args":[@V, [0, -6], 1.0]}`, "IndexError"},
		{`{"fn":"roll","args":[@A, 1, 2]}`, "AxisError"},
		{`{"fn":"pad","args":[@A, 1, "median"]}`, "ValueError"},
		{`{"fn":"pad","args":[@A, [1, 2, 3]]}`, "ValueError"},
		{`{"fn":"pad","args":[@A, 1],"kwargs":{"constant_values":["nan", "x"]}}`, "ValueError"},
		{`{"fn":"array_split","args":[@V, 0]}`, "ValueError"},
		{`{"fn":"rot90","args":[@A, 1, [0, 1, 2]]}`, "ValueError"},
		{`{"fn":"ediff1d","args":[@B]}`, "TypeError"},
		{`{"fn":"meshgrid","args":[[@V]],"kwargs":{"out":1}}`, "ValueError"},
		{`{"fn":"diagonal","args":[@V]}`, "ValueError"},
	})
}
