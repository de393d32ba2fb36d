package workloads

import (
	"math"

	"github.com/phobos-tensor/phobos/tensor"
)

// W8 is the out-of-core workload: x.mean() must finish before any block of
// x - mean can run, so all of x (12.8 GB) is needed twice. An engine must
// spill x, recompute it, or fuse its generator into both consumers.
func init() {
	register(generated(&Workload{
		Name:     "W8",
		Desc:     "out of core: x = rand(n,n); (x - x.mean()).std()",
		Defaults: Params{"n": 40000, "chunk": 2000},
		Expected: func(p Params) (float64, float64) {
			// The sample std of N uniforms: σ = √(1/12); the spread of s is
			// about √((μ4 − σ⁴)/N) / (2σ), with μ4 = 1/80.
			n2 := float64(p["n"]) * float64(p["n"])
			sigma := math.Sqrt(1 / 12.0)
			return sigma, math.Sqrt((1/80.0-1/144.0)/n2) / (2 * sigma)
		},
	}, randSquares(1), func(_ Params, in []*tensor.Tensor) *tensor.Tensor { return in[0].Sub(in[0].Mean()).Std() }))
}
