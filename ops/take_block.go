package ops

import (
	"context"
	"fmt"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(Descriptor{Name: "take_block", Op: TakeBlockChunk{}})
}

// TakeBlockChunk is Take of an index chunk from an x whose axis is one
// block (a small table of values looked up by many indices, as a
// classifier's classes by the argmax of its scores): one chunk op per
// index chunk instead of a TakePartChunk and a TakeJoinChunk. Its inputs
// are that block of x, then the index chunk.
type TakeBlockChunk struct {
	Axis int `json:"axis"`
}

// Type implements ChunkOp.
func (TakeBlockChunk) Type() string { return "take_block" }

// Exec implements ChunkOp.
func (op TakeBlockChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("take_block: %d inputs, want 2", len(in))
	}
	return ndarray.TakeBlock(in[0], in[1], op.Axis)
}
