package storage

import (
	"math/rand/v2"
	"testing"
)

// TestBufIndexAgainstMap applies random puts, deletes and gets to a
// bufIndex and to a map, with ids clustered (neighbouring buffers, long
// probe runs) and scattered, through growing and shrinking, and compares
// them after every step and as a whole now and then.
func TestBufIndexAgainstMap(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 11))
		var x bufIndex
		want := map[uintptr]*bufRef{}
		randID := func() uintptr {
			if rng.IntN(4) == 0 {
				return uintptr(1 + rng.Uint64N(1<<40))
			}
			return uintptr(0xc000000000 + 8*rng.IntN(2000))
		}
		for i := range 40000 {
			id := randID()
			// Phases of mostly puts and mostly deletes, to grow and shrink.
			putShare := 6
			if (i/5000)%2 == 1 {
				putShare = 2
			}
			switch op := rng.IntN(10); {
			case op < putShare:
				if want[id] == nil {
					b := &bufRef{id: id}
					x.put(b)
					want[id] = b
				}
			default:
				x.del(id)
				delete(want, id)
			}
			if got := x.get(id); got != want[id] {
				t.Fatalf("seed %d step %d: get(%#x) = %p, want %p", seed, i, id, got, want[id])
			}
			if x.len() != len(want) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, i, x.len(), len(want))
			}
			if i%1000 == 0 {
				seen := map[uintptr]bool{}
				for b := range x.all {
					if seen[b.id] || want[b.id] != b {
						t.Fatalf("seed %d step %d: all visits %#x wrongly", seed, i, b.id)
					}
					seen[b.id] = true
				}
				if len(seen) != len(want) {
					t.Fatalf("seed %d step %d: all visits %d, want %d", seed, i, len(seen), len(want))
				}
				for id, b := range want {
					if x.get(id) != b {
						t.Fatalf("seed %d step %d: get(%#x) lost", seed, i, id)
					}
				}
			}
		}
		for id := range want {
			x.del(id)
		}
		if x.len() != 0 || len(x.slots) > minBufIndex {
			t.Fatalf("seed %d: emptied index holds %d in %d slots", seed, x.len(), len(x.slots))
		}
	}
}
