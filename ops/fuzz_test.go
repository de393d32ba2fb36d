package ops_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
)

// FuzzUnmarshalChunkOp feeds the op codec what a Dispatch may carry: an
// error or an op, never a panic.
func FuzzUnmarshalChunkOp(f *testing.F) {
	for _, op := range []ops.ChunkOp{
		ops.FullChunk{Shape: []int{4, 3}, DType: ndarray.Float64, Value: 2},
		ops.Elementwise{Kind: "binary", Name: "add"},
		ops.Elementwise{Kind: "unary", Name: "sqrt"},
	} {
		b, err := ops.MarshalOp(op)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"fused","params":{"nodes":[{"op":{"type":"nope"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		op, err := ops.UnmarshalChunkOp(data)
		if err == nil && op == nil {
			t.Fatal("no op and no error")
		}
		if err == nil {
			_ = op.Type()
			_ = ops.Label(op)
		}
	})
}
