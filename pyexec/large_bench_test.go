//go:build linux

package pyexec

import (
	"context"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// BenchmarkRunBlockTrimmed is one call's cost beyond the function on a
// map_overlap block of 1024x1024 float64 with borders of 16: the block
// written into the arena, the trimmed result brought back.
func BenchmarkRunBlockTrimmed(b *testing.B) {
	p := newPool(b, Config{Slots: 1})
	const n, d = 1024, 16
	in, err := ndarray.NewUninit(ndarray.Float64, n+2*d, n+2*d)
	if err != nil {
		b.Fatal(err)
	}
	call := ops.BlockCall{Op: "user_block(f)", Payload: pickle(b, "def f(b): return b[16:-16, 16:-16]", false, false),
		Inputs: []*ndarray.Array{in}, Out: ops.Meta{Shape: []int{n, n}, DType: ndarray.Float64}}
	b.SetBytes(int64(n * n * 8))
	for b.Loop() {
		if _, err := p.RunBlock(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}
