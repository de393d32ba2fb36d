package calls_test

import (
	"github.com/phobos-tensor/phobos/tensor"
)

// Build cases of assignment (x[key] = value and NumPy's in-place
// functions, each a new tensor of x's shape and dtype).
func init() {
	buildCases = append(buildCases, []buildCase{
		{"setitem", `[@M, [1, {"slice":[null,null,2]}], 7]`, ``, []int{3, 4}, "float64", func(p pre) *tensor.Tensor {
			return p[M].Set(tensor.Ix(tensor.At(1), tensor.S(0, 4, 2)), 7)
		}},
		{"setitem", `[@M, [@I4, {"slice":[null,null,null]}], 2.5]`, ``, []int{3, 4}, "float64", nil},
		{"setitem", `[@I4, [@I4], @I4]`, ``, []int{3}, "int32", nil},
		{"put", `[@M, @I4, @F4]`, ``, []int{3, 4}, "float64", nil},
		{"place", `[@A, @B, 0]`, ``, []int{2, 3}, "float64", nil},
		{"putmask", `[@A, @B, @A]`, ``, []int{2, 3}, "float64", func(p pre) *tensor.Tensor { return tensor.PutMask(p[A], p[B], p[A]) }},
		{"fill_diagonal", `[@M, 1]`, `{"wrap":true}`, []int{3, 4}, "float64", nil},
		{"choose", `[@I4, [@F4, 2]]`, ``, []int{3}, "float32", nil},
		{"choose", `[@I, [@A, 2]]`, `{"mode":"wrap"}`, []int{2, 3}, "float64", func(p pre) *tensor.Tensor {
			return tensor.Choose(p[I], []*tensor.Tensor{p[A], tensor.Scalar(2)}, "wrap")
		}},
	}...)
	fuzzSeeds = append(fuzzSeeds,
		`{"nodes":[{"like":{"shape":[4,3],"dtype":"float64"}},{"fn":"setitem","args":[{"ref":0},[{"ref":0}],1]}]}`,
		`{"nodes":[{"like":{"shape":[4],"dtype":"int64"}},{"fn":"setitem","args":[{"ref":0},[{"ref":0},{"ref":0}],{"ref":0}]}]}`,
	)
}
