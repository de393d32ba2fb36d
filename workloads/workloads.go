// Package workloads defines the benchmark computations W1-W9 (the anchor
// workloads NumPy and Dask are timed on, and Mars's Monte Carlo π) as lazy
// tensors, with their default sizes and analytic expected values. Keeping them
// in one place lets the phobos command, the tests and any benchmark run the
// very computations the NumPy and Dask anchors were timed on.
package workloads

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// DefaultSeed is the anchors' seed, so runs are labelled alike.
const DefaultSeed uint64 = 20240601

// Params are a workload's size parameters, named as the anchors name them
// (n, N, chunk).
type Params map[string]int

// Workload is one benchmark computation.
type Workload struct {
	Name string
	Desc string
	// Defaults are the full-size parameters the anchors run.
	Defaults Params
	// Build makes the lazy tensor to execute. It runs nothing.
	Build func(p Params, seed uint64) *tensor.Tensor
	// Result turns the fetched value into the reported number; nil means the
	// value has one element, which is the result.
	Result func(a *ndarray.Array) (float64, error)
	// Expected is the analytic expectation of the result and its 1σ spread;
	// sigma 0 means the result is exact.
	Expected func(p Params) (value, sigma float64)

	// File-backed workloads read their input from a file in a data
	// directory (WithData) instead of generating it, as .npy or Zarr
	// (Formats): File names it without its extension, FileBuild reads it
	// (by its extension), and Generate is what `phobos gen-data` writes
	// there (deterministic for a seed).
	File      func(p Params) string
	FileBuild func(path string, p Params) *tensor.Tensor
	Generate  func(p Params, seed uint64) *tensor.Tensor

	// Inputs are the generated tensors a workload computes on (Build makes
	// them the same way), so the time of generating them alone can be
	// told from the computation's (GenBuild).
	Inputs func(p Params, seed uint64) []*tensor.Tensor

	// In-memory workloads compute on arrays made in Go before anything is
	// timed (Data; the random generator is not part of them), wrapped by
	// BuildData with tensor.FromArray. Prepare makes the data and returns
	// the workload whose Build uses it.
	Data      func(p Params, seed uint64) ([]*ndarray.Array, error)
	BuildData func(p Params, data []*ndarray.Array) *tensor.Tensor
}

// generated sets w's Build to compute on its generated inputs, and keeps
// the inputs (Inputs), and returns w.
func generated(w *Workload, inputs func(p Params, seed uint64) []*tensor.Tensor, compute func(p Params, in []*tensor.Tensor) *tensor.Tensor) *Workload {
	w.Inputs = inputs
	w.Build = func(p Params, seed uint64) *tensor.Tensor { return compute(p, inputs(p, seed)) }
	return w
}

// GenBuild is the generation of the workload's inputs alone, each summed
// (a fused generate-and-sum: about what generating costs), or nil for a
// workload without generated inputs.
func (w *Workload) GenBuild(p Params, seed uint64) *tensor.Tensor {
	if w.Inputs == nil {
		return nil
	}
	var sums []*tensor.Tensor
	for _, t := range w.Inputs(p, seed) {
		sums = append(sums, t.Astype(ndarray.Float64).Sum())
	}
	return tensor.Stack(0, sums...).Sum()
}

// Prepare makes an in-memory workload's data and returns the workload
// computing on it; any other workload is returned as it is.
func (w *Workload) Prepare(p Params, seed uint64) (*Workload, error) {
	if w.Data == nil {
		return w, nil
	}
	data, err := w.Data(p, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: making its data: %w", w.Name, err)
	}
	c := *w
	c.Build = func(p Params, _ uint64) *tensor.Tensor { return w.BuildData(p, data) }
	return &c, nil
}

// DefaultDataDir is where file-backed workloads look for their input unless
// told otherwise (phobos run and gen-data -data).
const DefaultDataDir = "phobos-data"

// Formats are the file formats of file-backed workloads' inputs.
var Formats = []string{"npy", "zarr"}

func w9File(p Params) string { return fmt.Sprintf("w9-%d", p["n"]) }

func w9Build(path string, p Params) *tensor.Tensor {
	var x *tensor.Tensor
	if filepath.Ext(path) == ".zarr" {
		x = tensor.FromZarr(path, tensor.Chunks(p["chunk"], p["chunk"]))
	} else {
		x = tensor.FromNpy(path, tensor.Chunks(p["chunk"], p["chunk"]))
	}
	return x.Sub(x.Mean(tensor.Axis(0))).Std(tensor.Axis(0)).Sum()
}

