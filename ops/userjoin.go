package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

// Join is one block a user's function takes, made of parts of the call's
// arrays: a block runner writes each part straight to its place in the
// memory it hands the function (a Python executor's shared memory), so a
// block assembled from its neighbours' borders (map_overlap) is copied
// once, not assembled first and copied again.
type Join struct {
	DType ndarray.DType
	Shape []int
	// Parts cover the block without overlapping.
	Parts []JoinPart
}

// JoinPart is one array (a view, often strided) placed at Dst in its block.
type JoinPart struct {
	Src *ndarray.Array
	Dst []int
}

// Nbytes is the block's size.
func (j Join) Nbytes() int { return ndarray.Size(j.Shape) * j.DType.Size() }

// Into copies the parts into dst, an array of the block's dtype and shape.
func (j Join) Into(dst *ndarray.Array) error {
	for k, p := range j.Parts {
		if p.Src.DType() != j.DType {
			return fmt.Errorf("part %d is %v, its block %v", k, p.Src.DType(), j.DType)
		}
		if len(j.Parts) == 1 && slices.Equal(p.Src.Shape(), j.Shape) {
			ndarray.CopyInto(dst, p.Src)
			continue
		}
		sub, err := dst.Slice(unitRanges(p.Dst, p.Src.Shape()))
		if err != nil {
			return fmt.Errorf("part %d: %w", k, err)
		}
		ndarray.CopyInto(sub, p.Src)
	}
	return nil
}

// Blocks are the blocks the function takes: Joins, or each input whole.
func (c BlockCall) Blocks() []Join {
	if c.Joins != nil {
		return c.Joins
	}
	js := make([]Join, len(c.Inputs))
	for i, in := range c.Inputs {
		js[i] = Join{DType: in.DType(), Shape: in.Shape(), Parts: []JoinPart{{Src: in, Dst: make([]int, in.NDim())}}}
	}
	return js
}

// InBytes is the size of the blocks the function takes.
func (c BlockCall) InBytes() int64 {
	var n int64
	for _, j := range c.Blocks() {
		n += int64(j.Nbytes())
	}
	return n
}

// joins takes the chunk op's inputs apart into the function's blocks,
// along op.Joined: a block assembled from pieces takes the next
// len(Pieces) inputs, each cut to its piece; any other takes one input
// whole.
func (op UserBlock) joins(in []*ndarray.Array) ([]Join, error) {
	js := make([]Join, 0, len(op.Joined))
	k := 0
	for b, a := range op.Joined {
		if a == nil {
			if k >= len(in) {
				return nil, fmt.Errorf("%s: block %d: too few inputs (%d)", op.Label(), b, len(in))
			}
			x := in[k]
			js = append(js, Join{DType: x.DType(), Shape: x.Shape(), Parts: []JoinPart{{Src: x, Dst: make([]int, x.NDim())}}})
			k++
			continue
		}
		if k+len(a.Pieces) > len(in) || len(a.Pieces) == 0 {
			return nil, fmt.Errorf("%s: block %d: %d pieces, %d inputs left", op.Label(), b, len(a.Pieces), len(in)-k)
		}
		j := Join{DType: in[k].DType(), Shape: a.shape()}
		for _, p := range a.Pieces {
			src, err := in[k].Slice(unitRanges(p.Src, p.Len))
			if err != nil {
				return nil, fmt.Errorf("%s: block %d: %w", op.Label(), b, err)
			}
			j.Parts = append(j.Parts, JoinPart{Src: src, Dst: p.Dst})
			k++
		}
		js = append(js, j)
	}
	if k != len(in) {
		return nil, fmt.Errorf("%s: %d inputs for blocks that take %d", op.Label(), len(in), k)
	}
	return js, nil
}

// assembled makes each joined block an array of its own (a Go function's
// blocks: no executor's memory to write them into).
func assembled(ctx context.Context, js []Join) ([]*ndarray.Array, error) {
	out := make([]*ndarray.Array, len(js))
	for i, j := range js {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(j.Parts) == 1 && slices.Equal(j.Parts[0].Src.Shape(), j.Shape) {
			out[i] = j.Parts[0].Src
			continue
		}
		a, err := ndarray.NewUninit(j.DType, j.Shape...)
		if err != nil {
			return nil, err
		}
		if err := j.Into(a); err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// shape is the assembled chunk's: the pieces' extent.
func (op Assemble) shape() []int {
	if len(op.Pieces) == 0 {
		return nil
	}
	shape := make([]int, len(op.Pieces[0].Dst))
	for _, p := range op.Pieces {
		for ax := range shape {
			shape[ax] = max(shape[ax], p.Dst[ax]+p.Len[ax])
		}
	}
	return shape
}

// maxJoinPieces bounds the pieces of an Assemble folded into a user's
// block (Covers checks them pairwise).
const maxJoinPieces = 64

// Covers reports whether the pieces fill the assembled chunk exactly,
// each element once: then its block can be written part by part into
// memory that is not cleared first.
func (op Assemble) Covers() bool {
	shape := op.shape()
	if shape == nil {
		return false
	}
	total := 0
	for _, p := range op.Pieces {
		if len(p.Dst) != len(shape) || len(p.Len) != len(shape) || len(p.Src) != len(shape) {
			return false
		}
		n := 1
		for _, l := range p.Len {
			if l < 0 {
				return false
			}
			n *= l
		}
		total += n
	}
	if total != ndarray.Size(shape) {
		return false
	}
	// Equal volumes with no two pieces overlapping is a cover. Many
	// small pieces are not worth the pairwise check: left unjoined.
	if len(op.Pieces) > maxJoinPieces {
		return false
	}
	for a := range op.Pieces {
		for b := a + 1; b < len(op.Pieces); b++ {
			if overlaps(op.Pieces[a], op.Pieces[b]) {
				return false
			}
		}
	}
	return true
}

func overlaps(p, q Piece) bool {
	for ax := range p.Dst {
		if p.Len[ax] == 0 || q.Len[ax] == 0 {
			return false
		}
		if p.Dst[ax]+p.Len[ax] <= q.Dst[ax] || q.Dst[ax]+q.Len[ax] <= p.Dst[ax] {
			return false
		}
	}
	return true
}
