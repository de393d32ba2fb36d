package phobos_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
	"github.com/phobos-tensor/phobos/tensor"
)

// zarr-python writes Zarr v2 stores; FromZarr reads them through a session
// under many chunkings (the stored chunks, odd sizes, single elements,
// chunks larger than the array) and an expression over them, compared with
// what NumPy computed from the same data.
func TestFromZarrMatchesNumPy(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import zarr").Run(); err != nil {
		t.Skip("zarr-python is not installed for /usr/bin/python3 (apt-get install python3-zarr)")
	}
	dir := t.TempDir()
	script := `
import sys, os, numpy as np, zarr
from numcodecs import Blosc, Zstd
d = sys.argv[1]
rng = np.random.default_rng(3)
specs = [("f8", (31, 17), (8, 5), Blosc(cname="lz4", shuffle=Blosc.SHUFFLE), "C"),
         ("f4", (12, 9, 5), (5, 4, 5), Zstd(level=2), "F"),
         ("i8", (40,), (7,), Blosc(cname="zstd", shuffle=Blosc.BITSHUFFLE), "C"),
         ("i4", (9, 13), (4, 4), None, "F"),
         ("b1", (20, 6), (6, 6), Blosc(cname="zlib"), "C"),
         ("u1", (33, 7), (8, 3), Blosc(cname="lz4", shuffle=Blosc.BITSHUFFLE), "C"),
         (">i2", (15, 4), (4, 4), Zstd(level=1), "C"),
         ("i1", (50,), (9,), None, "C"),
         ("u2", (6, 11), (5, 5), Blosc(cname="zstd", shuffle=Blosc.SHUFFLE), "F"),
         ("<u4", (21,), (4,), None, "C"),
         (">u8", (5, 6), (2, 4), Zstd(level=3), "C")]
for i, (dt, shape, chunks, comp, order) in enumerate(specs):
    a = rng.integers(-50, 50, shape).astype(dt) if dt != "b1" else rng.random(shape) > 0.5
    if dt[0] == "f": a = (rng.standard_normal(shape) * 10).astype(dt)
    z = zarr.open(os.path.join(d, f"a{i}.zarr"), mode="w", shape=shape, chunks=chunks, dtype=dt, compressor=comp, order=order)
    z[...] = a
    np.save(os.path.join(d, f"a{i}.npy"), a)
    np.save(os.path.join(d, f"s{i}.npy"), (a.astype("f8") * 2).sum(axis=0))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("writing stores: %v\n%s", err, out)
	}
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	cases := 0
	for i := range 11 {
		want, err := npy.ReadFile(filepath.Join(dir, fmt.Sprintf("a%d.npy", i)))
		if err != nil {
			t.Fatal(err)
		}
		wantSum, err := npy.ReadFile(filepath.Join(dir, fmt.Sprintf("s%d.npy", i)))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("a%d.zarr", i))
		for _, opts := range [][]tensor.Option{nil, {tensor.Chunks(3)}, {tensor.Chunks(1)}, {tensor.Chunks(1000)}} {
			x := tensor.FromZarr(path, opts...)
			res, err := sess.Execute(ctx, x, x.Astype(ndarray.Float64).Mul(2).Sum(tensor.Axis(0)))
			if err != nil {
				t.Fatalf("store %d, chunks %v: %v", i, opts, err)
			}
			if !equalArrays(res[0], want, 0) {
				t.Errorf("store %d, chunks %v: values differ from NumPy's", i, opts)
			}
			if !equalArrays(res[1], wantSum, 1e-12) {
				t.Errorf("store %d, chunks %v: (x*2).sum(axis=0) differs from NumPy's", i, opts)
			}
			cases++
		}
	}
	t.Logf("zarr through a session: %d stores x chunkings equal to NumPy", cases)
	if x := tensor.FromZarr(filepath.Join(dir, "missing.zarr")); x.Err() == nil {
		t.Error("a missing store built without error")
	}
}

func equalArrays(a, b *ndarray.Array, rtol float64) bool {
	if !ndarray.SameShape(a.Shape(), b.Shape()) {
		return false
	}
	x, y := a.ToFloat64s(), b.ToFloat64s()
	for i := range x {
		if math.Abs(x[i]-y[i]) > rtol*math.Max(math.Abs(x[i]), math.Abs(y[i])) {
			return false
		}
	}
	return true
}

// ToZarr writes stores zarr-python reads equal to NumPy (each codec, edge
// chunks, an expression's result); a sink that fails leaves nothing at its
// path, and an existing path is refused.
func TestToZarr(t *testing.T) {
	py := "/usr/bin/python3"
	havePy := exec.Command(py, "-c", "import zarr").Run() == nil
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	dir := t.TempDir()
	g := tensor.NewGenerator(5)
	x := g.Uniform(-3, 3, []int{45, 31}, tensor.Chunks(11, 8))
	want, err := sess.Execute(ctx, x.Mul(2).Add(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(filepath.Join(dir, "want.npy"), want[0]); err != nil {
		t.Fatal(err)
	}
	check := ""
	for i, c := range []struct {
		codec  string
		chunks []int
	}{{"", nil}, {"none", []int{7, 31}}, {"zstd", []int{10, 10}}, {"zlib", []int{100, 4}}, {"gzip", []int{1, 31}}, {"blosc", []int{11, 8}}} {
		path := filepath.Join(dir, fmt.Sprintf("out%d.zarr", i))
		opts := []tensor.Option{tensor.ZarrCodec(c.codec)}
		if c.chunks != nil {
			opts = append(opts, tensor.Chunks(c.chunks...))
		}
		if _, err := sess.Execute(ctx, x.Mul(2).Add(1).ToZarr(path, opts...)); err != nil {
			t.Fatalf("codec %q chunks %v: %v", c.codec, c.chunks, err)
		}
		back, err := sess.Execute(ctx, tensor.FromZarr(path, tensor.Chunks(9)))
		if err != nil || !equalArrays(back[0], want[0], 0) {
			t.Fatalf("codec %q chunks %v: read back %v", c.codec, c.chunks, err)
		}
		check += fmt.Sprintf("check(%q)\n", path)
	}
	// An existing path is refused; a failing input leaves nothing.
	if _, err := sess.Execute(ctx, x.ToZarr(filepath.Join(dir, "out0.zarr"))); err == nil {
		t.Error("writing over an existing store: no error")
	}
	src := filepath.Join(dir, "src.npy")
	if err := npy.WriteFile(src, want[0]); err != nil {
		t.Fatal(err)
	}
	bad := tensor.FromNpy(src, tensor.Chunks(5))
	if err := os.Truncate(src, 300); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "failed.zarr")
	if _, err := sess.Execute(ctx, bad.ToZarr(target)); err == nil {
		t.Error("a sink over a truncated input: no error")
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed sink left %s (%v)", target, err)
	}
	if !havePy {
		return
	}
	prog := fmt.Sprintf("import numpy as np, zarr\nw = np.load(%q)\ndef check(p):\n    a = zarr.open(p, mode='r')[...]\n    assert a.dtype == w.dtype and np.array_equal(a, w), p\n", filepath.Join(dir, "want.npy")) + check
	if out, err := exec.Command(py, "-c", prog).CombinedOutput(); err != nil {
		t.Fatalf("zarr-python reading ToZarr's stores: %v\n%s", err, out)
	}
}

// Complex tensors go through Zarr v2 ('<c8', '<c16') and v3 ("complex64",
// "complex128") stores with every codec and read back bit for bit; the v2
// stores also read equal in zarr-python.
func TestComplexZarrRoundTrip(t *testing.T) {
	py := "/usr/bin/python3"
	havePy := exec.Command(py, "-c", "import zarr").Run() == nil
	sess, err := phobos.NewSession(phobos.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	dir := t.TempDir()
	g := tensor.NewGenerator(9)
	check := ""
	for _, dt := range []ndarray.DType{ndarray.Complex64, ndarray.Complex128} {
		re := g.Uniform(-3, 3, []int{23, 17}, tensor.Chunks(5, 6))
		im := g.Uniform(-3, 3, []int{23, 17}, tensor.Chunks(7, 4))
		x := re.Add(im.Mul(complex(0, 1))).Astype(dt)
		want, err := sess.Execute(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		wantPath := filepath.Join(dir, dt.String()+".npy")
		if err := npy.WriteFile(wantPath, want[0]); err != nil {
			t.Fatal(err)
		}
		for _, format := range []int{2, 3} {
			for i, codec := range []string{"", "zstd", "gzip", "blosc"} {
				path := filepath.Join(dir, fmt.Sprintf("%v-v%d-%d.zarr", dt, format, i))
				if _, err := sess.Execute(ctx, x.ToZarr(path, tensor.ZarrCodec(codec), tensor.ZarrFormat(format), tensor.Chunks(8, 5))); err != nil {
					t.Fatalf("%v v%d %q: %v", dt, format, codec, err)
				}
				back, err := sess.Execute(ctx, tensor.FromZarr(path, tensor.Chunks(9)))
				if err != nil {
					t.Fatalf("%v v%d %q: read back: %v", dt, format, codec, err)
				}
				if err := sameArray(back[0], want[0]); err != nil {
					t.Fatalf("%v v%d %q: %v", dt, format, codec, err)
				}
				if format == 2 {
					check += fmt.Sprintf("check(%q, %q)\n", path, wantPath)
				}
			}
		}
	}
	if !havePy {
		return
	}
	prog := "import numpy as np, zarr\ndef check(p, w):\n    w = np.load(w)\n    a = zarr.open(p, mode='r')[...]\n    assert a.dtype == w.dtype and np.array_equal(a, w), p\n" + check
	if out, err := exec.Command(py, "-c", prog).CombinedOutput(); err != nil {
		t.Fatalf("zarr-python reading complex stores: %v\n%s", err, out)
	}
}