// WithData returns the workload reading its input file of the given format
// from dir (a workload without one is returned as it is).
func (w *Workload) WithData(dir, format string) *Workload {
	if w.FileBuild == nil {
		return w
	}
	c := *w
	c.Build = func(p Params, _ uint64) *tensor.Tensor { return w.FileBuild(w.DataPath(dir, format, p), p) }
	return &c
}

// DataPath is the workload's input file of the given format in dir, or ""
// if it has none.
func (w *Workload) DataPath(dir, format string, p Params) string {
	if w.File == nil {
		return ""
	}
	return filepath.Join(dir, w.File(p)+"."+format)
}

// Resolve returns the defaults with overrides applied. Unknown names and
// non-positive sizes are errors, so a typo cannot silently run the default.
func (w *Workload) Resolve(overrides Params) (Params, error) {
	p := maps.Clone(w.Defaults)
	for k, v := range overrides {
		if _, ok := p[k]; !ok {
			return nil, fmt.Errorf("workload %s has no parameter %q (it has %s)", w.Name, k, strings.Join(w.ParamNames(), ", "))
		}
		p[k] = v
	}
	for _, k := range w.ParamNames() {
		if p[k] <= 0 {
			return nil, fmt.Errorf("workload %s: parameter %s = %d must be positive", w.Name, k, p[k])
		}
	}
	return p, nil
}

// ParamNames lists the parameter names: sizes in sorted order, then chunk.
func (w *Workload) ParamNames() []string {
	names := slices.Sorted(maps.Keys(w.Defaults))
	if i := slices.Index(names, "chunk"); i >= 0 {
		names = append(slices.Delete(names, i, i+1), "chunk")
	}
	return names
}

// Eval builds the workload, executes it in sess and returns the reported
// result. Everything it times is end to end, random generation included.
func (w *Workload) Eval(ctx context.Context, sess *phobos.Session, p Params, seed uint64) (float64, error) {
	t := w.Build(p, seed)
	if err := t.Err(); err != nil {
		return 0, fmt.Errorf("%s: build: %w", w.Name, err)
	}
	res, err := sess.Execute(ctx, t)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", w.Name, err)
	}
	if w.Result != nil {
		return w.Result(res[0])
	}
	return res[0].Item()
}

var registry = map[string]*Workload{}

func register(w *Workload) { registry[strings.ToLower(w.Name)] = w }

// Get finds a workload by name, ignoring case ("w1" is W1).
func Get(name string) (*Workload, bool) {
	w, ok := registry[strings.ToLower(name)]
	return w, ok
}

// Names lists the workload names: pi first, then the others by name (PCA,
// W1, W2, ..., mask).
func Names() []string {
	var out []string
	for _, w := range registry {
		out = append(out, w.Name)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a == "pi") != (b == "pi") {
			return a == "pi"
		}
		return a < b
	})
	return out
}

// sumAll is the result of W4: the anchors fetch the vector and sum it on the client.
func sumAll(a *ndarray.Array) (float64, error) {
	s := 0.0
	for _, v := range a.ToFloat64s() {
		s += v
	}
	return s, nil
}

// w6Result is abs(r).sum(), after checking that (q*q).sum(), the squared
// Frobenius norm of a matrix with n orthonormal columns, is n.
func w6Result(a *ndarray.Array) (float64, error) {
	if a.Size() != 2 {
		return 0, fmt.Errorf("W6: %d values, want abs(r).sum() and (q*q).sum()", a.Size())
	}
	v, qq := a.AtFlat(0), a.AtFlat(1)
	n := math.Round(qq)
	if n < 1 || math.Abs(qq-n) > 1e-9*n {
		return 0, fmt.Errorf("W6: (q*q).sum() = %.15g, want the column count: Q is not orthonormal", qq)
	}
	return v, nil
}

// w6Expected: for x of i.i.d. U[0,1) entries, xᵀx ≈ m(I/12 + J/4), and r
// is its Cholesky factor up to the signs of its rows, so abs(r).sum() is
// about Σ|chol(m(I/12 + J/4))| (the anchors' spread: 3/√m of it).
func w6Expected(p Params) (float64, float64) {
	m, n := float64(p["m"]), p["n"]
	g, err := ndarray.New(ndarray.Float64, n, n)
	if err != nil {
		return math.NaN(), 0
	}
	for i := range n * n {
		v := m / 4
		if i/n == i%n {
			v += m / 12
		}
		g.SetFlat(i, v)
	}
	l, err := ndarray.Cholesky(g)
	if err != nil {
		return math.NaN(), 0
	}
	s := 0.0
	for _, v := range l.ToFloat64s() {
		s += math.Abs(v)
	}
	return s, s * 3 / math.Sqrt(m)
}

