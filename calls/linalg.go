package calls

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/tensor"
)

// The linear algebra of package linalg, by numpy.linalg's names prefixed
// "linalg."; functions of several results take "out", the result's index.
func init() {
	for name, f := range map[string]function{
		"linalg.qr":               {[]string{"a", "mode", "out"}, qr, 1},
		"linalg.svd":              {[]string{"a", "full_matrices", "out"}, svd, 1},
		"linalg.svdvals":          {[]string{"a"}, oneOf("a", linalg.SVDVals), 1},
		"linalg.cholesky":         {[]string{"a"}, oneOf("a", linalg.Cholesky), 1},
		"linalg.inv":              {[]string{"a"}, oneOf("a", linalg.Inv), 1},
		"linalg.det":              {[]string{"a"}, oneOf("a", linalg.Det), 1},
		"linalg.slogdet":          {[]string{"a", "out"}, slogdet, 2},
		"linalg.solve":            {[]string{"a", "b"}, solve, 2},
		"linalg.solve_triangular": {[]string{"a", "b", "lower", "trans", "unit_diagonal"}, solveTriangular, 2},
		"linalg.lstsq":            {[]string{"a", "b", "rcond", "out"}, lstsq, 2},
		"linalg.pinv":             {[]string{"a", "rcond"}, withTol("rcond", linalg.Pinv), 1},
		"linalg.matrix_rank":      {[]string{"a", "tol"}, withTol("tol", linalg.MatrixRank), 1},
		"linalg.cond":             {[]string{"x", "p"}, cond, 1},
		"linalg.norm":             {[]string{"x", "ord", "axis"}, norm, 1},
		"linalg.multi_dot":        {[]string{"*arrays"}, multiDot, 1},
		"einsum":                  {[]string{"subscripts", "*operands"}, einsum, 1},
		"linalg.lu":               {[]string{"a", "permute_l", "out"}, lu, 1},
		"inner":                   {[]string{"a", "b"}, pair(linalg.Inner), 2},
		"vdot":                    {[]string{"a", "b"}, pair(linalg.Vdot), 2},
		"linalg.trace":            {[]string{"x"}, oneOf("x", linalg.Trace), 1},
		"linalg.diagonal":         {[]string{"x"}, oneOf("x", linalg.Diagonal), 1},
		"linalg.randomized_svd":   {[]string{"a", "n_components", "n_oversamples", "n_iter", "flip_sign", "random_state", "out"}, randomizedSVD, 2},
	} {
		table[name] = f
	}
}

// pick is result out of several.
func pick(a *args, rs ...*tensor.Tensor) (*tensor.Tensor, error) {
	out, err := a.int("out", 0)
	if err != nil {
		return nil, err
	}
	if out < 0 || out >= len(rs) || rs[out] == nil {
		return nil, valueErr("out %d: this call has results 0 to %d", out, len(rs)-1)
	}
	return rs[out], nil
}

func qr(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	mode := "reduced"
	if a.has("mode") {
		if err := jsonString(a, "mode", &mode); err != nil {
			return nil, err
		}
	}
	switch mode {
	case "reduced", "complete", "r":
	default:
		return nil, valueErr("Unrecognized mode '%s' (reduced, complete, r)", mode)
	}
	q, r := linalg.QR(t, mode)
	if mode == "r" {
		return pick(a, r)
	}
	return pick(a, q, r)
}

func svd(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	full := true // NumPy's default
	if a.has("full_matrices") {
		if full, err = a.bool("full_matrices"); err != nil {
			return nil, err
		}
	}
	u, s, vt := linalg.SVD(t, full)
	return pick(a, u, s, vt)
}

func slogdet(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	sign, logabs := linalg.Slogdet(t)
	return pick(a, sign, logabs)
}

func solve(a *args) (*tensor.Tensor, error) {
	x, err := a.tensorArgs("a", "b")
	if err != nil {
		return nil, err
	}
	return linalg.Solve(x[0], x[1]), nil
}

func solveTriangular(a *args) (*tensor.Tensor, error) {
	ab, err := a.tensorArgs("a", "b")
	if err != nil {
		return nil, err
	}
	var tr linalg.Triangular
	if tr.Lower, err = a.bool("lower"); err != nil {
		return nil, err
	}
	if tr.Trans, err = a.bool("trans"); err != nil {
		return nil, err
	}
	if tr.UnitDiagonal, err = a.bool("unit_diagonal"); err != nil {
		return nil, err
	}
	return linalg.SolveTriangular(ab[0], ab[1], tr), nil
}

