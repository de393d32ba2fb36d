package execution

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
)

// Reader reads a chunk from the worker holding it.
type Reader func(ctx context.Context, worker int, key protocol.ChunkKey) (*ndarray.Array, error)

// Assemble builds result t of a finished run as one array, reading its
// chunks with read from the workers that hold them; a panic becomes a
// *PanicError.
func Assemble(ctx context.Context, run *scheduler.Run, t *ops.Tiled, read Reader) (out *ndarray.Array, err error) {
	get := func(c ops.ChunkRef) (*ndarray.Array, error) {
		w := run.Location(int32(c))
		if w < 0 {
			return nil, fmt.Errorf("result chunk %d has no location", c)
		}
		return read(ctx, w, protocol.ChunkKey{Graph: run.ID(), Node: int32(c)})
	}
	err = guard("assemble", func() error {
		out, err = AssembleTiled(t, get)
		return err
	})
	return out, err
}

// AssembleTiled builds a whole result array from its chunks, read with get.
func AssembleTiled(t *ops.Tiled, get func(ops.ChunkRef) (*ndarray.Array, error)) (*ndarray.Array, error) {
	if len(t.Chunks) == 1 {
		a, err := get(t.Chunks[0])
		if err != nil {
			return nil, err
		}
		return a.Contiguous(), nil
	}
	shape, nsplits := t.Meta.Shape, t.NSplits
	chunk := func(j int) (*ndarray.Array, error) { return get(t.Chunks[j]) }
	if t.Meta.Unknown != 0 {
		// The chunks are read first: their lengths along the axis give
		// the offsets.
		arrays := make([]*ndarray.Array, len(t.Chunks))
		ax := t.Meta.UnknownAxis()
		var err error
		shape, nsplits, err = unknownSplits(t, func(j int) (int, error) {
			a, err := get(t.Chunks[j])
			if err != nil {
				return 0, err
			}
			arrays[j] = a
			return a.Shape()[ax], nil
		})
		if err != nil {
			return nil, err
		}
		chunk = func(j int) (*ndarray.Array, error) { return arrays[j], nil }
	}
	out, err := ndarray.New(t.Meta.DType, shape...)
	if err != nil {
		return nil, err
	}
	return out, copyChunks(out, t.Grid(), ops.AxisOffsets(nsplits), chunk)
}

// copyChunks copies every chunk of a grid into out at the offsets offs;
// chunk(j) is the j-th in C order.
func copyChunks(out *ndarray.Array, grid []int, offs [][]int, chunk func(j int) (*ndarray.Array, error)) error {
	var ferr error
	j := 0
	ops.ForEachGrid(grid, func(idx []int) {
		if ferr != nil {
			return
		}
		a, err := chunk(j)
		j++
		if err != nil {
			ferr = err
			return
		}
		ranges := make([]ndarray.Range, len(idx))
		for ax := range idx {
			ranges[ax] = ndarray.Range{Start: offs[ax][idx[ax]], Step: 1, Len: a.Shape()[ax]}
		}
		dst, err := out.Slice(ranges)
		if err != nil {
			ferr = err
			return
		}
		ndarray.CopyInto(dst, a)
	})
	return ferr
}

// Layout is where the chunks of a result stand in the whole array: what a
// cluster's clients fetch them by.
type Layout struct {
	Shape   []int
	NSplits [][]int
	// Nodes are the result's chunk ops and ChunkShapes their shapes, in
	// the order of its chunks (C order over the grid).
	Nodes       []int32
	ChunkShapes [][]int
}

// ResultLayout is the layout of result t of a finished run. An axis of
// unknown length takes its chunks' lengths from the bytes the workers
// reported for them: a chunk's length is its bytes over those of one step
// along the axis (a chunk with no elements across the other axes counts
// as 0). A panic becomes a *PanicError.
func ResultLayout(run *scheduler.Run, t *ops.Tiled) (l *Layout, err error) {
	err = guard("assemble", func() error {
		l, err = resultLayout(run, t)
		return err
	})
	return l, err
}

func resultLayout(run *scheduler.Run, t *ops.Tiled) (*Layout, error) {
	l := &Layout{Shape: t.Meta.Shape, NSplits: t.NSplits, Nodes: make([]int32, len(t.Chunks)), ChunkShapes: make([][]int, len(t.Chunks))}
	cg := run.Graph()
	for j, c := range t.Chunks {
		l.Nodes[j] = int32(c)
		l.ChunkShapes[j] = cg.Nodes[c].Meta.Shape
	}
	if t.Meta.Unknown == 0 {
		return l, nil
	}
	bytes, err := run.ChunkBytes(l.Nodes)
	if err != nil {
		return nil, err
	}
	ax := t.Meta.UnknownAxis()
	l.Shape, l.NSplits, err = unknownSplits(t, func(j int) (int, error) {
		bound := l.ChunkShapes[j]
		step := int64(t.Meta.DType.Size())
		for a, d := range bound {
			if a != ax {
				step *= int64(d)
			}
		}
		n := 0
		if step > 0 {
			if bytes[j]%step != 0 || bytes[j]/step > int64(bound[ax]) {
				return 0, fmt.Errorf("chunk %d: %d bytes is no length of at most %d along axis %d of unknown length", l.Nodes[j], bytes[j], bound[ax], ax)
			}
			n = int(bytes[j] / step)
		}
		l.ChunkShapes[j] = slices.Clone(bound)
		l.ChunkShapes[j][ax] = n
		return n, nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// unknownSplits is the actual shape and splits of a result with an axis
// of unknown length, from the length along it of each chunk j of t
// (asked once for every chunk, in the order of t.Chunks): the chunks of
// one slab across that axis must agree.
func unknownSplits(t *ops.Tiled, length func(j int) (int, error)) (shape []int, nsplits [][]int, err error) {
	ax := t.Meta.UnknownAxis()
	grid := t.Grid()
	lens := make([]int, grid[ax])
	for i := range lens {
		lens[i] = -1
	}
	j := 0
	ops.ForEachGrid(grid, func(idx []int) {
		if err != nil {
			return
		}
		n, lerr := length(j)
		j++
		if lerr != nil {
			err = lerr
			return
		}
		switch l := lens[idx[ax]]; {
		case l < 0:
			lens[idx[ax]] = n
		case l != n:
			err = fmt.Errorf("result chunks %v of lengths %d and %d along axis %d of unknown length", idx, l, n, ax)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	nsplits = slices.Clone(t.NSplits)
	nsplits[ax] = lens
	shape = slices.Clone(t.Meta.Shape)
	shape[ax] = 0
	for i, n := range lens {
		// A grid with no chunk across another axis asks no length.
		lens[i] = max(n, 0)
		shape[ax] += lens[i]
	}
	return shape, nsplits, nil
}
