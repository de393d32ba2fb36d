package ring

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("scheduler-%d", i)
	}
	return out
}

// TestBalance: with 3 to 16 members, every member's share of the circle,
// and of 200,000 session ids, is within 10% of the mean.
func TestBalance(t *testing.T) {
	keys := make([]string, 200_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)
	}
	for n := 3; n <= 16; n++ {
		r, err := New(names(n), 0)
		if err != nil {
			t.Fatal(err)
		}
		mean := 1 / float64(n)
		for m, share := range r.Shares() {
			if share < 0.9*mean || share > 1.1*mean {
				t.Errorf("%d members: %s owns %.4f of the circle, mean %.4f", n, m, share, mean)
			}
		}
		count := map[string]int{}
		for _, k := range keys {
			count[r.Owner(k)]++
		}
		if len(count) != n {
			t.Errorf("%d members: keys went to %d", n, len(count))
		}
		for m, c := range count {
			share := float64(c) / float64(len(keys))
			if share < 0.9*mean || share > 1.1*mean {
				t.Errorf("%d members: %s owns %.4f of the keys, mean %.4f", n, m, share, mean)
			}
		}
	}
}

func TestEdgeCases(t *testing.T) {
	var empty *Ring
	if got := empty.Owner("x"); got != "" {
		t.Errorf("nil ring: owner %q", got)
	}
	r, err := New(nil, 0)
	if err != nil || r.Owner("x") != "" || r.Len() != 0 {
		t.Errorf("empty ring: %v, owner %q", err, r.Owner("x"))
	}
	if _, err := New([]string{"a", "b", "a"}, 0); err == nil {
		t.Error("duplicate member accepted")
	}
	if _, err := New([]string{"a", ""}, 0); err == nil {
		t.Error("empty member id accepted")
	}
	one, _ := New([]string{"only"}, 1)
	if one.Owner("anything") != "only" || one.Shares()["only"] != 1 {
		t.Errorf("one member of one point: owner %q, shares %v", one.Owner("anything"), one.Shares())
	}
	// The order members are given in does not matter.
	a, _ := New([]string{"x", "y", "z"}, 0)
	b, _ := New([]string{"z", "x", "y"}, 0)
	for i := range 1000 {
		k := fmt.Sprint(i)
		if a.Owner(k) != b.Owner(k) {
			t.Fatalf("key %s: %s in one order, %s in another", k, a.Owner(k), b.Owner(k))
		}
	}
	if !a.Has("y") || a.Has("w") || !slices.Equal(a.Members(), []string{"x", "y", "z"}) {
		t.Errorf("members %v", a.Members())
	}
}

// TestMinimalMovement: when a member joins, a key either keeps its owner
// or moves to the new member; when one leaves, only its keys move; and
// the keys that move are about 1/n of them, not a reshuffle.
func TestMinimalMovement(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 16).Draw(t, "members")
		ids := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z0-9:./-]{1,24}`), n+1, n+1, rapid.ID[string]).Draw(t, "ids")
		keys := rapid.SliceOfNDistinct(rapid.String(), 300, 300, rapid.ID[string]).Draw(t, "keys")
		full, err := New(ids, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Join: ids[n] joins the first n.
		before, err := New(ids[:n], 0)
		if err != nil {
			t.Fatal(err)
		}
		joined, moved := ids[n], 0
		for _, k := range keys {
			if was, is := before.Owner(k), full.Owner(k); was != is {
				moved++
				if is != joined {
					t.Fatalf("key %q moved from %s to %s when %s joined", k, was, is, joined)
				}
			}
		}
		// Expected 300/(n+1) moves; far more is a reshuffle.
		if limit := 2*300/(n+1) + 20; moved > limit {
			t.Fatalf("%d of 300 keys moved when member %d joined (expected about %d)", moved, n+1, 300/(n+1))
		}
		// Leave: any one member of the n+1 leaves.
		j := rapid.IntRange(0, n).Draw(t, "leaves")
		rest := append(slices.Clone(ids[:j]), ids[j+1:]...)
		after, err := New(rest, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			was, is := full.Owner(k), after.Owner(k)
			if was != ids[j] && was != is {
				t.Fatalf("key %q moved from %s to %s when %s left", k, was, is, ids[j])
			}
			if is == ids[j] {
				t.Fatalf("key %q still owned by %s, which left", k, is)
			}
		}
	})
}

func BenchmarkOwner(b *testing.B) {
	r, _ := New(names(16), 0)
	for i := 0; b.Loop(); i++ {
		_ = r.Owner(fmt.Sprint(i))
	}
}
