package calls_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/tensor"
)

// numpy.fft's build cases join TestBuildEveryFunction's; shapes and dtypes
// are NumPy 1.24's for the same calls on the prelude.
func init() {
	buildCases = append(buildCases, []buildCase{
		{"fft.fft", `[@M]`, ``, []int{3, 4}, "complex128", func(p pre) *tensor.Tensor { return tensor.FFT(p[M]) }},
		{"fft.fft", `[@I4, 7]`, `{"norm":"ortho"}`, []int{7}, "complex128", nil},
		{"fft.ifft", `[@M]`, `{"axis":0,"n":5}`, []int{5, 4}, "complex128", nil},
		{"fft.rfft", `[@M]`, ``, []int{3, 3}, "complex128", nil},
		{"fft.irfft", `[@M]`, ``, []int{3, 6}, "float64", nil},
		{"fft.irfft", `[@V, 5, 0, "forward"]`, ``, []int{5}, "float64", nil},
		{"fft.hfft", `[@A]`, `{"axis":0}`, []int{2, 3}, "float64", nil},
		{"fft.ihfft", `[@F4]`, ``, []int{2}, "complex128", nil},
		{"fft.fft2", `[@Z234]`, ``, []int{2, 3, 4}, "complex128", func(p pre) *tensor.Tensor { return tensor.FFT2(p[Z234]) }},
		{"fft.ifft2", `[@M, [2, 6]]`, ``, []int{2, 6}, "complex128", nil},
		{"fft.rfft2", `[@Z234]`, `{"axes":[0, 1]}`, []int{2, 2, 4}, "complex128", nil},
		{"fft.irfft2", `[@M]`, ``, []int{3, 6}, "float64", nil},
		{"fft.fftn", `[@Z234]`, `{"s":[5]}`, []int{2, 3, 5}, "complex128", nil},
		{"fft.ifftn", `[@Z234]`, `{"axes":[2, 0]}`, []int{2, 3, 4}, "complex128", nil},
		{"fft.rfftn", `[@Z234]`, ``, []int{2, 3, 3}, "complex128", nil},
		{"fft.irfftn", `[@Z234]`, `{"s":[4, 4]}`, []int{2, 4, 4}, "float64", nil},
		{"fft.fftshift", `[@M]`, ``, []int{3, 4}, "float64", func(p pre) *tensor.Tensor { return tensor.FFTShift(p[M]) }},
		{"fft.ifftshift", `[@I]`, `{"axes":1}`, []int{2, 3}, "int64", nil},
		{"fft.fftfreq", `[8, 0.5]`, ``, []int{8}, "float64", func(pre) *tensor.Tensor { return tensor.FFTFreq(8, 0.5) }},
		{"fft.rfftfreq", `[9]`, `{"chunks":2}`, []int{5}, "float64", nil},
	}...)
}

// TestFFTCallErrors: NumPy's exception for each mistake.
func TestFFTCallErrors(t *testing.T) {
	checkKinds(t, []kindCase{
		{`{"fn":"fft.fft","args":[@M, 0]}`, "ValueError"},
		{`{"fn":"fft.ihfft","args":[@M, -1]}`, "ValueError"},
		{`{"fn":"fft.fft","args":[@M],"kwargs":{"norm":"both"}}`, "ValueError"},
		{`{"fn":"fft.fft","args":[@M],"kwargs":{"axis":2}}`, "AxisError"},
		{`{"fn":"fft.fft2","args":[@V]}`, "AxisError"},
		{`{"fn":"fft.fftn","args":[@M],"kwargs":{"s":[3],"axes":[0,1]}}`, "ValueError"},
		{`{"fn":"fft.irfft","args":[@Z131]}`, "ValueError"},
		{`{"fn":"fft.fftfreq","args":[0]}`, "ZeroDivisionError"},
		{`{"fn":"fft.rfftfreq","args":[-2]}`, "ValueError"},
		{`{"fn":"fft.fft","args":[@M],"kwargs":{"n":2.5}}`, "TypeError"},
	})
}
