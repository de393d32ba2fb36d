package prioq

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestOrder pushes and pops at random, mostly in order (as queues of ready
// ops see them) and not, and checks every pop against a sorted model.
func TestOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		q := New(func(a, b int) bool { return a < b })
		var model []int
		last := 0
		for range rapid.IntRange(0, 300).Draw(rt, "steps") {
			if rapid.IntRange(0, 2).Draw(rt, "op") > 0 {
				x := last + rapid.IntRange(0, 3).Draw(rt, "step") // mostly ascending
				if rapid.Bool().Draw(rt, "out of order") {
					x = rapid.IntRange(-50, 50).Draw(rt, "any")
				}
				last = x
				q.Push(x)
				model = append(model, x)
				slices.Sort(model)
			} else {
				got, ok := q.Pop()
				if ok != (len(model) > 0) {
					rt.Fatalf("pop ok %v with %d queued", ok, len(model))
				}
				if ok {
					if got != model[0] {
						rt.Fatalf("popped %d, want %d (queued %v)", got, model[0], model)
					}
					model = model[1:]
				}
			}
			if q.Len() != len(model) {
				rt.Fatalf("len %d, want %d", q.Len(), len(model))
			}
			if p, ok := q.Peek(); ok && p != model[0] {
				rt.Fatalf("peek %d, want %d", p, model[0])
			}
		}
		for _, want := range model {
			if got, ok := q.Pop(); !ok || got != want {
				rt.Fatalf("popped %d (%v), want %d", got, ok, want)
			}
		}
		if q.Len() != 0 {
			rt.Fatalf("%d left", q.Len())
		}
	})
}

// TestEqualsFIFO: items of equal priority that arrive in order leave in
// order.
func TestEqualsFIFO(t *testing.T) {
	type item struct{ prio, seq int }
	q := New(func(a, b item) bool { return a.prio < b.prio })
	for i := range 10 {
		q.Push(item{prio: 1, seq: i})
	}
	for i := range 10 {
		x, _ := q.Pop()
		if x.seq != i {
			t.Fatalf("pop %d gave item %d", i, x.seq)
		}
	}
}
