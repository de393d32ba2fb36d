package calls

import (
	"encoding/json"
	"errors"

	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/tensor"
)

// The linear algebra of package linalg, by numpy.linalg's names prefixed
// "linalg."; functions of several results take "out", the result's index.
func init() {
	for name, f := range map[string]function{
		"linalg.qr":               {[]string{"a", "mode", "out"}, qr, 1},
		"linalg.svd":              {[]string{"a", "full_matrices", "out"}, svd, 1},
		"linalg.svdvals":          {[]string{"a"}, oneMatrix(linalg.SVDVals), 1},
		"linalg.cholesky":         {[]string{"a"}, oneMatrix(linalg.Cholesky), 1},
		"linalg.inv":              {[]string{"a"}, oneMatrix(linalg.Inv), 1},
		"linalg.det":              {[]string{"a"}, oneMatrix(linalg.Det), 1},
		"linalg.slogdet":          {[]string{"a", "out"}, slogdet, 2},
		"linalg.solve":            {[]string{"a", "b"}, solve, 2},
		"linalg.solve_triangular": {[]string{"a", "b", "lower", "trans", "unit_diagonal"}, solveTriangular, 2},
		"linalg.lstsq":            {[]string{"a", "b", "rcond", "out"}, lstsq, 2},
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

func oneMatrix(f func(*tensor.Tensor) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("a")
		if err != nil {
			return nil, err
		}
		return f(t), nil
	}
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
	x, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	y, err := a.tensor("b")
	if err != nil {
		return nil, err
	}
	return linalg.Solve(x, y), nil
}

func solveTriangular(a *args) (*tensor.Tensor, error) {
	x, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	y, err := a.tensor("b")
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
	return linalg.SolveTriangular(x, y, tr), nil
}

func lstsq(a *args) (*tensor.Tensor, error) {
	x, err := a.tensor("a")
	if err != nil {
		return nil, err
	}
	y, err := a.tensor("b")
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
	sol, res, rank, s := linalg.Lstsq(x, y, rc...)
	return pick(a, sol, res, rank, s)
}

func jsonString(a *args, name string, dst *string) error {
	if err := json.Unmarshal(a.vals[name], dst); err != nil {
		return typeErr(name, errors.New("want a string"))
	}
	return nil
}