func lstsq(a *args) (*tensor.Tensor, error) {
	ab, err := a.tensorArgs("a", "b")
	if err != nil {
		return nil, err
	}
	var rc []float64
	if a.has("rcond") {
		v, err := a.float("rcond", 0)
		if err != nil {
			return nil, err
		}
		rc = append(rc, v)
	}
	sol, res, rank, s := linalg.Lstsq(ab[0], ab[1], rc...)
	return pick(a, sol, res, rank, s)
}

func jsonString(a *args, name string, dst *string) error {
	if err := json.Unmarshal(a.vals[name], dst); err != nil {
		return typeErr(name, errors.New("want a string"))
	}
	return nil
}

// withTol is a function of a matrix and an optional tolerance.
func withTol(name string, f func(*tensor.Tensor, ...float64) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		if !a.has(name) {
			return f(t), nil
		}
		v, err := a.float(name, 0)
		if err != nil {
			return nil, err
		}
		return f(t, v), nil
	}
}

// order is a norm order as NumPy takes it: null, a number, "fro" or "nuc"
// (and "inf"/"-inf" for the infinities JSON lacks).
func order(a *args, name string) (any, error) {
	if !a.has(name) {
		return nil, nil
	}
	var s string
	if json.Unmarshal(a.vals[name], &s) == nil && (s == "fro" || s == "nuc") {
		return s, nil
	}
	v, err := a.float(name, 0)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func cond(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("x")
	if err != nil {
		return nil, err
	}
	p, err := order(a, "p")
	if err != nil {
		return nil, err
	}
	return linalg.Cond(t, p), nil
}

func norm(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("x")
	if err != nil {
		return nil, err
	}
	o, err := order(a, "ord")
	if err != nil {
		return nil, err
	}
	axes, _, err := a.ints("axis")
	if err != nil {
		return nil, err
	}
	return linalg.Norm(t, o, axes...), nil
}

func multiDot(a *args) (*tensor.Tensor, error) {
	ts, err := a.tensors("*arrays")
	if err != nil {
		return nil, err
	}
	return linalg.MultiDot(ts...), nil
}

func einsum(a *args) (*tensor.Tensor, error) {
	var sub string
	if err := jsonString(a, "subscripts", &sub); err != nil {
		return nil, err
	}
	ts, err := a.tensors("*operands")
	if err != nil {
		return nil, err
	}
	return linalg.Einsum(sub, ts...), nil
}

func lu(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	permute, err := a.bool("permute_l")
	if err != nil {
		return nil, err
	}
	if permute {
		pl, u := linalg.LUPermuted(t)
		return pick(a, pl, u)
	}
	p, l, u := linalg.LU(t)
	return pick(a, p, l, u)
}

// randomizedSVD takes scikit-learn's keywords: n_iter an integer or
// "auto", flip_sign true by default, random_state an integer seed or null.
func randomizedSVD(a *args) (*tensor.Tensor, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	k, err := a.int("n_components", 0)
	if err != nil {
		return nil, err
	}
	var opts []linalg.RSVDOption
	over, err := a.int("n_oversamples", 10)
	if err != nil {
		return nil, err
	}
	opts = append(opts, linalg.Oversamples(over))
	if a.has("n_iter") {
		var auto string
		if json.Unmarshal(a.vals["n_iter"], &auto) == nil {
			if auto != "auto" {
				return nil, valueErr("n_iter %q: want an integer or 'auto'", auto)
			}
		} else {
			n, err := a.int("n_iter", 0)
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, valueErr("n_iter = %d: want at least 0", n)
			}
			opts = append(opts, linalg.PowerIters(n))
		}
	}
	if a.has("flip_sign") {
		flip, err := a.bool("flip_sign")
		if err != nil {
			return nil, err
		}
		if !flip {
			opts = append(opts, linalg.NoSignFlip())
		}
	}
	if a.has("random_state") && string(a.vals["random_state"]) != "null" {
		var seed uint64
		if err := json.Unmarshal(a.vals["random_state"], &seed); err != nil {
			return nil, typeErr("random_state", fmt.Errorf("want a non-negative integer seed, got %s", a.vals["random_state"]))
		}
		opts = append(opts, linalg.Seed(seed))
	}
	u, s, vt := linalg.RandomizedSVD(t, k, opts...)
	return pick(a, u, s, vt)
}

// oneOf is a function of one tensor, the argument name.
func oneOf(name string, f func(*tensor.Tensor) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor(name)
		if err != nil {
			return nil, err
		}
		return f(t), nil
	}
}
