package phobos

import (
	"context"
	"errors"
	"fmt"

	"github.com/phobos-tensor/phobos/execution"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
)

// Results that stay: Persist computes tensors and keeps their chunks on the
// workers, under the run the scheduler keeps (ended, not released), and
// returns tensors made of those chunks (ops.Held). Graphs built on them
// start from the chunks instead of recomputing; the scheduler recomputes a
// held chunk from the run's lineage if its worker dies. Release (or Close)
// lets them go.

// persister is a backend that can keep results.
type persister interface {
	persist(ctx context.Context, s *Session, ts []*tensor.Tensor) ([]*tensor.Tensor, error)
	release(ctx context.Context, held []ops.Held) error
}

// ErrNotHeld is returned by Release for a tensor that is not a persisted
// one of this session (or was released already).
var ErrNotHeld = errors.New("phobos: not a tensor this session holds")

// Persist computes the tensors together and returns tensors backed by
// their chunks, which stay on the workers until Release or Close. A later
// Execute (or Persist) of tensors built on them reads those chunks.
func (s *Session) Persist(ctx context.Context, ts ...*tensor.Tensor) ([]*tensor.Tensor, error) {
	p, ok := s.be.(persister)
	if !ok {
		return nil, errors.New("phobos: this session cannot keep results")
	}
	return p.persist(ctx, s, ts)
}

// Release lets the workers free the chunks of persisted tensors. Tensors
// persisted together are released together, once any of them is named.
func (s *Session) Release(ctx context.Context, ts ...*tensor.Tensor) error {
	p, ok := s.be.(persister)
	if !ok {
		return errors.New("phobos: this session cannot keep results")
	}
	var held []ops.Held
	for _, t := range ts {
		h, ok := t.Op().(ops.Held)
		if !ok {
			return fmt.Errorf("%w: a %s tensor", ErrNotHeld, t.Op().Type())
		}
		held = append(held, h)
	}
	return p.release(ctx, held)
}

// heldTensors are the tensors of an ended execution's results: its chunks,
// by graph and chunk op, with the lengths the run gave them.
func heldTensors(run *scheduler.Run, results []*ops.Tiled) ([]*tensor.Tensor, error) {
	out := make([]*tensor.Tensor, len(results))
	for k, r := range results {
		h, err := execution.HeldResult(run, k, r)
		if err != nil {
			return nil, fmt.Errorf("phobos: persist: result %d: %w", k, err)
		}
		out[k] = tensor.New(h)
	}
	return out, nil
}

func (b *localBackend) persist(ctx context.Context, s *Session, ts []*tensor.Tensor) ([]*tensor.Tensor, error) {
	ex, err := execution.CompileTensors(!s.cfg.noFuse, ts)
	if err != nil {
		return nil, err
	}
	if err := ex.Submit(ctx, b.local.Scheduler, protocol.Fence{}); err != nil {
		return nil, err
	}
	run := ex.Run
	err = execution.Follow(ctx, run, 0, nil)
	s.mu.Lock()
	s.last = Stats{ChunkOps: ex.Graph.Len(), MovedBytes: run.MovedBytes(), Recomputed: run.Recomputed()}
	s.mu.Unlock()
	if err != nil {
		run.Release()
		var oe *scheduler.OpError
		if errors.As(err, &oe) {
			return nil, fmt.Errorf("phobos: persist: %w", err)
		}
		return nil, err
	}
	out, err := heldTensors(run, ex.Results)
	if err != nil {
		run.Release()
		return nil, err
	}
	b.heldMu.Lock()
	if b.held == nil {
		b.held = make(map[uint64]*scheduler.Run)
	}
	b.held[uint64(run.ID())] = run
	b.heldMu.Unlock()
	return out, nil
}

func (b *localBackend) release(_ context.Context, held []ops.Held) error {
	var missing []uint64
	for _, h := range held {
		g := h.Graph
		b.heldMu.Lock()
		run := b.held[g]
		delete(b.held, g)
		b.heldMu.Unlock()
		if run == nil {
			missing = append(missing, g)
			continue
		}
		run.Release()
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: graphs %v", ErrNotHeld, missing)
	}
	return nil
}

// releaseAll lets every held run go (the session closes).
func (b *localBackend) releaseAll() {
	b.heldMu.Lock()
	runs := b.held
	b.held = nil
	b.heldMu.Unlock()
	for _, run := range runs {
		run.Release()
	}
}
