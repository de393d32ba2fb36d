package workloads

import (
	"math"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// In-memory workloads: the generated workloads flatter a fast random
// generator, so these compute on arrays made in Go before anything is
// timed (Data), as NumPy and Dask compute on arrays they hold
// (python/benchmarks/inmemory_anchor.py runs the same computations on
// data of the same distributions). Their expected values are analytic.

// uniform fills n values uniform in [lo, hi) from a 64-bit LCG: cheap and
// deterministic, and not the engine's generator.
func uniform(n int, seed uint64, lo, hi float64) []float64 {
	v := make([]float64, n)
	s := seed*0x9E3779B97F4A7C15 + 1
	for i := range v {
		s = s*6364136223846793005 + 1442695040888963407
		v[i] = lo + (hi-lo)*float64(s>>11)/(1<<53)
	}
	return v
}

func uniformArray(shape []int, seed uint64, lo, hi float64) (*ndarray.Array, error) {
	return ndarray.FromFloat64s(shape, uniform(ndarray.Size(shape), seed, lo, hi))
}

// tallData is one (m, n) array uniform in [0, 1).
func tallData(p Params, seed uint64) ([]*ndarray.Array, error) {
	x, err := uniformArray([]int{p["m"], p["n"]}, seed, 0, 1)
	return []*ndarray.Array{x}, err
}

// integrate is the mean of f over [a, b] by the composite Simpson rule
// on n intervals (n even).
func integrate(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3 / (b - a)
}

// meanXY is the mean of f(x, y) for x uniform in [-1, 1) and y in
// [-3, 3): the mean of its means over the four quadrants, on each of
// which hypot and arctan2 are smooth (arctan2 jumps across y = 0).
func meanXY(f func(x, y float64) float64) float64 {
	const n = 600
	m := 0.0
	negZero := math.Copysign(0, -1) // the lower quadrants' edge, where arctan2 is -π
	for _, xr := range [][2]float64{{-1, negZero}, {0, 1}} {
		for _, yr := range [][2]float64{{-3, negZero}, {0, 3}} {
			m += integrate(func(x float64) float64 {
				return integrate(func(y float64) float64 { return f(x, y) }, yr[0], yr[1], n)
			}, xr[0], xr[1], n)
		}
	}
	return m / 4
}

func init() {
	register(&Workload{
		Name:     "gram",
		Desc:     "centred Gram matrix of in-memory data: x (m, n) uniform in [0, 1) in chunks of (chunk, n) rows; xc = x - x.mean(axis=0); (xc.T @ xc).sum()",
		Defaults: Params{"m": 2_000_000, "n": 50, "chunk": 100_000},
		Data:     tallData,
		BuildData: func(p Params, d []*ndarray.Array) *tensor.Tensor {
			x := tensor.FromArray(d[0], tensor.Chunks(p["chunk"], p["n"]))
			xc := x.Sub(x.Mean(tensor.Axis(0)))
			return xc.T().MatMul(xc).Sum()
		},
		// The sum of every entry is the sum over rows of (Σ_j xc_ij)²,
		// each of mean (1 - 1/m) n/12 and, the row sums near normal,
		// variance 2 (n/12)².
		Expected: func(p Params) (float64, float64) {
			m, n := float64(p["m"]), float64(p["n"])
			return (m - 1) * n / 12, n / 12 * math.Sqrt(2*m)
		},
	})
	register(&Workload{
		Name:     "matmul",
		Desc:     "product of in-memory matrices: a, b (n, n) uniform in [0, 1) in chunks of (chunk, chunk); (a @ b).sum()",
		Defaults: Params{"n": 4000, "chunk": 2000},
		Data: func(p Params, seed uint64) ([]*ndarray.Array, error) {
			a, err := uniformArray([]int{p["n"], p["n"]}, seed, 0, 1)
			if err != nil {
				return nil, err
			}
			b, err := uniformArray([]int{p["n"], p["n"]}, seed+1, 0, 1)
			return []*ndarray.Array{a, b}, err
		},
		BuildData: func(p Params, d []*ndarray.Array) *tensor.Tensor {
			c := tensor.Chunks(p["chunk"], p["chunk"])
			return tensor.FromArray(d[0], c).MatMul(tensor.FromArray(d[1], c)).Sum()
		},
		Expected: func(p Params) (float64, float64) {
			n := float64(p["n"])
			return n * n * n / 4, n * n / math.Sqrt(24)
		},
	})
	xy := func(p Params, seed uint64) ([]*ndarray.Array, error) {
		x, err := uniformArray([]int{p["n"]}, seed, -1, 1)
		if err != nil {
			return nil, err
		}
		y, err := uniformArray([]int{p["n"]}, seed+1, -3, 3)
		return []*ndarray.Array{x, y}, err
	}
	ufunc := func(name, desc string, f func(x, y *tensor.Tensor) *tensor.Tensor, g func(x, y float64) float64) {
		var once sync.Once
		var mean, sd float64
		register(&Workload{
			Name:     name,
			Desc:     desc,
			Defaults: Params{"n": 100_000_000, "chunk": 10_000_000},
			Data:     xy,
			BuildData: func(p Params, d []*ndarray.Array) *tensor.Tensor {
				c := tensor.Chunks(p["chunk"])
				return f(tensor.FromArray(d[0], c), tensor.FromArray(d[1], c)).Sum()
			},
			Expected: func(p Params) (float64, float64) {
				once.Do(func() {
					mean = meanXY(g)
					sd = math.Sqrt(meanXY(func(x, y float64) float64 { v := g(x, y); return v * v }) - mean*mean)
				})
				n := float64(p["n"])
				return n * mean, math.Sqrt(n) * sd
			},
		})
	}
	ufunc("expsin", "transcendental ufuncs on in-memory data: x (n) uniform in [-1, 1) in chunks of chunk; (exp(-x*x) * sin(x)).sum()",
		func(x, _ *tensor.Tensor) *tensor.Tensor { return x.Mul(x).Neg().Exp().Mul(x.Sin()) },
		func(x, _ float64) float64 { return math.Exp(-x*x) * math.Sin(x) })
	ufunc("hypot", "hypot on in-memory data: x (n) uniform in [-1, 1), y in [-3, 3), chunks of chunk; hypot(x, y).sum()",
		func(x, y *tensor.Tensor) *tensor.Tensor { return tensor.Hypot(x, y) }, math.Hypot)
	ufunc("arctan2", "arctan2 on in-memory data: x (n) uniform in [-1, 1), y in [-3, 3), chunks of chunk; arctan2(y, x).sum()",
		func(x, y *tensor.Tensor) *tensor.Tensor { return tensor.ArcTan2(y, x) },
		func(x, y float64) float64 { return math.Atan2(y, x) })
	// The logarithms and cos on the same data, shifted into each one's
	// domain (the shift is fused into the kernel, in NumPy a pass of its
	// own).
	ufunc("log", "log on in-memory data: x (n) uniform in [-1, 1) in chunks of chunk; log(x + 2).sum()",
		func(x, _ *tensor.Tensor) *tensor.Tensor { return x.Add(tensor.Scalar(2.0)).Log() },
		func(x, _ float64) float64 { return math.Log(x + 2) })
	ufunc("log2", "log2 on in-memory data: y (n) uniform in [-3, 3) in chunks of chunk; log2(y + 4).sum()",
		func(_, y *tensor.Tensor) *tensor.Tensor { return y.Add(tensor.Scalar(4.0)).Log2() },
		func(_, y float64) float64 { return math.Log2(y + 4) })
	ufunc("log1p", "log1p on in-memory data: x (n) uniform in [-1, 1) in chunks of chunk; log1p(x + 1).sum()",
		func(x, _ *tensor.Tensor) *tensor.Tensor { return x.Add(tensor.Scalar(1.0)).Log1p() },
		func(x, _ float64) float64 { return math.Log1p(x + 1) })
	ufunc("cos", "cos on in-memory data: y (n) uniform in [-3, 3) in chunks of chunk; cos(y).sum()",
		func(_, y *tensor.Tensor) *tensor.Tensor { return y.Cos() },
		func(_, y float64) float64 { return math.Cos(y) })
	register(&Workload{
		Name:     "standardize",
		Desc:     "centring and scaling of in-memory data: x (m, n) uniform in [0, 1) in chunks of (chunk, n) rows; z = (x - x.mean(axis=0)) / x.std(axis=0); (z * z).sum() (= m n)",
		Defaults: Params{"m": 1_000_000, "n": 100, "chunk": 100_000},
		Data:     tallData,
		BuildData: func(p Params, d []*ndarray.Array) *tensor.Tensor {
			x := tensor.FromArray(d[0], tensor.Chunks(p["chunk"], p["n"]))
			z := x.Sub(x.Mean(tensor.Axis(0))).Div(x.Std(tensor.Axis(0)))
			return z.Mul(z).Sum()
		},
		// Exact but for rounding.
		Expected: func(p Params) (float64, float64) {
			mn := float64(p["m"]) * float64(p["n"])
			return mn, mn * 1e-9
		},
	})
	register(&Workload{
		Name:     "views",
		Desc:     "views of in-memory data: x (n, n) uniform in [0, 1) in chunks of (chunk, chunk); (x + x.T)[::2, 1::3].sum()",
		Defaults: Params{"n": 8000, "chunk": 1000},
		Data: func(p Params, seed uint64) ([]*ndarray.Array, error) {
			x, err := uniformArray([]int{p["n"], p["n"]}, seed, 0, 1)
			return []*ndarray.Array{x}, err
		},
		BuildData: func(p Params, d []*ndarray.Array) *tensor.Tensor {
			x := tensor.FromArray(d[0], tensor.Chunks(p["chunk"], p["chunk"]))
			return x.Add(x.T()).Index(tensor.S(0, p["n"], 2), tensor.S(1, p["n"], 3)).Sum()
		},
		// Each selected element is the sum of two uniforms (mean 1); a
		// pair (i, j), (j, i) may both be selected, so the spread is at
		// most twice that of independent ones.
		Expected: func(p Params) (float64, float64) {
			n := p["n"]
			k := float64((n+1)/2) * float64((n+1)/3)
			return k, 2 * math.Sqrt(k*2/12)
		},
	})
}
