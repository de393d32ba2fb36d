package calls_test

import (
	"github.com/phobos-tensor/phobos/tensor"
)

// The statistics functions' build cases, appended to buildCases so
// TestBuildEveryFunction checks them (shapes and dtypes from NumPy 1.24 on
// the prelude's arrays; histogram_bin_count is Phobos's own).
func init() {
	buildCases = append(buildCases, []buildCase{
		{"nansum", `[@A]`, ``, []int{}, "float64", func(p pre) *tensor.Tensor { return p[A].NanSum() }},
		{"nansum", `[@I4]`, ``, []int{}, "int64", nil},
		{"nansum", `[@B]`, `{"dtype":"int32"}`, []int{}, "int32", nil},
		{"nanprod", `[@A, 0]`, ``, []int{3}, "float64", nil},
		{"nanmean", `[@F4]`, ``, []int{}, "float32", nil},
		{"nanmean", `[@A, 1]`, `{"keepdims":true}`, []int{2, 1}, "float64", func(p pre) *tensor.Tensor { return p[A].NanMean(tensor.Axis(1), tensor.KeepDims()) }},
		{"nanmin", `[@F4]`, ``, []int{}, "float32", nil},
		{"nanmax", `[@I, 1, true]`, ``, []int{2, 1}, "int64", nil},
		{"nanargmin", `[@A, 1]`, ``, []int{2}, "int64", func(p pre) *tensor.Tensor { return p[A].NanArgMin(tensor.Axis(1)) }},
		{"nanargmax", `[@I]`, ``, []int{}, "int64", nil},
		{"nanvar", `[@I]`, `{"ddof":1}`, []int{}, "float64", nil},
		{"nanstd", `[@F4]`, ``, []int{}, "float32", nil},
		{"nancumsum", `[@A]`, ``, []int{6}, "float64", func(p pre) *tensor.Tensor { return p[A].Ravel().NanCumSum(0) }},
		{"nancumprod", `[@I4, 0]`, ``, []int{3}, "int64", nil},
		{"ptp", `[@A]`, ``, []int{}, "float64", func(p pre) *tensor.Tensor { return p[A].Ptp() }},
		{"ptp", `[@I4, 0]`, ``, []int{}, "int32", nil},
		{"average", `[@A]`, ``, []int{}, "float64", nil},
		{"average", `[@I, 1]`, ``, []int{2}, "float64", nil},
		{"average", `[@A]`, `{"axis":0,"weights":@A}`, []int{3}, "float64", nil},
		{"average", `[@A]`, `{"weights":@I,"returned":true,"out":1}`, []int{}, "float64", nil},
		{"cov", `[@M]`, ``, []int{3, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.Cov(p[M]) }},
		{"cov", `[@V]`, ``, []int{}, "float64", nil},
		{"cov", `[@M]`, `{"rowvar":false}`, []int{4, 4}, "float64", nil},
		{"cov", `[@F4]`, `{"dtype":"float32"}`, []int{}, "float32", nil},
		{"corrcoef", `[@M]`, ``, []int{3, 3}, "float64", nil},
		{"corrcoef", `[@M, @M]`, ``, []int{6, 6}, "float64", nil},
		{"bincount", `[@I4]`, `{"minlength":1}`, []int{1}, "int64", nil},
		{"bincount", `[@I4]`, `{"weights":@F4,"minlength":2}`, []int{2}, "float64", nil},
		{"digitize", `[@A, @V]`, ``, []int{2, 3}, "int64", nil},
		{"histogram", `[@A]`, ``, []int{10}, "int64", nil},
		{"histogram", `[@A, 4]`, `{"out":1}`, []int{5}, "float64", nil},
		{"histogram", `[@A, 3]`, `{"density":true}`, []int{3}, "float64", nil},
		{"histogram", `[@F4, 2]`, `{"out":1}`, []int{3}, "float32", nil},
		{"histogram", `[@A, @V]`, ``, []int{3}, "int64", nil},
		{"histogram", `[@A, [0, 0.5, 2]]`, `{"out":1}`, []int{3}, "float64", nil},
		{"histogram_bin_edges", `[@A, 4]`, `{"range":[0,1]}`, []int{5}, "float64", nil},
		{"histogram_bin_count", `[@A, "sturges"]`, ``, []int{}, "int64", nil},
	}...)
}

// Seeds for FuzzProgram: the statistics functions with odd arguments.
func init() {
	fuzzSeeds = append(fuzzSeeds,
		`{"nodes":[{"like":{"shape":[4,3],"dtype":"float64"}},{"fn":"histogram","args":[{"ref":0},"sturges"],"kwargs":{"range":[1,0]}}]}`,
		`{"nodes":[{"like":{"shape":[4,3],"dtype":"float64"}},{"fn":"histogram","args":[{"ref":0},[3,1,2]],"kwargs":{"density":true,"out":1}}]}`,
		`{"nodes":[{"like":{"shape":[5],"dtype":"int64"}},{"fn":"bincount","args":[{"ref":0}],"kwargs":{"weights":{"ref":0},"minlength":-1}}]}`,
		`{"nodes":[{"like":{"shape":[2,5],"dtype":"int32"}},{"fn":"cov","args":[{"ref":0},{"ref":0}],"kwargs":{"fweights":{"ref":0},"rowvar":false}}]}`,
		`{"nodes":[{"like":{"shape":[2,5],"dtype":"float32"}},{"fn":"average","args":[{"ref":0},[0,1]],"kwargs":{"weights":{"ref":0},"returned":true,"out":1}}]}`,
		`{"nodes":[{"like":{"shape":[2,5],"dtype":"float64"}},{"fn":"nanargmax","args":[{"ref":0},[]],"kwargs":{"keepdims":true}}]}`,
		`{"nodes":[{"like":{"shape":[0,3],"dtype":"float64"}},{"fn":"histogram_bin_count","args":[{"ref":0},"doane"]}]}`,
		`{"nodes":[{"like":{"shape":[3],"dtype":"bool"}},{"fn":"digitize","args":[{"ref":0},{"ref":0}],"kwargs":{"right":true}}]}`,
	)
}
