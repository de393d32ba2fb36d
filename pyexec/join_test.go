//go:build linux

package pyexec

import (
	"context"
	"os"
	"slices"
	"testing"
	"unsafe"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// A block assembled from parts (one flipped, one transposed) is written
// into the arena part by part, and a trimmed view the function returns
// comes back whole: a large one copied into the arena by the executor, a
// smaller one read row by row where it lies (more rows than one read
// takes, each long enough), or through a shared file where reading the
// executor's memory is refused.
func TestRunBlockJoinedAndTrimmed(t *testing.T) {
	const cols, top = 560, 100
	for _, rows := range []int{1100, 150} {
		for _, vm := range []bool{true, false} {
			out := ops.Meta{Shape: []int{rows - 5, cols - 12}, DType: ndarray.Float64}
			if big := out.Nbytes() >= arenaOutMin; big != (rows == 1100) {
				t.Fatalf("rows %d: in the arena %v", rows, big)
			}
			p := newPool(t, Config{Slots: 1})
			if !vm {
				e, err := p.start()
				if err != nil {
					t.Fatal(err)
				}
				e.vm = false
				p.idle <- e
			}
			checkJoinedAndTrimmed(t, p, rows, cols, top, out)
		}
	}
}

func checkJoinedAndTrimmed(t *testing.T, p *Pool, rows, cols, top int, out ops.Meta) {
	t.Helper()
	a := arange(t, top, cols)
	head, err := a.Flip(0)
	if err != nil {
		t.Fatal(err)
	}
	tail, err := arange(t, cols, rows-top).Transpose(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	join := ops.Join{DType: ndarray.Float64, Shape: []int{rows, cols}, Parts: []ops.JoinPart{
		{Src: head, Dst: []int{0, 0}}, {Src: tail, Dst: []int{top, 0}},
	}}
	// The block as NumPy would hold it, assembled independently.
	hv, tv := a.Float64s(), arange(t, cols, rows-top).Float64s()
	block := func(i, j int) float64 {
		if i < top {
			return hv[(top-1-i)*cols+j]
		}
		return tv[j*(rows-top)+i-top]
	}
	payload := pickle(t, "def f(b):\n    r = b[3:-2, 5:-7]\n    assert not r.flags.c_contiguous\n    return r", false, false)
	for range 2 { // the second call reuses the arena, its old bytes overwritten
		res, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: payload, Joins: []ops.Join{join}, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Float64s()
		for i := range out.Shape[0] {
			for j := range out.Shape[1] {
				if w := block(i+3, j+5); got[i*out.Shape[1]+j] != w {
					t.Fatalf("rows %d: element (%d, %d): got %v, want %v", rows, i, j, got[i*out.Shape[1]+j], w)
				}
			}
		}
	}
}

// A large output of unknown length has room for its bound in the arena;
// the result, shorter, comes back at its own length.
func TestRunBlockUnknownLengthInArena(t *testing.T) {
	p := newPool(t, Config{Slots: 1})
	const n = 300_000
	in := arange(t, n)
	out := ops.Meta{Shape: []int{n}, DType: ndarray.Float64, Unknown: 1}
	if out.Nbytes() < arenaOutMin {
		t.Fatalf("%d bytes: not in the arena", out.Nbytes())
	}
	payload := pickle(t, "def f(a): return a[a > 0] * 2", false, false)
	res, err := p.RunBlock(context.Background(), ops.BlockCall{Op: "user_block(f)", Payload: payload, Inputs: []*ndarray.Array{in}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for _, v := range in.Float64s() {
		if v > 0 {
			want = append(want, v*2)
		}
	}
	if got := res.Float64s(); !slices.Equal(got, want) {
		t.Fatalf("got %d elements, want %d (first %v)", len(got), len(want), got[:min(3, len(got))])
	}
}

// readRemoteRows reads any strides, negative ones too, in C order; this
// process reads itself.
func TestReadRemoteRows(t *testing.T) {
	buf := make([]float64, 4*6*8)
	for i := range buf {
		buf[i] = float64(i)
	}
	cases := []struct {
		shape, strides []int // strides in elements
		start          int
	}{
		{[]int{4, 6, 8}, []int{48, 8, 1}, 0},    // contiguous: one row
		{[]int{4, 3, 5}, []int{48, 16, 1}, 2},   // every other row, cut short
		{[]int{4, 6, 8}, []int{-48, 8, 1}, 144}, // the first axis reversed
		{[]int{3, 2, 8}, []int{48, 8, 1}, 8},    // the last two axes one row
		{[]int{2, 0, 8}, []int{48, 8, 1}, 0},    // empty
	}
	for _, c := range cases {
		var want []float64
		idx := make([]int, len(c.shape))
		n := ndarray.Size(c.shape)
		for range n {
			off := c.start
			for ax, i := range idx {
				off += i * c.strides[ax]
			}
			want = append(want, buf[off])
			for ax := len(idx) - 1; ax >= 0; ax-- {
				if idx[ax]++; idx[ax] < c.shape[ax] {
					break
				}
				idx[ax] = 0
			}
		}
		got := make([]float64, n)
		dst := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(got))), 8*n)
		bs := make([]int, len(c.strides))
		for i, s := range c.strides {
			bs[i] = 8 * s
		}
		if err := readRemoteRows(os.Getpid(), dst, uint64(uintptr(unsafe.Pointer(&buf[c.start]))), c.shape, bs, 8); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%v: got %v, want %v", c, got, want)
		}
	}
	if err := readRemoteRows(os.Getpid(), make([]byte, 8), 0, []int{2}, []int{8}, 8); err == nil {
		t.Fatal("16 bytes read into 8")
	}
}
