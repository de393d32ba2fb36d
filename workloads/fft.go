package workloads

import (
	"fmt"
	"math"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// FFT workloads on in-memory data (python/benchmarks/fft_anchor.py times
// NumPy's and dask.array.fft's on the same distributions). The result is
// the transform itself, fetched; the reported number is Σ|X|² / N, which
// Parseval's theorem makes Σ x² over the input: N/3 for N values uniform
// in [0, 1), with spread sqrt(N * 4/45) (x² has variance 1/5 - 1/9).

// parseval is Σ|X|² / N of a fetched complex transform of N elements.
func parseval(a *ndarray.Array) (float64, error) {
	if a.DType() != ndarray.Complex128 {
		return 0, fmt.Errorf("fft result is %v, want complex128", a.DType())
	}
	c := a.Contiguous()
	s := 0.0
	for _, v := range c.Complex128s()[:c.Size()] {
		s += real(v)*real(v) + imag(v)*imag(v)
	}
	return s / float64(c.Size()), nil
}

func uniformSquares(n float64) (float64, float64) { return n / 3, math.Sqrt(n * 4 / 45) }

func init() {
	register(&Workload{
		Name:     "fft",
		Desc:     "1-D FFT of in-memory data: x (n) uniform in [0, 1) in chunks of chunk; X = fft(x) (its axis made one chunk), fetched; reports Σ|X|²/n",
		Defaults: Params{"n": 1 << 24, "chunk": 1 << 21},
		Data: func(p Params, seed uint64) ([]*ndarray.Array, error) {
			x, err := uniformArray([]int{p["n"]}, seed, 0, 1)
			return []*ndarray.Array{x}, err
		},
		BuildData: func(p Params, d []*ndarray.Array) *tensor.Tensor {
			return tensor.FFT(tensor.FromArray(d[0], tensor.Chunks(p["chunk"])))
		},
		Result:   parseval,
		Expected: func(p Params) (float64, float64) { return uniformSquares(float64(p["n"])) },
	})
	register(&Workload{
		Name:     "fft2",
		Desc:     "2-D FFT of in-memory data: x (n, n) uniform in [0, 1) in chunks of (chunk, n) rows; X = fft2(x) (rows, then columns in chunks of as many elements), fetched; reports Σ|X|²/n²",
		Defaults: Params{"n": 4096, "chunk": 512},
		Data: func(p Params, seed uint64) ([]*ndarray.Array, error) {
			x, err := uniformArray([]int{p["n"], p["n"]}, seed, 0, 1)
			return []*ndarray.Array{x}, err
		},
		BuildData: func(p Params, d []*ndarray.Array) *tensor.Tensor {
			return tensor.FFT2(tensor.FromArray(d[0], tensor.Chunks(p["chunk"], p["n"])))
		},
		Result: parseval,
		Expected: func(p Params) (float64, float64) {
			n := float64(p["n"])
			return uniformSquares(n * n)
		},
	})
}
