package zarr_test

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ndarray/zarr"
)

// TestZarrPythonStores reads stores written by zarr-python (every
// compressor, byte order, dtype, C and F order, odd and single-element
// chunks, chunks larger than the array, an empty array, missing chunks,
// both dimension separators) and compares them with the arrays NumPy saved,
// whole and by regions that cut through stored chunks.
func TestZarrPythonStores(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import zarr, numcodecs").Run(); err != nil {
		t.Skip("zarr-python is not installed for /usr/bin/python3 (apt-get install python3-zarr)")
	}
	dir := t.TempDir()
	if out, err := exec.Command(py, "testdata/make_stores.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("make_stores.py: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Name, Desc string }
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	passed := 0
	for _, c := range cases {
		want, err := npy.ReadFile(filepath.Join(dir, c.Name+".npy"))
		if err != nil {
			t.Fatalf("%s: %v", c.Desc, err)
		}
		a, err := zarr.Open(filepath.Join(dir, c.Name+".zarr"))
		if err != nil {
			t.Errorf("%s: %v", c.Desc, err)
			continue
		}
		zero := make([]int, len(a.Shape))
		got, err := a.ReadRegion(zero, a.Shape)
		if err != nil {
			t.Errorf("%s: %v", c.Desc, err)
			continue
		}
		if !same(got, want) {
			t.Errorf("%s: values differ from NumPy's", c.Desc)
			continue
		}
		// A region cutting through chunks: from 1 to the end less 1.
		off, shape := make([]int, len(a.Shape)), make([]int, len(a.Shape))
		ranges := make([]ndarray.Range, len(a.Shape))
		for i, n := range a.Shape {
			if n >= 3 {
				off[i], shape[i] = 1, n-2
			} else {
				shape[i] = n
			}
			ranges[i] = ndarray.Range{Start: off[i], Step: 1, Len: shape[i]}
		}
		part, err := a.ReadRegion(off, shape)
		if err != nil {
			t.Errorf("%s: region: %v", c.Desc, err)
			continue
		}
		wantPart, _ := want.Slice(ranges)
		if !same(part, wantPart) {
			t.Errorf("%s: region %v+%v differs", c.Desc, off, shape)
			continue
		}
		passed++
	}
	t.Logf("zarr differential: %d stores written by zarr-python, %d read equal to NumPy", len(cases), passed)
}

func same(a, b *ndarray.Array) bool {
	if a.DType() != b.DType() || !ndarray.SameShape(a.Shape(), b.Shape()) {
		return false
	}
	if a.DType().IsComplex() {
		for i := range a.Size() {
			x, y := a.ComplexAtFlat(i), b.ComplexAtFlat(i)
			for _, p := range [][2]float64{{real(x), real(y)}, {imag(x), imag(y)}} {
				if p[0] != p[1] && !(math.IsNaN(p[0]) && math.IsNaN(p[1])) {
					return false
				}
			}
		}
		return true
	}
	x, y := a.ToFloat64s(), b.ToFloat64s()
	for i := range x {
		if x[i] != y[i] && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
			return false
		}
	}
	return true
}
