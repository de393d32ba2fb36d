package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/ndarray"
)

func init() {
	Register(
		Descriptor{Name: "held", Op: Held{}, Kinds: Half | Complex},
		Descriptor{Name: "held_chunk", Op: HeldChunk{}, Kinds: Half | Complex},
	)
}

// A persisted tensor is the result of an earlier graph of the same session
// whose run the scheduler keeps: its chunks stay on the workers (counted
// against their budgets, spilled like any chunk, recomputed from the
// earlier graph's lineage if their worker dies) until the client releases
// it. A later graph refers to it by a Held op instead of its expression, so
// it starts from those chunks. Each HeldChunk is a chunk op without graph
// inputs whose one input the scheduler supplies at dispatch: the held
// chunk, under the earlier graph's key, from wherever it is then
// (External). Its kernel passes that array on, so the chunk is not copied.

// Held is a tensor whose chunks are the result chunks of an earlier graph
// of the session.
type Held struct {
	// Ref is the earlier graph's id as a cluster's REST API names it in
	// its session: a cluster resolves Graph, Splits and Nodes from its own
	// record of that graph, whatever the client sent, so a graph reads
	// only its own session's results. Empty in a local session.
	Ref string `json:"ref,omitempty"`
	// Graph is the earlier graph's run id; Result the index of the tensor
	// among its results.
	Graph  uint64 `json:"graph,omitempty"`
	Result int    `json:"result"`
	// Meta is the result's; a client may send an axis of unknown length
	// (Meta.Unknown), which resolving replaces by the lengths the run's
	// chunks turned out to have.
	Meta Meta `json:"meta"`
	// Splits are the chunk sizes along each axis.
	Splits [][]int `json:"splits,omitempty"`
	// Nodes are the earlier graph's chunk ops making each chunk, C order
	// of the chunk grid.
	Nodes []int32 `json:"nodes,omitempty"`
}

// Type implements TensorOp.
func (Held) Type() string { return "held" }

// Resolved reports whether the op names its chunks (Splits and Nodes).
func (op Held) Resolved() bool { return op.Nodes != nil }

// Infer implements TensorOp.
func (op Held) Infer(in []Meta) (Meta, error) {
	if err := checkNoInputs("held", in); err != nil {
		return Meta{}, err
	}
	what := fmt.Sprintf("held (graph %d, result %d)", op.Graph, op.Result)
	if op.Result < 0 {
		return Meta{}, fmt.Errorf("%s: negative result index", what)
	}
	if op.Meta.Unknown != 0 {
		// A result of unknown length (a mask's selection) as the client
		// knows it: resolving takes its lengths from the run that made it.
		if op.Splits != nil || op.Nodes != nil {
			return Meta{}, fmt.Errorf("%s: a resolved held tensor has every length known", what)
		}
		ax := op.Meta.UnknownAxis()
		if ax < 0 || ax >= op.Meta.NDim() || op.Meta.Shape[ax] != -1 {
			return Meta{}, fmt.Errorf("%s: invalid unknown axis %d of shape %v", what, ax, op.Meta.Shape)
		}
		known := op.Meta
		known.Shape = slices.Clone(op.Meta.Shape)
		known.Shape[ax] = 0
		known.Unknown = 0
		if err := checkMeta(what, known); err != nil {
			return Meta{}, err
		}
		return op.Meta, nil
	}
	if err := checkMeta(what, op.Meta); err != nil {
		return Meta{}, err
	}
	if op.Splits == nil && op.Nodes == nil {
		return op.Meta, nil
	}
	if err := heldSplits(op.Splits, op.Meta.Shape); err != nil {
		return Meta{}, fmt.Errorf("%s: %w", what, err)
	}
	n := 1
	for _, s := range op.Splits {
		n *= len(s)
	}
	if op.Nodes != nil && len(op.Nodes) != n {
		return Meta{}, fmt.Errorf("%s: %d chunk ops for %d chunks", what, len(op.Nodes), n)
	}
	for i, v := range op.Nodes {
		if v < 0 {
			return Meta{}, fmt.Errorf("%s: chunk %d: chunk op %d", what, i, v)
		}
	}
	return op.Meta, nil
}

// heldSplits checks a held tensor's chunk sizes against its shape. A
// chunk may be empty: a mask's selection can leave none of a chunk's rows.
func heldSplits(splits [][]int, shape []int) error {
	if len(splits) != len(shape) {
		return fmt.Errorf("splits for %d axes of shape %v", len(splits), shape)
	}
	for ax, sp := range splits {
		if len(sp) == 0 {
			return fmt.Errorf("no chunks along axis %d", ax)
		}
		sum := 0
		for _, n := range sp {
			if n < 0 {
				return fmt.Errorf("chunk size %d along axis %d", n, ax)
			}
			sum += n
		}
		if sum != shape[ax] {
			return fmt.Errorf("the splits of axis %d add up to %d, not its length %d", ax, sum, shape[ax])
		}
	}
	return nil
}

// Tile implements TensorOp.
func (op Held) Tile(b Builder, _ []*Tiled, out Meta) (*Tiled, error) {
	if !op.Resolved() {
		return nil, fmt.Errorf("held (graph %d, result %d): its chunks were not resolved before tiling", op.Graph, op.Result)
	}
	i := 0
	return tileSourceOf(b, out, ChunkSpec{Splits: op.Splits}, false, func(shape, _ []int) ChunkOp {
		c := HeldChunk{Graph: op.Graph, Node: op.Nodes[i], DType: out.DType, Shape: slices.Clone(shape)}
		i++
		return c
	})
}

// HeldChunk passes on one held chunk of an earlier graph, which the
// scheduler gives it as its one input.
type HeldChunk struct {
	Graph uint64        `json:"graph"`
	Node  int32         `json:"node"`
	DType ndarray.DType `json:"dtype"`
	Shape []int         `json:"shape"`
}

// Type implements ChunkOp.
func (HeldChunk) Type() string { return "held_chunk" }

// Label names the held chunk, for errors and progress.
func (op HeldChunk) Label() string { return fmt.Sprintf("held_chunk(g%d/c%d)", op.Graph, op.Node) }

// ExternalChunk implements External.
func (op HeldChunk) ExternalChunk() (uint64, int32) { return op.Graph, op.Node }

// Exec implements ChunkOp.
func (op HeldChunk) Exec(_ context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("%s: %d inputs, want the held chunk", op.Label(), len(in))
	}
	a := in[0]
	if a.DType() != op.DType || !slices.Equal(a.Shape(), op.Shape) {
		return nil, fmt.Errorf("%s: the held chunk is %v %v, the graph expects %v %v", op.Label(), a.DType(), a.Shape(), op.DType, op.Shape)
	}
	return a, nil
}

// External is implemented by chunk ops that read a chunk of another
// graph, which the scheduler finds and passes as their one input: they
// have no inputs in their own graph.
type External interface {
	ChunkOp
	ExternalChunk() (graph uint64, node int32)
}

// ExternalChunk is the chunk of another graph op reads, if it is External
// (through any wrappers).
func ExternalChunk(op ChunkOp) (graph uint64, node int32, ok bool) {
	for {
		if e, is := op.(External); is {
			graph, node = e.ExternalChunk()
			return graph, node, true
		}
		w, is := op.(Wrapper)
		if !is {
			return 0, 0, false
		}
		op = w.Unwrap()
	}
}
