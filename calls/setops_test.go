package calls_test

import (
	"github.com/phobos-tensor/phobos/tensor"
)

// Build cases of argsort, partition, unique's extras and the set
// operations (shapes and dtypes from NumPy 1.24; -1: known once computed).
func init() {
	buildCases = append(buildCases, []buildCase{
		{"argsort", `[@M]`, ``, []int{3, 4}, "int64", func(p pre) *tensor.Tensor { return p[M].Argsort(-1) }},
		{"argsort", `[@M, 0]`, `{"kind":"stable"}`, []int{3, 4}, "int64", nil},
		{"argsort", `[@M]`, `{"axis":null}`, []int{12}, "int64", nil},
		{"partition", `[@M, 2]`, ``, []int{3, 4}, "float64", func(p pre) *tensor.Tensor { return tensor.Partition(p[M], []int{2}, -1) }},
		{"partition", `[@M, [0, -1]]`, `{"axis":0}`, []int{3, 4}, "float64", nil},
		{"argpartition", `[@I4, 1]`, ``, []int{3}, "int64", nil},
		{"unique", `[@M]`, `{"return_counts":true,"out":1}`, []int{-1}, "int64", nil},
		{"unique", `[@M]`, `{"return_index":true,"return_inverse":true,"out":2}`, []int{12}, "int64", nil},
		{"unique", `[@I4]`, `{"return_inverse":true}`, []int{-1}, "int32", nil},
		{"union1d", `[@I4, @A]`, ``, []int{-1}, "float64", func(p pre) *tensor.Tensor { return tensor.Union1d(p[I4], p[A]) }},
		{"intersect1d", `[@M, @A]`, `{"assume_unique":true}`, []int{-1}, "float64", nil},
		{"setdiff1d", `[@I4, @A]`, ``, []int{-1}, "int32", nil},
		{"setxor1d", `[@M, @I4]`, ``, []int{-1}, "float64", nil},
	}...)
	fuzzSeeds = append(fuzzSeeds,
		`{"nodes":[{"like":{"shape":[4,3],"dtype":"float64"}},{"fn":"partition","args":[{"ref":0},[5,-9]]}]}`,
		`{"nodes":[{"like":{"shape":[4],"dtype":"int32"}},{"fn":"unique","args":[{"ref":0}],"kwargs":{"return_counts":true,"out":3}}]}`,
		`{"nodes":[{"like":{"shape":[0],"dtype":"float32"}},{"fn":"setxor1d","args":[{"ref":0},{"ref":0}],"kwargs":{"assume_unique":true}}]}`,
	)
}
