package calls

import (
	"github.com/phobos-tensor/phobos/linalg"
	"github.com/phobos-tensor/phobos/tensor"
)

// The functions the Python Array API standard adds to numpy.linalg's:
// eigh and eigvalsh (UPLO "L" or "U", as NumPy takes it).
func init() {
	table["linalg.eigh"] = function{[]string{"a", "UPLO", "out"}, eigh, 1}
	table["linalg.eigvalsh"] = function{[]string{"a", "UPLO"}, eigvalsh, 1}
}

// uplo reads NumPy's UPLO argument: true for "U".
func uplo(a *args) (bool, error) {
	if !a.has("UPLO") {
		return false, nil
	}
	s := "L"
	if err := jsonString(a, "UPLO", &s); err != nil {
		return false, err
	}
	switch s {
	case "L", "l":
		return false, nil
	case "U", "u":
		return true, nil
	}
	return false, valueErr("UPLO argument must be 'L' or 'U'")
}

func eigh(a *args) (*tensor.Tensor, error) {
	t, upper, err := symmetric(a)
	if err != nil {
		return nil, err
	}
	w, v := linalg.Eigh(t, upper)
	return pick(a, w, v)
}

func eigvalsh(a *args) (*tensor.Tensor, error) {
	t, upper, err := symmetric(a)
	if err != nil {
		return nil, err
	}
	return linalg.EigvalsH(t, upper), nil
}

// symmetric is a symmetric matrix and the triangle to read (UPLO).
func symmetric(a *args) (*tensor.Tensor, bool, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, false, err
	}
	upper, err := uplo(a)
	return t, upper, err
}
