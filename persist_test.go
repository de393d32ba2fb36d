package phobos

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/internal/numpytest"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/tensor"
)

// persistData is a 37 x 23 float64 array of values that depend on the
// position only.
func persistData(t *testing.T) *ndarray.Array {
	t.Helper()
	v := make([]float64, 37*23)
	for i := range v {
		v[i] = float64((i*7919)%1013) / 97
	}
	a, err := ndarray.FromFloat64s([]int{37, 23}, v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// laterGraphs are ten graphs built on p, and the NumPy expression of each
// on p's value.
func laterGraphs(p *tensor.Tensor) ([]*tensor.Tensor, []string) {
	var ts []*tensor.Tensor
	var exprs []string
	for k := range 10 {
		switch k % 5 {
		case 0:
			ts = append(ts, p.Sum(tensor.Axis(0)).Mul(float64(k+1)))
			exprs = append(exprs, fmt.Sprintf("np.sum(p, axis=0) * %d.0", k+1))
		case 1:
			ts = append(ts, p.Add(float64(k)).Mean())
			exprs = append(exprs, fmt.Sprintf("np.mean(p + %d.0)", k))
		case 2:
			ts = append(ts, p.T().MatMul(p))
			exprs = append(exprs, "p.T @ p")
		case 3:
			ts = append(ts, p.Mul(p).Sum(tensor.Axis(1)))
			exprs = append(exprs, "np.sum(p * p, axis=1)")
		default:
			ts = append(ts, p.Sub(float64(k)))
			exprs = append(exprs, fmt.Sprintf("p - %d.0", k))
		}
	}
	return ts, exprs
}

// storeBytes is the bytes the session's workers hold in memory.
func storeBytes(s *Session) int64 {
	var n int64
	for _, w := range s.be.(*localBackend).local.Workers {
		n += w.Store().Stats().Bytes
	}
	return n
}

// TestPersistComputedOnce: a tensor persisted once and used by ten later
// graphs is computed once: every later graph starts from its held chunks
// (the only chunk ops without inputs are held_chunk ops, one per chunk of
// the tensor), their values are NumPy's, and the workers' memory is back
// to its baseline within a second of Release. Chunkings: odd, single
// element rows, larger than the array.
func TestPersistComputedOnce(t *testing.T) {
	np := numpytest.NewRunner()
	np.Skip(t)
	ctx := context.Background()
	data := persistData(t)
	for _, tc := range []struct {
		name    string
		chunks  []int
		workers int
	}{
		{"odd", []int{10, 7}, 2},
		{"single rows", []int{1, 23}, 1},
		{"larger than the array", []int{100, 100}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSession(WithWorkers(tc.workers), WithSlots(2))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			base := storeBytes(s)
			y := tensor.FromArray(data, tensor.Chunks(tc.chunks...)).Mul(3).Add(1).Sqrt()
			ps, err := s.Persist(ctx, y)
			if err != nil {
				t.Fatal(err)
			}
			p := ps[0]
			held := p.Op().(ops.Held)
			if !held.Resolved() {
				t.Fatal("a persisted tensor does not name its chunks")
			}
			persistOps := s.Stats().ChunkOps
			if persistOps == 0 {
				t.Fatal("persist ran no chunk op")
			}
			if storeBytes(s) <= base {
				t.Fatalf("held bytes %d after persist, baseline %d: the result is not held", storeBytes(s), base)
			}
			ts, exprs := laterGraphs(p)
			chunks := 1
			for _, s := range held.Splits {
				chunks *= len(s)
			}
			var cases []numpytest.Case
			got := make([]*ndarray.Array, len(ts))
			for k, lt := range ts {
				plan := startsFromHeld(t, s, lt, k, chunks)
				out, err := s.Execute(ctx, lt)
				if err != nil {
					t.Fatalf("graph %d: %v", k, err)
				}
				if ops := s.Stats().ChunkOps; ops != plan.Graph.Len() {
					t.Fatalf("graph %d ran %d chunk ops, its plan has %d", k, ops, plan.Graph.Len())
				}
				got[k] = out[0]
				cases = append(cases, numpytest.Case{Name: exprs[k], Inputs: map[string]*ndarray.Array{"x": data}, Expr: "(lambda p: " + exprs[k] + ")(np.sqrt(x * 3.0 + 1.0))"})
			}
			want, errs, err := np.Eval(ctx, cases)
			if err != nil {
				t.Fatal(err)
			}
			for k := range cases {
				if errs[k] != nil {
					t.Fatalf("%s: %v", exprs[k], errs[k])
				}
				if err := numpytest.Compare(got[k], want[k][0], 1e-12, 1e-12); err != nil {
					t.Errorf("%s: %v", exprs[k], err)
				}
			}
			if err := s.Release(ctx, p); err != nil {
				t.Fatal(err)
			}
			// Back to the baseline within a second: polled 50 times.
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			polls := 0
			for ; storeBytes(s) != base; polls++ {
				if polls == 50 {
					t.Fatalf("held bytes %d a second after Release, baseline %d", storeBytes(s), base)
				}
				<-tick.C
			}
			if _, err := s.Execute(ctx, p.Sum()); err == nil {
				t.Fatal("a released tensor was read")
			} else if he := (*scheduler.HeldError)(nil); !errors.As(err, &he) {
				t.Fatalf("reading a released tensor: %v, want a HeldError", err)
			}
			if err := s.Release(ctx, p); !errors.Is(err, ErrNotHeld) {
				t.Fatalf("second release: %v, want ErrNotHeld", err)
			}
		})
	}
}

// TestPersistSurvivesWorkerDeath: the worker holding chunks of a persisted
// tensor dies; the scheduler recomputes them from the persisting graph's
// lineage and a later graph still gets NumPy's answer.
func TestPersistSurvivesWorkerDeath(t *testing.T) {
	np := numpytest.NewRunner()
	np.Skip(t)
	ctx := context.Background()
	data := persistData(t)
	s, err := NewSession(WithWorkers(3), WithSlots(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	y := tensor.FromArray(data, tensor.Chunks(5, 23)).Mul(3).Add(1).Sqrt()
	ps, err := s.Persist(ctx, y)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	b := s.be.(*localBackend)
	// The worker holding most of the held bytes dies.
	victim, most := -1, int64(0)
	for w, wk := range b.local.Workers {
		if n := wk.Store().Stats().Bytes; n > most {
			victim, most = w, n
		}
	}
	if victim < 0 {
		t.Fatal("no worker holds the persisted tensor")
	}
	b.local.Scheduler.MarkWorkerDead(victim, errors.New("killed by the test"))
	out, err := s.Execute(ctx, p.Mul(p).Sum(tensor.Axis(1)))
	if err != nil {
		t.Fatalf("after worker %d died: %v", victim, err)
	}
	want, errs, err := np.Eval(ctx, []numpytest.Case{{Name: "after death", Inputs: map[string]*ndarray.Array{"x": data}, Expr: "np.sum(np.sqrt(x * 3.0 + 1.0) ** 2, axis=1)"}})
	if err != nil || errs[0] != nil {
		t.Fatal(err, errs)
	}
	if err := numpytest.Compare(out[0], want[0][0], 1e-12, 1e-12); err != nil {
		t.Fatal(err)
	}
	// The lost chunks were recomputed by the persisting run.
	b.heldMu.Lock()
	run := b.held[p.Op().(ops.Held).Graph]
	b.heldMu.Unlock()
	if run == nil || run.Recomputed() == 0 {
		t.Fatalf("the persisting run recomputed nothing after worker %d died", victim)
	}
	if err := s.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// TestPersistSpills: held chunks count against the worker's budget: a
// persisted tensor four times the budget is spilled (and read back by the
// later graph), and the later graph's value is NumPy's.
func TestPersistSpills(t *testing.T) {
	np := numpytest.NewRunner()
	np.Skip(t)
	ctx := context.Background()
	const rows, cols = 4096, 256 // 8 MiB of float64
	s, err := NewSession(WithWorkers(1), WithSlots(1), WithMemoryLimit(2<<20), WithSpillDir(t.TempDir()), WithGoMemoryLimit(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := tensor.Arange(0, rows*cols, 1, tensor.Chunks(256*cols)).Reshape(rows, cols).Mul(0.5)
	ps, err := s.Persist(ctx, x.Rechunk(tensor.Chunks(256, cols)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Execute(ctx, ps[0].Sum(tensor.Axis(1)))
	if err != nil {
		t.Fatal(err)
	}
	st := memStats(s)
	if st.SpilledBytes+st.DroppedBytes == 0 {
		t.Fatalf("an 8 MiB persisted tensor under a 2 MiB budget was neither spilled nor dropped: %+v", st)
	}
	want, errs, err := np.Eval(ctx, []numpytest.Case{{Name: "spilled", Expr: "(np.arange(4096 * 256, dtype=np.float64).reshape(4096, 256) * 0.5).sum(axis=1)"}})
	if err != nil || errs[0] != nil {
		t.Fatal(err, errs)
	}
	if err := numpytest.Compare(out[0], want[0][0], 1e-12, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, ps[0]); err != nil {
		t.Fatal(err)
	}
}

// startsFromHeld fails the test unless graph k's plan for lt starts only
// from held chunks, at most chunks of them (nothing upstream runs again),
// and returns the plan.
func startsFromHeld(t *testing.T, s *Session, lt *tensor.Tensor, k, chunks int) *Plan {
	t.Helper()
	plan, err := s.Explain(lt)
	if err != nil {
		t.Fatal(err)
	}
	sources := 0
	for _, nd := range plan.Graph.Nodes {
		if len(nd.Inputs) > 0 {
			continue
		}
		if nd.Op.Type() != "held_chunk" {
			t.Fatalf("graph %d computes %s again: it does not start from the held chunks", k, nd.Op.Type())
		}
		sources++
	}
	if sources > chunks {
		t.Fatalf("graph %d reads %d held chunks, the tensor has %d", k, sources, chunks)
	}
	return plan
}
