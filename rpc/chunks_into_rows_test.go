//go:build linux

package rpc

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Chunks with long runs are written with pwrite, run by run, into their
// boxes; the file then holds what the whole array does.
func TestWriteRunsBoxes(t *testing.T) {
	cases := []struct {
		shape  []int
		starts [][]int
		chunk  []int
	}{
		{[]int{5, 1200}, [][]int{{0, 0}, {0, 600}}, []int{5, 600}},          // a run per row
		{[]int{4, 3, 700}, [][]int{{0, 0, 0}, {2, 0, 0}}, []int{2, 3, 700}}, // rows merged into one run
		{[]int{2, 3, 1100}, [][]int{{0, 2, 0}}, []int{2, 1, 1100}},          // rows 0 and 1 left as they were
	}
	for _, c := range cases {
		full, _ := ndarray.New(ndarray.Float64, c.shape...)
		for i := range full.Size() {
			full.SetFlat(i, float64(i)+0.5)
		}
		path := resultFile(t, full.Nbytes())
		want, _ := ndarray.New(ndarray.Float64, c.shape...) // zero where no box is written
		for _, st := range c.starts {
			rs := make([]ndarray.Range, len(st))
			for ax := range st {
				rs[ax] = ndarray.Range{Start: st[ax], Step: 1, Len: c.chunk[ax]}
			}
			box, err := full.Slice(rs)
			if err != nil {
				t.Fatal(err)
			}
			wbox, _ := want.Slice(rs)
			ndarray.CopyInto(wbox, box)
			fd, err := unix.Open(path, unix.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			done, err := writeRuns(fd, ndarray.Float64, c.shape, st, box.Copy())
			unix.Close(fd)
			if err != nil || !done {
				t.Fatalf("%v at %v: done %v, %v", c.chunk, st, done, err)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := ndarray.Wrap(ndarray.Float64, c.shape, b)
		for i, w := range want.Float64s() {
			if got.Float64s()[i] != w {
				t.Fatalf("%v: element %d: %v, want %v", c.shape, i, got.Float64s()[i], w)
			}
		}
	}
	// Short runs and strided chunks are left to the mapping.
	a, _ := ndarray.New(ndarray.Float64, 4, 5)
	if done, err := writeRuns(-1, ndarray.Float64, []int{8, 5}, []int{0, 0}, a); done || err != nil {
		t.Fatalf("short runs: done %v, %v", done, err)
	}
	big, _ := ndarray.New(ndarray.Float64, 600, 600)
	tr, _ := big.Transpose(1, 0)
	if done, err := writeRuns(-1, ndarray.Float64, []int{600, 600}, []int{0, 0}, tr); done || err != nil {
		t.Fatalf("strided: done %v, %v", done, err)
	}
}
