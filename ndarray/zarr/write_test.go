package zarr_test

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/ndarray/zarr"
)

// Stores Phobos writes (every codec, every dtype, edge chunks, chunks larger
// than the array) read back equal, by this reader and by zarr-python.
func TestWrittenStoresReadBack(t *testing.T) {
	dir := t.TempDir()
	py := "/usr/bin/python3"
	havePy := exec.Command(py, "-c", "import zarr").Run() == nil
	n := 0
	var script string
	for _, codec := range zarr.Codecs {
		for _, dt := range ndarray.DTypes() {
			for _, c := range []struct{ shape, chunks []int }{{[]int{37, 23}, []int{10, 7}}, {[]int{5, 300}, []int{8, 1000}}, {[]int{200000}, []int{70000}}} {
				a := testArray(dt, c.shape, n)
				z, err := zarr.NewArray(c.shape, c.chunks, dt, codec)
				if err != nil {
					t.Fatal(err)
				}
				store := filepath.Join(dir, fmt.Sprintf("w%d.zarr", n))
				if err := writeAll(z, store, a); err != nil {
					t.Fatalf("%q %v %v: %v", codec, dt, c.shape, err)
				}
				back, err := zarr.Open(store)
				if err != nil {
					t.Fatal(err)
				}
				got, err := back.ReadRegion(make([]int, len(c.shape)), c.shape)
				if err != nil || !sameValues(got, a) {
					t.Fatalf("%q %v %v: read back %v", codec, dt, c.shape, err)
				}
				if err := npy.WriteFile(filepath.Join(dir, fmt.Sprintf("w%d.npy", n)), a); err != nil {
					t.Fatal(err)
				}
				script += fmt.Sprintf("check(%d)\n", n)
				n++
			}
		}
	}
	if !havePy {
		t.Skip("zarr-python is not installed for /usr/bin/python3 (apt-get install python3-zarr): checked by this reader only")
	}
	prog := fmt.Sprintf(`
import numpy as np, zarr, os
d = %q
def check(i):
    a = zarr.open(os.path.join(d, "w%%d.zarr" %% i), mode="r")[...]
    b = np.load(os.path.join(d, "w%%d.npy" %% i))
    assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), i
`, dir) + script + "print('ok')\n"
	if out, err := exec.Command(py, "-c", prog).CombinedOutput(); err != nil {
		t.Fatalf("zarr-python reading Phobos's stores: %v\n%s", err, out)
	}
	t.Logf("zarr written: %d stores written by Phobos read equal by zarr-python", n)
}

func writeAll(z *zarr.Array, store string, a *ndarray.Array) error {
	if err := mkdir(store); err != nil {
		return err
	}
	if err := z.WriteMeta(store); err != nil {
		return err
	}
	grid := z.Grid()
	idx := make([]int, len(grid))
	for {
		ranges := make([]ndarray.Range, len(grid))
		for i := range grid {
			s := idx[i] * z.Chunks[i]
			ranges[i] = ndarray.Range{Start: s, Step: 1, Len: min(z.Chunks[i], z.Shape[i]-s)}
		}
		part, err := a.Slice(ranges)
		if err != nil {
			return err
		}
		if _, err := z.WriteChunk(store, idx, part); err != nil {
			return err
		}
		ax := len(grid) - 1
		for ; ax >= 0; ax-- {
			if idx[ax]++; idx[ax] < grid[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return nil
		}
	}
}

func testArray(dt ndarray.DType, shape []int, seed int) *ndarray.Array {
	a, _ := ndarray.New(ndarray.Float64, shape...)
	v := a.Float64s()
	x := uint64(seed)*2654435761 + 1
	for i := range v {
		x = x*6364136223846793005 + 1442695040888963407
		v[i] = float64(int64(x>>40)%2000) - 1000 + float64(i%4)/4
	}
	out := a.Astype(dt)
	if dt.IsComplex() {
		// A distinct imaginary part, so a swapped or lost part shows.
		for i := range out.Size() {
			out.SetComplexFlat(i, complex(v[i], -v[(i+1)%len(v)]/2))
		}
	}
	return out
}

func sameValues(a, b *ndarray.Array) bool {
	if a.DType() != b.DType() || !ndarray.SameShape(a.Shape(), b.Shape()) {
		return false
	}
	if a.DType().IsComplex() {
		for i := range a.Size() {
			x, y := a.ComplexAtFlat(i), b.ComplexAtFlat(i)
			if x != y && !(math.IsNaN(real(x)) && math.IsNaN(real(y))) {
				return false
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
