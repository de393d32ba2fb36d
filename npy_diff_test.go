package phobos_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestNpyNumPyDifferential: .npy files written by NumPy (every Phobos
// dtype, complex ones included, C and Fortran order, little- and big-endian) read by FromNpy
// under several chunkings equal NumPy's arrays; files Phobos writes with
// ToNpy (of an expression of them) are read by NumPy and equal its own
// result of the same expression.
func TestNpyNumPyDifferential(t *testing.T) {
	npRunner.Skip(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	s := newIOSession(t, phobos.WithWorkers(2))

	type file struct {
		name, path string
		shape      []int
	}
	var files []file
	var cases []numpytest.Case
	shapes := [][]int{{}, {13}, {7, 5}, {4, 3, 6}, {2, 0, 3}}
	for _, dt := range []string{"f8", "f4", "i8", "i4", "b1", "c16", "c8"} {
		for _, order := range []string{"C", "F"} {
			for _, bo := range []string{"<", ">"} {
				if dt == "b1" && bo == ">" {
					continue // one byte: no byte order
				}
				for si, shape := range shapes {
					name := fmt.Sprintf("%s%s-%s-%d", strings.ReplaceAll(bo, ">", "be"), dt, order, si)
					name = strings.ReplaceAll(name, "<", "le")
					path := filepath.Join(dir, name+".npy")
					n := 1
					dims := make([]string, len(shape))
					for i, d := range shape {
						n *= d
						dims[i] = fmt.Sprint(d)
					}
					// Distinct, signed values (for bool: a pattern).
					vals := fmt.Sprintf("((np.arange(%d) * 7919) %% 2003 - 1001) * 1.25", n)
					if dt == "b1" {
						vals = fmt.Sprintf("(np.arange(%d) * 7 %% 3 == 1)", n)
					} else if dt[0] == 'i' {
						vals = fmt.Sprintf("((np.arange(%d) * 7919) %% 2003 - 1001) * 1000003", n)
					} else if dt[0] == 'c' {
						vals = fmt.Sprintf("((np.arange(%d) * 7919) %% 2003 - 1001) * 1.25 - 0.5j * (np.arange(%d) %% 17 - 8)", n, n)
					}
					arr := fmt.Sprintf("np.asarray((%s).reshape((%s)).astype('%s%s'), order='%s')", vals, strings.Join(dims, ",")+",", bo, dt, order)
					if len(shape) == 0 {
						arr = fmt.Sprintf("np.asarray((%s).reshape(()).astype('%s%s'), order='%s')", vals, bo, dt, order)
					}
					cases = append(cases, numpytest.Case{
						Name: name,
						Expr: fmt.Sprintf("[np.save(%q, A := %s), A][1]", path, arr),
					})
					files = append(files, file{name, path, shape})
				}
			}
		}
	}
	res, errs, err := npRunner.Eval(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	chunkings := []func([]int) []tensor.Option{
		func([]int) []tensor.Option { return nil },
		func([]int) []tensor.Option { return []tensor.Option{tensor.Chunks(1)} },
		func([]int) []tensor.Option { return []tensor.Option{tensor.Chunks(2)} },
		func([]int) []tensor.Option { return []tensor.Option{tensor.Chunks(4)} },
		func([]int) []tensor.Option { return []tensor.Option{tensor.Chunks(100)} },
	}
	count := 0
	var back []numpytest.Case
	for i, f := range files {
		if errs[i] != nil {
			t.Fatalf("%s: NumPy: %v", f.name, errs[i])
		}
		want := res[i][0]
		for k, ck := range chunkings {
			x := tensor.FromNpy(f.path, ck(f.shape)...)
			out := filepath.Join(dir, fmt.Sprintf("out-%s-%d.npy", f.name, k))
			got, err := s.Execute(ctx, x, x.Transpose().ToNpy(out))
			if err != nil {
				t.Fatalf("%s chunking %d: %v", f.name, k, err)
			}
			if err := sameArray(got[0], want); err != nil {
				t.Fatalf("%s chunking %d: %v", f.name, k, err)
			}
			back = append(back, numpytest.Case{
				Name: fmt.Sprintf("%s-%d", f.name, k),
				Expr: fmt.Sprintf("(lambda o, a: o.dtype == a.dtype.newbyteorder('=') and o.shape == a.T.shape and o.flags.c_contiguous and np.array_equal(o, a.T))(np.load(%q), np.load(%q))", out, f.path),
			})
			count++
		}
	}
	res, errs, err = npRunner.Eval(ctx, back)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range back {
		if errs[i] != nil {
			t.Fatalf("%s: NumPy: %v", c.Name, errs[i])
		}
		if r := res[i][0]; r.DType() != ndarray.Bool || !(r.Bools()[0] == 1) {
			t.Errorf("%s: NumPy reads Phobos's file differently", c.Name)
		}
	}
	t.Logf("npy differential: %d NumPy-written files, %d reads and %d Phobos-written files checked by NumPy", len(files), count, len(back))
}