// sortResult is the middle element of the sorted array, after checking
// that it is ascending and holds what the input held (their sums agree to
// rounding).
func sortResult(a *ndarray.Array) (float64, error) {
	if a.Size() != 4 {
		return 0, fmt.Errorf("sort: %d values, want s[n/2], sum(s), sum(x) and whether s ascends", a.Size())
	}
	mid, ss, xs, asc := a.AtFlat(0), a.AtFlat(1), a.AtFlat(2), a.AtFlat(3)
	if asc != 1 {
		return 0, fmt.Errorf("sort: the result is not in ascending order")
	}
	if !(math.Abs(ss-xs) <= 1e-9*math.Abs(xs)) {
		return 0, fmt.Errorf("sort: the sorted array sums to %.15g, the input to %.15g: not a permutation", ss, xs)
	}
	return mid, nil
}

// pcaResult is the variance of the projection onto the k leading
// components, after checking that it is the sum of their squared singular
// values over m-1, as it is when vt's rows are the right singular vectors.
func pcaResult(a *ndarray.Array) (float64, error) {
	if a.Size() != 2 {
		return 0, fmt.Errorf("PCA: %d values, want the projection's variance and (s[:k]**2).sum()/(m-1)", a.Size())
	}
	v, sv := a.AtFlat(0), a.AtFlat(1)
	if !(math.Abs(v-sv) <= 1e-9*math.Abs(sv)) {
		return 0, fmt.Errorf("PCA: the projection's variance %.15g is not the leading singular values' %.15g", v, sv)
	}
	return v, nil
}

// pcaExpected: x's columns are independent U[0,1), so the sample
// covariance is about I/12 and the k leading eigenvalues sum to about k/12.
// They sit at its top edge, which for m samples of n variables lies within
// (1 ± √(n/m))² / 12 (Marchenko–Pastur): the spread given is a third of that
// half-width, k/12 · 2√(n/m) / 3, a bound rather than a standard deviation.
func pcaExpected(p Params) (float64, float64) {
	k, r := float64(p["k"]), math.Sqrt(float64(p["n"])/float64(p["m"]))
	return k / 12, k / 12 * 2 * r / 3
}

func piExpected(p Params) (float64, float64) {
	q := math.Pi / 4
	return math.Pi, 4 * math.Sqrt(q*(1-q)/float64(p["N"]))
}

