package ops

import (
	"errors"
	"fmt"
	"math"
)

// MaxChunkOps bounds the chunk ops of one chunk graph: a request (a chunk
// size of one element, a broadcast of an (N,1) tensor against a (1,M) one)
// must not make the compiler allocate without end. ChunkRef indexes chunk
// ops, so the bound must fit it.
const MaxChunkOps = 1 << 22

// MaxLocalChunkOps bounds the chunk ops of a graph compiled in the process
// that built it (a local session): no request from the network can ask
// for it, so it is sized by what the machine can hold, not by what a
// stranger may make a service allocate.
const MaxLocalChunkOps = 1 << 26

var _ = [math.MaxInt32 - MaxLocalChunkOps]struct{}{} // MaxLocalChunkOps fits a ChunkRef
var _ = [MaxLocalChunkOps - MaxChunkOps]struct{}{}   // and is the larger bound

// Budget is implemented by builders that bound how many chunk ops a graph
// may have (graph.ChunkGraph). Tile rules ask it before they allocate for
// a grid of chunk ops.
type Budget interface {
	// Admit reports whether n more chunk ops fit.
	Admit(n float64) error
}

// TooManyChunksError is a tiling that would make more chunk ops than the
// graph may have.
type TooManyChunksError struct {
	Grid  []int   // the chunk grid asked for (nil when counted otherwise)
	Count float64 // chunk ops it would add
	Have  int     // chunk ops already in the graph
	Limit int
}

func (e *TooManyChunksError) Error() string {
	what := fmt.Sprintf("%.4g chunk ops", e.Count)
	if e.Grid != nil {
		what = fmt.Sprintf("a chunk grid of %v (%.4g chunk ops)", e.Grid, e.Count)
	}
	return fmt.Sprintf("%s on top of %d would pass the limit of %d chunk ops a graph may have; use larger chunks", what, e.Have, e.Limit)
}

// Reserver is implemented by builders that can make room for many chunk
// ops at once (graph.ChunkGraph). Tile rules that know how many they are
// about to add say so: a graph of millions of ops then grows once per
// tensor op instead of being copied again and again as it fills.
type Reserver interface {
	// Reserve makes room for n more chunk ops; a hint, not a bound.
	Reserve(n int)
}

// ChunkEstimator is implemented by tensor ops that can tell, before
// anything is tiled, about how many chunk ops their tiling adds and how
// many chunks their output has, from their inputs' chunk counts and
// metas. Tiling
// sizes the chunk graph from the sum once, so a graph of millions of ops
// is allocated at its size instead of copied as each op reserves more
// (each copy of a pointer-filled slice that size also runs write barriers
// while the collector marks and faults in fresh pages). Estimates are
// hints: too low, the graph grows; too high, it holds spare room.
type ChunkEstimator interface {
	EstimateChunks(in []int, inMeta []Meta) (ops, out int)
}

// estimateSource is a source's estimate: one chunk op per chunk of spec.
func estimateSource(spec ChunkSpec, m Meta) (int, int) {
	n := int(min(spec.Count(m), MaxLocalChunkOps+1))
	return n, n
}

// EstimateChunks implements ChunkEstimator.
func (op Full) EstimateChunks([]int, []Meta) (int, int) { return estimateSource(op.Chunks, op.Meta) }

// EstimateChunks implements ChunkEstimator.
func (op Random) EstimateChunks([]int, []Meta) (int, int) { return estimateSource(op.Chunks, op.Meta) }

// EstimateChunks implements ChunkEstimator.
func (op Arange) EstimateChunks([]int, []Meta) (int, int) { return estimateSource(op.Chunks, op.Meta) }

// EstimateChunks implements ChunkEstimator: one op per chunk of the
// common grid, at least the largest input's (more where inputs broadcast
// against each other, which the estimate does not see).
func (op Elementwise) EstimateChunks(in []int, _ []Meta) (int, int) {
	n := 1
	for _, c := range in {
		n = max(n, c)
	}
	return n, n
}

// EstimateChunks implements ChunkEstimator for reductions over every
// axis (nil Axes, or all of the input's, as a 1-d sum has): a partial per
// chunk and a tree of combines (about one per fan-1 partials) to one
// chunk. Over some axes the output's chunking depends on the input's
// grid: no estimate.
func (op Reduction) EstimateChunks(in []int, inMeta []Meta) (int, int) {
	if len(in) != 1 || len(inMeta) != 1 || (op.Axes != nil && len(op.Axes) != len(inMeta[0].Shape)) {
		return -1, -1
	}
	fan := op.FanIn
	if fan < 2 {
		fan = DefaultFanIn
	}
	return in[0] + combinesAtMost(in[0], fan), 1
}

// combinesAtMost bounds the combines of a tree of fan-in fan over n
// partials: about n/(fan-1), plus at most one per level for the groups
// rounded up (an estimate that falls short by even one makes the graph
// grow, a copy of all of it).
func combinesAtMost(n, fan int) int {
	levels := 0
	for m := n; m > 1; m = (m + fan - 1) / fan {
		levels++
	}
	return n/(fan-1) + levels + 1
}

// reserve passes a count of chunk ops about to be added to b, if it
// takes one.
func reserve(b Builder, n int) {
	if r, ok := b.(Reserver); ok && n > 0 {
		r.Reserve(n)
	}
}

// admitGrid asks b's budget (if it has one) for a grid of chunk ops; times
// is how many chunk ops each grid position makes (a product's partial
// blocks), 1 otherwise.
func admitGrid(b Builder, grid []int, times float64) error {
	bb, ok := b.(Budget)
	if !ok {
		return nil
	}
	n := times
	for _, g := range grid {
		n *= float64(g)
	}
	err := bb.Admit(n)
	if tm, ok := errors.AsType[*TooManyChunksError](err); ok {
		tm.Grid = append([]int(nil), grid...)
	}
	return err
}

// Count is how many chunks the spec makes of a tensor (as Resolve would),
// counted without building the splits (which would itself be the
// allocation a limit must prevent), as a float so it cannot overflow.
func (s ChunkSpec) Count(m Meta) float64 {
	shape := m.Shape
	count := 1.0
	switch {
	case len(s.Splits) > 0:
		for _, sp := range s.Splits {
			count *= float64(max(len(sp), 1))
		}
	case len(s.Size) > 0:
		for ax, n := range shape {
			c := s.Size[0]
			if len(s.Size) == len(shape) {
				c = s.Size[ax]
			}
			if c > 0 && c < n {
				count *= float64((n + c - 1) / c)
			}
		}
	default:
		target := s.Bytes
		if target <= 0 {
			target = DefaultChunkBytes
		}
		budget := max(target/int64(max(m.DType.Size(), 1)), 1)
		for ax := len(shape) - 1; ax >= 0; ax-- {
			n := int64(shape[ax])
			switch {
			case n == 0:
			case n <= budget:
				budget /= n
			default:
				count *= float64((n + budget - 1) / budget)
				budget = 1
			}
		}
	}
	return count
}
