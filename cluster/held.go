package cluster

import (
	"context"
	"fmt"
	"slices"

	"github.com/phobos-tensor/phobos/execution"
	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
)

// resolveHeld fills in each persisted tensor (ops.Held) of a graph
// submitted to session sid from the scheduler's own record of the graph it
// names there: the run keeping its chunks, their splits and chunk ops.
// Whatever a client put in those fields is replaced, so a graph reads only
// results of its own session; a graph that is not there, has not
// succeeded or was released is refused, as is a meta that is not the
// result's.
func (p *SchedulerProc) resolveHeld(ctx context.Context, tg *graph.TileableGraph, sid string) error {
	resolved := false
	for i := range tg.Nodes {
		h, ok := tg.Nodes[i].Op.(ops.Held)
		if !ok {
			continue
		}
		if h.Ref == "" {
			return fmt.Errorf("tensor %d: a held tensor names its graph in the session (ref)", i)
		}
		g, err := p.lookup(ctx, sid, h.Ref)
		if err != nil {
			return fmt.Errorf("tensor %d: held result of graph %s: %w", i, h.Ref, err)
		}
		g.mu.Lock()
		state, released, run, results := g.state, g.released, g.run, g.results
		g.mu.Unlock()
		switch {
		case state != StateSucceeded:
			return fmt.Errorf("tensor %d: graph %s is %s: only a succeeded graph's results are held", i, h.Ref, state)
		case released || run == nil:
			return fmt.Errorf("tensor %d: the results of graph %s were released", i, h.Ref)
		case h.Result < 0 || h.Result >= len(results):
			return fmt.Errorf("tensor %d: graph %s has %d results, not %d", i, h.Ref, len(results), h.Result+1)
		}
		r := results[h.Result]
		if !heldMetaFits(h.Meta, r.Meta) {
			return fmt.Errorf("tensor %d: result %d of graph %s is %v, the graph says %v", i, h.Result, h.Ref, r.Meta, h.Meta)
		}
		ref := h.Ref
		h, err = execution.HeldResult(run, h.Result, r)
		if err != nil {
			return fmt.Errorf("tensor %d: held result of graph %s: %w", i, ref, err)
		}
		h.Ref = ref
		resolved = true
		tg.Nodes[i].Op = h
	}
	if !resolved {
		return nil
	}
	// A held result of unknown length now has its lengths: the tensors
	// built on it learn them.
	return tg.Reinfer()
}

// heldMetaFits reports whether the meta a client sent for a held result
// is the result's: the same dtype and shape, where an axis the client
// does not know the length of (Unknown) is one the result did not know
// either when it was planned.
func heldMetaFits(sent, result ops.Meta) bool {
	if sent.DType != result.DType || len(sent.Shape) != len(result.Shape) {
		return false
	}
	if sent.Unknown != 0 && sent.Unknown != result.Unknown {
		return false
	}
	return slices.Equal(sent.Shape, result.Shape)
}