func init() {
	register(generated(&Workload{
		Name:     "pi",
		Desc:     "Mars's README example: a = uniform(-1, 1, (N, 2)); 4 * (norm(a, axis=1) < 1).sum() / N",
		Defaults: Params{"N": 200_000_000, "chunk": 10_000_000},
		Expected: piExpected,
	}, func(p Params, seed uint64) []*tensor.Tensor {
		return []*tensor.Tensor{tensor.NewGenerator(seed).Uniform(-1, 1, []int{p["N"], 2}, tensor.Chunks(p["chunk"], 2))}
	}, func(p Params, in []*tensor.Tensor) *tensor.Tensor {
		norm := in[0].Square().Sum(tensor.Axis(1)).Sqrt()
		return norm.Less(1).Sum().Mul(4).Div(float64(p["N"]))
	}))
	register(generated(&Workload{
		Name:     "W1",
		Desc:     "fused elementwise+reduce: a,b = rand(n,n); ((a+b)*2).sum()",
		Defaults: Params{"n": 10000, "chunk": 2500},
		Expected: func(p Params) (float64, float64) {
			n2 := float64(p["n"]) * float64(p["n"])
			return 2 * n2, math.Sqrt(n2 * 4 * (2 / 12.0))
		},
	}, randSquares(2), func(_ Params, in []*tensor.Tensor) *tensor.Tensor {
		return in[0].Add(in[1]).Mul(2).Sum()
	}))
	register(generated(&Workload{
		Name:     "W2",
		Desc:     "Monte Carlo pi: x = rand(N,2); 4*(((x**2).sum(axis=1)) < 1).sum()/N",
		Defaults: Params{"N": 200_000_000, "chunk": 10_000_000},
		Expected: piExpected,
	}, func(p Params, seed uint64) []*tensor.Tensor {
		return []*tensor.Tensor{tensor.NewGenerator(seed).Rand([]int{p["N"], 2}, tensor.Chunks(p["chunk"], 2))}
	}, func(p Params, in []*tensor.Tensor) *tensor.Tensor {
		return in[0].Pow(2).Sum(tensor.Axis(1)).Less(1).Sum().Mul(4).Div(float64(p["N"]))
	}))
	register(generated(&Workload{
		Name:     "W3",
		Desc:     "matmul: a,b = rand(n,n); (a@b).sum()",
		Defaults: Params{"n": 4000, "chunk": 1000},
		Expected: func(p Params) (float64, float64) {
			n := float64(p["n"])
			return n * n * n / 4, n * n / math.Sqrt(24)
		},
	}, randSquares(2), func(_ Params, in []*tensor.Tensor) *tensor.Tensor {
		return in[0].MatMul(in[1]).Sum()
	}))
	register(generated(&Workload{
		Name:     "W4",
		Desc:     "transpose-add: x = rand(n,n); v = (x + x.T).sum(axis=0); result v.sum()",
		Defaults: Params{"n": 8000, "chunk": 1000},
		Result:   sumAll,
		Expected: func(p Params) (float64, float64) {
			n2 := float64(p["n"]) * float64(p["n"])
			return n2, 2 * math.Sqrt(n2/12)
		},
	}, randSquares(1), func(_ Params, in []*tensor.Tensor) *tensor.Tensor {
		return in[0].Add(in[0].T()).Sum(tensor.Axis(0))
	}))
	register(&Workload{
		Name:     "W5",
		Desc:     "scheduler overhead: x = ones(n) in chunks of chunk; (x+1).sum()",
		Defaults: Params{"n": 2_000_000, "chunk": 100},
		Build: func(p Params, _ uint64) *tensor.Tensor {
			return tensor.Ones([]int{p["n"]}, tensor.Chunks(p["chunk"])).Add(1).Sum()
		},
		Expected: func(p Params) (float64, float64) { return 2 * float64(p["n"]), 0 },
	})
	register(&Workload{
		Name: "W9",
		Desc: "out of core on a file: x a float64 n x n .npy file or Zarr store (phobos gen-data W9) in chunks of chunk; (x - x.mean(axis=0)).std(axis=0).sum()",
		// 40000^2 float64 is 12.8 GB: run with -memory 4GiB.
		Defaults: Params{"n": 40000, "chunk": 2000},
		Build: func(p Params, _ uint64) *tensor.Tensor {
			return w9Build(filepath.Join(DefaultDataDir, w9File(p)+".npy"), p)
		},
		File:      w9File,
		FileBuild: w9Build,
		Generate: func(p Params, seed uint64) *tensor.Tensor {
			return tensor.NewGenerator(seed).Rand([]int{p["n"], p["n"]}, tensor.Chunks(p["chunk"], p["chunk"]))
		},
		// Each column's standard deviation (ddof 0) of n uniform values
		// has, to first order, mean sigma - (sigma/2 + (mu4 - sigma^4) /
		// (8 sigma^3)) / n and variance (mu4 - sigma^4) / (4 sigma^2 n),
		// with sigma^2 = 1/12 and mu4 = 1/80: summed over n independent
		// columns, n sigma minus a bias and a spread that do not depend
		// on n.
		Expected: func(p Params) (float64, float64) {
			sigma, excess := math.Sqrt(1.0/12), 1.0/80-1.0/144
			bias := sigma/2 + excess/(8*sigma*sigma*sigma)
			return float64(p["n"])*sigma - bias, math.Sqrt(excess / (4 * sigma * sigma))
		},
	})
	register(generated(&Workload{
		Name:     "W6",
		Desc:     "tall-skinny QR: x = rand(m,n) in chunks of (chunk, n) rows; q, r = qr(x) (reduced, Q materialised, TSQR); result abs(r).sum(), checked with (q*q).sum() = n (-n sets m)",
		Defaults: Params{"m": 2_000_000, "n": 50, "chunk": 100_000},
		Result:   w6Result,
		Expected: w6Expected,
	}, randTall, func(_ Params, in []*tensor.Tensor) *tensor.Tensor {
		q, r := linalg.QR(in[0], "reduced")
		return tensor.Stack(0, r.Abs().Sum(), q.Mul(q).Sum())
	}))
	register(generated(&Workload{
		Name:     "PCA",
		Desc:     "principal components: x = rand(m,n) in chunks of (chunk, n) rows; xc = x - x.mean(axis=0); u, s, vt = svd(xc) (TSQR, then the SVD of R); p = xc @ vt[:k].T; result (p*p).sum()/(m-1), the variance the k leading components explain, checked against (s[:k]**2).sum()/(m-1)",
		Defaults: Params{"m": 2_000_000, "n": 50, "k": 10, "chunk": 100_000},
		Result:   pcaResult,
		Expected: pcaExpected,
	}, randTall, func(p Params, in []*tensor.Tensor) *tensor.Tensor {
		x := in[0]
		xc := x.Sub(x.Mean(tensor.Axis(0)))
		_, s, vt := linalg.SVD(xc, false)
		k := p["k"]
		proj := xc.MatMul(vt.Index(tensor.To(k)).T())
		dof := float64(p["m"] - 1)
		return tensor.Stack(0, proj.Mul(proj).Sum().Div(dof), s.Index(tensor.To(k)).Square().Sum().Div(dof))
	}))
	register(generated(&Workload{
		Name:     "mask",
		Desc:     "boolean mask: x = rand(n) in chunks of chunk; x[x > 0.5].sum() (a selection whose length is known only once computed; its sum runs as where(x > 0.5, x, 0).sum())",
		Defaults: Params{"n": 100_000_000, "chunk": 10_000_000},
		// Each element adds x·1{x > 0.5}: mean 3/8, variance 7/24 - (3/8)².
		Expected: func(p Params) (float64, float64) {
			n := float64(p["n"])
			return 0.375 * n, math.Sqrt(n * (7.0/24 - 0.375*0.375))
		},
	}, randVector, func(_ Params, in []*tensor.Tensor) *tensor.Tensor {
		return in[0].Index(tensor.Mask(in[0].Greater(0.5))).Sum()
	}))
	register(generated(&Workload{
		Name:     "sort",
		Desc:     "sort: x = rand(n) in chunks of chunk; s = sort(x) (PSRS over a shuffle); result s[n/2], checked: s ascending, sum(s) = sum(x)",
		Defaults: Params{"n": 200_000_000, "chunk": 10_000_000},
		Result:   sortResult,
		// The median of n uniform values: 1/2, spread 1/(2√n).
		Expected: func(p Params) (float64, float64) { return 0.5, 0.5 / math.Sqrt(float64(p["n"])) },
	}, randVector, func(p Params, in []*tensor.Tensor) *tensor.Tensor {
		n, x := p["n"], in[0]
		s := x.Sort(0)
		ascending := s.Index(tensor.From(1)).GreaterEqual(s.Index(tensor.To(n - 1))).All().Astype(ndarray.Float64)
		return tensor.Stack(0, s.Index(tensor.At(n/2)), s.Sum(), x.Sum(), ascending)
	}))
	register(generated(&Workload{
		Name:     "W7",
		Desc:     "tree reduction memory: x = rand(n,n); x.mean()",
		Defaults: Params{"n": 20000, "chunk": 1000},
		Expected: func(p Params) (float64, float64) {
			n := float64(p["n"])
			return 0.5, math.Sqrt(1 / 12.0 / (n * n))
		},
	}, randSquares(1), func(_ Params, in []*tensor.Tensor) *tensor.Tensor { return in[0].Mean() }))
}

// randSquares are k rand(n, n) tensors in chunks of (chunk, chunk), from
// one generator in turn.
func randSquares(k int) func(p Params, seed uint64) []*tensor.Tensor {
	return func(p Params, seed uint64) []*tensor.Tensor {
		g := tensor.NewGenerator(seed)
		shape, c := []int{p["n"], p["n"]}, tensor.Chunks(p["chunk"], p["chunk"])
		out := make([]*tensor.Tensor, k)
		for i := range out {
			out[i] = g.Rand(shape, c)
		}
		return out
	}
}

// randTall is rand(m, n) in chunks of (chunk, n) rows.
func randTall(p Params, seed uint64) []*tensor.Tensor {
	return []*tensor.Tensor{tensor.NewGenerator(seed).Rand([]int{p["m"], p["n"]}, tensor.Chunks(p["chunk"], p["n"]))}
}

// randVector is rand(n) in chunks of chunk.
func randVector(p Params, seed uint64) []*tensor.Tensor {
	return []*tensor.Tensor{tensor.NewGenerator(seed).Rand([]int{p["n"]}, tensor.Chunks(p["chunk"]))}
}
