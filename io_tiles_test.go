package phobos_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/phobos-tensor/phobos"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestNpyReadByTiles: a .npy chunk read by one fused consumer is read
// tile by tile into the kernel (ops.TileSource), with the same numbers as
// reading whole chunks (fusion off): every layout (C and Fortran order,
// little- and big-endian), odd chunkings, one-element chunks and chunks
// larger than the array, elementwise kernels (tiles that cut rows) and
// moments over leading axes (tiles of whole rows). The reference is the
// same kernel over the array given from memory, so the arithmetic is the
// same and the numbers must be too.
func TestNpyReadByTiles(t *testing.T) {
	dir := t.TempDir()
	type layout struct {
		name         string
		fortran, big bool
	}
	layouts := []layout{{"C", false, false}, {"C big-endian", false, true}, {"Fortran", true, false}}
	shapes := [][]int{{13}, {37, 23}, {5, 6, 7}}
	chunkings := map[int][][]int{
		1: {{1}, {4}, {13}, {50}},
		2: {{1, 1}, {5, 23}, {10, 7}, {37, 23}, {64, 64}},
		3: {{2, 3, 7}, {5, 1, 4}, {1, 6, 7}},
	}
	sess := newIOSession(t)
	for si, shape := range shapes {
		for _, dt := range []ndarray.DType{ndarray.Float64, ndarray.Float32, ndarray.Int32} {
			a := ioArray(t, dt, shape, uint64(40+si))
			for _, l := range layouts {
				path := filepath.Join(dir, fmt.Sprintf("x%d-%v-%s.npy", si, dt, l.name))
				writeNpyLayout(t, path, a, l.fortran, l.big)
				for _, ck := range chunkings[len(shape)] {
					name := fmt.Sprintf("%v %v %s chunks %v", shape, dt, l.name, ck)
					exprs := map[string]func(x *tensor.Tensor) *tensor.Tensor{
						"(x * 2 + 1).sum(axis=-1)": func(x *tensor.Tensor) *tensor.Tensor { return x.Mul(2).Add(1).Sum(tensor.Axis(-1)) },
						"x.var(axis=0)":            func(x *tensor.Tensor) *tensor.Tensor { return x.Var(tensor.Axis(0)) },
						"abs(x - 0.5)":             func(x *tensor.Tensor) *tensor.Tensor { return x.Sub(0.5).Abs() },
					}
					for ename, build := range exprs {
						y := build(tensor.FromNpy(path, tensor.Chunks(ck...)))
						plan, err := phobos.Compile(y)
						if err != nil {
							t.Fatalf("%s: %s: %v", name, ename, err)
						}
						inKernel := 0
						for _, nd := range plan.Graph.Nodes {
							op := nd.Op
							if fin, ok := op.(ops.Finished); ok {
								op = fin.Op // a kernel that finishes its reduction in place
							}
							if f, ok := op.(ops.Fused); ok {
								for _, fn := range f.Nodes {
									if _, ok := fn.Op.(ops.NpyReadChunk); ok {
										inKernel++
									}
								}
							}
						}
						if want := !l.fortran; (inKernel > 0) != want {
							t.Errorf("%s: %s: %d file reads inside kernels; want them inside: %v", name, ename, inKernel, want)
						}
						got, err := sess.Execute(ioCtx(t), y)
						if err != nil {
							t.Fatalf("%s: %s: %v", name, ename, err)
						}
						ref, err := sess.Execute(ioCtx(t), build(tensor.FromArray(a, tensor.Chunks(ck...))))
						if err != nil {
							t.Fatalf("%s: %s (from memory): %v", name, ename, err)
						}
						if err := sameArray(got[0], ref[0]); err != nil {
							t.Errorf("%s: %s read by tiles: %v", name, ename, err)
						}
					}
				}
			}
		}
	}
}
