package keytab

import (
	"math/rand/v2"
	"testing"
)

type key struct {
	g uint64
	n int32
}

// TestAgainstMap applies random sets, deletes, swaps, takes and gets to a
// Table and to a
// map, with keys in a few graphs, clustered and scattered numbers (pages
// sharing cache slots) and a few negative ones, and compares them after
// every step and as a whole now and then.
func TestAgainstMap(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var tab Table[uint64, int]
		want := map[key]int{}
		randKey := func() key {
			k := key{g: uint64(rng.IntN(3))}
			switch rng.IntN(10) {
			case 0:
				k.n = -1 - int32(rng.IntN(3))
			case 1, 2:
				k.n = int32(rng.IntN(1 << 24)) // far apart
			default:
				k.n = int32(rng.IntN(4 * pageSize * (1 << cacheBits)))
			}
			return k
		}
		for i := range 20000 {
			k := randKey()
			switch rng.IntN(5) {
			case 0:
				tab.Set(k.g, k.n, i)
				want[k] = i
			case 1:
				_, had := want[k]
				if got := tab.Delete(k.g, k.n); got != had {
					t.Fatalf("seed %d step %d: Delete%v = %v, want %v", seed, i, k, got, had)
				}
				delete(want, k)
			case 2:
				w, wok := want[k]
				if v, ok := tab.Swap(k.g, k.n, i); v != w || ok != wok {
					t.Fatalf("seed %d step %d: Swap%v = %d, %v; want %d, %v", seed, i, k, v, ok, w, wok)
				}
				want[k] = i
			case 3:
				w, wok := want[k]
				if v, ok := tab.Take(k.g, k.n); v != w || ok != wok {
					t.Fatalf("seed %d step %d: Take%v = %d, %v; want %d, %v", seed, i, k, v, ok, w, wok)
				}
				delete(want, k)
			}
			v, ok := tab.Get(k.g, k.n)
			w, wok := want[k]
			if ok != wok || v != w {
				t.Fatalf("seed %d step %d: Get%v = %d, %v; want %d, %v", seed, i, k, v, ok, w, wok)
			}
			if tab.Len() != len(want) {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, i, tab.Len(), len(want))
			}
			if i%2500 == 0 {
				checkAll(t, &tab, want)
			}
		}
		for k := range want {
			tab.Delete(k.g, k.n)
		}
		if tab.Len() != 0 || len(tab.pages) != 0 {
			t.Fatalf("seed %d: emptied table holds %d keys in %d pages", seed, tab.Len(), len(tab.pages))
		}
	}
}

func checkAll(t *testing.T, tab *Table[uint64, int], want map[key]int) {
	t.Helper()
	seen := map[key]int{}
	tab.All(func(g uint64, n int32, v int) bool {
		k := key{g, n}
		if _, dup := seen[k]; dup {
			t.Fatalf("All visits %v twice", k)
		}
		seen[k] = v
		return true
	})
	if len(seen) != len(want) {
		t.Fatalf("All visits %d keys, want %d", len(seen), len(want))
	}
	for k, v := range want {
		if got, ok := seen[k]; !ok || got != v {
			t.Fatalf("All gives %v = %d, %v; want %d", k, got, ok, v)
		}
	}
}

// TestAllStops checks that All stops when its function says so.
func TestAllStops(t *testing.T) {
	var tab Table[uint64, bool]
	for n := range int32(1000) {
		tab.Set(1, n*3, true)
	}
	calls := 0
	tab.All(func(uint64, int32, bool) bool { calls++; return calls < 10 })
	if calls != 10 {
		t.Fatalf("All called f %d times after it returned false at the 10th", calls)
	}
}

// TestZeroValueAndReuse checks that a deleted key reads as absent with the
// zero value, and that a page given back and reused holds nothing stale.
func TestZeroValueAndReuse(t *testing.T) {
	var tab Table[uint64, *int]
	x := 5
	tab.Set(1, 3, &x)
	tab.Delete(1, 3)
	if v, ok := tab.Get(1, 3); ok || v != nil {
		t.Fatalf("deleted key reads %v, %v", v, ok)
	}
	tab.Set(2, 3, nil) // reuses the page given back
	if _, ok := tab.Get(2, 4); ok {
		t.Fatal("reused page shows a key never set")
	}
	if v, ok := tab.Get(2, 3); !ok || v != nil {
		t.Fatalf("key set to nil reads %v, %v", v, ok)
	}
}
